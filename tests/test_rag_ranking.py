"""Ranking helpers: BM25 tokenisation, fusion, top-k and MMR, on small hand-made inputs."""

from __future__ import annotations

import numpy as np

from scholargraph.rag.ranking import FusionParams, HybridIndex, mmr, tokenize, top_k

TEXTS = [
    "Glass encapsulation keeps perovskite solar cells stable in damp heat.",
    "Statins reduce cardiovascular events in adults.",
    "Perovskite films degrade under humidity without encapsulation.",
]


def test_tokenize_stems_and_drops_stop_words() -> None:
    assert tokenize("The encapsulated cells of a device") == ["encapsul", "cell", "devic"]


def test_top_k_breaks_ties_by_index() -> None:
    scores = np.asarray([0.5, 0.9, 0.5, 0.9, 0.1])
    assert top_k(scores, 3).tolist() == [1, 3, 0]
    assert top_k(scores, 10).tolist() == [1, 3, 0, 2, 4]


def test_lexical_index_scores_only_matching_texts() -> None:
    index = HybridIndex(TEXTS, None)
    relevance, plausible = index.search("perovskite encapsulation")
    assert plausible.tolist() == [True, False, True]
    assert relevance[1] == 0


def test_fusion_uses_both_sides() -> None:
    embeddings = np.eye(3, dtype=np.float32)
    query_vector = np.asarray([0.0, 0.0, 1.0], np.float32)
    for method in ("convex", "rrf"):
        index = HybridIndex(TEXTS, embeddings, FusionParams(method=method))
        fused = index.scores("glass encapsulation stable", query_vector)
        lexical_only = index.lexical_scores("glass encapsulation stable")
        assert int(np.argmax(lexical_only)) == 0
        assert fused[2] > fused[1], method


def test_mmr_caps_each_group_and_prefers_novelty() -> None:
    relevance = np.asarray([1.0, 0.95, 0.9, 0.5, 0.4])
    similarity = np.eye(5)
    similarity[0, 1] = similarity[1, 0] = 0.99
    chosen = mmr(relevance, similarity, ["a", "a", "a", "b", "c"], k=4, max_per_group=2)
    assert chosen[0] == 0
    assert 2 in chosen and 1 not in chosen
    assert sorted(chosen) == [0, 2, 3, 4]
