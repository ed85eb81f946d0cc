"""The live review page: a Starlette app that starts a review, streams its steps and shows it.

Routes::

    GET  /                          the page: question, sources, years, offline switch, and
                                    whether to approve the plan before searching
    POST /reviews                   JSON {question, sources, since, until, offline,
                                    approve_plan} -> {id, ...}
    GET  /reviews/{id}/events       Server-Sent Events: one "step" per graph step (the JSON of
                                    ``--events jsonl``; with approve_plan, one carries the plan
                                    as "approval"), then "finished" or "failed"
    POST /reviews/{id}/decision     JSON {action: accept|edit|reject, sub_questions?, sources?}
                                    for a review waiting on its plan -> 202
    GET  /reviews/{id}/review       the finished review as an HTML fragment for the page
    GET  /reviews/{id}              the same review as a page of its own
    GET  /reviews/{id}/files/{name} the exports (review.md, review.json, references.*)

Bad input is answered 400 with a sentence the page shows; everything from papers is escaped by
the templates; the page runs no inline script and loads nothing from another origin.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from scholargraph.errors import InputError
from scholargraph.options import ReviewOptions
from scholargraph.screening.relevance import names_a_file
from scholargraph.settings import get_settings
from scholargraph.sources.registry import source_names
from scholargraph.webapp import render
from scholargraph.webapp.reviews import (
    MAX_RUNNING,
    ReviewBoard,
    ReviewBusy,
    ReviewNotWaiting,
    WebReview,
)

LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'self'; img-src 'self' data:; object-src 'none'; "
                                "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
FORM_FIELDS = {"question"} | {option.name for option in fields(ReviewOptions)
                               if option.metadata.get("form")}
"""What the page may set: the question and the run options the schema marks for the form."""
EVENT_WAIT_SECONDS = 1.0
SHUTDOWN_GRACE_SECONDS = 3


def create_app(*, offline: bool = False, out_root: Path | None = None,
               allowed_hosts: list[str] | None = None, max_running: int = MAX_RUNNING
               ) -> Starlette:
    """The page's app. ``offline`` makes every review use the recorded corpus; reviews are
    written under ``out_root`` (default ``SCHOLARGRAPH_HOME/web-reviews``), ``max_running`` at
    once (more wait their turn); requests naming another host than ``allowed_hosts`` (default:
    loopback names) are refused, so a web site cannot reach the app through DNS rebinding."""
    board = ReviewBoard(out_root or get_settings().home / "web-reviews", offline=offline,
                        max_running=max_running)
    pages = _Pages(board)
    routes = [
        Route("/", pages.index),
        Route("/reviews", pages.start, methods=["POST"]),
        Route("/reviews/{review_id}", pages.review_page),
        Route("/reviews/{review_id}/events", pages.events),
        Route("/reviews/{review_id}/decision", pages.decide, methods=["POST"]),
        Route("/reviews/{review_id}/review", pages.review_fragment),
        Route("/reviews/{review_id}/files/{name}", pages.download),
        Mount("/static", StaticFiles(packages=[("scholargraph.webapp", "static")]), name="static"),
    ]
    middleware = [Middleware(TrustedHostMiddleware,
                             allowed_hosts=allowed_hosts or LOOPBACK_HOSTS)]
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={HTTPException: pages.http_error})
    app.state.board = board
    return app


class _Pages:
    """The route handlers, sharing the board of reviews."""

    def __init__(self, board: ReviewBoard) -> None:
        self.board = board

    async def index(self, request: Request) -> Response:
        # a library is given by its path on the command line; the page has no field for one
        sources = [name for name in source_names() if name != "library"]
        return _page("index.html", sources=sources, offline=self.board.offline)

    async def start(self, request: Request) -> Response:
        """Start a review from the page's JSON; 400 with a sentence for anything unusable."""
        try:
            question, options = _review_request(await _json_body(request))
            review = self.board.start(question, **options)
        except InputError as exc:
            return JSONResponse({"error": " ".join(str(exc).split())}, status_code=400)
        except ReviewBusy as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)
        base = f"/reviews/{review.id}"
        return JSONResponse({"id": review.id, "question": review.question,
                             "events": f"{base}/events", "review": f"{base}/review",
                             "page": base}, status_code=202)

    async def decide(self, request: Request) -> Response:
        """The person's decision on a paused review's plan: accept, edit or reject."""
        review = self._review(request)
        try:
            review.decide(await _json_body(request))
        except InputError as exc:
            return JSONResponse({"error": " ".join(str(exc).split())}, status_code=400)
        except ReviewNotWaiting as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)
        return JSONResponse({"id": review.id, "status": "decided"}, status_code=202)

    async def events(self, request: Request) -> Response:
        """The run's steps as Server-Sent Events, resuming after ``Last-Event-ID``."""
        review = self._review(request)
        first = _after_event_id(request.headers.get("last-event-id"))
        return StreamingResponse(_event_stream(review, first), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    async def review_fragment(self, request: Request) -> Response:
        """The finished review as a fragment; before it is finished, 202 and its state with the
        steps so far (never the report it does not have yet)."""
        return self._review_or_state("review.html", self._review(request))

    async def review_page(self, request: Request) -> Response:
        return self._review_or_state("review_page.html", self._review(request))

    @staticmethod
    def _review_or_state(template: str, review: WebReview) -> Response:
        """Read the report and status once: the run's thread may finish while the page renders,
        and the status code and the body must describe the same moment."""
        report, status = review.report, review.status
        waiting = report is None and status != "failed"
        return _page(template, status=202 if waiting else 200, review=review, report=report,
                     run_status=status, steps=review.steps() if waiting else [])

    async def download(self, request: Request) -> Response:
        """One of the files the review wrote; only those names, so no path reaches the disk."""
        review = self._review(request)
        path = review.files.get(request.path_params["name"])
        if path is None:
            raise HTTPException(404, f"review {review.id} has no file of that name")
        return FileResponse(path, filename=path.name, headers=SECURITY_HEADERS)

    async def http_error(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _page("error.html", status=exc.status_code, message=exc.detail)

    def _review(self, request: Request) -> WebReview:
        review = self.board.get(request.path_params["review_id"])
        if review is None:
            raise HTTPException(404, "no review of that id on this server; start one on the "
                                     "first page")
        return review


def _page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(render.page(template, **context), status_code=status,
                        headers=SECURITY_HEADERS)


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object. JSON only: a cross-site form cannot send it without the
    browser asking this server first, which it never allows."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise InputError("send the review request as JSON (Content-Type: application/json)")
    try:
        body = json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"the request is not valid JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise InputError("the request must be a JSON object with a question")
    return body


def _review_request(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The question and the options of :func:`scholargraph.start_review` the page may set."""
    unknown = sorted(set(body) - FORM_FIELDS)
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r}; send {', '.join(sorted(FORM_FIELDS))}")
    sources = body.get("sources")
    if sources is not None and not (isinstance(sources, list)
                                    and all(isinstance(s, str) for s in sources)):
        raise InputError("sources must be a list of source names, or null to let the question "
                         "choose")
    options: dict[str, Any] = {
        "sources": [s.strip().lower() for s in sources] if sources is not None else None}
    for option in fields(ReviewOptions):
        if option.name in FORM_FIELDS and option.name not in ("sources", "criteria"):
            value = body.get(option.name)
            options[option.name] = (value is True if option.default is False
                                    else _year(value, option.name))
    if "criteria" in FORM_FIELDS:
        options["criteria"] = _criteria_text(body.get("criteria"))
    return body.get("question", ""), options


def _criteria_text(value: object) -> str | None:
    """The eligibility criteria typed on the page, None when blank. Text only: the command line
    reads a file named there, but a name typed on the page is refused, so that a page's user
    never has a file of the server read into a review."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise InputError("criteria must be text: the inclusion and exclusion criteria")
    if names_a_file(value):
        raise InputError("give the criteria as text on this page, not a file name")
    return value


def _year(value: object, label: str) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise InputError(f"{label} must be a year such as 2015, not {str(value)[:20]!r}")


def _after_event_id(header: str | None) -> int:
    """How many events the browser already has: one past the id it last received."""
    return int(header) + 1 if header and header.isdigit() else 0


async def _event_stream(review: WebReview, first: int) -> AsyncIterator[str]:
    """Each step as it is recorded, then the outcome; waiting happens in a worker thread so the
    event loop stays free."""
    seen = first
    while True:
        lines, closed = await anyio.to_thread.run_sync(review.events.wait_after, seen,
                                                       EVENT_WAIT_SECONDS)
        for line in lines:
            yield _sse("step", line, event_id=seen)
            seen += 1
        if closed and not lines:
            yield _sse(review.status, json.dumps(review.outcome()))
            return


def _sse(event: str, data: str, event_id: int | None = None) -> str:
    """One Server-Sent Event; ``data`` is one line of JSON (json.dumps never writes a newline)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n"


def serve(host: str = "127.0.0.1", port: int = 8765, *, offline: bool = False,
          log_level: str = "info", max_running: int = MAX_RUNNING) -> None:
    """Run the page with uvicorn until interrupted; an open event stream delays the stop by
    at most a few seconds (the review's thread does not outlive the process)."""
    import uvicorn

    allowed = LOOPBACK_HOSTS + [host] if host not in {"0.0.0.0", "::"} else ["*"]
    uvicorn.run(create_app(offline=offline, allowed_hosts=allowed, max_running=max_running),
                host=host, port=port,
                log_level=log_level, timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS)
