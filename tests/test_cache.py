"""The on-disk cache under SCHOLARGRAPH_HOME: a repeated review asks the services nothing, keys
never reach the SQLite file, failures and broken answers are not kept, --no-cache bypasses it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from scholargraph import review
from scholargraph.errors import SourceError
from scholargraph.http.cache import CACHE_FILE, EXPIRE_AFTER, is_complete
from scholargraph.http.policy import http_session
from scholargraph.settings import Settings
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.materials import MaterialsAgent
from scholargraph.sources.openalex import OpenAlexAgent
from scholargraph.sources.pubmed import PubMedAgent
from scholargraph.sources.web.agent import WebAgent
from scholargraph.sources.web.pages import RobotsCache
from scholargraph.testing import Fault, ReplayServer
from scholargraph.testing.services.openalex import OpenAlexService

QUESTION = "What is known about genetic variants and screening?"
NCBI_KEY = "ncbi0secret0key0abcdef0123456789"
OPENALEX_KEY = "openalex0secret0key0ZYXW"
MP_KEY = "mp0secret0key0000000000000000042"  # 32 characters, as mp_api requires
EMAIL = "reviewer@example.org"


@pytest.fixture
def cached(replay: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[ReplayServer]:
    """The replay server with the on-disk cache switched on and keys for every service."""
    monkeypatch.delenv("SCHOLARGRAPH_NO_CACHE")
    for name, value in (("NCBI_API_KEY", NCBI_KEY), ("OPENALEX_API_KEY", OPENALEX_KEY),
                        ("MP_API_KEY", MP_KEY), ("NCBI_EMAIL", EMAIL)):
        monkeypatch.setenv(name, value)
    yield replay


def cache_file() -> Path:
    return Settings().home / CACHE_FILE


def stored_bytes() -> bytes:
    """Everything SQLite holds for the cache: the database and its write-ahead log."""
    return b"".join(path.read_bytes() for path in cache_file().parent.glob(CACHE_FILE + "*"))


def cached_rows(table: str = "responses") -> int:
    with sqlite3.connect(cache_file()) as connection:
        return connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_a_second_identical_review_sends_no_request(cached: ReplayServer) -> None:
    options = {"sources": ["pubmed", "arxiv", "openalex", "web"], "max_results": 10,
               "max_iterations": 2}
    first = review(QUESTION, **options)
    sent = cached.count()
    assert {"pubmed", "arxiv", "openalex", "ddg", "web"} <= {r.service for r in cached.requests}
    assert any(r.path == "/efetch.fcgi" for r in cached.requests)  # PubMed's POSTs too

    second = review(QUESTION, **options)

    assert cached.count() == sent, [(r.service, r.path) for r in cached.requests[sent:]]
    assert [p.id for p in second.papers] == [p.id for p in first.papers]
    assert [(e.source, e.query, e.n_results) for e in second.search_log] == \
        [(e.source, e.query, e.n_results) for e in first.search_log]
    # the re-run read the catalogues as they were when the answers were stored: its log says
    # so, and the day an update would search from is no later than the first run's
    firsts = {(e.source, e.query): e for e in first.search_log}
    services = [e for e in second.search_log if e.source in ("pubmed", "arxiv", "openalex", "web")
                and e.status == "ok"]
    assert {e.source for e in services} == {"pubmed", "arxiv", "openalex", "web"}
    for entry in services:
        assert entry.at <= firsts[(entry.source, entry.query)].at, entry
        assert "answered from the cache stored" in (entry.note or ""), entry
    assert second.searched_through <= first.searched_through


def test_materials_project_answers_are_cached(cached: ReplayServer) -> None:
    agent = MaterialsAgent()
    first = agent.search(SearchRequest(query="formula=TiO2", limit=5))
    sent = cached.count("mp")
    second = agent.search(SearchRequest(query="formula=TiO2", limit=5))
    assert first.materials and second.materials == first.materials
    assert cached.count("mp") == sent


def test_keys_and_addresses_never_reach_the_cache_file(cached: ReplayServer) -> None:
    PubMedAgent().search(SearchRequest(query="pulmonary", limit=5))
    OpenAlexAgent().search(SearchRequest(query="open access", limit=5))
    MaterialsAgent().search(SearchRequest(query="formula=TiO2", limit=5))
    assert any(r.param("api_key") == NCBI_KEY for r in cached.requests)  # the keys were sent
    assert any(r.headers.get("authorization") == f"Bearer {OPENALEX_KEY}"
               for r in cached.requests)
    assert any(r.headers.get("x-api-key") == MP_KEY for r in cached.requests)

    assert cached_rows() >= 4
    stored = stored_bytes()
    for secret in (NCBI_KEY, OPENALEX_KEY, MP_KEY, EMAIL):
        assert secret.encode() not in stored, secret
    assert b"REDACTED" in stored


def test_a_key_change_does_not_miss_the_cache(cached: ReplayServer, monkeypatch) -> None:
    """Keys are not part of cache keys: a rotated key still finds last week's answers."""
    PubMedAgent().search(SearchRequest(query="pulmonary", limit=5))
    sent = cached.count()
    monkeypatch.setenv("NCBI_API_KEY", "another0key0" + "9" * 20)
    PubMedAgent().search(SearchRequest(query="pulmonary", limit=5))
    assert cached.count() == sent


def test_a_search_that_fails_half_way_keeps_nothing(cached: ReplayServer) -> None:
    """ESearch answers, then EFetch fails: the history (WebEnv) must not outlive its fetch."""
    cached.inject("pubmed", Fault("latency", times=1, seconds=0.0))  # ESearch goes through
    cached.inject("pubmed", Fault("500", times=-1))  # every EFetch fails
    with pytest.raises(SourceError):
        PubMedAgent().search(SearchRequest(query="pulmonary", limit=5))
    assert cached_rows() == 0

    cached.clear_faults()
    sent = cached.count()
    assert PubMedAgent().search(SearchRequest(query="pulmonary", limit=5)).works
    assert [r.path for r in cached.requests[sent:]] == ["/esearch.fcgi", "/efetch.fcgi"]


@pytest.mark.parametrize("fault", ["truncated", "malformed", "empty"])
def test_broken_answers_are_asked_again(cached: ReplayServer, fault: str) -> None:
    cached.inject("openalex", Fault(fault))
    with pytest.raises(SourceError):
        OpenAlexAgent().search(SearchRequest(query="open access", limit=5))
    sent = cached.count()
    assert OpenAlexAgent().search(SearchRequest(query="open access", limit=5)).works
    assert cached.count() == sent + 1


def test_web_hits_and_pages_are_cached(cached: ReplayServer) -> None:
    first = WebAgent(max_pages=3, robots=RobotsCache()).search(
        SearchRequest(query="fake cache bypass", limit=5))
    assert any(work.full_text for work in first.works)
    sent = cached.count()
    second = WebAgent(max_pages=3, robots=RobotsCache()).search(
        SearchRequest(query="fake cache bypass", limit=5))
    assert cached.count() == sent
    assert [w.full_text for w in second.works] == [w.full_text for w in first.works]
    assert cached_rows("web_search") == 1 and cached_rows("web_pages") >= 1


def test_cached_web_hits_and_pages_are_dated_to_when_they_were_stored(
        cached: ReplayServer) -> None:
    """The web's answers are kept apart from the HTTP cache (ddgs does not talk through
    requests); read again, they are dated to when they were stored, as the services' are."""
    from datetime import UTC, datetime

    from scholargraph.http.cache import cached_answer_times

    agent = WebAgent(max_pages=3, robots=RobotsCache())
    request = SearchRequest(query="fake cache bypass", limit=5)
    before = datetime.now(UTC).replace(microsecond=0)
    with cached_answer_times() as fresh:
        agent.search(request)
    after = datetime.now(UTC)
    assert fresh == []  # asked afresh: the run's own time
    with cached_answer_times() as stored:
        WebAgent(max_pages=3, robots=RobotsCache()).search(request)
    assert len(stored) >= 2  # the hits and at least one page read
    assert all(before <= when <= after for when in stored), (before, stored, after)


def test_no_cache_bypasses_reading_and_writing(cached: ReplayServer, monkeypatch) -> None:
    monkeypatch.setenv("SCHOLARGRAPH_NO_CACHE", "1")
    for _ in range(2):
        OpenAlexAgent().search(SearchRequest(query="open access", limit=5))
    assert cached.count("openalex") == 2
    assert not cache_file().exists()


def test_answers_expire_after_a_week(cached: ReplayServer) -> None:
    response = http_session("openalex").get(f"{cached.url}/openalex/works/W2741809807")
    assert response.expires is not None and response.created_at is not None
    lifetime = response.expires - response.created_at
    assert abs(lifetime - EXPIRE_AFTER) < timedelta(minutes=1)
    again = http_session("openalex").get(f"{cached.url}/openalex/works/W2741809807")
    assert again.from_cache and cached.count("openalex") == 1


def test_only_complete_documents_count_as_complete(cached: ReplayServer) -> None:
    session = http_session("arxiv", Settings(no_cache=True))
    base = f"{cached.url}/arxiv/api/query"
    assert is_complete(session.get(base, params={"id_list": "1605.08386"}))
    assert is_complete(session.get(base, params={"id_list": "0000.0000"}))  # found nothing
    for fault in ("truncated", "malformed", "empty"):
        cached.inject("arxiv", Fault(fault))
        assert not is_complete(session.get(base, params={"id_list": "1605.08386"})), fault


def test_the_cli_no_cache_flag(cached: ReplayServer, monkeypatch, tmp_path) -> None:
    from scholargraph.cli import main

    monkeypatch.setenv("SCHOLARGRAPH_NO_CACHE", "0")  # restored after the test, whatever main sets
    code = main(["review", QUESTION, "--out", str(tmp_path / "out"), "--sources", "openalex",
                 "--max-iterations", "1", "--quiet", "--no-cache"])
    assert code == 0 and cached.count("openalex") >= 1
    assert not cache_file().exists()


def test_expired_entries_are_dropped_when_the_file_is_opened(cached: ReplayServer) -> None:
    from scholargraph.http import cache

    store = cache.ResultStore(cache_file(), "web_search")
    store.put("old", ["hit"], expire_after=timedelta(seconds=-1))
    store.put("new", ["hit"])
    cache.ResultStore(cache_file(), "web_search")  # another process opening the file
    assert cached_rows("web_search") == 1 and store.get("new") == ["hit"]
    assert store.get("old") is None


def relabelled_openalex() -> OpenAlexService:
    """OpenAlex answering with the recorded works, each retitled: a second source of records."""
    works = [{**recorded.work, "title": f"Second server: {recorded.work['title']}",
              "display_name": f"Second server: {recorded.work['title']}"}
             for recorded in OpenAlexService().pool]
    return OpenAlexService(extra_works=works)


def test_recorded_answers_never_answer_a_run_aimed_at_another_endpoint(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An --offline review fills the cache from the replay server; a later run whose endpoints
    point at another server (as a live run points at the real services) gets that server's
    records, not the recorded ones under the same official URL the client addresses."""
    monkeypatch.delenv("SCHOLARGRAPH_NO_CACHE")
    question = "machine learning for public health surveillance"
    # The second server is up before the offline run starts its own, so the two never share a
    # port (one closed and the next bound to the same ephemeral port would be one endpoint).
    with ReplayServer([relabelled_openalex()]) as second:
        offline = review(question, sources=["openalex"], max_iterations=1, offline=True)
        assert offline.papers and cached_rows() > 0
        assert not any(paper.title.startswith("Second server") for paper in offline.papers)
        with second.environment(SCHOLARGRAPH_RATE_SCALE="1000"):
            live = review(question, sources=["openalex"], max_iterations=1)
        assert second.count("openalex") > 0
    assert live.papers
    assert all(paper.title.startswith("Second server") for paper in live.papers)


def test_a_cached_answer_dates_the_search_to_when_it_was_stored() -> None:
    from datetime import date

    from scholargraph.records import SearchLogEntry
    from scholargraph.runs import searches_reached

    today = date(2026, 11, 28)
    log = [SearchLogEntry(source="pubmed", query="a", at="2026-11-24T09:00:00+00:00"),
           SearchLogEntry(source="arxiv", query="b", at="2026-11-28T10:00:00+00:00"),
           SearchLogEntry(source="openalex", query="c", status="error",
                          at="2026-11-01T10:00:00+00:00")]
    assert searches_reached(log, today) == date(2026, 11, 24)  # a failed search reached nothing
    assert searches_reached([], today) == today


def open_handles_on(path: Path) -> list[str]:
    """This process's open file handles on ``path`` or its SQLite journal files."""
    import os

    handles = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            handles.append(os.readlink(f"/proc/self/fd/{fd}"))
        except FileNotFoundError:  # the listing's own handle, closed once listed
            continue
    return [h for h in handles if h.startswith(str(path))]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc to count handles")
def test_a_home_done_with_can_have_its_cache_file_closed(cached: ReplayServer) -> None:
    """A process kept every cache file it used open until it ended (a few handles per home; the
    test suite, with a fresh home per test, ran up hundreds). ``close_cache_files`` closes them,
    and a later request reopens the file and still answers from it."""
    from scholargraph.http.cache import close_cache_files

    agent = OpenAlexAgent()
    first = agent.search(SearchRequest(query="open access", limit=5))
    assert open_handles_on(cache_file())
    close_cache_files(cache_file())
    assert open_handles_on(cache_file()) == []

    sent = cached.count()
    again = agent.search(SearchRequest(query="open access", limit=5))
    assert cached.count() == sent and again.works == first.works
