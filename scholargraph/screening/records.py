"""What a person screens: the records of a library, merged so that one decision covers one work.

A library is read as the review reads it (:mod:`scholargraph.sources.library`: BibTeX, RIS,
CSL-JSON, JSONL, PDF, JATS, a folder of them) or as a CSV with ``title`` and ``abstract``
columns (``record_id`` or ``id``, ``doi``, ``year``, ``authors`` split on ``;``, ``journal`` or
``venue``, ``pmid`` when present). The records are then deduplicated with the project's rules
(:func:`scholargraph.dedup.deduplicate`): a duplicate export, or a preprint and its published
version, is one :class:`Entry`, and a label on any of its records' ids decides it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from scholargraph.dedup import deduplicate
from scholargraph.identifiers import normalize_doi
from scholargraph.records import Work
from scholargraph.sources.library import LibraryError, library_records

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LibraryRecord:
    """One record as the library holds it, with the id its file gives it (a CSV's record id,
    an RIS record's ``ID``, a BibTeX entry's key)."""

    work: Work
    own_id: str | None = None


@dataclass
class Entry:
    """One work to decide on: the library's records of it, merged."""

    work: Work
    record_id: str
    """The id shown and written for it: its first record's own id, else the work's id."""
    aliases: set[str] = field(default_factory=set)
    """Every id a label may name it by (lower-cased): each record's own id, each record's
    work id ('doi:10.1/x', 'pmid:123'), its DOIs bare and as a link."""
    records: int = 1


def read_library(path: Path) -> list[LibraryRecord]:
    """Every record of the library file or folder, CSVs included; a :class:`LibraryError`
    when nothing there has a title."""
    path = path.expanduser()
    if not path.exists():
        raise LibraryError(f"the library {path} does not exist; give a file or a folder")
    records = [LibraryRecord(work, own) for work, own in library_records(path, with_csv=True)]
    if not records:
        raise LibraryError(f"{path}: no record with a title; give BibTeX, RIS, MEDLINE (.nbib), "
                           "CSL-JSON, JSONL, PubMed/EndNote/JATS XML, PDF or a CSV with title "
                           "and abstract columns")
    return records


def merge_records(records: list[LibraryRecord]) -> list[Entry]:
    """The works of the records, duplicates and versions merged, in order of first appearance."""
    result = deduplicate([record.work for record in records])
    shared = shared_own_ids(records, result.groups)
    entries = []
    for work, members in zip(result.works, result.groups, strict=True):
        first = records[members[0]]
        own = first.own_id if first.own_id and first.own_id.lower() not in shared else None
        entry = Entry(work=work, record_id=own or work.id, records=len(members))
        for index in members:
            entry.aliases |= record_aliases(records[index]) - shared
        entry.aliases |= {work.id.lower()}
        entries.append(entry)
    return entries


def shared_own_ids(records: list[LibraryRecord], groups: list[list[int]]) -> set[str]:
    """The records' own ids (lower-cased) that different works share: two exports in one folder
    that each number their records from 1, two BibTeX files with a key 'smith2020'. A label
    naming such an id cannot tell which work it decides, so no work is named by it (each by its
    DOI or work id instead), and a warning says how many."""
    owners: dict[str, set[int]] = {}
    for group, members in enumerate(groups):
        for index in members:
            if own := records[index].own_id:
                owners.setdefault(own.lower(), set()).add(group)
    shared = {own for own, found in owners.items() if len(found) > 1}
    if shared:
        example = sorted(shared)[0]
        log.warning("%d record id(s) of the library name more than one work (first: %r); those "
                    "works are named by their DOI or work id instead", len(shared), example)
    return shared


def record_aliases(record: LibraryRecord) -> set[str]:
    """The ids a person may use for a record in the labels file, lower-cased."""
    work = record.work
    aliases = {work.id.lower()} | {f"{kind}:{value}".lower() for kind, value in work.identifiers()}
    if record.own_id:
        aliases.add(record.own_id.lower())
    if work.doi:
        aliases |= {work.doi.lower(), f"https://doi.org/{work.doi}".lower()}
    return aliases


def label_key(value: str) -> str:
    """A labels-file id as an alias: lower-cased; a DOI in any of its spellings as 'doi:...'
    is matched through its bare form too (see :func:`resolve`)."""
    return value.strip().lower()


def resolve(entries: list[Entry], ids: list[str]) -> list[int | None]:
    """For each id, the index of the entry it names, or None: a record's own id first, then
    a DOI in any spelling, then a bare number as a PMID (copied from PubMed, which shows it
    so)."""
    index: dict[str, int] = {}
    for position, entry in enumerate(entries):
        for alias in entry.aliases:
            index.setdefault(alias, position)
    found: list[int | None] = []
    for value in ids:
        key = label_key(value)
        hit = index.get(key)
        if hit is None and (doi := normalize_doi(value)):
            hit = index.get(doi.lower())
        if hit is None and key.isdigit():  # a PMID as PubMed shows it, when no row has that id
            hit = index.get(f"pmid:{key}")
        found.append(hit)
    return found
