"""Works ranked against the question itself: how closely each title and abstract answers it.

Passages are ranked per sub-question (:mod:`scholargraph.rag.select`); this ranks whole works
against the question, for the decisions that are about a work rather than a passage (which works
a review of a claim rests on, :func:`scholargraph.deterministic.relevance.works_testing_claim`).

A work is scored four ways, each telling something the others miss:

- ``lexical``: BM25 of its title and abstract among the works ranked together (it names the
  question's words, the rare ones weighing most);
- ``specific``: the share of the question's most specific words it names (a work that leaves
  out "homocysteine" is not about the claim, however often it says "folate");
- ``dense``: the cosine of its title and abstract's vector with the question's (it is about the
  same thing in other words);
- ``passage``: the cosine of its closest passage, title-prefixed as the RAG filter embeds it (an
  abstract whose one sentence states the claim, among sentences on methods and background).

One more score is kept apart, not fused: ``relation``, the cosine of the work's closest sentence
that reports a relation (one with a direction cue, :mod:`scholargraph.deterministic.stance`:
"increased", "was associated with", "did not reduce"). A work on the claim's subject that states
a result about it says so in such a sentence; a work that only names the subject does not. It is
what decides whether a work tests the claim
(:func:`scholargraph.deterministic.relevance.works_testing_claim`).

Each score is min-max scaled over the works ranked together and the fused score is their
weighted mean (``SIGNAL_WEIGHTS``), so it lies between 0 and 1 and a gap in it reads the same
for every question. Vectors come through the store, so nothing seen before is embedded again and
the RAG filter later finds the passages' vectors there. Without an embedding model the ranking
is lexical and specific words only, with a warning, as the RAG filter's is.

The weights were chosen on SciFact train claims, each review's screened works ranked against its
claim: the best-ranked work is a gold evidence abstract for 0.80 of the claims with evidence
(0.75 with BM25 and cosine alone, reciprocal-rank fused), nearly the same on both halves of the
claims (0.82 and 0.77).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scholargraph.deterministic.stance import stance
from scholargraph.rag.chunking import chunk_work, split_sentences, statement_text
from scholargraph.rag.embeddings import Embedder
from scholargraph.rag.ranking import LexicalIndex, min_max_scaled, specific_share
from scholargraph.rag.select import indexed_text, load_run_embedder, query_vector, stored_vectors
from scholargraph.records import Work
from scholargraph.settings import Settings

SIGNAL_WEIGHTS = {"lexical": 1.0, "specific": 0.5, "dense": 1.0, "passage": 2.0}
"""Weight of each scaled score in the fused one (see the module docstring)."""
SPECIFIC_WORDS = 6
"""How many of the question's rarest words the ``specific`` score looks for."""


@dataclass(frozen=True)
class WorkRelevance:
    """How one work's title and abstract score against the question."""

    work_id: str
    lexical: float
    """BM25 of the title and abstract among the works ranked together."""
    specific: float
    """Share of the question's most specific words the title and abstract name."""
    dense: float | None
    """Cosine of the work's vector with the question's; None without an embedding model."""
    passage: float | None
    """Cosine of the work's closest passage with the question; None without a model."""
    fused: float
    """Weighted mean of the scores, each min-max scaled over the works ranked together: 1 for a
    work best on every score, 0 for one worst on every score."""
    relation: float | None = None
    """Cosine of the work's closest sentence reporting a relation (a direction cue) with the
    question; None without a model, 0 for a work with no such sentence."""


def work_text(work: Work) -> str:
    """What a work is judged by here: its title and what its abstract states
    (:func:`~scholargraph.rag.chunking.statement_text`: no reference list, licence notice or
    web-page links, as screening reads it)."""
    return f"{work.title}. {statement_text(work.abstract)}".strip()


def rank_works(question: str, works: list[Work], settings: Settings,
               embedder: Embedder | None = None) -> tuple[list[WorkRelevance], list[str]]:
    """The works best first, with their scores, and any warnings (the embedding model or the
    store unavailable). ``embedder`` overrides the run's model (tests)."""
    if not works:
        return [], []
    warnings: list[str] = []
    texts = [work_text(work) for work in works]
    scores: dict[str, np.ndarray] = {
        "lexical": LexicalIndex(texts).scores(question),
        "specific": _specific_share(question, texts),
    }
    embedder = embedder or load_run_embedder(settings, warnings)
    query = query_vector(question, embedder, warnings) if embedder else None
    if embedder is not None and query is not None:
        dense = _dense_scores(query, texts, works, embedder, settings, warnings)
        if dense is not None:
            scores |= dense
    relation = None
    if "dense" in scores and embedder is not None and query is not None:
        relation = _relation_scores(query, works, embedder, settings, warnings)
    fused = _fused(scores)
    ranked = [WorkRelevance(work.id, float(scores["lexical"][i]), float(scores["specific"][i]),
                            _optional(scores, "dense", i), _optional(scores, "passage", i),
                            float(fused[i]),
                            None if relation is None else float(relation[i]))
              for i, work in enumerate(works)]
    order = sorted(range(len(works)), key=lambda i: (-ranked[i].fused, i))
    return [ranked[i] for i in order], warnings


def _specific_share(question: str, texts: list[str]) -> np.ndarray:
    """Per text, the share of the question's most specific words (stemmed) it names."""
    share = specific_share(question, texts, SPECIFIC_WORDS)
    return np.zeros(len(texts)) if share is None else share


def _dense_scores(query: np.ndarray, texts: list[str], works: list[Work], embedder: Embedder,
                  settings: Settings, warnings: list[str]) -> dict[str, np.ndarray] | None:
    """The whole-work and closest-passage cosines, or None when the model fails."""
    passages = [(index, indexed_text(work, passage))
                for index, work in enumerate(works) for passage in chunk_work(work)]
    owner_index = np.array([index for index, _ in passages], dtype=np.intp)
    all_texts = texts + [text for _, text in passages]
    owners = [work.id for work in works] + [works[index].id for index in owner_index]
    vectors = stored_vectors(all_texts, owners, embedder, settings, warnings)
    if vectors is None:
        return None
    cosines = vectors @ query.astype(np.float32)
    dense = cosines[:len(works)]
    closest = np.full(len(works), -np.inf, dtype=np.float64)
    np.maximum.at(closest, owner_index, cosines[len(works):])
    unchunked = np.isinf(closest)  # no passage: the work is its own closest passage
    closest[unchunked] = dense[unchunked]
    return {"dense": dense, "passage": closest}


def reported_relations(work: Work) -> list[str]:
    """The sentences of a work's abstract that report a relation: each carries a direction cue
    (an increase, a decrease, an effect, or none found)."""
    text = work.abstract or ""
    sentences = [text[start:end] for start, end in split_sentences(text)]
    return [sentence for sentence in sentences if stance(sentence).cues]


def _relation_scores(query: np.ndarray, works: list[Work], embedder: Embedder,
                     settings: Settings, warnings: list[str]) -> np.ndarray | None:
    """Per work, the cosine of its closest sentence reporting a relation (0 without one)."""
    sentences = [(index, sentence) for index, work in enumerate(works)
                 for sentence in reported_relations(work)]
    closest = np.zeros(len(works), dtype=np.float64)
    if not sentences:
        return closest
    owner_index = np.array([index for index, _ in sentences], dtype=np.intp)
    vectors = stored_vectors([sentence for _, sentence in sentences],
                             [works[index].id for index in owner_index], embedder, settings,
                             warnings)
    if vectors is None:
        return None
    np.maximum.at(closest, owner_index, vectors @ query.astype(np.float32))
    return closest


def _fused(scores: dict[str, np.ndarray]) -> np.ndarray:
    """Weighted mean of the min-max scaled scores (a score equal for every work adds 0)."""
    total = sum(SIGNAL_WEIGHTS[name] for name in scores)
    fused = np.zeros(len(next(iter(scores.values()))))
    for name, values in scores.items():
        fused += SIGNAL_WEIGHTS[name] * min_max_scaled(values)
    return fused / total


def _optional(scores: dict[str, np.ndarray], name: str, index: int) -> float | None:
    return float(scores[name][index]) if name in scores else None
