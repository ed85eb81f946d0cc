"""The screening record (``screening.csv``) and the list of included works in the review.

PRISMA's counts say how many works were excluded and why; a systematic reviewer also checks
*which*. ``screening.csv`` has one row per work screened, in every round and by every path
(a search, a library, citation snowballing), read from the run's PRISMA ledger
(:func:`scholargraph.ledger.screened_works`), so its rows add up to the counts: rows =
``screened``; rows by ``decision`` = ``excluded`` and ``included``; excluded rows by ``reason``
= ``excluded_reasons``; included rows by ``full_text`` = the full-text stage; and each row's
``source`` with the sources of its ``merged_records`` = ``identified``. A duplicate folded into
a work is not a row: its work names it in ``merged_records`` as ``source:id``.

A title is data from a source: a cell that a spreadsheet would take for a formula (it begins
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is written after an apostrophe, as
OWASP advises against CSV injection; every other cell is written as it is.
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from pydantic import Field

from scholargraph.exports.citation import authors_of
from scholargraph.ledger import ScreenedWork
from scholargraph.records import Record, Work
from scholargraph.wording import counted

if TYPE_CHECKING:
    from scholargraph.report import Report

SCREENING_FILE = "screening.csv"
COLUMNS = ("work_id", "title", "year", "doi", "pmid", "arxiv_id", "openalex_id", "source",
           "found_by", "decision", "reason", "cited", "reference", "full_text",
           "merged_records", "screened_on", "joins_earlier", "decision_kept_on")
"""The columns of ``screening.csv``, in order (see the README's table of output files)."""
NOT_SOUGHT = "not sought"
"""``full_text`` of an included work whose full text was not sought (excluded works: empty);
one that came with its full text (a library file) says where it was read after it."""
LIST_SEPARATOR = "; "
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


class IncludedWork(Record):
    """One line of the review's list of included works: enough to find it and see whether the
    review cites it."""

    work_id: str
    label: str = Field(description="First author (et al.) and title")
    year: int | None = None
    reference: int | None = Field(None, description="Its number in the reference list, if cited")
    retracted: bool = False


def dumps(report: Report) -> str:
    """``screening.csv``: a header of :data:`COLUMNS`, then one row per work screened."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows(report))
    return buffer.getvalue()


def rows(report: Report) -> list[dict[str, str]]:
    """The CSV's rows, as text cells by column name. Only an included work is cited: an
    excluded one may share its id (a DOI pasted into the wrong record)."""
    numbers = report.reference_numbers()
    return [_row(work, numbers.get(work.joins_earlier or work.work_id)
                 if work.decision == "included" else None, report.day)
            for work in report.screening]


def _row(work: ScreenedWork, reference: int | None, day: str) -> dict[str, str]:
    included = work.decision == "included"
    return {
        "work_id": work.work_id, "title": _safe(work.title),
        "year": "" if work.year is None else str(work.year), "doi": work.doi or "",
        "pmid": work.pmid or "", "arxiv_id": work.arxiv_id or "",
        "openalex_id": work.openalex_id or "", "source": work.source,
        "found_by": LIST_SEPARATOR.join(work.found_by), "decision": work.decision,
        "reason": work.reason, "cited": "yes" if reference is not None else "no",
        "reference": "" if reference is None else str(reference),
        "full_text": work.full_text or (_not_sought(work) if included else ""),
        "merged_records": LIST_SEPARATOR.join(work.merged_records),
        "screened_on": work.screened_on.isoformat() if work.screened_on else day,
        "joins_earlier": work.joins_earlier or "",
        "decision_kept_on": work.decision_kept_on.isoformat() if work.decision_kept_on else "",
    }


def _not_sought(work: ScreenedWork) -> str:
    """'not sought', or 'not sought; read from library file x.xml' for a work that came with
    its full text."""
    return f"{NOT_SOUGHT}; read from {work.full_text_source}" if work.full_text_source \
        else NOT_SOUGHT


def _safe(text: str) -> str:
    """The text, after an apostrophe when a spreadsheet would read it as a formula."""
    return f"'{text}" if text.startswith(FORMULA_START) else text


def included_works(report: Report) -> list[IncludedWork]:
    """Every included work, cited or not, in the review's order, with its reference number."""
    numbers = report.reference_numbers()
    return [IncludedWork(work_id=work.id, label=label(work), year=work.year,
                         reference=numbers.get(work.id), retracted=work.is_retracted)
            for work in report.papers]


def included_intro(count: int) -> str:
    """The sentence above the list of included works, the same in review.md and review.html."""
    return (f"{counted(count, 'work')} included, cited or not, closest to the question first; "
            f"every work screened, with its decision and reason, is in {SCREENING_FILE}.")


def label(work: Work) -> str:
    """'Iskander & Bianchi: Changes in the scientific information environment ...': the first
    author's family name (two names, or 'et al.'), then the title, so a reader can find it."""
    families = [name.family or name.literal for name in authors_of(work)]
    who = f"{families[0]} et al." if len(families) > 2 else " & ".join(families)
    title = " ".join(work.title.split()) or "(untitled)"
    return f"{who}: {title}" if who else title
