"""The web source agent: a DuckDuckGo search (through ddgs), then the main text of the top pages.

Without ``SCHOLARGRAPH_DDG_URL`` ddgs picks its own backends (``backend="auto"``). With it, only
DuckDuckGo's HTML backend is used, at that URL: the agent makes its own instance of ddgs'
``Duckduckgo`` engine and sets ``search_url`` on that instance. The class attribute
(``ddgs.engines.duckduckgo.Duckduckgo.search_url``) is never changed, so there is nothing to
restore and no race with other threads or other ddgs users in the process.

Result links in DuckDuckGo's redirect form (``//duckduckgo.com/l/?uddg=<target>``) are unwrapped
to their target. The first ``max_pages`` results are then read by
:class:`~scholargraph.sources.web.pages.PageFetcher` (robots.txt honoured, size and time capped; a
script shell rendered in headless Chromium, see :mod:`scholargraph.sources.web.browser`). Page text
is untrusted: it is kept as evidence in ``Work.full_text``, never obeyed.

Two modes follow the question's intent:

- **news** (``SearchRequest.news_window``, a question about current events): news hits within the
  window join the results as ``kind="news"`` works with their outlet and day
  (:mod:`scholargraph.sources.web.news`); a result found both ways keeps the news label;
- **one step further** (``SearchRequest.wants_data``, a question asking for values): a shallow
  crawl of the result pages' own sites (:mod:`scholargraph.sources.web.crawl`).

What the reader should know (pages that needed a browser it did not have, news not searched) comes
back as notes for the review.

A search's hits are kept in the on-disk cache (see :mod:`scholargraph.http.cache`), so running
the same search again within a week asks DuckDuckGo nothing.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from typing import Any, ClassVar
from urllib.parse import unquote, urlencode, urlsplit

from ddgs import DDGS
from ddgs.engines.duckduckgo import Duckduckgo
from ddgs.exceptions import DDGSException, TimeoutException

from scholargraph.agents.schemas import Domain, Intent, NewsWindow
from scholargraph.errors import SourceError, SourceResponseError, SourceUnavailable
from scholargraph.http.cache import ResultStore, note_sent, recorded_request, result_store
from scholargraph.http.policy import Politeness, throttle
from scholargraph.records import Work
from scholargraph.settings import Settings
from scholargraph.sources.base import SearchRequest, SourceAgent, SourceResult
from scholargraph.sources.web.browser import PageRenderer
from scholargraph.sources.web.crawl import CrawlLimits, choose_links, crawled_work, dated
from scholargraph.sources.web.news import news_unavailable_reason, search_news, work_from_news
from scholargraph.sources.web.pages import PageFetcher, PageLimits, PageOutcome, RobotsCache
from scholargraph.wording import counted

log = logging.getLogger(__name__)

MAX_RESULT_PAGES = 5
"""Results pages asked of DuckDuckGo's HTML backend for one search (about 10 results each)."""
WEB_RESULTS_TABLE = "web_search"
GREY_LITERATURE = re.compile(
    r"\b(?:polic(?:y|ies)(?! gradients?| optimi[sz]ation| networks?| iteration| learning| "
    r"evaluation| search)|(?:government|federal|national|international|environmental|"
    r"financial|eu|european) regulations?|regulatory (?:frameworks?|approval|requirements?|"
    r"agenc(?:y|ies)|guidance)|legislation|directives?|guidelines?|government\w*|"
    r"ministr(?:y|ies)|software|(?:code|python|javascript|java|scraping|open[- ]source|client|"
    r"http|plotting|parsing|testing)\s+(?:librar(?:y|ies)|packages?|frameworks?|tools?)|"
    r"(?:web|rest|http|python) apis?|github|open[- ]source|documentation|best practices?)\b",
    re.IGNORECASE)
"""Key terms of a question whose answer is published on the web rather than in journals:
policy, regulation and guidelines (the texts of governments and agencies), and software (its
documentation, issues and guides). Before, such a question reached the web only when no field
claimed it: "EU policy on pesticide use" (biomedical) and "How do web scraping libraries handle
cookie consent banners?" (read as biomedical by its meaning) asked PubMed and OpenAlex alone.
"Libraries" alone are no software ("CRISPR libraries"), nor is regulation ("gene regulation"),
a learned policy ("policy gradient") or a law of nature ("scaling laws") a policy."""
_RUT_SUFFIX = re.compile(r"&rut=[0-9a-fA-F]+$")


class WebAgent(SourceAgent):
    """Web search through ddgs, with the main text of the top results where robots.txt allows."""

    name = "web"
    order = 50
    politeness = Politeness(
        requests=1,  # DuckDuckGo publishes none: one search a second (pages: per site, in http)
        official_hosts=("duckduckgo.com",),
        endpoint_envs=("SCHOLARGRAPH_DDG_URL", "SCHOLARGRAPH_WEB_MIRROR"))
    label = "Web"
    domains: ClassVar[frozenset[Domain]] = frozenset({"general"})
    query_syntax = "plain web search text: keywords or a short question, quotes for exact phrases"

    def __init__(self, settings: Settings | None = None, *, max_pages: int = 3,
                 page_limits: PageLimits | None = None, robots: RobotsCache | None = None,
                 backend: str = "auto", renderer: PageRenderer | None = None,
                 crawl: CrawlLimits | None = None) -> None:
        """``renderer``: a browser to share (the caller closes it); by default each search
        starts its own when a page needs one. ``crawl``: the shallow crawl's budget."""
        super().__init__(settings)
        self.max_pages = max_pages
        self.page_limits = page_limits or PageLimits()
        self.robots = robots
        self.backend = backend
        self.renderer = renderer
        self.crawl = crawl or CrawlLimits()

    def is_relevant(self, intent: Intent) -> bool:
        """General questions, any question about current events (news come from the web), and
        any question whose answer is published outside journals (:data:`GREY_LITERATURE`)."""
        return (super().is_relevant(intent) or intent.news_window is not None
                or bool(GREY_LITERATURE.search(" ".join(intent.keywords))))

    def _search(self, request: SearchRequest) -> SourceResult:
        settings = self.settings
        notes: list[str] = []
        hits = self._web_search(request.query, request.limit, settings, time_window(request))
        kept = [hit for hit in hits if not left_out(hit)]
        notes.extend(_left_out_note([reason for hit in hits if (reason := left_out(hit))]))
        works = _unique_by_url(work for hit in kept if (work := work_from_hit(hit)))
        works = works[: request.limit]
        news: list[Work] = []
        if request.news_window:
            news = self._news(request.query, request.limit, request.news_window, notes)
            works = _with_news(works, news)
        if self.max_pages > 0 and works:
            renderer = self.renderer or PageRenderer(settings)
            with nullcontext() if self.renderer else renderer:
                fetcher = PageFetcher(settings, limits=self.page_limits, robots=self.robots,
                                      renderer=renderer)
                works += self._read_pages(fetcher, works, news, request, notes)
        return SourceResult(works=works, notes=notes)

    def _read_pages(self, fetcher: PageFetcher, works: list[Work], news: list[Work],
                    request: SearchRequest, notes: list[str]) -> list[Work]:
        """Fill the top results' ``full_text``; the crawled works when the question wants data."""
        news_urls = {work.url for work in news}
        results = [work for work in works if work.url not in news_urls]
        top = results[: self.max_pages] + news[: self.max_pages]
        outcomes = fetcher.fetch_all([work.url for work in top if work.url])
        for work in works:
            outcome = outcomes.get(work.url or "")
            if outcome is not None and outcome.text:
                work.full_text = outcome.text
                dated(work, outcome.published)
        crawled: list[Work] = []
        if request.wants_data:
            crawled, crawl_outcomes = self._crawl(fetcher, list(outcomes.values()),
                                                  request.query, {w.url for w in works if w.url})
            outcomes.update(crawl_outcomes)
        notes.extend(_browser_notes(list(outcomes.values())))
        notes.extend(_wall_notes(list(outcomes.values())))
        return crawled

    def _crawl(self, fetcher: PageFetcher, pages: list[PageOutcome], query: str,
               known: set[str]) -> tuple[list[Work], dict[str, PageOutcome]]:
        """Depth 1: the chosen same-site links of the result pages, read within the budget."""
        links = choose_links([page for page in pages if page.status == "fetched"], query,
                             self.crawl, known, fetcher.allows)
        if not links:
            return [], {}
        outcomes = fetcher.fetch_all([link.url for link in links])
        works = [work for link in links if (work := crawled_work(link, outcomes[link.url]))]
        log.info("web: followed %d links from result pages, %d gave text", len(links), len(works))
        return works, outcomes

    def _news(self, query: str, limit: int, window: NewsWindow, notes: list[str]) -> list[Work]:
        """News works within ``window``; a failure of the news search is a note, not an error."""
        settings = self.settings
        reason = news_unavailable_reason(settings)
        if reason:
            notes.append(f"Web: {reason}")
            return []
        try:
            hits = search_news(query, limit, window, settings, self.backend)
        except SourceError as exc:
            notes.append(f"Web: the news search for {query!r} failed ({exc.message})")
            return []
        news = _unique_by_url(work for hit in hits if (work := work_from_news(hit)))
        if news:
            notes.append(f"Web: {len(news)} news results from the past {window} for {query!r}, "
                         "labelled [News]")
        return news

    def _web_search(self, query: str, limit: int, settings: Settings,
                    window: TimeWindow | None = None) -> list[dict[str, Any]]:
        """The search's hits, from the on-disk cache when this search was made lately.

        ddgs talks through primp, not requests, so its HTTP answers cannot be cached; the hits
        are (only when the search succeeded, and not when it found nothing).
        """
        store = result_store(settings, WEB_RESULTS_TABLE)
        key = ResultStore.key("ddgs", settings.ddg_url or self.backend, query, limit,
                              *([window.days] if window else []))
        cached = store.get(key) if store else None
        if cached is not None:
            return cached
        hits = self._ask_search_engine(query, limit, settings, window)
        if store and hits:
            store.put(key, hits)
        return hits

    def _ask_search_engine(self, query: str, limit: int, settings: Settings,
                           window: TimeWindow | None = None) -> list[dict[str, Any]]:
        timeout = max(1, round(settings.timeout_s))
        try:
            if settings.ddg_url:
                return _duckduckgo_html(query, limit, settings.ddg_url, timeout, settings,
                                        window.days if window else None)
            throttle(self.name, settings)
            span = window.span if window else None
            asked = {"q": query, "max_results": limit, "backend": self.backend,
                     "timelimit": span or ""}
            note_sent(f"ddgs text {urlencode(asked)}")  # ddgs picks the engines it asks
            return DDGS(timeout=timeout).text(query, max_results=limit, backend=self.backend,
                                              timelimit=span)
        except TimeoutException as exc:
            raise SourceUnavailable(self.name, "the web search timed out; try again later") from exc
        except DDGSException as exc:
            if str(exc) == "No results found.":
                return []
            raise SourceUnavailable(self.name, f"the web search failed ({exc})") from exc


class _ResultsPageDuckduckgo(Duckduckgo):
    """DuckDuckGo's HTML backend, refusing a body that is not a whole results page.

    ddgs parses whatever HTML it gets, so half a page would pass for a short one and a block or
    error page for "no results"; both are source errors, said as such in the search log.
    """

    def request(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) >= 2:
            form = kwargs.get("data") or kwargs.get("params") or {}
            note_sent(recorded_request(str(args[0]), str(args[1]), urlencode(form), ()))
        text = super().request(*args, **kwargs)
        if text is not None:
            check_results_page(text)
        return text


def check_results_page(text: str) -> None:
    """Raise :class:`SourceResponseError` unless ``text`` is a complete DuckDuckGo results page
    (it ends with ``</html>`` and holds the results list, even an empty one)."""
    if not text.rstrip().lower().endswith("</html>"):
        raise SourceResponseError(WebAgent.name, "DuckDuckGo's results page was cut off "
                                  "(the body ends before </html>)")
    if 'id="links"' not in text and "no-results" not in text:
        raise SourceResponseError(WebAgent.name, "DuckDuckGo answered with a page that is not a "
                                  "results page (a block or error page?)")


@dataclass(frozen=True)
class TimeWindow:
    """An update's window as the search engines take it: DuckDuckGo's own page a range of days
    (``df=2024-01-01..2024-03-31``), the backends ddgs picks one of a day, week, month or year
    (the shortest that covers the days; older than a year: the past year, so an update after
    a long pause may miss web pages, which deduplication would otherwise have caught)."""

    days: str
    span: str


def time_window(request: SearchRequest) -> TimeWindow | None:
    """The web's time window for an update's ``added_since``, or ``None`` for a review."""
    if request.added_since is None:
        return None
    until = request.added_until or request.added_since
    age = (until - request.added_since).days
    span = next((code for code, days in (("d", 1), ("w", 7), ("m", 31)) if age < days), "y")
    return TimeWindow(days=f"{request.added_since:%Y-%m-%d}..{until:%Y-%m-%d}", span=span)


def _duckduckgo_html(query: str, limit: int, url: str, timeout: int,
                     settings: Settings, days: str | None = None) -> list[dict[str, Any]]:
    """Results from DuckDuckGo's HTML backend at ``url``, page after page until ``limit``."""
    engine = _ResultsPageDuckduckgo(timeout=timeout)
    engine.search_url = url  # this instance only; the class attribute stays as ddgs ships it
    hits: dict[str, dict[str, Any]] = {}
    for page in range(1, MAX_RESULT_PAGES + 1):
        throttle(WebAgent.name, settings)
        results = engine.search(query, page=page, timelimit=days)
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


AD_LINKS = re.compile(r"^(?:(?:[\w-]+\.)?duckduckgo\.com/y\.js|(?:[\w-]+\.)?bing\.com/aclick|"
                      r"(?:[\w-]+\.)?googleadservices\.com/|(?:[\w-]+\.)?doubleclick\.net/)",
                      re.IGNORECASE)
"""Where a paid result's link goes (host and path, without the scheme): DuckDuckGo's ad
redirect (ddgs drops it only when written with ``https:``), the ad networks' click counters."""
VIDEO_HOSTS = frozenset(["youtube.com", "m.youtube.com", "youtu.be", "vimeo.com",
                         "tiktok.com", "dailymotion.com"])
"""Sites whose result pages are videos: nothing on them to quote but a description."""


MEME_HOSTS = frozenset(["knowyourmeme.com", "9gag.com", "imgflip.com", "memedroid.com",
                        "ifunny.co", "me.me", "memegenerator.net", "makeameme.org"])
"""Sites of memes: image jokes and their threads, not works a review can cite."""
THREAD_HOSTS = frozenset(["reddit.com", "old.reddit.com", "4chan.org", "boards.4chan.org",
                          "tumblr.com", "pinterest.com", "instagram.com", "facebook.com",
                          "x.com", "twitter.com"])
"""Forums and social sites, whose threads are memes when their title or address says so."""
MEME = re.compile(r"\bmemes?\b|/r/(?:\w*memes?\w*|funny|shitposting)\b", re.IGNORECASE)
CODE_HOSTS = frozenset(["raw.githubusercontent.com", "gist.github.com",
                        "gist.githubusercontent.com", "pastebin.com", "paste.ubuntu.com",
                        "hastebin.com", "codepen.io", "jsfiddle.net"])
"""Sites serving code listings and pastes rather than pages about them."""
CODE_FILE = re.compile(r"\.(?:py|ipynb|js|mjs|ts|java|c|cc|cpp|h|hpp|cs|go|rs|rb|sh|r|"
                       r"scala|kt|swift|m|jl|lua)$", re.IGNORECASE)
"""A path ending in a source file's extension: the file itself (GitHub's ``/blob/`` view of one
included), not a document. A repository's README, issues and documentation stay."""


def left_out(hit: dict[str, Any]) -> str | None:
    """Why a search result is no evidence to read ("ad", "video", "meme", "code listing"), or
    None to keep it. A meme thread or a source file found for "EU policy on pesticide use" or
    "how do web scraping libraries handle cookie banners" was screened as a work before, and
    kept when its words matched: it is neither a study nor a document a reviewer cites."""
    href = str(hit.get("href") or "")
    url = unwrap_redirect(href) or href
    target = url.split("//", 1)[-1]
    if AD_LINKS.match(target) or AD_LINKS.match(href.split("//", 1)[-1]):
        return "ad"
    parts = urlsplit(url)
    host = parts.netloc.lower().removeprefix("www.")
    if host in VIDEO_HOSTS:
        return "video"
    title = str(hit.get("title") or "")
    if host in MEME_HOSTS or (host in THREAD_HOSTS
                              and (MEME.search(title) or MEME.search(parts.path))):
        return "meme"
    if host in CODE_HOSTS or CODE_FILE.search(parts.path):
        return "code listing"
    return None


def _left_out_note(reasons: list[str]) -> list[str]:
    """One note saying which results were left out and why, so none goes missing silently."""
    if not reasons:
        return []
    counts = Counter(reasons)
    said = ", ".join(counted(n, reason) for reason, n in sorted(counts.items()))
    return [f"Web: left out {counted(len(reasons), 'search result')} as no work to "
            f"quote ({said})"]


def work_from_hit(hit: dict[str, Any]) -> Work | None:
    """A web work from one search result, or ``None`` when its link is unusable."""
    url = unwrap_redirect(str(hit.get("href") or ""))
    if url is None:
        return None
    host = urlsplit(url).netloc.lower().removeprefix("www.")
    title = str(hit.get("title") or "").strip() or host
    snippet = str(hit.get("body") or "").strip() or None
    return Work(kind="web", title=title, url=url, abstract=snippet, venue=host, sources=["web"])


def _with_news(works: list[Work], news: list[Work]) -> list[Work]:
    """Web results followed by the news; a result that is also news is replaced by its news
    work (outlet, day, label)."""
    by_url = {work.url: work for work in news}
    merged = [by_url.pop(work.url, work) for work in works]
    return merged + [work for work in news if work.url in by_url]


def _browser_notes(outcomes: list[PageOutcome]) -> list[str]:
    """One note per reason pages that needed a browser were not rendered."""
    reasons = [outcome.detail for outcome in outcomes if outcome.status == "needs_browser"]
    return [f"Web: {counted(count, 'page')} built by JavaScript kept only "
            f"{'their' if count > 1 else 'its'} search snippet: {reason}"
            for reason, count in Counter(reasons).items()]


def _wall_notes(outcomes: list[PageOutcome]) -> list[str]:
    """What the reader should know when result pages were walls, not the pages' text."""
    walled = sum(outcome.status == "walled" for outcome in outcomes)
    if not walled:
        return []
    their, keeps = ("their", "they keep their") if walled > 1 else ("its", "it keeps its")
    return [f"Web: {counted(walled, 'page')} showed a cookie, consent or sign-in wall instead of "
            f"{their} text; {keeps} search snippet"]


def _unique_by_url(works: Any) -> list[Work]:
    unique: dict[str, Work] = {}
    for work in works:
        unique.setdefault(work.url, work)
    return list(unique.values())
