"""Shared fixtures: the loopback replay server with every source pointed at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from scholargraph.testing import ReplayServer

# Loopback endpoints only: the HTTP policy refuses to scale rates for the official hosts.
RATE_SCALE = "1000"


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test keeps its files in its own ``SCHOLARGRAPH_HOME``, with the on-disk cache off:
    most tests repeat identical requests on purpose (retries, pacing, faults). The cache's own
    tests (test_cache.py) and the end-to-end runs switch it on."""
    monkeypatch.setenv("SCHOLARGRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SCHOLARGRAPH_NO_CACHE", "1")


@pytest.fixture
def replay(tmp_path: Path) -> Iterator[ReplayServer]:
    """A started ``ReplayServer.default()``; inside it the sources talk to it, rates sped up,
    and ``SCHOLARGRAPH_HOME`` is a fresh folder."""
    with ReplayServer.default() as server, server.environment(
        SCHOLARGRAPH_HOME=str(tmp_path / "home"),
        SCHOLARGRAPH_RATE_SCALE=RATE_SCALE,
    ):
        yield server
