"""CSL-JSON export: the items citation processors (citeproc-js, pandoc, Zotero) read.

``id`` is the citation key shared with BibTeX and RIS, so a document can cite the same key
whichever file it was imported from. Variable names follow CSL-JSON 1.0.2 (``DOI``, ``PMID``,
``URL`` in capitals, ``container-title``, ``issued`` as ``date-parts``, ``volume``, ``issue`` and
``page`` where the work has them).
"""

from __future__ import annotations

from typing import Any

from scholargraph.exports.citation import (
    EntryKind,
    PersonName,
    authors_of,
    citation_keys,
    entry_kind,
    landing_url,
    page_range,
)
from scholargraph.records import Work

CSL_TYPES: dict[EntryKind, str] = {
    "journal": "article-journal",
    "preprint": "article",
    "chapter": "chapter",
    "book": "book",
    "web": "webpage",
    "news": "article-newspaper",
    "dataset": "dataset",
    "generic": "document",
}


def csl_name(name: PersonName) -> dict[str, str]:
    if name.literal:
        return {"literal": name.literal}
    return {"family": name.family, "given": name.given} if name.given else {"family": name.family}


def item(work: Work, key: str) -> dict[str, Any]:
    """One CSL-JSON item; variables the work lacks are left out rather than set empty."""
    kind = entry_kind(work)
    csl: dict[str, Any] = {"id": key, "type": CSL_TYPES[kind], "title": work.title}
    names = authors_of(work)
    if names:
        csl["author"] = [csl_name(name) for name in names]
    if kind == "news" and work.published:
        day = work.published
        csl["issued"] = {"date-parts": [[day.year, day.month, day.day]]}
    elif work.year:
        csl["issued"] = {"date-parts": [[work.year]]}
    if work.venue:
        where = "publisher" if kind in ("preprint", "dataset", "book") else "container-title"
        csl[where] = work.venue
    if kind == "preprint" and work.arxiv_id:
        csl["number"] = f"arXiv:{work.arxiv_id}"
    pages = page_range(work)
    for variable, value in (("volume", work.volume), ("issue", work.issue),
                            ("page", pages.hyphenated if pages else None)):
        if value:
            csl[variable] = value
    for variable, value in (("DOI", work.doi), ("PMID", work.pmid), ("PMCID", work.pmcid),
                            ("URL", landing_url(work)), ("abstract", work.abstract)):
        if value:
            csl[variable] = value
    if work.is_retracted:
        csl["note"] = "Retracted"
    return csl


def to_csl(works: list[Work]) -> list[dict[str, Any]]:
    """The works as CSL-JSON items, in the given order (``json.dumps`` the result to write it)."""
    return [item(work, key) for work, key in zip(works, citation_keys(works))]
