"""An update keeps the screening decisions nothing has changed, and PRISMA counts every record
of a library once: the systematic reviewer who updates a review every six months screens only
the records new or changed since, and a record set aside by the review's years is identified,
then removed before screening, not missing from the flow.

The libraries are invented records written here (and the recorded OpenAlex works of the replay
fixtures for the whole-graph test); no data set is copied in.
"""

from __future__ import annotations

import csv
import json
from datetime import date
from pathlib import Path

from scholargraph import review
from scholargraph.agents.schemas import Finding, WorkStance
from scholargraph.cli import main
from scholargraph.exports.markdown import render
from scholargraph.exports.prisma import prisma_record
from scholargraph.exports.updates import counts_sentence
from scholargraph.ledger import ScreenedWork, record_digest
from scholargraph.records import Passage, Work
from scholargraph.report import Reference, Report, ReviewCounts, window_reason
from scholargraph.testing.documents import ris_library
from scholargraph.updating import CARRIED_REASON, NoticeCheck, merge_update

QUESTION = "zinc therapy for Wilson disease"
CRITERIA = "We included trials of zinc in people with Wilson disease."


def _work(title: str, abstract: str | None = None, year: int = 2015) -> Work:
    return Work(title=title, abstract=abstract, year=year, authors=["Brewer G"],
                sources=["library"])


def _row(work: Work, decision: str, reason: str = "", day: date | None = None
         ) -> ScreenedWork:
    return ScreenedWork(work_id=work.id, title=work.title, year=work.year, source="library",
                        found_by=["library"], decision=decision,  # type: ignore[arg-type]
                        reason=reason, record_digest=record_digest(work), screened_on=day)


def _run(day: str, rows: list[ScreenedWork], papers: list[Work], criteria: str = CRITERIA,
         findings: list[Finding] | None = None, passages: list[Passage] | None = None,
         references: list[Reference] | None = None) -> Report:
    excluded = [row for row in rows if row.decision == "excluded"]
    reasons: dict[str, int] = {}
    for row in excluded:
        reasons[row.reason] = reasons.get(row.reason, 0) + 1
    prisma = {"identified": {"library": len(rows)}, "duplicates_removed": 0,
              "screened": len(rows), "excluded": len(excluded), "excluded_reasons": reasons,
              "included": len(rows) - len(excluded)}
    return Report(question=QUESTION, searched_through=day, sources_searched=["library"],
                  papers=papers, screening=rows, prisma=prisma, criteria=criteria,
                  findings=findings or [], passages=passages or [],
                  references=references or [],
                  counts=ReviewCounts(screened=len(rows), excluded=len(excluded),
                                      included=len(papers)))


# the first run's records: one kept, one set aside; the new export adds one and fills in an
# abstract the first export lacked
KEPT = _work("Zinc acetate maintenance in Wilson disease", "Forty patients took zinc.")
SET_ASIDE = _work("Copper in the soil of vineyards", "Copper was measured in soil.")
BARE = _work("Trientine or zinc in hepatic Wilson disease")
FILLED = BARE.model_copy(update={"abstract": "Twenty patients took trientine or zinc."})
ADDED = _work("Zinc monotherapy in children with Wilson disease", "Thirty children.", 2024)


def _earlier() -> Report:
    return _run("2024-01-10", [_row(KEPT, "included"),
                               _row(SET_ASIDE, "excluded", "does not address: zinc therapy"),
                               _row(BARE, "excluded", "does not address: zinc therapy")],
                [KEPT])


def test_an_update_keeps_the_decisions_of_records_found_again_unchanged() -> None:
    """Records the first run screened, found again saying the same under the same question and
    criteria, keep their decisions (and the earlier row says so); a new record and a changed
    one are screened. The flow counts each record once: the unchanged ones removed before
    screening, the others screened; the review's counts add up across runs."""
    earlier = _earlier()
    # this run's screening put the record it set aside before among those kept: it stays out
    passage = Passage(id=f"{SET_ASIDE.id}:0-10", work_id=SET_ASIDE.id, text="Copper was",
                      start=0, end=10)
    finding = Finding(text="Copper was measured in soil.", passage_ids=[passage.id],
                      citations=[1])
    fresh = _run("2024-07-10", [_row(KEPT, "included"), _row(SET_ASIDE, "included"),
                                _row(FILLED, "included"), _row(ADDED, "included")],
                 [KEPT, SET_ASIDE, FILLED, ADDED], findings=[finding], passages=[passage],
                 references=[Reference(number=1, work_id=SET_ASIDE.id,
                                       passage_ids=[passage.id])])
    updated = merge_update(earlier, fresh, date(2024, 1, 10), NoticeCheck())
    assert updated.update is not None
    prisma = updated.update.prisma
    assert prisma.removed_before_screening == {CARRIED_REASON: 2}
    assert (prisma.screened, prisma.excluded, prisma.included) == (2, 0, 2)
    assert [work.title for work in updated.papers] == [KEPT.title, FILLED.title, ADDED.title]
    assert finding.text not in {f.text for f in updated.findings}
    assert all(ref.work_id != SET_ASIDE.id for ref in updated.references)
    # one row per record and run: the earlier rows, the unchanged ones saying their decision
    # was kept; this run's rows only for what it screened
    kept_on = {row.title: row.decision_kept_on for row in updated.screening
               if row.screened_on == date(2024, 1, 10)}
    assert kept_on == {KEPT.title: date(2024, 7, 10), SET_ASIDE.title: date(2024, 7, 10),
                       BARE.title: None}
    assert [row.title for row in updated.screening if row.screened_on == date(2024, 7, 10)] == [
        FILLED.title, ADDED.title]
    assert updated.counts.screened == len(updated.screening) == 5
    assert updated.counts.screened - updated.counts.excluded == (
        updated.counts.included + updated.counts.joined)
    prisma_record(updated.prisma, [])  # adds up, or raises
    assert "2 removed before screening (screened in an earlier run" in counts_sentence(
        updated.update)
    assert any("2 records screened before and unchanged since kept their decisions "
               "(1 excluded, 1 included)" in note for note in updated.notes)


def test_changed_criteria_screen_every_record_again() -> None:
    """Criteria changed since the first run: no earlier decision stands, and a note says why."""
    earlier = _earlier()
    fresh = _run("2024-07-10", [_row(KEPT, "included"), _row(SET_ASIDE, "excluded", "design")],
                 [KEPT], criteria="We included randomised trials of zinc.")
    updated = merge_update(earlier, fresh, date(2024, 1, 10), NoticeCheck())
    assert updated.update is not None
    assert updated.update.prisma.removed_before_screening == {}
    assert updated.update.prisma.screened == 2
    assert all(row.decision_kept_on is None for row in updated.screening)
    assert any("criteria differ" in note for note in updated.notes)


def test_a_record_of_the_new_export_marked_retracted_is_flagged() -> None:
    """A re-exported record retitled "RETRACTED: ..." merges into its work: the update flags the
    work at the top, as it flags what PubMed or OpenAlex say when asked."""
    earlier = _earlier()
    retracted = KEPT.model_copy(update={"title": f"RETRACTED: {KEPT.title}"})
    retracted = Work.model_validate(retracted.model_dump(exclude={"id", "is_retracted"}))
    assert retracted.is_retracted
    fresh = _run("2024-07-10", [_row(retracted, "included")], [retracted])
    updated = merge_update(earlier, fresh, date(2024, 1, 10), NoticeCheck())
    assert updated.update is not None
    [flag] = updated.update.flags
    assert flag.kind == "Retracted" and flag.source == "library"
    assert [work.is_retracted for work in updated.papers] == [True]


RECORDS = [
    ("r1", "Zinc acetate maintenance therapy in Wilson disease",
     "Forty patients with Wilson disease took zinc acetate for five years.", 2016),
    ("r2", "Zinc compared with penicillamine in Wilson disease",
     "Sixty patients with Wilson disease were treated with zinc or penicillamine.", 2018),
    ("r3", "Copper accumulation in vineyard soils",
     "Copper was measured in the soils of forty vineyards.", 2017),
    ("r4", "Zinc therapy for Wilson disease in the 1980s",
     "Early experience with zinc in patients with Wilson disease.", 1986),
    ("r5", "Wilson disease and zinc: an undated conference record", "", None),
]


def test_a_library_review_counts_records_outside_its_years_and_its_update_keeps_them(
        tmp_path: Path) -> None:
    """A review of a library from 2010 on: the records before it (or undated) are identified
    from the library and removed before screening, so the flow adds up to the export's size;
    its update keeps the review's years, screens only the record added since, and keeps the
    others' decisions."""
    first, second = tmp_path / "search-2024.ris", tmp_path / "search-2025.ris"
    first.write_text(ris_library(RECORDS), encoding="utf-8")
    added = ("r6", "Zinc and trientine in children with Wilson disease",
             "Thirty children with Wilson disease took zinc or trientine.", 2024)
    second.write_text(ris_library([*RECORDS, added]), encoding="utf-8")
    folder = tmp_path / "review"
    earlier = review(QUESTION, sources=["library"], library=str(first), criteria=CRITERIA,
                     since=2010, offline=True, max_iterations=1, full_text=0, out=folder)
    outside = window_reason(2010, None)
    assert earlier.years == (2010, None)
    assert earlier.prisma["identified"] == {"library": 5}
    assert earlier.prisma["removed_before_screening"] == {outside: 2}
    assert earlier.prisma["screened"] == len(earlier.screening) == 3
    svg = (folder / "prisma.svg").read_text(encoding="utf-8")
    assert "Records identified (n = 5)" in svg and "Records removed, outside the years" in svg
    assert main(["update", str(folder), "--offline", "--library", str(second), "--quiet"]) == 0
    report = Report.model_validate_json((folder / "review.json").read_text(encoding="utf-8"))
    assert report.years == (2010, None) and report.update is not None
    prisma = report.update.prisma
    assert prisma.identified == {"library": 6}
    assert prisma.removed_before_screening == {outside: 2, CARRIED_REASON: 3}
    assert prisma.screened == 1
    with (folder / "screening.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["title"] for row in rows if row["screened_on"] == report.day] == [added[1]]
    assert {row["title"] for row in rows if row["decision_kept_on"] == report.day} == {
        record[1] for record in RECORDS[:3]}
    assert report.counts.screened == len(rows) == 4
    assert json.loads((folder / "review.json").read_text())["prisma"]["screened"] == 1


def test_the_stances_of_a_claim_cite_the_merged_reference_list() -> None:
    """A claim review updated: each study's stance cites its number in the merged reference
    list (the run's own numbers name other works once its references follow the earlier ones),
    each study is read once, and the summary gives the balance with the new studies."""
    claim = "Zinc prevents hepatic worsening in Wilson disease."

    def cited(work: Work, number: int) -> tuple[Passage, Reference]:
        passage = Passage(id=f"{work.id}:0-5", work_id=work.id, text="Forty", start=0, end=5)
        return passage, Reference(number=number, work_id=work.id, passage_ids=[passage.id])

    old_passage, old_ref = cited(KEPT, 1)
    earlier = _run("2024-01-10", [_row(KEPT, "included")], [KEPT], passages=[old_passage],
                   references=[old_ref]).model_copy(update={
                       "question": claim,
                       "stances": [WorkStance(work_id=KEPT.id, reading="supports", citation=1)]})
    # the update's run read the new study first: it is [1] there, [2] in the merged list
    new_passage, new_ref = cited(ADDED, 1)
    again_passage, again_ref = cited(KEPT, 2)
    fresh = _run("2024-07-10", [_row(ADDED, "included")], [ADDED],
                 passages=[new_passage, again_passage], references=[new_ref, again_ref],
                 findings=[Finding(text="Thirty children.", passage_ids=[new_passage.id])]
                 ).model_copy(update={"question": claim, "stances": [
                     WorkStance(work_id=ADDED.id, reading="contradicts", citation=1),
                     WorkStance(work_id=KEPT.id, reading="supports", citation=2)]})
    updated = merge_update(earlier, fresh, date(2024, 1, 10), NoticeCheck())
    numbers = {ref.work_id: ref.number for ref in updated.references}
    assert numbers == {KEPT.id: 1, ADDED.id: 2}
    assert [(s.work_id, s.reading, s.citation) for s in updated.stances] == [
        (KEPT.id, "supports", 1), (ADDED.id, "contradicts", 2)]
    assert updated.summary.endswith(
        "With them: Of the 2 included studies, 1 supports the claim [1], 1 contradicts it [2].")


def test_the_full_text_stage_counts_only_the_works_screened_now() -> None:
    """The update's run sought full texts of works whose earlier decisions were kept as well:
    its flow counts those new to its screening, and its note says the same numbers."""
    earlier = _earlier()
    rows = [_row(KEPT, "included").model_copy(update={"full_text": "closed access"}),
            _row(ADDED, "included").model_copy(update={"full_text": "closed access"})]
    fresh = _run("2024-07-10", rows, [KEPT, ADDED])
    fresh = fresh.model_copy(update={
        "prisma": {**fresh.prisma, "reports_sought": 2, "reports_not_retrieved": 2,
                   "not_retrieved_reasons": {"closed access": 2}, "reports_assessed": 0,
                   "full_text_licences": {}},
        "notes": ["full text: 0 of 2 works sought were read in full; not retrieved: closed "
                  "access 2; the others rest on their abstracts"]})
    updated = merge_update(earlier, fresh, date(2024, 1, 10), NoticeCheck())
    assert updated.prisma["reports_sought"] == 1
    assert updated.prisma["not_retrieved_reasons"] == {"closed access": 1}
    prisma_record(updated.prisma, [])
    assert ("full text: 0 of 1 works new to this update's screening were read in full (the run "
            "also sought 1 already in the review, whose records were unchanged)") in updated.notes


def test_works_of_the_review_screened_again_and_excluded_are_listed() -> None:
    """New criteria screen every record again: a work the review holds that they exclude stays
    (its findings cite it) and is listed under its own heading for the reviewer to look at."""
    earlier = _earlier()
    fresh = _run("2024-07-10", [_row(KEPT, "excluded", "design: review; the criteria exclude "
                                     "reviews"), _row(ADDED, "included")], [ADDED],
                 criteria="We included randomised trials of zinc; we excluded reviews.")
    updated = merge_update(earlier, fresh, date(2024, 1, 10), NoticeCheck())
    assert updated.update is not None
    assert [(item.work_id, item.reason) for item in updated.update.now_excluded] == [
        (KEPT.id, "design: review; the criteria exclude reviews")]
    assert [work.title for work in updated.papers] == [KEPT.title, ADDED.title]
    assert ("### Works of the review this update's screening excludes\n\n- "
            f"{KEPT.title}: design: review; the criteria exclude reviews (still in the review; "
            "look at it again)") in render(updated)


def test_two_records_saying_the_same_are_each_carried_once() -> None:
    """Two bare records alike ('Abstract', nothing else: deduplication keeps them apart) were
    two rows; found again, each keeps one decision, and a third alike is screened as new. The
    latest run that screened a record decides (criteria changed in between)."""
    bare = Work(title="Abstract", sources=["library"])
    first, second = _row(bare, "excluded", "does not address: zinc therapy"), \
        _row(bare, "excluded", "does not address: zinc therapy")
    earlier = _run("2024-01-10", [first, second], [])
    fresh = _run("2024-07-10", [_row(bare, "excluded", "does not address: zinc therapy")] * 3,
                 [])
    updated = merge_update(earlier, fresh, date(2024, 1, 10), NoticeCheck())
    assert updated.update is not None
    assert updated.update.prisma.removed_before_screening == {CARRIED_REASON: 2}
    assert updated.update.prisma.screened == 1
    assert [row.decision_kept_on for row in updated.screening] == [
        date(2024, 7, 10), date(2024, 7, 10), None]
    # a later update: the row of the latest run that screened the record decides
    rows = [first.model_copy(update={"screened_on": date(2024, 1, 10)}),
            _row(bare, "included", day=date(2024, 7, 10))]
    again = merge_update(_run("2024-07-10", rows, [bare]), _run("2025-01-10", [
        _row(bare, "included")], [bare]), date(2024, 7, 10), NoticeCheck())
    assert [row.decision_kept_on for row in again.screening] == [None, date(2025, 1, 10)]


def test_a_record_whose_abstract_was_filled_in_is_the_earlier_work() -> None:
    """The new export fills in an abstract the first lacked: the record, the same in all else,
    is the earlier work (which takes the abstract), not a second work under the same id; a
    generic title ('Abstracts') is not enough to tell, and stays a work of its own."""
    from scholargraph.updating import fold_works

    bare = Work(title="Clinical evidence for zinc in Wilson disease", year=2017,
                sources=["library"])
    generic = Work(title="Abstracts", year=2017, venue="Haemophilia", sources=["library"])
    filled = bare.model_copy(update={"abstract": "Zinc was given to forty patients."})
    generic_filled = generic.model_copy(update={"abstract": "Poster abstracts of a meeting."})
    folded = fold_works([bare, generic], [filled, generic_filled])
    assert folded.new_ids == [generic_filled.id]
    assert folded.duplicates_of_earlier == 1
    assert [(paper.title, paper.abstract) for paper in folded.papers] == [
        (bare.title, filled.abstract), (generic.title, None),
        (generic.title, generic_filled.abstract)]
