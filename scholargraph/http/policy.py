"""The HTTP policy every source agent shares: rate limits, retries, timeouts, size caps and secrets.

Each service's manners are declared as data, a :class:`Politeness`: the rate it publishes (and the
higher one a key earns), a timeout, how many retries, the largest answer worth reading. A source
agent declares its service's on its class (``politeness``, see
:class:`~scholargraph.sources.base.SourceAgent`), built-in and plug-in alike, and every request
under the agent's name (the enrichment look-ups use OpenAlex's) finds it by that name
(:func:`politeness`), so a plug-in gets everything below from :func:`http_session` without this
module knowing it. Page fetching is per site (:data:`PAGE_POLITENESS`).

One limiter per service for the whole process, so two agents (or two threads) talking to the same
service share its allowance. Every request sent through :func:`http_session` waits for that
limiter (retries included), carries a timeout, and is retried a bounded number of times on 429,
5xx, timeouts and dropped connections, with exponential backoff and jitter, honouring
``Retry-After``. Its body is read within the service's size cap, so a runaway answer becomes a
:class:`~scholargraph.errors.SourceResponseError` instead of filling the memory.

``SCHOLARGRAPH_RATE_SCALE`` (a float, e.g. ``100``) multiplies the rates and divides the backoff
for endpoints that are not the official service (a mirror, the loopback replay server), so tests
need not wait three seconds between arXiv pages. Against an official host it is ignored, with a
warning: politeness towards the real services is not negotiable.
"""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.error import URLError
from urllib.parse import urlsplit

import requests
from pyrate_limiter import Duration, Limiter, Rate
from requests.adapters import HTTPAdapter
from urllib3.exceptions import NewConnectionError

from scholargraph.errors import (
    ConfigurationError,
    SourceError,
    SourceResponseError,
    SourceUnavailable,
    SourceUnreachable,
)
from scholargraph.http.cache import new_session
from scholargraph.settings import Settings, env_fields

log = logging.getLogger(__name__)

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
NOT_RECORDED_HEADER = "X-Replay-Not-Recorded"
"""The header the replay server of ``--offline`` sends with its answer for what it holds no
recording of (a page, a PDF: any value; a PMC batch: the ids it lacks, comma-separated): not a
failure of the service, only the edge of the small recorded corpus, and reported so."""
MAX_RETRY_AFTER_S = 60.0
RATE_SCALE_ENV = "SCHOLARGRAPH_RATE_SCALE"
MiB = 1024 * 1024
READ_CHUNK = 64 * 1024

DEFAULT_MAX_RESPONSE_BYTES = 32 * MiB
"""The largest API answer read, unless the service declares otherwise. Answers are parsed whole,
so this bounds the memory one answer takes. A full page of the built-in services is far below it
(100 OpenAlex works with the fields read: about 0.5 MB; 100 arXiv entries: about 0.25 MB), so
only a runaway or hostile answer meets it."""


@dataclass(frozen=True, kw_only=True)
class Politeness:
    """How a service asks to be talked to, declared as data by the source that talks to it.

    Use the service's published figures (and say where they come from); when two sources
    disagree, the lower rate. ``requests`` per ``per_seconds`` is one sliding window, shared by
    every session and thread of the process.
    """

    requests: int
    """At most this many requests..."""
    per_seconds: float = 1.0
    """...in any window of this many seconds."""
    keyed_requests: int | None = None
    """The allowance instead of ``requests`` while the variable ``key_env`` is set."""
    key_env: str | None = None
    """The variable that earns ``keyed_requests``: an API key, or a contact address that moves
    the client to a politer pool. When :class:`~scholargraph.settings.Settings` reads it, the
    settings in force decide (explicit settings win over the environment)."""
    timeout_s: float | None = None
    """Seconds one request may take; ``None``: ``SCHOLARGRAPH_TIMEOUT``, which also bounds it."""
    max_retries: int = 3
    """Retries of a request that met 429, 5xx, a timeout or a dropped connection."""
    backoff_s: float = 1.0
    """First backoff; it doubles with each retry (jittered) unless ``Retry-After`` says."""
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    """The largest answer read (decoded); a larger one is refused while it streams."""
    official_hosts: tuple[str, ...] = ()
    """Host suffixes of the real service: ``SCHOLARGRAPH_RATE_SCALE`` never applies to them."""
    endpoint_envs: tuple[str, ...] = ()
    """Variables that point the source elsewhere (a mirror, the replay server). While any is
    unset, or names an official host, the source counts as talking to the real service."""

    def __post_init__(self) -> None:
        problems = [
            (self.requests < 1, "requests must be at least 1"),
            (self.per_seconds <= 0, "per_seconds must be positive"),
            (self.keyed_requests is not None and not self.key_env,
             "keyed_requests needs the key_env that earns it"),
            (self.keyed_requests is not None and self.keyed_requests < self.requests,
             "keyed_requests may not be below requests"),
            (self.timeout_s is not None and self.timeout_s <= 0, "timeout_s must be positive"),
            (self.max_retries < 0, "max_retries may not be negative"),
            (self.max_response_bytes < 1, "max_response_bytes must be positive"),
        ]
        for failed, message in problems:
            if failed:
                raise ConfigurationError(f"Politeness: {message}")


PAGE_POLITENESS = Politeness(requests=2, endpoint_envs=("SCHOLARGRAPH_WEB_MIRROR",))
"""Page fetching, per site (service ``web:<host>``): sped up only through a web mirror."""

DEFAULT_POLITENESS = Politeness(requests=2)
"""A service nobody declared: two requests a second, never sped up."""


@dataclass(frozen=True)
class Declaration:
    """What a source agent class declares about its service (see
    :class:`~scholargraph.sources.base.SourceAgent`)."""

    politeness: Politeness | None = None
    secret_envs: tuple[str, ...] = ()
    secret_parameters: tuple[str, ...] = ()


_declared: dict[str, Declaration] = {}


def declare(service: str, declaration: Declaration) -> None:
    """Record what the agent class named ``service`` declares; called when the class is defined
    (``SourceAgent.__init_subclass__``), so this module never imports the agents."""
    _declared[service] = declaration


def politeness(service: str) -> Politeness:
    """What ``service`` declares: the ``politeness`` of the source agent class of that name; for
    page fetching (``web:<host>``) :data:`PAGE_POLITENESS`; else :data:`DEFAULT_POLITENESS`."""
    declared = _declared.get(service, Declaration()).politeness
    if declared is not None:
        return declared
    return PAGE_POLITENESS if service.startswith("web:") else DEFAULT_POLITENESS


def declared_secret_envs() -> tuple[str, ...]:
    """Every environment variable an agent class declares as holding a secret."""
    return tuple(dict.fromkeys(env for d in _declared.values() for env in d.secret_envs))


def declared_secret_parameters() -> tuple[str, ...]:
    """Every header, parameter or field name an agent class declares as carrying a secret."""
    return tuple(dict.fromkeys(p for d in _declared.values() for p in d.secret_parameters))


@dataclass(frozen=True)
class ServicePolicy:
    """The politeness of one service as it applies now: key, rate scale and timeout resolved."""

    name: str
    rates: tuple[Rate, ...]
    max_retries: int = 3
    backoff_s: float = 1.0
    scale: float = 1.0
    timeout_s: float = 30.0
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES


def configured(variable: str, settings: Settings | None = None) -> str | None:
    """The value in force of the environment variable ``variable`` for the run (``None`` when
    unset or blank): what the run's settings carry (a field, or ``endpoints``); a variable they
    do not carry (a plug-in's key) is read from the environment."""
    settings = settings or Settings()
    if variable in env_fields() or variable in settings.endpoints:
        return settings.variable(variable)
    return os.environ.get(variable) or None


def _endpoints(service: str, settings: Settings, declared: Politeness) -> list[str | None]:
    """The URLs ``service`` talks to; ``None`` stands for the live service chosen by its client."""
    return [configured(variable, settings) for variable in declared.endpoint_envs] or [None]


def _is_official(url: str | None, declared: Politeness) -> bool:
    if url is None:
        return True
    host = (urlsplit(url).hostname or "").lower()
    return any(host == suffix or host.endswith("." + suffix)
               for suffix in declared.official_hosts)


def talks_to_official(service: str, settings: Settings | None = None) -> bool:
    """Whether ``service`` is configured to reach the real service (not a mirror or replay)."""
    declared = politeness(service)
    return any(_is_official(url, declared)
               for url in _endpoints(service, settings or Settings(), declared))


_warned_scale: set[str] = set()


def rate_scale(service: str, settings: Settings | None = None,
               declared: Politeness | None = None) -> float:
    """The run's rate scale for ``service`` (1.0 against official hosts)."""
    settings = settings or Settings()
    scale = settings.rate_scale
    if not scale:
        return 1.0
    if scale <= 0:
        log.warning("%s must be positive; ignored", RATE_SCALE_ENV)
        return 1.0
    declared = declared or politeness(service)
    if any(_is_official(url, declared) for url in _endpoints(service, settings, declared)):
        if service not in _warned_scale:
            _warned_scale.add(service)
            log.warning("%s ignored for %s: it talks to the official service", RATE_SCALE_ENV,
                        service)
        return 1.0
    return scale


def policy(service: str, settings: Settings | None = None,
           declared: Politeness | None = None) -> ServicePolicy:
    """The politeness rules for ``service`` now: ``declared`` (else what its agent class
    declares), with the run's key, rate scale and timeout applied."""
    settings = settings or Settings()
    declared = declared or politeness(service)
    allowance = declared.requests
    if declared.keyed_requests and declared.key_env and configured(declared.key_env, settings):
        allowance = declared.keyed_requests
    scale = rate_scale(service, settings, declared)
    window_ms = max(1, round(declared.per_seconds * Duration.SECOND / scale))
    timeout = min(declared.timeout_s or settings.timeout_s, settings.timeout_s)
    return ServicePolicy(service, (Rate(allowance, window_ms),), max_retries=declared.max_retries,
                         backoff_s=declared.backoff_s, scale=scale, timeout_s=timeout,
                         max_response_bytes=declared.max_response_bytes)


_limiters: dict[tuple[str, tuple[tuple[int, int], ...]], Limiter] = {}
_limiters_lock = threading.Lock()


def limiter(service: str, settings: Settings | None = None,
            declared: Politeness | None = None) -> Limiter:
    """The process-wide limiter of ``service`` (a new one only when its rates change)."""
    rates = policy(service, settings, declared).rates
    key = (service, tuple((rate.limit, rate.interval) for rate in rates))
    with _limiters_lock:
        if key not in _limiters:
            _limiters[key] = Limiter(list(rates))
        return _limiters[key]


def throttle(service: str, settings: Settings | None = None,
             declared: Politeness | None = None) -> None:
    """Block until ``service``'s rate limit allows one more request."""
    limiter(service, settings, declared).try_acquire(service, blocking=True)


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


def read_within_cap(response: requests.Response, service: str, max_bytes: int) -> None:
    """Read the body of ``response`` into it, refusing one larger than ``max_bytes`` (decoded).

    An answer whose ``Content-Length`` announces more is refused before its body is read; one that
    does not say, or that inflates when decoded, is refused as soon as what was read passes the
    cap, so no more than the cap and one chunk is ever held. Either way the connection is closed
    and a :class:`SourceResponseError` says what happened and what to do.
    """
    announced = response.headers.get("Content-Length", "").strip()
    if announced.isdigit() and int(announced) > max_bytes:
        response.close()
        raise _too_large(service, max_bytes, f"it announced {_mib(int(announced))}")
    body = bytearray()
    for chunk in response.iter_content(READ_CHUNK):
        body += chunk
        if len(body) > max_bytes:
            response.close()
            raise _too_large(service, max_bytes, f"{_mib(len(body))} read before stopping")
    # What requests' own ``content`` property stores once it has read the body.
    response._content = bytes(body)


def _mib(size: int) -> str:
    return f"{size / MiB:.1f} MiB"


def _too_large(service: str, max_bytes: int, detail: str) -> SourceResponseError:
    return SourceResponseError(
        service, f"the answer is larger than the {_mib(max_bytes)} one {service} answer may take "
        f"({detail}); ask for fewer results at a time, or, if the service does answer this much, "
        "raise max_response_bytes in its Politeness")


def is_unreachable(exc: BaseException) -> bool:
    """Whether no connection could be made at all: refused, host not found, network down.

    Such a failure is not retried: unlike a timeout, a dropped connection or a 503, asking
    again a second later meets the same closed door (with no network, four arXiv queries
    retried this way took 102 s). A connection that timed out is not this: the host may be slow.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, requests.ConnectTimeout):
            return False
        if isinstance(current, NewConnectionError | ConnectionRefusedError | socket.gaierror):
            return True
        reason = getattr(current, "reason", None)
        current = reason if isinstance(reason, BaseException) else (
            current.args[0] if current.args and isinstance(current.args[0], BaseException)
            else current.__cause__ or current.__context__)
    return False


class PoliteAdapter(HTTPAdapter):
    """Sends each request when the service's limiter allows it, with a timeout, retried if
    retryable, and reads the answer within the service's size cap.

    Retries live here rather than in urllib3 so that every attempt, not only the first, waits for
    the limiter. The timeout is the client's, bounded by the service's (:func:`bounded_timeout`).
    The body is read here, whether or not the client asked to stream, so that the size cap holds
    for every client and for the cache (requests-cache reads a whole body to store it).
    """

    def __init__(self, service: str, settings: Settings, declared: Politeness) -> None:
        super().__init__(max_retries=0)
        self._service = service
        self._settings = settings
        self._declared = declared

    def send(self, request, **kwargs):  # type: ignore[override]
        rules = policy(self._service, self._settings, self._declared)
        kwargs["timeout"] = bounded_timeout(kwargs.get("timeout"), rules.timeout_s)
        response = self._send_politely(request, rules, kwargs)
        read_within_cap(response, self._service, rules.max_response_bytes)
        return response

    def _send_politely(self, request: requests.PreparedRequest, rules: ServicePolicy,
                       kwargs: dict[str, Any]) -> requests.Response:
        for attempt in range(rules.max_retries + 1):
            throttle(self._service, self._settings, self._declared)
            last = attempt == rules.max_retries
            try:
                response = super().send(request, **kwargs)
            except (requests.ConnectionError, requests.Timeout) as exc:
                if is_unreachable(exc):
                    # Raised as our own error, so that no client's retry loop (arxiv's retries
                    # a requests.ConnectionError) knocks on the closed door again.
                    raise unavailable(self._service, exc, self._settings) from None
                if last:
                    raise
                delay = backoff_delay(rules, attempt)
                reason = type(exc).__name__
            else:
                wait = self._retry_delay(response, rules, attempt)
                if wait is None or last:
                    return response
                delay = wait
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
                 declared: Politeness | None = None,
                 secret_parameters: tuple[str, ...] = (),
                 rewrite: tuple[str, str] | None = None) -> requests.Session:
    """A session for ``service``: user agent, limiter, timeout, bounded retries and a size cap on
    every request, as ``declared`` says (a source agent passes its own declaration:
    :meth:`SourceAgent.session <scholargraph.sources.base.SourceAgent.session>`; else what the
    agent class of that name declares, :func:`politeness`).

    Answers are read from and kept in the on-disk cache (:mod:`scholargraph.http.cache`) unless
    ``settings.no_cache``; a cached answer is not sent, so it waits for no limiter. The headers
    and parameters in ``secret_parameters`` (and the built-in ones) are kept out of its keys. An
    answer larger than the cap raises :class:`SourceResponseError` (see :func:`read_within_cap`).

    ``rewrite=(official_prefix, endpoint)`` sends requests a client addresses to the official URL
    to the configured endpoint instead (a mirror, a proxy, the replay server); the cache keys
    the address really asked, so no answer from one endpoint ever answers for another.
    """
    settings = settings or Settings()
    declared = declared or politeness(service)
    ignored = (*secret_parameters, *declared_secret_parameters())
    session = new_session(settings, rewrite, ignored)
    adapter = PoliteAdapter(service, settings, declared)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = settings.user_agent
    return session


MIN_SECRET_CHARS = 8
"""A plug-in's secret shorter than this is not scrubbed (it would blank ordinary words)."""


def secrets_in_force(settings: Settings | None = None) -> list[str]:
    """The built-in keys in force, and the values of the variables plug-ins declare secret."""
    declared = (configured(name, settings) or "" for name in declared_secret_envs())
    return [*(settings or Settings()).secrets(),
            *(value for value in declared if len(value) >= MIN_SECRET_CHARS)]


def redact(text: str, settings: Settings | None = None) -> str:
    """``text`` with every secret in force replaced by ``***`` (for errors, logs and search
    logs): see :func:`secrets_in_force`."""
    for secret in secrets_in_force(settings):
        text = text.replace(secret, "***")
    return text


class SecretFilter(logging.Filter):
    """Rewrites log records so that no key in force reaches a handler, even in a URL."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = secrets_in_force()
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
    if is_unreachable(exc):
        return SourceUnreachable(service, redact(detail, settings)[:300] + " (no connection "
                                 "could be made: check the network, or the endpoint setting)")
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
