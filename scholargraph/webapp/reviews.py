"""Reviews the web page started: each runs in a background thread and keeps its step events.

The events are the JSON objects of ``--events jsonl`` (:class:`scholargraph.progress.JsonlEvents`
writes them into an :class:`EventLog`), so the page, the command line and any script read the
same shape. Several reviews run at once (:data:`MAX_RUNNING`, one per CPU by default), each with
its own configuration (an offline one its own replay server), so offline and live runs go side by
side; more wait in a queue (status ``queued``), and past :data:`MAX_QUEUED` a new one is refused.
A review paused for plan approval gives its place to the next while it waits.

A review started with ``approve_plan`` pauses after planning: its thread writes an event carrying
the plan (``"approval"``) and waits for the person's decision (:meth:`WebReview.decide`), then
resumes the run with it, as the command line does with its prompt.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from scholargraph.agents.approval import parse_decision
from scholargraph.api import start_review
from scholargraph.errors import FilesNotWritten, InputError, ScholargraphError
from scholargraph.progress import JsonlEvents
from scholargraph.report import Report
from scholargraph.runs import PendingApproval, ReviewRun

logger = logging.getLogger(__name__)

RunStatus = Literal["queued", "running", "awaiting_approval", "finished", "failed"]
MAX_RUNNING = max(1, min(4, os.cpu_count() or 1))
"""Reviews that run at once: a review is mostly waiting on services, but ranking passages takes a
CPU, so about one per CPU."""
MAX_QUEUED = 20
"""Reviews that may wait for a place; past it, a new one is refused (HTTP 409)."""
DECISION_WAIT_SECONDS = 3600.0
"""How long a paused review waits for a decision on its plan before it gives up."""


class ReviewBusy(ScholargraphError):
    """Too many reviews are waiting; the page asks the person to try again later."""


class ReviewNotWaiting(ScholargraphError):
    """A decision arrived for a review that is not waiting for one."""


class EventLog:
    """The JSON lines of one run's steps, appended by the run's thread and read by any number of
    event streams, which wait on it instead of polling."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._closed = False
        self._changed = threading.Condition()

    def write(self, text: str) -> None:
        """Take what :class:`JsonlEvents` writes: one or more newline-terminated JSON objects."""
        with self._changed:
            self._lines.extend(line for line in text.splitlines() if line.strip())
            self._changed.notify_all()

    def flush(self) -> None:
        """Nothing is buffered; present because :class:`JsonlEvents` flushes after each event."""

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def lines(self) -> list[str]:
        with self._changed:
            return list(self._lines)

    def wait_after(self, seen: int, timeout: float) -> tuple[list[str], bool]:
        """The lines past the first ``seen`` (waiting up to ``timeout`` seconds for one) and
        whether the log is closed; closed with no new lines means the reader has everything."""
        with self._changed:
            self._changed.wait_for(lambda: len(self._lines) > seen or self._closed, timeout)
            return self._lines[seen:], self._closed


@dataclass
class WebReview:
    """One review started from the page: its events, then its report and files, or its error."""

    id: str
    question: str
    out_dir: Path
    events: EventLog
    progress: JsonlEvents | None = None
    status: RunStatus = "queued"
    plan: dict[str, Any] | None = None
    report: Report | None = None
    files: dict[str, Path] = field(default_factory=dict)
    error: str | None = None
    decisions: queue.Queue[Any] = field(default_factory=lambda: queue.Queue(maxsize=1))

    def decide(self, decision: Any) -> None:
        """Hand the person's decision on the plan to the paused run (checked first, so a bad
        answer is refused here rather than failing the run)."""
        parse_decision(decision)
        if self.status != "awaiting_approval":
            raise ReviewNotWaiting(f"review {self.id} is not waiting for a decision "
                                   f"({self.status})")
        try:
            self.decisions.put_nowait(decision)
        except queue.Full:
            raise ReviewNotWaiting(f"review {self.id} already has a decision") from None

    def await_decision(self, plan: dict[str, Any]) -> Any:
        """Announce the plan on the event stream and wait for :meth:`decide`."""
        self.plan, self.status = plan, "awaiting_approval"
        elapsed = time.monotonic() - self.progress.started if self.progress else 0.0
        self.events.write(json.dumps({
            "node": "approve_plan", "round": self.progress.round if self.progress else 1,
            "elapsed_s": round(elapsed, 3), "approval": plan,
            "summary": "waiting for your decision on the plan"}) + "\n")
        try:
            decision = self.decisions.get(timeout=DECISION_WAIT_SECONDS)
        except queue.Empty:
            raise InputError(f"no decision on the plan in {DECISION_WAIT_SECONDS / 60:.0f} "
                             "minutes; start the review again") from None
        self.plan, self.status = None, "running"
        return decision

    def steps(self) -> list[str]:
        """One line per step so far, as the event stream gives them (node: summary)."""
        found = []
        for line in self.events.lines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                found.append(f"{event.get('node', '')}: {event.get('summary', '')}".strip(": "))
        return found

    def outcome(self) -> dict[str, Any]:
        """What the last event of the stream says: finished with its files, or failed and why."""
        if self.status == "finished":
            return {"status": "finished", "files": sorted(self.files)}
        return {"status": self.status, "error": self.error}


class ReviewBoard:
    """The reviews of one server: runs them in threads, at most ``max_running`` at once, and
    finds them by id."""

    def __init__(self, out_root: Path, *, offline: bool = False,
                 max_running: int = MAX_RUNNING, max_queued: int = MAX_QUEUED) -> None:
        self.out_root = out_root
        self.offline = offline
        self.max_queued = max_queued
        self._places = threading.BoundedSemaphore(max_running)
        self._reviews: dict[str, WebReview] = {}
        self._lock = threading.Lock()

    def get(self, review_id: str) -> WebReview | None:
        with self._lock:
            return self._reviews.get(review_id)

    def start(self, question: str, **options: Any) -> WebReview:
        """Check the question and options (raising :class:`InputError`), then run the review in
        a thread, at once or when a place frees; raise :class:`ReviewBusy` when the queue is
        full."""
        options["offline"] = self.offline or bool(options.get("offline"))
        events = EventLog()
        progress = JsonlEvents(events)  # type: ignore[arg-type]  # write and flush suffice
        run = start_review(question, on_progress=progress, **options)
        with self._lock:
            queued = sum(1 for r in self._reviews.values() if r.status == "queued")
            if queued >= self.max_queued:
                raise ReviewBusy(f"{queued} reviews are already waiting to run; try again when "
                                 "one has finished")
            review = WebReview(id=run.thread, question=run.question,
                               out_dir=self.out_root / run.thread, events=events,
                               progress=progress)
            self._reviews[review.id] = review
        threading.Thread(target=_execute, args=(review, run, self._places),
                         name=f"review-{review.id}", daemon=True).start()
        return review


def _execute(review: WebReview, run: ReviewRun, places: threading.BoundedSemaphore) -> None:
    """Run the review to its end, holding one of the ``places`` while it works, and record the
    outcome; any failure reaches the page."""
    try:
        with _place(review, places):
            outcome = run.start()
        while isinstance(outcome, PendingApproval):
            decision = review.await_decision(outcome.plan)
            with _place(review, places):
                outcome = run.resume(decision)
        try:
            review.files = outcome.write(review.out_dir)
        except FilesNotWritten as exc:  # the review is done; the files not written are named
            review.files, review.error = exc.written, " ".join(str(exc).split())
        review.report = outcome
        review.status = "finished"
    except ScholargraphError as exc:
        review.error, review.status = " ".join(str(exc).split()), "failed"
    except Exception as exc:  # the page must hear of any failure; it is logged in full
        logger.exception("review %s failed", review.id)
        review.error, review.status = f"{type(exc).__name__}: {exc}", "failed"
    finally:
        review.events.close()


@contextmanager
def _place(review: WebReview, places: threading.BoundedSemaphore) -> Iterator[None]:
    """One of the board's places for the block; the review is ``queued`` until it has one."""
    if not places.acquire(blocking=False):
        review.status = "queued"
        review.events.write(json.dumps({
            "node": "queue", "round": 1, "elapsed_s": 0.0,
            "summary": "waiting for one of the running reviews to finish"}) + "\n")
        places.acquire()
    review.status = "running"
    try:
        yield
    finally:
        places.release()
