"""Shared fixtures: the loopback replay server with every source pointed at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from scholargraph.testing import ReplayServer

# Loopback endpoints only: the HTTP policy refuses to scale rates for the official hosts.
RATE_SCALE = "1000"


@pytest.fixture(scope="session")
def shared_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for models derived from installed ones (the int8 embedding model), so the
    derivation runs once per session, not in every test's or subprocess's fresh home."""
    return tmp_path_factory.mktemp("shared-models")


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_models: Path) -> None:
    """Every test keeps its files in its own ``SCHOLARGRAPH_HOME``, with the on-disk cache off:
    most tests repeat identical requests on purpose (retries, pacing, faults). The cache's own
    tests (test_cache.py) and the end-to-end runs switch it on."""
    monkeypatch.setenv("SCHOLARGRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SCHOLARGRAPH_MODELS", str(shared_models))
    monkeypatch.setenv("SCHOLARGRAPH_NO_CACHE", "1")


@pytest.fixture(scope="session")
def shared_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One vector store for the reviews of a test session: the same recorded papers come back in
    many tests, and their passages are embedded once, not once per test. The store is keyed by
    content, so what one test stored cannot change another's results."""
    return tmp_path_factory.mktemp("shared-store")


@pytest.fixture
def replay(tmp_path: Path, shared_store: Path) -> Iterator[ReplayServer]:
    """A started ``ReplayServer.default()``; inside it the sources talk to it, rates sped up,
    ``SCHOLARGRAPH_HOME`` is a fresh folder and the vector store the session's shared one."""
    with ReplayServer.default() as server, server.environment(
        SCHOLARGRAPH_HOME=str(tmp_path / "home"),
        SCHOLARGRAPH_STORE=str(shared_store),
        SCHOLARGRAPH_RATE_SCALE=RATE_SCALE,
    ):
        yield server
