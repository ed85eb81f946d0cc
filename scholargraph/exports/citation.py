"""What every export agrees on about a work: its citation key, its kind, its authors' names, its
link, and its APA-like reference.

BibTeX, RIS, CSL-JSON and the Markdown review all read these, so a work has one key, one type and
one spelling of its authors in every file a reference manager or a reader sees.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from string import ascii_lowercase
from typing import Literal

from scholargraph.records import Work

EntryKind = Literal["journal", "preprint", "chapter", "book", "web", "news", "dataset", "generic"]

_ORGANISATION_WORDS = frozenset(
    "project consortium collaboration group committee organization organisation society "
    "institute institution team network initiative association agency university council "
    "foundation center centre laboratory federation board office department ministry "
    "administration program programme alliance".split()
)
_TITLE_STOPWORDS = frozenset(
    "a an the on of in for and to with from by at as is are do does how what why when which "
    "toward towards via into".split()
)
_INITIALS = re.compile(r"^[A-Z]{1,3}$")
NEWS_LABEL = "[News]"
"""How a news item is marked in a formatted reference, so a reader never takes it for a paper."""


@dataclass(frozen=True)
class PersonName:
    """An author's name split the way citation formats want it.

    ``literal`` is set (and the other parts empty) for organisations, which must never be split
    into family and given names.
    """

    family: str = ""
    given: str = ""
    literal: str = ""

    @property
    def inverted(self) -> str:
        """'Family, Given' (or the literal), the form BibTeX and RIS read without guessing."""
        if self.literal:
            return self.literal
        return f"{self.family}, {self.given}" if self.given else self.family

    @property
    def initials(self) -> str:
        """The given names as APA initials: 'Jean-Pierre A.' -> 'J.-P. A.'."""
        return " ".join(_initials_of(part) for part in self.given.replace(".", ". ").split())


def parse_name(name: str) -> PersonName:
    """Split an author string given as 'Family, Given', 'Given Family' or 'Family AB' (PubMed).

    Organisations ('Materials Project', 'WHO Collaboration Group') are kept whole; lower-case
    particles before the last word ('Ludwig van Beethoven') stay with the family name.
    """
    text = re.sub(r"\s+", " ", name).strip().strip(",")
    if not text:
        return PersonName(literal="Anonymous")
    if "," in text:
        family, given = (part.strip() for part in text.split(",", 1))
        return PersonName(family=family, given=given) if family else PersonName(literal=given)
    words = text.split(" ")
    if len(words) == 1 or any(word.lower() in _ORGANISATION_WORDS for word in words):
        return PersonName(literal=text)
    if len(words) >= 2 and _INITIALS.match(words[-1]):
        return PersonName(family=" ".join(words[:-1]), given=" ".join(f"{c}." for c in words[-1]))
    split = len(words) - 1
    while split > 1 and words[split - 1][:1].islower():
        split -= 1
    return PersonName(family=" ".join(words[split:]), given=" ".join(words[:split]))


def _initials_of(given_part: str) -> str:
    pieces = [piece for piece in given_part.split("-") if piece]
    return "-".join(f"{piece[0]}." for piece in pieces)


def authors_of(work: Work) -> list[PersonName]:
    return [parse_name(author) for author in work.authors if author.strip()]


def entry_kind(work: Work) -> EntryKind:
    """The kind of entry each export maps to its own type vocabulary.

    A merged work whose published version was found is a journal article even if it also has an
    arXiv id; an 'article' without a venue cannot claim a journal, so it is generic. A chapter
    and a book keep their kind (a chapter's venue is the book or series it appeared in).
    """
    if work.kind == "article":
        return "journal" if work.venue else "generic"
    if work.kind == "preprint":
        return "preprint"
    if work.kind in ("chapter", "book", "web", "news"):
        return work.kind
    if work.kind == "material":
        return "dataset"
    return "generic"


def doi_url(work: Work) -> str | None:
    return f"https://doi.org/{work.doi}" if work.doi else None


def arxiv_url(work: Work) -> str | None:
    return f"https://arxiv.org/abs/{work.arxiv_id}" if work.arxiv_id else None


def pubmed_url(work: Work) -> str | None:
    return f"https://pubmed.ncbi.nlm.nih.gov/{work.pmid}/" if work.pmid else None


def best_link(work: Work) -> str | None:
    """The one link a reader should follow: DOI, then arXiv, PubMed, the work's own URL."""
    return doi_url(work) or arxiv_url(work) or pubmed_url(work) or work.url


def landing_url(work: Work) -> str | None:
    """The URL field of an export: the work's own page, else the link a reader should follow."""
    return work.url or best_link(work)


_PAGE_RANGE = re.compile(r"^\s*([A-Za-z]?\d+[A-Za-z]?)\s*(?:-+|\u2013|\u2014|\u2212)\s*"
                         r"([A-Za-z]?\d+[A-Za-z]?)\s*$")
"""A page range as the sources write it: '23-35', '23--35', '23–35', 'e101-e109', '401-19'."""


@dataclass(frozen=True)
class PageRange:
    """A work's pages split the way RIS wants them (``SP``/``EP``); ``last`` is empty for an
    article number or a single page ('e1002', '17')."""

    first: str
    last: str = ""

    @property
    def hyphenated(self) -> str:
        """'23-35' (CSL-JSON's ``page``, RIS readers' display), or the single page."""
        return f"{self.first}-{self.last}" if self.last else self.first

    @property
    def latex(self) -> str:
        """'23--35': BibTeX's en-dash range, which styles print and compress ('23–35')."""
        return f"{self.first}--{self.last}" if self.last else self.first


def page_range(work: Work) -> PageRange | None:
    """The work's pages as a range, or None without pages. A range whose last page is
    abbreviated ('401-19', as MEDLINE writes them) is written out ('401-419'), since RIS's
    ``EP`` and CSL's ``page`` are read as page numbers, not as MEDLINE shorthand."""
    text = (work.pages or "").strip()
    if not text:
        return None
    match = _PAGE_RANGE.match(text)
    if not match:
        return PageRange(first=re.sub(r"\s+", " ", text))
    first, last = match.groups()
    if last.isdigit() and first.isdigit() and len(last) < len(first) \
            and int(first[-len(last):]) < int(last):
        last = first[: len(first) - len(last)] + last
    return PageRange(first=first, last=last)


_UNDECOMPOSED = str.maketrans({"Ø": "O", "ø": "o", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe",
                               "Ł": "L", "ł": "l", "Đ": "D", "đ": "d", "Ð": "D", "ð": "d",
                               "Þ": "Th", "þ": "th", "ß": "ss", "ı": "i", "Ħ": "H", "ħ": "h"})
"""Latin letters Unicode does not decompose into a base letter and an accent, spelled as
reference managers spell them in keys: without it 'Ødegård' was keyed 'degard' and 'Łukasz'
'ukasz', neither of which a reader finds under the author's name."""


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED))
    folded = folded.encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def base_key(work: Work) -> str:
    """firstauthorYEARfirsttitleword, ASCII lower case; parts that are missing are left out.

    A material record is keyed by its Materials Project id (``mp149``), the one thing that tells
    two materials apart.
    """
    if entry_kind(work) == "dataset" and work.url:
        material_key = _ascii_word(work.url.rstrip("/").rsplit("/", 1)[-1])
        if material_key[:1].isalpha():
            return material_key
    names = authors_of(work)
    author = ""
    if names:
        first = names[0]
        author = _ascii_word(first.family or first.literal.split(" ")[0])
    words = [_ascii_word(word) for word in re.split(r"[\s\-/:]+", work.title)]
    content = [word for word in words if word and word not in _TITLE_STOPWORDS]
    key = f"{author}{work.year or ''}{content[0] if content else ''}"
    if not key or not key[0].isalpha():
        key = f"ref{key}"
    return key


def citation_keys(works: list[Work]) -> list[str]:
    """One key per work, in order: a work keeps its base key unless an earlier work has it,
    and then takes the first of base + b, c, ... (like 2020b) that no earlier work has.

    A key depends only on the works before it, so the same works in the same order give the
    same keys in every export and every run, and works added at the end (an update appends its
    references after the review's) leave the earlier keys as they were: a manuscript citing
    ``smith2020deep`` still finds it after the update. (Suffixing every colliding key, 'a' and
    'b', renamed the first work's key when a second one arrived.)
    """
    used: set[str] = set()
    keys = []
    for base in (base_key(work) for work in works):
        key, index = base, 1
        while key in used:
            key = base + _suffix(index)
            index += 1
        used.add(key)
        keys.append(key)
    return keys


KEYS_LINE = ("Each reference ends with its citation key: its entry in references.bib, "
             "references.ris (ID) and references.csl.json (id).")
"""Said once above the reference list, so that a reader citing [3] in a manuscript finds the
same work in whichever export their reference manager imported."""


def _suffix(index: int) -> str:
    """a, b, ..., z, aa, ab, ...: enough suffixes for any number of colliding keys."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = ascii_lowercase[rest] + letters
    return letters


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class Styling:
    """How a renderer marks up the pieces of a reference; plain text by default.

    ``text`` escapes data coming from the work (titles, names); the others wrap already escaped
    text, so a renderer never has to re-parse a formatted reference.
    """

    text: Callable[[str], str] = _same
    emphasis: Callable[[str], str] = _same
    link: Callable[[str], str] = _same
    warning: Callable[[str], str] = _same


PLAIN = Styling()


def apa_authors(names: list[PersonName]) -> str:
    """APA 7 author list: up to 20 names, '&' before the last, an ellipsis past 19."""
    formatted = [name.literal or f"{name.family}, {name.initials}".rstrip(", ") for name in names]
    if len(formatted) > 20:
        return ", ".join(formatted[:19]) + ", ... " + formatted[-1]
    if len(formatted) <= 1:
        return "".join(formatted)
    if len(formatted) == 2:
        return f"{formatted[0]}, & {formatted[1]}"
    return ", ".join(formatted[:-1]) + ", & " + formatted[-1]


def venue_of(work: Work) -> str:
    if entry_kind(work) == "preprint" and work.arxiv_id:
        return f"arXiv preprint arXiv:{work.arxiv_id}"
    return work.venue or ""


def format_reference(work: Work, style: Styling = PLAIN) -> str:
    """'Authors (Year). Title. *Venue*. link' (APA-like), marked up by ``style``.

    A work without authors starts with its title, as APA does; a retracted work says so last,
    where a reader scanning the list sees it.
    """
    authors = apa_authors(authors_of(work))
    year = f"({_date_of(work)})."
    title = style.text(_with_full_stop(work.title))
    if authors:
        pieces = [style.text(_with_full_stop(authors)), year, title]
    else:
        pieces = [title, year]
    venue = venue_of(work)
    if venue:  # APA: a chapter is 'In *Book*.', so it is not read as a journal article
        within = "In " if entry_kind(work) == "chapter" else ""
        pieces.append(within + style.emphasis(style.text(venue)) + _apa_place(work, style) + ".")
    if entry_kind(work) == "news":
        pieces.append(style.text(NEWS_LABEL))
    link = best_link(work)
    if link:
        pieces.append(style.link(link))
    if work.is_retracted:
        pieces.append(style.warning("RETRACTED"))
    return " ".join(pieces)


def _apa_place(work: Work, style: Styling) -> str:
    """APA 7's place of a journal article after its journal: ', *12*(3), 45–67' (the volume
    in italics, the issue in parentheses, the pages with an en dash); empty when the work
    gives none, or is not a journal article."""
    if entry_kind(work) != "journal":
        return ""
    volume = style.emphasis(style.text(work.volume)) if work.volume else ""
    issue = f"({style.text(work.issue)})" if work.issue else ""
    pages = page_range(work)
    parts = [part for part in (volume + issue,
                               style.text(pages.hyphenated.replace("-", "\u2013"))
                               if pages else "") if part]
    return "".join(f", {part}" for part in parts)


def _date_of(work: Work) -> str:
    """APA's date: the year, or for news the day it was published ('2025, March 3')."""
    if work.kind == "news" and work.published:
        day = work.published
        return f"{day.year}, {day.strftime('%B')} {day.day}"
    return str(work.year or "n.d.")


def _with_full_stop(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "?", "!")) else f"{text}."
