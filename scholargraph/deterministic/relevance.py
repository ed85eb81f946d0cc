"""Does a piece of evidence address a question? Key terms, screening and direct evidence.

A review overstates itself when a sentence that merely shares a word or two with a question is
counted as answering it (a finding about telomeres and pancreatic cancer "covering" a question
about gene editing for sickle cell disease). Two tests guard against that, both on the question's
*topic terms* (its stemmed content words, without the words that only say what kind of evidence
is wanted: "methods", "findings", "limitations", "study"...):

- **screening** (:func:`off_topic`): a work whose title and abstract mention fewer than
  ``SCREEN_MIN`` of the question's topic terms is excluded as off topic, with the reason, and
  PRISMA counts it;
- **direct evidence** (:class:`DirectEvidence`): a finding answers a sub-question only when its
  work mentions at least ``CONTEXT_MIN`` of the sub-question's topic terms, the quoted sentence
  itself mentions ``SENTENCE_MIN`` of them, and (with an embedding model) the sentence is close in
  meaning to the sub-question (cosine ``DENSE_MIN``). Background sentences that share a word
  pass none of these.

Thresholds were set on SciFact *train* claims with ``bench/review.py`` (the first 100), served
with and without their gold evidence: a review of a claim whose evidence is withheld should not
report the claim covered. At the values below 8% of withheld reviews still do, and of the 35
reviews that cite a gold abstract 17 report the claim covered; looser (context 0.7, cosine
0.55): 14% and 19; looser still (0.6, 0.55): 27% and 28. Precision comes first: a review that
says "no direct evidence" beside a cited abstract under-claims, one that reports coverage
without evidence misleads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scholargraph.agents.schemas import Finding, SubQuestion
from scholargraph.deterministic.text import content_words
from scholargraph.rag.embeddings import Embedder, EmbeddingUnavailable
from scholargraph.rag.ranking import terms_named, tokenize
from scholargraph.rag.works import WorkRelevance
from scholargraph.records import Passage, Work

SCREEN_MIN = 0.3
CONTEXT_MIN = 0.7
SENTENCE_MIN = 0.3
DENSE_MIN = 0.6

GENERIC_WORDS = (
    "what which how does do is are can main findings finding results result limitations "
    "limitation methods method data used use study studies studied evidence reported report "
    "known explain explains differences difference values value compare compared settings "
    "conditions condition mechanisms mechanism proposed supports support contradicts effect "
    "effects role impact research review outcomes outcome associated association correlated "
    "related linked whether"
)
GENERIC_TERMS = frozenset(tokenize(GENERIC_WORDS))
"""Words that say what kind of evidence is wanted, not what it is about."""

EXCLUSION_OFF_TOPIC = "off topic: the title and abstract mention few of the question's key terms"
EXCLUSION_NOT_CLOSEST = ("not among the works closest to the claim: further from it in meaning "
                         "or in words than the best-matching work")

CLAIM_MARGIN = 0.04
"""A review of a claim rests on the works that test the claim itself (see
:func:`closest_to_claim`): the best-ranked work and any other within this much of its fused score
(:class:`~scholargraph.rag.works.WorkRelevance`, 0 to 1). Chosen on SciFact train claims, each
review's screened works ranked against its claim: the best work alone is gold evidence for 0.80
of the claims with evidence, with 0.62 of the kept works relevant; within 0.04, 0.82 and 0.55;
within 0.06, 0.83 and 0.51. Through the whole graph (``bench/review.py``), all 809 train
claims: evidence-cited 0.826, cited-precision 0.559."""


def topic_terms(text: str) -> frozenset[str]:
    """The stemmed content words of a question or sub-question, generic research words left out
    (all of its words when nothing else is left)."""
    terms = frozenset(tokenize(" ".join(content_words(text))))
    return (terms - GENERIC_TERMS) or terms


def topic_text(text: str) -> str:
    """The words of ``text`` that carry its topic, in order (what the meaning test compares a
    sentence with: "What methods have been used to study X?" is about X)."""
    kept = [word for word in re.findall(r"\S+", text)
            if (stems := tokenize(word)) and not set(stems) <= GENERIC_TERMS]
    return " ".join(kept) or text


def term_share(terms: frozenset[str], text: str) -> float:
    """Share of ``terms`` that ``text`` mentions (stemmed)."""
    if not terms:
        return 0.0
    return terms_named(terms, text) / len(terms)


def work_text(work: Work) -> str:
    return f"{work.title} {work.abstract or ''} {work.full_text or ''}"


def off_topic(work: Work, question: str) -> bool:
    """Whether the work's title and abstract mention too few of the question's topic terms."""
    terms = topic_terms(question)
    return bool(terms) and term_share(terms, work_text(work)) < SCREEN_MIN


def closest_to_claim(ranked: Sequence[WorkRelevance]) -> set[str]:
    """The ids of the works a review of a claim rests on, from the works ranked against it
    (:func:`scholargraph.rag.works.rank_works`, best first).

    A claim ("a deficiency of folate increases blood levels of homocysteine") is one
    proposition, tested by few studies; a work that is merely on its topic is background, and
    citing it as evidence says more than the review has. So the best-ranked work is kept, and
    another only when it ranks nearly as high (within ``CLAIM_MARGIN`` of its fused score): two
    studies of the same claim score alike, a study of the topic further down.
    """
    if not ranked:
        return set()
    best = ranked[0].fused
    return {work.work_id for work in ranked if work.fused >= best - CLAIM_MARGIN}


def question_itself(subs: Sequence[SubQuestion], question: str) -> SubQuestion | None:
    """The sub-question that asks the question itself: the one sharing most of its topic terms
    (the first on a tie), or None without sub-questions."""
    terms = topic_terms(question)

    def overlap(sub: SubQuestion) -> float:
        own = topic_terms(sub.text)
        return len(terms & own) / (len(terms | own) or 1)

    return max(subs, key=overlap, default=None)


@dataclass(frozen=True)
class Directness:
    """How one finding bears on one sub-question: the three tests' values and their verdict."""

    context: float
    sentence: float
    dense: float | None

    @property
    def direct(self) -> bool:
        close = self.dense is None or self.dense >= DENSE_MIN
        return self.context >= CONTEXT_MIN and self.sentence >= SENTENCE_MIN and close


class DirectEvidence:
    """Which findings answer their sub-question directly (see the module docstring).

    Synthesis and evaluation both ask it, so the summary's "direct evidence" and the evaluator's
    coverage are the same judgement.
    """

    def __init__(self, passages: Sequence[Passage], papers: Sequence[Work],
                 embedder: Embedder | None) -> None:
        self.passages = {p.id: p for p in passages}
        self.works = {w.id: w for w in papers}
        self.embedder = embedder

    def findings(self, sub: SubQuestion, findings: Sequence[Finding]) -> list[Finding]:
        """The findings of ``sub`` (kind "finding") that answer it directly."""
        own = [f for f in findings if f.sub_question_id == sub.id and f.kind == "finding"]
        return [f for f, d in zip(own, self.assess(sub, own)) if d.direct]

    def assess(self, sub: SubQuestion, findings: Sequence[Finding]) -> list[Directness]:
        terms = topic_terms(sub.text)
        sentences = [" ".join(q.text for q in f.quotes) or f.text for f in findings]
        dense = self._cosines(topic_text(sub.text), sentences)
        return [Directness(context=self._context(terms, finding),
                           sentence=term_share(terms, sentence),
                           dense=None if dense is None else float(dense[i]))
                for i, (finding, sentence) in enumerate(zip(findings, sentences))]

    def _context(self, terms: frozenset[str], finding: Finding) -> float:
        """The best share of the terms mentioned by one cited work (title, abstract, passage)."""
        best = 0.0
        for passage_id in finding.passage_ids:
            passage = self.passages.get(passage_id)
            if passage is None:
                continue
            work = self.works.get(passage.work_id)
            text = work_text(work) if work else passage.text
            best = max(best, term_share(terms, f"{text} {passage.text}"))
        return best

    def _cosines(self, query: str, texts: list[str]) -> np.ndarray | None:
        if self.embedder is None or not texts:
            return None
        try:
            vectors = self.embedder.embed_documents(texts)
            return vectors @ self.embedder.embed_query(query)
        except EmbeddingUnavailable:
            self.embedder = None
            return None
