"""The pairwise rules of deduplication: whether two records are one work (rules 1 to 3 of
:mod:`scholargraph.dedup`).

- :func:`contradicts`: the guard on rule 1, a shared identifier that title, first author and
  year all deny;
- :func:`fuzzy_match`: rule 2, near-identical titles with agreeing year, authors and venue;
- :func:`place_match`: rule 3, the same journal, volume and page range;
- :func:`compare_places`, :func:`same_title`, :func:`years_agree`,
  :func:`first_authors_agree`: the tests these rules, the groups and the attachment step share.
"""

from __future__ import annotations

import re
from itertools import product
from typing import Literal

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from scholargraph.dedup.keys import Keys, names_agree, venues_agree
from scholargraph.dedup.titles import MIN_EXTENDED_WORDS

TITLE_SIMILARITY = 0.93
"""rapidfuzz ratio (0-1) of normalised titles above which the fuzzy rule considers a pair."""
MIN_TITLE_CHARS = 12
"""Shorter normalised titles ("editorial", "reply") say too little to merge on."""
MIN_SHARED_AUTHORS = 2
"""Records whose first authors differ (a mangled or reordered list) still agree on authorship
when they share this many author family names."""
PLACE_TITLE_WORDS = 0.6
"""rapidfuzz token-set ratio (0-1) the titles of two records at the same volume and page range
must reach for the 'volume_pages' rule: two translations of one title share most words, while
two abstracts filed under a whole supplement's page range need not."""
CONTRADICTING_TITLE_WORDS = 0.5
"""Below this rapidfuzz token-set ratio (0-1), titles name different works: with another first
author and another year too, a shared identifier is a data error, not a duplicate."""
PREPRINT_YEARS = 2
"""A preprint and its published paper may be this many years apart (posted, reviewed, revised,
printed)."""
Place = Literal["same", "conflict", "unknown"]


def contradicts(a: Keys, b: Keys) -> bool:
    """Whether two records sharing an identifier differ in title, first author and year alike:
    then one of them carries a wrong identifier (a DOI pasted into the wrong record, a journal's
    DOI prefix cut short), and merging them would lose a paper."""
    if a.year is None or b.year is None or a.year == b.year:
        return False
    if a.author is None or b.author is None or first_authors_agree(a, b):
        return False
    return titles_disagree(a, b)


def versions_disagree(a: Keys, b: Keys) -> bool:
    """Whether a record naming ``b``'s identifier as another version of itself (OpenAlex's
    locations, a JMIR preprint's DOI) is contradicted: titles that share too few words and
    first authors that differ. A preprint retitled on publication keeps its first author; an
    address pointing at the wrong work keeps neither."""
    return titles_disagree(a, b) and not first_authors_agree(a, b)


def titles_disagree(a: Keys, b: Keys) -> bool:
    """Whether two titles long enough to judge overlap less than ``CONTRADICTING_TITLE_WORDS``."""
    if min(len(a.title), len(b.title)) < MIN_TITLE_CHARS:
        return False
    return title_overlap(a, b) < CONTRADICTING_TITLE_WORDS


def title_overlap(a: Keys, b: Keys) -> float:
    """The best word-set overlap (0-1) between any title variant of ``a`` and of ``b``."""
    return max(fuzz.token_set_ratio(x, y) for x, y in product(a.titles, b.titles)) / 100


def fuzzy_match(a: Keys, b: Keys) -> str | None:
    """Why ``a`` and ``b`` are the same work by the fuzzy rule, or None when they are not."""
    if a.notice != b.notice:
        return None
    place = compare_places(a, b)
    same_place = place == "same"
    if place == "conflict" or not (years_agree(a, b) or (same_place and _missing(
            a.year, b.year))):
        return None
    if (a.column or b.column) and not one_issue_item(a, b, place):
        return None
    if not (_authors_agree(a, b) or (same_place and (
            a.corporate or b.corporate or _missing(a.author, b.author)))):
        return None
    posted = preprint_and_article(a, b)
    if not (same_place or (a.meeting and b.meeting) or venues_agree(a.venue, b.venue)
            or posted):
        return None
    similarity, title_a, title_b = _closest_titles(a, b)
    if posted and not venues_agree(a.venue, b.venue) and (
            similarity < TITLE_SIMILARITY or not first_authors_agree(a, b)):
        return None  # another venue: only the same title under the same first author
    if similarity < TITLE_SIMILARITY and not (
            _extends(title_a, title_b, 1 if same_place else MIN_EXTENDED_WORDS)
            and (same_place or first_authors_agree(a, b))):
        return None
    if _substituted_words(title_a, title_b) or _other_part(title_a, title_b):
        return None
    evidence = ", same volume and first page" if same_place else ""
    return (f"title similarity {similarity:.3f}, year {a.year}/{b.year}, "
            f"first author {a.author}{evidence}")


def preprint_and_article(a: Keys, b: Keys) -> bool:
    """Whether one record is a preprint (arXiv, medRxiv, bioRxiv, SSRN... by its source, DOI
    or venue) and the other a published record dated no earlier: a preprint server is not the
    journal that later prints the paper, so their venues cannot agree, and the fuzzy rule
    waives them for such a pair when the title is the same (no extension) and so is the first
    author (:func:`fuzzy_match`; the years as :func:`years_agree` allows). A scientist's export
    holds both ('Wastewater surveillance ...', medRxiv 2021 and Water Research 2022) and a
    review counted them as two works, the preprint's findings beside the article's. A
    "preprint" dated after the article is no preprint of it. Over the labelled sets of
    ``bench/dedup.py`` precision is unchanged (haematology 1.0000, cytology 1.0000,
    respiratory 0.9980, DBLP-ACM 1.0000)."""
    if a.preprint == b.preprint or a.year is None or b.year is None:
        return False
    posted, printed = (a.year, b.year) if a.preprint else (b.year, a.year)
    return posted <= printed


def place_match(a: Keys, b: Keys) -> str | None:
    """Why ``a`` and ``b`` are the same article by journal, volume and page range although their
    titles differ (a translation, a corrected title), or None."""
    if a.notice != b.notice or a.volume is None or a.volume != b.volume:
        return None
    if a.pages is None or a.pages != b.pages or not a.pages.last:
        return None
    if a.pages.last <= a.pages.first or a.year is None or a.year != b.year:
        return None
    if not (a.venue and b.venue and venues_agree(a.venue, b.venue)):
        return None
    if not first_authors_agree(a, b):
        return None
    if (a.column or b.column) and not one_issue_item(a, b, "same"):
        return None
    overlap = title_overlap(a, b)
    if overlap < PLACE_TITLE_WORDS:
        return None
    return (f"volume {a.volume}, pages {a.pages.first}-{a.pages.last}, year {a.year}, "
            f"first author {a.author}, title words {overlap:.2f}")


def same_title(a: Keys, b: Keys) -> float | None:
    """The title similarity when the titles name one work (near-identical, no changed word)."""
    if min(len(a.title), len(b.title)) < MIN_TITLE_CHARS:
        return None
    similarity, title_a, title_b = _closest_titles(a, b)
    if similarity < TITLE_SIMILARITY or _substituted_words(title_a, title_b) or _other_part(
            title_a, title_b):
        return None
    return similarity


def one_issue_item(a: Keys, b: Keys, place: Place) -> bool:
    """Whether two records of a recurring column ('Editor's Comments', 'From the Editor') can
    be the column of one issue: the title, the editor and the year are the same in every issue
    of a volume, so only the place tells them apart.

    Two issues given are compared: the same volume and issue is one column. Otherwise the same
    volume and first page decide (front matter is paged in roman numerals that start again in
    each issue, so it seldom has one). Without a place, only records of two different sources
    may match: a source lists each issue's column, so a record matching two columns of one
    source is ambiguous and joins neither (:func:`~scholargraph.dedup._unambiguous`),
    while records of unknown sources (a bibliography export) could be any two issues.
    """
    if a.issue and b.issue:
        if a.issue != b.issue:
            return False
        if a.volume and a.volume == b.volume:
            return True
    if place == "same":
        return True
    return bool(a.sources and b.sources and a.sources.isdisjoint(b.sources))


def compare_places(a: Keys, b: Keys) -> Place:
    """Whether two records are printed at the same place ('same': one volume, one first page),
    at places that exclude each other ('conflict'), or cannot tell ('unknown').

    Pages are compared only within one volume: an online-first record numbers its pages 1-17
    before the issue gives it 566-582. A page with a letter prefix may be an electronic locator
    (BMJ 'c1804', PLoS 'e43268') given instead of the printed page, so only pages written alike
    can conflict. Nor do two single pages of a record labelled a meeting abstract: one database
    gives the abstract's page in the supplement, another its number.
    """
    if a.volume and b.volume and a.volume != b.volume:
        return "conflict"
    if not (a.volume and a.volume == b.volume and a.pages and b.pages):
        return "unknown"
    if a.pages.first == b.pages.first:
        return "same"
    if a.pages.prefix != b.pages.prefix:
        return "unknown"
    a_last, b_last = a.pages.last or a.pages.first, b.pages.last or b.pages.first
    disjoint = a_last < b.pages.first or b_last < a.pages.first
    if (a.meeting_abstract or b.meeting_abstract) and a_last == a.pages.first and (
            b_last == b.pages.first):
        return "unknown"
    return "conflict" if disjoint else "unknown"


def has_page_range(key: Keys) -> bool:
    return bool(key.pages and key.pages.last and key.pages.last > key.pages.first)


def _closest_titles(a: Keys, b: Keys) -> tuple[float, str, str]:
    """The most similar pair of title variants, and their rapidfuzz ratio (0-1)."""
    best = (-1.0, a.title, b.title)
    for title_a, title_b in product(a.titles, b.titles):
        similarity = fuzz.ratio(title_a, title_b) / 100
        if similarity > best[0]:
            best = (similarity, title_a, title_b)
    return best


def _extends(a: str, b: str, min_words: int = MIN_EXTENDED_WORDS) -> bool:
    """Whether one title is the other with words before or after it (a subtitle, a note, a
    truncation undone) or in another order: only for titles long enough that their words alone
    identify the work."""
    short, long_ = sorted((a.split(), b.split()), key=len)
    if len(short) < min_words or len(" ".join(short)) < MIN_TITLE_CHARS:
        return False
    return (long_[:len(short)] == short or long_[-len(short):] == short
            or set(short) == set(long_))


def _substituted_words(a: str, b: str) -> bool:
    """Whether the titles differ by a changed word or number, not by a typo, an addition or a
    split word ('p16ink4a' / 'p16 ink4a').

    'FOCUS 1' / 'FOCUS 2', 'Phase II' / 'Phase III', 'in Pediatric Patients' / 'in Adult
    Patients' are near-identical strings naming different trials. A one-letter word facing
    another is a letter, not the article 'a': 'Hepatitis A' / 'Hepatitis B'.
    """
    if a.replace(" ", "") == b.replace(" ", ""):
        return False  # 'sql 3' / 'sql3', 'market places' / 'marketplaces'
    only_a, only_b = set(a.split()) - set(b.split()), set(b.split()) - set(a.split())
    if any(len(w) == 1 for w in only_a) and any(len(w) == 1 for w in only_b):
        return True
    only_a -= _TITLE_STOPWORDS
    only_b -= _TITLE_STOPWORDS
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


def _other_part(a: str, b: str) -> bool:
    """Whether the titles name different parts of a series: 'X' and 'X: Part 2' (a
    subtitle the fuzzy rule would otherwise accept as a note), 'X, part 1' and 'X, part 2'.
    A series' parts share their title, authors, journal and often their year."""
    return set(_PART.findall(a)) != set(_PART.findall(b))


_PART = re.compile(r"\bpart (\d+)\b")
"""'part 2' in a normalised title (roman numerals read as numbers; 'part of' is no part)."""


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


def years_agree(a: Keys, b: Keys) -> bool:
    """The same year; up to ``PREPRINT_YEARS`` apart for a preprint its source calls one and
    a paper (review and publication take time); a year apart for a preprint known by its
    server's DOI alone, for two preprints, for records of one journal volume (online and print
    dates), or for an article online ahead of print (no volume yet) and its printed record a
    year later. Only later: a record without volume dated after the printed one is no online
    version of it, but the next year's column under the same title ('Gateways to clinical
    trials') or a meeting abstract the database gave no volume. Emptying the volume and pages of
    half the records of the labelled sets of ``bench/dedup.py``, the false merges went from 6 to
    2 in haematology (cytology 2 and respiratory 0 unchanged), recall unchanged; adding a year
    to half the records instead cost 2 of 510 respiratory pairs (recall 0.9745 to 0.9705).

    A bibliography that lists a working paper like a journal item ('SSRN Electronic
    Journal', 2016) beside the article (2018) treats them as two versions, each citable: the
    labelled sets keep such versions apart, and so the wider gap needs the source's word."""
    if a.year is None or b.year is None:
        return False
    if a.year == b.year:
        return True
    gap = abs(a.year - b.year)
    if (a.posted or b.posted) and a.preprint != b.preprint:
        return gap <= PREPRINT_YEARS
    one_volume = a.volume is not None and a.volume == b.volume
    ahead_of_print = ((a.volume is None and b.volume is not None and a.year < b.year)
                      or (b.volume is None and a.volume is not None and b.year < a.year))
    return gap == 1 and (a.preprint or b.preprint or one_volume or ahead_of_print)


def _missing(a: object, b: object) -> bool:
    """Whether a record leaves out a field (year, authors).

    Exports drop fields: an in-press or yearless item, an anonymous editorial ('Anonymous',
    '[No authors listed]'), a record cut short by a database's length limit. An unknown value
    cannot agree, so it is accepted only where the journal's volume and first page already say
    which printed item both records are (:func:`fuzzy_match`): within one volume, a
    near-identical title at one first page is one item whatever year or author list a record
    omits. Without that place, a yearless record could be any year of a recurring report and
    an authorless one any trial of the title. In the labelled sets of ``bench/dedup.py``,
    emptying the year of one record of each duplicate pair the rules join joined 8 of 144
    haematology and 0 of 907 cytology pairs before this rule, 125 and 838 with it (emptying
    the authors: 8 and 6 before, 125 and 838 with it); the rest give no shared first page.
    Emptying the year in a random 30% of the records of the haematology, cytology and
    respiratory sets, recall went from 0.48, 0.46, 0.41 to 0.88, 0.97, 0.93 (the authors:
    0.48, 0.46, 0.41 to the same), with no false merge."""
    return a is None or b is None


def _authors_agree(a: Keys, b: Keys) -> bool:
    """The first authors agree, one source listed the authors in another order, or the lists
    share ``MIN_SHARED_AUTHORS`` names (a first author mangled: 'Xi, L F' / 'Long, F X')."""
    if first_authors_agree(a, b):
        return True
    if not (a.author and b.author):
        return False
    return (_among(a.author, b.all_authors) or _among(b.author, a.all_authors)
            or len(a.all_authors & b.all_authors) >= MIN_SHARED_AUTHORS)


def _among(name: str, names: frozenset[str]) -> bool:
    if name in names or process.extractOne(name, names, scorer=fuzz.ratio,
                                           score_cutoff=85) is not None:
        return True
    return any(names_agree(name, other) for other in names if "?" in name or "?" in other)


def first_authors_agree(a: Keys, b: Keys) -> bool:
    """Same family name, give or take a typo, a particle ('Le Quintrec', 'Quintrec') or a letter
    the database could not encode."""
    if a.author is None or b.author is None:
        return False
    return (names_agree(a.author, b.author)
            or a.author in b.author_names or b.author in a.author_names
            or any(names_agree(a.author, name) for name in b.author_names if "?" in a.author)
            or any(names_agree(b.author, name) for name in a.author_names if "?" in b.author))
