"""Polite page fetching: robots.txt first, a size and time cap, and the main text only.

A page is fetched only when its site's robots.txt allows the project's user agent. A robots.txt
that is missing (404 or 410) allows everything; one that cannot be read for any other reason
(an error status, a timeout, a refused connection) means "do not fetch", since the site's wishes
are unknown. Rules are cached per site for an hour (:class:`RobotsCache`), and a ``Crawl-delay``
is honoured up to a limit (beyond it the page is skipped rather than the run held up).

Pages of different hosts are fetched concurrently, pages of one host one after another. Redirects
are followed only within the same host, so robots.txt is never side-stepped by a redirect.

A page whose HTML is a script shell (:func:`needs_browser`) is rendered in headless Chromium
(:mod:`scholargraph.sources.web.browser`) after the plain downloads, one page after another in the
caller's thread; the page's own requests go back through this fetcher, so robots.txt, the pace and
the caps hold for them too. Without a browser the page is left as ``needs_browser``.

Each fetched page also yields its title, the day it says it was published (its metadata only:
``article:published_time``, JSON-LD and the like, as trafilatura reads them; never a guess from
the text) and its links to the same host (``PageOutcome.links``), which the web agent's shallow
crawl chooses from. A page whose main text is a cookie, consent or sign-in wall
(:func:`is_wall`) is ``walled``: its text is not the page's, and is never kept as evidence.

Page text is untrusted input: it is stored as evidence to quote, never read as instructions.

Outcomes are kept in the on-disk cache (see :mod:`scholargraph.http.cache`) as extracted text,
not as HTTP responses: requests-cache would read a whole body to store it, past the size cap.

With ``settings.web_mirror`` set, ``https://host/path`` is fetched as ``{mirror}host/path``
(robots.txt too): a local web archive, or the replay server in tests and ``--offline`` runs.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from datetime import timedelta
from typing import Literal
from urllib.parse import urldefrag, urljoin, urlsplit

import lxml.html
import requests
from protego import Protego

from scholargraph.http.cache import EXPIRE_AFTER, ROBOTS_EXPIRE_AFTER, ResultStore, result_store
from scholargraph.http.policy import throttle
from scholargraph.settings import Settings
from scholargraph.sources.web.browser import PageRenderer, RenderFailed, Subresource

log = logging.getLogger(__name__)

FetchStatus = Literal[
    "fetched", "disallowed", "robots_unavailable", "failed", "not_html", "empty", "too_slow",
    "needs_browser", "walled",
]
"""``needs_browser``: a script shell that could not be rendered; ``detail`` says why not."""
ROBOTS_MISSING = (404, 410)
ROBOTS_MAX_BYTES = 512 * 1024
ROBOTS_MAX_REDIRECTS = 5
TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
MAX_REDIRECTS = 3
MAX_HOST_WORKERS = 4
SHELL_MAX_WORDS = 40
"""A page with scripts and fewer visible words than this (scripts, styles, ``<noscript>`` and
``<template>`` aside) is a script shell: its text is written by JavaScript."""
MAX_LINKS = 300
"""Same-host links kept per page, in page order (the crawl chooses among them)."""
INVISIBLE = "//script|//style|//noscript|//template"
PAGES_TABLE = "web_pages"
CACHED_OUTCOMES: dict[str, timedelta] = {
    "fetched": EXPIRE_AFTER,
    "empty": EXPIRE_AFTER,
    "not_html": EXPIRE_AFTER,
    "walled": EXPIRE_AFTER,
    "disallowed": ROBOTS_EXPIRE_AFTER,
}
"""Outcomes kept in the on-disk cache, and for how long; failures to read are asked again."""


@dataclass(frozen=True)
class PageLimits:
    """How much of the web one search may read."""

    max_bytes: int = 2_000_000
    """Bytes read per page; the rest of a longer page is not downloaded."""
    max_seconds: float = 15.0
    """Wall time per page download, all chunks included."""
    max_crawl_delay_s: float = 5.0
    """Longest ``Crawl-delay`` waited for; a site asking for more is skipped."""
    render_seconds: float = 10.0
    """Wall time per rendered page in the headless browser, its own requests included."""


@dataclass(frozen=True)
class PageOutcome:
    """What happened to one URL: its main text when fetched, otherwise why not."""

    url: str
    status: FetchStatus
    text: str | None = None
    detail: str = ""
    truncated: bool = False
    title: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    """Links to the same host: absolute URL (no fragment) -> anchor text, in page order."""
    rendered: bool = False
    """Whether the text was read from the DOM after the page's scripts ran."""
    published: str | None = None
    """The day the page's metadata says it was published (ISO 8601), where it says so."""


@dataclass(frozen=True)
class RobotsRules:
    """A site's robots.txt, or a refusal when it could not be read."""

    parser: Protego | None
    reason: str = ""

    def allows(self, url: str, user_agent: str) -> bool:
        return self.parser is not None and self.parser.can_fetch(url, user_agent)

    def crawl_delay(self, user_agent: str) -> float:
        if self.parser is None:
            return 0.0
        return float(self.parser.crawl_delay(user_agent) or 0.0)


class RobotsCache:
    """robots.txt rules per site (scheme + host), read once per ``ttl_s``, shared by threads."""

    def __init__(self, ttl_s: float = 3600.0) -> None:
        self._ttl_s = ttl_s
        self._entries: dict[str, tuple[float, RobotsRules]] = {}
        self._site_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def rules(self, site: str, read: Callable[[], RobotsRules]) -> RobotsRules:
        """The rules of ``site`` (``https://host``); ``read`` fetches them when not cached."""
        with self._lock:
            site_lock = self._site_locks.setdefault(site, threading.Lock())
        with site_lock:
            cached = self._entries.get(site)
            if cached and time.monotonic() - cached[0] < self._ttl_s:
                return cached[1]
            rules = read()
            self._entries[site] = (time.monotonic(), rules)
            return rules


DEFAULT_ROBOTS_CACHE = RobotsCache()


class PageFetcher:
    """Fetches pages politely and extracts their main text (see the module docstring).

    ``renderer`` renders script shells; without one they stay ``needs_browser``.
    """

    def __init__(self, settings: Settings, *, limits: PageLimits | None = None,
                 robots: RobotsCache | None = None, renderer: PageRenderer | None = None) -> None:
        self.settings = settings
        self.limits = limits or PageLimits()
        self.robots = robots or DEFAULT_ROBOTS_CACHE
        self.renderer = renderer
        self._shells: dict[str, bytes] = {}

    def location(self, url: str) -> str:
        """Where ``url`` is actually requested: itself, or its copy under the web mirror."""
        mirror = self.settings.web_mirror
        if not mirror:
            return url
        parts = urlsplit(url)
        query = f"?{parts.query}" if parts.query else ""
        return f"{mirror.rstrip('/')}/{parts.netloc}{parts.path or '/'}{query}"

    def _throttle(self, url: str) -> None:
        """Pace requests per host actually contacted: each site, or the one mirror ("web")."""
        if self.settings.web_mirror:
            throttle("web", self.settings)
        else:
            throttle(f"web:{urlsplit(url).netloc.lower()}", self.settings)

    def fetch_all(self, urls: list[str]) -> dict[str, PageOutcome]:
        """Outcome per URL; hosts in parallel, each host's pages in order, then the script
        shells rendered one after another in this thread.

        Outcomes read within the cache's expiry are reused without asking the site again.
        """
        store = result_store(self.settings, PAGES_TABLE)
        outcomes = {url: PageOutcome(url, "failed", detail="not an http(s) URL") for url in urls}
        by_site: dict[str, list[str]] = {}
        for url in dict.fromkeys(urls):
            parts = urlsplit(url)
            if not (parts.scheme in ("http", "https") and parts.netloc):
                continue
            cached = store.get(self._cache_key(url)) if store else None
            if cached is not None:
                outcomes[url] = PageOutcome(**cached)
                continue
            by_site.setdefault(_site(url), []).append(url)
        if not by_site:
            return outcomes
        fresh: list[PageOutcome] = []
        workers = min(MAX_HOST_WORKERS, len(by_site))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pages") as pool:
            for site_outcomes in pool.map(self._fetch_site, by_site.items()):
                fresh.extend(site_outcomes)
        fresh = [self._render(outcome) if outcome.status == "needs_browser" else outcome
                 for outcome in fresh]
        outcomes.update({outcome.url: outcome for outcome in fresh})
        if store:
            self._keep(store, fresh)
        return outcomes

    def _cache_key(self, url: str) -> str:
        # The mirror is part of the key: a page read from a mirror never stands in for the site.
        return ResultStore.key("page", url, self.settings.web_mirror, self.limits.max_bytes,
                               self.settings.user_agent)

    def _keep(self, store: ResultStore, outcomes: list[PageOutcome]) -> None:
        """Store the outcomes that describe the page, not a passing failure to read it."""
        for outcome in outcomes:
            expiry = CACHED_OUTCOMES.get(outcome.status)
            if expiry is not None:
                store.put(self._cache_key(outcome.url), asdict(outcome), expiry)

    def _fetch_site(self, item: tuple[str, list[str]]) -> list[PageOutcome]:
        site, urls = item
        session = _page_session(self.settings)
        user_agent = self.settings.user_agent
        try:
            rules = self.robots.rules(site, lambda: self._read_robots(site, session))
            delay = rules.crawl_delay(user_agent)
            outcomes = []
            for url in urls:
                if rules.parser is None:
                    outcomes.append(PageOutcome(url, "robots_unavailable", detail=rules.reason))
                elif not rules.allows(url, user_agent):
                    outcomes.append(PageOutcome(url, "disallowed", detail="robots.txt disallows"))
                elif delay > self.limits.max_crawl_delay_s:
                    outcomes.append(PageOutcome(url, "too_slow",
                                                detail=f"Crawl-delay {delay:g}s is too long"))
                else:
                    time.sleep(delay)
                    outcomes.append(self._fetch_page(url, rules, session))
            for outcome in outcomes:
                log.info("web page %s: %s%s %s", outcome.url, outcome.status,
                         " (truncated)" if outcome.truncated else "", outcome.detail)
            return outcomes
        finally:
            session.close()

    def allows(self, url: str) -> bool:
        """Whether robots.txt lets the project's user agent fetch ``url`` (read if not cached)."""
        with _page_session(self.settings) as session:
            return self._rules(url, session).allows(url, self.settings.user_agent)

    def _rules(self, url: str, session: requests.Session) -> RobotsRules:
        site = _site(url)
        return self.robots.rules(site, lambda: self._read_robots(site, session))

    def _read_robots(self, site: str, session: requests.Session) -> RobotsRules:
        """A site's rules; redirects are followed (up to five, as RFC 9309 asks) via the mirror."""
        url = f"{site}/robots.txt"
        timeout = self.settings.timeout_s
        try:
            for _ in range(ROBOTS_MAX_REDIRECTS + 1):
                self._throttle(url)
                response = session.get(self.location(url), stream=True, allow_redirects=False,
                                       timeout=timeout)
                with response:
                    if response.is_redirect:
                        url = urljoin(url, response.headers.get("Location", ""))
                        continue
                    if response.status_code in ROBOTS_MISSING:
                        return RobotsRules(Protego.parse(""))
                    if response.status_code != 200:
                        return RobotsRules(None, f"robots.txt answered {response.status_code}")
                    body, _ = _read_capped(response, ROBOTS_MAX_BYTES, time.monotonic() + timeout)
                    return RobotsRules(Protego.parse(body.decode("utf-8", errors="replace")))
        except (_Skip, requests.RequestException, OSError) as exc:
            return RobotsRules(None, f"robots.txt unreadable ({type(exc).__name__})")
        return RobotsRules(None, "robots.txt redirects too often")

    def _fetch_page(self, url: str, rules: RobotsRules, session: requests.Session) -> PageOutcome:
        try:
            final_url, body, content_type, truncated = self._download(url, rules, session)
        except _Skip as skip:
            return PageOutcome(url, skip.status, detail=skip.detail)
        except (requests.RequestException, OSError) as exc:
            return PageOutcome(url, "failed", detail=type(exc).__name__)
        if content_type == "text/plain":
            text = body.decode("utf-8", errors="replace").strip() or None
            return _outcome(url, text, truncated=truncated)
        page = read_html(body, final_url)
        if needs_browser(page):
            self._shells[url] = body
            return PageOutcome(url, "needs_browser", text=page.text, title=page.title,
                               links=page.links, truncated=truncated,
                               detail=f"a script shell ({page.visible_words} visible words)")
        return _outcome(url, page.text, title=page.title, links=page.links, truncated=truncated,
                        published=page.published)

    def _download(self, url: str, rules: RobotsRules,
                  session: requests.Session) -> tuple[str, bytes, str, bool]:
        """The final URL and the page's first ``max_bytes``, following same-host redirects that
        robots allow."""
        deadline = time.monotonic() + self.limits.max_seconds
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            self._throttle(current)
            response = session.get(self.location(current), stream=True, allow_redirects=False,
                                   timeout=min(self.settings.timeout_s, self.limits.max_seconds))
            with response:
                if response.is_redirect:
                    current = _same_site_redirect(current, response.headers.get("Location", ""))
                    if not rules.allows(current, self.settings.user_agent):
                        raise _Skip("disallowed", "redirects to a path robots.txt disallows")
                    continue
                if response.status_code != 200:
                    raise _Skip("failed", f"HTTP {response.status_code}")
                content_type = response.headers.get("Content-Type", "").split(";")[0].strip()
                if content_type and content_type.lower() not in TEXT_TYPES:
                    raise _Skip("not_html", content_type)
                body, truncated = _read_capped(response, self.limits.max_bytes, deadline)
                return current, body, content_type.lower(), truncated
        raise _Skip("failed", "too many redirects")

    def _render(self, shell: PageOutcome) -> PageOutcome:
        """The shell's text after its scripts ran, or the shell itself saying why not."""
        body = self._shells.pop(shell.url, b"")
        if self.renderer is None:
            return replace(shell, detail="no browser was given to render it")
        seconds = self.limits.render_seconds
        deadline = time.monotonic() + seconds
        session = _page_session(self.settings)
        try:
            html = self.renderer.render(
                shell.url, body, lambda url: self._subresource(url, session, deadline), seconds)
        except RenderFailed as exc:
            log.warning("web page %s is %s and was not rendered: %s", shell.url, shell.detail,
                        exc)
            return replace(shell, detail=str(exc))
        finally:
            session.close()
        dom = html.encode("utf-8")
        page = read_html(dom[: self.limits.max_bytes], shell.url)
        log.info("web page %s: rendered, %d words of main text", shell.url,
                 len((page.text or "").split()))
        outcome = _outcome(shell.url, page.text, title=page.title, links=page.links,
                           truncated=len(dom) > self.limits.max_bytes, published=page.published)
        return replace(outcome, rendered=True)

    def _subresource(self, url: str, session: requests.Session,
                     deadline: float) -> Subresource | None:
        """One of a rendered page's own requests, under the page rules: robots.txt, the pace,
        the size cap, and the rendering's ``deadline``; redirects are handed back to the browser,
        which asks again."""
        if not self._rules(url, session).allows(url, self.settings.user_agent):
            return None
        self._throttle(url)
        seconds_left = min(deadline - time.monotonic(), self.limits.max_seconds)
        if seconds_left <= 0:
            return None
        try:
            response = session.get(self.location(url), stream=True, allow_redirects=False,
                                   timeout=min(self.settings.timeout_s, seconds_left))
            with response:
                body, _ = _read_capped(response, self.limits.max_bytes,
                                       time.monotonic() + seconds_left)
        except (_Skip, requests.RequestException, OSError) as exc:
            log.info("rendered page's request %s refused: %s", url, type(exc).__name__)
            return None
        headers = {key: value for key, value in response.headers.items()
                   if key.lower() in ("content-type", "location", "cache-control")}
        return Subresource(response.status_code, body, headers)


class _Skip(Exception):
    """A page that is not read, and why (internal to this module)."""

    def __init__(self, status: FetchStatus, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def _read_capped(response: requests.Response, max_bytes: int,
                 deadline: float) -> tuple[bytes, bool]:
    """At most ``max_bytes`` of the body, read before ``deadline``; and whether it was cut."""
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_content(chunk_size=64 * 1024):
        if time.monotonic() > deadline:
            raise _Skip("too_slow", "download exceeded its time cap")
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            return b"".join(chunks)[:max_bytes], True
    return b"".join(chunks), False


@dataclass(frozen=True)
class HtmlPage:
    """What a page's HTML offers: its main text, title, same-host links, and the evidence for
    :func:`needs_browser`."""

    text: str | None
    title: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    visible_words: int = 0
    scripts: int = 0
    published: str | None = None


def read_html(body: bytes, url: str) -> HtmlPage:
    """Main text (trafilatura), title and same-host links of an HTML page at ``url``.

    The text is what a browser running scripts shows: ``<noscript>`` fallbacks are left out.
    trafilatura is imported by the first page read, not with the graph.
    """
    import trafilatura

    document = trafilatura.load_html(body)
    if document is None:
        return HtmlPage(text=None)
    title = " ".join((document.findtext(".//title") or "").split()) or None
    published = published_day(document, url)
    links = same_host_links(document, url)
    scripts = len(document.xpath("//script"))
    for element in document.xpath(INVISIBLE):
        element.drop_tree()
    visible = len(document.text_content().split())
    text = trafilatura.extract(document, url=url, include_comments=False, include_tables=True)
    return HtmlPage(text=text, title=title, links=links, visible_words=visible, scripts=scripts,
                    published=published)


def published_day(document: lxml.html.HtmlElement, url: str) -> str | None:
    """The day the page's own metadata gives for its publication (``YYYY-MM-DD``), else None.

    trafilatura reads it (through htmldate) from the page's meta tags, JSON-LD and ``<time>``
    elements, without its extensive search of the text, so a date in a sentence or a copyright
    line is not taken for the page's."""
    import trafilatura

    try:
        metadata = trafilatura.extract_metadata(document, default_url=url)
    except Exception:  # noqa: BLE001 - a page's metadata is optional; any failure means none
        return None
    day = getattr(metadata, "date", None) if metadata is not None else None
    return day if isinstance(day, str) and ISO_DAY.fullmatch(day) else None


ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
WALL_CUES = re.compile(
    r"\b(?:we use cookies|cookie (?:settings|preferences|policy)|accept all(?: cookies)?|"
    r"reject all|manage (?:preferences|cookies|choices)|privacy settings|consent to|"
    r"personali[sz]ed (?:ads|advertising|content)|before you continue|"
    r"(?:sign|log) in to (?:continue|read)|subscribe to (?:continue|read)|"
    r"(?:this (?:article|content) is )?(?:only )?(?:available|for) (?:to )?subscribers|"
    r"enable javascript and cookies)\b", re.IGNORECASE)
"""What a cookie, consent, sign-in or subscription wall says, in the wording sites use."""
WALL_MAX_WORDS = 150
"""A main text longer than this is an article, whatever cookie notice it carries."""
WALL_MIN_CUES = 2
"""Distinct wall phrases a short main text needs to be a wall: one alone ("consent to" in an
article on consent) is not enough."""


def is_wall(text: str) -> bool:
    """Whether a page's main text is a wall standing in front of it (cookie consent, sign-in,
    subscription): short, and saying at least two of the things walls say. Its text is no
    evidence on anything a question asks; the result keeps its search snippet instead."""
    if len(text.split()) > WALL_MAX_WORDS:
        return False
    return len({m.group(0).lower() for m in WALL_CUES.finditer(text)}) >= WALL_MIN_CUES


def needs_browser(page: HtmlPage) -> bool:
    """Whether a page is a script shell: it has scripts, and its HTML shows no main text or
    fewer than :data:`SHELL_MAX_WORDS` visible words."""
    return page.scripts > 0 and (not page.text or page.visible_words < SHELL_MAX_WORDS)


def same_host_links(document: lxml.html.HtmlElement, url: str) -> dict[str, str]:
    """The page's links to its own host (fragments dropped, itself left out) -> anchor text."""
    base_element = document.find(".//base[@href]")
    base = urljoin(url, base_element.get("href")) if base_element is not None else url
    host = urlsplit(url).netloc.lower()
    links: dict[str, str] = {}
    for anchor in document.iter("a"):
        href = (anchor.get("href") or "").strip()
        if not href:
            continue
        target = urldefrag(urljoin(base, href)).url
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or parts.netloc.lower() != host:
            continue
        if target == urldefrag(url).url or target in links:
            continue
        label = anchor.text_content() or anchor.get("title") or anchor.get("aria-label") or ""
        links[target] = " ".join(label.split())[:200]
        if len(links) >= MAX_LINKS:
            break
    return links


def _outcome(url: str, text: str | None, *, title: str | None = None,
             links: dict[str, str] | None = None, truncated: bool = False,
             published: str | None = None) -> PageOutcome:
    if not text:
        return PageOutcome(url, "empty", detail="no main text found", truncated=truncated,
                           title=title, links=links or {})
    if is_wall(text):
        return PageOutcome(url, "walled", detail="a cookie, consent or sign-in wall",
                           truncated=truncated, title=title)
    return PageOutcome(url, "fetched", text=text, truncated=truncated, title=title,
                       links=links or {}, published=published)


def _site(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.lower()}"


def _same_site_redirect(current: str, location: str) -> str:
    target = urljoin(current, location)
    if urlsplit(target).netloc.lower() != urlsplit(current).netloc.lower():
        raise _Skip("failed", f"redirects to another site ({urlsplit(target).netloc})")
    return target


def _page_session(settings: Settings) -> requests.Session:
    """A plain session with one attempt per request.

    Not :func:`~scholargraph.http.policy.http_session`: its retries would re-ask a failing
    robots.txt (which is read as "do not fetch" anyway) and it paces one service, while pages are
    paced per host by :meth:`PageFetcher._throttle`. A page is optional evidence: no retries.
    """
    session = requests.Session()
    session.headers["User-Agent"] = settings.user_agent
    return session
