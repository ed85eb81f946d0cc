"""DuckDuckGo's HTML results page, its news endpoint, and the web pages its results point at.

:class:`DuckDuckGoService` serves the one real recording there is (a 2020 results page for
"Fake cache bypass", ``fixtures/ddg/``) for ANY query and any page: tests can check how results
are parsed and unwrapped, not which results a query finds. Its news endpoint (``/news.js``, and
``/`` handing out the ``vqd`` token news.js wants) answers three HAND-BUILT news items about
perovskite solar cell stability for any query, in the shape ddgs parses: no recording of
DuckDuckGo's news endpoint exists (see ``PROVENANCE_materials_web.md``).

:class:`WebPagesService` is a web mirror (``{mirror}{host}/{path}``) holding hand-written test
pages, not recordings, for the hosts of the first four recorded results, one per robots.txt case:

=====================  ==========================================  =========================
host                   robots.txt                                  page may be fetched
=====================  ==========================================  =========================
medium.com             allows everyone (except ``/m/``, ``/me/``)  yes, text extracted
support.stackpath.com  disallows ``scholargraph``, allows others   no
stackoverflow.com      404                                         yes
en.wikipedia.org       500                                         no
=====================  ==========================================  =========================

Any other host or path is a 404. Tests of other cases (a ``Crawl-delay``, redirects, a PDF, a
page built by JavaScript, links to follow) mount a ``WebPagesService(sites=...)`` of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scholargraph.testing.fixtures import fixture_bytes
from scholargraph.testing.messages import ReplayRequest, ReplayResponse, not_recorded

RESULTS_PAGE = "ddg/duckduckgo-synopsis.html_duckduckgo_com.html"
NEWS_RESULTS = "ddg/news.json"
NEWS_TOKEN_PAGE = "ddg/news-token.html"
NEWS_TOKEN = "4-31415926535897932384626433832795028"
"""The ``vqd`` token the token page hands out and news.js then expects."""
PAGES = "ddg/pages/"
HTML = "text/html; charset=utf-8"


class DuckDuckGoService:
    """``html.duckduckgo.com/html/``: the recorded results page, whatever was asked; and
    ``duckduckgo.com/news.js`` with its token page ``/``: the hand-built news items."""

    prefix = "ddg"

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        if request.path.rstrip("/") == "/html":
            return ReplayResponse(200, fixture_bytes(RESULTS_PAGE), HTML)
        if request.path == "/" and request.param("q"):
            return ReplayResponse(200, fixture_bytes(NEWS_TOKEN_PAGE), HTML)
        if request.path == "/news.js":
            return _news(request)
        return ReplayResponse(404, b"<html><body>Not Found</body></html>", HTML)


def _news(request: ReplayRequest) -> ReplayResponse:
    """The news items, to a request carrying a query, the token and ``o=json`` (else 403: a
    refusal of our own making; DuckDuckGo's answer to such a request is not recorded)."""
    if not request.param("q") or request.param("vqd") != NEWS_TOKEN or request.param("o") != "json":
        return ReplayResponse(403, b'{"error": "missing query, vqd token or o=json"}')
    return ReplayResponse(200, fixture_bytes(NEWS_RESULTS), "application/json")


@dataclass(frozen=True)
class Site:
    """One mirrored host: its robots.txt (a file under ``fixtures/ddg/pages/``, or under
    ``fixtures/`` when it starts with '/'; or a status code), its pages by path (files there,
    typed by suffix: ``.txt``, ``.pdf``, ``.js``, ``.json``, else
    HTML) and its redirects by path (to the ``Location`` given, answered 301)."""

    robots: str | int
    pages: dict[str, str] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)


SITES: dict[str, Site] = {
    "medium.com": Site(
        robots="medium.com.robots.txt",
        pages={"/homullus/fake-and-free-bypass-on-cookie-with-cloudflare-edge-cache-workers-"
               "for-wordpress-72c36d23c174": "medium.com.html"},
    ),
    "support.stackpath.com": Site(
        robots="support.stackpath.com.robots.txt",
        pages={"/hc/en-us/articles/360035190332-EdgeRules-Bypass-Cache-Using-a-Cookie-":
               "support.stackpath.com.html"},
    ),
    "stackoverflow.com": Site(
        robots=404,
        pages={"/questions/31694486/nginx-proxy-no-cache-and-proxy-cache-bypass":
               "stackoverflow.com.html"},
    ),
    "en.wikipedia.org": Site(
        robots=500,
        pages={"/wiki/Wikipedia:Bypass_your_cache": "en.wikipedia.org.html"},
    ),
}


class WebPagesService:
    """A mirror of a few web pages under ``/web/<host>/<path>``, robots.txt included."""

    prefix = "web"

    def __init__(self, sites: dict[str, Site] | None = None) -> None:
        self.sites = SITES if sites is None else sites

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        host, _, rest = request.path.lstrip("/").partition("/")
        site = self.sites.get(host)
        path = "/" + rest
        if site is None:
            return _not_found()
        if path == "/robots.txt":
            return _robots(site)
        if path in site.redirects:
            return ReplayResponse(301, b"", HTML, headers={"Location": site.redirects[path]})
        page = site.pages.get(path)
        if page is None:
            return _not_found()
        return ReplayResponse(200, fixture_bytes(_fixture(page)), _content_type(page))


CONTENT_TYPES = {
    ".txt": "text/plain; charset=utf-8",
    ".pdf": "application/pdf",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
}


def _content_type(name: str) -> str:
    return next((kind for suffix, kind in CONTENT_TYPES.items() if name.endswith(suffix)), HTML)


def _robots(site: Site) -> ReplayResponse:
    if isinstance(site.robots, int):
        return ReplayResponse(site.robots, b"<html><body>robots.txt unavailable</body></html>",
                              HTML)
    return ReplayResponse(200, fixture_bytes(_fixture(site.robots)), "text/plain; charset=utf-8")


def _fixture(name: str) -> str:
    """A page's file: under ``fixtures/ddg/pages/``, or under ``fixtures/`` when it starts
    with '/' (the open-access copies of ``fulltext/``)."""
    return name[1:] if name.startswith("/") else PAGES + name


def _not_found() -> ReplayResponse:
    return not_recorded(b"<html><body>Not Found</body></html>", HTML)
