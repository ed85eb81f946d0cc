"""Titles as deduplication compares them, and what a title says about the record.

Databases decorate titles: notes ('[Review] [16 refs]', '[Erratum appears in ...]'), format
labels ('(Tutorial)'), a translation beside the original, and a notice's label ('Erratum: X',
'X - Reply', 'Re: X'). :func:`normalize_title` and :func:`title_variants` strip all of it to
the words that name the work; :func:`notice_kind` tells a notice from the work it concerns, and
:func:`cited_errata` reads where a corrected article's note says its erratum is printed. The
label patterns are shared by the stripping and the detection, so they live here together.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass

from scholargraph.records import has_retraction_label

MIN_EXTENDED_WORDS = 6
"""A title may be extended by a subtitle or note only if it has this many distinct words."""


@dataclass(frozen=True)
class CitedPlace:
    """Where a record's note says a related item is printed: '360(23):2487'."""

    volume: str
    issue: str | None
    page: int | None


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

    A title with Greek letters is also compared with each written as the Latin letter it looks
    like: the letter is spelt out (:func:`to_ascii`) to meet MEDLINE's 'TNF-alpha', but a
    database that cannot encode it writes a look-alike ('The p operator' for 'The ρ operator',
    'ug' for 'µg'). A look-alike is still a letter: 'TNF-α' and 'TNF-β' stay two words apart
    in both forms (dropping the letters would make them one title).
    """
    text = _strip_notes(title)
    parts: list[str] = []
    if bracketed := re.fullmatch(r"\[([^\[\]]+)\]\.?\s*(.+)", text):
        parts.extend(bracketed.groups())
    parts.extend(re.split(r"\s*;\s+|\s+=\s+", text))
    variants = [_words(text)]
    if _GREEK.search(text):
        variants.append(_words(text.translate(_LOOK_ALIKES)))
    variants += [words for words in map(_words, parts)
                 if len(words.split()) >= MIN_EXTENDED_WORDS]
    return tuple(dict.fromkeys(v for v in variants if v))


def _strip_notes(title: str) -> str:
    text = plain_text(title).strip().strip("\"'“”")
    if has_retraction_label(text):
        text = _RETRACTED_LABEL.sub("", text, count=1)
    text = _INLINE_TAG.sub("", text)
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
    """The title's lower-case ASCII words, each written one way where titles write it two
    ('&' / 'and', 'vs' / 'versus', 'phase II' / 'phase 2': :data:`_SAME_WORDS`,
    :data:`_NUMBERED`)."""
    words = re.findall(r"[a-z0-9]+|&", to_ascii(text).lower())
    words = [_SAME_WORDS.get(word, word) for word in words]
    for index in range(1, len(words)):
        numeral = _ROMAN.fullmatch(words[index])
        if words[index - 1] in _NUMBERED and numeral:
            words[index] = _ROMAN_NUMERALS[numeral.group(1)] + numeral.group(2)
    return " ".join(words)


_SAME_WORDS = {"&": "and", "vs": "versus"}
"""Words titles abbreviate ('Surgery vs. radiotherapy', 'Cancer & pregnancy'): one spelling,
so that a short title does not differ by them."""
_NUMBERED = frozenset({"phase", "part", "type", "stage", "grade", "class", "cin", "vin", "ain",
                       "level", "category", "generation", "tier"})
"""Words a number follows, written in roman or arabic numerals ('phase II' / 'phase 2', 'CIN
III' / 'CIN 3'): after them, a roman numeral is read as its number. Elsewhere 'I' is a word
and 'IV' may be intravenous, so they are left alone. 'Part I' and 'Part II' stay two numbers."""
_ROMAN = re.compile(r"(i{1,3}|iv|v|vi{1,3}|ix|x)([a-c]?)")
"""A roman numeral up to ten, with the sub-stage letter of 'stage IIIA'."""
_ROMAN_NUMERALS = {roman: str(number) for number, roman in enumerate(
    ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"), start=1)}


def to_ascii(text: str) -> str:
    """ASCII letters only: accents decomposed away ('é' -> 'e'), the letters Unicode does not
    decompose spelt as their ASCII transliteration ('ø' -> 'o', 'ß' -> 'ss', 'ł' -> 'l'), and
    Greek letters spelt out as MEDLINE spells them ('TNF-α' -> 'TNF-alpha', 'IL-1β' ->
    'IL-1beta', 'αvβ3' -> 'alphavbeta3'): a publisher's record keeps the letter, MEDLINE's
    writes its name, and dropping it would leave 'TNF- in sepsis' against 'TNF-alpha in
    sepsis', too far apart for a short title to match."""
    text = unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED))
    return text.encode("ascii", "ignore").decode()


def plain_text(text: str) -> str:
    """``text`` with HTML entities decoded (twice: an export may escape the '&' of an entity
    again, '&amp;#946;'), every dash or hyphen character written as '-' ('‐', '–', '—', '−')
    and every apostrophe as "'" ('Hodgkin’s' would otherwise be one word, 'Hodgkin's' two),
    so that the patterns below and the words compared read one form."""
    return html.unescape(html.unescape(text)).translate(_DASHES)


def _greek_letters() -> dict[str, str]:
    """Each Greek letter to its name ('α' -> 'alpha', 'Ω' -> 'Omega'), and the micro sign to
    'micro' as MEDLINE spells units."""
    letters: dict[str, str] = {"\u00b5": "micro"}  # the micro sign: 'µg' is 'microg'
    for code in [*range(0x391, 0x3AA), *range(0x3B1, 0x3CA)]:
        name = unicodedata.name(chr(code), "")
        if match := re.fullmatch(r"GREEK (SMALL|CAPITAL) LETTER (\w+)", name):
            word = match.group(2).lower()
            letters[chr(code)] = word if match.group(1) == "SMALL" else word.capitalize()
    letters["\u03c2"] = "sigma"  # final sigma
    return letters


_UNDECOMPOSED = str.maketrans({
    "ø": "o", "Ø": "O", "æ": "ae", "Æ": "Ae", "œ": "oe", "Œ": "Oe", "ß": "ss", "ł": "l",
    "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th", "ı": "i",
    **_greek_letters(),
})
_DASHES = str.maketrans({
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
    **dict.fromkeys("\u2018\u2019\u02bc\u2032\u0060\u00b4", "'"),
})
_RETRACTED_LABEL = re.compile(r"^\W*retracted(?: article)?\s*[:.\]]\s*", re.IGNORECASE)
"""The label a publisher puts before a retracted article's own title ('RETRACTED: X',
'[Retracted] X'; :func:`~scholargraph.records.has_retraction_label` tells it): stripped, so
that the labelled record joins the article's other records and the work is flagged retracted
whichever record a review would cite. The notice is 'Retraction: X' (:func:`notice_kind`)."""
_GREEK = re.compile(r"[\u0391-\u03a9\u03b1-\u03c9\u00b5]")
_LOOK_ALIKES = str.maketrans({
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "μ": "u", "\u00b5": "u", "ω": "w", "γ": "y",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
})
"""The Latin letter a Greek one is written as by a database that cannot encode it."""
_INLINE_TAG = re.compile(r"</?(?:sup|sub)\b[^>]*>", re.IGNORECASE)
"""Superscript and subscript markup, removed without a space: 'H<sub>2</sub>O' is 'H2O' as a
database without markup writes it (other tags become a space: '<i>in vitro</i>')."""


def recurring_column(title: str) -> bool:
    """Whether a normalised title is a journal's recurring column or front matter ('Editor's
    Comments', 'From the Editor', 'Guest Editorial', 'Chair's Message', 'Book Reviews'): every
    word one such titles are made of. Each issue prints one under the same title, often by the
    same editor, so the title says which column it is, not which issue."""
    words = [word for word in title.split() if not word.isdigit()]  # 'Reviewers 2017'
    return bool(words) and all(word in _COLUMN_WORDS for word in words)


_COLUMN_WORDS = frozenset({
    "chief", "program", "programme", "general", "co", "thank", "you", "vol", "no",
    "statement", "opinion", "opinions", "essay", "about", "author", "authors", "recognition",
    "appointment", "appointments", "senior", "associate", "award", "awards", "best", "paper",
    "summary", "abstracts", "list", "upcoming", "events", "frontmatter", "backmatter", "front",
    "back", "matter", "cover",
    "a", "an", "and", "the", "of", "to", "for", "from", "in", "on", "by", "this", "our", "with",
    "at", "s", "editor", "editors", "editorial", "editorials", "guest", "chair", "chairs",
    "chairman", "president", "presidents", "vice", "treasurer", "treasurers", "secretary",
    "director", "directors", "publisher", "publishers", "members", "member", "message", "messages",
    "letter", "letters", "note", "notes", "comment", "comments", "commentary", "column", "columns",
    "corner", "desk", "introduction", "foreword", "preface", "prologue", "epilogue", "welcome",
    "overview", "issue", "issues", "volume", "special", "section", "sections", "book", "books",
    "review", "reviews", "reviewers", "reviewer", "acknowledgement", "acknowledgements",
    "acknowledgment", "acknowledgments", "thanks", "news", "announcement", "announcements", "call",
    "calls", "papers", "contents", "index", "masthead", "information", "board", "reports",
    "report", "forum", "viewpoint", "perspective", "perspectives", "highlights", "update",
    "updates", "erratum", "errata", "correction", "corrections", "obituary", "memoriam", "remarks",
    "opening", "closing", "keynote", "address", "panel", "research", "new", "year", "annual"
})
"""The words recurring columns and front matter are titled with, and nothing else: a title
made only of them names no subject."""


def notice_kind(title: str) -> str | None:
    """'erratum', 'retraction', 'concern', 'reply' or 'comment' when the title names a notice
    about a work.

    An erratum ('Erratum: X', 'Correction to X', 'Correction notice: X', 'Addendum: X', Web of
    Science's 'X (vol 85, pg 553, 2010)'), a retraction notice ('Retraction note to: X'), an
    expression of concern, a reply ('X - Reply', 'Reply to X', 'Authors' response: X', 'In
    response to X', 'Response to: X') or a comment ('Comment on X', 'Comment: X', 'Re: X',
    'Letter to the editor: X') carries the title of the work it is about but is a publication
    of its own, with its own PMID and DOI in every source the project asks. Such a notice is
    often listed under the work's authors (who answer the letter, or whose article the notice
    is about), so only its label keeps it from the work. 'Response to rituximab in ...' with no
    colon is a study of a treatment's response, not a reply.
    """
    if has_retraction_label(title):
        return None  # 'RETRACTED: X' is the retracted article X, its notice is 'Retraction: X'
    text = plain_text(title).strip().strip("\"'“”[")
    for kind, pattern in _NOTICES:
        if pattern.search(text):
            return kind
    return None


def opens_with_notice_label(title: str) -> bool:
    """Whether a title opens with a notice's label and nothing else before its separator
    ("Erratum:", "Correction to", "Notice of Retraction:", "Publisher's Note:", "Addendum to")
    or cites the volume it corrects. :func:`notice_kind` reads a notice's kind from its first
    word, which a study's title can share: "Errata in trials: a survey" opens with the study's
    own words and is a study, so a record found alone is taken for a notice only when this
    holds too."""
    return bool(_NOTICE_OPENING.search(plain_text(title)))


def cited_errata(title: str) -> tuple[CitedPlace, ...]:
    """Where the record's note says the work's errata are printed.

    MEDLINE appends '[Erratum appears in N Engl J Med. 2009 Jun 4;360(23):2487]' to the title
    of a corrected article (PubMed keeps the same link as 'Erratum in:'): the volume, issue and
    first page of the erratum, which :func:`~scholargraph.dedup.deduplicate` looks for
    among the other records.
    """
    places = []
    for volume, issue, page in _ERRATUM_IN.findall(plain_text(title)):
        places.append(CitedPlace(volume.lower(), normalize_issue(issue), int(page)))
    return tuple(places)


def normalize_issue(issue: str | None) -> str | None:
    """The issue as written, without spaces or case ('Suppl1' from 'Suppl 1')."""
    return re.sub(r"\s+", "", issue or "").lower().strip(".") or None


_AUTHORS_REPLY = r"(?:the\s+)?authors?['’]?s?['’]?\s+(?:reply|response)"
_CORRECTION = re.compile(r"^(erratum|correction(?: notice)?|corrigendum|addendum)( to)?\s*[:.]?\s*",
                         re.IGNORECASE)
"""Stripped so that two records of one erratum compare their titles; :func:`notice_kind` keeps
an erratum apart from the work it corrects."""
_REPLY_MARKER = re.compile(
    rf"^(?:re|(?:in\s+)?reply|response|{_AUTHORS_REPLY}|comments?|commentary)\s*:\s*"
    rf"|^(?:(?:in\s+)?reply|{_AUTHORS_REPLY}|comments?|commentary)\s+(?:to|on)\s*:?\s+"
    rf"|^(?:in\s+response\s+to|response\s+to\s*:)\s*"
    rf"|\s*[-:\u2013\u2014]\s*(?:{_AUTHORS_REPLY}|reply|response)(?:\s+to\s.*)?\W*$"
    rf"|\s+{_AUTHORS_REPLY}\W*$|\s*\((?:{_AUTHORS_REPLY}|reply|response)\)$",
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
    r"\[corrected\]|\((?:panel(?: session| abstract| summary)?|tutorial(?: session)?"
    r"|keynote(?: talk)?"
    r"|invited talk|demo(?:nstration)?(?: abstract| description| paper)?|experience paper"
    r"|industrial paper|extended abstract|extended version|short version|abstract only"
    r"|poster(?: abstract)?|preprint)\)|^\s*(?:tutorial|panel|keynote)\s*:|^\s*tutorial on\s+(?=\w)"
    r"|(?<=[?.!:])\s+panel\s*$|^\s*(?:guest\s+)?(?:editors?['’]?s?['’]?\s+)?foreword\s*:"
    r"|(?<=\w)\s*[,:\-\u2013]\s+(?:guest\s+)?editors?['’]?s?['’]?\s+(?:foreword|introduction)\s*$",
    re.IGNORECASE)
"""Labels a proceedings, a journal, a preprint server or a database adds to a title: the format
of the talk, the editor's role ('Guest Editors' Foreword', 'Foreword: '), JMIR's '(Preprint)',
not the work."""
_LABEL_WORD = (r"(?:notice|of|retraction|retracted|erratum|errata|corrigendum|corrigenda|correction"
               r"|addendum|addenda|note|the|article|publisher['’]?s?|authors?['’]?s?|expression"
               r"|concern)")
"""The words a notice's label is made of (the kinds :data:`_NOTICES` reads, and the words
around them: "Notice of", "Publisher's Note", "Authors' Correction")."""
_NOTICE_OPENING = re.compile(
    rf"^\W*(?:{_LABEL_WORD}\s+){{0,3}}{_LABEL_WORD}(?:\s*[:.\u2013\u2014]|\s+-\s|\s+to\b|\s*$)"
    r"|\(vol\.? \d+", re.IGNORECASE)
_NOTICES = (
    ("erratum", re.compile(
        r"^(?:errat(?:um|a)|corrigend(?:um|a))\b|^correction(?:\s+notice)?(?:\s+to\b|\s*[:.]|$)"
        rf"|^addend(?:um|a)\s*(?:to\b|[:.])|\(vol\.? \d+,? (?:pg|p)\.? \d+|{_CITATION}\W*$",
        re.IGNORECASE)),
    ("retraction", re.compile(
        r"^(?:retraction(?: note| notice)?(?: of)?|notice of retraction)\s*(?:[:.]|to\b)",
        re.IGNORECASE)),
    ("concern", re.compile(r"^(?:editorial\s+)?(?:expression|notice)\s+of\s+concern\b",
                           re.IGNORECASE)),
    ("reply", re.compile(
        r"^(?:in )?reply\b|\breply to\b|\b(?:authors?'?|author's) (?:reply|response)\b"
        r"|\s[-:]\s*(?:reply|response)\W*$|\((?:reply|response)\)\W*$"
        r"|^in response to\b|^response\s*(?:to\s*)?:", re.IGNORECASE)),
    ("comment", re.compile(
        r"^comments? on\b|^commentary on\b|^(?:re|comments?|commentary)\s*:"
        r"|\beditorial comment\W*$|^letter to the editor\s*[:.]", re.IGNORECASE)),
)
