"""Claim-grounded synthesis on SciFact: does the review cite the evidence, quote the rationale,
and call a contradiction a contradiction?

    python bench/synthesis.py --data ../shared/evaldata/scifact --claims 200

Each SciFact train claim with evidence is the question of a review run by the project's own code,
without HTTP: the corpus (5,183 abstracts) is indexed the project's way (passages, embeddings in
the bench's Chroma store, hybrid BM25 + dense ranking) and the 20 best works stand in for what
the sources would return; the RAG filter (``select_passages``) picks each sub-question's passages
from them and the deterministic synthesis (``extractive_draft``) writes the review. Printed:

- evidence cited: share of claims whose review cites a gold evidence abstract (and, to see where
  it is lost, whether one was among the 20 works and among the selected passages);
- rationale precision: share of the review's quoted sentences that are gold rationale
  sentences (all quotes, and quotes from gold abstracts only);
- contradictions: the stance detector on the gold pairs (claim against each rationale sentence:
  recall on CONTRADICT, false alarms on SUPPORT), and how often a review quotes a sentence that
  the detector sets against the claim, for CONTRADICT and for SUPPORT claims.

The last line is ``evidence-cited <share>``. The data is read from ``--data`` and never copied.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scholargraph.agents.intent import detect_intent
from scholargraph.agents.planning import plan_from_template
from scholargraph.deterministic.extractive import claim_candidates, extractive_draft
from scholargraph.deterministic.relevance import question_itself
from scholargraph.deterministic.stance import compare, stance
from scholargraph.rag.chunking import chunk_work
from scholargraph.rag.embeddings import load_embedder
from scholargraph.rag.ranking import HybridIndex, top_k
from scholargraph.rag.select import indexed_text, select_passages
from scholargraph.rag.store import PassageStore, open_client
from scholargraph.records import Work
from scholargraph.settings import Settings

POOL = 20
"""Works per claim handed to the RAG filter, as a source search would return them."""


@dataclass
class Doc:
    """A corpus abstract as a work, with the character span of each SciFact sentence."""

    doc_id: str
    work: Work
    spans: list[tuple[int, int]]


@dataclass
class Tally:
    claims: int = 0
    in_pool: int = 0
    selected: int = 0
    cited: int = 0
    quotes: int = 0
    rationale_quotes: int = 0
    gold_doc_quotes: int = 0
    seconds: list[float] = field(default_factory=list)
    surfaced: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/evaldata/scifact"))
    parser.add_argument("--claims", type=int, default=200, help="sample size (0: all)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--cache", type=Path,
                        default=Path(tempfile.gettempdir()) / "scholargraph-bench-store",
                        help="the bench's Chroma store (shared with bench/retrieval.py)")
    args = parser.parse_args()
    claims_path = args.data / "claims" / "claims_train.jsonl"
    if not claims_path.exists():
        sys.exit(f"no SciFact claims at {claims_path}: pass --data")
    docs = read_docs(args.data)
    claims = [c for c in read_jsonl(claims_path) if c["evidence"]]
    random.Random(args.seed).shuffle(claims)
    claims = claims[:args.claims] if args.claims else claims
    print(f"corpus {len(docs)} abstracts; {len(claims)} train claims with evidence")

    detector_figures(claims, docs)
    settings = Settings(home=args.cache, chroma_host=None)
    started = time.perf_counter()
    corpus = Corpus(docs, settings)
    print(f"indexing {time.perf_counter() - started:.1f} s ({len(corpus.texts)} passages)")
    tally = Tally()
    for claim in claims:
        review_claim(claim, corpus, settings, tally)
    report(tally)


class Corpus:
    """Every abstract indexed as the RAG filter indexes passages; works ranked per claim."""

    def __init__(self, docs: dict[str, Doc], settings: Settings) -> None:
        self.docs = docs
        self.embedder = load_embedder(settings.embedding_model)
        if self.embedder is None:
            sys.exit("the bench needs an embedding model")
        owners, self.texts = [], []
        for doc in docs.values():
            for passage in chunk_work(doc.work):
                owners.append(doc.doc_id)
                self.texts.append(indexed_text(doc.work, passage))
        self.owners = np.asarray(owners)
        vectors = PassageStore(open_client(settings), self.embedder).embeddings(self.texts)
        self.index = HybridIndex(self.texts, vectors)

    def pool(self, claim: str, k: int = POOL) -> list[Doc]:
        scores = self.index.scores(claim, self.embedder.embed_query(claim))
        found: dict[str, None] = {}
        for i in top_k(scores, min(len(scores), k * 3)):
            found.setdefault(str(self.owners[i]), None)
            if len(found) == k:
                break
        return [self.docs[doc_id] for doc_id in found]


def review_claim(claim: dict, corpus: Corpus, settings: Settings, tally: Tally) -> None:
    """One review of one claim, and its figures added to the tally."""
    started = time.perf_counter()
    question = claim["claim"]
    intent = detect_intent(question)
    subs = plan_from_template(question, intent).sub_questions
    pool = corpus.pool(question)
    by_work = {doc.work.id: doc for doc in pool}
    selected, _ = select_passages(subs, [doc.work for doc in pool], per_question=6,
                                  settings=settings, embedder=corpus.embedder)
    passages = [p for sub in subs for p in selected.get(sub.id, [])]
    works = [doc.work for doc in pool]
    itself = question_itself(subs, question)  # a claim is drafted as synthesis drafts one
    ranked = (claim_candidates(itself, passages, works, intent.keywords, corpus.embedder)
              if itself is not None and passages else None)
    draft = extractive_draft(subs, passages, works, intent.keywords, embedder=corpus.embedder,
                             claim_sub=itself, claim_ranked=ranked)
    tally.seconds.append(time.perf_counter() - started)

    gold = {str(doc_id): {i for ev in evs for i in ev["sentences"]}
            for doc_id, evs in claim["evidence"].items()}
    labels = {ev["label"] for evs in claim["evidence"].values() for ev in evs}
    by_passage = {p.id: p for p in passages}
    cited_docs = {by_work[by_passage[pid].work_id].doc_id
                  for f in draft.findings for pid in f.passage_ids}
    tally.claims += 1
    tally.in_pool += bool(gold.keys() & {doc.doc_id for doc in pool})
    tally.selected += bool(gold.keys() & {by_work[p.work_id].doc_id for p in passages})
    tally.cited += bool(gold.keys() & cited_docs)

    claim_stance = stance(question)
    opposed = False
    for finding in (f for f in draft.findings if f.kind == "finding"):
        for quote in finding.quotes:
            passage = by_passage[quote.passage_id]
            doc = by_work[passage.work_id]
            start = passage.start + quote.start
            hit = doc.doc_id in gold and any(
                overlaps((start, passage.start + quote.end), doc.spans[i]) for i in gold[doc.doc_id]
                if i < len(doc.spans))
            tally.quotes += 1
            tally.gold_doc_quotes += doc.doc_id in gold
            tally.rationale_quotes += hit
            relation = compare(claim_stance, stance(quote.text))
            opposed |= relation is not None and relation.relation == "oppose"
    for label in labels:
        tally.surfaced[label].append(opposed)


def overlaps(quote: tuple[int, int], sentence: tuple[int, int]) -> bool:
    """A quote is a rationale sentence when it covers most of it (or it most of the quote)."""
    shared = min(quote[1], sentence[1]) - max(quote[0], sentence[0])
    shortest = min(quote[1] - quote[0], sentence[1] - sentence[0]) or 1
    return shared / shortest >= 0.5


def detector_figures(claims: list[dict], docs: dict[str, Doc]) -> None:
    """The stance detector on the gold pairs: the claim against each rationale sentence."""
    flagged: dict[str, list[bool]] = defaultdict(list)
    for claim in claims:
        claim_stance = stance(claim["claim"])
        for doc_id, evidence in claim["evidence"].items():
            doc = docs[str(doc_id)]
            for ev in evidence:
                sentences = [doc.work.abstract[slice(*doc.spans[i])] for i in ev["sentences"]]
                flagged[ev["label"]].append(any(
                    (r := compare(claim_stance, stance(s))) is not None and r.relation == "oppose"
                    for s in sentences))
    for label in ("CONTRADICT", "SUPPORT"):
        values = flagged.get(label, [])
        print(f"detector on gold {label:<10} pairs: {share(values):.3f} flagged as opposing "
              f"({sum(values)}/{len(values)})")


def report(tally: Tally) -> None:
    n = tally.claims
    print(f"reviews          {n} claims, p50 {statistics.median(tally.seconds) * 1000:.0f} ms each")
    print(f"gold abstract among the {POOL} works   {tally.in_pool / n:.3f}")
    print(f"gold abstract among selected passages {tally.selected / n:.3f}")
    print(f"gold abstract cited by the review     {tally.cited / n:.3f}")
    print(f"rationale precision (all quotes)      "
          f"{tally.rationale_quotes / max(1, tally.quotes):.3f} "
          f"({tally.rationale_quotes}/{tally.quotes})")
    print(f"rationale precision (gold abstracts)  "
          f"{tally.rationale_quotes / max(1, tally.gold_doc_quotes):.3f} "
          f"({tally.rationale_quotes}/{tally.gold_doc_quotes})")
    for label in ("CONTRADICT", "SUPPORT"):
        values = tally.surfaced.get(label, [])
        print(f"review quotes a sentence opposing a {label:<10} claim "
              f"{share(values):.3f} ({sum(values)}/{len(values)})")
    print(f"evidence-cited {tally.cited / n:.4f}")


def share(values: list[bool]) -> float:
    return sum(values) / len(values) if values else 0.0


def read_docs(data: Path) -> dict[str, Doc]:
    """The BEIR corpus as works (the same texts bench/retrieval.py embeds, so its store serves
    both), with the spans of SciFact's sentences found in each abstract."""
    texts = {d["_id"]: d for d in read_jsonl(data / "corpus.jsonl")}
    docs = {}
    for record in read_jsonl(data / "claims" / "corpus_sentences.jsonl"):
        doc_id = str(record["doc_id"])
        source = texts[doc_id]
        work = Work(title=source.get("title") or "", abstract=source.get("text") or None,
                    url=f"https://scifact.invalid/{doc_id}")
        docs[doc_id] = Doc(doc_id, work, sentence_spans(work.abstract or "", record["abstract"]))
    return docs


def sentence_spans(text: str, sentences: list[str]) -> list[tuple[int, int]]:
    spans, position = [], 0
    for sentence in sentences:
        wanted = re.sub(r"\s+", " ", sentence).strip()
        start = text.find(wanted, position)
        if start < 0:
            spans.append((0, 0))
            continue
        spans.append((start, start + len(wanted)))
        position = start + len(wanted)
    return spans


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


if __name__ == "__main__":
    main()
