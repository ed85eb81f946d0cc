"""Reviews the web page started: each runs in a background thread and keeps its step events.

The events are the JSON objects of ``--events jsonl`` (:class:`scholargraph.progress.JsonlEvents`
writes them into an :class:`EventLog`), so the page, the command line and any script read the
same shape. One review runs at a time: a second request while one is running is refused rather
than queued, since offline runs point the whole process at the replay server.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from scholargraph.api import start_review
from scholargraph.errors import InputError, ScholargraphError
from scholargraph.progress import JsonlEvents
from scholargraph.report import Report
from scholargraph.runs import PendingApproval, ReviewRun

logger = logging.getLogger(__name__)

RunStatus = Literal["running", "finished", "failed"]


class ReviewBusy(ScholargraphError):
    """A review is already running; the page asks the person to wait for it."""


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
    status: RunStatus = "running"
    report: Report | None = None
    files: dict[str, Path] = field(default_factory=dict)
    error: str | None = None

    def outcome(self) -> dict[str, Any]:
        """What the last event of the stream says: finished with its files, or failed and why."""
        if self.status == "finished":
            return {"status": "finished", "files": sorted(self.files)}
        return {"status": self.status, "error": self.error}


class ReviewBoard:
    """The reviews of one server: starts them in threads and finds them by id."""

    def __init__(self, out_root: Path, *, offline: bool = False) -> None:
        self.out_root = out_root
        self.offline = offline
        self._reviews: dict[str, WebReview] = {}
        self._lock = threading.Lock()

    def get(self, review_id: str) -> WebReview | None:
        with self._lock:
            return self._reviews.get(review_id)

    def start(self, question: str, **options: Any) -> WebReview:
        """Check the question and options (raising :class:`InputError`), then run the review in
        a thread; raise :class:`ReviewBusy` while another one is running."""
        options["offline"] = self.offline or bool(options.get("offline"))
        events = EventLog()
        run = start_review(question, on_progress=JsonlEvents(events), **options)
        with self._lock:
            running = [r.id for r in self._reviews.values() if r.status == "running"]
            if running:
                raise ReviewBusy(f"a review is already running ({running[0]}); wait for it to "
                                 "finish, then ask again")
            review = WebReview(id=run.thread, question=run.question,
                               out_dir=self.out_root / run.thread, events=events)
            self._reviews[review.id] = review
        threading.Thread(target=_execute, args=(review, run), name=f"review-{review.id}",
                         daemon=True).start()
        return review


def _execute(review: WebReview, run: ReviewRun) -> None:
    """Run the review to its end and record the outcome; any failure reaches the page."""
    try:
        outcome = run.start()
        if isinstance(outcome, PendingApproval):
            raise InputError("the run paused for plan approval, which the page does not offer")
        review.files = outcome.write(review.out_dir)
        review.report = outcome
        review.status = "finished"
    except ScholargraphError as exc:
        review.error, review.status = " ".join(str(exc).split()), "failed"
    except Exception as exc:  # noqa: BLE001 - the page must hear of any failure; logged in full
        logger.exception("review %s failed", review.id)
        review.error, review.status = f"{type(exc).__name__}: {exc}", "failed"
    finally:
        review.events.close()
