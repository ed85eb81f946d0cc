"""Boolean query matching for the recorded services: which recorded records a query would find.

The replay services answer an arbitrary query from a small pool of real records, so they need to
decide which of them match. Each service's syntax is tokenised by its own :class:`Syntax`, into
the same tree (terms, phrases, ranges, AND/OR/NOT, parentheses, implicit AND between neighbours),
and evaluated against a :class:`Doc`: words are compared lower-cased with a light plural folding,
phrases must appear as consecutive words, ``*`` ends a prefix, and unquoted stop words match
anything (as the services ignore them). Relevance is the number of query terms a record matches.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

STOP_WORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "of",
     "on", "or", "the", "to", "with", "via", "using", "about"]
)


def words(text: str) -> list[str]:
    """Lower-case word tokens with a light plural folding (``networks`` matches ``network``)."""
    tokens = re.findall(r"[a-z0-9]+(?:\.[a-z0-9*]+)*\*?|\*", text.lower())
    return [_fold(token) for token in tokens]


def _fold(token: str) -> str:
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


@dataclass
class Doc:
    """One recorded record as the matcher sees it: word lists per field, and a sortable date."""

    fields: dict[str, list[str]]
    date: str = ""  # YYYYMMDDHHMM, for range terms
    extra: dict[str, list[str]] = field(default_factory=dict)  # exact values (categories)


@dataclass(frozen=True)
class Term:
    field: str | None
    text: str
    quoted: bool = False


@dataclass(frozen=True)
class Range:
    field: str
    low: str
    high: str


@dataclass(frozen=True)
class Op:
    kind: str  # "AND", "OR", "NOT"
    left: Node
    right: Node


Node: TypeAlias = Term | Range | Op
Token: TypeAlias = str | Term | Range  # "(", ")", "AND", "OR", "NOT", or an operand


@dataclass(frozen=True)
class Syntax:
    """How one service writes a query: a tokeniser, and which document fields each tag reads."""

    tokenize: Callable[[str], list[Token]]
    fields: dict[str | None, tuple[str, ...]]


class QueryError(ValueError):
    """The query cannot be parsed (unbalanced parentheses, dangling operator)."""


def parse(query: str, syntax: Syntax) -> Node | None:
    """The query's tree, or ``None`` for an empty query."""
    tokens = syntax.tokenize(query)
    if not tokens:
        return None
    node, rest = _expression(tokens)
    if rest:
        raise QueryError(f"unexpected {rest[0]!r}")
    return node


def _expression(tokens: list[Token]) -> tuple[Node, list[Token]]:
    node, tokens = _operand(tokens)
    while tokens and tokens[0] != ")":
        if tokens[0] in ("AND", "OR", "NOT"):
            kind, tokens = str(tokens[0]), tokens[1:]
        else:
            kind = "AND"
        right, tokens = _operand(tokens)
        node = Op(kind, node, right)
    return node, tokens


def _operand(tokens: list[Token]) -> tuple[Node, list[Token]]:
    if not tokens:
        raise QueryError("the query ends where a term was expected")
    head, rest = tokens[0], tokens[1:]
    if head == "(":
        node, rest = _expression(rest)
        if not rest or rest[0] != ")":
            raise QueryError("unbalanced parentheses")
        return node, rest[1:]
    if isinstance(head, (Term, Range)):
        return head, rest
    raise QueryError(f"unexpected {head!r}")


def matches(node: Node | None, doc: Doc, syntax: Syntax) -> bool:
    """Whether the record satisfies the query (an empty query matches nothing)."""
    if node is None:
        return False
    if isinstance(node, Op):
        left = matches(node.left, doc, syntax)
        if node.kind == "OR":
            return left or matches(node.right, doc, syntax)
        right = matches(node.right, doc, syntax)
        return left and (not right if node.kind == "NOT" else right)
    if isinstance(node, Range):
        return bool(doc.date) and node.low <= doc.date[: len(node.low)] <= node.high
    return _term_matches(node, doc, syntax)


def score(node: Node | None, doc: Doc, syntax: Syntax) -> int:
    """How many of the query's terms the record matches (the replay's notion of relevance)."""
    if node is None or isinstance(node, Range):
        return 0
    if isinstance(node, Op):
        right = 0 if node.kind == "NOT" else score(node.right, doc, syntax)
        return score(node.left, doc, syntax) + right
    if not node.quoted and node.text.lower() in STOP_WORDS:
        return 0
    return int(_term_matches(node, doc, syntax))


def _term_matches(term: Term, doc: Doc, syntax: Syntax) -> bool:
    if not term.quoted and term.text.lower() in STOP_WORDS:
        return True
    names = syntax.fields.get(term.field, syntax.fields.get(None, ()))
    exact = [value for name in names for value in doc.extra.get(name, [])]
    if exact:
        wanted = term.text.lower()
        return any(value.lower() == wanted or (wanted.endswith("*") and
                   value.lower().startswith(wanted[:-1])) for value in exact)
    needle = words(term.text)
    if not needle:
        return True
    return any(_contains(doc.fields.get(name, []), needle) for name in names)


def _contains(haystack: list[str], needle: list[str]) -> bool:
    size = len(needle)
    for start in range(len(haystack) - size + 1):
        if all(_word_matches(haystack[start + i], needle[i]) for i in range(size)):
            return True
    return False


def _word_matches(word: str, pattern: str) -> bool:
    if pattern.endswith("*"):
        return word.startswith(pattern[:-1])
    return word == pattern
