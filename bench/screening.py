"""Screening measured on real systematic reviews: WSS@95, title/abstract recall, share set aside.

    python bench/screening.py --dataset ../shared/evaldata/screening/Donners_2021 \\
        [--dataset DIR ...] [--graph] [--simulate [--peer asreview]]

Each DIR holds ``records.csv`` (``record_id, doi, title, abstract, label_included``) and
``review.json`` (``review_title``, ``eligibility_criteria`` when known). For each review, with
its title as the question and its criteria when given, and no labels:

- every record is ranked by the project's screening score
  (:func:`scholargraph.screening.relevance.score_records`): ``wss-95``, the work saved over
  random reading at 95% recall ((N - records read to reach 95% of the included) / N - 0.05);
- the review's include/exclude decisions
  (:func:`scholargraph.screening.relevance.screening_decisions`): ``ta-recall`` (share of the
  included studies kept) and ``excluded-share`` (share of all records set aside);
- with ``--graph``, the whole offline graph over the records as a library (``--sources
  library``): ``graph-recall``, the share of the included studies among the works it includes.

With ``--simulate`` (and ``--peer asreview``), the labels play a person screening the records:
:mod:`screening_simulate` (beside this file) prints ``simulated-wss-95``,
``simulated-recall-at-10pct`` and, for ASReview, ``peer-wss-95``, ``peer-recall-at-10pct``.

Figures per review go to stderr; the means, one ``name value`` a line, to stdout, last
``records-per-second`` (records scored and decided per wall second, embedding included). Each
mode is one function taking a :class:`Review`, so another mode is one more function.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scholargraph.rag.embeddings import Embedder, load_embedder
from scholargraph.screening.relevance import (
    Criteria,
    read_criteria,
    record_text,
    score_records,
    screening_decisions,
)

RECALL = 0.95


@dataclass(frozen=True)
class Review:
    """One shared review: its question, criteria and labelled records."""

    name: str
    question: str
    criteria: Criteria | None
    titles: list[str]
    abstracts: list[str]
    dois: list[str]
    labels: np.ndarray

    @property
    def texts(self) -> list[str]:
        return [record_text({"title": t, "abstract": a})
                for t, a in zip(self.titles, self.abstracts)]


def load_review(folder: Path) -> Review:
    meta = json.loads((folder / "review.json").read_text(encoding="utf-8"))
    with (folder / "records.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    criteria_text = meta.get("eligibility_criteria")
    return Review(name=folder.name, question=meta["review_title"],
                  criteria=read_criteria(criteria_text) if criteria_text else None,
                  titles=[row["title"] or "" for row in rows],
                  abstracts=[row["abstract"] or "" for row in rows],
                  dois=[row["doi"] or "" for row in rows],
                  labels=np.array([int(row["label_included"]) for row in rows]))


def wss(scores: np.ndarray, labels: np.ndarray, recall: float = RECALL) -> float:
    """Work saved over sampling at ``recall``: records left unread, as a share, less 1 - recall."""
    order = np.argsort(-scores, kind="stable")
    found = np.cumsum(labels[order])
    needed = int(np.ceil(recall * labels.sum()))
    read = int(np.searchsorted(found, needed) + 1)
    return (len(labels) - read) / len(labels) - (1 - recall)


def zero_shot(review: Review, embedder: Embedder | None) -> dict[str, float]:
    """Rank and decide every record without labels: wss-95, ta-recall, excluded-share."""
    start = time.perf_counter()
    texts = review.texts
    vectors = embedder.embed_documents(texts) if embedder else None
    scores = score_records(review.question, review.criteria, texts, embedder=embedder,
                           vectors=vectors)
    decisions = screening_decisions(review.question, review.criteria,
                                    list(zip(review.titles, review.abstracts)),
                                    embedder=embedder, vectors=vectors)
    seconds = time.perf_counter() - start
    kept = np.array([d.included for d in decisions])
    included = review.labels == 1
    return {"wss-95": wss(scores, review.labels),
            "ta-recall": float(kept[included].mean()),
            "excluded-share": float(1 - kept.mean()),
            "records-per-second": len(texts) / seconds}


def graph(review: Review, embedder: Embedder | None) -> dict[str, float]:
    """The whole offline graph over the records as a library: graph-recall."""
    from scholargraph import review as run_review
    from scholargraph.sources.library import load_library

    # a record without a title is not a work the library can read (its loader skips it), so
    # it is left out of the library and of the recall alike
    titled = [i for i, title in enumerate(review.titles) if title.strip()]
    with tempfile.TemporaryDirectory() as work:
        library = Path(work) / "records.jsonl"
        with library.open("w", encoding="utf-8") as handle:
            for i in titled:
                title, abstract, doi = review.titles[i], review.abstracts[i], review.dois[i]
                record = {"id": f"record-{i}", "title": title, "abstract": abstract or None,
                          "DOI": doi.removeprefix("https://doi.org/") or None}
                handle.write(json.dumps(record) + "\n")
        # the library is read whole: every record is a candidate, whatever --max-results
        options: dict[str, object] = {"sources": ["library"], "library": str(library),
                                      "offline": True}
        if review.criteria is not None:
            options["criteria"] = review.criteria.text
        report = run_review(review.question, **options)
        # the titles as the library reads them (markup such as <sup> dropped), one per record
        titles = [work.title for work in load_library(library)]
    labels = [review.labels[i] for i in titled]
    wanted = {_key(t) for t, label in zip(titles, labels, strict=True) if label}
    found = {_key(work.title) for work in report.papers}
    return {"graph-recall": len(wanted & found) / (len(wanted) or 1)}


def _key(title: str) -> str:
    return " ".join("".join(ch for ch in title.lower() if ch.isalnum() or ch.isspace()).split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, action="append", required=True,
                        help="a review folder (records.csv, review.json); repeat for more")
    parser.add_argument("--graph", action="store_true",
                        help="also run the whole offline graph over each review's records")
    parser.add_argument("--model", default=None, help="embedding model (default: the project's)")
    parser.add_argument("--simulate", action="store_true",
                        help="also let the labels play a person screening with `scholargraph "
                             "screen` (bench/screening_simulate.py)")
    parser.add_argument("--peer", choices=["asreview"], default=None,
                        help="with --simulate, also run ASReview's simulation on the records")
    parser.add_argument("--cache", type=Path, default=None,
                        help="the simulation's vector store and the peer's venv")
    args = parser.parse_args()
    embedder = load_embedder(args.model)
    modes: list[Callable[[Review, Embedder | None], dict[str, float]]] = [zero_shot]
    if args.graph:
        modes.append(graph)
    figures: dict[str, list[float]] = {}
    sizes: list[int] = []
    for folder in args.dataset:
        review = load_review(folder)
        sizes.append(len(review.labels))
        row: dict[str, float] = {}
        for mode in modes:
            row.update(mode(review, embedder))
        print(f"{review.name} records={len(review.labels)} included={int(review.labels.sum())} "
              + " ".join(f"{k}={v:.3f}" for k, v in row.items()), file=sys.stderr)
        for key, value in row.items():
            figures.setdefault(key, []).append(value)
    speed = figures.pop("records-per-second")
    for key, values in figures.items():
        print(f"{key} {np.mean(values):.4f}")
    if args.simulate or args.peer:
        from screening_simulate import DEFAULT_CACHE, run

        for key, value in run(args.dataset, args.peer, args.cache or DEFAULT_CACHE).items():
            print(f"{key} {value:.4f}")
    # all records over all seconds: a large review weighs as much as its records
    print(f"records-per-second {sum(sizes) / sum(n / rate for n, rate in zip(sizes, speed)):.1f}")


if __name__ == "__main__":
    main()
