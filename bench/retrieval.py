"""nDCG@10 and Recall@100 of the project's retrieval on a BEIR folder: BM25, dense, hybrid.

    python bench/retrieval.py --beir ../shared/evaldata/scifact --split train

Every corpus document becomes a :class:`Work` (title + abstract), is cut into passages by
``chunk_work``, embedded through the project's :class:`PassageStore` (Chroma, in ``--cache``:
a second run embeds nothing) and indexed by the project's :class:`HybridIndex`; a document scores
the best of its passages. Prints the three rankers' figures, the indexing time (and how many
passages it had to embed), the query latency p50, and as its last line ``nDCG@10 <hybrid>``.

``--tune`` grid-searches the fusion parameters on the given split (use train only) and prints
the best settings, which are then set as ``ranking.DEFAULT_PARAMS`` by hand.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

from scholargraph.rag.chunking import chunk_work
from scholargraph.rag.embeddings import load_embedder
from scholargraph.rag.ranking import DEFAULT_PARAMS, FusionParams, HybridIndex, top_k
from scholargraph.rag.select import indexed_text
from scholargraph.rag.store import PassageStore, open_client
from scholargraph.records import Work
from scholargraph.settings import Settings

Qrels = dict[str, dict[str, int]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", type=Path, required=True)
    parser.add_argument("--split", default="test")
    parser.add_argument("--cache", type=Path,
                        default=Path(tempfile.gettempdir()) / "scholargraph-bench-store",
                        help="where the bench's Chroma store lives between runs")
    parser.add_argument("--model", default=None, help="embedding model (default: the project's)")
    parser.add_argument("--tune", action="store_true", help="grid-search fusion parameters")
    args = parser.parse_args()
    qrels_path = args.beir / "qrels" / f"{args.split}.tsv"
    if not qrels_path.exists():
        sys.exit(f"no qrels for split {args.split!r} at {qrels_path}")
    corpus = read_jsonl(args.beir / "corpus.jsonl")
    qrels = read_qrels(qrels_path)
    queries = {q["_id"]: q["text"] for q in read_jsonl(args.beir / "queries.jsonl")
               if q["_id"] in qrels}
    print(f"corpus {len(corpus)} documents, {len(queries)} {args.split} queries")

    bench = Bench(corpus, args.cache, args.model)
    print(f"indexing    {bench.index_seconds:.1f} s for {len(bench.passages)} passages "
          f"({bench.embedded} embedded now, the rest from the store)")
    if args.tune:
        tune(bench, queries, qrels)
        return
    runs = bench.run_all(queries)
    for name in ("bm25", "dense", "hybrid"):
        print(f"{name:<8} nDCG@10 {ndcg(runs[name], qrels, 10):.4f}  "
              f"Recall@100 {recall(runs[name], qrels, 100):.4f}")
    print(f"query p50   {statistics.median(bench.latencies) * 1000:.1f} ms (hybrid, "
          f"query embedding included)")
    print(f"nDCG@10 {ndcg(runs['hybrid'], qrels, 10):.4f}")


class Bench:
    """The corpus indexed the project's way, and rankings of it per query."""

    def __init__(self, corpus: list[dict], cache: Path, model: str | None,
                 params: FusionParams = DEFAULT_PARAMS) -> None:
        started = time.perf_counter()
        embedder = load_embedder(model)
        if embedder is None:
            sys.exit("the bench needs an embedding model")
        self.embedder = embedder
        self.passages, texts, doc_ids = [], [], []
        for doc in corpus:
            work = Work(title=doc.get("title") or "", abstract=doc.get("text") or None)
            for passage in chunk_work(work):
                self.passages.append(passage)
                texts.append(indexed_text(work, passage))
                doc_ids.append(doc["_id"])
        counting = _Counting(embedder)
        store = PassageStore(open_client(Settings(home=cache, chroma_host=None)), counting)
        embeddings = store.embeddings(texts)
        self.index = HybridIndex(texts, embeddings, params)
        self.index_seconds = time.perf_counter() - started
        self.embedded = counting.embedded
        self.doc_ids = np.asarray(doc_ids)
        self.latencies: list[float] = []

    def rank(self, scores: np.ndarray, k: int = 100) -> dict[str, float]:
        """The top ``k`` documents, each scored by its best passage."""
        best: dict[str, float] = {}
        for i in top_k(scores, min(len(scores), k * 3)):
            doc = str(self.doc_ids[i])
            if doc not in best:
                best[doc] = float(scores[i])
                if len(best) == k:
                    break
        return best

    def run_all(self, queries: dict[str, str]) -> dict[str, dict[str, dict[str, float]]]:
        runs: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
        for qid, text in queries.items():
            started = time.perf_counter()
            vector = self.embedder.embed_query(text)
            runs["hybrid"][qid] = self.rank(self.index.scores(text, vector))
            self.latencies.append(time.perf_counter() - started)
            runs["bm25"][qid] = self.rank(self.index.lexical_scores(text))
            runs["dense"][qid] = self.rank(self.index.dense_scores(vector))
        return runs


class _Counting:
    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner, self.name, self.embedded = inner, inner.name, 0

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        self.embedded += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text):  # type: ignore[no-untyped-def]
        return self.inner.embed_query(text)


def tune(bench: Bench, queries: dict[str, str], qrels: Qrels) -> None:
    """Grid search of BM25 and fusion parameters; prints the best few by nDCG@10."""
    vectors = {qid: bench.embedder.embed_query(text) for qid, text in queries.items()}
    texts = bench.index.texts
    results = []
    for k1, b in itertools.product((0.9, 1.2, 1.5), (0.6, 0.75, 0.9)):
        base = replace(bench.index.params, k1=k1, b=b)
        index = HybridIndex(texts, bench.index.embeddings, base)
        lexical = {qid: index.lexical_scores(text) for qid, text in queries.items()}
        dense = {qid: index.dense_scores(vectors[qid]) for qid in queries}
        grid = [{"method": "rrf", "rrf_k": k, "depth": 1000} for k in (10, 30, 60)]
        grid += [{"method": "convex", "depth": d} for d in (100, 1000)]
        for options, weight in itertools.product(grid, (0.5, 0.75, 1.0, 1.25)):
            index.params = replace(base, dense_weight=weight, **options)
            run = {qid: bench.rank(index.fuse(lexical[qid], dense[qid])) for qid in queries}
            results.append((ndcg(run, qrels, 10), recall(run, qrels, 100), index.params))
            print(f"nDCG@10 {results[-1][0]:.4f} Recall@100 {results[-1][1]:.4f} "
                  f"{index.params}", flush=True)
    print("best:")
    for score, rec, params in sorted(results, key=lambda r: -r[0])[:8]:
        print(f"nDCG@10 {score:.4f} Recall@100 {rec:.4f} {params}")


def ndcg(run: dict[str, dict[str, float]], qrels: Qrels, k: int) -> float:
    values = []
    for qid, relevant in qrels.items():
        ranked = sorted(run.get(qid, {}).items(), key=lambda item: -item[1])[:k]
        dcg = sum(relevant.get(doc, 0) / math.log2(rank + 2)
                  for rank, (doc, _) in enumerate(ranked))
        ideal = sorted(relevant.values(), reverse=True)[:k]
        idcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(ideal))
        values.append(dcg / idcg if idcg else 0.0)
    return sum(values) / len(values)


def recall(run: dict[str, dict[str, float]], qrels: Qrels, k: int) -> float:
    values = []
    for qid, relevant in qrels.items():
        ranked = sorted(run.get(qid, {}).items(), key=lambda item: -item[1])[:k]
        hits = sum(1 for doc, _ in ranked if relevant.get(doc, 0) > 0)
        values.append(hits / sum(1 for gain in relevant.values() if gain > 0))
    return sum(values) / len(values)


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_qrels(path: Path) -> Qrels:
    qrels: Qrels = defaultdict(dict)
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            qrels[row["query-id"]][row["corpus-id"]] = int(row["score"])
    return dict(qrels)


if __name__ == "__main__":
    main()
