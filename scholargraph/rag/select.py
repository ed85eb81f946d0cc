"""The RAG filter's core: for each sub-question, the passages of these works that answer it.

Works are chunked into passages; passages are embedded through the store (so a passage seen in an
earlier run is not embedded again); each sub-question is ranked against them by the hybrid index
(BM25 + dense, fused), and MMR picks a diverse few, at most two per work. When the embedding model
or the store cannot be used the ranking degrades (lexical only, or vectors not cached) and a
warning says so; it never stops the review.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scholargraph.agents.schemas import SubQuestion
from scholargraph.rag.chunking import chunk_work, statement_text
from scholargraph.rag.embeddings import Embedder, EmbeddingUnavailable, load_embedder
from scholargraph.rag.ranking import HybridIndex, mmr, tokenize, top_k
from scholargraph.rag.store import PassageStore, open_client
from scholargraph.records import Passage, Work
from scholargraph.settings import Settings, get_settings

CANDIDATES = 50
"""MMR chooses among this many of the best-ranked passages per sub-question."""
MAX_PER_WORK = 2
SCORE_DECIMALS = 6
"""Scores are rounded before ranking so float noise cannot reorder ties between runs."""


def store_errors() -> tuple[type[Exception], ...]:
    """What opening or reading the vector store may raise when it is unavailable (Chroma's own
    errors, imported only when a store is opened: Chroma is slow to import)."""
    from chromadb.errors import ChromaError

    return (ChromaError, ValueError, OSError, ConnectionError)


def select_passages(sub_questions: list[SubQuestion], works: list[Work], *, per_question: int,
                    settings: Settings | None = None, embedder: Embedder | None = None
                    ) -> tuple[dict[str, list[Passage]], list[str]]:
    """For each sub-question id, the best passages of ``works`` (scored), and any warnings.

    ``embedder`` overrides the model ``settings.embedding_model`` names (tests, callers that
    already hold one).
    """
    settings = settings or get_settings()
    warnings: list[str] = []
    passages, texts, lexical_texts = _passages(works)
    if not passages:
        return {question.id: [] for question in sub_questions}, warnings
    embedder = embedder or load_run_embedder(settings, warnings)
    embeddings = (stored_vectors(texts, [p.work_id for p in passages], embedder, settings,
                                 warnings) if embedder else None)
    if embeddings is None:
        embedder = None
    index = HybridIndex(lexical_texts, embeddings)
    selected = {
        question.id: _select(question, index, embedder, passages, per_question, warnings)
        for question in sub_questions
    }
    return selected, list(dict.fromkeys(warnings))


def indexed_text(work: Work, passage: Passage) -> str:
    """What is embedded for a passage: the work's title gives the span its context."""
    if passage.section == "title":
        return passage.text
    return f"{work.title}. {passage.text}"


def lexical_text(work: Work, passage: Passage) -> str:
    """What BM25 scores for a passage: the title and the whole abstract for a passage of the
    abstract, the title and the passage itself for one of the full text.

    An abstract is the unit BM25 judges best (its terms, counted once over the abstract, say
    what the work is about), while the embedding model sees only a few hundred tokens, so it
    embeds the abstract in pieces. On SciFact train, BM25 over whole abstracts fused with
    vectors of 800-character pieces ranks better than either unit for both (``bench/
    retrieval.py``); a full text is far longer than an abstract, so its passages stay units.
    The abstract is what it states (:func:`~scholargraph.rag.chunking.statement_text`, the
    sentences its passages are cut from): its licence notice or reference list names words
    the work is not about.
    """
    if passage.section == "abstract" and work.abstract:
        return f"{work.title}. {statement_text(work.abstract)}"
    return indexed_text(work, passage)


def _passages(works: list[Work]) -> tuple[list[Passage], list[str], list[str]]:
    """Each distinct passage, with its embedded text and its lexical text."""
    passages: dict[str, Passage] = {}
    texts: dict[str, tuple[str, str]] = {}
    for work in works:
        for passage in chunk_work(work):
            if passage.id not in passages:
                passages[passage.id] = passage
                texts[passage.id] = (indexed_text(work, passage), lexical_text(work, passage))
    return (list(passages.values()), [dense for dense, _ in texts.values()],
            [lexical for _, lexical in texts.values()])


RANKED_LEXICALLY = "dense embeddings unavailable: {error}; ranked lexically"
"""What retrieval, the RAG filter and screening say when the embedding model cannot be had."""


def load_run_embedder(settings: Settings, warnings: list[str],
                      unavailable: str = RANKED_LEXICALLY) -> Embedder | None:
    """The run's embedding model, or None with ``unavailable`` (its ``{error}``: why) added to
    ``warnings``: every step that embeds goes on without it, on words alone, and says so in
    its own terms."""
    try:
        return load_embedder(settings.embedding_model, models_dir=settings.models_path)
    except EmbeddingUnavailable as error:
        warnings.append(unavailable.format(error=error))
        return None


def stored_vectors(texts: Sequence[str], work_ids: Sequence[str], embedder: Embedder,
                   settings: Settings, warnings: list[str]) -> np.ndarray | None:
    """Vectors of texts (each of the work named beside it) from the store, embedding only what
    it lacks; embedded without the store when it is unavailable; None, with a warning, when the
    model fails."""
    try:
        try:
            store = PassageStore(open_client(settings), embedder)
            return store.embeddings(texts, [{"work_id": work_id} for work_id in work_ids])
        except store_errors() as error:
            warnings.append(f"vector store unavailable ({error}); embeddings not cached")
            return embedder.embed_documents(texts)
    except EmbeddingUnavailable as error:
        warnings.append(f"dense embeddings unavailable: {error}; ranked lexically")
        return None


def _select(question: SubQuestion, index: HybridIndex, embedder: Embedder | None,
            passages: list[Passage], per_question: int, warnings: list[str]) -> list[Passage]:
    vector = query_vector(question.text, embedder, warnings)
    relevance, plausible = index.search(question.text, vector)
    relevance = np.round(relevance, SCORE_DECIMALS)
    candidates = top_k(relevance, min(CANDIDATES, len(passages)))
    candidates = candidates[plausible[candidates]]
    similarity = _similarity(index, candidates)
    owners = [passages[i].work_id for i in candidates]
    chosen = mmr(relevance[candidates], similarity, owners, per_question,
                 max_per_group=per_work(per_question, len(set(owners))))
    return [
        passages[candidates[c]].model_copy(update={
            "score": float(relevance[candidates[c]]), "sub_question_id": question.id})
        for c in chosen
    ]


def per_work(slots: int, works: int) -> int:
    """Passages one work may fill: ``MAX_PER_WORK``, so that one paper cannot fill every slot,
    unless only one or two works share the slots; then each may fill its share of them (a
    review of a claim resting on one or two studies reads them in full, not two pieces of each).
    On the first 100 SciFact train claims (``bench/review.py``) evidence-cited rose from 0.797 to
    0.848: the pieces that name the claim were often not among the first two."""
    return -(-slots // works) if 0 < works <= 2 else MAX_PER_WORK


def query_vector(text: str, embedder: Embedder | None, warnings: list[str]) -> np.ndarray | None:
    """The query's vector, or None without a (working) embedder, with a warning."""
    if embedder is None:
        return None
    try:
        return embedder.embed_query(text)
    except EmbeddingUnavailable as error:
        warnings.append(f"dense embeddings unavailable: {error}; ranked lexically")
        return None


def _similarity(index: HybridIndex, candidates: np.ndarray) -> np.ndarray:
    """Pairwise similarity of candidates: cosine of vectors, else of stemmed-term sets."""
    if index.embeddings is not None:
        vectors = index.embeddings[candidates]
        return vectors @ vectors.T
    terms = [set(tokenize(index.texts[i])) for i in candidates]
    return np.asarray([[len(a & b) / (np.sqrt(len(a) * len(b)) or 1) for b in terms]
                       for a in terms])
