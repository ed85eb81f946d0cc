"""BibTeX export: one entry per work, keyed as in every other export, safe for classic BibTeX.

Field values are plain text from the sources, so they are encoded to LaTeX here: the special
characters (``& % $ # _ { } ~ ^ \\``) are escaped; accented Latin letters become brace-protected
accent macros (``{\\"u}``, from pylatexenc's tables), which classic BibTeX sorts and abbreviates
correctly; everything else (Greek, symbols, dashes, CJK) stays UTF-8, which LaTeX has read by
default since 2018 and biber, Zotero and JabRef read too. Words with capitals after their first
letter (``CRISPR``, ``MoS2``) are wrapped in braces so bibliography styles do not lower-case them.
Identifier fields (DOI, URL, eprint) are verbatim, as biblatex and the url package expect.
Volume, issue (``number``) and pages (``23--35``) are written where the work has them.
Types: @article for journal articles, @incollection (with ``booktitle``) for book chapters, @book
(with ``publisher``) for books, @misc for the rest.
"""

from __future__ import annotations

import re
import unicodedata

from bibtexparser.bibdatabase import BibDatabase
from bibtexparser.bwriter import BibTexWriter
from pylatexenc.latexencode import UnicodeToLatexEncoder

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

FIELD_ORDER = ["author", "title", "journal", "booktitle", "publisher", "howpublished", "year",
               "date", "volume", "number", "pages", "doi", "pmid", "pmcid", "eprint",
               "archiveprefix", "url", "note", "abstract"]

_SPECIALS = {
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "<": r"\textless{}", ">": r"\textgreater{}", "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
}
_BRACES = {"{": r"\{", "}": r"\}"}
_LOOSE_BRACES = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}
_ACCENTS = UnicodeToLatexEncoder(
    non_ascii_only=True,
    replacement_latex_protection="braces-all",
    unknown_char_policy="keep",
    unknown_char_warning=False,
)
_VERBATIM_UNSAFE = {"{": "%7B", "}": "%7D", "\\": "%5C", " ": "%20"}


def latex(text: str, braces_balanced: bool | None = None) -> str:
    r"""Plain text as LaTeX that BibTeX and LaTeX read back as the same text.

    ``braces_balanced`` says whether the whole field's braces pair up (worked out from ``text``
    when not given): paired braces are escaped as ``\{ \}``, which every reader knows; loose ones
    as ``\textbraceleft{}``, which BibTeX does not count as a brace.
    """
    if braces_balanced is None:
        braces_balanced = _balanced(text)
    braces = _BRACES if braces_balanced else _LOOSE_BRACES
    return "".join(_SPECIALS.get(char) or braces.get(char) or _letter(char) for char in text)


def _letter(char: str) -> str:
    if char.isascii() or not unicodedata.name(char, "").startswith("LATIN "):
        return char
    return _ACCENTS.unicode_to_latex(char)


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def latex_title(text: str, prose: str = "") -> str:
    """A title encoded to LaTeX, the words whose capitals are the author's braced, so that a
    style printing titles in sentence case keeps them: mixed-case and all-caps words (``DNA``,
    ``COVID-19``, ``LiFePO4``), possessive names (``Parkinson's``), and the capitalised words
    that are names (``Bayesian``, ``Ebola``): in a title written in sentence case every
    capitalised word after the first, in a title written in Title Case those that ``prose`` (the
    abstract) capitalises inside its sentences and never writes in lower case
    (:func:`proper_words`). The first word, and a subtitle's, are left alone: their capital is
    the title's, not a name's."""
    balanced = _balanced(text)
    words = text.split(" ")
    sentence_case = _sentence_case(words)
    names = proper_words(prose)
    kept = []
    for number, word in enumerate(words):
        encoded = latex(word, balanced)
        bare = word.strip(_EDGE_PUNCTUATION)
        subtitle = words[number - 1].endswith(":") if number else True
        named = not subtitle and bare[:1].isupper() and (
            sentence_case or bare.lower() in names or _POSSESSIVE.search(bare) is not None)
        kept.append(f"{{{encoded}}}" if _keeps_case(word) or named else encoded)
    return " ".join(kept)


_EDGE_PUNCTUATION = "\"'()[]{}.,;:!?\u2018\u2019\u201c\u201d"
_POSSESSIVE = re.compile(r"^[A-Z][a-z]+['\u2019]s$")
"""'Parkinson's', 'Crohn's': a capitalised word with a possessive is a name's."""
TITLE_CASE_MINOR = frozenset({"about", "across", "after", "against", "along", "among",
                              "before", "between", "beyond", "during", "from", "into", "onto",
                              "over", "than", "that", "through", "toward", "towards", "under",
                              "upon", "versus", "with", "within", "without"})
"""Longer words Title Case may leave in lower case (prepositions, conjunctions)."""
SENTENCE_CASE_LOWER = 2
"""Longer words in lower case that make a title sentence case: of 1,704 titles of software
engineering studies, one lower-case word ('using') in an otherwise Title Case title braced whole
titles ('Modeling', 'Structure', 'Behavior'...) as names."""
_PROSE_WORD = re.compile(r"(?<![.!?:]\s)(?<=\s)([A-Za-z][a-z]+(?:-[A-Za-z][a-z]+)*)\b")


def _sentence_case(words: list[str]) -> bool:
    """Whether a title is written in sentence case: at least :data:`SENTENCE_CASE_LOWER` of its
    longer words (four letters or more, the first word and :data:`TITLE_CASE_MINOR` apart) are
    in lower case, or more of them than capitalised. Title Case capitalises such words (one may
    slip: 'using', 'based'), so that there a capital says nothing of a name; in sentence case
    every capital after the first word is the author's."""
    longer = [bare for word in words[1:] if len(bare := word.strip(_EDGE_PUNCTUATION)) >= 4
              and bare[:1].isalpha() and bare.lower() not in TITLE_CASE_MINOR]
    lower = sum(1 for word in longer if word[:1].islower())
    return lower >= SENTENCE_CASE_LOWER or lower > len(longer) - lower


def proper_words(prose: str) -> set[str]:
    """The words (lower-cased) ``prose`` writes capitalised inside its sentences (not after a
    stop or colon) and never in lower case: names and the words made of them ('Bayesian',
    'Gaussian', 'Ebola'), as the authors wrote them."""
    capitalised: set[str] = set()
    lower: set[str] = set()
    for match in _PROSE_WORD.finditer(prose):
        word = match.group(1)
        (capitalised if word[:1].isupper() else lower).add(word.lower())
    return capitalised - lower


def _keeps_case(word: str) -> bool:
    """'CRISPR', 'MoS2', 'mRNA', 'CRISPR-Cas9', 'T-cell' keep their case in sentence-case
    styles; 'Industry-Grade' or 'Cancer' may be lower-cased."""
    parts = [[char for char in part if char.isalpha()] for part in word.split("-")]
    return any(
        any(char.isupper() for char in letters[1:])
        or (len(parts) > 1 and len(letters) == 1 and letters[0].isupper())
        for letters in parts
    )


def bibtex_name(name: PersonName) -> str:
    """'Family, Given' for people; organisations in braces so BibTeX never splits them."""
    if name.literal:
        return f"{{{latex(name.literal)}}}"
    family = _guard_and(name.family)
    return f"{family}, {_guard_and(name.given)}" if name.given else family


def _guard_and(part: str) -> str:
    """LaTeX for a name part; braced if it holds the word 'and', which BibTeX splits names on."""
    encoded = latex(part)
    return f"{{{encoded}}}" if re.search(r"\band\b", part, re.IGNORECASE) else encoded


BIBTEX_TYPES: dict[EntryKind, str] = {"journal": "article", "chapter": "incollection",
                                      "book": "book"}
"""Entry types other than @misc; a chapter is @incollection (a part of a book with its own
title), the type biber and BibTeX styles print with 'In: <booktitle>'."""
VENUE_FIELDS: dict[EntryKind, str] = {"chapter": "booktitle", "book": "publisher"}
"""Where a chapter's and a book's venue goes: the book (or series) a chapter is in, the
publisher (or series) of a book, as the sources name them."""


def entry(work: Work, key: str) -> dict[str, str]:
    """The work as a bibtexparser entry dict (values already LaTeX-encoded)."""
    kind = entry_kind(work)
    fields: dict[str, str] = {"ENTRYTYPE": BIBTEX_TYPES.get(kind, "misc"), "ID": key}
    names = authors_of(work)
    if names:
        fields["author"] = " and ".join(bibtex_name(name) for name in names)
    # A material's title names a record ('... mp-149: Si'); no style may re-case it.
    fields["title"] = (f"{{{latex(work.title)}}}" if kind == "dataset"
                       else latex_title(work.title, work.abstract or ""))
    if kind == "journal":
        fields["journal"] = latex(work.venue or "")
    elif kind in VENUE_FIELDS and work.venue:
        fields[VENUE_FIELDS[kind]] = latex(work.venue)
    elif work.venue and not (kind == "preprint" and work.arxiv_id):
        fields["howpublished"] = latex(work.venue)
    if work.year:
        fields["year"] = str(work.year)
    if kind == "news" and work.published:
        fields["date"] = work.published.isoformat()
    fields.update(_place_fields(work))
    fields.update(_identifier_fields(work))
    notes = (["News"] if kind == "news" else []) + (["Retracted"] if work.is_retracted else [])
    if notes:
        fields["note"] = "; ".join(notes)
    if work.abstract:
        fields["abstract"] = latex(work.abstract)
    return fields


def _place_fields(work: Work) -> dict[str, str]:
    """Volume, issue (BibTeX's ``number``) and pages (a range with BibTeX's ``--``): where in
    its journal a work is, which a citation style prints and a reader needs to find it."""
    fields = {}
    if work.volume:
        fields["volume"] = latex(work.volume)
    if work.issue:
        fields["number"] = latex(work.issue)
    pages = page_range(work)
    if pages:
        fields["pages"] = latex(pages.latex)
    return fields


def _identifier_fields(work: Work) -> dict[str, str]:
    """DOI, PubMed, arXiv and URL fields; their values are verbatim, as biblatex and the url
    package read them, so nothing in them is LaTeX-escaped."""
    fields = {}
    if work.doi:
        fields["doi"] = verbatim(work.doi)
    if work.pmid:
        fields["pmid"] = work.pmid
    if work.pmcid:
        fields["pmcid"] = work.pmcid
    if work.arxiv_id:
        fields["eprint"] = work.arxiv_id
        fields["archiveprefix"] = "arXiv"
    url = landing_url(work)
    if url:
        fields["url"] = verbatim(url)
    return fields


def verbatim(value: str) -> str:
    """A verbatim field value with the characters that would unbalance the entry (braces,
    backslash) and spaces percent-encoded, as a browser would send them."""
    return "".join(_VERBATIM_UNSAFE.get(char, char) for char in value)


def dumps(works: list[Work]) -> str:
    """The works as a BibTeX file, in the given order, with keys from ``citation_keys``."""
    database = BibDatabase()
    database.entries = [entry(work, key) for work, key in zip(works, citation_keys(works))]
    writer = BibTexWriter()
    writer.indent = "  "
    writer.order_entries_by = None
    writer.display_order = FIELD_ORDER
    writer.add_trailing_comma = True
    return writer.write(database)
