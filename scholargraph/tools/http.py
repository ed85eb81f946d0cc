"""The HTTP policy every source agent shares: rate limits, retries, timeouts and the on-disk cache.

One limiter per service for the whole process, so two agents (or two threads) talking to the same
service share its allowance. Rates are the services' published limits (see SOURCES.md).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import requests
from pyrate_limiter import Duration, Limiter, Rate
from requests.adapters import HTTPAdapter
from urllib3.util import Retry

from scholargraph.settings import Settings

RETRY_STATUS = (429, 500, 502, 503, 504)


@dataclass(frozen=True)
class ServicePolicy:
    """How politely to talk to one service."""

    name: str
    rates: tuple[Rate, ...]
    max_retries: int = 3
    backoff_s: float = 1.0


def _policies(settings: Settings) -> dict[str, ServicePolicy]:
    ncbi_per_second = 10 if settings.ncbi_api_key else 3
    return {
        "pubmed": ServicePolicy("pubmed", (Rate(ncbi_per_second, Duration.SECOND),)),
        "arxiv": ServicePolicy("arxiv", (Rate(1, Duration.SECOND * 3),)),
        "openalex": ServicePolicy("openalex", (Rate(10, Duration.SECOND),)),
        "materials": ServicePolicy("materials", (Rate(5, Duration.SECOND),)),
        "web": ServicePolicy("web", (Rate(1, Duration.SECOND),)),
    }


_limiters: dict[str, Limiter] = {}
_limiters_lock = threading.Lock()


def policy(service: str, settings: Settings | None = None) -> ServicePolicy:
    policies = _policies(settings or Settings())
    return policies.get(service) or ServicePolicy(service, (Rate(2, Duration.SECOND),))


def limiter(service: str, settings: Settings | None = None) -> Limiter:
    """The process-wide limiter of ``service``."""
    with _limiters_lock:
        if service not in _limiters:
            _limiters[service] = Limiter(list(policy(service, settings).rates))
        return _limiters[service]


def throttle(service: str, settings: Settings | None = None) -> None:
    """Block until ``service``'s rate limit allows one more request."""
    limiter(service, settings).try_acquire(service, blocking=True)


class _TimeoutAdapter(HTTPAdapter):
    """An adapter that applies a default timeout to every request sent through it."""

    def __init__(self, timeout: float, **kwargs: object) -> None:
        self._timeout = timeout
        super().__init__(**kwargs)  # type: ignore[arg-type]

    def send(self, request, **kwargs):  # type: ignore[no-untyped-def, override]
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = self._timeout
        return super().send(request, **kwargs)


def http_session(service: str, settings: Settings | None = None) -> requests.Session:
    """A session for ``service``: user agent, per-request timeout, bounded retries with backoff."""
    settings = settings or Settings()
    rules = policy(service, settings)
    retry = Retry(
        total=rules.max_retries,
        backoff_factor=rules.backoff_s,
        backoff_jitter=0.5,
        status_forcelist=RETRY_STATUS,
        allowed_methods=None,
        respect_retry_after_header=True,
        raise_on_status=False,
    )
    session = requests.Session()
    adapter = _TimeoutAdapter(settings.timeout_s, max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = settings.user_agent
    return session
