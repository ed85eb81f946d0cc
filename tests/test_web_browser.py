"""Pages built by JavaScript, rendered in a real headless Chromium (Debian's package) driven by
Playwright, against hand-written pages of the replay server's web mirror. One browser serves the
whole module; the tests skip when Chromium or Playwright is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from scholargraph.settings import Settings
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.web.agent import WebAgent
from scholargraph.sources.web.browser import PageRenderer, find_chromium, playwright_installed
from scholargraph.sources.web.pages import (
    HtmlPage,
    PageLimits,
    RobotsCache,
    needs_browser,
    read_html,
)
from scholargraph.testing import ReplayServer
from scholargraph.testing.services.ddg import DuckDuckGoService, Site, WebPagesService

MEDIUM = ("https://medium.com/homullus/fake-and-free-bypass-on-cookie-with-cloudflare-edge-cache-"
          "workers-for-wordpress-72c36d23c174")
MEDIUM_PATH = MEDIUM.removeprefix("https://medium.com")
SHELL_SITE = {
    MEDIUM_PATH: "script-shell.html",
    "/static/app.js": "script-shell.js",
    "/api/notes.json": "script-shell.json",
    "/m/private.json": "script-shell.json",
    "/data/cache-bypass-table": "crawl-table.html",
    "/polling": "script-shell.html",
}

needs_chromium = pytest.mark.skipif(
    find_chromium(Settings()) is None or not playwright_installed(),
    reason="headless rendering needs Chromium (apt-get install chromium) and playwright")


@pytest.fixture(scope="module")
def renderer() -> Iterator[PageRenderer]:
    """One headless Chromium for the module, started by the first test that renders."""
    with PageRenderer() as shared:
        yield shared


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    sites = {"medium.com": Site(robots="medium.com.robots.txt", pages=SHELL_SITE)}
    with ReplayServer([DuckDuckGoService(), WebPagesService(sites)]) as replay:
        yield replay


@pytest.fixture
def web(server: ReplayServer) -> Iterator[ReplayServer]:
    server.requests.clear()
    with server.environment(SCHOLARGRAPH_RATE_SCALE="1000"):
        yield server


def page_paths(server: ReplayServer) -> list[str]:
    return [r.path for r in server.requests if r.service == "web"]


@needs_chromium
def test_a_script_shell_is_rendered_and_its_text_extracted(web: ReplayServer,
                                                           renderer: PageRenderer) -> None:
    agent = WebAgent(max_pages=1, robots=RobotsCache(), renderer=renderer)

    result = agent.search(SearchRequest(query="fake cache bypass", limit=1))

    text = result.works[0].full_text or ""
    assert "Rendered paragraph: a shared cache serves its stored copy" in text
    assert "enable JavaScript" not in text  # the <noscript> fallback is not the page's text
    assert result.notes == []
    paths = page_paths(web)
    assert paths.count("/medium.com" + MEDIUM_PATH) == 1  # the browser got the page from memory
    assert {"/medium.com/static/app.js", "/medium.com/api/notes.json"} <= set(paths)
    assert "/medium.com/m/private.json" not in paths  # robots.txt disallows /m/
    assert not any(path.startswith("/tracker.example.net") for path in paths)  # another host


@needs_chromium
def test_links_written_by_the_script_feed_the_crawl(web: ReplayServer,
                                                    renderer: PageRenderer) -> None:
    agent = WebAgent(max_pages=1, robots=RobotsCache(), renderer=renderer)

    result = agent.search(SearchRequest(query="cache bypass table", limit=1, wants_data=True))

    [crawled] = result.works[1:]
    assert (crawled.url, crawled.found_via) == ("https://medium.com/data/cache-bypass-table",
                                                MEDIUM)
    assert "/medium.com/data/cache-bypass-table" in page_paths(web)


@needs_chromium
def test_a_page_whose_network_never_settles_is_read_at_the_time_cap(
        renderer: PageRenderer) -> None:
    sites = {"medium.com": Site(robots=404, pages={
        MEDIUM_PATH: "script-shell.html", "/static/app.js": "script-poll.js",
        "/api/notes.json": "script-shell.json"})}
    with ReplayServer([DuckDuckGoService(), WebPagesService(sites)]) as server, \
            server.environment(SCHOLARGRAPH_RATE_SCALE="1000"):
        agent = WebAgent(max_pages=1, robots=RobotsCache(), renderer=renderer,
                         page_limits=PageLimits(render_seconds=3.0))
        result = agent.search(SearchRequest(query="fake cache bypass", limit=1))

    assert "Polling paragraph" in (result.works[0].full_text or "")
    assert page_paths(server).count("/medium.com/api/notes.json") >= 2  # it kept polling


def test_without_chromium_the_page_keeps_its_snippet_and_the_search_says_why(
        web: ReplayServer) -> None:
    with web.environment(SCHOLARGRAPH_CHROMIUM="/nowhere/chromium"):
        result = WebAgent(max_pages=1, robots=RobotsCache()).search(
            SearchRequest(query="fake cache bypass", limit=1))

    work = result.works[0]
    assert work.full_text is None
    assert (work.abstract or "").startswith("Bypass on cookie is a common HTTP caching technique")
    [note] = result.notes
    assert "1 page built by JavaScript kept only its search snippet" in note
    assert "/nowhere/chromium" in note and "apt-get install chromium" in note
    assert "/medium.com/static/app.js" not in page_paths(web)


def test_rendering_can_be_turned_off(web: ReplayServer) -> None:
    with web.environment(SCHOLARGRAPH_CHROMIUM="none"):
        result = WebAgent(max_pages=1, robots=RobotsCache()).search(
            SearchRequest(query="fake cache bypass", limit=1))

    assert result.works[0].full_text is None
    assert "SCHOLARGRAPH_CHROMIUM=none" in result.notes[0]


@pytest.mark.parametrize(("html", "shell"), [
    (b"<html><body><div id=root></div><script src=/app.js></script></body></html>", True),
    (b"<html><body><noscript>" + b"Enable JavaScript to use this site. " * 20
     + b"</noscript><script>boot()</script></body></html>", True),
    (b"<html><body><p>" + b"A paragraph of plain evidence text. " * 30
     + b"</p><script>track()</script></body></html>", False),
    (b"<html><body><p>Short page without any script.</p></body></html>", False),
])
def test_script_shell_rule(html: bytes, shell: bool) -> None:
    assert needs_browser(read_html(html, "https://example.org/")) is shell


def test_links_are_same_host_absolute_and_without_fragments() -> None:
    html = (b'<html><head><base href="/docs/"></head><body>'
            b'<a href="table.html#row2">Band gap table</a> <a href="#top">Top</a>'
            b'<a href="https://example.org/other">Other page</a>'
            b'<a href="https://elsewhere.example/x">Elsewhere</a><a href="mailto:a@b.c">Mail</a>'
            b'<a href="/docs/">Itself</a></body></html>')

    page: HtmlPage = read_html(html, "https://example.org/docs/")

    assert page.links == {"https://example.org/docs/table.html": "Band gap table",
                          "https://example.org/other": "Other page"}


@pytest.mark.skipif(not playwright_installed(), reason="needs the playwright package")
def test_a_browser_that_will_not_start_leaves_a_note(web: ReplayServer, tmp_path: Path) -> None:
    broken = tmp_path / "chromium"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    with web.environment(SCHOLARGRAPH_CHROMIUM=str(broken)):
        result = WebAgent(max_pages=1, robots=RobotsCache()).search(
            SearchRequest(query="fake cache bypass", limit=1))

    assert result.works[0].full_text is None
    [note] = result.notes
    assert f"Chromium at {broken} did not start" in note
