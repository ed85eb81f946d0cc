"""A run carries its own configuration: two reviews with different endpoints share one process,
at the same time, and each gets only its own server's records."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from scholargraph import review
from scholargraph.report import Report
from scholargraph.settings import Settings
from scholargraph.testing import ReplayServer
from scholargraph.testing.services.openalex import OpenAlexService

QUESTION = "machine learning for public health surveillance"


def retitled_openalex(label: str) -> OpenAlexService:
    """The recorded OpenAlex works, each title marked with ``label``."""
    works = [{**recorded.work, "title": f"{label}: {recorded.work['title']}",
              "display_name": f"{label}: {recorded.work['title']}"}
             for recorded in OpenAlexService().pool]
    return OpenAlexService(extra_works=works)


def run_against(server: ReplayServer) -> Report:
    settings = Settings().with_variables({**server.endpoint_env(),
                                          "SCHOLARGRAPH_RATE_SCALE": "1000"})
    return review(QUESTION, sources=["openalex"], max_iterations=1, settings=settings)


def test_two_reviews_with_different_endpoints_run_side_by_side() -> None:
    with ReplayServer([retitled_openalex("First")]) as first, \
            ReplayServer([retitled_openalex("Second")]) as second, \
            ThreadPoolExecutor(max_workers=2) as pool:
        runs = [pool.submit(run_against, server) for server in (first, second)]
        reports = [run.result(timeout=300) for run in runs]
        assert first.count("openalex") > 0 and second.count("openalex") > 0
    for label, report in zip(("First", "Second"), reports, strict=True):
        assert report.papers
        assert all(paper.title.startswith(f"{label}: ") for paper in report.papers), label


def test_an_offline_run_leaves_the_process_environment_alone(monkeypatch) -> None:
    """--offline points the run, not the process, at the replay server."""
    import os

    monkeypatch.delenv("SCHOLARGRAPH_OPENALEX_URL", raising=False)
    before = dict(os.environ)
    report = review(QUESTION, sources=["openalex"], max_iterations=1, offline=True)
    assert report.papers
    assert dict(os.environ) == before
