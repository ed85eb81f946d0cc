"""Record a real OpenAI-compatible chat server, and replay what it said on loopback.

:class:`ChatRecorder` sits between the engine and a real server (llama-cpp-python, llama.cpp,
Ollama, vLLM...) and keeps every exchange: the request body, the status and the response body.
:class:`ChatReplayServer` answers the recorded exchanges in order, so a test drives the real
``ChatOpenAI`` client and the engine's real HTTP path with what a real model once answered::

    exchanges = load_exchanges(path)
    with ChatReplayServer(exchanges) as server:
        model = ChatOpenAI(model="smollm2", base_url=server.base_url, api_key="x")
        ...
    server.requests    # what the engine sent (max_tokens, response_format, tools...)

``GET /v1/models`` answers with the recorded model list, or an empty one.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

import httpx


@dataclass
class Exchange:
    """One request to a chat server and what it answered."""

    path: str
    request: dict[str, Any] | None
    status: int
    response: Any
    note: str = ""

    def to_json(self) -> str:
        return json.dumps({"path": self.path, "request": self.request, "status": self.status,
                           "response": self.response, "note": self.note}, ensure_ascii=False)


def load_exchanges(path: str | Path) -> list[Exchange]:
    """Exchanges from a JSONL file written by :class:`ChatRecorder` (blank lines skipped)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [Exchange(**json.loads(line)) for line in lines if line.strip()]


class Loopback:
    """An HTTP server on 127.0.0.1 in a thread; subclasses say how to answer (``answer``, given
    the method, path, JSON body and lower-cased request headers)."""

    def __init__(self) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base_url = f"http://127.0.0.1:{self.server.server_port}/v1"
        self.lock = threading.Lock()

    def answer(self, method: str, path: str, body: dict[str, Any] | None,
               headers: dict[str, str]) -> tuple[int, Any]:
        raise NotImplementedError

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server protocol
                self._reply(*owner.answer("GET", self.path, None, self._headers()))

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                self._reply(*owner.answer("POST", self.path, body, self._headers()))

            def _headers(self) -> dict[str, str]:
                return {key.lower(): value for key, value in self.headers.items()}

            def _reply(self, status: int, payload: Any) -> None:
                """Answer, unless the client has gone: a client that timed out (as the
                engine's time-limit tests make it) closed its socket, and the server's
                traceback for that would read as a failure in the test output."""
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Quiet."""

        return Handler

    def __enter__(self) -> Self:
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class ChatReplayServer(Loopback):
    """Answers ``POST /v1/chat/completions`` with the recorded exchanges, in order.

    A request beyond the recording is answered 599 with a message saying so (the test sees an
    unexpected call rather than a hang). ``requests`` holds every chat request body received.
    """

    def __init__(self, exchanges: Iterable[Exchange]) -> None:
        super().__init__()
        recorded = list(exchanges)
        self.chats = [e for e in recorded if e.path.endswith("/chat/completions")]
        self.models = next((e for e in recorded if e.path.endswith("/models")), None)
        self.requests: list[dict[str, Any]] = []

    @property
    def remaining(self) -> int:
        return len(self.chats) - len(self.requests)

    def answer(self, method: str, path: str, body: dict[str, Any] | None,
               headers: dict[str, str]) -> tuple[int, Any]:
        if method == "GET" and path.endswith("/models"):
            if self.models is not None:
                return self.models.status, self.models.response
            # no list recorded: list none, so the engine's check that the server serves the
            # model asked for (engines.check_served) has nothing to hold against the recording
            return 200, {"object": "list", "data": []}
        if method != "POST" or not path.endswith("/chat/completions"):
            return 404, {"error": {"message": f"no route {method} {path}"}}
        with self.lock:
            self.requests.append(body or {})
            index = len(self.requests) - 1
        if index >= len(self.chats):
            return 599, {"error": {"message": f"replay: request {index + 1} was not recorded "
                                              f"({len(self.chats)} were)"}}
        exchange = self.chats[index]
        return exchange.status, exchange.response


class ChatRecorder(Loopback):
    """Forwards every request to ``upstream`` (a ``.../v1`` URL) and keeps the exchange."""

    def __init__(self, upstream: str, timeout: float = 600.0) -> None:
        super().__init__()
        self.upstream = upstream.rstrip("/")
        self.timeout = timeout
        self.exchanges: list[Exchange] = []

    def answer(self, method: str, path: str, body: dict[str, Any] | None,
               headers: dict[str, str]) -> tuple[int, Any]:
        url = self.upstream + path.removeprefix("/v1")
        response = httpx.request(method, url, json=body, timeout=self.timeout,
                                 headers={"Authorization": "Bearer x"})
        try:
            payload = response.json()
        except ValueError:
            payload = {"error": {"message": response.text[:2000]}}
        with self.lock:
            self.exchanges.append(Exchange(path, body, response.status_code, payload))
        return response.status_code, payload

    def save(self, path: str | Path) -> None:
        Path(path).write_text("".join(e.to_json() + "\n" for e in self.exchanges),
                              encoding="utf-8")
