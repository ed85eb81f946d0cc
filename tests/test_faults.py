"""Every source × every fault: a whole review completes, with the failure in its search log and
in ``sources_failed``; and the replay server's own teeth (latency, enforced rate limits)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from scholargraph import review
from scholargraph.testing import Fault, RateLimit, ReplayServer

QUESTION = "What is known about genetic variants and screening?"
MATERIALS_QUESTION = "What is the band gap of TiO2?"
FAULTS = ("429", "500", "hang", "truncated", "malformed", "empty")
TIMEOUT_S = "0.5"
HANG_S = 1.5

# source -> (replay service, where its search requests go, question that makes it search)
SOURCES = {
    "pubmed": ("pubmed", None, QUESTION),
    "arxiv": ("arxiv", None, QUESTION),
    "openalex": ("openalex", None, QUESTION),
    # past the heartbeats (checked in test_source_materials.py): the summary search itself
    "materials": ("mp", "/materials/summary", MATERIALS_QUESTION),
    "web": ("ddg", None, QUESTION),
}
REASONS = {
    "429": r"HTTP 429|429|results page",
    "500": r"HTTP 500|500|results page",
    "hang": r"(?i)timed? ?out",
    "truncated": r"(?i)not valid JSON|not a complete|unreadable|not JSON|results page",
    "malformed": r"(?i)not valid JSON|expected an Atom feed|unreadable|not JSON|results page",
    "empty": r"(?i)not valid JSON|not a complete|unreadable|not JSON|results page",
    "oversized": r"answer is larger than the [\d.]+ MiB",
}
OVERSIZED_BYTES = 65 * 2**20  # past every API source's cap (PubMed's is the largest, 64 MiB)
CAPPED_SOURCES = ("pubmed", "arxiv", "openalex", "materials")
"""Sources whose client reads through the shared HTTP session, where the size cap lives (ddgs
reads DuckDuckGo through its own HTTP client)."""
SLOW_MACHINE_TIMEOUT_S = "10"
"""The timeout of every case but a hang: a 65 MiB answer on a loaded machine can pause longer
than the hang's short timeout, which would turn the size cap under test into a read timeout."""


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ReplayServer]:
    """A fresh replay server per case (the Materials Project client keeps state per endpoint),
    with a short timeout for the hang case so it ends quickly."""
    params = getattr(request.node, "callspec", None)
    fault = params.params.get("fault") if params else None
    timeout = TIMEOUT_S if fault in (None, "hang") else SLOW_MACHINE_TIMEOUT_S
    with ReplayServer.default() as replay, replay.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000",
            SCHOLARGRAPH_TIMEOUT=timeout, MP_API_KEY="faults0test0key" + "0" * 17):
        yield replay


def _cases() -> list[object]:
    return list(_each_case())


def _each_case() -> Iterator[object]:
    for source in SOURCES:
        for fault in FAULTS:
            yield pytest.param(source, fault, id=f"{source}-{fault}")
    for source in CAPPED_SOURCES:
        yield pytest.param(source, "oversized", id=f"{source}-oversized")


@pytest.mark.parametrize("source, fault", _cases())
def test_a_review_survives_the_fault(server: ReplayServer, source: str, fault: str) -> None:
    service, path, question = SOURCES[source]
    server.inject(service, Fault(fault, times=-1, seconds=HANG_S, retry_after=0, path=path,
                                 size=OVERSIZED_BYTES if fault == "oversized" else 0))

    report = review(question, sources=[source], max_results=5, max_iterations=1)

    entries = [entry for entry in report.search_log if entry.source == source]
    assert entries, "the source was not searched"
    assert server.count(service) >= len(entries)
    for entry in entries:
        assert entry.status == "error", entry
        assert re.search(REASONS[fault], entry.error or ""), entry.error
    [failure] = [f for f in report.sources_failed if f.source == source]
    assert failure.error == entries[0].error
    assert report.iterations == 1 and report.stop_reason


def test_retries_on_429_and_500_are_bounded(server: ReplayServer) -> None:
    server.inject("openalex", Fault("500", times=-1))
    report = review(QUESTION, sources=["openalex"], max_results=5, max_iterations=1)
    sent = [entry for entry in report.search_log if entry.source == "openalex"]
    assert sent and all(entry.status == "error" for entry in sent)
    assert server.count("openalex") == 4 * len(sent)  # per query: one request, three retries


def test_latency_is_added_per_service(tmp_path: Path) -> None:
    with ReplayServer.default(latency={"openalex": 0.2}) as replay:
        started = time.monotonic()
        requests.get(f"{replay.url}/openalex/works/W2741809807", timeout=5)
        slow = time.monotonic() - started
        started = time.monotonic()
        requests.get(f"{replay.url}/arxiv/api/query", params={"id_list": "1605.08386"}, timeout=5)
        fast = time.monotonic() - started
    assert slow >= 0.2 > fast


def test_the_server_enforces_a_rate_limit() -> None:
    with ReplayServer.default(rate_limits={"openalex": RateLimit(2, 60.0)}) as replay:
        answers = [requests.get(f"{replay.url}/openalex/works/W2741809807", timeout=5)
                   for _ in range(3)]
        other = requests.get(f"{replay.url}/arxiv/api/query", params={"id_list": "1605.08386"},
                             timeout=5)
    assert [answer.status_code for answer in answers] == [200, 200, 429]
    assert 0 < int(answers[2].headers["Retry-After"]) <= 60
    assert other.status_code == 200
    assert replay.violations("openalex") == 1 == replay.violations()


def test_a_fault_can_target_one_path() -> None:
    with ReplayServer.default() as replay:
        replay.inject("openalex", Fault("500", times=-1, path="/works/W2"))
        refused = requests.get(f"{replay.url}/openalex/works/W2741809807", timeout=5)
        listed = requests.get(f"{replay.url}/openalex/works", params={"search": "open access"},
                              timeout=5)
    assert (refused.status_code, listed.status_code) == (500, 200)
