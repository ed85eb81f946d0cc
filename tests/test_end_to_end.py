"""A whole review through the command line, every source client talking to the replay server."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scholargraph import review
from scholargraph.report import OUTPUT_FILES
from scholargraph.testing import Fault

QUESTION = "What is known about genetic variants and screening?"
SOURCES = ("pubmed", "arxiv", "openalex")
SEARCH_PATHS = {"pubmed": "/esearch.fcgi", "arxiv": "/api/query", "openalex": "/works"}


def run_cli(out: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "scholargraph.cli", "review", QUESTION, "--out", str(out),
               "--sources", ",".join(SOURCES), "--quiet", *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, env=os.environ,
                          check=False)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """One CLI review against a replay server, shared by the checks below."""
    from scholargraph.testing import ReplayServer

    out = tmp_path_factory.mktemp("review")
    home = tmp_path_factory.mktemp("home")
    with ReplayServer.default() as server, server.environment(
            SCHOLARGRAPH_HOME=str(home), SCHOLARGRAPH_RATE_SCALE="1000"):
        done = run_cli(out)
        requests = list(server.requests)
    return done, out, requests


def test_cli_writes_the_five_files(finished):
    done, out, _ = finished
    assert done.returncode == 0, done.stderr
    for name in OUTPUT_FILES:
        assert (out / name).stat().st_size > 0, name
    data = json.loads((out / "review.json").read_text())
    for key in ("question", "sub_questions", "papers", "findings", "references", "prisma",
                "search_log", "evaluation", "iterations"):
        assert key in data, key


def test_papers_from_each_source_with_parsed_identifiers(finished):
    _, out, _ = finished
    papers = json.loads((out / "review.json").read_text())["papers"]
    for source in SOURCES:
        assert any(source in p["sources"] for p in papers), source
    for paper in papers:
        for field in ("id", "title", "authors", "year", "venue", "doi", "pmid", "arxiv_id",
                      "openalex_id", "url", "abstract", "sources"):
            assert field in paper
        if paper["pmid"]:
            assert paper["pmid"].isdigit()
        if paper["arxiv_id"]:
            assert "v" not in paper["arxiv_id"] and "arxiv.org" not in paper["arxiv_id"]
        if paper["openalex_id"]:
            assert paper["openalex_id"][0] == "W" and paper["openalex_id"][1:].isdigit()
        if paper["doi"]:
            assert paper["doi"].startswith("10.") and paper["doi"] == paper["doi"].lower()
    telomere = next(p for p in papers if p["pmid"] == "27797938")
    assert telomere["title"].startswith("Leucocyte telomere length, genetic variants")


def test_every_finding_cites_an_included_work(finished):
    _, out, _ = finished
    data = json.loads((out / "review.json").read_text())
    numbers = {ref["number"]: ref["work_id"] for ref in data["references"]}
    paper_ids = {p["id"] for p in data["papers"]}
    passages = {p["id"]: p for p in data["passages"]}
    assert data["findings"]
    for finding in data["findings"]:
        assert finding["citations"], finding
        assert {numbers[n] for n in finding["citations"]} <= paper_ids
        for passage_id in finding["passage_ids"]:
            assert passages[passage_id]["work_id"] in paper_ids
    markdown = (out / "review.md").read_text()
    assert all(f"[{n}]" in markdown or f", {n}]" in markdown for n in numbers)


def test_search_log_has_one_entry_per_query_sent(finished):
    _, out, requests = finished
    log = json.loads((out / "review.json").read_text())["search_log"]
    for source in SOURCES:
        entries = [e for e in log if e["source"] == source]
        sent = [r for r in requests if r.service == source and r.path == SEARCH_PATHS[source]]
        assert entries and len(entries) == len(sent), source
        assert all(e["status"] in ("ok", "empty") and e["error"] is None for e in entries)


def test_prisma_arithmetic_holds(finished):
    _, out, _ = finished
    data = json.loads((out / "review.json").read_text())
    prisma = data["prisma"]
    assert sum(prisma["identified"].values()) - prisma["duplicates_removed"] == prisma["screened"]
    assert prisma["screened"] - prisma["excluded"] == prisma["included"] == len(data["papers"])


def test_a_failing_source_is_recorded_and_the_review_goes_on(replay, tmp_path):
    replay.inject("arxiv", Fault("500", times=-1))
    report = review(QUESTION, sources=list(SOURCES), out=tmp_path / "out")
    arxiv_entries = [e for e in report.search_log if e.source == "arxiv"]
    assert arxiv_entries and all(e.status == "error" and e.error for e in arxiv_entries)
    assert [f.source for f in report.sources_failed] == ["arxiv"]
    assert any("pubmed" in p.sources for p in report.papers)
    saved = json.loads((tmp_path / "out" / "review.json").read_text())
    assert saved["sources_failed"][0]["source"] == "arxiv"


def test_offline_mode_needs_no_endpoint_variables(tmp_path, monkeypatch):
    for name in ("SCHOLARGRAPH_PUBMED_URL", "SCHOLARGRAPH_ARXIV_URL", "SCHOLARGRAPH_OPENALEX_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SCHOLARGRAPH_HOME", str(tmp_path / "home"))
    report = review(QUESTION, sources=list(SOURCES), offline=True)
    assert report.papers and report.findings
    assert "SCHOLARGRAPH_PUBMED_URL" not in os.environ
