"""Hybrid ranking: BM25 (bm25s) beside dense vectors, fused; then MMR for diverse selections.

On scientific claims BM25 is the stronger single ranker (exact terms: gene names, drugs,
numbers) and dense vectors catch paraphrase; fusing both beats either (``bench/retrieval.py``
measures all three on SciFact). The fusion parameters below were tuned on the SciFact *train*
split only.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np
import Stemmer

from scholargraph.deterministic.text import specific_words

_TOKEN = re.compile(r"(?u)\b\w\w+\b")


@cache
def _stopwords() -> frozenset[str]:
    """bm25s's English stop words, read on first use (bm25s imports SciPy: about a second that
    loading the graph need not pay)."""
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


@dataclass(frozen=True)
class FusionParams:
    """How the lexical and dense rankings are combined.

    The defaults were chosen by ``bench/retrieval.py --tune`` on the SciFact train split
    (nDCG@10: convex 0.737 vs the best reciprocal-rank fusion 0.725, BM25 alone 0.696). Since
    passages are 600 characters and BM25 reads whole abstracts, the dense side is worth as much
    as the lexical one (weight 1.0: 0.748; 0.75: 0.743; 1.25: 0.748; 1.5: 0.748).
    """

    method: str = "convex"
    """'convex': weighted sum of min-max scaled scores; 'rrf': weighted reciprocal-rank fusion."""
    k1: float = 0.9
    b: float = 0.6
    rrf_k: float = 60.0
    dense_weight: float = 1.0
    lexical_weight: float = 1.0
    depth: int = 1000
    """Only the top ``depth`` of each ranking contributes to the fusion."""
    min_cosine: float = 0.25
    """A text sharing no query term is a match only if its cosine reaches this."""


DEFAULT_PARAMS = FusionParams()


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def tokenize(text: str) -> list[str]:
    """Lower-cased, stop-word-free, Snowball-stemmed word tokens."""
    stop = _stopwords()
    words = [w for w in _TOKEN.findall(text.lower()) if w not in stop]
    return _stemmer().stemWords(words)


def terms_named(terms: Collection[str], text: str) -> int:
    """How many of ``terms`` (stemmed, as :func:`tokenize` gives them) ``text`` names."""
    return len(set(terms) & set(tokenize(text)))


def specific_share(question: str, texts: Sequence[str], limit: int) -> np.ndarray | None:
    """Per text, the share of the question's ``limit`` most specific words (the rarest in
    English, :func:`~scholargraph.deterministic.text.specific_words`; stemmed) it names; None
    when the question has no such word."""
    wanted = {stem for word in specific_words(question, limit) for stem in tokenize(word)}
    if not wanted:
        return None
    return np.array([terms_named(wanted, text) / len(wanted) for text in texts])


class LexicalIndex:
    """BM25 over a fixed list of texts, scoring every text for a query."""

    def __init__(self, texts: Sequence[str], k1: float = DEFAULT_PARAMS.k1,
                 b: float = DEFAULT_PARAMS.b) -> None:
        import bm25s  # imported by the first index built: it brings SciPy

        self.size = len(texts)
        self.bm25 = bm25s.BM25(k1=k1, b=b, method="lucene")
        self.bm25.index([tokenize(text) or [""] for text in texts], show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        token_ids = self.bm25.get_tokens_ids(tokenize(query))
        if not token_ids:
            return np.zeros(self.size, np.float32)
        return np.asarray(self.bm25.get_scores_from_ids(token_ids), np.float32)


class HybridIndex:
    """Lexical and (optionally) dense scoring of the same texts, fused."""

    def __init__(self, texts: Sequence[str], embeddings: np.ndarray | None,
                 params: FusionParams = DEFAULT_PARAMS) -> None:
        self.params = params
        self.texts = list(texts)
        self.lexical = LexicalIndex(texts, k1=params.k1, b=params.b)
        self.embeddings = embeddings

    @property
    def has_dense(self) -> bool:
        return self.embeddings is not None

    def lexical_scores(self, query: str) -> np.ndarray:
        return self.lexical.scores(query)

    def dense_scores(self, query_vector: np.ndarray) -> np.ndarray:
        if self.embeddings is None:
            raise ValueError("this index has no embeddings")
        return self.embeddings @ query_vector.astype(np.float32)

    def scores(self, query: str, query_vector: np.ndarray | None = None) -> np.ndarray:
        """Fused relevance of every text; lexical alone when there is no dense side."""
        return self.search(query, query_vector)[0]

    def search(self, query: str, query_vector: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """Fused relevance of every text, and which texts plausibly answer the query at all:
        those sharing a term with it, or whose vector is close enough."""
        lexical = self.lexical_scores(query)
        if self.embeddings is None or query_vector is None:
            return lexical, lexical > 0
        dense = self.dense_scores(query_vector)
        return self.fuse(lexical, dense), (lexical > 0) | (dense >= self.params.min_cosine)

    def fuse(self, lexical: np.ndarray, dense: np.ndarray) -> np.ndarray:
        """The two score vectors fused as ``params.method`` says."""
        params = self.params
        if params.method == "convex":
            return (params.lexical_weight * min_max_scaled(lexical, params.depth)
                    + params.dense_weight * min_max_scaled(dense, params.depth))
        return (params.lexical_weight * _reciprocal_ranks(lexical, params, True)
                + params.dense_weight * _reciprocal_ranks(dense, params, False))


def min_max_scaled(scores: np.ndarray, depth: int | None = None) -> np.ndarray:
    """Scores min-max scaled to 0-1; with ``depth``, those of the top ``depth`` texts (scaled
    within the top) and 0 elsewhere. Equal scores all scale to 0."""
    order = top_k(scores, len(scores) if depth is None else min(depth, len(scores)))
    scaled = np.zeros(len(scores), np.float64)
    if len(order) == 0:
        return scaled
    best, floor = float(scores[order[0]]), float(scores[order[-1]])
    scaled[order] = (scores[order] - floor) / ((best - floor) or 1.0)
    return scaled


def _reciprocal_ranks(scores: np.ndarray, params: FusionParams, positive_only: bool
                      ) -> np.ndarray:
    """1 / (k + rank) for the top ``depth`` texts (only those scoring above 0 if asked), else 0."""
    order = top_k(scores, min(params.depth, len(scores)))
    if positive_only:
        order = order[scores[order] > 0]
    fused = np.zeros(len(scores), np.float64)
    fused[order] = 1.0 / (params.rrf_k + np.arange(1, len(order) + 1))
    return fused


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` best scores, best first; ties broken by index, so results repeat."""
    if k <= 0:
        return np.zeros(0, np.int64)
    candidates = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    return candidates[np.lexsort((candidates, -scores[candidates]))]


def mmr(relevance: np.ndarray, similarity: np.ndarray, groups: Sequence[str], k: int,
        diversity: float = 0.3, max_per_group: int = 2) -> list[int]:
    """Maximal marginal relevance over candidates: relevant, not redundant, few per work.

    ``relevance`` is per candidate, ``similarity`` the candidates' pairwise similarity matrix and
    ``groups`` the work each candidate belongs to. At most ``max_per_group`` candidates of one
    work are chosen, so one paper cannot fill every slot.
    """
    if len(relevance) == 0 or k <= 0:
        return []
    span = float(relevance.max() - relevance.min()) or 1.0
    rel = (relevance - relevance.min()) / span
    chosen: list[int] = []
    per_group: dict[str, int] = {}
    redundancy = np.zeros(len(rel))
    available = np.ones(len(rel), bool)
    while len(chosen) < k and available.any():
        gain = np.where(available, (1 - diversity) * rel - diversity * redundancy, -np.inf)
        best = int(np.argmax(gain))
        chosen.append(best)
        available[best] = False
        per_group[groups[best]] = per_group.get(groups[best], 0) + 1
        if per_group[groups[best]] >= max_per_group:
            available &= np.asarray([g != groups[best] for g in groups])
        redundancy = np.maximum(redundancy, similarity[best])
    return chosen
