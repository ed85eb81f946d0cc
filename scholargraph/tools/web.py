"""The web source agent: a DuckDuckGo search (through ddgs), then the main text of the top pages.

Without ``SCHOLARGRAPH_DDG_URL`` ddgs picks its own backends (``backend="auto"``). With it, only
DuckDuckGo's HTML backend is used, at that URL: the agent makes its own instance of ddgs'
``Duckduckgo`` engine and sets ``search_url`` on that instance. The class attribute
(``ddgs.engines.duckduckgo.Duckduckgo.search_url``) is never changed, so there is nothing to
restore and no race with other threads or other ddgs users in the process.

Result links in DuckDuckGo's redirect form (``//duckduckgo.com/l/?uddg=<target>``) are unwrapped
to their target. The first ``max_pages`` results are then read by
:class:`~scholargraph.tools.pages.PageFetcher` (robots.txt honoured, size and time capped).
Page text is untrusted: it is kept as evidence in ``Work.full_text``, never followed.

A search's hits are kept in the on-disk cache (see :mod:`scholargraph.tools.cache`), so running
the same search again within a week asks DuckDuckGo nothing.
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

from ddgs import DDGS
from ddgs.engines.duckduckgo import Duckduckgo
from ddgs.exceptions import DDGSException, TimeoutException

from scholargraph.errors import SourceUnavailable
from scholargraph.records import Work
from scholargraph.schemas import Domain
from scholargraph.tools.base import SearchRequest, SourceAgent, SourceResult
from scholargraph.tools.cache import ResultStore, result_store
from scholargraph.tools.http import throttle
from scholargraph.tools.pages import PageFetcher, PageLimits, RobotsCache
from scholargraph.settings import Settings

log = logging.getLogger(__name__)

MAX_RESULT_PAGES = 5
"""Results pages asked of DuckDuckGo's HTML backend for one search (about 10 results each)."""
WEB_RESULTS_TABLE = "web_search"
_RUT_SUFFIX = re.compile(r"&rut=[0-9a-fA-F]+$")


class WebAgent(SourceAgent):
    """Web search through ddgs, with the main text of the top results where robots.txt allows."""

    name = "web"
    order = 50
    label = "Web"
    domains: ClassVar[frozenset[Domain]] = frozenset({"general"})
    query_syntax = "plain web search text: keywords or a short question, quotes for exact phrases"

    def __init__(self, settings: Settings | None = None, *, max_pages: int = 3,
                 page_limits: PageLimits | None = None, robots: RobotsCache | None = None,
                 backend: str = "auto") -> None:
        super().__init__(settings)
        self.max_pages = max_pages
        self.page_limits = page_limits or PageLimits()
        self.robots = robots
        self.backend = backend

    def _search(self, request: SearchRequest) -> SourceResult:
        settings = self.settings
        hits = self._web_search(request.query, request.limit, settings)
        works = _unique_by_url(work for hit in hits if (work := work_from_hit(hit)))
        works = works[: request.limit]
        if self.max_pages > 0 and works:
            fetcher = PageFetcher(settings, limits=self.page_limits, robots=self.robots)
            outcomes = fetcher.fetch_all([work.url for work in works[: self.max_pages] if work.url])
            for work in works:
                outcome = outcomes.get(work.url or "")
                if outcome is not None and outcome.text:
                    work.full_text = outcome.text
        return SourceResult(works=works)

    def _web_search(self, query: str, limit: int, settings: Settings) -> list[dict[str, Any]]:
        """The search's hits, from the on-disk cache when this search was made lately.

        ddgs talks through primp, not requests, so its HTTP answers cannot be cached; the hits
        are (only when the search succeeded, and not when it found nothing).
        """
        store = result_store(settings, WEB_RESULTS_TABLE)
        key = ResultStore.key("ddgs", settings.ddg_url or self.backend, query, limit)
        cached = store.get(key) if store else None
        if cached is not None:
            return cached
        hits = self._ask_search_engine(query, limit, settings)
        if store and hits:
            store.put(key, hits)
        return hits

    def _ask_search_engine(self, query: str, limit: int,
                           settings: Settings) -> list[dict[str, Any]]:
        timeout = max(1, round(settings.timeout_s))
        try:
            if settings.ddg_url:
                return _duckduckgo_html(query, limit, settings.ddg_url, timeout, settings)
            throttle(self.name, settings)
            return DDGS(timeout=timeout).text(query, max_results=limit, backend=self.backend)
        except TimeoutException as exc:
            raise SourceUnavailable(self.name, "the web search timed out; try again later") from exc
        except DDGSException as exc:
            if str(exc) == "No results found.":
                return []
            raise SourceUnavailable(self.name, f"the web search failed ({exc})") from exc


def _duckduckgo_html(query: str, limit: int, url: str, timeout: int,
                     settings: Settings) -> list[dict[str, Any]]:
    """Results from DuckDuckGo's HTML backend at ``url``, page after page until ``limit``."""
    engine = Duckduckgo(timeout=timeout)
    engine.search_url = url  # this instance only; the class attribute stays as ddgs ships it
    hits: dict[str, dict[str, Any]] = {}
    for page in range(1, MAX_RESULT_PAGES + 1):
        throttle(WebAgent.name, settings)
        results = engine.search(query, page=page)
        if results is None:
            if page == 1:
                raise SourceUnavailable(WebAgent.name, "DuckDuckGo did not answer with a results "
                                        "page (an HTTP error status or an empty body)")
            break
        before = len(hits)
        for result in results:
            hits.setdefault(result.href, asdict(result))
        if len(hits) >= limit or len(hits) == before:
            break
    return list(hits.values())[:limit]


def unwrap_redirect(href: str) -> str | None:
    """The target of a DuckDuckGo redirect link (or ``href`` itself); ``None`` if not http(s).

    ddgs may already have percent-decoded the link, so the target is everything after ``uddg=``
    (less DuckDuckGo's trailing ``&rut=`` token), not a parsed query parameter that would cut
    the target's own ``&``-separated query apart.
    """
    link = "https:" + href if href.startswith("//") else href
    parts = urlsplit(link)
    if parts.netloc.endswith("duckduckgo.com") and parts.path.startswith("/l/") and "uddg=" in link:
        link = unquote(_RUT_SUFFIX.sub("", link.split("uddg=", 1)[1]))
    target = urlsplit(link)
    return link if target.scheme in ("http", "https") and target.netloc else None


def work_from_hit(hit: dict[str, Any]) -> Work | None:
    """A web work from one search result, or ``None`` when its link is unusable."""
    url = unwrap_redirect(str(hit.get("href") or ""))
    if url is None:
        return None
    host = urlsplit(url).netloc.lower().removeprefix("www.")
    title = str(hit.get("title") or "").strip() or host
    snippet = str(hit.get("body") or "").strip() or None
    return Work(kind="web", title=title, url=url, abstract=snippet, venue=host, sources=["web"])


def _unique_by_url(works: Any) -> list[Work]:
    unique: dict[str, Work] = {}
    for work in works:
        unique.setdefault(work.url, work)
    return list(unique.values())
