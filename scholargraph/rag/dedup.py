"""Deduplication across sources: one work per paper, every identifier and source kept.

The same paper reaches a review several times: PubMed and OpenAlex describe the published
article, arXiv the preprint, the web a landing page. A duplicate counts the same evidence twice;
a false merge silently loses a paper. So the rules go from certain to probable, and each one
refuses a merge that a stronger signal contradicts:

1. **identifiers** (rules 'doi', 'pmid', 'pmcid', 'arxiv', 'openalex', 'url'): records sharing a
   DOI, PMID, PMCID, arXiv id or OpenAlex id (or, for web pages and materials, a URL) are one
   work; identifiers are normalised by :mod:`scholargraph.identifiers` when a ``Work`` is built;
2. **fuzzy title** (rule 'fuzzy_title', rapidfuzz): normalised titles near-identical (database
   notes such as '[Review]', '[Spanish]', '(Tutorial)', '[corrected]' or ', Guest Editors'
   Foreword' dropped; a long title may carry a subtitle the other lacks; a title given in two
   languages matches on either), the same year (a preprint, or an article online ahead of
   print, may be a year older), the same first author (or two shared co-authors; a '?' the
   database wrote for a letter it could not encode matches that letter), and venues that can
   be the same journal ('N Engl J Med' / 'New England Journal of Medicine').
   Where both records give the same volume and first page, that place in the journal stands in
   for a venue written another way (a translated or section name: 'Zhonghua Yi Xue Za Zhi' /
   'National Medical Journal of China', 'Cancer Cytopathology' / 'Cancer'), for a collaborative
   group listed as author by one database only, and for a year recorded one off;
3. **volume and pages** (rule 'volume_pages'): a multi-page article is identified by its
   journal, volume and page range, so records agreeing on all of them, on the year and on the
   first author are one work even when the titles differ (a translated title, a title corrected
   by the publisher), provided the titles share most of their words;
4. **attached items** (rules 'erratum', 'reply', 'meeting_abstract'): a record that is not an
   independent study but belongs with one is attached to that work, keeping its sources, its
   rule in ``Work.merged_by`` and its own identifiers in its :class:`Merge`; none of its fields
   fill the work's. Labels are stripped to the title of the work concerned ('Erratum: X',
   'Correction to X', 'X (vol 360, pg 542, 2009)', 'X - Reply', 'Reply to X', 'Re: X', 'X
   [Erratum appears in ...]' all give X), and each rule asks for more than the title, in a
   journal that can be the work's:
   - 'erratum': the work's own record names where its erratum is printed (MEDLINE's
     '[Erratum appears in N Engl J Med. 2009;360(23):2487]', PubMed's 'Erratum in') and a
     record under the title is there (volume, and first page or issue);
   - 'reply': one record of the correspondence covers the letter and the reply (Embase's
     '(multiple letters)': its pages include the reply's page, its authors the reply's);
   - 'meeting_abstract': a one-page item earlier in the same volume (the journal's meeting
     supplement) under the paper's title, naming its first author and two of its authors.
   An item whose links point to two works, or a group holding a paper of its own (a page
   range), is not attached; the identifier veto does not apply (a notice has its own PMID);
5. **versions of a Cochrane review** (rule 'review_version'): the Cochrane Database of Systematic
   Reviews publishes each update of a review under the review's number with a version suffix
   (10.1002/14651858.CD002273, .pub2, .pub3...), each with its own DOI and PMID. For a
   literature review they are one review updated, and the newest version is the one to cite:
   the other versions are attached to it like the items of rule 4 (sources and rule kept, their
   identifiers in their :class:`Merge`, none of their fields fill the newest one's). The review
   number comes from the DOI (only that prefix: other publishers' version suffixes are not
   read) or, in a record of the Cochrane Database without one, from its article number
   ('CD002273'). The newest is the highest version number (no suffix: version 1) or, for
   records without a DOI, the latest year; versions whose order cannot be told, or whose DOI
   and year disagree on it, or records with neither title words nor first author in common (a
   DOI pasted into the wrong record) are not joined.

Precision guards, each learnt from a false merge in the labelled sets of ``bench/dedup.py``:
- a shared identifier is not trusted when title, first author and year all say otherwise (a
  DOI pasted into the wrong record);
- different identifiers of a kind a work has only one of (two PMIDs, two non-preprint DOIs)
  veto a merge, whatever the titles say (the versions of a Cochrane review, rule 5, aside);
- two volumes, or in one volume two page ranges that do not overlap, are two publications
  (a paper and its erratum printed under the same title, a letter and the article it
  discusses), unless rule 4 attaches one to the other; two single pages of a record labelled a
  meeting abstract do not conflict (one database gives the page, another the abstract number);
- a notice about a work (erratum, correction, retraction, reply, comment) never merges with the
  work by the title rules, only with another record of the same notice, and is attached to the
  work only by the evidence of rule 4. A notice the evidence does not place stays apart (the
  labelled sets disagree on errata: DBLP-ACM keeps a labelled erratum by the paper's authors
  apart, the haematology set joins some errata and keeps others apart), and so do retractions
  and comments, which a review must see;
- a changed word or number in a near-identical title ('FOCUS 1' / 'FOCUS 2', 'Pediatric' /
  'Adult') is another work, a typo is not;
- the same title in two journals is two publications (guidelines printed twice, a conference
  abstract and its paper) unless the volume and pages say it is one printed article;
- one source lists a work once (per version): two records of one source are joined only by a
  shared identifier, and a record that matches two records of one source (a recurring column
  such as 'Book review column') is ambiguous and joins neither.

Groups are found with a union-find, then folded with :meth:`Work.merge` (attached items with
:func:`_with_notice`) into their first record that is not an attached item; each rule is recorded.
An attached erratum, reply or meeting abstract is also named in the work's ``notices`` ('Erratum:
DOI 10.1056/nejmx090022, PMID 19494218'), so that the review's outputs show it.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import combinations, product
from typing import Literal

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
MAX_BLOCK = 300
"""A blocking key shared by more records than this is too common to compare pairwise."""
PREPRINT_DOI_PREFIXES = ("10.48550/", "10.1101/", "10.21203/", "10.20944/", "10.2139/",
                         "10.31219/", "10.31234/", "10.26434/", "10.36227/")
"""arXiv, bioRxiv/medRxiv, Research Square, Preprints.org, SSRN, OSF, PsyArXiv, ChemRxiv,
TechRxiv: a work may have one of these besides its published DOI."""
SINGLE_VALUED = ("pmid", "pmcid", "arxiv", "doi")
"""Identifier kinds a work has at most one of (preprint DOIs aside): two values veto a merge."""
COCHRANE_DOI = re.compile(r"10\.1002/14651858\.(cd\d+)(?:\.pub(\d+))?(?![\w.])", re.IGNORECASE)
"""A Cochrane Database of Systematic Reviews DOI: the review's number and its version suffix
('10.1002/14651858.CD002273.pub3'; without a suffix, the first version)."""
COCHRANE_ARTICLE = re.compile(r"\s*(cd\d{6})\s*", re.IGNORECASE)
"""A Cochrane review's article number as databases give it in the pages field ('CD002273')."""
NOTICE_LABELS = {"erratum": "Erratum", "reply": "Reply", "meeting_abstract": "Meeting abstract"}
"""How ``Work.notices`` names the kind of an attached item, by the rule that attached it."""
IDENTIFIER_LABELS = {"doi": "DOI", "pmid": "PMID", "pmcid": "PMCID", "arxiv": "arXiv",
                     "openalex": "OpenAlex"}
"""How ``Work.notices`` names an attached item's identifiers ('PMID 19494218')."""


class Merge(Record):
    """One record folded into another, and why."""

    rule: str = Field(description="'doi', 'pmid', 'pmcid', 'arxiv', 'openalex', 'url', "
                      "'fuzzy_title', 'volume_pages', or, for a record attached to the work it "
                      "concerns, 'erratum', 'reply', 'meeting_abstract' or 'review_version' "
                      "(an earlier version of a Cochrane review)")
    work_id: str = Field(description="Id of the merged work, as it is after deduplication")
    kept_id: str = Field(description="Id of the record folded into (the group's first record "
                         "that is not attached to it as a notice or an earlier version)")
    merged_id: str = Field(description="Id of the record folded in")
    detail: str = Field("", description="The shared identifier, or the evidence")
    identifiers: list[str] = Field(
        default_factory=list,
        description="Every identifier of the record folded in ('pmid:19234567'): an attached "
        "notice keeps its own PMID and DOI here, since the work does not take them")


@dataclass
class DedupResult:
    """Works after deduplication, in order of first appearance, and the merges that made them."""

    works: list[Work]
    duplicates_removed: int
    merges: list[Merge] = field(default_factory=list)
    groups: list[list[int]] = field(default_factory=list)
    """For each merged work, the indices of the input records folded into it."""


@dataclass(frozen=True)
class Pages:
    """Where an item is printed: ``prefix`` letters ('e', 'S', 'c'), first and last page."""

    prefix: str
    first: int
    last: int | None


@dataclass(frozen=True)
class CitedPlace:
    """Where a record's note says a related item is printed: '360(23):2487'."""

    volume: str
    issue: str | None
    page: int | None


@dataclass(frozen=True)
class ReviewVersion:
    """Which Cochrane review a record is ('cd002273') and which version of it: the DOI's
    '.pubN' (1 without a suffix), or None when only the article number says which review."""

    number: str
    version: int | None


Place = Literal["same", "conflict", "unknown"]


@dataclass
class _Keys:
    """What the rules compare, computed once per record."""

    identifiers: dict[str, str]
    title: str
    titles: tuple[str, ...]
    year: int | None
    author: str | None
    author_names: frozenset[str]
    all_authors: frozenset[str]
    corporate: bool
    venue: tuple[tuple[str, ...], ...]
    meeting: bool
    preprint: bool
    sources: frozenset[str]
    volume: str | None
    issue: str | None
    pages: Pages | None
    notice: str | None
    meeting_abstract: bool
    errata: tuple[CitedPlace, ...]
    review: ReviewVersion | None


def deduplicate(works: list[Work]) -> DedupResult:
    """Merge the records of the same work; see the module docstring for the rules."""
    keys = [_keys(work) for work in works]
    groups = _UnionFind(keys)
    for rule, i, j, detail in _identifier_links(keys):
        groups.union(i, j, rule, detail)
    pairs = _candidate_pairs(keys)
    for rule, i, j, detail in _probable_links(keys, pairs):
        groups.union(i, j, rule, detail, by_identifier=False)
    _join_review_versions(groups, keys)
    _attach_notices(groups, _attachment_links(keys, pairs))
    return _fold(works, groups)


def normalize_title(title: str) -> str:
    """Lower case ASCII words only: accents, markup, database annotations and punctuation dropped.

    Bibliographic databases append notes to titles ('[Review] [16 refs]', '[Spanish]',
    '[Erratum appears in ...]'), mark a word the publisher corrected ('[corrected]'), bracket
    translated titles, and proceedings label a paper's format ('(Tutorial)', '(panel session)',
    '(Demo Abstract)'); none of that names the work. A notice's label ('Erratum: ', ' - Reply',
    'Re: ') goes too, leaving the title of the work it concerns: :func:`notice_kind` still tells
    the notice from the work.
    """
    return _words(_strip_notes(title))


def title_variants(title: str) -> tuple[str, ...]:
    """The normalised title and, for a title given in two languages, each language's part.

    Databases record a translated title beside the original: '[English] Original',
    'Original; English' or 'Original = English'. Each part long enough to identify a work
    (``MIN_EXTENDED_WORDS`` words) is a variant the fuzzy rule may match on.
    """
    text = _strip_notes(title)
    parts: list[str] = []
    if bracketed := re.fullmatch(r"\[([^\[\]]+)\]\.?\s*(.+)", text):
        parts.extend(bracketed.groups())
    parts.extend(re.split(r"\s*;\s+|\s+=\s+", text))
    variants = [_words(text)]
    variants += [words for words in map(_words, parts)
                 if len(words.split()) >= MIN_EXTENDED_WORDS]
    return tuple(dict.fromkeys(v for v in variants if v))


def _strip_notes(title: str) -> str:
    text = html.unescape(title).strip().strip("\"'“”")
    text = re.sub(r"<[^>]+>", " ", text)
    text = _FORMAT_LABEL.sub(" ", text)
    if (note := _DATABASE_NOTE.search(text)) and note.start() > 0:
        text = text[:note.start()].rstrip()
    while (note := _TRAILING_NOTE.search(text)) and note.start() > 0:
        text = text[:note.start()].rstrip()
    text = _CORRECTION.sub("", text).strip().rstrip(".")
    text = _REPLY_MARKER.sub("", text).strip().rstrip(".")
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return text


def _words(text: str) -> str:
    text = _ascii(text)
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _ascii(text: str) -> str:
    """ASCII letters only: accents decomposed away ('é' -> 'e'), and the letters Unicode does
    not decompose spelt as their ASCII transliteration ('ø' -> 'o', 'ß' -> 'ss', 'ł' -> 'l')."""
    text = unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED))
    return text.encode("ascii", "ignore").decode()


_UNDECOMPOSED = str.maketrans({
    "ø": "o", "Ø": "O", "æ": "ae", "Æ": "Ae", "œ": "oe", "Œ": "Oe", "ß": "ss", "ł": "l",
    "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th", "ı": "i",
})


def notice_kind(title: str) -> str | None:
    """'erratum', 'retraction', 'reply' or 'comment' when the title names a notice about a work.

    An erratum ('Erratum: X', 'Correction to X', Web of Science's 'X (vol 85, pg 553, 2010)'),
    a retraction notice, a reply ('X - Reply', 'Reply to X') or a comment ('Comment on X',
    'Re: X') carries the title of the work it is about but is a publication of its own, with
    its own PMID and DOI in every source the project asks.
    """
    text = html.unescape(title).strip().strip("\"'“”[")
    for kind, pattern in _NOTICES:
        if pattern.search(text):
            return kind
    return None


def cited_errata(title: str) -> tuple[CitedPlace, ...]:
    """Where the record's note says the work's errata are printed.

    MEDLINE appends '[Erratum appears in N Engl J Med. 2009 Jun 4;360(23):2487]' to the title
    of a corrected article (PubMed keeps the same link as 'Erratum in:'): the volume, issue and
    first page of the erratum, which :func:`deduplicate` looks for among the other records.
    """
    places = []
    for volume, issue, page in _ERRATUM_IN.findall(html.unescape(title)):
        places.append(CitedPlace(volume.lower(), _normalize_issue(issue), int(page)))
    return tuple(places)


def cochrane_review(work: Work) -> ReviewVersion | None:
    """Which Cochrane review ``work`` is, and which version of it.

    Cochrane publishes every update of a review under the review's number, each version with
    its own DOI ('10.1002/14651858.CD002273.pub3'; the first has no suffix), PMID and year.
    Bibliographic databases also give the review's number as its article number, in the pages
    field ('CD002273'): the same for every version, so a record of the Cochrane Database
    without a DOI says which review it is, not which version. Other DOIs are not read for
    versions: only this prefix is known to number one review's versions this way.
    """
    if work.doi:
        if match := COCHRANE_DOI.match(work.doi):
            return ReviewVersion(match.group(1).lower(), int(match.group(2) or 1))
        return None
    article = COCHRANE_ARTICLE.fullmatch(work.pages or "")
    if article and re.search(r"\bcochrane\b", work.venue or "", re.IGNORECASE):
        return ReviewVersion(article.group(1).lower(), None)
    return None


def author_key(author: str) -> str | None:
    """The family name of an author as sources spell it ('Zuna, R E', 'R. E. Zuna', 'Zuna RE').

    A '?' stands for a letter the database could not encode ('G?k' for 'Gök') and is kept, so
    that :func:`names_agree` can treat it as a wildcard.
    """
    text = _ascii(html.unescape(author)).strip()
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
    family = re.sub(r"[^a-z?]", "", family.lower())
    return family if re.search(r"[a-z]", family) else None


def names_agree(a: str, b: str) -> bool:
    """Whether two family-name keys are one name: equal, a typo apart ('Rosneblatt' /
    'Rosenblatt'), or equal once a '?' for an unencodable letter is read as one or two letters
    ('p?ss' / 'poess')."""
    if a == b or fuzz.ratio(a, b) >= 85:
        return True
    for pattern, name in ((a, b), (b, a)):
        if "?" in pattern and "?" not in name:
            regex = ".{1,2}".join(map(re.escape, pattern.split("?")))
            if re.fullmatch(regex, name):
                return True
    return False


def parse_pages(pages: str | None) -> Pages | None:
    """The first and last page of '23-35', '2243-5', 'c37-c42', 'S33-38', 'e43268', 'viii108';
    None for what is not a page ('01-Jun', a spreadsheet's reading of '1-6') or a range that
    ends before it starts."""
    match = _PAGES.match((pages or "").strip())
    if not match:
        return None
    prefix, first, last = match.group(1).lower(), match.group(2), match.group(3)
    if last and len(last) < len(first):
        last = first[:len(first) - len(last)] + last  # '2243-5' is 2243-2245
    first_page, last_page = int(first), int(last) if last else None
    if last_page is not None and last_page < first_page:
        return None  # '2297-2108': one of the two is mistyped, so neither can be trusted
    return Pages(prefix, first_page, last_page)


def _normalize_issue(issue: str | None) -> str | None:
    """The issue as written, without spaces or case ('Suppl1' from 'Suppl 1')."""
    return re.sub(r"\s+", "", issue or "").lower().strip(".") or None


def normalize_volume(volume: str | None) -> str | None:
    """The volume number ('31a' from '31A', '24' from '24 Suppl 3' or '35 ( Pt 1)')."""
    match = re.search(r"\d+[a-z]?\b", (volume or "").lower())
    return match.group() if match else None


def venue_names(venue: str | None) -> tuple[tuple[str, ...], ...]:
    """The names a venue string gives, each as lower-case words without stop words.

    Databases write one journal many ways: 'Zhonghua yi xue za zhi = Chinese medical journal',
    'Pneumologie (Stuttgart, Germany)', 'J Clin Oncol : official journal of ...', 'Gan to
    Kagaku Ryoho [Japanese Journal of Cancer & Chemotherapy]'. Each alternative is kept.
    """
    if not venue:
        return ()
    text = _ascii(html.unescape(venue))
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
_MEETING_ABSTRACT = re.compile(r"\bconference\s*:", re.IGNORECASE)
"""Embase's label for an abstract printed in a journal's meeting supplement ('Pediatric
Transplantation.Conference: 6th Congress of ...')."""
_VENUE_STOPWORDS = frozenset({
    "of", "the", "and", "for", "a", "an", "in", "on", "de", "la", "le", "des", "du", "und",
    "fur", "y", "et", "der", "die", "das", "d", "l", "proceedings", "proc", "acm", "ieee",
    "electronic", "resource"
})
"""Words an abbreviated journal name leaves out (ISO 4 drops articles, prepositions and
conjunctions; 'd', 'l' are the elided French and Italian ones: "d'Anesthesie")."""
_AUTHORS_REPLY = r"(?:the\s+)?authors?['’]?s?['’]?\s+reply"
_CORRECTION = re.compile(r"^(erratum|correction|corrigendum)( to)?\s*[:.]?\s*", re.IGNORECASE)
"""Stripped so that two records of one erratum compare their titles; :func:`notice_kind` keeps
an erratum apart from the work it corrects."""
_REPLY_MARKER = re.compile(
    rf"^(?:re|(?:in\s+)?reply|{_AUTHORS_REPLY}|comments?|commentary)\s*:\s*"
    rf"|^(?:(?:in\s+)?reply|{_AUTHORS_REPLY}|comments?|commentary)\s+(?:to|on)\s*:?\s+"
    rf"|\s*[-:\u2013\u2014]\s*(?:{_AUTHORS_REPLY}|reply)(?:\s+to\s.*)?\W*$"
    rf"|\s+{_AUTHORS_REPLY}\W*$|\s*\((?:{_AUTHORS_REPLY}|reply)\)$",
    re.IGNORECASE)
"""A reply's or a comment's label ('Reply to X', 'X - Reply', 'X: authors' reply', 'Re: X',
'Comment on X'), stripped to the title of the work it answers; :func:`notice_kind` keeps the
notice apart from that work, and the 'reply' rule attaches a reply to the letter it answers."""
_DATABASE_NOTE = re.compile(
    r"\s*\.?\s*\[(?:erratum|corrigendum|retraction|retracted|comment|update|summary for patients)"
    r"\b.*$", re.IGNORECASE | re.DOTALL)
"""MEDLINE's cross-reference notes ('[Erratum appears in ...]', '[Comment in ...]'), which may
nest brackets ('Note: Philipp, T [added]]') or be cut short; all of it from the first note on."""
_ERRATUM_IN = re.compile(
    r"erratum (?:appears )?in:?\s[^\[\];]*;\s*(\d+[a-z]?)\s*(?:\(([^()]*)\))?\s*:\s*[a-z]*(\d+)",
    re.IGNORECASE)
_CITATION = (r"\((?:[^()]|\([^()]*\d{4}\))*\d{4}\)\s*\d+[a-z]?\s*(?::\s*\d+\s*)?"
             r"\(\d+(?:\s*-\s*\d+)?\)\)")
"""Embase's citation of a corrected article: '(New England Journal of Medicine (2009) 360
(542-544))'."""
_TRAILING_NOTE = re.compile(
    r"\s*(\[[^\[\]]*\]|\((?:multiple letters|review|letter|abstract|vol \d+[^()]*)\)"
    rf"|{_CITATION}|\([^()]*(?:\([^()]*)?|\bLA:.*|<original>.*)\.?$",
    re.IGNORECASE)
"""Notes databases append to titles; the unclosed '(' is a note cut short by a length limit."""
_FORMAT_LABEL = re.compile(
    r"\[corrected\]|\((?:panel(?: session| abstract| summary)?|tutorial(?: session)?|keynote(?: talk)?"
    r"|invited talk|demo(?:nstration)?(?: abstract| description| paper)?|experience paper"
    r"|industrial paper|extended abstract|extended version|short version|abstract only"
    r"|poster(?: abstract)?)\)|^\s*(?:tutorial|panel|keynote)\s*:|^\s*tutorial on\s+(?=\w)"
    r"|(?<=[?.!:])\s+panel\s*$|^\s*(?:guest\s+)?(?:editors?['’]?s?['’]?\s+)?foreword\s*:"
    r"|(?<=\w)\s*[,:\-\u2013]\s+(?:guest\s+)?editors?['’]?s?['’]?\s+(?:foreword|introduction)\s*$",
    re.IGNORECASE)
"""Labels a proceedings, a journal or a database adds to a title: the format of the talk or
the editor's role ('Guest Editors' Foreword', 'Foreword: '), not the work."""
_NOTICES = (
    ("erratum", re.compile(
        r"^(?:errat(?:um|a)|corrigend(?:um|a))\b|^correction(?:\s+to\b|\s*[:.]|$)"
        rf"|\(vol\.? \d+,? (?:pg|p)\.? \d+|{_CITATION}\W*$", re.IGNORECASE)),
    ("retraction", re.compile(
        r"^(?:retraction(?: note| notice)?|retracted(?: article)?|notice of retraction)\s*[:.]",
        re.IGNORECASE)),
    ("reply", re.compile(
        r"^(?:in )?reply\b|\breply to\b|\b(?:authors?'?|author's) reply\b|\s[-:]\s*reply\W*$",
        re.IGNORECASE)),
    ("comment", re.compile(r"^comments? on\b|^commentary on\b|^re\s*:|\beditorial comment\W*$",
                           re.IGNORECASE)),
)
_PAGES = re.compile(r"([a-z]*)(\d+)[a-z]*(?:\s*[-\u2013\u2014]+\s*[a-z]*(\d+)[a-z]*)?(?=$|[\s;,.(])",
                    re.IGNORECASE)
_CORPORATE = re.compile(
    r"\b(?:group|study|trial|consortium|collaborat\w*|committee|investigators|association"
    r"|society|network|council|organi[sz]ation|working party|task force|inc|ltd|corp\w*"
    r"|pharmaceuticals?|foundation|institute|university)\b",
    re.IGNORECASE)
"""A collaborative or corporate author, which some databases list and others omit."""


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
    text = _ascii(html.unescape(author))
    return frozenset(w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2)


def _keys(work: Work) -> _Keys:
    identifiers = dict(work.identifiers())
    arxiv_from_doi = (work.doi or "").removeprefix("10.48550/arxiv.")
    if work.doi and arxiv_from_doi != work.doi and "arxiv" not in identifiers:
        identifiers["arxiv"] = arxiv_from_doi
    if work.kind in ("web", "news", "material") and work.url:
        identifiers["url"] = re.sub(r"^https?://(www\.)?|/+$|#.*$", "", work.url.lower())
    titles = title_variants(work.title) or ("",)
    return _Keys(
        identifiers=identifiers,
        title=titles[0],
        titles=titles,
        year=work.year,
        author=author_key(work.authors[0]) if work.authors else None,
        author_names=_name_tokens(work.authors[0]) if work.authors else frozenset(),
        all_authors=frozenset(filter(None, map(author_key, work.authors))),
        corporate=bool(work.authors) and bool(_CORPORATE.search(work.authors[0])),
        venue=venue_names(work.venue) if work.kind in ("article", "other") else (),
        meeting=bool(_MEETING.search(work.venue or "")),
        preprint=work.kind == "preprint" or (work.venue or "").lower() == "arxiv"
        or _is_preprint_doi(work.doi),
        sources=frozenset(work.sources),
        volume=normalize_volume(work.volume),
        issue=_normalize_issue(work.issue),
        pages=parse_pages(work.pages),
        notice=notice_kind(work.title),
        meeting_abstract=bool(_MEETING_ABSTRACT.search(work.venue or "")),
        errata=cited_errata(work.title),
        review=cochrane_review(work),
    )


def _is_preprint_doi(doi: str | None) -> bool:
    return bool(doi) and doi.startswith(PREPRINT_DOI_PREFIXES)


def _identifier_links(keys: list[_Keys]) -> Iterator[tuple[str, int, int, str]]:
    """(rule, earlier record, record, identifier) for records sharing an identifier, unless
    everything else the two records say contradicts it."""
    seen: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, key in enumerate(keys):
        for kind, value in key.identifiers.items():
            earlier = seen[(kind, value)]
            twin = next((i for i in earlier if not _contradicts(keys[i], key)), None)
            earlier.append(index)
            if twin is not None:
                yield kind, twin, index, f"{kind}:{value}"


def _contradicts(a: _Keys, b: _Keys) -> bool:
    """Whether two records sharing an identifier differ in title, first author and year alike:
    then one of them carries a wrong identifier (a DOI pasted into the wrong record, a journal's
    DOI prefix cut short), and merging them would lose a paper."""
    if a.year is None or b.year is None or a.year == b.year:
        return False
    if a.author is None or b.author is None or _first_authors_agree(a, b):
        return False
    if min(len(a.title), len(b.title)) < MIN_TITLE_CHARS:
        return False
    overlap = max(fuzz.token_set_ratio(x, y) for x, y in product(a.titles, b.titles)) / 100
    return overlap < CONTRADICTING_TITLE_WORDS


def _candidate_pairs(keys: list[_Keys]) -> list[tuple[int, int]]:
    """The pairs of records sharing a block (see :func:`_blocks`), each once, in order."""
    compared: dict[tuple[int, int], None] = {}
    for block in _blocks(keys):
        for pair in combinations(block, 2):
            compared.setdefault(pair)
    return list(compared)


def _probable_links(keys: list[_Keys], pairs: list[tuple[int, int]]
                    ) -> list[tuple[str, int, int, str]]:
    """(rule, record, record, evidence) for pairs the fuzzy-title or volume-pages rule joins,
    without the ambiguous ones."""
    links: list[tuple[str, int, int, str]] = []
    for i, j in pairs:
        if detail := _fuzzy_match(keys[i], keys[j]):
            links.append(("fuzzy_title", i, j, detail))
        elif detail := _place_match(keys[i], keys[j]):
            links.append(("volume_pages", i, j, detail))
    return _unambiguous(links, keys)


def _blocks(keys: list[_Keys]) -> Iterable[list[int]]:
    """Records that could be duplicates share a title prefix or suffix (of any of their title
    variants), author + year, or volume + first page."""
    blocks: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, key in enumerate(keys):
        if len(key.title) < MIN_TITLE_CHARS:
            continue
        for title in key.titles:
            blocks[("prefix", title[:20])].append(index)
            blocks[("suffix", title[-20:])].append(index)
        if key.author and key.year:
            blocks[("author", f"{key.author}|{key.year}")].append(index)
        if key.volume and key.pages:
            blocks[("place", f"{key.volume}|{key.pages.first}")].append(index)
    unique = (list(dict.fromkeys(block)) for block in blocks.values())
    return [block for block in unique if 1 < len(block) <= MAX_BLOCK]


def _fuzzy_match(a: _Keys, b: _Keys) -> str | None:
    """Why ``a`` and ``b`` are the same work by the fuzzy rule, or None when they are not."""
    if a.notice != b.notice:
        return None
    place = _place(a, b)
    if place == "conflict" or not _years_agree(a, b):
        return None
    same_place = place == "same"
    if not (_authors_agree(a, b) or (same_place and (a.corporate or b.corporate))):
        return None
    if not (same_place or (a.meeting and b.meeting) or venues_agree(a.venue, b.venue)):
        return None
    similarity, title_a, title_b = _closest_titles(a, b)
    if similarity < TITLE_SIMILARITY and not (
            _extends(title_a, title_b, 1 if same_place else MIN_EXTENDED_WORDS)
            and (same_place or _first_authors_agree(a, b))):
        return None
    if _substituted_words(title_a, title_b):
        return None
    evidence = ", same volume and first page" if same_place else ""
    return (f"title similarity {similarity:.3f}, year {a.year}/{b.year}, "
            f"first author {a.author}{evidence}")


def _place_match(a: _Keys, b: _Keys) -> str | None:
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
    if not _first_authors_agree(a, b):
        return None
    overlap = max(fuzz.token_set_ratio(x, y) for x, y in product(a.titles, b.titles)) / 100
    if overlap < PLACE_TITLE_WORDS:
        return None
    return (f"volume {a.volume}, pages {a.pages.first}-{a.pages.last}, year {a.year}, "
            f"first author {a.author}, title words {overlap:.2f}")


Attachment = tuple[str, int, int, str]
"""(rule, attached record, record of the work it concerns, evidence)."""


def _attachment_links(keys: list[_Keys], pairs: list[tuple[int, int]]) -> list[Attachment]:
    """Records that are not the work itself but belong with it: its erratum, a reply printed
    with the letter it answers, a one-page item under its title and authors in its volume."""
    links: list[Attachment] = []
    for i, j in pairs:
        for item, work in ((i, j), (j, i)):
            if found := _attachment(keys[item], keys[work]):
                links.append((found[0], item, work, found[1]))
                break
    return links


def _attachment(item: _Keys, work: _Keys) -> tuple[str, str] | None:
    """(rule, evidence) when ``item`` is attached to ``work`` by one of the notice rules."""
    for rule, match in (("erratum", _erratum_match), ("reply", _reply_match),
                        ("meeting_abstract", _abstract_match)):
        if detail := match(item, work):
            return rule, detail
    return None


def _erratum_match(item: _Keys, work: _Keys) -> str | None:
    """Why ``item`` is an erratum of ``work``: the work's record names where its erratum is
    printed (MEDLINE's '[Erratum appears in N Engl J Med. 2009;360(23):2487]') and ``item`` is
    there (the volume, and the first page or the issue), under the work's title (its label
    stripped), in a journal that can be the work's.

    A record labelled an erratum that the work's record does not name stays apart, even by the
    work's authors: the labelled sets of ``bench/dedup.py`` keep such notices apart (DBLP-ACM's
    'Erratum: A Database Model for Object Dynamics'), and a notice need not say which of two
    same-titled works it corrects."""
    if item.notice not in (None, "erratum") or work.notice is not None:
        return None
    cited = next((place for place in work.errata if _is_at(item, place)), None)
    if cited is None or not (item.venue and work.venue and venues_agree(item.venue, work.venue)):
        return None
    if not (similarity := _same_title(item, work)):
        return None
    where = (f"page {cited.page}" if item.pages and item.pages.first == cited.page
             else f"issue {cited.issue}")
    return (f"the work's record names its erratum at volume {cited.volume}, {where}; "
            f"title similarity {similarity:.3f}")


def _is_at(item: _Keys, place: CitedPlace) -> bool:
    if item.volume != place.volume:
        return False
    if item.pages is not None and item.pages.first == place.page:
        return True
    return place.issue is not None and item.issue == place.issue


def _reply_match(item: _Keys, work: _Keys) -> str | None:
    """Why ``item`` is the reply printed with the letter ``work``: the letter's record is the
    whole exchange as one item (Embase's '(multiple letters)'), its page range covering the
    reply's page and its authors including the reply's, in the same journal volume.

    A reply indexed on its own beside a letter indexed on its own is two publications by two
    sets of authors, and stays apart."""
    if item.notice != "reply" or work.notice not in (None, "comment"):
        return None
    if not (item.pages and work.pages and work.pages.last and _same_volume(item, work)):
        return None
    if not work.pages.first <= item.pages.first <= work.pages.last:
        return None
    shared = item.all_authors & work.all_authors
    if not shared or len(shared) < min(MIN_SHARED_AUTHORS, len(item.all_authors)):
        return None
    if not (similarity := _same_title(item, work)):
        return None
    return (f"the letter's record covers volume {item.volume}, pages {work.pages.first}-"
            f"{work.pages.last} and lists the reply's authors ({len(shared)}); "
            f"title similarity {similarity:.3f}")


def _abstract_match(item: _Keys, work: _Keys) -> str | None:
    """Why ``item`` is the meeting abstract of the paper ``work``: one page earlier in the same
    journal volume (the meeting's supplement or abstract issue), under the paper's title, by
    its first author and at least ``MIN_SHARED_AUTHORS`` of its authors.

    Only earlier: a one-page item under the title after the article is a correction printed
    without a label, which is attached only where the article's record names it ('erratum')."""
    if item.notice is not None or work.notice is not None or not _has_page_range(work):
        return None
    if not (item.pages and work.pages and item.pages.last in (None, item.pages.first)):
        return None
    if item.pages.prefix != work.pages.prefix or item.pages.first >= work.pages.first:
        return None
    if not (_same_volume(item, work) and _first_authors_agree(item, work)):
        return None
    if len(item.all_authors & work.all_authors) < MIN_SHARED_AUTHORS:
        return None
    if len(set(work.title.split())) < MIN_EXTENDED_WORDS:
        return None
    if not (similarity := _same_title(item, work)):
        return None
    return (f"page {item.pages.first} of volume {item.volume} before pages "
            f"{work.pages.first}-{work.pages.last}, first author {work.author}; "
            f"title similarity {similarity:.3f}")


def _same_volume(a: _Keys, b: _Keys) -> bool:
    """Both records name journals that can be one, the same volume, and years that agree."""
    if a.volume is None or a.volume != b.volume or not _years_agree(a, b):
        return False
    return bool(a.venue and b.venue and venues_agree(a.venue, b.venue))


def _same_title(a: _Keys, b: _Keys) -> float | None:
    """The title similarity when the titles name one work (near-identical, no changed word)."""
    if min(len(a.title), len(b.title)) < MIN_TITLE_CHARS:
        return None
    similarity, title_a, title_b = _closest_titles(a, b)
    if similarity < TITLE_SIMILARITY or _substituted_words(title_a, title_b):
        return None
    return similarity


def _attach_notices(groups: _UnionFind, links: list[Attachment]) -> None:
    """Attach each group of notice records to the one work its links point to.

    A notice whose links point to two works (two articles of one title) is ambiguous and stays
    apart; a group holding an article of its own (a record with a page range) is never attached.
    """
    targets: dict[int, dict[int, Attachment]] = defaultdict(dict)
    for link in links:
        item_root, work_root = groups.find(link[1]), groups.find(link[2])
        if item_root != work_root:
            targets[item_root].setdefault(work_root, link)
    for item_root, found in targets.items():
        if len(found) == 1 and groups.attachable(item_root):
            [(rule, item, work, detail)] = found.values()
            groups.attach(item, work, rule, detail)


def _join_review_versions(groups: _UnionFind, keys: list[_Keys]) -> None:
    """Attach every version of a Cochrane review to its newest version (rule 5 of the module
    docstring). Versions whose order cannot be told stay apart, and so does a record with
    neither title words nor first author in common with the other (a DOI pasted into it)."""
    by_review: dict[str, list[int]] = defaultdict(list)
    for index, key in enumerate(keys):
        if key.review:
            by_review[key.review.number].append(index)
    for number, indices in by_review.items():
        for i, j in combinations(indices, 2):
            if link := _version_link(groups, keys, number, i, j):
                groups.attach(*link)


def _version_link(groups: _UnionFind, keys: list[_Keys], number: str, i: int, j: int
                  ) -> tuple[int, int, str, str] | None:
    """(older record, newer record, rule, evidence) when records ``i`` and ``j`` of review
    ``number``, not yet in one group, are two versions whose order the groups tell."""
    root_i, root_j = groups.find(i), groups.find(j)
    if root_i == root_j or _unrelated(keys[i], keys[j]):
        return None
    version_i, version_j = _group_version(groups, root_i, number), _group_version(
        groups, root_j, number)
    order = _newer(version_i, version_j)
    if order is None:
        return None
    (older, old), (newer, new) = (((j, version_j), (i, version_i)) if order > 0
                                  else ((i, version_i), (j, version_j)))
    return older, newer, "review_version", (
        f"Cochrane review {number.upper()}: {_describe_version(old)} updated by "
        f"{_describe_version(new)}")


VersionOrder = tuple[int | None, int | None]
"""(version number, year) of a group of records of one Cochrane review, each None if unknown."""


def _group_version(groups: _UnionFind, root: int, number: str) -> VersionOrder:
    """The newest version number and year the group's records of review ``number`` give."""
    members = [key for key in (groups.keys[m] for m in groups.members[root])
               if key.review and key.review.number == number]
    versions = [key.review.version for key in members
                if key.review and key.review.version is not None]
    years = [key.year for key in members if key.year is not None]
    return max(versions, default=None), max(years, default=None)


def _newer(a: VersionOrder, b: VersionOrder) -> int | None:
    """1 when ``a`` is the later version, -1 when ``b`` is, None when it cannot be told: the
    version numbers and the years say nothing or contradict each other."""
    by_version, by_year = _compare(a[0], b[0]), _compare(a[1], b[1])
    if by_version and by_year and by_version != by_year:
        return None
    return by_version or by_year or None


def _compare(a: int | None, b: int | None) -> int:
    if a is None or b is None or a == b:
        return 0
    return 1 if a > b else -1


def _describe_version(version: VersionOrder) -> str:
    number, year = version
    year_text = str(year) if year is not None else "year unknown"
    return f"version {number} ({year_text})" if number is not None else year_text


def _unrelated(a: _Keys, b: _Keys) -> bool:
    """Neither the first author nor most title words in common: one of the two records carries
    an identifier that is not its own. (A review's update may change its title or its first
    author, rarely both.)"""
    if _first_authors_agree(a, b) or min(len(a.title), len(b.title)) < MIN_TITLE_CHARS:
        return False
    overlap = max(fuzz.token_set_ratio(x, y) for x, y in product(a.titles, b.titles)) / 100
    return overlap < CONTRADICTING_TITLE_WORDS


def _place(a: _Keys, b: _Keys) -> Place:
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


def _closest_titles(a: _Keys, b: _Keys) -> tuple[float, str, str]:
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
    Patients' are near-identical strings naming different trials.
    """
    if a.replace(" ", "") == b.replace(" ", ""):
        return False  # 'sql 3' / 'sql3', 'market places' / 'marketplaces'
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
    """The same year; or a year apart for a preprint and its paper, for records of one journal
    volume (online and print dates), or for an article online ahead of print (no volume yet)
    and its printed record."""
    if a.year is None or b.year is None:
        return False
    if a.year == b.year:
        return True
    one_volume = a.volume is not None and a.volume == b.volume
    ahead_of_print = (a.volume is None) != (b.volume is None)
    return abs(a.year - b.year) == 1 and (a.preprint or b.preprint or one_volume
                                          or ahead_of_print)


def _authors_agree(a: _Keys, b: _Keys) -> bool:
    """The first authors agree, one source listed the authors in another order, or the lists
    share ``MIN_SHARED_AUTHORS`` names (a first author mangled: 'Xi, L F' / 'Long, F X')."""
    if _first_authors_agree(a, b):
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


def _first_authors_agree(a: _Keys, b: _Keys) -> bool:
    """Same family name, give or take a typo, a particle ('Le Quintrec', 'Quintrec') or a letter
    the database could not encode."""
    if a.author is None or b.author is None:
        return False
    return (names_agree(a.author, b.author)
            or a.author in b.author_names or b.author in a.author_names
            or any(names_agree(a.author, name) for name in b.author_names if "?" in a.author)
            or any(names_agree(b.author, name) for name in a.author_names if "?" in b.author))


def _unambiguous(links: list[tuple[str, int, int, str]], keys: list[_Keys]
                 ) -> list[tuple[str, int, int, str]]:
    """The links without those of a record matching two records of one version of one source.

    A source lists a work once per version, so a record matching two of its records (the
    'Book review column' of each issue) cannot tell which one is its twin, and joins neither.
    """
    partners: dict[int, list[int]] = defaultdict(list)
    for _, i, j, _ in links:
        partners[i].append(j)
        partners[j].append(i)
    ambiguous: set[frozenset[int]] = set()
    for index, others in partners.items():
        by_version: dict[tuple[str, bool], list[int]] = defaultdict(list)
        for other in others:
            for source in keys[other].sources:
                by_version[(source, keys[other].preprint)].append(other)
        for twins in by_version.values():
            if len(twins) > 1 and not _share_identifier([keys[t] for t in twins]):
                ambiguous.update(frozenset((index, twin)) for twin in twins)
    return [link for link in links if frozenset(link[1:3]) not in ambiguous]


def _share_identifier(keys: list[_Keys]) -> bool:
    values = [set(key.identifiers.items()) for key in keys]
    return bool(set.intersection(*values))


class _UnionFind:
    """Groups of record indices, refusing a union that would join conflicting identifiers."""

    def __init__(self, keys: list[_Keys]) -> None:
        self.keys = keys
        self.parent = list(range(len(keys)))
        self.identifiers: list[dict[str, set[str]]] = [
            {kind: {value} for kind, value in key.identifiers.items()} for key in keys
        ]
        self.versions = [{(source, key.preprint) for source in key.sources} for key in keys]
        """(source, is preprint) of each group's records: a source lists a work once per
        version, so a fuzzy match never joins two records of one source (identifiers may)."""
        self.members: list[list[int]] = [[index] for index in range(len(keys))]
        self.links: dict[int, tuple[str, str]] = {}
        """For each record joined to another, the rule and detail of its first successful link."""
        self.attached: dict[int, tuple[str, str]] = {}
        """For each record attached to a work as its notice or an earlier version, the rule and
        detail that did it."""
        self.attached_with: dict[int, int] = {}
        """For each attached record, the group it was attached with (the records of one notice)."""

    def find(self, index: int) -> int:
        while self.parent[index] != index:
            self.parent[index] = self.parent[self.parent[index]]
            index = self.parent[index]
        return index

    def union(self, i: int, j: int, rule: str, detail: str, by_identifier: bool = True) -> None:
        root_i, root_j = self.find(i), self.find(j)
        if root_i == root_j or self._conflict(root_i, root_j):
            return
        if not by_identifier and (self.versions[root_i] & self.versions[root_j]
                                  or self._apart(root_i, root_j)):
            return
        self._join(root_i, root_j)
        self.links.setdefault(i, (rule, detail))
        self.links.setdefault(j, (rule, detail))

    def attachable(self, index: int) -> bool:
        """Whether the group of ``index`` holds only notices and one-page or unpaged records,
        so attaching it to a work cannot join two articles."""
        return all(self.keys[member].notice in ("erratum", "reply")
                   or not _has_page_range(self.keys[member])
                   for member in self.members[self.find(index)])

    def attach(self, item: int, work: int, rule: str, detail: str) -> None:
        """Join the group of ``item`` to the work of ``work`` as its notices (or its earlier
        versions). The identifier veto does not apply: a notice, like each version of a
        Cochrane review, has its own PMID and DOI. A record already attached (an earlier
        version's earlier version) keeps the rule and evidence that attached it first."""
        item_root, work_root = self.find(item), self.find(work)
        if item_root == work_root:
            return
        for member in self.members[item_root]:
            self.attached.setdefault(member, (rule, detail))
            self.attached_with.setdefault(member, item_root)
        self._join(item_root, work_root)

    def _join(self, root_i: int, root_j: int) -> None:
        keep, drop = min(root_i, root_j), max(root_i, root_j)
        self.parent[drop] = keep
        self.versions[keep] |= self.versions[drop]
        self.members[keep] += self.members[drop]
        for kind, values in self.identifiers[drop].items():
            self.identifiers[keep].setdefault(kind, set()).update(values)

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

    def _apart(self, root_i: int, root_j: int) -> bool:
        """Whether a probable link would put into one group records printed at conflicting
        places or notices of different kinds (a chain through a record that lacks pages)."""
        return any(
            _place(self.keys[x], self.keys[y]) == "conflict"
            or self.keys[x].notice != self.keys[y].notice
            for x in self.members[root_i] for y in self.members[root_j])


def _has_page_range(key: _Keys) -> bool:
    return bool(key.pages and key.pages.last and key.pages.last > key.pages.first)


def _fold(works: list[Work], groups: _UnionFind) -> DedupResult:
    """Fold each group into its first record that is not an attached item, the group's other
    records first and its attached items last, in order of first appearance."""
    members: dict[int, list[int]] = defaultdict(list)
    for index in range(len(works)):
        members[groups.find(index)].append(index)
    merged_works: list[Work] = []
    merges: list[Merge] = []
    ordered = sorted(members.values(), key=lambda indices: indices[0])
    for indices in ordered:
        base = next((i for i in indices if i not in groups.attached), indices[0])
        work = works[base]
        folded: list[tuple[int, str, str]] = []
        for index in sorted((i for i in indices if i != base), key=groups.attached.__contains__):
            if index in groups.attached:
                rule, detail = groups.attached[index]
                work = _with_notice(work, works[index], rule)
            else:
                rule, detail = groups.links[index]
                work = work.merge(works[index], rule)
            folded.append((index, rule, detail))
        if named := _named_notices(works, groups, indices):
            work = work.model_copy(update={"notices": list(dict.fromkeys([*work.notices,
                                                                          *named]))})
        merges.extend(Merge(rule=rule, work_id=work.id, kept_id=works[base].id,
                            merged_id=works[index].id, detail=detail,
                            identifiers=[f"{kind}:{value}"
                                         for kind, value in works[index].identifiers()])
                      for index, rule, detail in folded)
        merged_works.append(work)
    return DedupResult(works=merged_works, duplicates_removed=len(works) - len(merged_works),
                       merges=merges, groups=ordered)


def _with_notice(work: Work, notice: Work, rule: str) -> Work:
    """``work`` with a notice about it (or an earlier version of it) attached: the notice's
    sources and rule are recorded, but none of its fields or identifiers fill the work's (an
    erratum's DOI is not the article's); they stay in the :class:`Merge`."""
    return work.model_copy(update={
        "sources": list(dict.fromkeys([*work.sources, *notice.sources])),
        "merged_by": list(dict.fromkeys([*work.merged_by, *notice.merged_by, rule])),
    })


def _named_notices(works: list[Work], groups: _UnionFind, indices: list[int]) -> list[str]:
    """The erratum, reply and meeting abstract attached to one work, as ``Work.notices`` names
    them: one entry per notice, however many records of it the sources gave."""
    notices: dict[int, list[int]] = defaultdict(list)
    for index in indices:
        if index in groups.attached and groups.attached[index][0] in NOTICE_LABELS:
            notices[groups.attached_with[index]].append(index)
    return [describe_notice([works[i] for i in records], groups.attached[records[0]][0])
            for records in notices.values()]


def describe_notice(records: list[Work], rule: str) -> str:
    """A notice attached by ``rule`` as ``Work.notices`` names it: its kind and the identifiers
    of its records ('Erratum: DOI 10.1056/nejmx090022, PMID 19494218'), or, when none has any,
    where it is printed ('Reply: Pediatric Nephrology 2004;19(8):945')."""
    identifiers = dict.fromkeys(f"{IDENTIFIER_LABELS[kind]} {value}"
                                for record in records for kind, value in record.identifiers())
    return f"{NOTICE_LABELS[rule]}: {', '.join(identifiers) or _printed_at(records[0])}"


def _printed_at(work: Work) -> str:
    """'Pediatric Nephrology 2004;19(8):945', from what the record gives; its title if nothing."""
    issue = f"({work.issue})" if work.issue else ""
    place = f"{work.volume or ''}{issue}" + (f":{work.pages}" if work.pages else "")
    year = str(work.year) if work.year else ""
    when = ";".join(part for part in (year, place) if part)
    return " ".join(part for part in (work.venue, when) if part) or work.title
