"""What the deduplication rules compare: each record's fields parsed once into :class:`Keys`.

Authors ('Zuna, R E' / 'R. E. Zuna'), venues ('N Engl J Med' / 'New England Journal of
Medicine'), volumes, page ranges and a Cochrane review's number are written many ways by the
sources; here each is parsed into one comparable form, beside the test of whether two such
names or venues can be one (:func:`names_agree`, :func:`venues_agree`).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from scholargraph.dedup.titles import (
    CitedPlace,
    cited_errata,
    normalize_issue,
    notice_kind,
    recurring_column,
    title_variants,
    to_ascii,
)
from scholargraph.identifiers import (
    is_preprint_doi,
    is_preprint_venue,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
    osf_id,
    preprint_server,
    published_doi_of_preprint,
)
from scholargraph.records import BOOK_KINDS, Work

VENUE_KINDS = ("article", *BOOK_KINDS, "other")
"""Kinds whose venue is compared: a journal's, and a book's (PubMed's book records were 'other'
before books had their own kinds, and are compared by their venue as they were)."""

COCHRANE_DOI = re.compile(r"10\.1002/14651858\.(cd\d+)(?:\.pub(\d+))?(?![\w.])", re.IGNORECASE)
"""A Cochrane Database of Systematic Reviews DOI: the review's number and its version suffix
('10.1002/14651858.CD002273.pub3'; without a suffix, the first version)."""
COCHRANE_ARTICLE = re.compile(r"\s*(cd\d{6})\s*", re.IGNORECASE)
"""A Cochrane review's article number as databases give it in the pages field ('CD002273')."""


@dataclass(frozen=True)
class Pages:
    """Where an item is printed: ``prefix`` letters ('e', 'S', 'c'), first and last page."""

    prefix: str
    first: int
    last: int | None


@dataclass(frozen=True)
class ReviewVersion:
    """Which Cochrane review a record is ('cd002273') and which version of it: the DOI's
    '.pubN' (1 without a suffix), or None when only the article number says which review."""

    number: str
    version: int | None


@dataclass
class Keys:
    """What the rules compare, computed once per record."""

    identifiers: dict[str, str]
    versions: frozenset[tuple[str, str]]
    """Identifiers of other versions of the work, as its record or its DOI says."""
    title: str
    titles: tuple[str, ...]
    column: bool
    """The title is a recurring column's ('Editor's Comments'): it does not identify an issue."""
    year: int | None
    author: str | None
    author_names: frozenset[str]
    all_authors: frozenset[str]
    corporate: bool
    venue: tuple[tuple[str, ...], ...]
    meeting: bool
    preprint: bool
    posted: bool
    """Its source says the record is a preprint (arXiv, OpenAlex's type, PubMed's publication
    type), rather than a bibliography listing a server's DOI or name like a journal's."""
    version: str
    """Which version of the work the record is: '' for the published one, else the preprint
    server ('SSRN', 'arXiv'; 'preprint' when the record does not say which)."""
    sources: frozenset[str]
    volume: str | None
    issue: str | None
    pages: Pages | None
    notice: str | None
    meeting_abstract: bool
    errata: tuple[CitedPlace, ...]
    review: ReviewVersion | None


def record_keys(work: Work) -> Keys:
    identifiers = dict(work.identifiers())
    arxiv_from_doi = (work.doi or "").removeprefix("10.48550/arxiv.")
    if work.doi and arxiv_from_doi != work.doi and "arxiv" not in identifiers:
        identifiers["arxiv"] = arxiv_from_doi
    if work.kind in ("web", "news", "material") and work.url:
        identifiers["url"] = re.sub(r"^https?://(www\.)?|/+$|#.*$", "", work.url.lower())
    if guid := osf_id(work.doi):
        identifiers["osf"] = guid
    titles = title_variants(work.title) or ("",)
    preprint = (work.kind == "preprint" or is_preprint_venue(work.venue)
                or is_preprint_doi(work.doi))
    return Keys(
        identifiers=identifiers,
        versions=_version_ids(work, identifiers),
        title=titles[0],
        titles=titles,
        column=recurring_column(titles[0]),
        year=work.year,
        author=author_key(work.authors[0]) if work.authors else None,
        author_names=_name_tokens(work.authors[0]) if work.authors else frozenset(),
        all_authors=frozenset(filter(None, map(author_key, work.authors))),
        corporate=bool(work.authors) and bool(_CORPORATE.search(work.authors[0])),
        venue=venue_names(work.venue) if work.kind in VENUE_KINDS else (),
        meeting=bool(_MEETING.search(work.venue or "")),
        preprint=preprint,
        posted=work.kind == "preprint",
        version=_version(work, identifiers) if preprint else "",
        sources=frozenset(_record_sources(work)),
        volume=normalize_volume(work.volume),
        issue=normalize_issue(work.issue),
        pages=parse_pages(work.pages),
        notice=notice_kind(work.title),
        meeting_abstract=bool(_MEETING_ABSTRACT.search(work.venue or "")),
        errata=cited_errata(work.title),
        review=cochrane_review(work),
    )


def _version_ids(work: Work, own: dict[str, str]) -> frozenset[tuple[str, str]]:
    """The (kind, value) identifiers of the work's other versions: those its record lists and
    the article DOI a preprint DOI announces (JMIR's '10.2196/preprints.N' is '10.2196/N')."""
    found: set[tuple[str, str]] = set()
    for text in work.version_ids:
        kind, _, raw = text.partition(":")
        normalise = _NORMALISERS.get(kind)
        if normalise is not None and (value := normalise(raw)):
            found.add((kind, value))
    if published := published_doi_of_preprint(work.doi):
        found.add(("doi", published))
    return frozenset(pair for pair in found if own.get(pair[0]) != pair[1])


_NORMALISERS = {"doi": normalize_doi, "pmid": normalize_pmid, "pmcid": normalize_pmcid,
                "arxiv": normalize_arxiv_id, "openalex": normalize_openalex_id,
                "osf": lambda value: osf_id(f"osf.io/{value}")}


def _version(work: Work, identifiers: dict[str, str]) -> str:
    if server := preprint_server(work.doi):
        return server
    if "arxiv" in identifiers:
        return "arXiv"
    return work.venue or "preprint"


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


def _record_sources(work: Work) -> list[str]:
    """The sources whose listing a record belongs to, for the guard that a source lists a work
    once (two records of one source are joined only by an identifier). A scientist's library
    is no such source: one export often holds every database's hits for a search, duplicates
    and all (a haematology review's 1,415 records, 163 pairs of them one work, joined none of
    them when read as one export file), so its records join by the title rules like those of
    two sources."""
    return [source for source in work.sources if source != "library"]


def author_key(author: str) -> str | None:
    """The family name of an author as sources spell it ('Zuna, R E', 'R. E. Zuna', 'Zuna RE'),
    with its particles ('de Cordoba, S R' and 'de Cordoba SR' are both 'decordoba').

    A '?' stands for a letter the database could not encode ('G?k' for 'Gök') and is kept, so
    that :func:`names_agree` can treat it as a wildcard. What a database writes for no author
    ('Anonymous', MEDLINE's '[No authors listed]', 'et al.') is no name: None, as for a record
    without authors, so that it neither matches another record's 'Anonymous' nor counts as a
    co-author two lists share.
    """
    text = to_ascii(html.unescape(author)).strip()
    if not text or _NO_AUTHOR.fullmatch(text):
        return None
    if "," in text:
        family = text.split(",")[0]
    else:
        tokens = text.split()
        initials = [t for t in tokens if re.fullmatch(r"[A-Z]{1,3}\.?|(?:[A-Z]\.)+[A-Z]?", t)]
        names = [t for t in tokens if t not in initials]
        if not names:
            return None
        if tokens[-1] in initials:  # 'Zuna RE', 'de Cordoba SR': the family name first
            first = next((i for i, name in enumerate(names)
                          if name.lower() not in _PARTICLES), 0)
            family = "".join(names[:first + 1])
        else:
            family = names[-1]
    family = re.sub(r"[^a-z?]", "", family.lower())
    return family if re.search(r"[a-z]", family) else None


_PARTICLES = frozenset({"de", "del", "della", "der", "den", "di", "da", "dos", "das", "du", "la",
                        "le", "van", "von", "ten", "ter", "vander", "vanden", "st", "mac"})
"""Words that open a family name ('de Cordoba', 'van der Berg', 'von Hagen')."""
_NO_AUTHOR = re.compile(
    r"\W*(?:anonymous|anon|no authors? listed|not available|unknown|n/?a|et\.? al\.?)\W*",
    re.IGNORECASE)
"""An author field that names nobody."""


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


def _name_tokens(author: str) -> frozenset[str]:
    """The words of an author's name that are not initials ('Le, Quintrec M.' -> le, quintrec)."""
    text = to_ascii(html.unescape(author))
    return frozenset(w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2)


def parse_pages(pages: str | None) -> Pages | None:
    """The first and last page of '23-35', '2243-5', 'c37-c42', 'S33-38', 'e43268', 'viii108';
    None for what is not a page ('01-Jun', a spreadsheet's reading of '1-6') or a range that
    ends before it starts."""
    match = _PAGES.match(_PAGE_LABEL.sub("", (pages or "").strip()))
    if not match:
        return None
    prefix, first, last = match.group(1).lower(), match.group(2), match.group(3)
    if last and len(last) < len(first):
        last = first[:len(first) - len(last)] + last  # '2243-5' is 2243-2245
    first_page, last_page = int(first), int(last) if last else None
    if last_page is not None and last_page < first_page:
        return None  # '2297-2108': one of the two is mistyped, so neither can be trusted
    return Pages(prefix, first_page, last_page)


_PAGE_LABEL = re.compile(r"^(?:pp?|pages?)(?:\.\s*|\s+)(?=\d)", re.IGNORECASE)
"""The label some exports write before the pages ('pp. 123-130', 'p. 45'), not a page prefix
('e43268', 'S33')."""
_PAGES = re.compile(r"([a-z]*)(\d+)[a-z]*"
                    r"(?:\s*[-\u2013\u2014]+\s*[a-z]*(\d+)[a-z]*)?(?=$|[\s;,.(])",
                    re.IGNORECASE)


def normalize_volume(volume: str | None) -> str | None:
    """The volume number ('31a' from '31A', '24' from '24 Suppl 3' or '35 ( Pt 1)')."""
    match = re.search(r"\d+[a-z]?\b", (volume or "").lower())
    return match.group() if match else None


def venue_names(venue: str | None) -> tuple[tuple[str, ...], ...]:
    """The names a venue string gives, each as lower-case words without stop words.

    Databases write one journal many ways: 'Zhonghua yi xue za zhi = Chinese medical journal',
    'Pneumologie (Stuttgart, Germany)', 'J Clin Oncol : official journal of ...', 'Gan to
    Kagaku Ryoho [Japanese Journal of Cancer & Chemotherapy]', 'JAMA - Journal of the American
    Medical Association', Web of Science's 'Haematologica-the Hematology Journal'. Each
    alternative is kept. British spellings are read as American ones ('Gynaecol', 'Paediatr',
    'Oesophagus' as 'Gynecol', 'Pediatr', 'Esophagus'): one journal's name is spelt both ways
    ('Int J Gynaecol Obstet' / 'International Journal of Gynecology & Obstetrics').
    """
    if not venue:
        return ()
    text = to_ascii(html.unescape(venue))
    text = re.split(r"\.?\s*conference\s*:|<", text.lower())[0]
    names = []
    for part in re.split(r"[=/;\[\]]|\s+-+\s+|-(?=the\s)", text):
        for name in (part, re.split(r"[:(.]", part)[0]):
            words = tuple(_AMERICAN.sub("e", w) for w in re.findall(r"[a-z]+", name)
                          if w not in _VENUE_STOPWORDS)
            if words and words not in names:
                names.append(words)
    return tuple(names)


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


_AMERICAN = re.compile(r"(?<=[a-z])[ao]e(?=[a-z])|^oe(?=[sd])")
"""The British 'ae' and 'oe' inside a word ('haematology', 'foetal') or opening it ('oesophagus',
'oedema', 'oestrogen'), which American spelling writes 'e'."""
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
_CORPORATE = re.compile(
    r"\b(?:group|study|trial|consortium|collaborat\w*|committee|investigators|association"
    r"|society|network|council|organi[sz]ation|working party|task force|inc|ltd|corp\w*"
    r"|pharmaceuticals?|foundation|institute|university)\b",
    re.IGNORECASE)
"""A collaborative or corporate author, which some databases list and others omit."""
