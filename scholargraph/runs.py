"""A review run on a thread: start it, pause it for plan approval, resume it, read its report.

With a thread id the graph is checkpointed in SQLite after every step (``durability="sync"``), so
a run that was killed resumes at the last completed step and sends no request again for work
already done; a finished thread returns its report without running again. A run that pauses for
plan approval returns a :class:`PendingApproval`; ``resume`` continues it with the decision
(any value LangGraph's ``Command(resume=...)`` carries).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from langgraph.types import Command

from scholargraph.agents.approval import parse_decision
from scholargraph.checkpoints import memory_checkpointer, run_checkpointer
from scholargraph.errors import InputError
from scholargraph.options import ReviewOptions
from scholargraph.progress import PROGRESS
from scholargraph.report import Report, report_from_state
from scholargraph.settings import Settings
from scholargraph.state import ReviewState

ProgressCallback = Callable[[str, dict[str, Any]], None]
"""Called with each node's name and update as the run goes, and with ``(node, {"progress":
line})`` when a long step says what it is doing (:func:`scholargraph.progress.say`)."""
OFFLINE_MP_KEY = "offline0replay0key0not0a0secret0"  # 32 characters, as mp_api requires


@dataclass(frozen=True)
class PendingApproval:
    """A run paused after planning: the plan to accept, edit or reject, and where to resume."""

    thread: str
    plan: dict[str, Any]


class ReviewRun:
    """One review on one thread. Use :meth:`start`, then :meth:`resume` while it is pending."""

    def __init__(self, question: str, options: ReviewOptions,
                 on_progress: ProgressCallback | None = None) -> None:
        self.question = question
        self.options = options
        self.on_progress = on_progress
        self.thread = options.thread or f"run-{uuid.uuid4().hex[:12]}"
        self._memory = None if options.thread else memory_checkpointer()
        self.settings = options.run_settings
        self._in_force = self.settings
        """The run's configuration, read once here; ``--offline`` swaps its endpoints while the
        run goes (:func:`offline_services`)."""

    def start(self) -> Report | PendingApproval:
        """Run (or resume, or return the finished report of) this thread."""
        with self._graph() as graph:
            snapshot = graph.get_state(self._config())
            if not snapshot.values:
                return self._drive(graph, {"question": self.question})
            self._check_same_question(snapshot.values)
            if snapshot.interrupts:
                return PendingApproval(self.thread, snapshot.interrupts[0].value)
            if snapshot.next:
                return self._drive(graph, None)
            return self._report(snapshot.values)

    def resume(self, decision: Any) -> Report | PendingApproval:
        """Continue a paused run with the person's decision."""
        command = decision if isinstance(decision, Command) else Command(resume=decision)
        parse_decision(command.resume)  # refuse a bad answer before the graph records it
        with self._graph() as graph:
            if not graph.get_state(self._config()).interrupts:
                raise InputError(f"thread {self.thread!r} is not waiting for a decision")
            return self._drive(graph, command)

    def _drive(self, graph: Any, payload: Any) -> Report | PendingApproval:
        final: ReviewState = {}
        for mode, chunk in graph.stream(payload, config=self._config(),
                                        context=self.options.context(self._in_force),
                                        stream_mode=["updates", "values", "custom"],
                                        durability="sync"):
            if mode == "values":
                final = chunk
            elif mode == "custom":
                if self.on_progress is not None and isinstance(chunk, dict) and PROGRESS in chunk:
                    self.on_progress(str(chunk.get("node", "")), {PROGRESS: chunk[PROGRESS]})
            elif self.on_progress is not None:
                for node, update in chunk.items():
                    self.on_progress(node, update if isinstance(update, dict) else {})
        snapshot = graph.get_state(self._config())
        if snapshot.interrupts:
            return PendingApproval(self.thread, snapshot.interrupts[0].value)
        return self._report(final or snapshot.values)

    def _report(self, state: ReviewState) -> Report:
        report = report_from_state(self.question, state, self.options.context(self.settings))
        reached = (recording_day(self.options.added_since) if self.options.offline
                   else datetime.now(UTC).date())
        report.searched_through = reached.isoformat()
        return report

    def _check_same_question(self, values: ReviewState) -> None:
        held = values.get("question")
        if held is not None and held != self.question:
            raise InputError(f"thread {self.thread!r} holds a review of {held!r}; "
                             "use another --thread for a new question")

    def _config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.thread}, "recursion_limit": 200}

    @contextmanager
    def _graph(self) -> Iterator[Any]:
        from scholargraph.graph import compile_graph

        with ExitStack() as stack:
            self._in_force = stack.enter_context(offline_services(
                self.settings, self.options.offline,
                as_of=recording_day(self.options.added_since)))
            saver = self._memory or stack.enter_context(run_checkpointer(self.settings))
            yield compile_graph(saver)


FIRST_RECORDING = date(2023, 6, 30)
"""An offline review searches the recorded corpus as the services held it on this day: the
PubMed, arXiv and OpenAlex records added later are its second recording, which only an offline
update (``added_since`` set) sees, so that ``scholargraph update --offline`` finds new works."""
LATEST_RECORDING = date(2026, 4, 12)
"""The day of the corpus's newest recording (arXiv's): how far an offline update searches."""


def recording_day(added_since: str | None) -> date:
    """The day the recorded corpus is served as of: the first recording for a review, the
    latest for an update."""
    return LATEST_RECORDING if added_since else FIRST_RECORDING


@contextmanager
def offline_services(settings: Settings, enabled: bool,
                     as_of: date | None = None) -> Iterator[Settings]:
    """``settings``, or with ``enabled`` a copy whose endpoints point every source at a replay
    server of recorded responses started for the block (nothing else in the process moves);
    ``as_of``: the corpus as the services held it that day (unset: all of it)."""
    if not enabled:
        yield settings
        return
    from scholargraph.testing import ReplayServer  # only --offline loads the replay server

    extra = {"SCHOLARGRAPH_RATE_SCALE": "100"}
    if settings.mp_api_key is None:
        extra["MP_API_KEY"] = OFFLINE_MP_KEY
    with ReplayServer.default(as_of=as_of) as server:
        yield settings.with_variables({**server.endpoint_env(), **extra})
