"""Deduplication across sources: one work per paper, every identifier and source kept.

The same paper reaches a review several times: PubMed and OpenAlex describe the published
article, arXiv the preprint, the web a landing page. A duplicate counts the same evidence twice;
a false merge silently loses a paper. So the rules go from certain to probable, and each one
refuses a merge that a stronger signal contradicts:

1. **identifiers**: records sharing a DOI, PMID, PMCID, arXiv id or OpenAlex id are one work
   (identifiers are normalised by :mod:`scholargraph.identifiers` when a ``Work`` is built);
2. **fuzzy title**: records whose normalised titles are near-identical (rapidfuzz), whose years
   agree (a preprint may be a year older than its publication) and whose first authors agree.

Two records are never joined when they carry different identifiers of a kind a work has only one
of (two PMIDs, two non-preprint DOIs, two arXiv ids): that is the precision guard. Groups are
found with a union-find, then folded with :meth:`Work.merge`, which records each rule used.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import combinations

from pydantic import Field
from rapidfuzz import fuzz

from scholargraph.records import Record, Work

TITLE_SIMILARITY = 0.93
"""rapidfuzz ratio (0-1) of normalised titles above which the fuzzy rule considers a pair."""
MIN_TITLE_CHARS = 12
"""Shorter normalised titles ("editorial", "reply") say too little to merge on."""
MAX_BLOCK = 300
"""A blocking key shared by more records than this is too common to compare pairwise."""
PREPRINT_DOI_PREFIXES = ("10.48550/", "10.1101/", "10.21203/", "10.20944/", "10.2139/",
                         "10.31219/", "10.31234/", "10.26434/", "10.36227/")
"""arXiv, bioRxiv/medRxiv, Research Square, Preprints.org, SSRN, OSF, PsyArXiv, ChemRxiv,
TechRxiv: a work may have one of these besides its published DOI."""
SINGLE_VALUED = ("pmid", "pmcid", "arxiv", "doi")
"""Identifier kinds a work has at most one of (preprint DOIs aside): different values veto a merge."""


class Merge(Record):
    """One record folded into another, and why."""

    rule: str = Field(description="'doi', 'pmid', 'pmcid', 'arxiv', 'openalex', 'url' or "
                      "'fuzzy_title'")
    work_id: str = Field(description="Id of the merged work, as it is after deduplication")
    kept_id: str = Field(description="Id of the group's first record, the one folded into")
    merged_id: str = Field(description="Id of the record folded in")
    detail: str = Field("", description="The shared identifier, or the fuzzy evidence")


@dataclass
class DedupResult:
    """Works after deduplication, in order of first appearance, and the merges that made them."""

    works: list[Work]
    duplicates_removed: int
    merges: list[Merge] = field(default_factory=list)


@dataclass
class _Keys:
    """What the rules compare, computed once per record."""

    identifiers: dict[str, str]
    title: str
    year: int | None
    author: str | None
    preprint: bool


def deduplicate(works: list[Work]) -> DedupResult:
    """Merge the records of the same work; see the module docstring for the rules."""
    keys = [_keys(work) for work in works]
    groups = _UnionFind(keys)
    for rule, i, j, detail in _identifier_links(keys):
        groups.union(i, j, rule, detail)
    for i, j, detail in _fuzzy_links(keys):
        groups.union(i, j, "fuzzy_title", detail)
    return _fold(works, groups)


def normalize_title(title: str) -> str:
    """Lower case ASCII words only: accents, markup, brackets and punctuation dropped."""
    text = html.unescape(title)
    text = re.sub(r"<[^>]+>", " ", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def author_key(author: str) -> str | None:
    """The family name of an author as sources spell it ('Zuna, R E', 'R. E. Zuna', 'Zuna RE')."""
    text = unicodedata.normalize("NFKD", html.unescape(author)).encode("ascii", "ignore").decode()
    text = text.strip()
    if not text:
        return None
    if "," in text:
        family = text.split(",")[0]
    else:
        tokens = text.split()
        initials = [t for t in tokens if re.fullmatch(r"[A-Z]{1,3}\.?|(?:[A-Z]\.)+[A-Z]?", t)]
        names = [t for t in tokens if t not in initials]
        if not names:
            return None
        family = names[0] if tokens[-1] in initials else names[-1]
    family = re.sub(r"[^a-z]", "", family.lower())
    return family or None


def _keys(work: Work) -> _Keys:
    identifiers = dict(work.identifiers())
    arxiv_from_doi = (work.doi or "").removeprefix("10.48550/arxiv.")
    if work.doi and arxiv_from_doi != work.doi and "arxiv" not in identifiers:
        identifiers["arxiv"] = arxiv_from_doi
    if work.kind in ("web", "material") and work.url:
        identifiers["url"] = re.sub(r"^https?://(www\.)?|/+$|#.*$", "", work.url.lower())
    return _Keys(
        identifiers=identifiers,
        title=normalize_title(work.title),
        year=work.year,
        author=author_key(work.authors[0]) if work.authors else None,
        preprint=work.kind == "preprint" or (work.venue or "").lower() == "arxiv"
        or _is_preprint_doi(work.doi),
    )


def _is_preprint_doi(doi: str | None) -> bool:
    return bool(doi) and doi.startswith(PREPRINT_DOI_PREFIXES)


def _identifier_links(keys: list[_Keys]) -> Iterator[tuple[str, int, int, str]]:
    """(rule, first record, other record, identifier) for records sharing an identifier."""
    seen: dict[tuple[str, str], int] = {}
    for index, key in enumerate(keys):
        for kind, value in key.identifiers.items():
            first = seen.setdefault((kind, value), index)
            if first != index:
                yield kind, first, index, f"{kind}:{value}"


def _fuzzy_links(keys: list[_Keys]) -> Iterator[tuple[int, int, str]]:
    """Pairs that agree on title, year and first author, found within blocks of likely pairs."""
    compared: set[tuple[int, int]] = set()
    for block in _blocks(keys):
        for i, j in combinations(block, 2):
            if (i, j) in compared:
                continue
            compared.add((i, j))
            detail = _fuzzy_match(keys[i], keys[j])
            if detail:
                yield i, j, detail


def _blocks(keys: list[_Keys]) -> Iterable[list[int]]:
    """Records that could be duplicates share a title prefix, a title suffix or author + year."""
    blocks: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, key in enumerate(keys):
        if len(key.title) < MIN_TITLE_CHARS:
            continue
        blocks[("prefix", key.title[:20])].append(index)
        blocks[("suffix", key.title[-20:])].append(index)
        if key.author and key.year:
            blocks[("author", f"{key.author}|{key.year}")].append(index)
    return [block for block in blocks.values() if 1 < len(block) <= MAX_BLOCK]


def _fuzzy_match(a: _Keys, b: _Keys) -> str | None:
    """Why ``a`` and ``b`` are the same work by the fuzzy rule, or None when they are not."""
    if not _years_agree(a, b) or not _authors_agree(a, b):
        return None
    similarity = fuzz.ratio(a.title, b.title, score_cutoff=TITLE_SIMILARITY * 100) / 100
    if not similarity:
        return None
    return f"title similarity {similarity:.3f}, year {a.year}/{b.year}, first author {a.author}"


def _years_agree(a: _Keys, b: _Keys) -> bool:
    if a.year is None or b.year is None:
        return False
    if a.year == b.year:
        return True
    return abs(a.year - b.year) == 1 and (a.preprint or b.preprint)


def _authors_agree(a: _Keys, b: _Keys) -> bool:
    if a.author is None or b.author is None:
        return False
    return a.author == b.author or fuzz.ratio(a.author, b.author) >= 85


class _UnionFind:
    """Groups of record indices, refusing a union that would join conflicting identifiers."""

    def __init__(self, keys: list[_Keys]) -> None:
        self.parent = list(range(len(keys)))
        self.identifiers: list[dict[str, set[str]]] = [
            {kind: {value} for kind, value in key.identifiers.items()} for key in keys
        ]
        self.links: dict[int, tuple[str, str]] = {}
        """For each record joined to another, the rule and detail of its first successful link."""

    def find(self, index: int) -> int:
        while self.parent[index] != index:
            self.parent[index] = self.parent[self.parent[index]]
            index = self.parent[index]
        return index

    def union(self, i: int, j: int, rule: str, detail: str) -> None:
        root_i, root_j = self.find(i), self.find(j)
        if root_i == root_j or self._conflict(root_i, root_j):
            return
        keep, drop = min(root_i, root_j), max(root_i, root_j)
        self.parent[drop] = keep
        for kind, values in self.identifiers[drop].items():
            self.identifiers[keep].setdefault(kind, set()).update(values)
        self.links.setdefault(i, (rule, detail))
        self.links.setdefault(j, (rule, detail))

    def _conflict(self, root_i: int, root_j: int) -> bool:
        ids_i, ids_j = self.identifiers[root_i], self.identifiers[root_j]
        for kind in SINGLE_VALUED:
            values_i, values_j = ids_i.get(kind, set()), ids_j.get(kind, set())
            if kind == "doi":
                values_i = {v for v in values_i if not _is_preprint_doi(v)}
                values_j = {v for v in values_j if not _is_preprint_doi(v)}
            if values_i and values_j and not values_i & values_j:
                return True
        return False


def _fold(works: list[Work], groups: _UnionFind) -> DedupResult:
    """Fold each group into its first record, in order of first appearance."""
    members: dict[int, list[int]] = defaultdict(list)
    for index in range(len(works)):
        members[groups.find(index)].append(index)
    merged_works: list[Work] = []
    merges: list[Merge] = []
    for root in sorted(members, key=lambda r: members[r][0]):
        first, *rest = members[root]
        work = works[first]
        folded: list[tuple[int, str, str]] = []
        for index in rest:
            rule, detail = groups.links[index]
            folded.append((index, rule, detail))
            work = work.merge(works[index], rule)
        merges.extend(Merge(rule=rule, work_id=work.id, kept_id=works[first].id,
                            merged_id=works[index].id, detail=detail)
                      for index, rule, detail in folded)
        merged_works.append(work)
    return DedupResult(works=merged_works, duplicates_removed=len(works) - len(merged_works),
                       merges=merges)

