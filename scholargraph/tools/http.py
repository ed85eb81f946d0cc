"""The HTTP policy every source agent shares: rate limits, retries, timeouts, redirects and secrets.

One limiter per service for the whole process, so two agents (or two threads) talking to the same
service share its allowance. Rates are the services' published limits (see SOURCES.md). Every
request sent through :func:`http_session` waits for that limiter (retries included), carries a
timeout, and is retried a bounded number of times on 429, 5xx, timeouts and dropped connections,
with exponential backoff and jitter, honouring ``Retry-After``.

``SCHOLARGRAPH_RATE_SCALE`` (a float, e.g. ``100``) multiplies the rates and divides the backoff
for endpoints that are not the official service (a mirror, the loopback replay server), so tests
need not wait three seconds between arXiv pages. Against an official host it is ignored, with a
warning: politeness towards the real services is not negotiable.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from email.utils import parsedate_to_datetime
from urllib.error import URLError
from urllib.parse import urlsplit

import requests
from pyrate_limiter import Duration, Limiter, Rate
from requests.adapters import HTTPAdapter

from scholargraph.errors import SourceError, SourceResponseError, SourceUnavailable
from scholargraph.settings import Settings
from scholargraph.tools.cache import new_session

log = logging.getLogger(__name__)

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 60.0
RATE_SCALE_ENV = "SCHOLARGRAPH_RATE_SCALE"

# Host suffixes of the real services: a rate scale never applies to these.
OFFICIAL_HOSTS: dict[str, tuple[str, ...]] = {
    "pubmed": ("ncbi.nlm.nih.gov",),
    "arxiv": ("arxiv.org",),
    "openalex": ("openalex.org",),
    "materials": ("materialsproject.org",),
    "web": ("duckduckgo.com",),
}


@dataclass(frozen=True)
class ServicePolicy:
    """How politely to talk to one service."""

    name: str
    rates: tuple[Rate, ...]
    max_retries: int = 3
    backoff_s: float = 1.0
    scale: float = 1.0


def _policies(settings: Settings) -> dict[str, ServicePolicy]:
    ncbi_per_second = 10 if settings.ncbi_api_key else 3
    return {
        "pubmed": ServicePolicy("pubmed", (Rate(ncbi_per_second, Duration.SECOND),)),
        "arxiv": ServicePolicy("arxiv", (Rate(1, Duration.SECOND * 3),)),
        "openalex": ServicePolicy("openalex", (Rate(10, Duration.SECOND),)),
        "materials": ServicePolicy("materials", (Rate(5, Duration.SECOND),)),
        "web": ServicePolicy("web", (Rate(1, Duration.SECOND),)),
    }


def _endpoints(service: str, settings: Settings) -> list[str | None]:
    """The URLs ``service`` talks to; ``None`` stands for the live service chosen by its client.

    ``web:<host>`` (per-site page fetching) talks to the web mirror when one is set.
    """
    if service.startswith("web:"):
        return [settings.web_mirror]
    return {
        "pubmed": [settings.pubmed_url],
        "arxiv": [settings.arxiv_url],
        "openalex": [settings.openalex_url],
        "materials": [settings.mp_url],
        "web": [settings.ddg_url, settings.web_mirror],
    }.get(service, [None])


def _is_official(url: str | None, service: str) -> bool:
    if url is None:
        return True
    host = (urlsplit(url).hostname or "").lower()
    return any(host == suffix or host.endswith("." + suffix)
               for suffix in OFFICIAL_HOSTS.get(service.split(":")[0], ()))


def talks_to_official(service: str, settings: Settings | None = None) -> bool:
    """Whether ``service`` is configured to reach the real service (not a mirror or replay)."""
    settings = settings or Settings()
    return any(_is_official(url, service) for url in _endpoints(service, settings))


_warned_scale: set[str] = set()


def rate_scale(service: str, settings: Settings | None = None) -> float:
    """The ``SCHOLARGRAPH_RATE_SCALE`` in force for ``service`` (1.0 against official hosts)."""
    raw = os.environ.get(RATE_SCALE_ENV)
    if not raw:
        return 1.0
    try:
        scale = float(raw)
    except ValueError:
        log.warning("%s=%r is not a number; ignored", RATE_SCALE_ENV, raw)
        return 1.0
    if scale <= 0:
        log.warning("%s must be positive; ignored", RATE_SCALE_ENV)
        return 1.0
    settings = settings or Settings()
    if any(_is_official(url, service) for url in _endpoints(service, settings)):
        if service not in _warned_scale:
            _warned_scale.add(service)
            log.warning("%s ignored for %s: it talks to the official service", RATE_SCALE_ENV,
                        service)
        return 1.0
    return scale


def _scaled(rate: Rate, scale: float) -> Rate:
    return Rate(rate.limit, max(1, round(rate.interval / scale)))


def policy(service: str, settings: Settings | None = None) -> ServicePolicy:
    """The politeness rules for ``service``, with the rate scale applied where it may be."""
    settings = settings or Settings()
    rules = _policies(settings).get(service) or ServicePolicy(service, (Rate(2, Duration.SECOND),))
    scale = rate_scale(service, settings)
    if scale == 1.0:
        return rules
    return replace(rules, rates=tuple(_scaled(rate, scale) for rate in rules.rates), scale=scale)


_limiters: dict[tuple[str, tuple[tuple[int, int], ...]], Limiter] = {}
_limiters_lock = threading.Lock()


def limiter(service: str, settings: Settings | None = None) -> Limiter:
    """The process-wide limiter of ``service`` (a new one only when its rates change)."""
    rates = policy(service, settings).rates
    key = (service, tuple((rate.limit, rate.interval) for rate in rates))
    with _limiters_lock:
        if key not in _limiters:
            _limiters[key] = Limiter(list(rates))
        return _limiters[key]


def throttle(service: str, settings: Settings | None = None) -> None:
    """Block until ``service``'s rate limit allows one more request."""
    limiter(service, settings).try_acquire(service, blocking=True)


def backoff_delay(rules: ServicePolicy, attempt: int) -> float:
    """Seconds before retry number ``attempt + 1``: exponential, jittered, scaled for mirrors."""
    return rules.backoff_s * (2**attempt) * random.uniform(0.5, 1.5) / rules.scale


def retry_after_s(response: requests.Response) -> float | None:
    """The ``Retry-After`` of a response in seconds (it may be a number or an HTTP date)."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


Timeout = float | tuple[float | None, float | None] | None


def bounded_timeout(asked: Timeout, limit: float) -> Timeout:
    """The timeout a client asked for, never longer than ``limit`` (SCHOLARGRAPH_TIMEOUT).

    Clients bring their own (mp_api asks 20 s); the project's timeout bounds them all, so a
    hanging service costs the same whichever client talks to it.
    """
    if asked is None:
        return limit
    if isinstance(asked, tuple):
        return tuple(limit if part is None else min(part, limit) for part in asked)  # type: ignore[return-value]
    return min(asked, limit)


class PoliteAdapter(HTTPAdapter):
    """Sends each request when the service's limiter allows it, with a timeout, retried if retryable.

    Retries live here rather than in urllib3 so that every attempt, not only the first, waits for
    the limiter. The timeout is the client's, bounded by the settings' (:func:`bounded_timeout`). ``rewrite`` maps a URL prefix the client hard-codes to the endpoint in force.
    """

    def __init__(self, service: str, settings: Settings,
                 rewrite: tuple[str, str] | None = None) -> None:
        super().__init__(max_retries=0)
        self._service = service
        self._settings = settings
        self._rewrite = rewrite

    def send(self, request, **kwargs):  # type: ignore[no-untyped-def, override]
        kwargs["timeout"] = bounded_timeout(kwargs.get("timeout"), self._settings.timeout_s)
        if self._rewrite and request.url.startswith(self._rewrite[0]):
            request.url = self._rewrite[1] + request.url[len(self._rewrite[0]):]
        rules = policy(self._service, self._settings)
        for attempt in range(rules.max_retries + 1):
            throttle(self._service, self._settings)
            last = attempt == rules.max_retries
            try:
                response = super().send(request, **kwargs)
            except (requests.ConnectionError, requests.Timeout) as exc:
                if last:
                    raise
                delay = backoff_delay(rules, attempt)
                reason = type(exc).__name__
            else:
                delay = self._retry_delay(response, rules, attempt)
                if delay is None or last:
                    return response
                reason = f"HTTP {response.status_code}"
                response.close()
            log.warning("%s: %s; retry %d of %d in %.2fs", self._service, reason, attempt + 1,
                        rules.max_retries, delay)
            time.sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    @staticmethod
    def _retry_delay(response: requests.Response, rules: ServicePolicy,
                     attempt: int) -> float | None:
        if response.status_code not in RETRY_STATUS:
            return None
        wait = retry_after_s(response)
        if wait is None:
            return backoff_delay(rules, attempt)
        return wait if wait <= MAX_RETRY_AFTER_S else None


def http_session(service: str, settings: Settings | None = None, *,
                 rewrite: tuple[str, str] | None = None) -> requests.Session:
    """A session for ``service``: user agent, limiter, timeout and bounded retries on every request.

    Answers are read from and kept in the on-disk cache (:mod:`scholargraph.tools.cache`) unless
    ``settings.no_cache``; a cached answer is not sent, so it waits for no limiter.

    ``rewrite=(official_prefix, endpoint)`` sends requests a client addresses to the official URL
    to the configured endpoint instead (a mirror, a proxy, the replay server).
    """
    settings = settings or Settings()
    session = new_session(settings)
    adapter = PoliteAdapter(service, settings)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    if rewrite:
        session.mount(rewrite[0], PoliteAdapter(service, settings, rewrite))
    session.headers["User-Agent"] = settings.user_agent
    return session


def redact(text: str, settings: Settings | None = None) -> str:
    """``text`` with every key in force replaced by ``***`` (for errors, logs and search logs)."""
    for secret in (settings or Settings()).secrets():
        text = text.replace(secret, "***")
    return text


class SecretFilter(logging.Filter):
    """Rewrites log records so that no key in force reaches a handler, even in a URL."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = Settings().secrets()
        if secrets:
            message = record.getMessage()
            if any(secret in message for secret in secrets):
                record.msg, record.args = redact(message), None
        return True


_filter_installed = False


def install_secret_filter() -> None:
    """Guard the loggers that print request URLs (urllib3 logs each request line at DEBUG)."""
    global _filter_installed
    with _limiters_lock:
        if not _filter_installed:
            for name in ("urllib3.connectionpool", "arxiv", "pyalex"):
                logging.getLogger(name).addFilter(SecretFilter())
            _filter_installed = True


def unavailable(service: str, exc: BaseException, settings: Settings | None = None) -> SourceError:
    """A typed, redacted error for a network failure or an HTTP error status."""
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status is not None and status not in RETRY_STATUS:
        return SourceResponseError(service, f"HTTP {status}: the service refused the request; "
                                   "check the query syntax")
    if status is not None:
        return SourceUnavailable(service, f"HTTP {status} after retries: the service is "
                                 "overloaded or down; try again later")
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return SourceUnavailable(service, redact(detail, settings)[:300]
                             + " (after retries; try again later)")


@contextmanager
def translate_errors(service: str, settings: Settings | None = None) -> Iterator[None]:
    """Turn a client's network and HTTP errors into :class:`SourceError`, with keys redacted.

    The original exception is not chained: its message may hold a URL with a key in it.
    """
    try:
        yield
    except SourceError:
        raise
    except requests.JSONDecodeError as exc:
        raise SourceResponseError(service, f"the answer is not valid JSON ({exc.msg})") from None
    except (requests.RequestException, URLError, TimeoutError, ConnectionError) as exc:
        raise unavailable(service, exc, settings) from None
