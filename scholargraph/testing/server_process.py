"""The repeated-records replay server in a child process of its own, for the benches.

In the measured client's process, the server's threads (composing answers of megabytes) would
share the client's interpreter lock and CPU clock; apart, the client's CPU time is its own and the
server answers as a remote service would. The child keeps one server at a time: each measurement
asks for a fresh one (new port, counters at zero). ``bench/sizes.py`` and ``bench/sources.py``
both drive it.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Mapping
from typing import Any

from scholargraph.testing.server import RateLimit


class ServerProcess:
    """A child process serving :func:`repeated_server` with the given latency and rate limits."""

    def __init__(self, *, latency: Mapping[str, float] | None = None,
                 rate_limits: Mapping[str, RateLimit] | None = None) -> None:
        context = multiprocessing.get_context("spawn")  # no fork of a process with threads
        self._conn, child = context.Pipe()
        options = {"latency": dict(latency or {}), "rate_limits": dict(rate_limits or {})}
        self._process = context.Process(target=_serve, args=(child, options), daemon=True)
        self._process.start()
        self.url = ""
        self.env: dict[str, str] = {}

    def fresh(self) -> dict[str, str]:
        """Start a new server (the previous one stops) and return its endpoint variables."""
        self._conn.send(("fresh",))
        self.url, self.env = self._conn.recv()
        return self.env

    def service_url(self, prefix: str) -> str:
        return f"{self.url}/{prefix}/"

    def counts(self) -> dict[str, int]:
        """Requests received by the current server, per service."""
        self._conn.send(("counts",))
        return self._conn.recv()

    def violations(self, service: str) -> int:
        """Requests the current server refused to ``service`` for breaking its rate limit."""
        self._conn.send(("violations", service))
        return self._conn.recv()

    def close(self) -> None:
        self._conn.send(("stop",))
        self._process.join(10)


def _serve(conn: Any, options: dict[str, Any]) -> None:
    """The child's loop: start a fresh server on demand, report its counters, stop."""
    from scholargraph.testing.server import ReplayServer
    from scholargraph.testing.services.repeated import repeated_server

    server: ReplayServer | None = None
    while True:
        command, *args = conn.recv()
        if command == "counts":
            counts: dict[str, int] = {}
            for request in server.requests if server else []:
                counts[request.service] = counts.get(request.service, 0) + 1
            conn.send(counts)
            continue
        if command == "violations":
            conn.send(server.violations(args[0]) if server else 0)
            continue
        if server is not None:
            server.stop()
            server = None
        if command == "stop":
            return
        server = repeated_server(latency=options["latency"],
                                 rate_limits=options["rate_limits"] or None).start()
        conn.send((server.url, server.endpoint_env()))
