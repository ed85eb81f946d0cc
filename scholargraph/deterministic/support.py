"""Does a written sentence rest on the passages it cites? Lexical and embedding evidence.

A sentence is *supported* when most of its content terms occur in the cited passages (stemmed, so
"reduced" meets "reduction") **and**, when an embedding model is at hand, its closest cited
sentence is close in meaning. Either test alone is easy to pass: a sentence can reuse a passage's
words to say something else, and a vector can be near while the terms (a drug, a number) differ.

Thresholds were set on SciFact train claims against their SUPPORT evidence abstracts versus the
most similar non-evidence abstract (BM25's top pick): with both tests, 89% of supported claims
pass and about half of those hard look-alikes are stopped; lexical alone needs a higher bar.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scholargraph.agents.schemas import Quote
from scholargraph.rag.chunking import split_sentences
from scholargraph.rag.embeddings import Embedder, EmbeddingUnavailable
from scholargraph.rag.ranking import tokenize
from scholargraph.records import Passage

LEXICAL_WITH_DENSE = 0.4
LEXICAL_ALONE = 0.5
DENSE_MIN = 0.55


@dataclass(frozen=True)
class Support:
    """The evidence for one sentence: term coverage, closest cosine, and the closest quote."""

    lexical: float
    dense: float | None
    quote: Quote | None

    @property
    def supported(self) -> bool:
        if self.dense is None:
            return self.lexical >= LEXICAL_ALONE
        return self.lexical >= LEXICAL_WITH_DENSE and self.dense >= DENSE_MIN

    @property
    def score(self) -> float:
        """One 0-1 figure for the report: the weaker of the two tests."""
        return round(self.lexical if self.dense is None else min(self.lexical, self.dense), 3)


def lexical_support(sentence: str, evidence: str) -> float:
    """Share of the sentence's stemmed content terms found in the evidence."""
    claim = set(tokenize(sentence))
    if not claim:
        return 0.0
    return len(claim & set(tokenize(evidence))) / len(claim)


def passage_sentences(passage: Passage) -> list[Quote]:
    """Every sentence of a passage as a verbatim quote with its offsets."""
    return [Quote(passage_id=passage.id, start=start, end=end, text=passage.text[start:end])
            for start, end in split_sentences(passage.text)]


class SupportChecker:
    """Checks sentences against cited passages; dense evidence only with an embedder."""

    def __init__(self, embedder: Embedder | None) -> None:
        self.embedder = embedder
        self.warnings: list[str] = []

    def check(self, sentence: str, passages: Sequence[Passage]) -> Support:
        quotes = [quote for passage in passages for quote in passage_sentences(passage)]
        lexical = lexical_support(sentence, " ".join(p.text for p in passages))
        if not quotes:
            return Support(lexical, None, None)
        similarity = self._similarity(sentence, [quote.text for quote in quotes])
        if similarity is None:
            overlaps = [lexical_support(sentence, quote.text) for quote in quotes]
            return Support(lexical, None, quotes[int(np.argmax(overlaps))])
        best = int(np.argmax(similarity))
        return Support(lexical, round(float(similarity[best]), 3), quotes[best])

    def _similarity(self, sentence: str, texts: list[str]) -> np.ndarray | None:
        if self.embedder is None:
            return None
        try:
            vectors = self.embedder.embed_documents([sentence, *texts])
        except EmbeddingUnavailable as error:
            self.warnings.append(f"support check without embeddings: {error}")
            self.embedder = None
            return None
        return vectors[1:] @ vectors[0]
