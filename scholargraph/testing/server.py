"""A loopback HTTP server that answers like the scholarly services, from recorded responses.

Each service is a :class:`ServiceHandler` mounted under a path prefix (``/pubmed/``, ``/arxiv/``,
...). The server records every request (service, path, query, body, arrival time) so tests can count
requests and measure their spacing, and it can inject faults per service: latency, 429 with
``Retry-After``, 500, a hang past the client's timeout, a truncated, malformed or oversized body,
an empty answer. It can also delay every answer of a service (``latency``) and enforce the
services' published rate limits (``rate_limits``: 429 with ``Retry-After`` beyond them, each one
counted by :meth:`ReplayServer.violations`). It binds 127.0.0.1 only.
"""

from __future__ import annotations

import gzip
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from scholargraph.testing.messages import ReplayRequest, ReplayResponse, ServiceHandler
from scholargraph.testing.services import default_handlers

__all__ = ["Fault", "RateLimit", "ReplayRequest", "ReplayResponse", "ReplayServer",
           "ServiceHandler", "temporary_environment"]

FaultKind = Literal["latency", "429", "500", "hang", "truncated", "malformed", "empty",
                    "oversized"]


@dataclass(frozen=True)
class RateLimit:
    """A service's published limit: at most ``requests`` in any ``per_seconds`` window.

    The server answers a request beyond it with 429 and ``Retry-After``, as the services do, and
    counts it as a violation. ``slack_s`` forgives timing noise between the client's clock and
    the server's (a request measured a few milliseconds early is not a violation).
    """

    requests: int
    per_seconds: float
    slack_s: float = 0.02


@dataclass
class Fault:
    """A misbehaviour injected into the next ``times`` requests to a service (-1: every one);
    with ``path``, only into requests whose path starts with it (others pass untouched).

    ``oversized`` pads the real answer with trailing whitespace to ``size`` bytes and sends it
    gzip-compressed: still a valid document, small on the wire (its ``Content-Length`` does not
    give it away), too large once decoded.
    """

    kind: FaultKind
    times: int = 1
    seconds: float = 0.0
    retry_after: int = 1
    path: str | None = None
    size: int = 0


class ReplayServer:
    """Serve recorded responses on 127.0.0.1; use as a context manager.

    >>> with ReplayServer.default() as server:            # doctest: +SKIP
    ...     with server.environment():
    ...         ...  # every scholargraph source now talks to the server
    """

    def __init__(self, handlers: Iterable[ServiceHandler], *,
                 latency: Mapping[str, float] | None = None,
                 rate_limits: Mapping[str, RateLimit] | None = None, port: int = 0) -> None:
        """``latency``: seconds every answer of a service is delayed (a realistic round trip).
        ``rate_limits``: limits the server enforces per service (see :class:`RateLimit`).
        ``port``: the port on 127.0.0.1 (0: any free one, as tests want)."""
        self._port = port
        self._handlers = {handler.prefix: handler for handler in handlers}
        self._faults: dict[str, list[Fault]] = {}
        self._latency = dict(latency or {})
        self._rate_limits = dict(rate_limits or {})
        self._accepted: dict[str, list[float]] = {}
        self._violations: dict[str, int] = {}
        self._lock = threading.Lock()
        self.requests: list[ReplayRequest] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def default(cls, extra: Iterable[ServiceHandler] = (), *, as_of: date | None = None,
                **options: Any) -> ReplayServer:
        """The five recorded services, plus any handlers a plug-in brings (same prefix: the
        plug-in's handler wins); ``as_of``: the recorded corpus as the services held it that
        day (PubMed, arXiv and OpenAlex records added later are left out); ``options`` as for
        the constructor."""
        return cls([*default_handlers(as_of), *extra], **options)

    def add_handler(self, handler: ServiceHandler) -> None:
        self._handlers[handler.prefix] = handler

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the replay server is not running; use it as a context manager")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def service_url(self, prefix: str) -> str:
        """Base URL of one mounted service, with a trailing slash."""
        return f"{self.url}/{prefix}/"

    def endpoint_env(self) -> dict[str, str]:
        """The environment variables that point scholargraph's clients at this server."""
        env = {
            "SCHOLARGRAPH_PUBMED_URL": self.service_url("pubmed"),
            "SCHOLARGRAPH_ARXIV_URL": f"{self.url}/arxiv/api/query",
            "SCHOLARGRAPH_OPENALEX_URL": f"{self.url}/openalex",
            "SCHOLARGRAPH_MP_URL": self.service_url("mp"),
            "SCHOLARGRAPH_DDG_URL": f"{self.url}/ddg/html/",
            "SCHOLARGRAPH_DDG_NEWS_URL": f"{self.url}/ddg/news.js",
            "SCHOLARGRAPH_WEB_MIRROR": self.service_url("web"),
        }
        env = {key: value for key, value in env.items()
               if value.removeprefix(self.url + "/").split("/")[0] in self._handlers}
        for prefix, handler in self._handlers.items():
            extra_env = getattr(handler, "endpoint_env", None)
            if callable(extra_env):
                env.update(extra_env(self.service_url(prefix)))
        return env

    @contextmanager
    def environment(self, **extra: str) -> Iterator[dict[str, str]]:
        """Set the endpoint variables (and ``extra``) for the duration of the block."""
        values = {**self.endpoint_env(), **extra}
        with temporary_environment(values):
            yield values

    def inject(self, service: str, fault: Fault) -> None:
        """Make the next requests to ``service`` misbehave as ``fault`` says."""
        with self._lock:
            self._faults.setdefault(service, []).append(fault)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def count(self, service: str | None = None) -> int:
        """Requests received so far, for one service or in all."""
        return sum(1 for r in self.requests if service is None or r.service == service)

    def violations(self, service: str | None = None) -> int:
        """Requests refused because they broke an enforced rate limit."""
        with self._lock:
            if service is not None:
                return self._violations.get(service, 0)
            return sum(self._violations.values())

    def gaps(self, service: str) -> list[float]:
        """Seconds between consecutive requests to ``service`` (for rate-limit checks)."""
        times = [r.at for r in self.requests if r.service == service]
        return [later - earlier for earlier, later in zip(times, times[1:])]

    def start(self) -> ReplayServer:
        self._httpd = _QuietServer(("127.0.0.1", self._port), self._request_handler_class())
        self._httpd.daemon_threads = True
        # A short poll interval lets stop() return at once instead of after up to 0.5 s.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _next_fault(self, request: ReplayRequest) -> Fault | None:
        with self._lock:
            queue = self._faults.get(request.service) or []
            if not queue or not request.path.startswith(queue[0].path or ""):
                return None
            fault = queue[0]
            if fault.times > 0:
                fault.times -= 1
                if fault.times == 0:
                    queue.pop(0)
            return fault

    def _over_limit(self, request: ReplayRequest) -> float | None:
        """Seconds until the service would accept ``request``, or ``None`` if it may now."""
        limit = self._rate_limits.get(request.service)
        if limit is None:
            return None
        with self._lock:
            accepted = self._accepted.setdefault(request.service, [])
            window_start = request.at - limit.per_seconds + limit.slack_s
            recent = [at for at in accepted if at > window_start]
            if len(recent) >= limit.requests:
                self._violations[request.service] = self._violations.get(request.service, 0) + 1
                return recent[-limit.requests] + limit.per_seconds - request.at
            accepted[:] = [*recent, request.at]
            return None

    def _dispatch(self, request: ReplayRequest) -> ReplayResponse:
        handler = self._handlers.get(request.service)
        if handler is None:
            return ReplayResponse(404, b'{"error": "no such service"}')
        wait = self._over_limit(request)
        if wait is not None:
            return ReplayResponse(429, b'{"error": "Too Many Requests"}',
                                  headers={"Retry-After": str(max(1, math.ceil(wait)))})
        if self._latency.get(request.service):
            time.sleep(self._latency[request.service])
        fault = self._next_fault(request)
        if fault is None:
            return handler.handle(request)
        return _apply_fault(fault, lambda: handler.handle(request))

    def _request_handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self._answer()

            def do_POST(self) -> None:
                self._answer()

            def do_HEAD(self) -> None:
                self._answer(head=True)

            def _answer(self, head: bool = False) -> None:
                request = self._parse()
                with server._lock:
                    server.requests.append(request)
                response = server._dispatch(request)
                try:
                    self.send_response(response.status)
                    self.send_header("Content-Type", response.content_type)
                    self.send_header("Content-Length", str(len(response.body)))
                    for key, value in response.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    if not head:
                        self.wfile.write(response.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _parse(self) -> ReplayRequest:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                params = parse_qs(parts.query, keep_blank_values=True)
                content_type = self.headers.get("Content-Type", "")
                if body and "application/x-www-form-urlencoded" in content_type:
                    for key, values in parse_qs(body.decode("utf-8", "replace"),
                                                keep_blank_values=True).items():
                        params.setdefault(key, []).extend(values)
                segments = parts.path.lstrip("/").split("/", 1)
                return ReplayRequest(
                    service=segments[0],
                    method=self.command,
                    path="/" + (segments[1] if len(segments) > 1 else ""),
                    params=params,
                    headers={key.lower(): value for key, value in self.headers.items()},
                    body=body,
                    at=time.monotonic(),
                )

            def log_message(self, format: str, *args: object) -> None:
                return

        return Handler


class _QuietServer(ThreadingHTTPServer):
    """A server that does not print a traceback when a client hangs up (timeouts do that)."""

    def handle_error(self, request: object, client_address: object) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextmanager
def temporary_environment(values: Mapping[str, str]) -> Iterator[None]:
    """Set environment variables for the duration of the block, then put back what was there."""
    import os

    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def _apply_fault(fault: Fault, answer: Callable[[], ReplayResponse]) -> ReplayResponse:
    if fault.kind == "latency":
        time.sleep(fault.seconds)
        return answer()
    if fault.kind == "429":
        return ReplayResponse(429, b'{"error": "Too Many Requests"}',
                              headers={"Retry-After": str(fault.retry_after)})
    if fault.kind == "500":
        return ReplayResponse(500, b"<html><body>Internal Server Error</body></html>", "text/html")
    if fault.kind == "hang":
        time.sleep(fault.seconds or 30.0)
        return answer()
    real = answer()
    if fault.kind == "oversized":
        real.body = gzip.compress(real.body.ljust(fault.size), compresslevel=1)
        real.headers = {**real.headers, "Content-Encoding": "gzip"}
        return real
    if fault.kind == "truncated":
        real.body = real.body[: max(1, len(real.body) // 2)]
        return real
    if fault.kind == "malformed":
        return ReplayResponse(200, b"<html><head><title>Error</title></head><body>Service "
                              b"temporarily unavailable</body></html>", real.content_type)
    return ReplayResponse(200, b"", real.content_type)
