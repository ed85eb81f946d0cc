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
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

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
