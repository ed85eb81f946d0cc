"""Each benchmark runs on its smallest input and measures something: exit 0, its figures
printed, no failure row (issue 20: ``bench/sources.py`` printed a table of failures, its agents
reaching the real hosts instead of its replay server, and exited 0).

Inputs are built here from recorded responses (the OpenAlex works of the replay server's pool,
their real titles and abstracts), never from the evaluation data. Nothing reaches the network:
the benches serve their sources on loopback, and the langchain peer of ``bench/sources.py``
(installed from PyPI into a venv of its own) is left out.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scholargraph.report import REVIEW_FILES
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.testing.services.openalex import OpenAlexService

BENCH = Path(__file__).resolve().parents[1] / "bench"
SHARED_FULLTEXT = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "fulltext"
FAILURE_MARKS = ("failed", "FAILED", "Traceback", "measured nothing")

pytestmark = pytest.mark.slow


def run_bench(name: str, *args: str, timeout: int = 900) -> str:
    done = subprocess.run([sys.executable, str(BENCH / name), *args], capture_output=True,
                          text=True, timeout=timeout, env=os.environ, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    failures = [line for line in output.splitlines() if any(m in line for m in FAILURE_MARKS)]
    assert failures == [], failures
    return done.stdout


def recorded_docs(count: int) -> list[dict[str, str]]:
    """BEIR documents made of recorded OpenAlex works that have an abstract."""
    docs = []
    for number, item in enumerate(OpenAlexService().pool):
        work = work_from_openalex(item.work)
        if work.abstract and len(docs) < count:
            docs.append({"_id": str(1000 + number), "title": work.title, "text": work.abstract})
    return docs


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_sources_bench_measures_every_source(tmp_path: Path) -> None:
    out = run_bench("sources.py", "--sizes", "50", "--no-langchain")
    rows = [line.split() for line in out.splitlines() if line.startswith("scholar ")]
    assert sorted(row[1] for row in rows) == ["arxiv", "materials", "openalex", "pubmed", "web"]
    for row in rows:
        assert int(row[3]) > 0 and int(row[4]) > 0, row  # records got, requests sent


def test_sizes_bench_writes_every_file(tmp_path: Path) -> None:
    out = run_bench("sizes.py", "--sizes", "20", "--sources", "pubmed")
    [row] = [line for line in out.splitlines() if line.startswith("pubmed ")]
    every = len(REVIEW_FILES)  # the nine a review writes
    assert every == 9 and f" {every}/{every} " in row, row


def test_review_bench_prints_its_figures(tmp_path: Path) -> None:
    docs = recorded_docs(12)
    corpus = write_jsonl(tmp_path / "corpus.jsonl", docs)
    claims = write_jsonl(tmp_path / "claims.jsonl", [{
        "id": 1, "claim": docs[0]["title"],
        "evidence": {docs[0]["_id"]: [{"sentences": [0], "label": "SUPPORT"}]},
        "cited_doc_ids": [int(docs[0]["_id"])]}])
    out = run_bench("review.py", "--corpus", str(corpus), "--claims", str(claims),
                    "--limit", "1", "--home", str(tmp_path / "home"))
    figures = dict(line.split(" ", 1) for line in out.splitlines() if line.count(" ") == 1)
    assert {"evidence-cited", "cited-precision", "abstract-label-f1",
            "evidence-recall"} <= figures.keys(), out[-1000:]
    assert float(figures["evidence-cited"]) >= 0
    assert out.strip().splitlines()[-1].startswith("evidence-cited "), "DESIGN.md's last line"


def test_retrieval_bench_ranks_a_small_beir_folder(tmp_path: Path) -> None:
    docs = recorded_docs(12)
    write_jsonl(tmp_path / "corpus.jsonl", docs)
    write_jsonl(tmp_path / "queries.jsonl", [{"_id": f"q{i}", "text": doc["title"]}
                                            for i, doc in enumerate(docs[:3])])
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n"
        + "".join(f"q{i}\t{doc['_id']}\t1\n" for i, doc in enumerate(docs[:3])))
    out = run_bench("retrieval.py", "--beir", str(tmp_path), "--split", "test")
    last = out.strip().splitlines()[-1]
    assert last.startswith("nDCG@10 ") and float(last.split()[1]) > 0


def test_dedup_bench_scores_a_small_labelled_set(tmp_path: Path) -> None:
    docs = recorded_docs(6)
    fields = ["id", "title", "authors", "venue", "year"]
    for name, prefix in (("DBLP2_tableA.csv", "d"), ("ACM_tableB.csv", "a")):
        with (tmp_path / name).open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            writer.writeheader()
            for number, doc in enumerate(docs):
                writer.writerow({"id": f"{prefix}{number}", "title": doc["title"],
                                 "authors": "A. Author, B. Author", "venue": "VLDB",
                                 "year": "2001"})
    (tmp_path / "DBLP-ACM_perfectMapping_noheader.csv").write_text(
        "".join(f"d{n},a{n}\n" for n in range(len(docs))))
    out = run_bench("dedup.py", "--dataset", str(tmp_path), "--scale", "0")
    last = out.strip().splitlines()[-1]
    assert last.startswith("F1 ") and float(last.split()[1]) > 0


@pytest.mark.skipif(not SHARED_FULLTEXT.exists(), reason="the shared full-text recordings "
                    "(../shared/fixtures/fulltext) are not beside the project")
def test_fulltext_bench_reads_a_work_in_full() -> None:
    out = run_bench("fulltext.py", "--works", "2", "--rate-scale", "1000")
    lines = dict(line.split(" ", 1) for line in out.splitlines() if line.count(" ") == 1)
    assert int(lines["read-in-full"]) > 0 and int(lines["findings"]) > 0


def test_screening_simulation_keeps_the_sessions_features(tmp_path: Path) -> None:
    """The simulation computes a review's features the way a session does, kept under its
    cache: a second run reads them back (one kept file) and ranks the same way."""
    docs = recorded_docs(40)
    folder = tmp_path / "review"
    folder.mkdir()
    with (folder / "records.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, ["record_id", "doi", "title", "abstract",
                                         "label_included"])
        writer.writeheader()
        for doc in docs:  # the person includes what names health in its title
            writer.writerow({"record_id": doc["_id"], "doi": "", "title": doc["title"],
                             "abstract": doc["text"],
                             "label_included": int("health" in doc["title"].lower())})
    (folder / "review.json").write_text(json.dumps({
        "review_title": "machine learning for public health",
        "eligibility_criteria": "Studies applying machine learning to public health data."}))
    cache = tmp_path / "cache"
    runs = [run_bench("screening_simulate.py", "--dataset", str(folder), "--cache", str(cache))
            for _ in range(2)]
    figures = [dict(line.split(" ", 1) for line in out.splitlines()) for out in runs]
    assert 0 < float(figures[0]["simulated-recall-at-10pct"]) <= 1, runs[0]
    assert figures[0]["simulated-wss-95"] == figures[1]["simulated-wss-95"]
    assert len(list((cache / "screening").glob("features-*.npz"))) == 1
