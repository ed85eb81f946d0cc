"""RIS export, written with rispy: one record per work, ``TY`` first and ``ER`` last.

Types: ``JOUR`` for journal articles, ``CHAP`` for book chapters (the book in ``T2``), ``BOOK``
for books (the publisher in ``PB``), ``UNPB`` (unpublished work) for preprints, ``ELEC`` for web
pages, ``NEWS`` for news items (with their date in ``DA``), ``DATA`` for Materials Project
records, ``GEN`` for anything else. ``VL``, ``IS``, ``SP`` and ``EP`` say where in its journal a
work is, where it is known. ``ID`` carries the citation key shared with BibTeX and
CSL-JSON (or the record id a screening's labels use); ``AN`` the PubMed id; ``N1`` the other
identifiers and a retraction notice.
"""

from __future__ import annotations

import re

import rispy
from rispy.writer import RisWriter

from scholargraph.exports.citation import (
    EntryKind,
    authors_of,
    citation_keys,
    entry_kind,
    landing_url,
    page_range,
)
from scholargraph.records import Work

RIS_TYPES: dict[EntryKind, str] = {
    "journal": "JOUR",
    "preprint": "UNPB",
    "chapter": "CHAP",
    "book": "BOOK",
    "web": "ELEC",
    "news": "NEWS",
    "dataset": "DATA",
    "generic": "GEN",
}


class _PlainRisWriter(RisWriter):
    """rispy's writer without the '1.', '2.' lines it puts before each record, which are not
    part of the RIS format and which some reference managers reject."""

    def set_header(self, count: int) -> str:
        return ""


def _line(text: str) -> str:
    """RIS values end at the line break, so a value is one line."""
    return re.sub(r"\s+", " ", text).strip()


def record(work: Work, key: str) -> dict[str, object]:
    """The work as a rispy record dict (rispy's field names; it maps them to tags)."""
    kind = entry_kind(work)
    fields: dict[str, object] = {"type_of_reference": RIS_TYPES[kind], "id": key}
    names = authors_of(work)
    if names:
        fields["authors"] = [_line(name.inverted) for name in names]
    fields["title"] = _line(work.title)
    if work.venue and kind == "book":
        fields["publisher"] = _line(work.venue)
    elif work.venue:
        fields["secondary_title"] = _line(work.venue)
        if kind == "journal":
            fields["journal_name"] = _line(work.venue)
    if work.year:
        fields["year"] = str(work.year)
    if kind == "news" and work.published:
        fields["date"] = work.published.strftime("%Y/%m/%d/")
    fields.update(_place(work))
    if work.doi:
        fields["doi"] = work.doi
    url = landing_url(work)
    if url:
        fields["urls"] = [url]
    if work.abstract:
        fields["abstract"] = _line(work.abstract)
    if work.pmid:
        fields["accession_number"] = work.pmid
    notes = _notes(work)
    if notes:
        fields["notes"] = notes
    return fields


def _place(work: Work) -> dict[str, str]:
    """``VL``, ``IS``, and the pages as ``SP`` and ``EP`` (an article number in ``SP``
    alone), as EndNote, Zotero and Mendeley import them."""
    fields = {}
    if work.volume:
        fields["volume"] = _line(work.volume)
    if work.issue:
        fields["number"] = _line(work.issue)
    pages = page_range(work)
    if pages:
        fields["start_page"] = pages.first
        if pages.last:
            fields["end_page"] = pages.last
    return fields


def _notes(work: Work) -> list[str]:
    notes = []
    if work.pmid:
        notes.append(f"PMID: {work.pmid}")
    if work.pmcid:
        notes.append(f"PMCID: {work.pmcid}")
    if work.arxiv_id:
        notes.append(f"arXiv: {work.arxiv_id}")
    if work.is_retracted:
        notes.append("RETRACTED")
    return notes


def dumps(works: list[Work], ids: list[str] | None = None) -> str:
    """The works as an RIS file, in the given order; ``ID`` is each one's citation key, or
    the id given for it in ``ids`` (``scholargraph screen`` gives the record id its labels
    file names the work by, so that a record read in a reference manager is labelled by the
    ``ID`` it shows there, with or without a DOI)."""
    keys = ids if ids is not None else citation_keys(works)
    records = [record(work, key) for work, key in zip(works, keys, strict=True)]
    return rispy.dumps(records, implementation=_PlainRisWriter)
