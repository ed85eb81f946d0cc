"""The web agent through ddgs and requests, over HTTP, against the recorded DuckDuckGo page, the
hand-built news stand-in and the hand-written test pages of the replay server's web mirror:
robots.txt, caps, news and the shallow crawl. Rendering in a browser: test_web_browser.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack

import pytest

from scholargraph.agents.intent import detect_intent
from scholargraph.errors import SourceError
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.web.agent import WebAgent, unwrap_redirect, work_from_hit
from scholargraph.sources.web.crawl import CrawlLimits, choose_links
from scholargraph.sources.web.news import work_from_news
from scholargraph.sources.web.pages import PageLimits, PageOutcome, RobotsCache
from scholargraph.testing import Fault, ReplayRequest, ReplayServer
from scholargraph.testing.services.ddg import DuckDuckGoService, Site, WebPagesService

MEDIUM = ("https://medium.com/homullus/fake-and-free-bypass-on-cookie-with-cloudflare-edge-cache-"
          "workers-for-wordpress-72c36d23c174")
STACKPATH = ("https://support.stackpath.com/hc/en-us/articles/360035190332-EdgeRules-Bypass-Cache-"
             "Using-a-Cookie-")
STACKOVERFLOW = ("https://stackoverflow.com/questions/31694486/"
                 "nginx-proxy-no-cache-and-proxy-cache-bypass")
WIKIPEDIA = "https://en.wikipedia.org/wiki/Wikipedia:Bypass_your_cache"


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer([DuckDuckGoService(), WebPagesService()]) as replay:
        yield replay


@pytest.fixture
def web(server: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[ReplayServer]:
    """The module's server, its variables set through the test's ``monkeypatch``: a test
    removing one with ``monkeypatch`` (the news URL) must not have it put back after the
    fixture's own restore, for every later test."""
    server.requests.clear()
    server.clear_faults()
    for name, value in {**server.endpoint_env(), "SCHOLARGRAPH_RATE_SCALE": "1000"}.items():
        monkeypatch.setenv(name, value)
    yield server


def agent(**options: object) -> WebAgent:
    """An agent with its own robots cache, so each test sees every robots.txt request."""
    return WebAgent(robots=RobotsCache(), **options)  # type: ignore[arg-type]


def page_paths(server: ReplayServer) -> set[str]:
    return {r.path for r in server.requests if r.service == "web"}


def test_results_become_web_works_with_unwrapped_links(web: ReplayServer) -> None:
    result = agent(max_pages=0).search(SearchRequest(query="fake cache bypass", limit=6))

    urls = [work.url for work in result.works]
    assert urls[:4] == [MEDIUM, STACKPATH, STACKOVERFLOW, WIKIPEDIA]
    assert "https://www.youtube.com/watch?v=Gta9XZ3fu6Q" not in urls  # a video: left out
    assert not any("gist.github.com" in url for url in urls)  # a code listing: left out
    assert len(urls) == 4 and not any("duckduckgo.com" in url for url in urls)
    assert result.notes == ["Web: left out 2 search results as no work to quote "
                            "(1 code listing, 1 video)"]
    first = result.works[0]
    assert (first.kind, first.venue, first.sources) == ("web", "medium.com", ["web"])
    assert first.title.startswith("Fake and free Bypass-on-Cookie")
    assert (first.abstract or "").startswith("Bypass on cookie is a common HTTP caching technique")
    [search] = [r for r in web.requests if r.service == "ddg"]
    assert (search.method, search.param("q")) == ("POST", "fake cache bypass")
    assert page_paths(web) == set()


def test_robots_rules_are_honoured_exactly(web: ReplayServer) -> None:
    agent(max_pages=4).search(SearchRequest(query="fake cache bypass", limit=10))

    assert page_paths(web) == {
        "/medium.com/robots.txt", "/medium.com" + MEDIUM.removeprefix("https://medium.com"),
        "/support.stackpath.com/robots.txt",  # disallows scholargraph: page not requested
        "/stackoverflow.com/robots.txt",  # 404: allowed
        "/stackoverflow.com" + STACKOVERFLOW.removeprefix("https://stackoverflow.com"),
        "/en.wikipedia.org/robots.txt",  # 500: not requested
    }


def test_main_text_of_allowed_pages_only(web: ReplayServer) -> None:
    result = agent(max_pages=4).search(SearchRequest(query="fake cache bypass", limit=10))

    text = {work.url: work.full_text for work in result.works}
    assert "Bypass on cookie is a caching rule" in (text[MEDIUM] or "")
    assert "Sign in" not in (text[MEDIUM] or "")  # navigation is not main text
    assert "proxy_no_cache decides when a response is not saved" in (text[STACKOVERFLOW] or "")
    assert text[STACKPATH] is None and text[WIKIPEDIA] is None
    assert all(text[url] is None for url in list(text)[4:])  # beyond max_pages


def test_only_the_first_max_pages_results_are_read(web: ReplayServer) -> None:
    agent(max_pages=1).search(SearchRequest(query="fake cache bypass", limit=10))

    assert {path.split("/")[1] for path in page_paths(web)} == {"medium.com"}


def test_page_size_cap_is_honoured(web: ReplayServer) -> None:
    capped = agent(max_pages=1, page_limits=PageLimits(max_bytes=1500))
    result = capped.search(SearchRequest(query="fake cache bypass", limit=1))

    text = result.works[0].full_text or ""
    assert "Bypass on cookie is a caching rule" in text
    assert "closing paragraph" not in text


def test_robots_rules_are_cached_per_site(web: ReplayServer) -> None:
    shared = WebAgent(max_pages=1, robots=RobotsCache())
    shared.search(SearchRequest(query="fake cache bypass", limit=1))
    shared.search(SearchRequest(query="fake cache bypass", limit=1))

    robots = [r for r in web.requests if r.path == "/medium.com/robots.txt"]
    assert len(robots) == 1


def test_search_failure_becomes_a_source_error(web: ReplayServer) -> None:
    web.inject("ddg", Fault("500"))

    with pytest.raises(SourceError, match="DuckDuckGo did not answer"):
        agent().search(SearchRequest(query="fake cache bypass", limit=5))
    assert page_paths(web) == set()


@pytest.mark.parametrize(("href", "target"), [
    ("//duckduckgo.com/l/?kh=-1&uddg=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FCache",
     "https://en.wikipedia.org/wiki/Cache"),
    ("//duckduckgo.com/l/?uddg=https://example.org/a?b=1&c=2&rut=0a1b2c",
     "https://example.org/a?b=1&c=2"),
    ("https://example.org/page", "https://example.org/page"),
    ("javascript:void(0)", None),
    ("", None),
])
def test_unwrap_redirect(href: str, target: str | None) -> None:
    assert unwrap_redirect(href) == target


MEDIUM_PATH = MEDIUM.removeprefix("https://medium.com")
STACKPATH_PATH = STACKPATH.removeprefix("https://support.stackpath.com")
STACKOVERFLOW_PATH = STACKOVERFLOW.removeprefix("https://stackoverflow.com")


MirrorOf = Callable[[dict[str, Site]], ReplayServer]


@pytest.fixture
def mirror_of() -> Iterator[MirrorOf]:
    """Start a replay server whose web mirror holds the given sites (and the recorded results)."""
    with ExitStack() as stack:
        def start(sites: dict[str, Site]) -> ReplayServer:
            server = stack.enter_context(ReplayServer([DuckDuckGoService(),
                                                       WebPagesService(sites)]))
            stack.enter_context(server.environment(SCHOLARGRAPH_RATE_SCALE="1000"))
            return server

        yield start


def test_a_site_asking_for_a_long_crawl_delay_is_skipped(mirror_of: MirrorOf) -> None:
    server = mirror_of({"medium.com": Site(robots="crawl-delay.robots.txt",
                                           pages={MEDIUM_PATH: "medium.com.html"})})

    result = agent(max_pages=1).search(SearchRequest(query="fake cache bypass", limit=1))

    assert result.works[0].full_text is None
    assert page_paths(server) == {"/medium.com/robots.txt"}


def test_redirects_are_followed_within_the_site_where_robots_allow(mirror_of: MirrorOf) -> None:
    server = mirror_of({
        "medium.com": Site(robots="medium.com.robots.txt", redirects={MEDIUM_PATH: "/article"},
                           pages={"/article": "medium.com.html"}),
        "support.stackpath.com": Site(robots=404,
                                      redirects={STACKPATH_PATH: "https://elsewhere.example/"}),
        "stackoverflow.com": Site(robots="medium.com.robots.txt",
                                  redirects={STACKOVERFLOW_PATH: "/m/hidden"},
                                  pages={"/m/hidden": "stackoverflow.com.html"}),
    })

    result = agent(max_pages=3).search(SearchRequest(query="fake cache bypass", limit=3))

    text = {work.url: work.full_text for work in result.works}
    assert "Bypass on cookie is a caching rule" in (text[MEDIUM] or "")
    assert text[STACKPATH] is None and text[STACKOVERFLOW] is None
    assert "/medium.com/article" in page_paths(server)
    assert "/stackoverflow.com/m/hidden" not in page_paths(server)  # robots.txt disallows /m/
    assert not any("elsewhere" in path for path in page_paths(server))


def test_pages_that_are_not_html_are_not_read(mirror_of: MirrorOf) -> None:
    mirror_of({"medium.com": Site(robots=404, pages={MEDIUM_PATH: "not-html.pdf"})})

    result = agent(max_pages=1).search(SearchRequest(query="fake cache bypass", limit=1))

    assert result.works[0].full_text is None


def test_a_page_slower_than_its_time_cap_is_given_up(web: ReplayServer) -> None:
    robots = RobotsCache()
    WebAgent(max_pages=1, robots=robots).search(SearchRequest(query="fake cache bypass", limit=1))
    web.inject("web", Fault("latency", seconds=1.0))  # the next web request: the page itself

    hurried = WebAgent(max_pages=1, robots=robots, page_limits=PageLimits(max_seconds=0.2))
    result = hurried.search(SearchRequest(query="fake cache bypass", limit=1))

    assert result.works[0].url == MEDIUM and result.works[0].full_text is None


NEWS = [("https://example.net/news/2025/06/perovskite-iodide-migration", "Example Lab Notes",
         "2025-06-10"),
        ("https://news.example.org/2025/06/perovskite-damp-heat", "Example Science Daily",
         "2025-06-02"),
        ("https://www.example.com/energy/perovskite-tandem-record", "Example Energy Wire",
         "2025-05-28")]


def news_requests(server: ReplayServer) -> list[ReplayRequest]:
    return [r for r in server.requests if r.service == "ddg" and r.path == "/news.js"]


def test_news_join_the_results_labelled_with_outlet_and_day(web: ReplayServer) -> None:
    request = SearchRequest(query="perovskite stability", limit=10, news_window="week")
    result = agent(max_pages=0).search(request)

    news = [work for work in result.works if work.kind == "news"]
    assert [(w.url, w.venue, str(w.published)) for w in news] == NEWS
    assert all(w.year == 2025 and w.sources == ["web"] for w in news)
    assert news[1].abstract and news[1].abstract.startswith("Encapsulated perovskite solar cells")
    assert "<b>" not in (news[0].abstract or "")
    assert [w.kind for w in result.works[:4]] == ["web"] * 4  # the web results come first
    [asked] = news_requests(web)
    assert (asked.param("q"), asked.param("df"), asked.param("o")) == (
        "perovskite stability", "w", "json")
    assert any("3 news results from the past week" in note for note in result.notes)


def test_no_news_unless_the_question_is_about_current_events(web: ReplayServer) -> None:
    result = agent(max_pages=0).search(SearchRequest(query="perovskite stability", limit=10))

    assert {work.kind for work in result.works} == {"web"}
    assert news_requests(web) == [] and not any("news" in note for note in result.notes)


def test_a_failed_news_search_is_a_note_and_the_web_results_stay(web: ReplayServer) -> None:
    with web.environment(SCHOLARGRAPH_DDG_NEWS_URL=f"{web.url}/ddg/gone/news.js"):
        result = agent(max_pages=0).search(
            SearchRequest(query="perovskite stability", limit=5, news_window="month"))

    # five results asked for, one of them a gist of code, left out
    assert len(result.works) == 4 and {work.kind for work in result.works} == {"web"}
    left, note = result.notes
    assert left == "Web: left out 1 search result as no work to quote (1 code listing)"
    assert "news search for 'perovskite stability' failed" in note and "vqd" in note


def test_news_are_not_asked_of_the_live_service_while_web_search_uses_a_mirror(
        web: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCHOLARGRAPH_DDG_NEWS_URL")
    result = agent(max_pages=0).search(
        SearchRequest(query="perovskite stability", limit=5, news_window="day"))

    assert {work.kind for work in result.works} == {"web"}
    assert news_requests(web) == []
    assert any("SCHOLARGRAPH_DDG_NEWS_URL is not set" in note for note in result.notes)


def test_a_web_page_also_found_as_news_keeps_the_news_label() -> None:
    page = work_from_hit({"href": NEWS[1][0], "title": "Damp heat", "body": "Snippet."})
    news = work_from_news({"url": NEWS[1][0], "title": "Damp heat", "body": "Excerpt.",
                           "source": "Example Science Daily", "date": "2025-06-02T09:00:00+00:00"})
    assert page is not None and news is not None

    for merged in (page.merge(news, "url"), news.merge(page, "url")):
        assert (merged.kind, str(merged.published)) == ("news", "2025-06-02")


CRAWL_SITES = {
    "medium.com": Site(robots="medium.com.robots.txt", pages={
        MEDIUM_PATH: "crawl-start.html",
        "/data/cache-bypass-table": "crawl-table.html",
        "/data/cache-bypass-extra": "crawl-extra.html",
        "/data/cookie-values": "crawl-extra.html",
        "/m/cache-bypass-private": "crawl-extra.html",
        "/about": "crawl-extra.html",
    }),
    "elsewhere.example": Site(robots=404, pages={"/cache-bypass-table": "crawl-table.html"}),
}


def test_the_crawl_follows_same_site_links_robots_allow_within_the_budget(
        mirror_of: MirrorOf) -> None:
    server = mirror_of(CRAWL_SITES)
    request = SearchRequest(query="cache bypass table", limit=1, wants_data=True)

    result = agent(max_pages=1, crawl=CrawlLimits(per_site=2)).search(request)

    assert page_paths(server) == {
        "/medium.com/robots.txt", "/medium.com" + MEDIUM_PATH,
        "/medium.com/data/cache-bypass-table",  # anchor shares three query words
        "/medium.com/data/cache-bypass-extra",  # two; the disallowed /m/ link (two) is skipped
    }  # not: /m/ (robots.txt), cookie-values (over budget), /about (no shared word), elsewhere
    crawled = {work.url: work for work in result.works[1:]}
    assert list(crawled) == ["https://medium.com/data/cache-bypass-table",
                             "https://medium.com/data/cache-bypass-extra"]
    table = crawled["https://medium.com/data/cache-bypass-table"]
    assert (table.kind, table.venue, table.found_via) == ("web", "medium.com", MEDIUM)
    assert table.title == "Cache bypass benchmark table (test page)"
    assert "55% of the requests reached the origin" in (table.full_text or "")


def test_no_crawl_unless_the_question_wants_data(mirror_of: MirrorOf) -> None:
    server = mirror_of(CRAWL_SITES)

    result = agent(max_pages=1).search(SearchRequest(query="cache bypass table", limit=1))

    assert page_paths(server) == {"/medium.com/robots.txt", "/medium.com" + MEDIUM_PATH}
    assert len(result.works) == 1


def test_links_are_chosen_by_anchor_words_within_both_budgets() -> None:
    def page(host: str, anchors: list[str]) -> PageOutcome:
        links = {f"https://{host}/{i}": anchor for i, anchor in enumerate(anchors)}
        return PageOutcome(f"https://{host}/", "fetched", text="text", links=links)

    pages = [page("a.example", ["band gap", "band gap values", "band gaps table", "contact",
                                "band gap data"]),
             page("b.example", ["band gap table", "gap"])]
    chosen = choose_links(pages, "band gap table", CrawlLimits(per_site=2, per_search=3),
                          known={"https://a.example/1"},
                          allowed=lambda url: url != "https://a.example/2")

    assert [(link.url, link.overlap) for link in chosen] == [
        ("https://b.example/0", 3), ("https://a.example/0", 2), ("https://a.example/4", 2)]
    assert chosen[0].found_via == "https://b.example/"


def test_a_question_about_current_events_brings_the_web_in_whatever_its_field() -> None:
    clinical = detect_intent("How do statins lower cholesterol in patients?")
    current = detect_intent("What is the latest news on statins for patients?")

    assert clinical.domains == current.domains == ["biomedical"]
    assert not WebAgent().is_relevant(clinical)
    assert WebAgent().is_relevant(current)


def test_only_a_whole_results_page_is_read_as_results():
    from scholargraph.errors import SourceResponseError
    from scholargraph.sources.web.agent import check_results_page
    from scholargraph.testing import fixture_bytes

    page = fixture_bytes("ddg/duckduckgo-synopsis.html_duckduckgo_com.html").decode()
    check_results_page(page)
    with pytest.raises(SourceResponseError, match="cut off"):
        check_results_page(page[: len(page) // 2])
    with pytest.raises(SourceResponseError, match="not a results page"):
        check_results_page("<html><body><h1>Please try again later</h1></body></html>")
