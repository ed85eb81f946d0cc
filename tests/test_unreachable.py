"""With no network, a source fails fast: a refused connection or a failed look-up is not retried
like a 503, the source's other queries are skipped and logged, and the review completes."""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path

import pytest
import requests

from scholargraph.cli import main
from scholargraph.errors import SourceUnreachable
from scholargraph.http.policy import http_session, is_unreachable


def closed_port() -> int:
    """A loopback port nothing listens on: connecting to it is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_refused_connection_is_unreachable_and_not_retried(
        caplog: pytest.LogCaptureFixture) -> None:
    """Raised as scholargraph's own error, so no client's retry loop tries again either."""
    url = f"http://127.0.0.1:{closed_port()}/api/query"
    with pytest.raises(requests.ConnectionError) as raw:
        requests.get(url, timeout=5)
    assert is_unreachable(raw.value)
    with caplog.at_level(logging.WARNING), pytest.raises(SourceUnreachable, match="no connection"):
        http_session("arxiv").get(url)
    assert not [r for r in caplog.records if "retry" in r.getMessage()]


def test_a_timeout_is_not_unreachable() -> None:
    assert not is_unreachable(requests.ConnectTimeout("connect timed out"))
    assert not is_unreachable(requests.ReadTimeout("read timed out"))


def test_a_review_without_network_skips_the_rest_and_says_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHOLARGRAPH_ARXIV_URL", f"http://127.0.0.1:{closed_port()}/api/query")
    out = tmp_path / "out"
    code = main(["review", "deep learning and metamorphic testing of neural networks",
                 "--sources", "arxiv", "--out", str(out), "--quiet"])
    assert code == 0
    review = json.loads((out / "review.json").read_text())
    statuses = [entry["status"] for entry in review["search_log"] if entry["source"] == "arxiv"]
    assert statuses[0] == "error" and len(statuses) > 1
    assert statuses[1:] == ["skipped"] * (len(statuses) - 1)  # later rounds too
    skipped = [e for e in review["search_log"] if e["status"] == "skipped"]
    assert all("could not be reached" in e["error"] for e in skipped)
    assert any("arXiv could not be reached" in note for note in review["notes"])
    assert [f["source"] for f in review["sources_failed"]] == ["arxiv"]


def test_the_suite_cannot_reach_the_network() -> None:
    """The socket guard (pytest-socket, configured in pyproject.toml) is on for every test."""
    from pytest_socket import SocketConnectBlockedError

    with pytest.raises(SocketConnectBlockedError):
        socket.create_connection(("192.0.2.1", 80), timeout=1)  # TEST-NET-1: never routed
    with pytest.raises(SocketConnectBlockedError):
        requests.get("http://192.0.2.1/works", timeout=1)  # through a client too
