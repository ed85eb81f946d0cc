"""Shared fixtures: the loopback replay server with every source pointed at it."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from scholargraph.records import Work
from scholargraph.testing import ReplayServer

# Loopback endpoints only: the HTTP policy refuses to scale rates for the official hosts.
RATE_SCALE = "1000"


@pytest.fixture(scope="session")
def shared_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for models derived from installed ones (the int8 embedding model), so the
    derivation runs once per session, not in every test's or subprocess's fresh home."""
    return tmp_path_factory.mktemp("shared-models")


RUN_VARIABLES = re.compile(r"^(SCHOLARGRAPH_|NCBI_|OPENALEX_|MP_API|OPENAI_|CHROMA_)")
"""The variables a run reads its configuration from (endpoints, keys, home, model)."""


@pytest.fixture(autouse=True)
def environment_restored() -> Iterator[None]:
    """A test leaves the run's variables as it found them: one left set (an endpoint at a
    replay server since stopped) changes what every later test talks to and fails it far from
    the cause. Set up before the other fixtures, so checked after theirs are undone; set them
    with ``monkeypatch.setenv`` or ``temporary_environment``."""
    import os

    before = {k: v for k, v in os.environ.items() if RUN_VARIABLES.match(k)}
    yield
    after = {k: v for k, v in os.environ.items() if RUN_VARIABLES.match(k)}
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"the test left {', '.join(changed)} changed in os.environ"


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_models: Path) -> None:
    """Every test keeps its files in its own ``SCHOLARGRAPH_HOME``, with the on-disk cache off:
    most tests repeat identical requests on purpose (retries, pacing, faults). The cache's own
    tests (test_cache.py) and the end-to-end runs switch it on."""
    monkeypatch.setenv("SCHOLARGRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SCHOLARGRAPH_MODELS", str(shared_models))
    monkeypatch.setenv("SCHOLARGRAPH_NO_CACHE", "1")


@pytest.fixture(autouse=True)
def cache_files_closed() -> Iterator[None]:
    """Each test's cache files are closed after it: its home is not used again, and a process
    keeping them open ran up several file handles per test, past the 256 a macOS shell
    allows."""
    yield
    from scholargraph.http.cache import close_cache_files

    close_cache_files()


@pytest.fixture(scope="session")
def shared_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One vector store for the reviews of a test session: the same recorded papers come back in
    many tests, and their passages are embedded once, not once per test. The store is keyed by
    content, so what one test stored cannot change another's results."""
    return tmp_path_factory.mktemp("shared-store")


@pytest.fixture
def replay(tmp_path: Path, shared_store: Path,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[ReplayServer]:
    """A started ``ReplayServer.default()``; inside it the sources talk to it, rates sped up,
    ``SCHOLARGRAPH_HOME`` is a fresh folder and the vector store the session's shared one.

    The variables are set through the test's ``monkeypatch``, not ``server.environment()``: a
    test changing one of them with ``monkeypatch`` too (an endpoint set to the official one,
    the web mirror removed) had its change undone after the server's, which put the server's
    address back and left it set for every later test (``SCHOLARGRAPH_ARXIV_URL`` and
    ``SCHOLARGRAPH_WEB_MIRROR`` at a stopped server, from test_http.py); one undo stack restores
    them in the right order."""
    with ReplayServer.default() as server:
        for name, value in {**server.endpoint_env(), "SCHOLARGRAPH_HOME": str(tmp_path / "home"),
                            "SCHOLARGRAPH_STORE": str(shared_store),
                            "SCHOLARGRAPH_RATE_SCALE": RATE_SCALE}.items():
            monkeypatch.setenv(name, value)
        yield server


class TopicCheck:
    """A scientist's check of a work against the README's question ("machine learning for
    public health surveillance"): the work must address machine learning *and* public health,
    surveillance or disease. A work addresses a subject when its title names it or two sentences
    of its abstract do: a work naming a subject once, in passing ("a technique used in fields
    including machine learning and public health"), is not about it. The words are a reader's
    (AI, NLP, random forests; outbreaks, epidemics, health care), not the screening's concepts."""

    MACHINE_LEARNING = re.compile(
        r"machine[- ]learning|deep learning|artificial intelligence|\bAI\b|neural networks?|"
        r"random forests?|support vector|natural language processing|\bNLP\b|"
        r"predictive analytics|algorithms?\b", re.IGNORECASE)
    PUBLIC_HEALTH = re.compile(
        r"public health|population health|\bhealth\s?care\b|\bhealth\b|surveillance|"
        r"epidemi\w*|pandemic|outbreaks?|diseases?|infect\w*|mortality", re.IGNORECASE)
    SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")

    def addresses(self, work: Work, subject: re.Pattern[str]) -> bool:
        if subject.search(work.title):
            return True
        sentences = self.SENTENCE_END.split(work.abstract or "")
        return sum(1 for sentence in sentences if subject.search(sentence)) >= 2

    def on_topic(self, work: Work) -> bool:
        return (self.addresses(work, self.MACHINE_LEARNING)
                and self.addresses(work, self.PUBLIC_HEALTH))

    def plainly_on_topic(self, work: Work) -> bool:
        """Its title alone names machine learning and public health or surveillance: no
        screening may set it aside."""
        return bool(self.MACHINE_LEARNING.search(work.title)
                    and re.search(r"public health|surveillance", work.title, re.IGNORECASE))


@pytest.fixture
def readme_topic() -> TopicCheck:
    return TopicCheck()


def recount_screening(text: str) -> dict[str, Any]:
    """PRISMA's counts recounted from the rows of a ``screening.csv`` (its text), as a reviewer
    would with a spreadsheet: a row per work screened, a ``source:id`` per merged record."""
    rows = list(csv.DictReader(io.StringIO(text)))
    merged = [item for row in rows for item in row["merged_records"].split("; ") if item]
    identified = Counter(row["source"] for row in rows)
    identified.update(item.split(":", 1)[0] for item in merged)
    included = [row for row in rows if row["decision"] == "included"]
    excluded = [row for row in rows if row["decision"] == "excluded"]
    sought = [row["full_text"] for row in included
              if not row["full_text"].startswith("not sought")]
    counts: dict[str, Any] = {
        "identified": dict(identified), "duplicates_removed": len(merged),
        "screened": len(rows), "excluded": len(excluded), "included": len(included),
        "excluded_reasons": dict(Counter(row["reason"] for row in excluded))}
    if sought:
        counts.update({"reports_sought": len(sought),
                       "reports_assessed": sought.count("retrieved"),
                       "not_retrieved_reasons": dict(Counter(
                           status for status in sought if status != "retrieved"))})
    assert len(rows) == len(included) + len(excluded)  # no other decision
    return counts


def assert_screening_adds_up(text: str, prisma: dict[str, Any]) -> None:
    """The rows of ``screening.csv`` add up to every PRISMA count they stand for."""
    recounted = recount_screening(text)
    removed = sum((prisma.get("removed_before_screening") or {}).values())
    if removed:  # identified, and no row of their own: a library's records without a title or
        # outside the years, an update's records screened before and unchanged (any source)
        identified = recounted.pop("identified")
        assert sum(identified.values()) + removed == sum(prisma["identified"].values())
        assert all(count <= prisma["identified"].get(source, 0)
                   for source, count in identified.items()), (identified, prisma["identified"])
    for key, value in recounted.items():
        assert value == prisma[key], (key, value, prisma[key])
    if "reports_sought" in prisma and "reports_sought" not in recounted:
        assert prisma["reports_sought"] == 0


@pytest.fixture(scope="session")
def screening_check() -> Callable[[str, dict[str, Any]], None]:
    """:func:`assert_screening_adds_up`, for tests to check a ``screening.csv``."""
    return assert_screening_adds_up

