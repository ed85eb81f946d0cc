"""Headless rendering of pages whose text is written by JavaScript: Playwright driving the system's
Chromium (Debian's ``chromium`` package; Playwright's own browser download is never used).

Which Chromium: ``SCHOLARGRAPH_CHROMIUM`` (a path or a command name; ``none`` turns rendering
off), else ``/usr/bin/chromium``, else ``chromium`` or ``chromium-browser`` on ``PATH``. When
neither the browser nor the ``playwright`` package (the ``browser`` extra) is installed,
:meth:`PageRenderer.unavailable_reason` says so and nothing is rendered: the page keeps its search
snippet and the review gets a note on how to install them.

What a rendering may touch. The browser is told it is at the page's real address, and every
request the page makes is intercepted (Playwright route interception):

- the page itself is served from the bytes already downloaded (no second request);
- other GET requests to the same host are fetched by the caller (``fetch``), which applies
  robots.txt, the per-host pace, the size cap and the web mirror, so tests never leave the
  replay server;
- requests to any other host, non-GET requests, WebSockets and service workers are refused.

Every page has a time cap: what the DOM holds when it runs out (or when the network has been idle)
is what is read. One browser serves all the pages of a search; it is launched on the first page
that needs it and must be used from the thread that launched it (Playwright's sync API).
"""

from __future__ import annotations

import importlib.util
import logging
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urldefrag, urlsplit

from scholargraph.settings import Settings

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright, Route, WebSocketRoute

log = logging.getLogger(__name__)

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser")
CHROMIUM_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync",
)
"""Headless, no GPU, and none of the browser's own traffic (updates, sync, field trials)."""
INSTALL_HINT = ("install Debian's chromium (apt-get install chromium) and the browser extra "
                "(pip install 'scholargraph[browser]'), or set SCHOLARGRAPH_CHROMIUM")
READ_METHODS = frozenset({"GET", "HEAD"})
LAUNCH_SECONDS = 30.0


@dataclass(frozen=True)
class Subresource:
    """The answer to one of the page's own requests, as the caller fetched it."""

    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


SubresourceFetch = Callable[[str], Subresource | None]
"""Fetch one same-host URL for the page; ``None`` refuses it (robots.txt, too slow, failed)."""


class RenderFailed(Exception):
    """A page could not be rendered; the message says why (internal to the web tools)."""


def find_chromium(settings: Settings) -> str | None:
    """The Chromium executable to use, or ``None`` when there is none (or rendering is off)."""
    configured = settings.chromium
    if configured is not None:
        if configured.strip().lower() == "none":
            return None
        return shutil.which(configured)
    return next(filter(None, map(shutil.which, CHROMIUM_CANDIDATES)), None)


def playwright_installed() -> bool:
    return importlib.util.find_spec("playwright") is not None


class PageRenderer:
    """One headless Chromium, launched on first use, for the pages of a search; ``close()`` it.

    Use it as a context manager, or close it yourself (a test module shares one this way).
    """

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._failed: str | None = None

    def unavailable_reason(self) -> str | None:
        """Why pages cannot be rendered here, with what to do; ``None`` when they can."""
        if self._failed:
            return self._failed
        if (self.settings.chromium or "").strip().lower() == "none":
            return "rendering is turned off (SCHOLARGRAPH_CHROMIUM=none)"
        if find_chromium(self.settings) is None:
            where = self.settings.chromium or " or ".join(CHROMIUM_CANDIDATES)
            return f"no Chromium found at {where}; {INSTALL_HINT}"
        if not playwright_installed():
            return f"the playwright package is not installed; {INSTALL_HINT}"
        return None

    def render(self, url: str, document: bytes, fetch: SubresourceFetch, seconds: float) -> str:
        """The page's DOM (HTML) after its scripts ran, read at the latest ``seconds`` after the
        page was opened (``fetch`` should keep to that time too).

        Raises :class:`RenderFailed` when the browser is missing, will not start, or the page
        does not load in time.
        """
        from playwright.sync_api import Error as PlaywrightError

        reason = self.unavailable_reason()
        if reason:
            raise RenderFailed(reason)
        try:
            context = self._launched().new_context(
                user_agent=self.settings.user_agent, service_workers="block")
        except PlaywrightError as exc:
            raise RenderFailed(f"the browser could not open a page ({_first_line(exc)})") from exc
        deadline = time.monotonic() + seconds
        try:
            page = context.new_page()
            guard = _Guard(url, document, fetch)
            page.route("**/*", guard.handle)
            page.route_web_socket(re.compile(".*"), _refuse_web_socket)
            return _rendered_html(page, url, deadline)
        except PlaywrightError as exc:
            raise RenderFailed(f"the page did not render ({_first_line(exc)})") from exc
        finally:
            context.close()

    def _launched(self) -> Browser:
        """The browser, started now if it is not running; a launch failure is remembered."""
        if self._browser is not None:
            return self._browser
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright

        executable = find_chromium(self.settings)
        try:
            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=executable, args=list(CHROMIUM_ARGS),
                timeout=LAUNCH_SECONDS * 1000)
        except (PlaywrightError, OSError) as exc:
            self.close()
            self._failed = f"Chromium at {executable} did not start ({_first_line(exc)})"
            raise RenderFailed(self._failed) from exc
        log.info("started headless Chromium %s (%s)", self._browser.version, executable)
        return self._browser

    def close(self) -> None:
        """Stop the browser (if it was started); the renderer may be used again after."""
        if self._browser is not None:
            self._browser.close()
            self._browser = None
        if self._playwright is not None:
            self._playwright.stop()
            self._playwright = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Guard:
    """Answers the page's requests: the document from memory, same-host GETs through ``fetch``,
    everything else refused."""

    def __init__(self, url: str, document: bytes, fetch: SubresourceFetch) -> None:
        self.url = urldefrag(url).url
        self.host = urlsplit(url).netloc.lower()
        self.document = document
        self.fetch = fetch
        self.refused: list[str] = []

    def handle(self, route: Route) -> None:
        request = route.request
        target = urldefrag(request.url).url
        if urlsplit(target).netloc.lower() != self.host or request.method not in READ_METHODS:
            self.refused.append(target)
            route.abort("blockedbyclient")
            return
        if target == self.url and request.is_navigation_request():
            route.fulfill(status=200, body=self.document, content_type="text/html")
            return
        answer = self.fetch(target)
        if answer is None:
            self.refused.append(target)
            route.abort("blockedbyclient")
            return
        route.fulfill(status=answer.status, body=answer.body, headers=answer.headers)


def _refuse_web_socket(socket: WebSocketRoute) -> None:
    """Never connect a page's WebSocket: close it before it reaches any server."""
    socket.close(code=1008, reason="scholargraph renders pages offline")


def _rendered_html(page: Page, url: str, deadline: float) -> str:
    """Load the page, let its requests settle until the deadline, and read the DOM."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(url, wait_until="load", timeout=_ms_left(deadline))
    try:
        page.wait_for_load_state("networkidle", timeout=_ms_left(deadline))
    except PlaywrightTimeout:
        log.info("rendering %s: network still busy at the time cap; reading the DOM as it is", url)
    return page.content()


def _ms_left(deadline: float) -> float:
    return max(1.0, (deadline - time.monotonic()) * 1000)


def _first_line(exc: Any) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__
