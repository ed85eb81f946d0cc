"""What an updated review keeps of its past, as ``review.json`` holds it.

``history`` lists each earlier run (the review, then each update) with its day, its counts and
the queries it sent, and where its files were kept (``history/DATE/``); ``update`` says what the
last update changed: its PRISMA counts, the new works, the new versions joined to works already
there, the new findings, and the retractions and corrections published since. The update itself
is :mod:`scholargraph.updating`; these records live apart so that the report model can hold them
without importing the update.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from scholargraph.records import Record


class HistoryQuery(Record):
    """One search an earlier run sent, as its search log recorded it."""

    source: str
    query: str
    n_results: int = 0
    status: str = "ok"


class HistoryEntry(Record):
    """One earlier run of the review."""

    kind: Literal["review", "update"]
    date: str = Field(description="The day its searches reached (YYYY-MM-DD)")
    generated_at: str = Field(description="When it was written")
    since: str | None = Field(None, description="An update: the day its searches started from")
    included: int = Field(0, description="Works the review held after this run")
    new_works: int = Field(0, description="An update: works it added")
    findings: int = 0
    cited_works: int = 0
    queries: list[HistoryQuery] = Field(default_factory=list)
    files: str = Field("", description="Where its files were kept, relative to the review's "
                                       "folder ('history/2024-03-01/')")


class NoticeFlag(Record):
    """A retraction or correction of a work of the review, published since it was included."""

    work_id: str
    title: str
    kind: str = Field(description="'Retraction', 'Erratum', 'Expression of concern', 'Update', "
                      "or 'Retracted' where only the work's status says so")
    detail: str = Field(description="The notice as the source gives it")
    source: str = Field(description="Where it was read: 'pubmed' or 'openalex'")
    reference: int | None = Field(None, description="The work's number in the reference list")


class JoinedVersion(Record):
    """A record found by the update that is another version of a work already in the review
    (a preprint's published article, a new arXiv version), joined to it."""

    work_id: str = Field(description="The work's id after the join")
    title: str
    earlier_id: str = Field(description="The work's id before (a preprint's, say)")
    joined_id: str = Field(description="The id of the record joined to it")
    rule: str = Field(description="The deduplication rule that joined them")


class NowExcluded(Record):
    """A work the review holds whose record the update screened again (the record changed, or
    the criteria did) and excluded: it stays in the review, whose findings cite it, and is
    listed for the reviewer to look at again."""

    work_id: str
    title: str
    reason: str = Field(description="Why this update's screening excluded it")


class UpdatePrisma(Record):
    """PRISMA for an update (PRISMA 2020's flow for updated reviews): what this run's searches
    identified and screened, which of the works it kept were already in the review, and the
    totals."""

    identified: dict[str, int] = Field(default_factory=dict)
    duplicates_removed: int = 0
    removed_before_screening: dict[str, int] = Field(
        default_factory=dict, description="Records removed before screening, by reason (no "
        "title; screened in an earlier run, record unchanged; outside the years asked for)")
    screened: int = 0
    excluded: int = 0
    included: int = Field(0, description="Works this run's screening kept")
    duplicates_of_earlier: int = Field(0, description="Of those, works the review already had "
                                       "(as they were, or as another version of them)")
    new_included: int = Field(0, description="Works new to the review")
    earlier_included: int = Field(0, description="Works the review held before the update")
    total_included: int = Field(0, description="Works the review holds now")


class UpdateSection(Record):
    """What the last update changed."""

    since: str = Field(description="The day its searches started from (YYYY-MM-DD)")
    date: str = Field(description="The day its searches reached")
    prisma: UpdatePrisma = Field(default_factory=UpdatePrisma)
    new_work_ids: list[str] = Field(default_factory=list)
    joined: list[JoinedVersion] = Field(default_factory=list)
    new_findings: list[int] = Field(default_factory=list,
                                    description="Positions in ``findings`` of the new ones")
    flags: list[NoticeFlag] = Field(default_factory=list)
    now_excluded: list[NowExcluded] = Field(
        default_factory=list, description="Works of the review this update screened again "
        "and excluded (kept in the review, listed to be looked at again)")
    checked: dict[str, int] = Field(
        default_factory=dict, description="Works of the review whose notices were looked up, "
        "per source (pubmed: by PMID; openalex: by OpenAlex id)")
    options_kept: dict[str, Any] = Field(
        default_factory=dict, description="Run options the update took from the review's own "
        "run (run.options), not given for it: max_results, full_text, model...")
    options_given: dict[str, Any] = Field(
        default_factory=dict, description="Run options given for the update that differ from "
        "the review's own, with the value given")
