"""``scholargraph update``: a review made against the recorded corpus as it was on 2023-06-30,
updated against the whole corpus, every client talking to the replay server.

The recorded corpus holds works OpenAlex created after that day (among them the published
version, in IEEE ICHI 2023, of an arXiv preprint the first review includes) and arXiv entries
submitted after it. No recording holds a retraction, so the update's OpenAlex answers one
recorded work with ``is_retracted`` set: the only record here that is not served as recorded.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from scholargraph import review
from scholargraph.cli import main
from scholargraph.errors import InputError
from scholargraph.report import Report
from scholargraph.testing import Fault, ReplayRequest, ReplayResponse, ReplayServer
from scholargraph.testing.services.openalex import OpenAlexService
from scholargraph.updating import CARRIED_REASON, update, update_sources

QUESTION = "machine learning for public health surveillance"
SOURCES = ["pubmed", "arxiv", "openalex", "web"]
CUT = date(2023, 6, 30)
PREPRINT = "doi:10.48550/arxiv.2304.04761"
PUBLISHED = "doi:10.1109/ichi57859.2023.00127"
RATES = {"SCHOLARGRAPH_RATE_SCALE": "1000"}


def retracted_copy(openalex_id: str) -> dict[str, Any]:
    """The recorded OpenAlex work, as OpenAlex would give it once retracted."""
    [recorded] = [item for item in OpenAlexService().pool if item.openalex_id == openalex_id]
    return {**recorded.work, "is_retracted": True}


@pytest.fixture(scope="module")
def updated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The review of 2023-06-30, then its update; the folder, both reports and the update's
    requests."""
    folder = tmp_path_factory.mktemp("review")
    home = tmp_path_factory.mktemp("home")
    with ReplayServer.default(as_of=CUT) as server, server.environment(
            SCHOLARGRAPH_HOME=str(home), **RATES):
        earlier = review(QUESTION, sources=SOURCES, out=folder)
    # the review was written on the day its corpus was cut: the update searches from that day
    earlier = earlier.model_copy(update={"searched_through": CUT.isoformat()})
    earlier.write(folder)
    earlier_bytes = (folder / "review.json").read_bytes()
    retracted = next(p for p in earlier.papers if p.openalex_id and p.id != PREPRINT)
    with ReplayServer.default(extra=[OpenAlexService([retracted_copy(retracted.openalex_id)])]
                              ) as server, server.environment(SCHOLARGRAPH_HOME=str(home),
                                                              **RATES):
        report = update(folder)
        requests = list(server.requests)
    return {"folder": folder, "earlier": earlier, "earlier_bytes": earlier_bytes,
            "report": report, "requests": requests, "retracted": retracted.id}


def test_the_earlier_review_saw_the_corpus_as_it_was(updated: dict[str, Any]) -> None:
    earlier: Report = updated["earlier"]
    ids = {paper.id for paper in earlier.papers}
    assert PREPRINT in ids and PUBLISHED not in ids


def test_every_search_request_carries_the_date_filter(updated: dict[str, Any]) -> None:
    today = date.today()
    searches = {"pubmed": 0, "arxiv": 0, "openalex": 0, "ddg": 0}
    for request in updated["requests"]:
        if request.service == "pubmed" and request.path == "/esearch.fcgi":
            assert (request.param("datetype"), request.param("mindate")) == ("edat",
                                                                             "2023/06/30")
            assert request.param("maxdate") == f"{today:%Y/%m/%d}"
        elif request.service == "arxiv" and request.param("search_query"):
            assert request.param("search_query").endswith(
                f"AND submittedDate:[202306300000 TO {today:%Y%m%d}2359]")
        elif request.service == "openalex" and request.param("search"):
            assert (f"from_created_date:2023-06-30,to_created_date:{today.isoformat()}"
                    in request.param("filter"))
        elif request.service == "ddg" and request.path.startswith("/html"):
            assert request.param("df") == f"2023-06-30..{today.isoformat()}"
        else:
            continue
        searches[request.service] += 1
    assert all(searches.values()), searches


def test_new_works_are_found_and_each_work_says_when_it_was_first_seen(
        updated: dict[str, Any]) -> None:
    report: Report = updated["report"]
    change = report.update
    assert change is not None and change.since == "2023-06-30"
    earlier_ids = {paper.id for paper in updated["earlier"].papers}
    assert change.new_work_ids and not set(change.new_work_ids) & earlier_ids
    today = date.today()
    for paper in report.papers:
        assert paper.first_seen == (today if paper.id in change.new_work_ids else CUT), paper.id
    assert change.prisma.total_included == len(report.papers) == (
        change.prisma.earlier_included + change.prisma.new_included)
    numbers = {ref.work_id: ref.number for ref in report.references}
    for index in change.new_findings:  # new findings cite works new to the review
        cited = {report.passage(i).work_id for i in report.findings[index].passage_ids}
        assert cited & {*change.new_work_ids, PUBLISHED}
        assert set(report.findings[index].citations) == {numbers[w] for w in cited}


def test_a_published_version_of_an_included_preprint_joins_it(updated: dict[str, Any]) -> None:
    report: Report = updated["report"]
    assert report.update is not None
    [joined] = report.update.joined
    assert (joined.earlier_id, joined.work_id) == (PREPRINT, PUBLISHED)
    [work] = [p for p in report.papers if p.title.startswith("Connecting Fairness")]
    assert work.id == PUBLISHED and work.first_seen == CUT
    assert PREPRINT.removeprefix("doi:") in {v.removeprefix("doi:") for v in work.version_ids}
    assert PUBLISHED not in report.update.new_work_ids
    assert "1 new version of works already included" in report.summary


def test_the_screening_record_keeps_the_earlier_rows_and_adds_this_runs(
        updated: dict[str, Any], screening_check: Callable[[str, dict], None]) -> None:
    report: Report = updated["report"]
    earlier: Report = updated["earlier"]
    assert report.update is not None
    text = (updated["folder"] / "screening.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    old = [row for row in rows if row["screened_on"] == CUT.isoformat()]
    new = [row for row in rows if row["screened_on"] == report.day]
    assert len(old) + len(new) == len(rows) and new
    assert len(old) == len(earlier.screening) == earlier.prisma["screened"]
    assert [(row["title"], row["decision"], row["reason"]) for row in old] == [
        (work.title, work.decision, work.reason) for work in earlier.screening]
    # this run's rows add up to this run's own counts
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(new)
    screening_check(buffer.getvalue(), report.prisma)
    # the records found again as they were screened before keep their decisions, and say so
    carried = report.update.prisma.removed_before_screening.get(CARRIED_REASON, 0)
    assert sum(row["decision_kept_on"] == report.day for row in old) == carried > 0
    # a work included again (or its new version) names the work the review had
    joined = [row for row in new if row["joins_earlier"]]
    assert len(joined) == report.update.prisma.duplicates_of_earlier
    assert PUBLISHED in {row["joins_earlier"] for row in joined}
    kept = [row["work_id"] for row in rows
            if row["decision"] == "included" and not row["joins_earlier"]]
    assert sorted(kept) == sorted(paper.id for paper in report.papers)


def test_the_counts_describe_the_whole_review_after_an_update(updated: dict[str, Any]) -> None:
    """``counts`` in review.json pairs numbers of one review: every run's screened and excluded
    rows of screening.csv with each included work once, not the update's screened beside the
    total included."""
    report: Report = updated["report"]
    assert report.update is not None
    data = json.loads((updated["folder"] / "review.json").read_text(encoding="utf-8"))
    counts = data["counts"]
    rows = list(csv.DictReader(io.StringIO(
        (updated["folder"] / "screening.csv").read_text(encoding="utf-8"))))
    assert counts["screened"] == len(rows) > report.update.prisma.screened
    assert counts["excluded"] == sum(row["decision"] == "excluded" for row in rows)
    assert counts["included"] == len(report.papers) == report.update.prisma.total_included
    assert counts["joined"] == sum(bool(row["joins_earlier"]) for row in rows) > 0
    assert counts["screened"] - counts["excluded"] == counts["included"] + counts["joined"]
    assert counts["findings"] == sum(f["kind"] == "finding" for f in data["findings"])
    assert counts["cited_works"] == len(data["references"])


def test_history_holds_the_earlier_run_and_its_files_are_kept(updated: dict[str, Any]) -> None:
    report: Report = updated["report"]
    folder: Path = updated["folder"]
    [entry] = report.history
    earlier: Report = updated["earlier"]
    assert (entry.kind, entry.date, entry.files) == ("review", "2023-06-30", "history/2023-06-30/")
    assert entry.included == len(earlier.papers)
    assert [(q.source, q.query) for q in entry.queries] == [
        (e.source, e.query) for e in earlier.search_log]
    kept = folder / entry.files
    assert (kept / "review.json").read_bytes() == updated["earlier_bytes"]
    assert {"review.md", "review.html", "references.bib", "prisma.svg"} <= {
        path.name for path in kept.iterdir()}
    written = json.loads((folder / "review.json").read_text(encoding="utf-8"))
    assert written["history"][0]["date"] == "2023-06-30"
    assert all(paper["first_seen"] for paper in written["papers"])


def test_a_retraction_since_is_flagged_at_the_top(updated: dict[str, Any]) -> None:
    report: Report = updated["report"]
    assert report.update is not None
    [flag] = report.update.flags
    assert (flag.work_id, flag.kind, flag.source) == (updated["retracted"], "Retracted",
                                                       "openalex")
    assert report.work(flag.work_id).is_retracted
    markdown = (updated["folder"] / "review.md").read_text(encoding="utf-8")
    top = markdown.index("Retracted or corrected since the last run")
    assert top < markdown.index("## Summary") < markdown.index("## New since 2023-06-30")
    assert flag.title[:30] in markdown[top:markdown.index("## Summary")].replace("\\", "")
    html = (updated["folder"] / "review.html").read_text(encoding="utf-8")
    assert html.index('<div class="flags">') < html.index("<h2>New since 2023-06-30</h2>")


def test_the_new_since_section_lists_the_new_works(updated: dict[str, Any]) -> None:
    report: Report = updated["report"]
    assert report.update is not None
    markdown = (updated["folder"] / "review.md").read_text(encoding="utf-8")
    section = markdown[markdown.index("## New since"):markdown.index("## Findings")]
    for work_id in report.update.new_work_ids:
        assert report.work(work_id).title[:25] in section.replace("\\", "")
    assert "Connecting Fairness in Machine Learning with Public Health Equity" in section


def test_a_folder_without_a_review_gets_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["update", str(tmp_path)]) == 2
    (tmp_path / "review.json").write_text('{"papers": 3}', encoding="utf-8")
    assert main(["update", str(tmp_path), "--quiet"]) == 2
    assert main(["update", str(tmp_path), "--since", "yesterday"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("scholargraph: error: ") for line in lines)
    assert "holds no review.json" in lines[0] and "cannot be read" in lines[1]


def test_a_failing_source_is_recorded_and_the_earlier_review_kept(
        updated: dict[str, Any], tmp_path: Path) -> None:
    folder = tmp_path / "review"
    shutil.copytree(updated["folder"], folder)
    before = (folder / "review.json").read_bytes()
    with ReplayServer.default() as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), **RATES):
        server.inject("arxiv", Fault("500", times=-1))
        report = update(folder, since="2024-01-01", max_iterations=1)
    assert [f.source for f in report.sources_failed] == ["arxiv"]
    assert len(report.history) == 2 and report.history[-1].kind == "update"
    assert (folder / report.history[-1].files / "review.json").read_bytes() == before


def test_an_offline_update_finds_what_the_second_recording_added(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's example: the offline review sees the corpus of 2023-06-30, the offline
    update (here with --events jsonl) the rest; a full text the corpus does not hold is not
    called a failure."""
    folder = tmp_path / "review"
    earlier = review(QUESTION, offline=True, out=folder)
    assert earlier.searched_through == "2023-06-30"
    reasons = earlier.prisma.get("not_retrieved_reasons", {})
    assert "failed" not in reasons and reasons.get("not in the recorded corpus", 0) > 0
    assert main(["update", str(folder), "--offline", "--events", "jsonl"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"retrieval", "synthesis"} <= {event.get("node") for event in events}
    report = Report.model_validate_json((folder / "review.json").read_text(encoding="utf-8"))
    assert report.update is not None and report.update.since == "2023-06-30"
    assert report.searched_through == "2026-04-12"
    assert report.update.new_work_ids and [j.earlier_id for j in report.update.joined] == [
        PREPRINT]
    assert (folder / "history" / "2023-06-30" / "review.json").is_file()


def test_only_notices_that_appeared_since_are_flagged() -> None:
    from scholargraph.records import Work
    from scholargraph.updating import notices_since

    earlier = Work(title="A trial", pmid="123", notices=["Comment in: Gut. 2017 (PMID 5)"])
    now = earlier.model_copy(update={"notices": [
        "Comment in: Gut. 2017 (PMID 5)", "Comment in: BMJ. 2024 (PMID 6)",
        "Retraction in: Gut. 2024 (PMID 7)", "Erratum in: Gut. 2023 (PMID 8)"],
        "is_retracted": True})
    flags = notices_since(earlier, [("pubmed", now)])
    assert [(f.kind, f.detail) for f in flags] == [
        ("Retraction", "Retraction in: Gut. 2024 (PMID 7)"),
        ("Erratum", "Erratum in: Gut. 2023 (PMID 8)")]
    assert notices_since(now, [("pubmed", now)]) == []
    [status] = notices_since(earlier, [("openalex", earlier.model_copy(
        update={"is_retracted": True}))])
    assert (status.kind, status.source) == ("Retracted", "openalex")


def test_pubmed_reads_a_retraction_from_the_publication_type() -> None:
    """A recorded PubMed article with the publication type PubMed gives a retracted one added
    (derived: no recording holds a retracted article)."""
    import io

    from scholargraph.sources.pubmed import works_from_efetch
    from scholargraph.testing import fixture_bytes

    recorded = fixture_bytes("pubmed/biopython_pubmed5.xml")
    [plain] = works_from_efetch(io.BytesIO(recorded))
    retracted = recorded.replace(
        b"</PublicationTypeList>",
        b'<PublicationType UI="D016441">Retracted Publication</PublicationType>'
        b"</PublicationTypeList>", 1)
    [work] = works_from_efetch(io.BytesIO(retracted))
    assert not plain.is_retracted and work.is_retracted
    assert work.notices == ["Retracted publication (PubMed publication type)"]


def test_the_readme_offline_example_cites_a_full_text_by_section() -> None:
    """The README's offline example of a review read in full: a recorded CC BY JATS article as
    the library."""
    from scholargraph.testing import fixture_path

    report = review("Does erlotinib improve survival in EGFR-mutant non-small cell lung cancer?",
                    offline=True, sources=["library", "pubmed"],
                    library=str(fixture_path("fulltext/pmc/biotext_PMC4816447.xml")))
    cited = [report.passage(i) for f in report.findings for i in f.passage_ids]
    sections = {p.section for p in cited} - {"title", "abstract", "full_text"}
    assert sections & {"Conclusion", "Discussion", "Results", "Introduction"}, sections
    assert any(report.locations(f.passage_ids) for f in report.findings)


class PremiumOnlyOpenAlex(OpenAlexService):
    """The recorded OpenAlex, refusing the creation-date filters as it long did for keys without
    Premium (the 403 is written here, in the API's error shape; no refusal was recorded)."""

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        if "created_date" in (request.param("filter") or ""):
            return ReplayResponse(403, json.dumps({
                "error": "Forbidden", "message": "from_created_date requires a Premium key"
            }).encode())
        return super().handle(request)


def test_openalex_refusing_the_creation_date_falls_back_to_the_publication_date(
        tmp_path: Path) -> None:
    from scholargraph.settings import get_settings
    from scholargraph.sources.base import SearchRequest
    from scholargraph.sources.openalex import OpenAlexAgent

    with ReplayServer.default(extra=[PremiumOnlyOpenAlex()]) as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), **RATES):
        result = OpenAlexAgent(get_settings()).search(SearchRequest(
            query="machine learning", added_since=CUT, added_until=date(2024, 12, 31)))
        filters = [r.param("filter") for r in server.requests if r.param("search")]
    assert filters == ["from_created_date:2023-06-30,to_created_date:2024-12-31",
                       "from_publication_date:2023-06-30"]
    assert result.works and all((w.year or 0) >= 2023 for w in result.works)
    assert "refused the creation-date filter" in result.notes[0]


def test_the_new_since_section_reads_as_a_scientist_writes(updated: dict[str, Any]) -> None:
    """The update's section read '1 duplicates removed', 'of these 1 were already in the
    review', listed the new works as [14], [16], [11], [13], [12], and its earlier run as
    '12 findings' while that review's summary said 11 (its limitation counted as a finding)."""
    import re

    report: Report = updated["report"]
    earlier: Report = updated["earlier"]
    text = (updated["folder"] / "review.md").read_text(encoding="utf-8")
    section = text.split("## New since", 1)[1].split("\n## ", 1)[0]
    assert not re.search(r"\b1 (?:duplicates|works)\b|\b1 were\b|\b1 are new\b", section)
    listed = [int(n) for n in re.findall(r"^- \\\[(\d+)\\\]", section.split(
        "### New works", 1)[1].split("###", 1)[0], flags=re.MULTILINE)]
    assert listed and listed == sorted(listed)
    [entry] = report.history
    assert entry.findings == earlier.counts.findings == sum(
        f.kind == "finding" for f in earlier.findings)
    assert f"{entry.findings} findings" in section


def test_no_new_finding_is_an_aim_or_a_definition(updated: dict[str, Any]) -> None:
    """A scientist reading the update's new findings met 'This study conducts to design an
    advanced machine learning-based predictive model...', 'The proposed system aims to be a
    promising solution...' and 'In healthcare, AI sometimes is defined as "augmented
    intelligence"...': what a paper sets out to do and a definition, not what it found. The
    reader's signs of them, in their own words (not the review's rules):"""
    import re

    sets_out = re.compile(r"\baims? to\b|\b(?:is|are) (?:\w+ )?defined as\b|"
                          r"\b(?:this|our) (?:study|paper|work) \w+ to (?:design|develop)\b",
                          re.IGNORECASE)
    report: Report = updated["report"]
    assert report.update is not None and report.update.new_findings
    for index in report.update.new_findings:
        assert not sets_out.search(report.findings[index].text), report.findings[index].text


def test_a_review_of_a_library_alone_is_updated_only_from_the_services_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A library is not searched again, and a review of a library alone searched no service:
    its update asks which to search (one line, exit 2) instead of searching every service the
    scientist never chose, and searches only those named."""
    library = (Path(__file__).parents[1] / "scholargraph" / "testing" / "fixtures" / "fulltext"
               / "pmc" / "biotext_PMC4816447.xml")
    folder = tmp_path / "review"
    question = "Does erlotinib improve survival in EGFR-mutant non-small cell lung cancer?"
    earlier = review(question, sources=["library"], library=str(library), offline=True,
                     max_iterations=1, out=folder)
    assert earlier.sources_searched == ["library"]
    assert main(["update", str(folder), "--offline"]) == 2
    assert main(["update", str(folder), "--offline", "--sources", "library"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("scholargraph: error: ") for line in lines)
    assert "--sources pubmed,openalex" in lines[0] and "does not search library again" in lines[1]
    assert not (folder / "history").exists()  # nothing was rewritten
    assert main(["update", str(folder), "--offline", "--sources", "openalex", "--quiet"]) == 0
    report = Report.model_validate_json((folder / "review.json").read_text(encoding="utf-8"))
    assert report.update is not None
    assert set(report.update.prisma.identified) <= {"openalex"}
    # PubMed is asked only whether the review's own works were retracted or corrected since
    searched = {entry.source for entry in report.search_log
                if "retractions and corrections" not in entry.query}
    assert "openalex" in searched and searched <= {"library", "openalex"}
    with pytest.raises(InputError, match="records no source it searched"):
        update_sources(earlier.model_copy(update={"sources_searched": []}), None, folder)


def test_a_review_of_a_library_is_updated_from_the_new_export_of_its_search(
        tmp_path: Path) -> None:
    """A systematic reviewer updates a review by running their database search again: the new
    export holds the records already screened and those added since. ``update DIR --library
    NEW`` screens it whole by the review's own criteria (kept in review.json), counts what the
    review already had, and adds only the rest. The libraries are the 30 recorded OpenAlex works
    of the replay fixtures: the first 18 the earlier export, all 30 the new one."""
    from scholargraph.sources.library import WORK_FIELDS
    from scholargraph.sources.openalex import work_from_openalex
    from scholargraph.testing import fixture_path

    items = json.loads(fixture_path("openalex/peneira_works.json").read_text())["results"]
    works = [{key: value for key, value in work_from_openalex(item).model_dump(mode="json")
              .items() if key in WORK_FIELDS} for item in items]
    old, new = tmp_path / "search-2023.jsonl", tmp_path / "search-2024.jsonl"
    old.write_text("".join(json.dumps(work) + "\n" for work in works[:18]))
    untitled = json.dumps({"title": "", "abstract": "A record exported without its title."})
    new.write_text("".join(json.dumps(work) + "\n" for work in works) + untitled + "\n")
    criteria = "We included studies of surveillance of infectious disease outbreaks."
    folder = tmp_path / "review"
    earlier = review(QUESTION, sources=["library"], library=str(old), criteria=criteria,
                     offline=True, max_iterations=1, out=folder)
    assert earlier.criteria == criteria
    assert main(["update", str(folder), "--offline", "--library", str(new), "--quiet"]) == 0
    report = Report.model_validate_json((folder / "review.json").read_text(encoding="utf-8"))
    assert report.criteria == criteria  # the review's own criteria, not given again
    assert report.update is not None
    prisma = report.update.prisma
    # every record of the new export considered, the untitled one removed before screening
    assert prisma.identified == {"library": 31}
    # the records screened before, exported again as they were, keep their decisions and are
    # not screened again (a work a record added since merges into is screened again: its
    # record now says more); the rest are screened
    carried = prisma.removed_before_screening[CARRIED_REASON]
    assert set(prisma.removed_before_screening) == {"no title", CARRIED_REASON}
    assert prisma.removed_before_screening["no title"] == 1
    assert 0 < carried <= len(earlier.screening)
    assert prisma.duplicates_removed + 1 + carried + prisma.screened == 31
    assert ", 1 without a title removed, " in (folder / "review.md").read_text(encoding="utf-8")
    with (folder / "screening.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    this_run = [row for row in rows if row["screened_on"] == report.day]
    assert len(this_run) == prisma.screened and len(rows) == len(this_run) + len(earlier.screening)
    assert sum(row["decision_kept_on"] == report.day for row in rows) == carried
    again = {row["work_id"] for row in this_run if row["decision"] == "included"} & \
        {paper.id for paper in earlier.papers}
    assert prisma.duplicates_of_earlier == len(again)  # counted once, not added twice
    assert len(report.papers) == len(earlier.papers) + prisma.new_included
    assert report.counts.screened == len(rows)
    # a review of services and a library searches its services again beside the new export
    both = report.model_copy(update={"sources_searched": ["library", "pubmed"]})
    assert update_sources(both, None, folder, new) == ["library", "pubmed"]
    assert update_sources(both, ["openalex"], folder, new) == ["library", "openalex"]


def test_a_record_exported_again_is_the_earlier_work_not_a_new_one() -> None:
    """A new export of the scientist's search holds the records screened before, as they were;
    deduplication keeps apart two records that have a title and nothing else to agree on (no
    year, author or identifier), so an update counted each such earlier work as new. A record
    saying exactly what an earlier one said is that work; one that differs in a word is not."""
    from scholargraph.records import Work
    from scholargraph.updating import fold_works

    bare = Work(title="Zinc  acetate in Wilson disease", sources=["library"])
    other = Work(title="Trientine in Wilson disease", abstract="Twelve patients were treated.",
                 sources=["library"])
    again = Work(title="zinc acetate in Wilson disease ", sources=["library"])
    reworded = Work(title="Trientine in Wilson disease", abstract="Twelve patients treated.",
                    sources=["library"])
    added = Work(title="Penicillamine in Wilson disease", sources=["library"])
    folded = fold_works([bare, other], [again, reworded, added])
    assert sorted(folded.new_ids) == sorted([reworded.id, added.id])
    assert folded.duplicates_of_earlier == 1
    assert folded.moved[again.id] == bare.id
    assert [work.title for work in folded.papers] == [
        bare.title, other.title, reworded.title, added.title]
