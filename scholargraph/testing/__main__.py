"""``python -m scholargraph.testing``: the recorded corpus served on 127.0.0.1, for LangGraph
Studio and Server runs.

A run started from the command line or Python takes ``--offline``; a Studio or Server run has no
such option (its context holds the run's options, and the server knows nothing of the replay
server), so this serves the corpus as ``--offline`` does (as the services held it on
2023-06-30) and prints the context that points a run at it. Pasted into Studio's configuration
(or given as an SDK run's ``context``), it searches the recordings instead of the live services.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Sequence
from typing import Any

from scholargraph.runs import FIRST_RECORDING, OFFLINE_MP_KEY
from scholargraph.testing.server import ReplayServer

DEFAULT_PORT = 8766
"""Beside the live review page's 8765: a fixed port keeps a pasted context valid across
restarts."""
RATE_SCALE = 100
"""The sources' request rates multiplied, as ``--offline`` does: the loopback server is no
service to spare."""


def offline_context(server: ReplayServer) -> dict[str, Any]:
    """The run context that sends every source to ``server``: its endpoints, the rate scale
    and, for the Materials Project, a stand-in key (the client refuses to run without one)."""
    settings: dict[str, Any] = {**server.endpoint_env(), "SCHOLARGRAPH_RATE_SCALE": RATE_SCALE,
                                "MP_API_KEY": OFFLINE_MP_KEY}
    return {"settings": settings}


def main(argv: Sequence[str] | None = None, stop: threading.Event | None = None) -> int:
    """Serve until interrupted (or ``stop`` is set), after printing the context as JSON."""
    parser = argparse.ArgumentParser(
        prog="python -m scholargraph.testing",
        description="Serve the recorded corpus on 127.0.0.1 and print the run context (for "
                    "LangGraph Studio or an SDK run) that searches it instead of the live "
                    "services.")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port on 127.0.0.1 (default {DEFAULT_PORT}; 0: any free one)")
    args = parser.parse_args(argv)
    try:
        server = ReplayServer.default(as_of=FIRST_RECORDING, port=args.port).start()
    except OSError as error:
        print(f"error: port {args.port}: {error.strerror}; choose another with --port",
              file=sys.stderr)
        return 2
    try:
        print(json.dumps(offline_context(server), indent=2), flush=True)
        print(f"serving the recorded corpus on {server.url}; Ctrl-C stops", file=sys.stderr,
              flush=True)
        (stop or threading.Event()).wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
