"""What a PDF page's text layer says about each line beyond its characters: drawn inside a
figure, or set in a typewriter font.

pypdf's plain text gives a figure's words (axis labels, legends, the boxes of a flowchart, a
figure's sample paragraph) and a program's listing as lines of running text, and they were read
into the sentences around them: the recorded ACL paper SPECTER read 'Transformer (initialized
with SciBERT) Related paper (P+)Query paper (PQ) Unrelated paper (P−) Triplet loss =max ...' as
a sentence of its Model section. Two facts of the page tell them apart, whatever their words:

- a figure made by another program (a plot, a diagram) is placed on the page as a form
  XObject, a content stream of its own with its own fonts (:func:`figure_forms`);
- a listing is set in a fixed-pitch font, which the font's descriptor flags (``/Flags`` bit 1,
  FixedPitch) or its name says (Courier, ``CMTT``, ``NimbusMonL``, ``Inconsolata``...)
  (:func:`is_monospace`).

pypdf reports each piece of text it extracts to a visitor, with its font, and the operators
around it, among them ``Do`` (draw a form): the pieces, laid end to end, are exactly the page's
text (checked on every page of the shared fixtures' four PDFs), so each line of the text knows
the forms it was drawn in and its fonts (:func:`styled_page`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pypdf import PageObject

MONOSPACE_NAME = re.compile(
    r"courier|mono|typewriter|consol|inconsolata|menlo|monaco|cmtt|sftt|\btt\d|t1xtt|txtt|"
    r"lmtt|code(?:pro|new)?\b|fixed", re.IGNORECASE)
"""Names of fixed-pitch fonts whose descriptor may not say so (the standard 14 fonts have none:
Courier), as TeX and office programs name them: 'CMTT10', 'NimbusMonL-Regu', 'SFTT1000',
't1xtt', 'LMMono10', 'Inconsolata', 'DejaVuSansMono', 'SourceCodePro', 'Consolas', 'Menlo'."""
FIXED_PITCH_FLAG = 1
"""Bit 1 of a font descriptor's ``/Flags``: all glyphs have the same width (PDF 32000-1, 9.8.2)."""
FIGURE_SHARE = 0.5
"""A form holding this share of its page's characters or more is the page (a publisher's or a
proceedings' stamp wraps each page of the recorded ACL paper N18-3011 in one, two forms deep;
the recorded Multi-LexSum PDF includes its dataset sheet's pages so), not a figure on it."""


@dataclass
class Piece:
    """A piece of text as pypdf reports it, with the forms it was drawn in (outermost first),
    its font's name and whether the font is fixed-pitch."""

    text: str
    forms: tuple[int, ...]
    font: str
    monospace: bool


@dataclass
class StyledLine:
    """A line of a page's text with what the page says about it."""

    text: str
    figure: bool = False
    """Every character of it is drawn inside a figure's form (:func:`figure_forms`)."""
    monospace: bool = False
    """Its characters are set in a fixed-pitch font (:data:`MONOSPACE_LINE`)."""
    fonts: Counter[str] = field(default_factory=Counter)


MONOSPACE_LINE = 1.0
"""The share of a line's visible characters in fixed-pitch fonts for the line to be set in one:
all of them. A line of prose naming a program or an address has words in the text's font
around it ('the URL http://www-db.stanford.edu/db pages/members.html' over 'is
www-db.stanford.edu.', 85% and 87% fixed-pitch, in a held-out PDF of science-parse's tests, are
the end of a sentence)."""


def base_font(font: Any) -> str:
    """A font's name without the subset tag a PDF writer puts before it ('GZNYGG+' of
    'GZNYGG+NimbusRomNo9L-Regu'): the same font embedded twice, by the page and by a figure
    made with it, has two tags."""
    name = str(font.get("/BaseFont", "")) if hasattr(font, "get") else ""
    return name.lstrip("/").split("+", 1)[-1]


def is_monospace(font: Any) -> bool:
    """Whether a font dictionary is a fixed-pitch font: its descriptor's FixedPitch flag (a
    composite font's is its descendant's), else its name (:data:`MONOSPACE_NAME`)."""
    if not hasattr(font, "get"):
        return False
    descriptor = font.get("/FontDescriptor")
    descendants = font.get("/DescendantFonts")
    try:
        if descriptor is None and descendants:
            descriptor = descendants[0].get_object().get("/FontDescriptor")
        flags = int(descriptor.get_object().get("/Flags", 0)) if descriptor is not None else 0
    except (AttributeError, TypeError, ValueError, IndexError):
        flags = 0
    return bool(flags & FIXED_PITCH_FLAG) or MONOSPACE_NAME.search(base_font(font)) is not None


class _FormTracker:
    """Follows pypdf's ``Do`` operators while it extracts a page: which forms the text reported
    now is drawn in. pypdf reports the page's pending text after the ``Do`` is seen and before
    the form's own operators, so a form counts from its first operator on."""

    def __init__(self) -> None:
        self.stack: list[tuple[int, bool]] = []  # (form number, entered)
        self.count = 0
        self.pieces: list[Piece] = []

    def before(self, operator: bytes, *_: object) -> None:
        if self.stack and not self.stack[-1][1]:
            self.stack[-1] = (self.stack[-1][0], True)
        if operator == b"Do":
            self.count += 1
            self.stack.append((self.count, False))

    def after(self, operator: bytes, *_: object) -> None:
        if operator == b"Do" and self.stack:
            self.stack.pop()

    def text(self, text: str, _cm: object, _tm: object, font: Any, _size: object) -> None:
        forms = tuple(number for number, entered in self.stack if entered)
        self.pieces.append(Piece(text, forms, base_font(font or {}), is_monospace(font or {})))


def page_pieces(page: PageObject) -> tuple[str, list[Piece]]:
    """The page's text as pypdf extracts it, and the pieces it is made of."""
    tracker = _FormTracker()
    text = page.extract_text(visitor_text=tracker.text, visitor_operand_before=tracker.before,
                             visitor_operand_after=tracker.after) or ""
    if "".join(piece.text for piece in tracker.pieces) != text:
        return text, []  # pieces that do not add up to the text say nothing of its lines
    return text, tracker.pieces


def body_font(pages: list[list[Piece]]) -> str:
    """The font most of a document's characters are set in: its running text's."""
    counts: Counter[str] = Counter()
    for pieces in pages:
        for piece in pieces:
            counts[piece.font] += sum(1 for char in piece.text if not char.isspace())
    return counts.most_common(1)[0][0] if counts else ""


def figure_forms(pieces: list[Piece], body: str) -> set[int]:
    """The forms on a page that are figures: each holds less than :data:`FIGURE_SHARE` of the
    page's characters and is set mostly in another font than the document's running text (a
    form in the text's own font is part of the page: its number, a proceedings' header).
    On the shared fixtures' four PDFs these are the figures of SPECTER (its Figure 1's labels)
    and of 2304.02623 (Figure 1's sample paragraph and its six labels, 'Grouping' ...
    'Knowledge-Generation'), and no form of the other two, whose forms wrap whole pages."""
    total = sum(1 for piece in pieces for char in piece.text if not char.isspace())
    inside: dict[int, Counter[str]] = {}
    for piece in pieces:
        visible = sum(1 for char in piece.text if not char.isspace())
        for form in piece.forms:
            inside.setdefault(form, Counter())[piece.font] += visible
    return {form for form, fonts in inside.items()
            if sum(fonts.values()) < FIGURE_SHARE * total
            and fonts.most_common(1)[0][0] != body}


def styled_lines(text: str, pieces: list[Piece], body: str) -> list[StyledLine]:
    """Each line of ``text`` (as ``text.splitlines()`` cuts it) with its style; without pieces,
    every line is plain."""
    if not pieces:
        return [StyledLine(line) for line in text.splitlines()]
    figures = figure_forms(pieces, body)
    lines: list[StyledLine] = []
    current: list[tuple[str, Piece]] = []
    for piece in pieces:
        parts = re.split(r"(\r\n|\r|\n)", piece.text)
        for index, part in enumerate(parts):
            if index % 2:
                lines.append(_style(current, figures))
                current = []
            elif part:
                current.append((part, piece))
    if current or not text.endswith(("\n", "\r")):
        lines.append(_style(current, figures))
    split = text.splitlines()
    if len(lines) != len(split) or any(a.text != b for a, b in zip(lines, split, strict=False)):
        return [StyledLine(line) for line in split]  # line breaks pypdf made another way
    return lines


def _style(parts: list[tuple[str, Piece]], figures: set[int]) -> StyledLine:
    text = "".join(part for part, _ in parts)
    fonts: Counter[str] = Counter()
    fixed = in_figure = visible_total = 0
    for part, piece in parts:
        visible = sum(1 for char in part if not char.isspace())
        visible_total += visible
        fonts[piece.font] += visible
        fixed += visible if piece.monospace else 0
        in_figure += visible if figures.intersection(piece.forms) else 0
    return StyledLine(text, figure=visible_total > 0 and in_figure == visible_total,
                      monospace=visible_total > 0 and fixed >= MONOSPACE_LINE * visible_total,
                      fonts=fonts)
