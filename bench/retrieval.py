"""nDCG@10 and Recall@100 of the project's retrieval on a BEIR folder: BM25, dense, hybrid.

    python bench/retrieval.py --beir ../shared/evaldata/scifact --split train

Every corpus document becomes a :class:`Work` (title + abstract), is cut into passages by
``chunk_work``, embedded through the project's :class:`PassageStore` and indexed by the project's
:class:`HybridIndex` (BM25 over each passage's ``lexical_text``, the title and whole abstract, as
the RAG filter does); a document scores the best of its passages. Prints the three rankers'
figures, the indexing time, the query latency p50, and as its last line ``nDCG@10 <hybrid>``.

Indexing is timed cold: the store is a fresh Chroma folder, so every passage is embedded (with
``--store DIR`` a kept store is reused and only what it lacks is embedded). Wall time depends on
what else the machine runs, so the load average and the CPU seconds the process used are
printed beside it.

``--tune`` grid-searches the fusion parameters on the given split (use train only) and prints
the best settings, which are then set as ``ranking.DEFAULT_PARAMS`` by hand.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import os
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
from scholargraph.rag.select import indexed_text, lexical_text
from scholargraph.rag.store import PassageStore, open_client
from scholargraph.records import Work
from scholargraph.settings import Settings

Qrels = dict[str, dict[str, int]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", type=Path, required=True)
    parser.add_argument("--split", default="test")
    parser.add_argument("--store", type=Path, default=None,
                        help="a Chroma folder kept between runs (default: a fresh one, cold)")
    parser.add_argument("--model", default=None, help="embedding model (default: the project's)")
    parser.add_argument("--max-seq-length", type=int, default=None,
                        help="cut passages at this many tokens (default: the model's limit)")
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

    print(f"load average before indexing {_load_average()} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="scholargraph-bench-") as fresh:
        # the store is read and written only while indexing; the bench ranks from memory
        bench = Bench(corpus, args.store or Path(fresh), args.model, args.max_seq_length)
    state = "cold" if bench.embedded == len(bench.passages) else "warm"
    print(f"model       {bench.embedder.name}")
    print(f"indexing    {bench.index_seconds:.1f} s ({state}: {bench.embedded} of "
          f"{len(bench.passages)} passages embedded; model load {bench.load_seconds:.1f} s), "
          f"{bench.index_cpu_seconds:.0f} CPU s, load average after {_load_average()}")
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

    def __init__(self, corpus: list[dict], store_dir: Path, model: str | None,
                 max_seq_length: int | None = None, params: FusionParams = DEFAULT_PARAMS
                 ) -> None:
        started, cpu_started = time.perf_counter(), time.process_time()
        embedder = load_embedder(model, max_seq_length)
        if embedder is None:
            sys.exit("the bench needs an embedding model")
        self.embedder = embedder
        self.load_seconds = time.perf_counter() - started
        self.passages, texts, lexical_texts, doc_ids = [], [], [], []
        for doc in corpus:
            work = Work(title=doc.get("title") or "", abstract=doc.get("text") or None)
            for passage in chunk_work(work):
                self.passages.append(passage)
                texts.append(indexed_text(work, passage))
                lexical_texts.append(lexical_text(work, passage))
                doc_ids.append(doc["_id"])
        counting = _Counting(embedder)
        settings = Settings(home=store_dir, store_dir=store_dir, chroma_host=None)
        embeddings = PassageStore(open_client(settings), counting).embeddings(texts)
        self.index = HybridIndex(lexical_texts, embeddings, params)
        self.index_seconds = time.perf_counter() - started
        self.index_cpu_seconds = time.process_time() - cpu_started
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


def _load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


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
