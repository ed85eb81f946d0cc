"""Works ranked against the question itself: how closely each title and abstract answers it.

Passages are ranked per sub-question (:mod:`scholargraph.rag.select`); this ranks whole works
against the question, for the decisions that are about a work rather than a passage (which works
a review of a claim rests on, :func:`scholargraph.deterministic.relevance.closest_to_claim`). A
work's text is its title and abstract, scored two ways: BM25 over the included works, and the
cosine of its vector with the question's (vectors come through the store, so a work seen before
is not embedded again). The two rankings are fused by reciprocal rank, equally weighted. Without
an embedding model the ranking is lexical only, with a warning, as the RAG filter's is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scholargraph.rag.embeddings import Embedder
from scholargraph.rag.ranking import LexicalIndex
from scholargraph.rag.select import load_run_embedder, query_vector, stored_vectors
from scholargraph.records import Work
from scholargraph.settings import Settings

RRF_K = 60
"""Reciprocal-rank constant (Cormack et al.'s 60): a work's fused score is the sum of
``1 / (RRF_K + rank)`` over the lexical and the dense ranking."""


@dataclass(frozen=True)
class WorkRelevance:
    """How one work's title and abstract score against the question."""

    work_id: str
    lexical: float
    """BM25 of the title and abstract among the works ranked together."""
    dense: float | None
    """Cosine of the work's vector with the question's; None without an embedding model."""
    fused: float


def work_text(work: Work) -> str:
    """What a work is judged by here: its title and abstract (what the sources return)."""
    return f"{work.title}. {work.abstract or ''}".strip()


def rank_works(question: str, works: list[Work], settings: Settings,
               embedder: Embedder | None = None) -> tuple[list[WorkRelevance], list[str]]:
    """The works best first, with their scores, and any warnings (the embedding model or the
    store unavailable). ``embedder`` overrides the run's model (tests)."""
    if not works:
        return [], []
    warnings: list[str] = []
    texts = [work_text(work) for work in works]
    lexical = LexicalIndex(texts).scores(question)
    embedder = embedder or load_run_embedder(settings, warnings)
    dense = _cosines(question, texts, works, embedder, settings, warnings) if embedder else None
    fused = _reciprocal_rank(lexical) + (_reciprocal_rank(dense) if dense is not None else 0)
    ranked = [WorkRelevance(work.id, float(lexical[i]),
                            None if dense is None else float(dense[i]), float(fused[i]))
              for i, work in enumerate(works)]
    order = sorted(range(len(works)), key=lambda i: (-ranked[i].fused, i))
    return [ranked[i] for i in order], warnings


def _reciprocal_rank(scores: np.ndarray) -> np.ndarray:
    """``1 / (RRF_K + rank)`` per text, rank 1 the best; equal scores share the better rank."""
    order = np.argsort(-scores, kind="stable")
    ranks = np.empty(len(scores), np.float64)
    ranks[order] = np.arange(1, len(scores) + 1)
    for value in np.unique(scores):  # ties share the best rank among them
        same = scores == value
        ranks[same] = ranks[same].min()
    return 1.0 / (RRF_K + ranks)


def _cosines(question: str, texts: list[str], works: list[Work], embedder: Embedder,
             settings: Settings, warnings: list[str]) -> np.ndarray | None:
    """Cosine of each work's vector (through the store) with the question's, or None."""
    vectors = stored_vectors(texts, [work.id for work in works], embedder, settings, warnings)
    query = query_vector(question, embedder, warnings) if vectors is not None else None
    return None if vectors is None or query is None else vectors @ query.astype(np.float32)
