"""The RAG filter: incremental store, hybrid ranking, diversity, and the lexical fallback.

The real bundled embedding models are loaded once per session; Chroma runs embedded in tmp_path.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from scholargraph.agents.schemas import SubQuestion
from scholargraph.rag import embeddings, select_passages
from scholargraph.rag.embeddings import (
    BGE_QUERY_INSTRUCTION,
    BGE_SMALL_INT8,
    MINILM,
    MINILM_INT8,
    TOKENIZER,
    Embedder,
    EmbeddingUnavailable,
    OnnxEmbedder,
    bge_small_paths,
    int8_model_path,
    load_embedder,
)
from scholargraph.rag.select import load_run_embedder, per_work
from scholargraph.rag.store import PassageStore, open_client
from scholargraph.records import Work
from scholargraph.settings import Settings

WORKS = [
    Work(title="Glass encapsulation of perovskite solar cells", doi="10.1000/perovskite",
         abstract="Perovskite solar cells degrade quickly in humid air. We encapsulated cells "
         "with glass and a polymer edge seal. Encapsulated cells kept 90% of their initial "
         "efficiency after 1000 hours of damp-heat testing, while bare cells failed within a day."),
    Work(title="Statins and cardiovascular events", pmid="1001",
         abstract="In a randomized trial of 8000 adults, atorvastatin lowered LDL cholesterol and "
         "reduced major cardiovascular events by 22% over five years."),
    Work(title="Graph neural networks for molecules", arxiv_id="2101.00002",
         abstract="Message-passing neural networks predict quantum chemical properties of small "
         "molecules with chemical accuracy on the QM9 benchmark."),
    Work(title="Coral reef bleaching", doi="10.1000/coral",
         abstract="Marine heatwaves caused mass bleaching across the Great Barrier Reef; corals "
         "recovered slowly where water quality was good."),
    Work(title="Sleep and memory consolidation", pmid="1002",
         abstract="Slow-wave sleep after learning improved recall of word pairs in healthy "
         "volunteers compared with a night of sleep deprivation."),
]
QUESTION = SubQuestion(id="q1", text="Does encapsulation make perovskite solar cells more stable?",
                       answer_shape="stability figures")


class CountingEmbedder:
    """The real embedder, counting how many texts it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.embedded = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


@pytest.fixture(scope="session")
def model(shared_models: Path) -> Embedder:
    """The default model, its int8 form derived in the session's models folder."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCHOLARGRAPH_MODELS", str(shared_models))
        embedder = load_embedder(None)
    assert embedder is not None
    return embedder


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path, store_dir=None, chroma_host=None, embedding_model=None)


def test_the_default_is_the_int8_onnx_model_and_agrees_with_pytorch(model: Embedder) -> None:
    """Same tokens, same pooling (mean under the mask, L2-normalised) as sentence-transformers:
    the int8 vectors point where the PyTorch model's do. The PyTorch side is an extra
    (``scholargraph[torch]``); without it only the int8 model is checked."""
    assert isinstance(model, OnnxEmbedder) and model.name == MINILM_INT8
    full = load_embedder(f"{MINILM_INT8}-max256")  # PyTorch's limit, for a like-for-like check
    assert full is not None
    texts = [w.abstract or "" for w in WORKS] + [QUESTION.text, "aspirin", "word " * 400]
    short = texts[:-1]  # within 192 tokens, the default cut changes nothing
    assert np.allclose(model.embed_documents(short), full.embed_documents(short), atol=1e-6)
    pytest.importorskip("sentence_transformers", reason="the torch extra is not installed")
    torch_model = load_embedder(MINILM)
    assert torch_model is not None and torch_model.name == MINILM
    cosines = (full.embed_documents(texts) * torch_model.embed_documents(texts)).sum(axis=1)
    assert cosines.min() >= 0.98, cosines


def test_a_text_embeds_the_same_alone_or_among_others(model: Embedder) -> None:
    """A content-keyed store needs one vector per text, whatever it was embedded with."""
    texts = [w.abstract or "" for w in WORKS]
    together = model.embed_documents(texts)
    assert np.array_equal(model.embed_documents(texts[2:3])[0], together[2])
    assert np.array_equal(model.embed_query(texts[0]), together[0])
    assert model.embed_documents([]).shape == (0, 384)


def test_a_shorter_token_limit_is_another_model(model: Embedder, shared_models: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut at 128 tokens, a long passage embeds differently, so its vectors get a store
    collection of their own; a short text is unchanged."""
    monkeypatch.setenv("SCHOLARGRAPH_MODELS", str(shared_models))
    short = load_embedder(None, max_seq_length=128)
    assert short is not None and short.name == f"{MINILM_INT8}-max128"
    assert load_embedder(short.name) is short
    long_text = " ".join(w.abstract or "" for w in WORKS)
    assert float(short.embed_query(long_text) @ model.embed_query(long_text)) < 0.99
    assert np.allclose(short.embed_query(QUESTION.text), model.embed_query(QUESTION.text))


def test_the_int8_model_is_derived_once_and_kept(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    """Derived quietly: ONNX Runtime's advice to its own developers reaches no handler."""
    with caplog.at_level(logging.INFO):
        first = int8_model_path(tmp_path / "models")
    assert [r.getMessage() for r in caplog.records if "onnxruntime" in r.pathname] == []
    made = first.stat().st_mtime_ns
    again = int8_model_path(tmp_path / "models")
    assert again == first and again.stat().st_mtime_ns == made
    assert [p.name for p in (tmp_path / "models").iterdir()] == [first.name]


def test_an_unreadable_onnx_model_is_unavailable_not_a_crash(tmp_path: Path) -> None:
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx graph")
    with pytest.raises(EmbeddingUnavailable, match="SCHOLARGRAPH_EMBEDDINGS"):
        OnnxEmbedder(broken, TOKENIZER, name="broken")


def test_the_store_can_live_apart_from_the_home(model: Embedder, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHOLARGRAPH_STORE", str(tmp_path / "shared-store"))
    settings = Settings(home=tmp_path / "home", chroma_host=None)
    assert settings.store_dir == tmp_path / "shared-store"
    PassageStore(open_client(settings), model).embeddings(["A passage about volcanoes."])
    assert (tmp_path / "shared-store").is_dir()
    assert not (tmp_path / "home" / "chroma").exists()


def test_store_embeds_each_text_once_across_runs(model: Embedder, settings: Settings) -> None:
    texts = [w.abstract or "" for w in WORKS]
    first = CountingEmbedder(model)
    vectors = PassageStore(open_client(settings), first).embeddings(texts)
    assert first.embedded == len(texts) and vectors.shape == (len(texts), 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)

    again = CountingEmbedder(model)
    store = PassageStore(open_client(settings), again)
    assert np.allclose(store.embeddings(texts), vectors, atol=1e-6)
    assert again.embedded == 0
    store.embeddings([*texts, "A new passage about volcanoes.", texts[0]])
    assert again.embedded == 1
    assert store.count() == len(texts) + 1


def test_hybrid_ranking_puts_the_relevant_passage_first(model: Embedder, settings: Settings
                                                        ) -> None:
    selected, warnings = select_passages([QUESTION], WORKS, per_question=3, settings=settings,
                                         embedder=model)
    assert warnings == []
    best = selected["q1"][0]
    assert best.work_id == "doi:10.1000/perovskite"
    assert best.sub_question_id == "q1" and best.score > 0
    assert [p.score for p in selected["q1"]] == sorted((p.score for p in selected["q1"]),
                                                       reverse=True)


def test_selection_is_deterministic(model: Embedder, settings: Settings) -> None:
    def run() -> dict:
        return select_passages([QUESTION], WORKS, per_question=4, settings=settings,
                               embedder=model)[0]

    assert run() == run()


def test_mmr_keeps_one_paper_from_filling_every_slot(model: Embedder, settings: Settings) -> None:
    sentences = " ".join(
        f"In test {n}, encapsulated perovskite solar cells stayed stable for {n * 100} hours."
        for n in range(1, 40))
    long_paper = Work(title="Perovskite stability handbook", doi="10.1000/handbook",
                      full_text=sentences)
    selected, _ = select_passages([QUESTION], [long_paper, *WORKS], per_question=5,
                                  settings=settings, embedder=model)
    work_ids = [p.work_id for p in selected["q1"]]
    assert work_ids.count("doi:10.1000/handbook") == per_work(5, len(set(work_ids)))
    assert "doi:10.1000/perovskite" in work_ids
    assert per_work(5, 3) == 2 and per_work(5, 2) == 3  # two works share five slots


def test_missing_model_degrades_to_lexical_ranking_with_a_warning(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, store_dir=None, chroma_host=None,
                        embedding_model=str(tmp_path / "no-such-model"))
    selected, warnings = select_passages([QUESTION], WORKS, per_question=3, settings=settings)
    assert len(warnings) == 1
    assert warnings[0].startswith("dense embeddings unavailable")
    assert "ranked lexically" in warnings[0]
    assert selected["q1"][0].work_id == "doi:10.1000/perovskite"
    assert all(p.work_id == "doi:10.1000/perovskite" for p in selected["q1"])


def test_synthesis_says_in_its_own_words_that_it_goes_on_without_the_model(
        tmp_path: Path) -> None:
    """One loader for every step; each says what it does without the model."""
    from scholargraph.agents.synthesis import TERM_OVERLAP_ONLY

    settings = Settings(home=tmp_path, embedding_model=str(tmp_path / "no-such-model"))
    notes: list[str] = []
    assert load_run_embedder(settings, notes, TERM_OVERLAP_ONLY) is None
    assert len(notes) == 1
    assert notes[0].startswith("synthesis: sentences ranked and checked by term overlap only (")


def test_no_works_gives_empty_selections(settings: Settings) -> None:
    selected, warnings = select_passages([QUESTION], [], per_question=3, settings=settings)
    assert selected == {"q1": []} and warnings == []


def test_unreachable_chroma_server_still_ranks_densely(model: Embedder, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, store_dir=None, chroma_host="127.0.0.1", chroma_port=9)
    selected, warnings = select_passages([QUESTION], WORKS, per_question=2, settings=settings,
                                         embedder=model)
    assert len(warnings) == 1 and warnings[0].startswith("vector store unavailable")
    assert selected["q1"][0].work_id == "doi:10.1000/perovskite"


def test_openai_embeddings_without_a_key_degrade_with_a_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = Settings(home=tmp_path, store_dir=None, chroma_host=None,
                        embedding_model="openai:text-embedding-3-small")
    selected, warnings = select_passages([QUESTION], WORKS, per_question=2, settings=settings)
    assert len(warnings) == 1 and "OPENAI_API_KEY" in warnings[0]
    assert selected["q1"][0].work_id == "doi:10.1000/perovskite"


def test_lexical_only_by_choice_needs_no_model_and_warns_nothing(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, store_dir=None, chroma_host=None, embedding_model="none")
    selected, warnings = select_passages([QUESTION], WORKS, per_question=2, settings=settings)
    assert warnings == []
    assert selected["q1"][0].work_id == "doi:10.1000/perovskite"


def test_vectors_of_another_token_limit_or_model_file_get_their_own_collection(
        model: Embedder, settings: Settings) -> None:
    """The store is content-keyed, so two embedders whose vectors differ must never share a
    collection, even under one display name."""
    full = load_embedder(f"{MINILM_INT8}-max256")
    client = open_client(settings)
    assert isinstance(model, OnnxEmbedder) and isinstance(full, OnnxEmbedder)
    names = {PassageStore(client, embedder).collection.name for embedder in (model, full)}
    assert len(names) == 2
    assert model.store_key.startswith(f"{MINILM_INT8}:") and model.store_key.endswith(":192")


def test_a_query_prefix_goes_before_queries_only_and_cls_pooling_reads_the_first_token(
        model: Embedder, shared_models: Path) -> None:
    """What a model such as bge asks for, checked on the bundled MiniLM file: the prefix is read
    before a query and never before a passage, and first-token pooling is another vector than
    the mean of the tokens."""
    path = int8_model_path(shared_models)
    prefixed = OnnxEmbedder(path, TOKENIZER, name="prefixed", query_prefix="query: ")
    text = QUESTION.text
    assert np.array_equal(prefixed.embed_documents([text])[0], model.embed_documents([text])[0])
    assert np.allclose(prefixed.embed_query(text), model.embed_documents([f"query: {text}"])[0])
    assert not np.allclose(prefixed.embed_query(text), model.embed_query(text))
    first = OnnxEmbedder(path, TOKENIZER, name="first", pooling="cls")
    vector = first.embed_query(text)
    assert np.isclose(np.linalg.norm(vector), 1.0)
    assert float(vector @ model.embed_query(text)) < 0.99
    with pytest.raises(ValueError, match="pooling"):
        OnnxEmbedder(path, TOKENIZER, name="max", pooling="max")


def test_bge_small_is_unavailable_with_the_extra_to_install_when_its_package_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the package that ships the file, the option says what to install, and passages
    are still ranked, lexically, with that warning."""
    monkeypatch.setattr(embeddings, "BGE_PACKAGE", "scholargraph_no_such_package")
    with pytest.raises(EmbeddingUnavailable, match=r"scholargraph\[bge\]"):
        bge_small_paths()
    settings = Settings(home=tmp_path, store_dir=None, chroma_host=None,
                        embedding_model=f"{BGE_SMALL_INT8}-max128")  # not cached by another test
    selected, warnings = select_passages([QUESTION], WORKS, per_question=3, settings=settings)
    assert len(warnings) == 1 and "scholargraph[bge]" in warnings[0]
    assert selected["q1"][0].work_id == "doi:10.1000/perovskite"


def test_bge_small_ranks_the_relevant_passage_first_with_its_instruction() -> None:
    """bge-small-en-v1.5 from its package (the ``bge`` extra): first-token vectors, the
    retrieval instruction before a query only, its own store collection per package version."""
    try:
        bge_small_paths()
    except EmbeddingUnavailable:
        pytest.skip("the bge extra is not installed")
    bge = load_embedder(BGE_SMALL_INT8)
    assert isinstance(bge, OnnxEmbedder) and bge.pooling == "cls"
    assert bge.query_prefix == BGE_QUERY_INSTRUCTION
    assert bge.store_key.startswith(f"{BGE_SMALL_INT8}:") and bge.store_key.endswith(":192")
    abstracts = [w.abstract or "" for w in WORKS]
    vectors = bge.embed_documents(abstracts)
    assert vectors.shape == (5, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    cosines = vectors @ bge.embed_query(QUESTION.text)
    assert int(np.argmax(cosines)) == 0, cosines
    assert not np.allclose(bge.embed_query(abstracts[0]), vectors[0])
    longer = load_embedder(f"{BGE_SMALL_INT8}-max512")
    assert isinstance(longer, OnnxEmbedder) and longer.store_key.endswith(":512")
