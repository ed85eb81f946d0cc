"""Deduplication across sources: one work per paper, every identifier and source kept.

The same paper reaches a review several times: PubMed and OpenAlex describe the published
article, arXiv the preprint, the web a landing page. A duplicate counts the same evidence twice;
a false merge silently loses a paper. So the rules go from certain to probable, and each one
refuses a merge that a stronger signal contradicts:

1. **identifiers**: records sharing a DOI, PMID, PMCID, arXiv id or OpenAlex id (or, for web
   pages and materials, a URL) are one work; identifiers are normalised by
   :mod:`scholargraph.identifiers` when a ``Work`` is built;
2. **fuzzy title** (rapidfuzz): normalised titles near-identical (database notes such as
   '[Review]' or '[Spanish]' dropped; a long title may carry a subtitle the other lacks), the
   same year (a preprint may be a year older), the same first author, and venues that can be
   the same journal ('N Engl J Med' / 'New England Journal of Medicine').

Precision guards, each learnt from a false merge in the labelled sets of ``bench/dedup.py``:
- different identifiers of a kind a work has only one of (two PMIDs, two non-preprint DOIs)
  veto a merge, whatever the titles say;
- a changed word or number in a near-identical title ('FOCUS 1' / 'FOCUS 2', 'Pediatric' /
  'Adult') is another work, a typo is not;
- the same title in two journals is two publications (guidelines printed twice, a conference
  abstract and its paper);
- one source lists a work once (per version): two records of one source are joined only by a
  shared identifier.

Groups are found with a union-find, then folded with :meth:`Work.merge`, which records each rule.
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
from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from scholargraph.records import Record, Work

TITLE_SIMILARITY = 0.93
"""rapidfuzz ratio (0-1) of normalised titles above which the fuzzy rule considers a pair."""
MIN_TITLE_CHARS = 12
"""Shorter normalised titles ("editorial", "reply") say too little to merge on."""
MIN_EXTENDED_WORDS = 6
"""A title may be extended by a subtitle or note only if it has this many distinct words."""
MAX_BLOCK = 300
"""A blocking key shared by more records than this is too common to compare pairwise."""
PREPRINT_DOI_PREFIXES = ("10.48550/", "10.1101/", "10.21203/", "10.20944/", "10.2139/",
                         "10.31219/", "10.31234/", "10.26434/", "10.36227/")
"""arXiv, bioRxiv/medRxiv, Research Square, Preprints.org, SSRN, OSF, PsyArXiv, ChemRxiv,
TechRxiv: a work may have one of these besides its published DOI."""
SINGLE_VALUED = ("pmid", "pmcid", "arxiv", "doi")
"""Identifier kinds a work has at most one of (preprint DOIs aside): two values veto a merge."""


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
    groups: list[list[int]] = field(default_factory=list)
    """For each merged work, the indices of the input records folded into it."""


@dataclass
class _Keys:
    """What the rules compare, computed once per record."""

    identifiers: dict[str, str]
    title: str
    year: int | None
    author: str | None
    author_names: frozenset[str]
    all_authors: frozenset[str]
    venue: tuple[tuple[str, ...], ...]
    meeting: bool
    preprint: bool
    sources: frozenset[str]


def deduplicate(works: list[Work]) -> DedupResult:
    """Merge the records of the same work; see the module docstring for the rules."""
    keys = [_keys(work) for work in works]
    groups = _UnionFind(keys)
    for rule, i, j, detail in _identifier_links(keys):
        groups.union(i, j, rule, detail)
    for i, j, detail in _fuzzy_links(keys):
        groups.union(i, j, "fuzzy_title", detail, by_identifier=False)
    return _fold(works, groups)


def normalize_title(title: str) -> str:
    """Lower case ASCII words only: accents, markup, database annotations and punctuation dropped.

    Bibliographic databases append notes to titles ('[Review] [16 refs]', '[Spanish]',
    '[Erratum appears in ...]') and bracket translated titles; none of that names the work.
    """
    text = html.unescape(title).strip()
    text = re.sub(r"<[^>]+>", " ", text)
    while (note := _TRAILING_NOTE.search(text)) and note.start() > 0:
        text = text[:note.start()].rstrip()
    text = _CORRECTION.sub("", text).rstrip(".")
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
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


def venue_names(venue: str | None) -> tuple[tuple[str, ...], ...]:
    """The names a venue string gives, each as lower-case words without stop words.

    Databases write one journal many ways: 'Zhonghua yi xue za zhi = Chinese medical journal',
    'Pneumologie (Stuttgart, Germany)', 'J Clin Oncol : official journal of ...', 'Gan to
    Kagaku Ryoho [Japanese Journal of Cancer & Chemotherapy]'. Each alternative is kept.
    """
    if not venue:
        return ()
    text = unicodedata.normalize("NFKD", html.unescape(venue)).encode("ascii", "ignore").decode()
    text = re.split(r"\.?\s*conference\s*:|<", text.lower())[0]
    names = []
    for part in re.split(r"[=/;\[\]]", text):
        for name in (part, re.split(r"[:(.]", part)[0]):
            words = tuple(w for w in re.findall(r"[a-z]+", name) if w not in _VENUE_STOPWORDS)
            if words and words not in names:
                names.append(words)
    return tuple(names)


_MEETING = re.compile(r"conference|proceedings|\bproc\b|symposium|workshop|meeting|congress",
                      re.IGNORECASE)
_VENUE_STOPWORDS = frozenset({
    "of", "the", "and", "for", "a", "an", "in", "on", "de", "la", "le", "des", "du", "und",
    "fur", "y", "et", "der", "die", "das", "proceedings", "proc", "acm", "ieee",
    "electronic", "resource"
})
_CORRECTION = re.compile(r"^(erratum|correction|corrigendum)( to)?\s*[:.]?\s*", re.IGNORECASE)
"""An erratum is folded into the work it corrects: it adds no evidence of its own."""
_TRAILING_NOTE = re.compile(
    r"\s*(\[[^\[\]]*\]|\((?:multiple letters|review|letter|abstract|vol \d+[^()]*)\)"
    r"|\bLA:.*|<original>.*)\.?$",
    re.IGNORECASE)


def venues_agree(a: tuple[tuple[str, ...], ...], b: tuple[tuple[str, ...], ...]) -> bool:
    """Whether two venues can be the same ('N Engl J Med', 'New England Journal of Medicine');
    an unknown venue agrees with anything."""
    if not a or not b:
        return True
    return any(_names_agree(x, y) for x in a for y in b)


def _names_agree(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    if a == b:
        return True
    short, long_ = sorted((a, b), key=lambda words: (len(" ".join(words)), words))
    if len(short) == 1 and len(long_) >= 2 and _acronym(short[0], long_):
        return True
    if len(short) >= 4 and long_[-len(short):] == short:
        return True
    matched = _abbreviation_prefix(short, long_)
    if matched is not None and (matched == len(long_) or len(short) >= 2):
        return True
    return fuzz.ratio(" ".join(a), " ".join(b)) >= 90


def _abbreviation_prefix(short: tuple[str, ...], long_: tuple[str, ...]) -> int | None:
    """How many words of ``long_`` the words of ``short`` abbreviate, in order, from the start
    (a short word may abbreviate two long ones: 'cardiothorac', 'cardio thoracic'); None if not."""
    position = 0
    for word in short:
        if position < len(long_) and _abbreviates(word, long_[position]):
            position += 1
        elif (position + 1 < len(long_)
              and _abbreviates(word, "".join(long_[position:position + 2]))):
            position += 2
        else:
            return None
    return position


def _acronym(acronym: str, words: tuple[str, ...]) -> bool:
    """'amcis' is made of prefixes of 'americas conference information systems', in order."""
    if not words or not acronym:
        return not words and not acronym
    head = words[0]
    return any(acronym[:n] == head[:n] and _acronym(acronym[n:], words[1:])
               for n in range(1, min(len(acronym), len(head)) + 1))


def _abbreviates(word: str, full: str) -> bool:
    """'natl' abbreviates 'national': same first letter, letters in order."""
    if word[0] != full[0] or len(word) > len(full):
        return False
    position = 0
    for letter in word:
        position = full.find(letter, position) + 1
        if position == 0:
            return False
    return True


def _name_tokens(author: str) -> frozenset[str]:
    """The words of an author's name that are not initials ('Le, Quintrec M.' -> le, quintrec)."""
    text = unicodedata.normalize("NFKD", html.unescape(author)).encode("ascii", "ignore").decode()
    return frozenset(w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2)


def _keys(work: Work) -> _Keys:
    identifiers = dict(work.identifiers())
    arxiv_from_doi = (work.doi or "").removeprefix("10.48550/arxiv.")
    if work.doi and arxiv_from_doi != work.doi and "arxiv" not in identifiers:
        identifiers["arxiv"] = arxiv_from_doi
    if work.kind in ("web", "news", "material") and work.url:
        identifiers["url"] = re.sub(r"^https?://(www\.)?|/+$|#.*$", "", work.url.lower())
    return _Keys(
        identifiers=identifiers,
        title=normalize_title(work.title),
        year=work.year,
        author=author_key(work.authors[0]) if work.authors else None,
        author_names=_name_tokens(work.authors[0]) if work.authors else frozenset(),
        all_authors=frozenset(filter(None, map(author_key, work.authors))),
        venue=venue_names(work.venue) if work.kind in ("article", "other") else (),
        meeting=bool(_MEETING.search(work.venue or "")),
        preprint=work.kind == "preprint" or (work.venue or "").lower() == "arxiv"
        or _is_preprint_doi(work.doi),
        sources=frozenset(work.sources),
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
    if not (a.meeting and b.meeting) and not venues_agree(a.venue, b.venue):
        return None
    similarity = fuzz.ratio(a.title, b.title) / 100
    if similarity < TITLE_SIMILARITY and not (
            _extends(a.title, b.title) and _first_authors_agree(a, b)):
        return None
    if _substituted_words(a.title, b.title):
        return None
    return f"title similarity {similarity:.3f}, year {a.year}/{b.year}, first author {a.author}"


def _extends(a: str, b: str) -> bool:
    """Whether one title is the other with words before or after it (a subtitle, a note, a
    truncation undone) or in another order: only for titles long enough that their words alone
    identify the work."""
    short, long_ = sorted((a.split(), b.split()), key=len)
    if len(short) < MIN_EXTENDED_WORDS:
        return False
    return (long_[:len(short)] == short or long_[-len(short):] == short
            or set(short) == set(long_))


def _substituted_words(a: str, b: str) -> bool:
    """Whether the titles differ by a changed word or number, not by a typo, an addition or a
    split word ('p16ink4a' / 'p16 ink4a').

    'FOCUS 1' / 'FOCUS 2', 'Phase II' / 'Phase III', 'in Pediatric Patients' / 'in Adult
    Patients' are near-identical strings naming different trials.
    """
    only_a = set(a.split()) - set(b.split()) - _TITLE_STOPWORDS
    only_b = set(b.split()) - set(a.split()) - _TITLE_STOPWORDS
    for word in sorted(only_a):
        twin = next((w for w in sorted(only_b) if _typo(word, w)), None)
        if twin:
            only_a.discard(word)
            only_b.discard(twin)
    if not (only_a and only_b):
        return False
    joined_a = "".join(w for w in a.split() if w in only_a)
    joined_b = "".join(w for w in b.split() if w in only_b)
    return fuzz.ratio(joined_a, joined_b) < 80


def _typo(a: str, b: str) -> bool:
    """'haemolytic'/'hemolytic', 'kbms'/'kdms', 'tpc'/'tcp'; not 'ii'/'iii' nor '1'/'2'."""
    if min(len(a), len(b)) >= 4 and fuzz.ratio(a, b) >= 80:
        return True
    return (min(len(a), len(b)) >= 3 and a.isalpha() and b.isalpha()
            and not _ROMAN.fullmatch(a) and not _ROMAN.fullmatch(b) and OSA.distance(a, b) <= 1)


_ROMAN = re.compile(r"[ivxlc]+")
_TITLE_STOPWORDS = frozenset({
    "a", "an", "the", "of", "in", "on", "at", "for", "and", "or", "to", "with", "by",
    "from", "as", "is", "are"
})


def _years_agree(a: _Keys, b: _Keys) -> bool:
    if a.year is None or b.year is None:
        return False
    if a.year == b.year:
        return True
    return abs(a.year - b.year) == 1 and (a.preprint or b.preprint)


def _authors_agree(a: _Keys, b: _Keys) -> bool:
    """The first authors agree, or one source listed the authors in another order."""
    return _first_authors_agree(a, b) or bool(
        a.author and b.author and (_among(a.author, b.all_authors)
                                   or _among(b.author, a.all_authors)))


def _among(name: str, names: frozenset[str]) -> bool:
    return name in names or process.extractOne(name, names, scorer=fuzz.ratio,
                                               score_cutoff=85) is not None


def _first_authors_agree(a: _Keys, b: _Keys) -> bool:
    """Same family name, give or take a typo or a particle ('Le Quintrec', 'Quintrec')."""
    if a.author is None or b.author is None:
        return False
    return (a.author == b.author or fuzz.ratio(a.author, b.author) >= 85
            or a.author in b.author_names or b.author in a.author_names)


class _UnionFind:
    """Groups of record indices, refusing a union that would join conflicting identifiers."""

    def __init__(self, keys: list[_Keys]) -> None:
        self.parent = list(range(len(keys)))
        self.identifiers: list[dict[str, set[str]]] = [
            {kind: {value} for kind, value in key.identifiers.items()} for key in keys
        ]
        self.versions = [{(source, key.preprint) for source in key.sources} for key in keys]
        """(source, is preprint) of each group's records: a source lists a work once per
        version, so a fuzzy match never joins two records of one source (identifiers may)."""
        self.links: dict[int, tuple[str, str]] = {}
        """For each record joined to another, the rule and detail of its first successful link."""

    def find(self, index: int) -> int:
        while self.parent[index] != index:
            self.parent[index] = self.parent[self.parent[index]]
            index = self.parent[index]
        return index

    def union(self, i: int, j: int, rule: str, detail: str, by_identifier: bool = True) -> None:
        root_i, root_j = self.find(i), self.find(j)
        if root_i == root_j or self._conflict(root_i, root_j):
            return
        if not by_identifier and self.versions[root_i] & self.versions[root_j]:
            return
        keep, drop = min(root_i, root_j), max(root_i, root_j)
        self.parent[drop] = keep
        self.versions[keep] |= self.versions[drop]
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
    ordered = sorted(members.values(), key=lambda indices: indices[0])
    for indices in ordered:
        first, *rest = indices
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
                       merges=merges, groups=ordered)

