"""Updating a review twice a year, as a systematic reviewer does: a preprint and its published
article are one work, cited as the article; the update runs with the review's own options
unless given others, and says so; records whose decisions stand are not screened again; a
record decided on its title alone is screened again once its abstract arrives, and the
reviewer is told.

Every record here is invented for these tests; no data set is copied in.
"""

from __future__ import annotations

import shlex
from dataclasses import fields
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from scholargraph import review
from scholargraph.agents.retrieval import decided_before
from scholargraph.cli import build_parser, main
from scholargraph.dedup import deduplicate
from scholargraph.ledger import ScreenedWork, record_digest
from scholargraph.options import ReviewOptions, option_flag
from scholargraph.records import Work
from scholargraph.report import Report, ReviewCounts
from scholargraph.testing.documents import ris_library
from scholargraph.updating import CARRIED_OPTIONS, NoticeCheck, merge_update, update

QUESTION = "zinc therapy for Wilson disease"
CRITERIA = "We included trials of zinc in people with Wilson disease."


# ------------------------------------------------------------------ preprint and article


def _record(title: str, year: int, venue: str, doi: str | None = None,
            authors: tuple[str, ...] = ("Marston H", "Okafor D"), kind: str = "article",
            arxiv_id: str | None = None) -> Work:
    return Work(title=title, year=year, venue=venue, doi=doi, authors=list(authors), kind=kind,
                arxiv_id=arxiv_id, sources=["library"])


@pytest.mark.parametrize(("preprint", "article"), [
    (_record("Wastewater surveillance of respiratory viruses in rural towns", 2021, "medRxiv",
             "10.1101/2021.03.04.21252911"),
     _record("Wastewater surveillance of respiratory viruses in rural towns", 2022,
             "Water Research", "10.1016/j.watres.2022.117990")),
    (_record("Minimum wages and teenage employment at county borders", 2019,
             "SSRN Electronic Journal", "10.2139/ssrn.3345678"),
     _record("Minimum wages and teenage employment at county borders", 2020,
             "Journal of Labor Economics")),
    (_record("Heat waves and emergency admissions in coastal cities", 2020, "medRxiv"),
     _record("Heat waves and emergency admissions in coastal cities", 2021, "The Lancet",
             "10.1016/s0140-6736(21)00001-1")),
    (_record("Deep learning for galaxy morphology in wide surveys", 2020, "arXiv",
             kind="preprint", arxiv_id="2004.01234"),
     _record("Deep learning for galaxy morphology in wide surveys", 2021,
             "Monthly Notices of the Royal Astronomical Society")),
])
def test_a_preprint_and_its_article_a_year_later_are_one_work_cited_as_the_article(
        preprint: Work, article: Work) -> None:
    """Same title and authors, the preprint server's venue beside the journal's (the server
    told by its DOI, its name as venue, or the record's kind), in either order: one work,
    whose record is the article's (its DOI, venue and year), the preprint's identifiers kept
    as another version; the preprint's DOI never stands in for an article without one."""
    result = deduplicate([preprint, article])
    [work] = result.works
    assert deduplicate([article, preprint]).works[0].doi == article.doi
    assert (work.venue, work.year, work.doi) == (article.venue, article.year, article.doi)
    if preprint.doi:
        assert f"doi:{preprint.doi}" in work.version_ids
    assert [merge.rule for merge in result.merges] == ["fuzzy_title"]


def test_a_preprint_is_not_joined_to_another_authors_article_nor_to_an_earlier_one() -> None:
    """The waived venue asks for more elsewhere: another first author is another work, and a
    'preprint' dated after the article is no preprint of it; a title only extended is not
    enough across venues."""
    title = "Wastewater surveillance of respiratory viruses in rural towns"
    article = _record(title, 2022, "Water Research", "10.1016/j.watres.2022.117990")
    other_author = _record(title, 2021, "medRxiv", "10.1101/2021.03.04.21252911",
                           authors=("Lindqvist A", "Okafor D"))
    later = _record(title, 2023, "medRxiv", "10.1101/2023.03.04.21252911")
    extended = _record(title + " of Ontario", 2021, "medRxiv", "10.1101/2021.05.04.21252911")
    for record in (other_author, later, extended):
        assert len(deduplicate([record, article]).works) == 2, record.title


# ------------------------------------------------------------------ a library and its updates

RECORDS = [
    ("r1", "Zinc acetate maintenance therapy in Wilson disease",
     "Forty patients with Wilson disease took zinc acetate for five years.", 2016),
    ("r2", "Zinc compared with penicillamine in Wilson disease",
     "Sixty patients with Wilson disease were treated with zinc or penicillamine.", 2018),
    ("r3", "Copper accumulation in vineyard soils",
     "Copper was measured in the soils of forty vineyards.", 2017),
    ("r4", "Trientine or zinc as first treatment of hepatic Wilson disease", "", 2019),
]
ADDED = ("r5", "Zinc and trientine in children with Wilson disease",
         "Thirty children with Wilson disease took zinc or trientine.", 2024)
FILLED = ("r4", RECORDS[3][1],
          "Fifty adults with hepatic Wilson disease took trientine or zinc for two years.", 2019)


@pytest.fixture
def reviewed(tmp_path: Path) -> dict[str, Any]:
    """A library review run with its own options (--max-results 7, --full-text 0, one
    round), and the next export of its search: one record added, one abstract filled in."""
    first, second = tmp_path / "search-2024.ris", tmp_path / "search-2025.ris"
    first.write_text(ris_library(RECORDS), encoding="utf-8")
    second.write_text(ris_library([*RECORDS[:3], FILLED, ADDED]), encoding="utf-8")
    folder = tmp_path / "review"
    earlier = review(QUESTION, sources=["library"], library=str(first), criteria=CRITERIA,
                     offline=True, max_iterations=1, max_results=7, full_text=0, out=folder)
    return {"folder": folder, "second": second, "earlier": earlier}


def _read(folder: Path) -> Report:
    return Report.model_validate_json((folder / "review.json").read_text(encoding="utf-8"))


def test_an_update_runs_with_the_reviews_own_options_and_says_so(
        reviewed: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    """Not given --max-results, --full-text nor --max-iterations, the update runs with the
    review's (7, 0, 1; the defaults are 20, 10, 2), records them as its own and says which it
    kept; an option given for the update wins and is named beside the review's value."""
    folder = reviewed["folder"]
    assert main(["update", str(folder), "--offline", "--library", str(reviewed["second"])]) == 0
    report = _read(folder)
    assert report.run is not None and report.update is not None
    assert {name: report.run.options[name] for name in ("max_results", "full_text",
                                                        "max_iterations")} == {
        "max_results": 7, "full_text": 0, "max_iterations": 1}
    assert report.update.options_kept == {"max_results": 7, "max_iterations": 1,
                                          "full_text": 0, "offline": True}
    assert "reports_sought" not in report.prisma  # --full-text 0: no full-text stage
    said = capsys.readouterr().err
    assert "update run with the review's own --max-results 7, --max-iterations 1, " \
           "--full-text 0" in said
    assert any("run with the review's own options (--max-results 7" in note
               for note in report.notes)
    assert "Run with the review's own --max-results 7, --max-iterations 1, --full-text 0, " \
           "--offline." \
        in (folder / "review.md").read_text(encoding="utf-8")
    # the next update, given --max-results 30, keeps the rest and names the one given
    assert main(["update", str(folder), "--offline", "--library", str(reviewed["second"]),
                 "--max-results", "30", "--quiet"]) == 0
    again = _read(folder)
    assert again.update is not None and again.run is not None
    assert again.update.options_given == {"max_results": 30}
    assert again.run.options["max_results"] == 30 and again.run.options["full_text"] == 0
    assert any("given for this update instead: --max-results 30 (the review's 7)" in note
               for note in again.notes)


def test_an_offline_review_is_updated_offline_unless_told_online(
        reviewed: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    """A review of the recorded corpus, updated without --offline, was updated from the live
    services: its new works came from the catalogues of today beside a corpus of 2023, and a
    reviewer without network got failed searches. The update takes the review's --offline as it
    takes its --max-results, says so, records it, and its command spells it out."""
    folder = reviewed["folder"]
    assert main(["update", str(folder), "--library", str(reviewed["second"])]) == 0
    report = _read(folder)
    assert report.run is not None and report.update is not None
    assert report.run.offline and report.run.corpus_as_of is not None
    assert report.update.options_kept["offline"] is True
    assert "update run with the review's own " in capsys.readouterr().err
    assert any("--offline" in note for note in report.notes if "review's own" in note)
    words = shlex.split(report.run.command)
    assert words[:3] == ["scholargraph", "update", "rerun"] and "--offline" in words
    args = build_parser().parse_args(words[1:])
    assert (args.offline, args.max_results, args.full_text) == (True, 7, 0)
    assert build_parser().parse_args(["update", "DIR", "--online"]).offline is False
    assert build_parser().parse_args(["update", "DIR"]).offline is None  # left to the review


def test_an_update_may_be_given_other_publication_years(reviewed: dict[str, Any]) -> None:
    """A review limited to studies up to some year keeps that limit in its updates; given
    ``--until`` (or ``--from-year``: the update's ``--since`` is the day records were added),
    the update searches the years given, records them, and its command says so."""
    folder = reviewed["folder"]
    assert main(["update", str(folder), "--library", str(reviewed["second"]),
                 "--from-year", "2017", "--quiet"]) == 0
    report = _read(folder)
    assert report.years == (2017, None) and report.run is not None
    words = shlex.split(report.run.command)
    assert words[words.index("--from-year") + 1] == "2017"
    assert build_parser().parse_args(words[1:]).since == 2017


def test_every_option_an_update_carries_can_be_given_on_its_command_line() -> None:
    """The options an update takes from the review come from the one schema, and each can be
    given instead on ``scholargraph update``: a value, or a switch either way. Before, the
    update carried --max-iterations, --snowball, --judge, --passages-per-question,
    --structured-output and --model-context from the review, and refused them when given."""
    assert {"max_results", "full_text", "max_iterations", "passages_per_question", "snowball",
            "judge", "model", "structured_output", "model_context", "citation_style",
            "offline"} <= set(CARRIED_OPTIONS)
    parser = build_parser()
    schema = {option.name: option for option in fields(ReviewOptions)}
    for name in CARRIED_OPTIONS:
        option, flag = schema[name], option_flag(name)
        if option.default is False:
            negation = "--online" if name == "offline" else "--no-" + name.replace("_", "-")
            assert getattr(parser.parse_args(["update", "DIR", flag]), name) is True
            assert getattr(parser.parse_args(["update", "DIR", negation]), name) is False
            continue
        typed = option.metadata["cli"].get("type") is int
        given = parser.parse_args(["update", "DIR", flag, "3" if typed else "ieee"])
        assert getattr(given, name) == (3 if typed else "ieee"), name
        assert getattr(parser.parse_args(["update", "DIR"]), name) is None, name


def test_records_whose_decisions_stand_are_not_screened_again(
        reviewed: dict[str, Any]) -> None:
    """Retrieval sets aside the records the review screened, unchanged since, before it
    screens: only the added record and the one whose abstract arrived are screened (2 of 5),
    and the flow counts the other 3 removed before screening."""
    lines: list[str] = []

    def heard(node: str, change: dict[str, Any]) -> None:
        if "progress" in change:
            lines.append(change["progress"])

    report = update(reviewed["folder"], library=str(reviewed["second"]), offline=True,
                    on_progress=heard)
    assert any(line.startswith("screening 2 works against the question") and
               "3 others screened in an earlier run, record unchanged: decision kept" in line
               for line in lines), lines
    assert report.update is not None
    assert report.update.prisma.screened == 2
    assert sum(report.update.prisma.removed_before_screening.values()) == 3


def test_a_record_decided_on_its_title_alone_is_screened_again_and_the_reviewer_told(
        reviewed: dict[str, Any]) -> None:
    """The review decided 'Trientine or zinc ...' on its title; its abstract has arrived: the
    update screens it again (its earlier decision does not stand) and its notes say so."""
    earlier: Report = reviewed["earlier"]
    bare = next(row for row in earlier.screening if row.title == RECORDS[3][1])
    report = update(reviewed["folder"], library=str(reviewed["second"]), offline=True)
    again = [row for row in report.screening if row.title == RECORDS[3][1]]
    assert len(again) == 2 and again[0].decision_kept_on is None
    assert again[1].bare_digest == bare.record_digest
    assert any("1 record decided on its title alone before now has an abstract and was "
               "screened again" in note for note in report.notes), report.notes


def test_decided_before_covers_as_many_works_as_records_said_it() -> None:
    """Two identical bare records screened once each: a digest decided once sets aside one
    work, the next saying the same is screened."""
    work = Work(title="Abstracts", year=2017, sources=["library"])
    twin = work.model_copy(update={"id": "other"})
    assert decided_before([work, twin], {record_digest(work): 1}) == {0}
    assert decided_before([work, twin], None) == set()


def test_a_changed_abstract_is_told_only_for_records_decided_on_their_title() -> None:
    """merge_update tells of abstracts arrived from the rows' digests alone: a record whose
    abstract was rewritten (it had one) is screened again without that note."""
    bare = Work(title="Zinc in Wilson disease, a cohort", year=2019, sources=["library"])
    filled = bare.model_copy(update={"abstract": "Zinc was given to forty patients."})
    rewritten = Work(title="Zinc dosing in Wilson disease", year=2019, sources=["library"],
                     abstract="Old text.")
    changed = rewritten.model_copy(update={"abstract": "New text."})

    def row(work: Work, decision: str, day: str) -> ScreenedWork:
        return ScreenedWork(
            work_id=work.id, title=work.title, year=work.year, source="library",
            found_by=["library"], decision=decision,  # type: ignore[arg-type]
            reason="" if decision == "included" else "does not address: zinc therapy",
            record_digest=record_digest(work), screened_on=date.fromisoformat(day),
            bare_digest=record_digest(work.model_copy(update={"abstract": None}))
            if work.abstract else "")

    def run(day: str, rows: list[ScreenedWork], papers: list[Work]) -> Report:
        excluded = sum(r.decision == "excluded" for r in rows)
        return Report(question=QUESTION, searched_through=day, sources_searched=["library"],
                      papers=papers, screening=rows, criteria=CRITERIA, prisma={
                          "identified": {"library": len(rows)}, "duplicates_removed": 0,
                          "screened": len(rows), "excluded": excluded,
                          "excluded_reasons": {"does not address: zinc therapy": excluded},
                          "included": len(rows) - excluded},
                      counts=ReviewCounts(screened=len(rows), excluded=excluded,
                                          included=len(papers)))

    earlier = run("2024-01-10", [row(bare, "excluded", "2024-01-10"),
                                 row(rewritten, "excluded", "2024-01-10")], [])
    fresh = run("2024-07-10", [row(filled, "included", "2024-07-10"),
                               row(changed, "excluded", "2024-07-10")], [filled])
    updated = merge_update(earlier, fresh, date(2024, 1, 10), NoticeCheck())
    assert any("1 record decided on its title alone before now has an abstract and was "
               "screened again (1 decided otherwise now)" in note for note in updated.notes)


def test_an_update_joins_the_published_article_to_the_preprint_the_review_included(
        tmp_path: Path) -> None:
    """Six months on, the medRxiv preprint the review included is out in a journal: the new
    export's article record is a new version of the work, not a new work, and the work is now
    the article's record (its DOI, venue and year), the preprint's DOI kept as a version."""
    title = "Zinc acetate compared with trientine in adults with hepatic Wilson disease"
    abstract = ("Eighty adults with hepatic Wilson disease were randomised to zinc acetate or "
                "trientine; zinc maintained copper control in most patients.")

    def entry(year: int, venue: str, doi: str) -> list[str]:
        return ["TY  - JOUR", f"TI  - {title}", "AU  - Brewer, George", "AU  - Askari, Fred",
                f"PY  - {year}", f"T2  - {venue}", f"DO  - {doi}", f"AB  - {abstract}",
                "ER  - ", ""]

    preprint = entry(2023, "medRxiv", "10.1101/2023.02.01.23285301")
    article = entry(2024, "Hepatology", "10.1002/hep.32999")
    first, second = tmp_path / "search-1.ris", tmp_path / "search-2.ris"
    first.write_text("\n".join([*preprint, *ris_library(RECORDS[:3]).splitlines()]),
                     encoding="utf-8")
    second.write_text("\n".join([*preprint, *article, *ris_library(RECORDS[:3]).splitlines()]),
                      encoding="utf-8")
    folder = tmp_path / "review"
    earlier = review(QUESTION, sources=["library"], library=str(first), criteria=CRITERIA,
                     offline=True, max_iterations=1, full_text=0, out=folder)
    assert title in {paper.title for paper in earlier.papers}
    report = update(folder, library=str(second), offline=True)
    assert report.update is not None
    assert [joined.title for joined in report.update.joined] == [title]
    assert title not in {paper.title for paper in report.papers
                         if paper.id in report.update.new_work_ids}
    [work] = [paper for paper in report.papers if paper.title == title]
    assert (work.doi, work.venue, work.year) == ("10.1002/hep.32999", "Hepatology", 2024)
    assert "doi:10.1101/2023.02.01.23285301" in work.version_ids
