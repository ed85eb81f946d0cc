"""Inline formatting in titles and abstracts, read as a reader reads it.

PubMed's XML (since 2019), JATS and OpenAlex's titles keep the publisher's inline markup:
``<i>``, ``<b>``, ``<sub>``, ``<sup>``. Dropping a tag is right for all but one case: a
superscript that is an exponent. '10<sup>7</sup> CFU' dropped to '107 CFU' (as a recorded mBio
article in PMC read, five times in one paragraph) and 'mM<sup>−1</sup>' to 'mM−1' change the
number a finding states; they are written '10^7' and 'mM^−1' here. A superscript after a word
that is not signed ('Ni<sup>2+</sup>', 'mc<sup>2</sup>155', a footnote mark) is kept as it was.

Inline tags are joined without a space ('TiO<sub>2</sub>' is 'TiO2', not 'TiO 2'): what a
source's text runs on is the markup's own text, and the record's generic tag stripping
(``Work``'s validator, which puts a space where any tag was) only sees the block tags left.
"""

from __future__ import annotations

import re

SIGNED_NUMBER = re.compile(r"^[\-\u2212\u2013+]?\d+(?:[.,]\d+)?$")
"""A superscript that can be an exponent: an integer or decimal, optionally signed ('7', '−1',
'0.5'); the minus may be typed as a hyphen, the minus sign or an en dash."""
EXPONENT_MARK = "^"


def superscript(before: str, raised: str) -> str:
    """``raised`` (a superscript's text) as it reads after ``before`` (the text up to it): an
    exponent after a digit ('10' '7': '^7') or any signed one ('mM' '−1': '^−1'); else as is."""
    value = raised.strip()
    if not SIGNED_NUMBER.match(value):
        return raised
    signed = value[0] in "-\u2212\u2013+"
    return EXPONENT_MARK + value if before[-1:].isdigit() or signed else raised


INLINE_TAG = re.compile(
    r"(?:<|&lt;)(?P<close>/?)(?P<tag>i|b|u|em|strong|sub|sup|sc|small|span|inf|italic|bold)"
    r"(?:\s[^<>&]*)?/?(?:>|&gt;)", re.IGNORECASE)
"""An inline formatting tag as sources print it in a title or abstract, raw ('<sub>') or
escaped once ('&lt;i&gt;', as Crossref's titles reach OpenAlex)."""


def plain_inline(text: str) -> str:
    """``text`` without its inline formatting tags, each superscript exponent marked
    (:func:`superscript`); block tags (``<p>``, JATS sections) are left for the record."""
    if "<" not in text and "&lt;" not in text:
        return text
    parts: list[str] = []
    position = 0
    raised_from: int | None = None
    for match in INLINE_TAG.finditer(text):
        parts.append(text[position:match.start()])
        position = match.end()
        if match.group("tag").lower() != "sup":
            continue
        if not match.group("close"):
            raised_from = len(parts)
        elif raised_from is not None:
            before = "".join(parts[:raised_from])
            parts[raised_from:] = [superscript(before, "".join(parts[raised_from:]))]
            raised_from = None
    parts.append(text[position:])
    return "".join(parts)
