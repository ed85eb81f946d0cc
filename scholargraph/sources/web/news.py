"""Recent news for questions about current events: ddgs' news search, results as ``kind="news"``.

Without ``SCHOLARGRAPH_DDG_NEWS_URL`` ddgs picks its news backends (``DDGS().news``). With it, only
DuckDuckGo's news endpoint is asked, at that URL: an instance of ddgs' ``DuckduckgoNews`` engine
whose ``search_url`` is that URL and whose token request (DuckDuckGo hands out a ``vqd`` token on
its search page before it answers ``news.js``) goes to the page beside it, where
``https://duckduckgo.com/`` stands beside ``https://duckduckgo.com/news.js``. While
``SCHOLARGRAPH_DDG_URL`` points the text search at a mirror and no news URL is set, no news are
searched: a mirror means the live service is not to be asked.

DuckDuckGo's window (``df``) is a day, a week or a month; "a year" is passed as ``y`` for backends
that know it. Hits are cached for an hour only: news move faster than papers.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import urljoin, urlsplit

from ddgs import DDGS
from ddgs.engines.duckduckgo_news import DuckduckgoNews
from ddgs.exceptions import DDGSException, TimeoutException

from scholargraph.agents.schemas import NewsWindow
from scholargraph.errors import SourceResponseError, SourceUnavailable
from scholargraph.http.cache import ResultStore, result_store
from scholargraph.http.policy import throttle
from scholargraph.records import Work
from scholargraph.settings import Settings

NEWS_RESULTS_TABLE = "web_news"
NEWS_EXPIRE_AFTER = timedelta(hours=1)
TIMELIMITS: dict[NewsWindow, str] = {"day": "d", "week": "w", "month": "m", "year": "y"}
_VQD = re.compile(rb"""vqd=["']?([\w-]+)""")
SOURCE = "web"


class NewsAt(DuckduckgoNews):
    """ddgs' DuckDuckGo news engine answering from ``url`` (a mirror or the replay server)."""

    def __init__(self, url: str, timeout: int) -> None:
        super().__init__(timeout=timeout)
        self.search_url = url  # this instance only; the class attribute stays as ddgs ships it
        self.token_url = urljoin(url, ".")

    def _get_vqd(self, query: str) -> str:
        """The search token, from the page beside ``news.js`` rather than duckduckgo.com."""
        page = self.http_client.request("GET", self.token_url, params={"q": query})
        match = _VQD.search(page.content or b"")
        if page.status_code != 200 or match is None:
            raise SourceResponseError(SOURCE, f"the news token page {self.token_url} answered "
                                      f"{page.status_code} without a vqd token")
        return match.group(1).decode()


def news_unavailable_reason(settings: Settings) -> str | None:
    """Why news cannot be searched with these settings, or ``None``."""
    if settings.ddg_url and not settings.ddg_news_url:
        return ("news not searched: SCHOLARGRAPH_DDG_URL points the web search at a mirror and "
                "SCHOLARGRAPH_DDG_NEWS_URL is not set")
    return None


def search_news(query: str, limit: int, window: NewsWindow, settings: Settings,
                backend: str = "auto") -> list[dict[str, Any]]:
    """News hits (ddgs' dicts: date, title, body, url, image, source), cached for an hour."""
    store = result_store(settings, NEWS_RESULTS_TABLE)
    key = ResultStore.key("ddgs-news", settings.ddg_news_url or backend, query, limit, window)
    cached = store.get(key) if store else None
    if cached is not None:
        return cached
    hits = _ask_news(query, limit, window, settings, backend)
    if store and hits:
        store.put(key, hits, NEWS_EXPIRE_AFTER)
    return hits


def _ask_news(query: str, limit: int, window: NewsWindow, settings: Settings,
              backend: str) -> list[dict[str, Any]]:
    timeout = max(1, round(settings.timeout_s))
    timelimit = TIMELIMITS[window]
    throttle(SOURCE, settings)
    try:
        if settings.ddg_news_url:
            results = NewsAt(settings.ddg_news_url, timeout).search(query, timelimit=timelimit)
            if results is None:
                raise SourceUnavailable(SOURCE, "DuckDuckGo's news endpoint did not answer with "
                                        "results (an HTTP error status or an empty body)")
            return [asdict(result) for result in results[:limit]]
        return DDGS(timeout=timeout).news(query, max_results=limit, timelimit=timelimit,
                                          backend=backend)
    except TimeoutException as exc:
        raise SourceUnavailable(SOURCE, "the news search timed out; try again later") from exc
    except DDGSException as exc:
        if str(exc) == "No results found.":
            return []
        raise SourceUnavailable(SOURCE, f"the news search failed ({exc})") from exc


def work_from_news(hit: dict[str, Any]) -> Work | None:
    """A news work from one hit: outlet as venue, day of publication; ``None`` without a link."""
    url = str(hit.get("url") or "").strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    host = parts.netloc.lower().removeprefix("www.")
    day = published_on(hit.get("date"))
    return Work(
        kind="news",
        title=str(hit.get("title") or "").strip() or host,
        url=url,
        abstract=str(hit.get("body") or "").strip() or None,
        venue=str(hit.get("source") or "").strip() or host,
        year=day.year if day else None,
        published=day,
        sources=[SOURCE],
    )


def published_on(value: Any) -> date | None:
    """The day of a news hit's date: ddgs gives ISO 8601 text (from DuckDuckGo's Unix time)."""
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, UTC).date()
    try:
        return datetime.fromisoformat(str(value)).date()
    except ValueError:
        return None
