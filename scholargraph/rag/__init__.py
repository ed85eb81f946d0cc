"""Evidence handling: deduplication, passages, embeddings, the vector store and hybrid ranking.

- :func:`deduplicate` (``rag.dedup``) merges the records of one work found by several sources;
- :func:`chunk_work` (``rag.chunking``) cuts a work into citable passages with stable ids;
- :func:`select_passages` (``rag.select``) keeps, per sub-question, the passages that answer it.
"""

from scholargraph.dedup import DedupResult, Merge, deduplicate
from scholargraph.rag.chunking import chunk_work
from scholargraph.rag.select import select_passages

__all__ = ["DedupResult", "Merge", "chunk_work", "deduplicate", "select_passages"]
