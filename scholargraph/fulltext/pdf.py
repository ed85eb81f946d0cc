"""PDF articles into pages and, where the text shows them, section headings.

pypdf extracts each page's text layer (a scanned PDF without one gives no blocks). Lines are
joined into running text, words hyphenated across a line end are rejoined, and lines that are
only a page number are dropped. A line is a heading when it is short and either numbered like a
section ("3 Results", "2.1 Data sets", "IV. DISCUSSION") or one of the headings articles share
("Abstract", "Methods", "Conclusions"...); numbered headings nest ("2 Model > 2.1 Overview").
Text under "References" is left out until an appendix heading. Without any heading the text is
still kept, page by page, so a citation can at least give the page.

pypdf reads a page's running head, its footnotes, its tables and its captions into the running
text, where they would be read as a finding's sentence. Running heads and feet (a line repeated
at the pages' edges, the paper's title over its pages, arXiv's stamp) are dropped
(:func:`without_running_heads`), so are footnotes; captions and tables of numbers become blocks
of their own kind (:func:`line_kinds`); a sentence running over a page is read whole
(:func:`_finish_sentence`: 23 of the 97 paragraph blocks ended mid-sentence, 2 of 93 now). On
the four recorded PDFs of the shared fixtures this took 1,857 of 26,930 words (7%) out of the
paragraphs, every one of them a footnote, caption, table cell, running head or stamp (read word
by word), and made 20 caption and 12 table blocks; the rules were written on the ACL paper
N18-3011 and the table header rule on SPECTER's, and checked on the other two. On two PDFs not
looked at while writing them (the libtasn1 and shared-mime-info manuals installed on the
machine) they dropped 31 running heads and moved a hex dump and a struct layout to table
blocks, and took no sentence out; that check found the page rule joining a sentence onto the
title page's lead, which was then dropped with it (:func:`_is_front_matter` now stops it).

The words drawn inside a figure and a listing set in a fixed-pitch font are told by the page's
layout, not their words (:mod:`scholargraph.fulltext.layout`, :func:`_page_texts`): on the
shared fixtures' four PDFs this took SPECTER's and 2304.02623's Figure 1 words out of the text
and Multi-LexSum's seven-line Python listing out of a sentence; on science-parse's 29 test
PDFs, not looked at while writing the rules, 1,163 lines of figure words in 9 of them (axis
ticks, legends, node labels, algorithm boxes) and 93 lines of listings in 5 (MapReduce's C++,
a DTD, Lisp): 32 of the 4,466 sentences that could be quoted changed, each read losing a
figure's words or a listing run into it ('TEXTRUNNER-R has much lower precision than REVERB and
0.0 0.1 0.2 ... Recall ... REVERB¬lex at all levels of recall.'); two typewriter lines ending
a sentence with a web address, first taken for a listing, are prose (:data:`layout.MONOSPACE_LINE`).
"""

from __future__ import annotations

import io
import logging
import math
import re
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from scholargraph.errors import InputError
from scholargraph.fulltext.layout import Piece, StyledLine, body_font, page_pieces, styled_lines
from scholargraph.fulltext.model import FullTextDocument, TextBlock

if TYPE_CHECKING:
    from pypdf import PageObject, PdfReader

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

    Raises :class:`InputError` when ``data`` is not a readable PDF. pypdf is imported here, by
    the first PDF read, not with the graph.
    """
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError, PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        extracted = [_page_pieces(page) for page in reader.pages[:MAX_PAGES]]
        title = _metadata_title(reader)
    except FileNotDecryptedError:
        raise InputError("the PDF is password-protected; give a copy without a password") \
            from None
    except DependencyError:
        raise InputError(ENCRYPTED_NEEDS_CRYPTOGRAPHY) from None
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a readable PDF ({type(exc).__name__}: {exc})") from None
    pages, listings = _page_texts(extracted)
    document = FullTextDocument(format="pdf", pages=len(pages), title=title)
    _read_pages(pages, document, listings)
    if document.title is None:
        document.title = first_page_title(pages[0] if pages else "")
    return document


ENCRYPTED_NEEDS_CRYPTOGRAPHY = (
    "the PDF is encrypted with AES (as publishers lock printing or copying, with no password "
    "to open it); reading it needs the 'cryptography' package: pip install cryptography")
"""pypdf opens such a PDF with the empty password, but decrypts AES only through the
``cryptography`` package, which it does not require; without it pypdf raises its
``DependencyError``, which is not one of its read errors and stopped the whole parse."""


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


def _page_pieces(page: PageObject) -> tuple[str, list[Piece]]:
    from pypdf.errors import DependencyError, PyPdfError

    try:
        return page_pieces(page)
    except DependencyError:
        raise InputError(ENCRYPTED_NEEDS_CRYPTOGRAPHY) from None
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.info("PDF page not readable: %s", exc)
        return "", []


LISTING_LINES = 2
"""Lines in a fixed-pitch font one after another that make a listing (a program, a command
session, a configuration file): a single such line is as often a web address or an e-mail
address set in the typewriter font of the running text ('www.semanticscholar.org.' ending the
recorded N18-3011 PDF's abstract), and is read as text."""


def _page_texts(extracted: list[tuple[str, list[Piece]]]) -> tuple[list[str], list[set[str]]]:
    """Each page's text without the words drawn inside its figures (:mod:`layout`), and the
    lines of its listings (:data:`LISTING_LINES` lines or more in a fixed-pitch font), which
    :func:`line_kinds` keeps out of the running text. A figure's words are no sentence: the
    recorded SPECTER PDF read its Figure 1's labels as one ('Transformer (initialized with
    SciBERT) Related paper (P+)Query paper (PQ) ...'), and the recorded 2304.02623 PDF its
    Figure 1's sample paragraph, read as a caption block beside the Introduction."""
    body = body_font([pieces for _, pieces in extracted])
    pages: list[str] = []
    listings: list[set[str]] = []
    for text, pieces in extracted:
        lines = [line for line in styled_lines(text, pieces, body) if not line.figure]
        pages.append("\n".join(line.text for line in lines).translate(LIGATURES))
        listings.append(_listing_lines(lines))
    return pages, listings


def _listing_lines(lines: list[StyledLine]) -> set[str]:
    """The stripped text of the lines in runs of :data:`LISTING_LINES` or more fixed-pitch lines
    (blank lines between them do not end a run)."""
    found: set[str] = set()
    run: list[str] = []
    for line in [*lines, StyledLine("end")]:
        if not line.text.strip():
            continue
        if line.monospace:
            run.append(line.text.strip().translate(LIGATURES))
            continue
        if len(run) >= LISTING_LINES:
            found.update(run)
        run = []
    return found


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
        self.in_keywords = False

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
        self.in_keywords = known == "keywords"
        if known in BACK_MATTER:
            self.keeping = False
        elif not self.keeping:
            self.keeping = _is_appendix(heading)
        else:
            self.keeping = True


def _is_appendix(heading: str) -> bool:
    return heading.lower().startswith(("appendix", "supplement")) or bool(
        re.match(r"^[A-H](?:\.\d+)*\.?\s", heading))


def _read_pages(pages: list[str], document: FullTextDocument,
                listings: list[set[str]] | None = None) -> None:
    sections = _Sections()
    abstract: list[str] = []
    page_lines = [[line for line in (raw.strip() for raw in text.splitlines())
                   if line and not _PAGE_NUMBER.match(line)] for text in pages]
    title = document.title or first_page_title(pages[0] if pages else "")
    page_lines = without_running_heads(page_lines, title)
    vocabulary = Vocabulary([line for lines in page_lines for line in lines])
    seen = ""
    for number, kept in enumerate(page_lines, start=1):
        segments: list[list[str]] = [[]]
        joined = _join_wrapped_headings(kept)
        seen += "\n" + "\n".join(joined)
        kinds = line_kinds(joined, seen, listings[number - 1] if listings else None)
        notes = {int(m.group(1)) for line, kind in zip(joined, kinds, strict=True)
                 if kind == "footnote" and (m := _FOOTNOTE.match(line))}
        after_listing = False
        for line, kind, run_end in _runs(joined, kinds, vocabulary):
            if after_listing and kind == "text" and not line[:1].islower():
                _flush(segments, number, sections, document, abstract, vocabulary)
                segments = [[]]  # a listing ends its paragraph, unless its sentence goes on
            after_listing = kind == "listing" or (after_listing and kind != "text")
            if kind != "text":
                if run_end and kind in ("caption", "table") and sections.keeping \
                        and not sections.in_abstract:
                    document.blocks.append(TextBlock(text=run_end, section=sections.name,
                                                     page=number, kind=kind))
                if run_end and segments[-1]:
                    segments.append([])  # text on either side of a float
                continue
            heading = _heading(line)
            if heading is not None and not sections.follows(heading[1]):
                heading = None
            if heading is None:
                segments[-1].append(_without_marks(line, notes))
                continue
            _flush(segments, number, sections, document, abstract, vocabulary)
            segments = [[]]
            sections.enter(*heading)
        _flush(segments, number, sections, document, abstract, vocabulary)
    if abstract:
        document.abstract = join_lines(abstract, vocabulary)
    _drop_front_matter(document)


EDGE_LINES = 3
"""Lines at a page's top and bottom where running heads and feet are printed."""
RUNNING_SHARE = 0.3
"""A line printed at a page's edge on this share of the pages (at least two) is a running head or
foot: the journal, the authors ('Shen, et al.' on the even pages of a recorded arXiv PDF), a
licence line. Alternating heads are each on half the pages; an appendix's repeated questions
('Any other comments?') on 6 of a recorded 37-page PDF's pages (16%) stay."""
_STAMP = re.compile(r"^arXiv:\d{4}\.\d{4,5}(?:v\d+)?\s+\[[\w.\-]+\]\s+\d{1,2}\s+\w{3}\s+\d{4}$")
"""arXiv's side stamp ('arXiv:2304.02623v1 [cs.CL] 5 Apr 2023'), read as a line of its own."""
_RUNNING_TITLE_WORDS = 4


def _edge_key(line: str) -> str:
    """A line as running heads repeat it: case and page numbers ignored."""
    return re.sub(r"\d+", "#", " ".join(line.lower().split()))


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def without_running_heads(pages: list[list[str]], title: str | None) -> list[list[str]]:
    """Each page's lines without its running head and foot, which pypdf reads into the text
    ('... working memory' then the paper's title, then the sentence's rest, in a recorded arXiv
    PDF): an edge line repeated on :data:`RUNNING_SHARE` of the pages, one that is the paper's
    title (or a shortened title of :data:`_RUNNING_TITLE_WORDS` words or more) after the first
    page, and arXiv's side stamp."""
    counts: dict[str, int] = {}
    for lines in pages:
        for key in {_edge_key(line) for line in lines[:EDGE_LINES] + lines[-EDGE_LINES:]}:
            counts[key] = counts.get(key, 0) + 1
    least = max(2, math.ceil(RUNNING_SHARE * len(pages)))
    repeated = {key for key, count in counts.items() if count >= least}
    name = _letters(title or "")

    def running(line: str, page: int) -> bool:
        if _edge_key(line) in repeated or _STAMP.match(line):
            return True
        letters = _letters(line)
        return page > 0 and bool(name) and len(line.split()) >= _RUNNING_TITLE_WORDS \
            and name.startswith(letters)

    kept = []
    for page, lines in enumerate(pages):
        edges = set(range(EDGE_LINES)) | set(range(len(lines) - EDGE_LINES, len(lines)))
        kept.append([line for index, line in enumerate(lines)
                     if index not in edges or not running(line, page)])
    return kept


LineKind = Literal["text", "caption", "footnote", "table", "listing"]
_CAPTION = re.compile(
    r"^(?:Table|TABLE|Figure|FIGURE|Fig\.|FIG\.|Supplementary (?:Table|Figure))\s+"
    r"(?:S?\d{1,2}|[IVX]{1,4})[a-z]?\s*[:.|]\s*\S")
"""A caption's first line ('Table 2: Document-level evaluation...', 'Fig. 3. Survival...');
'Table 2 shows...' in running text has no colon or stop after the number."""
_LABELLED_CAPTION = re.compile(
    r"^(?:Table|TABLE|Figure|FIGURE|Fig\.|FIG\.)\s+(?:S?\d{1,2}|[IVX]{1,4})[a-z]?\s*[:|]\s*\S")
"""A caption's first line with a colon after its label ('Figure 1: Dissecting ...'), which
running text does not write: a caption even under a line that does not end a sentence, as the
words inside a figure do ('Knowledge-Generation' over the recorded arXiv PDF 2304.02623's
Figure 1 caption, which was read into its Introduction)."""
_FOOTNOTE = re.compile(r"^(\d{1,2})(?=[A-Z][a-z]|[A-Z]{3,}|https?:|www\.)")
"""A footnote's first line as pypdf reads it: its raised number glued to the note ('1Due to
space constraints...', '7http://rtw.ml.cmu.edu/rtw/', '2SPECTER: Scientific Paper Embeddings
...', which the recorded SPECTER PDF read into the middle of 'the state-of-the-art')."""
_NUMBER_CELL = re.compile(r"^[<>≤≥±~≈]?[-−+]?\(?\d[\d.,]*%?\)?[*†‡]*$|^[-–—]$")
_MAX_RUN = 6
_TABLE_HEAD_WORDS = 6
TABLE_HEAD_NAMED = 0.7
"""The share of a longer header line's words that are not lower-case: column names; a line of
prose has most of its words in lower case."""
_TABLE_HEAD_LINES = 3


def _mark_before(number: int, text: str) -> bool:
    """Whether ``text`` holds footnote mark ``number`` raised after a word or a stop
    ('mentions.4', 'TagMe)5', 'OpenIE 4,8'), or after a space pypdf put before it ('draft 13');
    the footnote's own line is shaped strictly enough (:data:`_FOOTNOTE`) for the looser mark."""
    return re.search(rf"[A-Za-z).,;:\u201d\u2019] ?{number}(?!\d)", text) is not None


def _is_table_row(line: str) -> bool:
    """A row of numbers: two cells or more, half of them numbers ('Hybrid 91.5 1990 92.1')."""
    cells = line.split()
    numbers = sum(1 for cell in cells if _NUMBER_CELL.match(cell))
    return numbers >= 2 and 2 * numbers >= len(cells)


def line_kinds(lines: list[str], seen: str,
               listing: set[str] | None = None) -> list[LineKind]:
    """Each line's kind: 'caption' (a figure or table caption, to its first full stop, at most
    :data:`_MAX_RUN` lines), 'footnote' (a note whose number was raised in the text before, in
    ``seen``), 'table' (two rows of numbers or more, with up to two short header lines above
    them) or 'text'. Pypdf reads captions, footnotes and tables into the running text (the
    recorded ACL paper's 'Results' read '... mentions.4 III. Off-the-shelf ... 4We also
    experimented ... Hybrid 91.5 1990 92.1 3126 ... Table 2: Document-level evaluation ...'):
    a caption is kept as a caption and a table as a table, never as a finding's sentence, and a
    footnote, which JATS leaves out too, is left out. The lines of ``listing`` (a program set in
    a fixed-pitch font: :func:`_listing_lines`) are a listing, left out as JATS leaves out its
    ``<code>`` and ``<preformat>``: 'model <- glm(relapse ~ dose, family = binomial)' is no
    sentence of the paper's."""
    kinds: list[LineKind] = ["text"] * len(lines)
    _mark_tables(lines, kinds)
    for index, line in enumerate(lines):
        if listing and kinds[index] == "text" and line in listing and not _FOOTNOTE.match(line):
            kinds[index] = "listing"  # a note's address in a typewriter font stays its note's
    goes_on = _caption_goes_on([line for line, kind in zip(lines, kinds, strict=True)
                                if kind == "text" and len(line.split()) >= _PROSE_WORDS])
    index = 0
    while index < len(lines):
        line = lines[index]
        previous = lines[index - 1] if index else ""
        footnote = _FOOTNOTE.match(line)
        if kinds[index] == "text" and _CAPTION.match(line) \
                and (not re.search(r"[a-z,;(\-]$", previous) or _LABELLED_CAPTION.match(line)):
            index = _extend(lines, kinds, index, "caption", goes_on)
        elif kinds[index] == "text" and footnote and _mark_before(int(footnote.group(1)), seen):
            index = _extend(lines, kinds, index, "footnote", _footnote_goes_on)
        else:
            index += 1
    _mark_labelled_rows(lines, kinds)
    _mark_panel_labels(lines, kinds)
    return kinds


_TABLE_CAPTION = re.compile(r"^(?:Table|TABLE|Supplementary Table)\s")
LABELLED_ROW_WORDS = 7
"""Words a row of a one-figure table has at most ('Avg. of 15 models with LM 55.2'); a column's
line of prose has more."""


def _is_labelled_row(line: str) -> bool:
    """A table row of a label and one figure ('Without LM 49.9'), which :func:`_is_table_row`
    (half its cells figures) does not take."""
    words = line.split()
    return 2 <= len(words) <= LABELLED_ROW_WORDS and _NUMBER_CELL.match(words[-1]) is not None \
        and any(word[:1].isalpha() for word in words[:-1])


def _mark_labelled_rows(lines: list[str], kinds: list[LineKind]) -> None:
    """The rows of a table of one figure per row, next to its caption ('Table 3: Results of the
    entity extraction model ...'): two or more labelled rows (:func:`_is_labelled_row`) right
    above the caption or right below it, with the header lines over them. The recorded ACL
    paper N18-3011 set 'Description F1' 'Without LM 49.9' 'With LM 54.1' over its Table 3's
    caption, and they were read into the sentence around the table ('... we use three
    instances of the entity extraction model Description F1 Without LM 49.9 With LM 54.1 ...
    with a similar architecture'). On the shared fixtures' other three PDFs this marks no line;
    on science-parse's 29 test papers, not looked at while writing it, it made table blocks of
    6 tables in 4 papers ('Input data read 3,288 TB', 'Intermediate data produced 758 TB' ...)
    and took nothing but their cells out of the paragraphs."""
    for start, line in enumerate(lines):
        if kinds[start] != "caption" or not _TABLE_CAPTION.match(line) or (
                start and kinds[start - 1] == "caption"):
            continue
        end = start
        while end + 1 < len(lines) and kinds[end + 1] == "caption":
            end += 1
        above = start
        while above > 0 and kinds[above - 1] == "text" and _is_labelled_row(lines[above - 1]):
            above -= 1
        below = end + 1
        while below < len(lines) and kinds[below] == "text" and _is_labelled_row(lines[below]):
            below += 1
        if start - above >= 2:
            head = above
            while head > 0 and above - head < _TABLE_HEAD_LINES and kinds[head - 1] == "text" \
                    and _is_table_head(lines[head - 1]):
                head -= 1
            kinds[head:start] = ["table"] * (start - head)
        if below - end - 1 >= 2:
            kinds[end + 1:below] = ["table"] * (below - end - 1)


_PANEL = re.compile(r"^\([a-h]\)\s+\S")
"""A figure's or table's panel caption ('(a) Fine-tuning PEGASUS and BART on SDS tasks.')."""


def _mark_panel_labels(lines: list[str], kinds: list[LineKind]) -> None:
    """Panel captions next to a table or a caption are captions too: the recorded Multi-LexSum
    PDF sets '(a) ...' and '(b) ...' over the two halves of a table, and they opened a
    paragraph of its Experiments ('(a) Fine-tuning PEGASUS and BART on SDS tasks. (b) ...')."""
    changed = True
    while changed:
        changed = False
        for index, line in enumerate(lines):
            neighbours = kinds[max(0, index - 1):index] + kinds[index + 1:index + 2]
            if kinds[index] == "text" and _PANEL.match(line) \
                    and any(kind in ("table", "caption") for kind in neighbours):
                kinds[index] = "caption"
                changed = True


def _extend(lines: list[str], kinds: list[LineKind], start: int, kind: LineKind,
            goes_on: Callable[[str, str], bool]) -> int:
    """Mark the run of ``kind`` opening at ``start`` (while ``goes_on(previous, line)``, at most
    :data:`_MAX_RUN` lines, up to the next caption or footnote); the index after it."""
    kinds[start] = kind
    index = start + 1
    while index < len(lines) and index - start < _MAX_RUN and kinds[index] == "text" \
            and not _FOOTNOTE.match(lines[index]) and not _CAPTION.match(lines[index]) \
            and goes_on(lines[index - 1], lines[index]):
        kinds[index] = kind
        index += 1
    return index


SHORT_LINE = 0.6
"""A line shorter than this share of a page's median line of prose ends its caption ('Figure 1:
Execution overview', with no stop, over the first line of the text below it), unless the next
line goes on in lower case or the line ends with a colon ('Table 1: Performance comparison'
over 'on Object Recognition data set.')."""
WIDE_LINE = 1.6
"""A line this many times as long as a page's median line spans both columns of a two-column
page: a figure's caption set across the page, among the columns' shorter lines."""


_PROSE_WORDS = 5
"""Words a line has at least to count among a page's lines of prose, whose median length is
the column's width: a figure's labels and a table's cells are shorter."""


def _caption_goes_on(lines: list[str]) -> Callable[[str, str], bool]:
    """Whether a caption goes on from ``previous`` to ``line``: until a line ends a sentence,
    or, on a two-column page, while its lines span both columns (:data:`WIDE_LINE`), whose
    sentences may end at a line's end. The recorded arXiv PDF 2304.02623 ends its Figure 1
    caption's first line with '[20].', and the caption's four other lines were read into the
    Introduction. A caption never runs into a heading, nor past a short line
    (:data:`SHORT_LINE`): on 28 PDFs of papers not used to write these rules (science-parse's
    test files), captions without a stop of their own took the text below them, headings and
    all ('Figure 1: A sensitive 2-sed instance 4.2 Basic Framework In this section ...')."""
    lengths = sorted(len(line) for line in lines)
    median = lengths[len(lengths) // 2] if lengths else 0
    wide = WIDE_LINE * median if median else math.inf

    def goes_on(previous: str, line: str) -> bool:
        if _heading(line) is not None:
            return False
        if len(previous) < SHORT_LINE * median:  # the caption's end, unless it plainly goes on
            return not previous.endswith((".", "?", "!")) and (
                previous.endswith(":") or line[:1].islower())
        return not previous.endswith((".", "?", "!")) or (len(previous) >= wide
                                                          and len(line) >= wide)
    return goes_on


def _footnote_goes_on(previous: str, line: str) -> bool:
    """A note runs on until a line ends a sentence; a web address broken over lines
    ('https://sobigdata.' 'd4science.org/web/tagme/tagme-help') runs on to its last piece."""
    if len(line.split()) == 1 and previous.endswith(("/", ".", ":", "-")):
        return True
    if len(previous.split()) == 1:
        return False
    return not previous.endswith((".", "?", "!"))


def _mark_tables(lines: list[str], kinds: list[LineKind]) -> None:
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and _is_table_row(lines[end]):
            end += 1
        if end - index >= 2:
            head = index
            while head > 0 and index - head < _TABLE_HEAD_LINES \
                    and _is_table_head(lines[head - 1]):
                head -= 1
            for row in range(head, end):
                kinds[row] = "table"
        index = max(end, index + 1)


def _is_table_head(line: str) -> bool:
    """A column header line above a table's rows: not a sentence's end nor a broken word, and
    short or made of column names (capitalised words, abbreviations and symbols: 'Model ↓ /
    Metric → F1 F1 MAP nDCG' over a recorded ACL paper's results table), which may end with an
    abbreviation's stop ('CLS USR CITE REC Avg.', read into a sentence of the SPECTER paper)."""
    words = line.split()
    abbreviated = len(words) >= _TABLE_HEAD_LINES and len(words[-1]) <= 5 \
        and all(not word[:1].islower() for word in words)
    if (line.endswith(".") and not abbreviated) or line.endswith((",", ";", ":", "-")) \
            or _heading(line) is not None or _FOOTNOTE.match(line) or "://" in line:
        return False
    named = sum(1 for word in words if not word[:1].islower())
    return len(words) <= _TABLE_HEAD_WORDS or named >= TABLE_HEAD_NAMED * len(words)


def _runs(lines: list[str], kinds: list[LineKind],
          vocabulary: Vocabulary | None = None) -> list[tuple[str, LineKind, str]]:
    """(line, kind, the run's text at its last line, else '') for each line: captions and
    tables are kept whole, one block per run."""
    out: list[tuple[str, LineKind, str]] = []
    start = 0
    for index, (line, kind) in enumerate(zip(lines, kinds, strict=True)):
        last = index + 1 == len(lines) or kinds[index + 1] != kind
        text = ""
        if last and kind != "text":
            run = lines[start:index + 1]
            text = join_lines(run, vocabulary) if kind == "caption" else "; ".join(run)
        out.append((line, kind, text))
        if last:
            start = index + 1
    return out


def _without_marks(line: str, notes: set[int]) -> str:
    """``line`` without the raised marks of this page's footnotes after a stop or bracket
    ('mentions.4' is 'mentions.', 'Lite)6,' is 'Lite),'); a mark after a letter may be a
    variable ('p1') and one after a digit a decimal ('0.5'): both stay."""
    for note in notes:
        line = re.sub(rf"(?:(?<=[A-Za-z)][.,;:])|(?<=[A-Za-z][)\u201d\u2019])){note}"
                      r"(?=[\s,.;:]|$)", "", line)
    return line


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


def _flush(segments: list[list[str]], page: int, sections: _Sections,
           document: FullTextDocument, abstract: list[str], vocabulary: Vocabulary) -> None:
    """The text read since the last heading, as one paragraph block; ``segments`` are its
    stretches between floats (a caption, a table, a footnote), which the running text flows
    around. The text under 'Keywords' is the paper's index terms, front matter as its abstract
    is, and no block: the recorded arXiv PDF 2304.02623's 'AI-Assisted Writing, Summarization,
    Expert Writing, ...' was quoted as a finding of a library review."""
    texts = [text for text in (join_lines(lines, vocabulary) for lines in segments) if text]
    if not texts:
        return
    if sections.in_abstract:
        abstract.append(join_lines(texts, vocabulary))
        return
    if sections.in_keywords:
        return  # index terms, not a statement: 'AI-Assisted Writing, Summarization, ...'
    if not sections.keeping:
        return
    texts = _finish_sentence(document, texts, page, sections.name, vocabulary)
    text = join_lines(texts, vocabulary)  # a word broken around a footnote: 'state-' 'of-the-art'
    if text:
        document.blocks.append(TextBlock(text=text, section=sections.name, page=page))


_SENTENCE_END = re.compile(r"[.!?:][\"'\u201d\u2019)\]]*$")
_FIRST_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*\s+(?=[A-Z(\[\"\u201c])")
_GOES_ON = re.compile(r"^[a-z]")
"""The first character of text that goes on with a sentence begun before it: a word in lower
case (not a capital, which starts a sentence or a figure's text, nor a bracket, which opens a
figure's panel labels as often: '(a) SPECTER (b) SciBERT' over a recorded ACL paper's
Figure 2)."""


def _finish_sentence(document: FullTextDocument, texts: list[str], page: int, section: str,
                     vocabulary: Vocabulary) -> list[str]:
    """``texts`` (a page's first stretches of text, between floats) without the end of a
    sentence the page before left open, which is put back onto that page's paragraph,
    hyphenated word and all ('...difficult to fol-' 'low'): the sentence is read whole and
    cited at the page where it starts. Each page was a block of its own, so every sentence
    running over a page was cut in two.

    The rest of the sentence is the first stretch that goes on in lower case
    (:data:`_GOES_ON`); a figure at the page's top comes first, and its own words (pypdf reads
    them as lines of text above the caption) are kept apart as part of the figure, a block of
    kind 'caption'. The recorded arXiv PDF 2304.02623 glued its figure's sample paragraph
    onto 'Many realistic expository writing' and read the sentence's rest, 'tasks require
    domain experts', after the figure's caption. Without a stretch in lower case the first
    one goes on, as before (a sentence may go on with a name)."""
    previous = next((block for block in reversed(document.blocks)
                     if block.kind == "paragraph"), None)
    if previous is None or previous.page != page - 1 or previous.section != section \
            or _SENTENCE_END.search(previous.text) or _is_front_matter(previous):
        return texts
    going_on = next((index for index, text in enumerate(texts) if _GOES_ON.match(text)), 0)
    if going_on:
        document.blocks.append(TextBlock(text=" ".join(texts[:going_on]), section=section,
                                         page=page, kind="caption"))
    text = texts[going_on]
    end = _FIRST_SENTENCE_END.search(text)
    head, rest = (text[:end.end()], text[end.end():]) if end else (text, "")
    previous.text = join_lines([previous.text, head.strip()], vocabulary)
    return [rest.strip(), *texts[going_on + 1:]]


def _is_front_matter(block: TextBlock) -> bool:
    """A block of the first page before any heading: the title page's lead, which
    :func:`_drop_front_matter` drops once headings follow; nothing is joined onto it."""
    return block.page == 1 and not block.section


def _drop_front_matter(document: FullTextDocument) -> None:
    """The first page's lead before any heading (title, authors, affiliations) is not evidence;
    it is dropped when headings follow (without any, it is all the text there is)."""
    if any(block.section for block in document.blocks):
        while document.blocks and _is_front_matter(document.blocks[0]):
            document.blocks.pop(0)


class Vocabulary:
    """The words and hyphenated compounds a document prints inside its lines (not at a line's
    end, where a hyphen may be the typesetter's): what says whether 'knowledge-' 'generating'
    is the compound 'knowledge-generating' or 'treat-' 'ment' the word 'treatment'. A compound
    is kept as its pairs of neighbours ('state-of-the-art': 'state-of', 'of-the', 'the-art'),
    so it is known wherever a line breaks it."""

    def __init__(self, lines: list[str]) -> None:
        self.words: set[str] = set()
        self.compounds: set[str] = set()
        for line in lines:
            tokens = line.split()
            for token in tokens[:-1] if line.endswith("-") else tokens:
                for word in _WORD.findall(token.lower()):
                    parts = word.split("-")
                    self.words.update(parts if len(parts) == 1 else ())
                    self.compounds.update(f"{a}-{b}" for a, b in zip(parts, parts[1:]))

    def keeps_hyphen(self, head: str, tail: str) -> bool:
        """Whether a word broken at a line end as ``head``-``tail`` is a hyphenated compound:
        the document prints the compound elsewhere and never the joined word. On the four
        recorded PDFs of the shared fixtures, 18 line-end breaks are compounds printed whole
        elsewhere ('knowledge-generating', 'fine-tuning', 'meta-analysis', 'co-citation'),
        all of which were glued ('knowledgegenerating'), and 330 are words printed joined
        elsewhere; a rule that also kept the hyphen between two words the document uses
        ('interest-' 'ing', 'com-' 'putes') was wrong on 6 of 13, and is not used."""
        head, tail = head.lower(), tail.lower()
        return head + tail not in self.words and f"{head}-{tail}" in self.compounds


_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")


def join_lines(lines: list[str], vocabulary: Vocabulary | None = None) -> str:
    """Lines as running text: a word hyphenated at a line end is rejoined ('ingre-' 'dient'),
    unless ``vocabulary`` shows it is a compound ('knowledge-' 'generating'); a compound broken
    at its hyphen before a capital keeps it without a space ('MED-' 'LINE': 'MED-LINE',
    'non-' 'Hodgkin': 'non-Hodgkin')."""
    text = ""
    for line in lines:
        broken = text.endswith("-") and len(text) > 1 and text[-2].isalpha()
        if broken and line[:1].islower():
            head = re.search(r"([A-Za-z]+)-$", text)
            tail = re.match(r"[a-z]+", line)
            compound = vocabulary is not None and head is not None and tail is not None \
                and vocabulary.keeps_hyphen(head.group(1), tail.group(0))
            text = (text if compound else text[:-1]) + line
        elif broken and line[:1].isupper():
            text += line
        elif text:
            text = f"{text} {line}"
        else:
            text = line
    return re.sub(r"\s+", " ", text).strip()
