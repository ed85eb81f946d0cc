"""Screening with the labels playing the person: ``--simulate`` and ``--peer asreview``.

``python bench/screening_simulate.py --dataset DIR [--dataset DIR ...] [--peer asreview]``
(``bench/screening.py --simulate`` runs the same). DIR holds ``records.csv`` (``record_id, doi,
title, abstract, label_included``) and ``review.json`` (``review_title``,
``eligibility_criteria``), as the shared screening sets do.

**Simulated** (this project): starting from no labels at all, the session's ranking
(:mod:`scholargraph.screening.learner`: the zero-shot score from the review's title and criteria,
then a model of the labels revealed so far joined with it) hands out the next
:data:`BATCH` records, their labels are revealed, and the ranking is refreshed, until 95% of the
included records are found and a tenth of the records is read (and, for the stop figures, until
both stopping rules say stop). Records are the dataset's rows as they are (no merging), so both
sides screen the same records, each read as ``scholargraph screen`` reads a record
(:func:`~scholargraph.screening.relevance.record_text`: its title on a line of its own, then its
abstract's statements), so that the figures are those of the ranking a user's ``screen`` makes.
Read as "title. abstract" before, the nine shared sets gave simulated-wss-95 0.676 on main
(Appenzeller-Herzog_2019 0.869, zero-shot 0.730); read so, 0.673 (0.865, zero-shot 0.723),
recall at 10% 0.670, and the zero-shot ranking's mean WSS@95 is the zero-shot bench's, 0.529.

**Peer** (ASReview, installed from PyPI into its own virtual environment under ``--cache``,
never this project's): its simulation with its default model, starting from one included and one
excluded prior record drawn with seed :data:`PRIOR_SEED`; the priors count as read.

Per review on stderr; the means on stdout, one ``name value`` a line: ``simulated-wss-95``,
``simulated-recall-at-10pct``, ``zero-shot-wss-95`` (the same ranking before any label),
``stop-recall`` and ``stop-screened-share`` where the verdict (the hypergeometric test of
:mod:`scholargraph.screening.stopping`) said stop, ``stop-early`` (the share of reviews where it
said so before the end of the library) and ``stop-below-target`` (the share where recall was
then below 95%), and the same four for the knee method (``knee-stop-...``), ``rerank-seconds``
(the slowest refresh of the largest review; ``rerank-cpu-seconds`` its processor time, which a
machine shared with other work does not inflate), ``reload-seconds`` (a later run's ranking of the
largest review: its kept features read back from disk, as ``scholargraph screen`` does, and
ranked from its first 300 labels), and with ``--peer asreview`` ``peer-wss-95`` and
``peer-recall-at-10pct``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scholargraph.screening.learner import (
    Features,
    Ranker,
    load_features,
    next_batch,
    save_features,
)
from scholargraph.screening.relevance import read_criteria, record_text
from scholargraph.screening.session import library_features
from scholargraph.screening.stopping import estimate
from scholargraph.settings import Settings

BATCH = 10
RECALL_TARGET = 0.95
READ_SHARE = 0.10
PRIOR_SEED = 42
ASREVIEW_SPEC = "asreview>=3,<4"
"""The peer script uses ASReview 3's Python API (Simulate, ActiveLearningCycle)."""
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "scholargraph-bench-store"


@dataclass
class Review:
    name: str
    question: str
    criteria: str
    texts: list[str]
    truth: np.ndarray
    csv_path: Path


def read_review(folder: Path) -> Review:
    meta = json.loads((folder / "review.json").read_text(encoding="utf-8"))
    with (folder / "records.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    texts = [record_text({"title": row["title"], "abstract": row.get("abstract")})
             for row in rows]
    truth = np.array([row["label_included"].strip() == "1" for row in rows])
    return Review(folder.name, meta["review_title"], meta.get("eligibility_criteria") or "",
                  texts, truth, folder / "records.csv")


def review_features(review: Review, settings: Settings) -> Features:
    """The features a session builds for a library (:func:`library_features`, kept under the
    cache as a session keeps them under its home), for the dataset's rows as they are."""
    warnings: list[str] = []
    criteria = read_criteria(review.criteria) if review.criteria else None
    ids = [f"{review.name}:{i}" for i in range(len(review.texts))]
    features = library_features(review.texts, ids, review.question, criteria, settings, warnings)
    for warning in warnings:
        print(f"  {review.name}: {warning}", file=sys.stderr)
    return features


def reload_seconds(features: Features, truth: np.ndarray, cache: Path) -> float:
    """Seconds to read a library's kept features back and rank it from 300 labels."""
    path = cache / "screening" / f"bench-reload-{os.getpid()}.npz"  # two benches, one cache
    save_features(path, features, [])
    labels = {i: bool(truth[i]) for i in range(min(300, len(truth)))}
    started = time.perf_counter()
    kept = load_features(path)
    assert kept is not None, f"{path} could not be read back"
    Ranker(kept[0]).scores(labels)
    seconds = time.perf_counter() - started
    path.unlink()
    return seconds


def wss_95(order: list[int], truth: np.ndarray) -> float:
    """(N - records read to find 95% of the included) / N - 0.05."""
    needed = math.ceil(RECALL_TARGET * truth.sum())
    found = np.cumsum(truth[order])
    read = int(np.searchsorted(found, needed) + 1)
    return (len(truth) - read) / len(truth) - (1 - RECALL_TARGET)


def stop_figures(prefix: str, read: list[int], truth: np.ndarray) -> dict[str, float]:
    """Recall where a rule said stop, the share of records read by then, whether that was
    before the end of the library, and whether recall was below the target there."""
    recall = float(truth[read].sum() / truth.sum())
    return {f"{prefix}-recall": recall, f"{prefix}-screened-share": len(read) / len(truth),
            f"{prefix}-early": float(len(read) < len(truth)),
            f"{prefix}-below-target": float(recall < RECALL_TARGET)}


def recall_at(order: list[int], truth: np.ndarray, share: float = READ_SHARE) -> float:
    read = math.ceil(share * len(truth))
    return float(truth[order[:read]].sum() / truth.sum())


@dataclass
class Simulation:
    order: list[int]
    stop_at: int | None
    """Records read when the verdict (the hypergeometric test) first said stop."""
    knee_at: int | None
    """Records read when the knee method first said stop."""
    slowest_rank: float
    slowest_rank_cpu: float
    """The same refresh's processor seconds: what it costs on a machine not shared with others."""


def simulate(features: Features, truth: np.ndarray) -> Simulation:
    """Reveal labels in the ranking's order, refreshing it every :data:`BATCH` records."""
    ranker = Ranker(features)
    labels: dict[int, bool] = {}
    order: list[int] = []
    needed = math.ceil(RECALL_TARGET * truth.sum())
    stop_at: int | None = None
    knee_at: int | None = None
    slowest, slowest_cpu = 0.0, 0.0
    while len(order) < len(truth):
        started, started_cpu = time.perf_counter(), time.process_time()
        scores = ranker.scores(labels)
        slowest = max(slowest, time.perf_counter() - started)
        slowest_cpu = max(slowest_cpu, time.process_time() - started_cpu)
        for index in next_batch(scores, set(labels), BATCH):
            labels[index] = bool(truth[index])
            order.append(index)
        if stop_at is None or knee_at is None:
            said = estimate(list(labels.values()), len(truth))
            stop_at = stop_at or (len(order) if said.verdict == "stop" else None)
            knee_at = knee_at or (len(order) if said.knee_verdict == "stop" else None)
        found = truth[order].sum()
        if found >= needed and len(order) >= READ_SHARE * len(truth) and stop_at and knee_at:
            break
    rest = next_batch(ranker.scores(labels), set(labels), len(truth))
    return Simulation(order + rest, stop_at, knee_at, slowest, slowest_cpu)


# ---------------------------------------------------------------- ASReview, the peer

PEER_SCRIPT = r'''
import json, sys
import asreview
from asreview import load_dataset
from asreview.learner import ActiveLearningCycle
from asreview.models.models import get_ai_config
from asreview.models.queriers import TopDown
from asreview.models.stoppers import IsFittable
from asreview.simulation.simulate import Simulate

csv_path, prior_included, prior_excluded = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
config = get_ai_config()
with load_dataset(csv_path, dataset_id="bench") as db:
    cycles = [ActiveLearningCycle(querier=TopDown(), stopper=IsFittable()),
              ActiveLearningCycle.from_meta(config["value"])]
    simulation = Simulate(db.input.get_df(), db.input["included"], cycles,
                          print_progress=False)
    simulation.label([prior_included, prior_excluded])
    simulation.review()
results = simulation._results
print(json.dumps({"order": [int(i) for i in results["record_id"]],
                  "labels": [int(v) for v in results["label"]],
                  "model": config["name"], "version": asreview.__version__}))
'''


def asreview_python(cache: Path) -> Path:
    """The Python of a virtual environment under ``cache`` holding ASReview (made once)."""
    venv = cache / "asreview-venv"
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import asreview"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    print(f"installing {ASREVIEW_SPEC} into {venv} (once)", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", ASREVIEW_SPEC], check=True)
    return python


def priors(truth: np.ndarray, seed: int = PRIOR_SEED) -> tuple[int, int]:
    """One included and one excluded record, drawn with a fixed seed."""
    draw = random.Random(seed)
    return (draw.choice(np.flatnonzero(truth).tolist()),
            draw.choice(np.flatnonzero(~truth).tolist()))


def peer_order(python: Path, review: Review) -> tuple[list[int], str]:
    """The order in which ASReview's default model reads the records (priors first)."""
    included, excluded = priors(review.truth)
    with tempfile.TemporaryDirectory() as work:
        data = Path(work) / "records.csv"
        with review.csv_path.open(encoding="utf-8", newline="") as source, \
                data.open("w", encoding="utf-8", newline="") as target:
            rows = list(csv.DictReader(source))
            writer = csv.DictWriter(target, ["title", "abstract", "doi", "label_included"])
            writer.writeheader()
            for row in rows:
                writer.writerow({key: row.get(key, "") for key in writer.fieldnames})
        script = Path(work) / "peer.py"
        script.write_text(PEER_SCRIPT, encoding="utf-8")
        # cwd: ASReview's dataset package opens an HTTP cache file where it runs.
        done = subprocess.run([str(python), str(script), str(data), str(included),
                               str(excluded)], capture_output=True, text=True, check=False,
                              cwd=work)
    if done.returncode != 0:
        raise RuntimeError(f"ASReview failed on {review.name}: {done.stderr.strip()[-600:]}")
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    if [bool(v) for v in answer["labels"]] != review.truth[answer["order"]].tolist():
        raise RuntimeError(f"ASReview's record ids on {review.name} are not the rows of "
                           "records.csv in order")
    order = list(dict.fromkeys(answer["order"]))
    seen = set(order)
    order += [i for i in range(len(review.truth)) if i not in seen]  # never reached: last
    return order, f"ASReview {answer['version']} {answer['model']}"


# ---------------------------------------------------------------- the run

def run(datasets: list[Path], peer: str | None, cache: Path) -> dict[str, float]:
    """Simulate each review (and the peer's), print per review, return the means."""
    settings = Settings(home=cache, chroma_host=None)
    python = asreview_python(cache) if peer == "asreview" else None
    figures: dict[str, list[float]] = {}
    largest = (0, 0.0, 0.0, 0.0)
    for folder in datasets:
        review = read_review(folder)
        features = review_features(review, settings)
        zero = next_batch(features.prior, set(), len(review.truth))
        result = simulate(features, review.truth)
        row = {"simulated-wss-95": wss_95(result.order, review.truth),
               "simulated-recall-at-10pct": recall_at(result.order, review.truth),
               "zero-shot-wss-95": wss_95(zero, review.truth)}
        for prefix, at in (("stop", result.stop_at), ("knee-stop", result.knee_at)):
            if at is not None:
                row.update(stop_figures(prefix, result.order[:at], review.truth))
        if python is not None:
            order, model = peer_order(python, review)
            row["peer-wss-95"] = wss_95(order, review.truth)
            row["peer-recall-at-10pct"] = recall_at(order, review.truth)
        if len(review.truth) > largest[0]:
            largest = (len(review.truth), result.slowest_rank,
                       reload_seconds(features, review.truth, cache), result.slowest_rank_cpu)
        shown = " ".join(f"{name} {value:.4f}" for name, value in row.items())
        print(f"{review.name} ({len(review.truth)} records, {int(review.truth.sum())} included): "
              f"{shown}", file=sys.stderr)
        for name, value in row.items():
            figures.setdefault(name, []).append(value)
    means = {name: float(np.mean(values)) for name, values in figures.items()}
    means["rerank-seconds"] = largest[1]
    means["rerank-cpu-seconds"] = largest[3]
    means["reload-seconds"] = largest[2]
    means["rerank-records"] = float(largest[0])
    if python is not None:
        print(f"peer: {model}, priors drawn with seed {PRIOR_SEED}", file=sys.stderr)
    return means


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", type=Path, action="append", required=True,
                        help="a folder with records.csv and review.json (repeat for more)")
    parser.add_argument("--peer", choices=["asreview"], default=None,
                        help="also run ASReview's simulation on the same records")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="the bench's store of vectors, features and the peer's virtual "
                        "environment")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    for folder in args.dataset:
        if not (folder / "records.csv").is_file():
            parser.error(f"{folder} has no records.csv")
    for name, value in run(args.dataset, args.peer, args.cache).items():
        print(f"{name} {value:.4f}")


if __name__ == "__main__":
    main()
