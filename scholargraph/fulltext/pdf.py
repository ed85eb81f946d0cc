"""PDF articles into pages and, where the text shows them, section headings.

pypdf extracts each page's text layer (a scanned PDF without one gives no blocks). Lines are
joined into running text, words hyphenated across a line end are rejoined, and lines that are
only a page number are dropped. A line is a heading when it is short and either numbered like a
section ("3 Results", "2.1 Data sets", "IV. DISCUSSION") or one of the headings articles share
("Abstract", "Methods", "Conclusions"...); numbered headings nest ("2 Model > 2.1 Overview").
Text under "References" is left out until an appendix heading. Without any heading the text is
still kept, page by page, so a citation can at least give the page.
"""

from __future__ import annotations

import io
import logging
import re
import unicodedata

from pypdf import PageObject, PdfReader
from pypdf.errors import FileNotDecryptedError, PdfReadError, PyPdfError

from scholargraph.errors import InputError
from scholargraph.fulltext.model import FullTextDocument, TextBlock

log = logging.getLogger(__name__)

MAX_PAGES = 200
"""Pages read at most: a longer PDF is a book or a thesis, and its first pages are enough."""
KNOWN_HEADINGS = frozenset({
    "abstract", "introduction", "background", "related work", "related works", "methods",
    "method", "methodology", "materials and methods", "methods and materials", "experiments",
    "experimental setup", "experimental results", "evaluation", "results", "discussion",
    "results and discussion", "conclusion", "conclusions", "limitations", "future work",
    "conclusion and future work", "conclusions and future work", "summary", "findings",
    "case report", "case presentation", "data", "data availability", "patients and methods",
    "study design", "statistical analysis", "appendix", "supplementary material",
    "acknowledgements", "acknowledgments", "acknowledgement", "acknowledgment",
    "references", "bibliography", "literature cited", "funding", "author contributions",
    "competing interests", "conflict of interest", "ethics statement", "keywords",
})
BACK_MATTER = frozenset({"references", "bibliography", "literature cited", "acknowledgements",
                         "acknowledgments", "acknowledgement", "acknowledgment", "funding",
                         "author contributions", "competing interests", "conflict of interest"})
_NUMBERED = re.compile(
    r"^(?P<number>(?:\d{1,2}(?:\.\d{1,2}){0,3}|[IVX]{1,4}|[A-H](?:\.\d{1,2}){0,2}))\.?\s+"
    r"(?P<title>[A-Z][^\d=<>@]{1,80})$")
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?\s*$", re.IGNORECASE)
_MAX_HEADING_WORDS = 10


def parse_pdf(data: bytes) -> FullTextDocument:
    """The PDF's text as blocks carrying their page and section.

    Raises :class:`InputError` when ``data`` is not a readable PDF.
    """
    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [_page_text(page) for page in reader.pages[:MAX_PAGES]]
        title = _metadata_title(reader)
    except FileNotDecryptedError:
        raise InputError("the PDF is password-protected; give a copy without a password") \
            from None
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a readable PDF ({type(exc).__name__}: {exc})") from None
    document = FullTextDocument(format="pdf", pages=len(pages), title=title)
    _read_pages(pages, document)
    if document.title is None:
        document.title = first_page_title(pages[0] if pages else "")
    return document


def first_page_title(text: str) -> str | None:
    """The first line of the first page that can be a title: two words or more, not a page
    number, and before the abstract (a page that opens with its abstract, its title set
    elsewhere, has none: a sentence of the abstract is not the paper's title)."""
    for line in (line.strip() for line in text.splitlines()):
        if re.match(r"abstract\b", line, re.IGNORECASE):
            return None
        if len(line.split()) >= 2 and not _PAGE_NUMBER.match(line):
            return line
    return None


LIGATURES = {code: unicodedata.normalize("NFKC", chr(code)) for code in range(0xFB00, 0xFB07)}
"""The typographic ligatures a PDF's text layer keeps ('ﬁ', 'ﬂ', 'ﬀ', 'ﬃ'...) as their letters:
'ﬁles' is 'files' to a reader and must be to a search."""


def _page_text(page: PageObject) -> str:
    try:
        return (page.extract_text() or "").translate(LIGATURES)
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        log.info("PDF page not readable: %s", exc)
        return ""


TOOL_TITLE = re.compile(
    r"^(?:microsoft (?:word|powerpoint) - |untitled\b)|\.(?:docx?|pdf|tex|dvi|rtf|odt|indd|qxd|"
    r"ps|eps)$", re.IGNORECASE)
"""A ``/Title`` that the writing program filled in, not the paper's: 'Microsoft Word -
ieee_on_how_we_teach_jul_01.docx', 'untitled', 'main.tex'."""


def _metadata_title(reader: PdfReader) -> str | None:
    """The document's ``/Title`` when it is a title (two words or more, not a file name a
    program put there, :data:`TOOL_TITLE`); else None, and the first line is read instead."""
    metadata = reader.metadata
    title = re.sub(r"\s+", " ", str(metadata.get("/Title") or "")).strip() if metadata else ""
    return title if len(title.split()) >= 2 and not TOOL_TITLE.search(title) else None


class _Sections:
    """The running section path while lines are read, and whether text is kept under it."""

    def __init__(self) -> None:
        self.path: list[tuple[str, str]] = []
        self.keeping = True
        self.in_abstract = False

    def follows(self, number: str) -> bool:
        """Whether a heading numbered ``number`` can come next: numbered sections go up one
        at a time ('3' after '2' or '2.4'; '2.2' after '2.1' or '2'), so a line of running
        text or a table that happens to start with a number is not taken for one. Unnumbered
        and appendix-lettered headings always can."""
        if not number or not number[0].isdigit():
            return True
        parts = [int(part) for part in number.split(".")]
        current = self._last_number()
        if current is None:
            return parts[0] <= 2 and all(part <= 2 for part in parts[1:])
        for depth in range(len(parts)):
            same_parent = parts[:depth] == current[:depth]
            if same_parent and depth < len(current) and parts[depth] == current[depth] + 1:
                return all(part == 1 for part in parts[depth + 1:])
            if same_parent and depth == len(current):
                return parts[depth] == 1 and all(part == 1 for part in parts[depth + 1:])
        return False

    def _last_number(self) -> list[int] | None:
        numbered = [entry[0] for entry in self.path if entry[0][:1].isdigit()]
        return [int(part) for part in numbered[-1].split(".")] if numbered else None

    @property
    def name(self) -> str:
        return " > ".join(title for _, title in self.path)

    def enter(self, heading: str, number: str, known: str | None) -> None:
        """Enter ``heading``; it nests under the headings whose number prefixes its own
        ('2.1' under '2'), and an unnumbered one starts a new top-level path."""
        parents = [entry for entry in self.path
                   if number and entry[0] and number.startswith(entry[0] + ".")]
        self.path = [*parents, (number, heading)]
        self.in_abstract = known == "abstract"
        if known in BACK_MATTER:
            self.keeping = False
        elif not self.keeping:
            self.keeping = _is_appendix(heading)
        else:
            self.keeping = True


def _is_appendix(heading: str) -> bool:
    return heading.lower().startswith(("appendix", "supplement")) or bool(
        re.match(r"^[A-H](?:\.\d+)*\.?\s", heading))


def _read_pages(pages: list[str], document: FullTextDocument) -> None:
    sections = _Sections()
    abstract: list[str] = []
    for number, text in enumerate(pages, start=1):
        lines: list[str] = []
        kept = [line for line in (raw.strip() for raw in text.splitlines())
                if line and not _PAGE_NUMBER.match(line)]
        for line in _join_wrapped_headings(kept):
            heading = _heading(line)
            if heading is not None and not sections.follows(heading[1]):
                heading = None
            if heading is None:
                lines.append(line)
                continue
            _flush(lines, number, sections, document, abstract)
            lines = []
            sections.enter(*heading)
        _flush(lines, number, sections, document, abstract)
    if abstract:
        document.abstract = " ".join(abstract)
    _drop_front_matter(document)


def _join_wrapped_headings(lines: list[str]) -> list[str]:
    """A capitalised numbered heading too long for its column wraps ('2 CHARACTERIZING
    EXPOSITORY' over 'WRITING'): the capitalised rest is joined back, so the section is named
    whole and the rest is not read as the first words of its text."""
    joined: list[str] = []
    for line in lines:
        previous = joined[-1] if joined else ""
        if (previous.isupper() and _NUMBERED.match(previous) and _is_heading_rest(line)
                and len(previous.split()) + len(line.split()) <= _MAX_HEADING_WORDS):
            joined[-1] = f"{previous} {line}"
        else:
            joined.append(line)
    return joined


def _is_heading_rest(line: str) -> bool:
    """A short capitalised line that is neither a heading of its own nor holds a number
    ('TABLE 1' under a heading is a caption)."""
    plain = re.sub(r"[^a-z ]", "", line.lower()).strip()
    return (line.isupper() and line[0].isalpha() and len(line.split()) <= 4
            and not line.endswith((".", ",", ";", ":")) and plain not in KNOWN_HEADINGS
            and not any(char.isdigit() for char in line))


def _heading(line: str) -> tuple[str, str, str | None] | None:
    """(heading, its number or '', known name) when ``line`` is a section heading."""
    words = line.split()
    if not words or len(words) > _MAX_HEADING_WORDS or line.endswith((".", ",", ";", ":", "-")):
        return None
    plain = re.sub(r"[^a-z ]", "", line.lower()).strip()
    if plain in KNOWN_HEADINGS and line[0].isupper():
        return _title_case(line), "", plain
    match = _NUMBERED.match(line)
    if match is None:
        return None
    title = match.group("title").strip()
    if not _looks_like_title(title):
        return None
    number = match.group("number")
    known = re.sub(r"[^a-z ]", "", title.lower()).strip()
    return f"{number} {_title_case(title)}", number, known if known in KNOWN_HEADINGS else None


def _looks_like_title(title: str) -> bool:
    """Capitalised words, not a sentence fragment or a table row."""
    words = title.split()
    if len(words) > _MAX_HEADING_WORDS or title.endswith(("-", ",")):
        return False
    if title.count("(") != title.count(")"):
        return False
    capitalised = sum(1 for word in words if word[:1].isupper() or not word[:1].isalpha())
    return capitalised >= max(1, len(words) // 2) or len(words) <= 3


def _title_case(heading: str) -> str:
    """'RESULTS AND DISCUSSION' -> 'Results and discussion'; mixed case is kept."""
    return heading.capitalize() if heading.isupper() else heading


def _flush(lines: list[str], page: int, sections: _Sections, document: FullTextDocument,
           abstract: list[str]) -> None:
    text = join_lines(lines)
    if not text:
        return
    if sections.in_abstract:
        abstract.append(text)
        return
    if not sections.keeping:
        return
    document.blocks.append(TextBlock(text=text, section=sections.name, page=page))


def _drop_front_matter(document: FullTextDocument) -> None:
    """The first page's lead before any heading (title, authors, affiliations) is not evidence;
    it is dropped when headings follow (without any, it is all the text there is)."""
    if any(block.section for block in document.blocks):
        while document.blocks and not document.blocks[0].section and document.blocks[0].page == 1:
            document.blocks.pop(0)


def join_lines(lines: list[str]) -> str:
    """Lines as running text: a word hyphenated at a line end is rejoined ('ingre-' 'dient'),
    and a compound broken at its hyphen keeps it without a space ('MED-' 'LINE': 'MED-LINE',
    'non-' 'Hodgkin': 'non-Hodgkin')."""
    text = ""
    for line in lines:
        broken = text.endswith("-") and len(text) > 1 and text[-2].isalpha()
        if broken and line[:1].islower():
            text = text[:-1] + line
        elif broken and line[:1].isupper():
            text += line
        elif text:
            text = f"{text} {line}"
        else:
            text = line
    return re.sub(r"\s+", " ", text).strip()
