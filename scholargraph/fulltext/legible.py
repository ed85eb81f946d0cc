"""Whether a sentence read from a full text is one a reader can check against the page.

A PDF's text layer says what its fonts map each glyph to, and a math font set without a map
(MathTime, used by the recorded ACL Anthology paper N18-3011) reads as other letters and marks:
'h_k = [h→_k ; h←_k]' comes out as 'hk D Œh! k I h k', an arrow between two mentions as
'm1 ! m2'. A symbol font's glyphs may come out as private-use code points, which show as boxes,
and a word-only table, whose rows pypdf reads as lines of running text, comes out as one long
'sentence' of its cells ('... the first complaint The last amended complaint Settlement
agreements ...'). None of these is a sentence stating a result, word for word as printed: the
review cites it as context at most, and never quotes it as a finding
(:func:`scholargraph.deterministic.extractive.quotable`).

The rules were written on the shared fixtures' eleven full texts and checked on PDFs not
looked at while writing them: science-parse's 29 test papers (6,295 sentences of their
paragraphs) and two manuals installed on the machine (567). There :func:`garbled` set aside 30
sentences, each a formula read with private-use or non-characters or a figure's words read as
a line with a lone '!', ('Note, \uffff fi \u2208
\u00af\u03a6 \u03c0fi need not sum to one.') or run into a page's foot, and
:func:`table_as_text` 3: a figure's labels read as text ('User Program Master (1) fork worker
(1) fork ...'), an example's phrases and a sentence whose display formulas were lost ('... we
use (1) to find ... (3) Then the total number ...'); a licence's 'sections Entitled' three
times over was taken until a repeated boundary counted once.
"""

from __future__ import annotations

import re
import unicodedata

from scholargraph.deterministic.text import commonness

UNREADABLE_CATEGORIES = frozenset({"Co", "Cn", "Cs", "Cc"})
"""Private-use, unassigned, surrogate and control code points: what a text layer gives for a
glyph it has no character for. The quote would show a box where the page shows a symbol."""
REPLACEMENT = "\ufffd"
PUNCTUATION = frozenset(".,;:()[]{}'\"%-\u2010\u2011\u2013\u2014/\u2018\u2019\u201c\u201d?!&")
"""Marks prose uses between its words; any other character that is no letter, digit or space
counts as a symbol (:data:`MOSTLY_SYMBOLS`)."""
MOSTLY_SYMBOLS = 0.5
"""A sentence whose visible characters are this share symbols or more is a formula, a figure's
marks or a dingbat line, not a sentence: none of the prose of the shared fixtures' full texts
comes near (the most symbol-laden, a model's settings 'vector_size=300, min_count=3, ...', is
about 0.1)."""
MISREAD_MATH = re.compile(
    r"(?:^|\s)(?:!|[A-Za-z0-9]{1,3}!|[\u0152\u0153][A-Za-z0-9!]{0,3}|[A-Za-z0-9]{1,3}/;)(?=\s|$)")
"""Debris a math font without a character map leaves in the text: a lone '!' (an arrow: prose
sets '!' against its word), a symbol glued to a one- to three-character variable ('g!', 'k1/;'
for '(k-1);', 'Œg' for '[g'). Two in a sentence set it aside; on the recorded N18-3011 PDF, set
in MathTime, 8 sentences carry such pieces (2 of them 10 each), the prose of the other ten
shared full texts none, and of the 45,952 sentences of SciFact's 5,183 abstracts none carries
two."""
MISREAD_TOKENS = 2
MISREAD_ALONE = re.compile(r"(?:^|\s)(?:!|[\u0152\u0153][A-Za-z0-9!]{0,3})(?=\s|$)")
"""The pieces that set a sentence aside alone: a lone '!' ('... edge from paper nodes p1 ! p2')
and a bracket read as 'Œ' ('the token embedding xk D Œck I wk'), which no sentence of SciFact's
abstracts carries. A variable's '/' is not one: 'JNK/ ', 'FV/ FM' and '1/ (1 + e-x)' are
printed so (2 of SciFact's abstract sentences, 3 of science-parse's test papers); only one
before a semicolon ('k1/;' for '(k-1);') counts among :data:`MISREAD_MATH`."""


def garbled(sentence: str) -> bool:
    """Whether a sentence's text is not what the page prints: it holds a character the text
    layer had none for (:data:`UNREADABLE_CATEGORIES`, U+FFFD), it is mostly symbols
    (:data:`MOSTLY_SYMBOLS`), or it carries :data:`MISREAD_TOKENS` or more pieces of a math font
    read as letters (:data:`MISREAD_MATH`), or one that tells it alone (:data:`MISREAD_ALONE`).
    On the shared fixtures' eleven full texts this sets aside 7 sentences of N18-3011 with a
    formula or an arrow in MathTime (of its 8 with such pieces: 'lm! k is used to predict tkC1'
    carries one, which may be a variable's); of the 45,952 sentences of
    SciFact's abstracts, 10: OCR debris with U+FFFD ('CONSEQUE�CES o�, T-CELL'), a lone
    '…' or '■', and 2 with a control character of mis-decoded text, which
    :func:`~scholargraph.deterministic.text.clean_text` drops from a record's text before."""
    visible = [char for char in sentence if not char.isspace()]
    if not visible:
        return False
    if any(char == REPLACEMENT or unicodedata.category(char) in UNREADABLE_CATEGORIES
           for char in visible):
        return True
    symbols = sum(1 for char in visible if not char.isalnum() and char not in PUNCTUATION)
    if symbols >= MOSTLY_SYMBOLS * len(visible):
        return True
    return len(MISREAD_MATH.findall(sentence)) >= MISREAD_TOKENS \
        or MISREAD_ALONE.search(sentence) is not None


CELL_BOUNDARY = re.compile(r"(?<![\w.,;:!?'\u2019-])([a-z][a-z-]+|\d\))\s+([A-Z][a-z]{2,})\b"
                           r"(?!\s+[A-Z0-9])")
"""Where one cell of a table read as text ends and the next begins: a lower-case word, or a
bracketed figure ('(0.88)'), then a capitalised word with no stop between them ('complaint
The last', 'complaint Settlement agreements'), not the first word of a name of several
('violated Title VII', 'employer, the Ford Motor Company')."""
NOT_CELL_ENDS = frozenset({
    "a", "an", "the", "of", "in", "on", "at", "by", "for", "from", "to", "with", "via", "and",
    "or", "as", "into", "onto", "than", "vs", "per", "under", "over", "between", "among",
    "about", "against", "during", "within", "without", "across", "through", "after", "before",
    "since", "versus", "like", "including", "called", "named", "see", "using", "termed",
    "dubbed", "that", "which", "were", "was", "is", "are", "be", "been", "also", "both", "not",
    "now", "only", "one", "two", "three", "et", "all", "each", "some", "no"})
"""Words a name follows in prose ('hosted on Amazon', 'the First Amendment', 'using Excel',
'were African'): a capital after them starts no new cell."""
CELL_OPENERS = frozenset({
    "the", "a", "an", "this", "these", "those", "other", "it", "its", "our", "we", "they", "in",
    "on", "for", "with", "some", "all", "each", "rarely", "sometimes", "always", "never",
    "usually", "often"})
"""Words that open a sentence or a cell and are never a name: capitalised after a word with no
stop between, they begin a new cell ('complaint The last', 'appearances Other orders')."""
MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august",
                    "september", "october", "november", "december"})
CELL_WORD_ZIPF = 4.0
"""How common (wordfreq Zipf) a capitalised word must be to open a cell: an everyday word
('The', 'Orders', 'Settlement'), not a name ('Lip', 'Ki', 'SpaCy')."""
CELL_ENDS_ZIPF = 3.0
CELLS_IN_TABLE = 3
TABLE_ROW = re.compile(r"^[A-Z][\w/ -]{0,40}? \d[\d.,]* \(\d[\d.,]*\) [A-Z][a-z]")
"""A row of a table read as text: its label, a figure with another in brackets (a mean and its
deviation, a count and its share) and the next cell's text ('Complaint 1.517 (0.88) The
document that starts a case ...', in the recorded Multi-LexSum PDF's table of document
types)."""


def table_as_text(sentence: str) -> bool:
    """Whether a 'sentence' read from a PDF is a table's cells run together: a row's opening
    (:data:`TABLE_ROW`), or :data:`CELLS_IN_TABLE` places where a cell ends and another begins
    (:data:`CELL_BOUNDARY`), two when one of the new cells opens with a word that is never a
    name (:data:`CELL_OPENERS`: '... or order Attorney appearances Other orders ...'). A
    boundary repeated with the same two words is a term of the prose, counted once ('combine
    any sections Entitled "History" ... any sections Entitled ...', in a licence's text).

    pypdf reads a table of words (no figures, so :func:`scholargraph.fulltext.pdf.line_kinds`
    does not see a table) as lines of text. On the shared fixtures' four PDFs this finds the
    recorded Multi-LexSum PDF's rubric and document-type tables (2 'sentences' of run cells, 13
    rows) and no sentence of prose; among SciFact's 45,952 abstract sentences, one (a table
    pasted into an abstract). The rule applies to text read from a PDF only: a JATS table is
    read as rows of its own."""
    if TABLE_ROW.match(sentence):
        return True
    boundaries: dict[tuple[str, str], str] = {}
    for match in CELL_BOUNDARY.finditer(sentence):
        left, right = match.group(1), match.group(2).lower()
        if left in NOT_CELL_ENDS or right in MONTHS:
            continue
        if left[0].isalpha() and commonness(left) < CELL_ENDS_ZIPF:
            continue
        if commonness(right) < CELL_WORD_ZIPF:
            continue
        boundaries[left, right] = right
    return len(boundaries) >= CELLS_IN_TABLE or (
        len(boundaries) >= 2 and any(word in CELL_OPENERS for word in boundaries.values()))


CODE_SIGNS = (
    re.compile(r"\b[A-Za-z_][\w.]*\s*(?:<-|:=|\+=|-=|==|!=)\s*\S"),  # assignment, comparison
    re.compile(r"\b[a-z_]\w*\.[a-z_]\w*\("),  # a method's call: 'np.mean(', 'df.groupby('
    re.compile(r"\b[a-z]+_[a-z0-9_]+\("),  # a snake_case function's call: 'read_csv('
    re.compile(r"\b\w+\([^()\s]*[=\"'][^()]*\)"),  # a call with a keyword or a string argument
    re.compile(r"(?:^|[\s;:])(?:import [\w.]+(?:\s+as\s+\w+)?\s*$|from [\w.]+ import \w|"
               r"def \w+\(|#include\b|library\(|print\()"),
    re.compile(r"[{};]\s*$|\{\s*$|^\s*\}|&&|\|\||\+\+|->|=>"),  # braces, statement ends, operators
    re.compile(r"\b(?:for|while|if)\s*\((?=[^)]*[<>=!])|\bfor \w+ in (?:range\(|[\w.]+:)|"
               r"\belse\s*[:{]"),  # control flow
)
"""Signs of a program's text read as a sentence (a listing set in the text's own font, or one
a publisher pasted into a paragraph): an assignment ('fit <- glm(', 'x = y'), a method's or a
snake_case function's call, a call with a keyword or string argument ('glm(y ~ x, family =
binomial)', 'load_dataset("x")'), a keyword opening a statement, braces, a statement's ';'
end and C-like operators, and control flow."""
CODE_SIGNS_MIN = 2
"""Different signs that make a 'sentence' a program's text: one alone is prose's as often ('the
p-value (p = 0.03)', 'in Eq. (2)', 'mean(SD)')."""


def code_as_text(sentence: str) -> bool:
    """Whether a 'sentence' is a program's lines read as running text: :data:`CODE_SIGNS_MIN`
    different :data:`CODE_SIGNS`. A listing in a fixed-pitch font and a JATS ``<code>`` are
    kept out of the text as they are read (:mod:`scholargraph.fulltext.layout`,
    :data:`scholargraph.fulltext.jats.LISTINGS`); this is for the code neither tells."""
    return sum(1 for sign in CODE_SIGNS if sign.search(sentence)) >= CODE_SIGNS_MIN
