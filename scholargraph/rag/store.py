"""The vector store: passage embeddings kept in Chroma, keyed by content: nothing embeds twice.

Each embedding model has its own collection (vectors of different models do not compare). A
passage's key is the SHA-256 of the text that was embedded, so a work seen in an earlier review,
or the same abstract found again under another id, costs a look-up, not an embedding; and a store
of 100,000 passages is never rebuilt: a run reads the vectors of its own passages by key.

By default the store is Chroma embedded (``PersistentClient`` in ``SCHOLARGRAPH_STORE``, else
``SCHOLARGRAPH_HOME/chroma``); with ``CHROMA_HOST`` set it is that Chroma server. Keeping the store
apart from the home lets runs with separate homes share the vectors (the test suite does).
Vectors are always computed here and handed to Chroma, so Chroma's own default embedding function
(which downloads a model) is never used; the texts themselves are not stored (the key names them).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from scholargraph.rag.embeddings import Embedder
from scholargraph.settings import Settings

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

LOOKUP_BATCH = 500


def content_key(text: str) -> str:
    """The store key of an embedded text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_clients_lock = threading.Lock()


def open_client(settings: Settings) -> ClientAPI:
    """Chroma embedded in ``settings.store_dir`` (default ``settings.home / "chroma"``), or the
    server ``CHROMA_HOST`` names.

    Clients are made one at a time: Chroma shares one system per path within a process, and two
    runs starting their first client on it together (two concurrent reviews) race in its set-up.
    Chroma is imported here, by the first run that opens the store: it takes a second or two to
    import, which loading the graph (LangGraph Studio, the CLI's input checks) need not pay.
    """
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    with _clients_lock:
        if settings.chroma_host:
            return chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port,
                                       settings=chroma_settings)
        path = settings.store_dir or settings.home / "chroma"
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=chroma_settings)


class PassageStore:
    """Embeddings of texts for one embedder, computed once and kept in a Chroma collection."""

    def __init__(self, client: ClientAPI, embedder: Embedder) -> None:
        self.embedder = embedder
        self.collection: Collection = client.get_or_create_collection(
            name=collection_name(getattr(embedder, "store_key", None) or embedder.name),
            embedding_function=None,
            metadata={"hnsw:space": "cosine", "embedding_model": embedder.name},
        )
        self.max_batch = client.get_max_batch_size()

    def embeddings(self, texts: Sequence[str], metadatas: Sequence[dict] | None = None
                   ) -> np.ndarray:
        """One L2-normalised row per text: stored vectors where known, the rest embedded and
        stored."""
        keys = [content_key(text) for text in texts]
        known = self._lookup(list(dict.fromkeys(keys)))
        missing = {key: index for index, key in enumerate(keys) if key not in known}
        if missing:
            indices = list(missing.values())
            vectors = self.embedder.embed_documents([texts[i] for i in indices])
            self._add(list(missing), vectors,
                      [metadatas[i] for i in indices] if metadatas else None)
            known.update(zip(missing, vectors, strict=True))
        if not keys:
            return np.zeros((0, 0), np.float32)
        return np.stack([known[key] for key in keys]).astype(np.float32)

    def count(self) -> int:
        return self.collection.count()

    def _lookup(self, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for offset in range(0, len(keys), LOOKUP_BATCH):
            batch = self.collection.get(ids=keys[offset:offset + LOOKUP_BATCH],
                                        include=["embeddings"])
            embeddings = batch["embeddings"] if batch["embeddings"] is not None else []
            found.update(zip(batch["ids"], (np.asarray(e, np.float32) for e in embeddings),
                             strict=True))
        return found

    def _add(self, keys: list[str], vectors: np.ndarray, metadatas: list[dict] | None) -> None:
        """Vectors only: the texts live in the review's records, and Chroma would index every
        document for full-text search, which took 60% of the time to add SciFact's 8,589
        passages (4.4 s against 1.7 s)."""
        for offset in range(0, len(keys), self.max_batch):
            end = offset + self.max_batch
            self.collection.add(ids=keys[offset:end], embeddings=vectors[offset:end],
                                metadatas=metadatas[offset:end] if metadatas else None,  # type: ignore[arg-type]
                                )


def collection_name(model_name: str) -> str:
    """A valid Chroma collection name for a model (3-512 chars of [a-zA-Z0-9._-])."""
    slug = re.sub(r"[^a-zA-Z0-9._-]+", "-", model_name).strip("-._")[:40]
    digest = hashlib.sha1(model_name.encode()).hexdigest()[:8]
    return f"passages-{slug}-{digest}"
