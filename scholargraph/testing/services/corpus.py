"""A document collection served as OpenAlex: a search engine over any BEIR-format corpus.

Benchmarks run whole reviews against a labelled collection (SciFact's 5,183 abstracts, say)
instead of the small recorded pool. :class:`CorpusService` mounts under ``/openalex/`` and
answers ``/works?search=...`` the way a search engine does: the query's boolean structure
(phrases, AND/OR/NOT, parentheses, as OpenAlex reads them) decides which documents match, over
stemmed, stop-word-free words of title and abstract, and BM25 over the query's words orders
them (Lucene's defaults, k1 1.2 and b 0.75, as an Elasticsearch index would). Paging, filters,
``select`` and the list envelope are :class:`~scholargraph.testing.services.openalex.
OpenAlexService`'s. Each document becomes an OpenAlex Work whose id is ``W`` + a number derived
from the document's ``_id`` (:func:`openalex_id_for`), so a caller maps cited works back.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from scholargraph.rag.ranking import LexicalIndex, tokenize
from scholargraph.testing.services import querymatch
from scholargraph.testing.services.openalex import SYNTAX, OpenAlexService, Recorded, _filters
from scholargraph.testing.services.querymatch import Doc, Op, Range, Term

LUCENE_K1, LUCENE_B = 1.2, 0.75


@dataclass(frozen=True)
class CorpusDoc:
    """One document of a BEIR corpus (``{"_id", "title", "text"}``)."""

    doc_id: str
    title: str
    text: str

    @classmethod
    def from_beir(cls, record: Mapping[str, Any]) -> CorpusDoc:
        return cls(str(record["_id"]), str(record.get("title") or ""),
                   str(record.get("text") or ""))


def openalex_id_for(doc_id: str) -> str:
    """The OpenAlex id a document is served under: ``W`` and its id when numeric, else digits
    derived from it (OpenAlex ids are ``W`` followed by digits)."""
    if doc_id.isdigit():
        return f"W{int(doc_id)}"
    return "W9" + str(int(hashlib.sha1(doc_id.encode()).hexdigest()[:12], 16))


def work_object(doc: CorpusDoc) -> dict[str, Any]:
    """The document as an OpenAlex Work object (the fields the OpenAlex agent reads)."""
    words = doc.text.split()
    inverted: dict[str, list[int]] = {}
    for position, word in enumerate(words):
        inverted.setdefault(word, []).append(position)
    work_id = f"https://openalex.org/{openalex_id_for(doc.doc_id)}"
    return {
        "id": work_id, "doi": None, "ids": {"openalex": work_id}, "title": doc.title,
        "display_name": doc.title, "publication_year": None, "publication_date": None,
        "type": "article", "authorships": [], "primary_location": None,
        "abstract_inverted_index": inverted or None, "cited_by_count": 0, "is_retracted": False,
        "open_access": {"is_oa": False, "oa_url": None}, "referenced_works": [],
    }


class CorpusService(OpenAlexService):
    """OpenAlex's ``/works`` over a document collection, ranked by BM25 (see the module)."""

    def __init__(self, docs: Iterable[CorpusDoc]) -> None:
        super().__init__()
        self.docs = list(docs)

    @cached_property
    def pool(self) -> list[Recorded]:
        items = []
        for doc in self.docs:
            work = work_object(doc)
            raw = json.dumps(work, ensure_ascii=False).encode("utf-8")
            items.append(Recorded(raw, work, Doc({})))
        return items

    @cached_property
    def _tokens(self) -> list[list[str]]:
        return [tokenize(f"{doc.title} {doc.text}") for doc in self.docs]

    @cached_property
    def _postings(self) -> dict[str, set[int]]:
        postings: dict[str, set[int]] = {}
        for index, tokens in enumerate(self._tokens):
            for token in tokens:
                postings.setdefault(token, set()).add(index)
        return postings

    @cached_property
    def _bm25(self) -> LexicalIndex:
        return LexicalIndex([f"{doc.title} {doc.text}" for doc in self.docs],
                            k1=LUCENE_K1, b=LUCENE_B)

    def search(self, query: str, filters: str = "") -> list[Recorded]:
        """Documents matching the query's boolean structure and every filter, best BM25 first."""
        try:
            tree = querymatch.parse(query, SYNTAX) if query.strip() else None
        except querymatch.QueryError:
            return []
        checks = _filters(filters)
        if tree is None:
            return [item for item in self.pool if all(check(item) for check in checks)]
        found = self._matching(tree)
        if found is None or not found:
            return []
        scores = self._bm25.scores(" ".join(_positive_words(tree)))
        ranked = sorted(found, key=lambda index: (-float(scores[index]), index))
        return [self.pool[index] for index in ranked
                if all(check(self.pool[index]) for check in checks)]

    def _matching(self, node: Any) -> set[int] | None:
        """Indices of the documents ``node`` matches; None stands for every document (a term
        made of stop words only, which the engine ignores)."""
        if isinstance(node, Range):
            return set()
        if isinstance(node, Term):
            return self._term(node)
        assert isinstance(node, Op)
        left, right = self._matching(node.left), self._matching(node.right)
        every = set(range(len(self.docs)))
        if node.kind == "NOT":
            return (every if left is None else left) - (set() if right is None else right)
        if node.kind == "OR":
            return None if left is None or right is None else left | right
        if left is None:
            return right
        return left if right is None else left & right

    def _term(self, term: Term) -> set[int] | None:
        words = tokenize(term.text)
        if not words:
            return None
        hits = set.intersection(*(self._postings.get(word, set()) for word in words))
        if term.quoted and len(words) > 1:
            hits = {index for index in hits if _has_run(self._tokens[index], words)}
        return hits


def _positive_words(node: Any) -> list[str]:
    """The words a document is scored on: every term outside a NOT."""
    if isinstance(node, Term):
        return [node.text]
    if isinstance(node, Op):
        left = _positive_words(node.left)
        return left if node.kind == "NOT" else [*left, *_positive_words(node.right)]
    return []


def _has_run(tokens: list[str], words: list[str]) -> bool:
    """Whether ``words`` occur consecutively in ``tokens`` (a phrase match)."""
    size = len(words)
    return any(tokens[start:start + size] == words for start in range(len(tokens) - size + 1)
               if tokens[start] == words[0])


def read_beir_corpus(lines: Iterable[str]) -> list[CorpusDoc]:
    """Documents from the lines of a BEIR ``corpus.jsonl``."""
    return [CorpusDoc.from_beir(json.loads(line)) for line in lines if line.strip()]
