"""Checkpoints: a review killed with SIGKILL mid-run resumes without repeating finished sources."""

import json
import os
import signal
import subprocess
import sys
import time

from scholargraph import review
from scholargraph.testing import Fault, ReplayServer

QUESTION = "What is known about genetic variants and screening?"


def cli(out, thread):
    return [sys.executable, "-m", "scholargraph.cli", "review", QUESTION, "--out", str(out),
            "--sources", "pubmed,arxiv,openalex", "--thread", thread, "--quiet",
            "--max-iterations", "1"]


def searches(server: ReplayServer, service: str) -> int:
    """Requests of the source's search: the full-text fetches the retrieval step makes after
    the tool loop (PubMed Central's ``db=pmc``, arXiv's PDFs) are not searches."""
    return sum(1 for r in server.requests
               if r.service == service and r.params.get("db") != ["pmc"]
               and "/pdf/" not in r.path)


def wait_for(condition, seconds=120.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("condition not reached in time")


def test_sigkill_mid_run_then_resume_repeats_no_finished_source(tmp_path):
    out = tmp_path / "out"
    with ReplayServer.default() as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000",
            SCHOLARGRAPH_NO_CACHE="1", SCHOLARGRAPH_TIMEOUT="60"):
        server.inject("openalex", Fault("hang", times=-1, seconds=60))
        process = subprocess.Popen(cli(out, "killed"), env=os.environ,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: server.count("openalex") > 0 or process.poll() is not None)
        assert process.poll() is None, "the review ended before it could be killed"
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        before = {s: searches(server, s) for s in ("pubmed", "arxiv", "openalex")}
        assert before["pubmed"] and before["arxiv"]
        server.clear_faults()

        resumed = subprocess.run(cli(out, "killed"), env=os.environ, capture_output=True,
                                 text=True, timeout=600, check=False)
        assert resumed.returncode == 0, resumed.stderr
        assert searches(server, "pubmed") == before["pubmed"]
        assert searches(server, "arxiv") == before["arxiv"]
        assert searches(server, "openalex") > before["openalex"]
    data = json.loads((out / "review.json").read_text())
    statuses: dict[str, set[str]] = {}
    for entry in data["search_log"]:
        statuses.setdefault(entry["source"], set()).add(entry["status"])
    assert set(statuses) == {"pubmed", "arxiv", "openalex"}
    assert "ok" in statuses["openalex"] and statuses["openalex"] <= {"ok", "empty"}
    assert data["iterations"] == 1


def test_a_finished_thread_returns_its_report_without_requests(replay, monkeypatch):
    monkeypatch.setenv("SCHOLARGRAPH_NO_CACHE", "1")
    first = review(QUESTION, sources=["pubmed", "openalex"], thread="done")
    sent = replay.count()
    again = review(QUESTION, sources=["pubmed", "openalex"], thread="done")
    assert replay.count() == sent
    assert [p.id for p in again.papers] == [p.id for p in first.papers]
    assert [f.text for f in again.findings] == [f.text for f in first.findings]


def test_a_thread_cannot_be_reused_for_another_question(replay):
    review(QUESTION, sources=["openalex"], thread="mine")
    try:
        review("machine learning for public health surveillance", sources=["openalex"],
               thread="mine")
    except ValueError as error:
        assert "holds a review of" in str(error)
    else:
        raise AssertionError("a second question on the same thread was accepted")
