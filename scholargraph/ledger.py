"""The PRISMA ledger: the fate of every record a review identified, from which its counts come.

PRISMA's counts are not tallied one by one (a tally keyed by work id undercounts as soon as two
different works share an id: a DOI pasted into the wrong record, two PubMed records of one DOI).
Each record identified, in any round, by any path (a search, a library, citation snowballing)
holds one position in the ledger, and each position has exactly one fate:

- ``duplicate``: folded into another record of the same work (in this round or across rounds);
- ``excluded``: the work it stands for was screened out, with the reason (no text to judge,
  off topic, not closest to the claim, ...);
- ``included``: the work was included; with a full-text outcome when it was sought in full
  (read, or not retrieved and why).

Every count is a number of positions with a fate, so the counts add up by construction:
identified = duplicates + screened; screened = excluded + included; excluded = the sum of the
reasons; the reports sought are included positions, and assessed = sought - not retrieved.

The same positions give the review's screening record (:func:`screened_works`, written as
``screening.csv``): one :class:`ScreenedWork` per position that is not a duplicate, naming the
records folded into it, so a reviewer can check each decision and its rows add up to the counts.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from pydantic import Field

from scholargraph.records import Record, Work

Fate = Literal["duplicate", "excluded", "included"]
RETRIEVED = "retrieved"
FULL_TEXT_COUNTS = ("reports_sought", "reports_not_retrieved", "not_retrieved_reasons",
                    "reports_assessed", "full_text_licences")
"""PRISMA's full-text stage: the counts :meth:`Ledger.prisma` adds when works were sought in
full."""


class FullTextFate(Record):
    """What became of a work's full text when it was sought: ``retrieved`` (and its licence)
    or the PRISMA reason it was not retrieved. Kept in the run's state, so a later round
    neither asks for it again nor counts it twice."""

    status: str
    licence: str | None = None


@dataclass(frozen=True)
class Entry:
    """One identified record: the source that identified it, its fate, and why."""

    source: str
    fate: Fate
    reason: str | None = None
    full_text: FullTextFate | None = None


class LedgerError(ValueError):
    """The groups given do not partition the records (a bug in the caller, not in the data)."""


@dataclass(frozen=True)
class Ledger:
    """Every identified record's fate, in the order the records were identified."""

    entries: tuple[Entry, ...]

    @classmethod
    def build(cls, sources: Sequence[str], groups: Sequence[Sequence[int]],
              reasons: Sequence[str | None],
              full_texts: Sequence[FullTextFate | None] = ()) -> Ledger:
        """The ledger of ``len(sources)`` records (each named by the source that identified
        it), folded into one work per group of record positions; ``reasons[k]`` is why work
        ``k`` was excluded (None: included), ``full_texts[k]`` what became of its full text.
        The first position of a group stands for the work; the others are its duplicates."""
        if len(reasons) != len(groups) or (full_texts and len(full_texts) != len(groups)):
            raise LedgerError(f"{len(groups)} works but {len(reasons)} screening decisions and "
                              f"{len(full_texts)} full-text outcomes")
        positions = sorted(index for group in groups for index in group)
        if positions != list(range(len(sources))) or any(not group for group in groups):
            raise LedgerError(f"the groups of {len(groups)} works do not partition the "
                              f"{len(sources)} records")
        entries: list[Entry | None] = [None] * len(sources)
        for work, group in enumerate(groups):
            first, *others = sorted(group)
            reason = reasons[work]
            full_text = full_texts[work] if full_texts and reason is None else None
            entries[first] = Entry(sources[first], "included" if reason is None else "excluded",
                                   reason, full_text)
            for other in others:
                entries[other] = Entry(sources[other], "duplicate")
        return cls(tuple(entry for entry in entries if entry is not None))

    def count(self, fate: Fate) -> int:
        return sum(1 for entry in self.entries if entry.fate == fate)

    def prisma(self, *, full_text_stage: bool = False) -> dict[str, object]:
        """PRISMA 2020's counts (the keys of :class:`~scholargraph.state.Prisma`); the
        full-text stage when the run seeks full texts (``full_text_stage``) or some included
        work was sought in full."""
        included = [entry for entry in self.entries if entry.fate == "included"]
        counts: dict[str, object] = {
            "identified": dict(sorted(Counter(entry.source for entry in self.entries).items())),
            "duplicates_removed": self.count("duplicate"),
            "screened": len(self.entries) - self.count("duplicate"),
            "excluded": self.count("excluded"),
            "excluded_reasons": dict(sorted(Counter(
                entry.reason or "" for entry in self.entries if entry.fate == "excluded").items())),
            "included": len(included),
        }
        sought = [entry.full_text for entry in included if entry.full_text is not None]
        if sought or full_text_stage:
            retrieved = [fate for fate in sought if fate.status == RETRIEVED]
            counts.update({
                "reports_sought": len(sought),
                "reports_not_retrieved": len(sought) - len(retrieved),
                "not_retrieved_reasons": dict(sorted(Counter(
                    fate.status for fate in sought if fate.status != RETRIEVED).items())),
                "reports_assessed": len(retrieved),
                "full_text_licences": dict(sorted(Counter(
                    fate.licence or "not stated" for fate in retrieved).items())),
            })
        return counts


def identifying_source(sources: Sequence[str]) -> str:
    """The one source a record is counted under: the first that names it (a record straight
    from a source names one; a library record may carry several)."""
    return sources[0] if sources else "unknown"


def work_key(work: Work) -> str:
    """A work's id and a digest of its title and year: what a full text is kept under across
    rounds. The id alone can be shared by two different works (a DOI pasted into the wrong
    record) and would give one the other's text; records of one paper that dedup kept apart
    (two PMIDs of one DOI and title) share a key, and their paper is read once."""
    digest = hashlib.sha1(f"{work.title.lower()}|{work.year}".encode()).hexdigest()[:10]
    return f"{work.id}|{digest}"


def full_text_fates(outcomes: Mapping[str, FullTextFate], works: Sequence[Work]
                    ) -> list[FullTextFate | None]:
    """Each work's full-text fate (None: not sought), by :func:`work_key`."""
    return [outcomes.get(work_key(work)) for work in works]


class ScreenedWork(Record):
    """One work screened, as a person checking the screening needs it: what it is, what found
    it, the decision and its reason (PRISMA's ``excluded_reasons`` wording), what became of its
    full text, and the records deduplication folded into it (each ``source:id``)."""

    work_id: str
    title: str
    year: int | None = None
    doi: str | None = None
    pmid: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None
    source: str = Field(description="The source its first record is counted under in PRISMA")
    found_by: list[str] = Field(default_factory=list,
                                description="Every source of its records, first first")
    decision: Literal["included", "excluded"]
    reason: str = Field("", description="Why it was excluded, as PRISMA counts it")
    full_text: str = Field("", description="'retrieved', why not, or '' when not sought")
    full_text_source: str | None = Field(
        None, description="Where a full text it came with was read, when not sought (a "
        "library file)")
    merged_records: list[str] = Field(
        default_factory=list, description="The duplicate records folded into it, each "
        "'source:id' (the source PRISMA counts it under)")
    screened_on: date | None = Field(
        None, description="The day of the run that screened it (set in an update's review, "
        "whose earlier runs screened the others)")
    joins_earlier: str | None = Field(
        None, description="In an update: the work of an earlier run this included work was "
        "folded into (a duplicate or a new version of it)")
    record_digest: str = Field(
        "", description="A digest of what the work's record said when it was screened "
        "(:func:`record_content`): an update that finds the record again saying the same, "
        "with the question and criteria unchanged, keeps this decision")
    bare_digest: str = Field(
        "", description="For a record with an abstract: the digest its record would have "
        "without it, so an update can tell a record an earlier run decided on its title "
        "alone whose abstract has arrived since (screened again, and the reviewer told)")
    decision_kept_on: date | None = Field(
        None, description="The day of the last update that found this record again, "
        "unchanged, under the same question and criteria, and kept this decision rather than "
        "screening it again")


def record_content(work: Work) -> tuple[object, ...]:
    """What a record says of its work, spaces and case aside: title, abstract, year, authors,
    venue and identifiers. A new export of a scientist's search holds the records screened
    before as they were, and a record saying exactly what an earlier work's record said is that
    work, though deduplication keeps apart two records with a title and no year, author or
    identifier to agree on (precision first): an update from a 3,000-record export that holds
    the 2,500 records of the review's first export counted 421 such works, already included,
    among its 783 'new works'."""
    def plain(text: str | None) -> str:
        return " ".join((text or "").split()).lower()
    return (plain(work.title), plain(work.abstract), work.year,
            tuple(plain(name) for name in work.authors), plain(work.venue),
            tuple(sorted(work.identifiers())))


CARRIED_REASON = "screened in an earlier run, record unchanged: decision kept"
"""PRISMA's reason for the records of an update that an earlier run screened, found again
saying exactly what they said then, under the same question and criteria: removed before
screening, their decisions kept (PRISMA 2020 counts the studies of the previous version apart
from the new ones, and a reviewer updating a review screens only the records new since). Over a
258-record export re-exported with 25 records added and 16 abstracts filled in, the update
screened all 257 titled records again, 4 earlier exclusions came back as inclusions with no
change to their record or the criteria, and the review's counts said 449 screened. Retrieval
sets such works aside with this reason before screening (``decided_before``), and the update
counts them removed before screening."""


def record_digest(work: Work) -> str:
    """:func:`record_content` as a short digest, kept on the work's screening row: what the
    record said when it was screened, so an update can tell a record found again unchanged
    (its decision stands) from one changed since (an abstract filled in, a preprint now
    published: screened again)."""
    return hashlib.sha256(repr(record_content(work)).encode()).hexdigest()[:16]


def screened_works(ledger: Ledger, records: Sequence[Work], groups: Sequence[Sequence[int]],
                   works: Sequence[Work]) -> list[ScreenedWork]:
    """One row per work screened, in the order the works were found, read from the ``ledger``
    built over the same ``records`` and ``groups`` (``works[k]`` is group ``k`` folded): its
    rows are the ledger's screened positions, so they add up to PRISMA's counts."""
    rows = []
    for work, group in zip(works, groups, strict=True):
        first, *others = sorted(group)
        entry = ledger.entries[first]
        if entry.fate == "duplicate":
            raise LedgerError(f"record {first} stands for a work but is marked a duplicate")
        found_by = [source for index in sorted(group) for source in records[index].sources]
        rows.append(ScreenedWork(
            work_id=work.id, title=work.title, year=work.year, doi=work.doi, pmid=work.pmid,
            arxiv_id=work.arxiv_id, openalex_id=work.openalex_id, source=entry.source,
            found_by=list(dict.fromkeys(found_by)) or [entry.source], decision=entry.fate,
            reason=entry.reason or "",
            full_text=entry.full_text.status if entry.full_text else "",
            full_text_source=None if entry.full_text else work.full_text_source,
            merged_records=[f"{ledger.entries[i].source}:{records[i].id}" for i in others],
            record_digest=record_digest(work),
            bare_digest=record_digest(work.model_copy(update={"abstract": None}))
            if work.abstract else ""))
    return rows
