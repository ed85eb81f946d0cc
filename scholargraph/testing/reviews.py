"""Reviews run over the whole recorded corpus, for tests that read several at once."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from scholargraph.testing.server import ReplayServer

if TYPE_CHECKING:
    from scholargraph.report import Report

MP_TEST_KEY = "0123456789abcdef0123456789abcdef"
"""A Materials Project key of the 32 characters mp_api demands; the replay server takes any."""


@contextmanager
def corpus_reviews(questions: Mapping[str, str], home: Path) -> Iterator[dict[str, Report]]:
    """Each question (by its name) reviewed once over the whole recorded corpus, with the
    Materials Project asked too, rates sped up and the cache off, in ``home``."""
    from scholargraph import review

    with ReplayServer.default() as server, server.environment(
            SCHOLARGRAPH_HOME=str(home), SCHOLARGRAPH_RATE_SCALE="1000",
            SCHOLARGRAPH_NO_CACHE="1", MP_API_KEY=MP_TEST_KEY):
        yield {name: review(question) for name, question in questions.items()}
