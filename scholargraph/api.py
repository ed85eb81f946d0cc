"""The Python API: ``review(question, **options) -> Report``.

It checks the options before any request is sent (a typed :class:`InputError` says what is wrong),
runs the graph, and turns the final state into a :class:`Report`, numbering references in the
order the findings first cite them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholargraph.agents.clean_query import clean_question
from scholargraph.context import ReviewContext
from scholargraph.engines import engine_name, load_chat_model
from scholargraph.errors import InputError
from scholargraph.report import Reference, Report, SourceFailure, prepare_out_dir
from scholargraph.schemas import Finding
from scholargraph.state import ReviewState
from scholargraph.tools.registry import source_names

MAX_RESULTS_LIMIT = 2000
OFFLINE_MP_KEY = "offline0replay0key0not0a0secret0"  # 32 characters, as mp_api requires


@dataclass(kw_only=True)
class ReviewOptions:
    """The options of :func:`review`, checked together."""

    sources: list[str] | None = None
    max_results: int = 20
    since: int | None = None
    until: int | None = None
    model: str | None = None
    chat_model: Any = None
    max_iterations: int = 2
    passages_per_question: int = 6
    thread: str | None = None
    offline: bool = False

    def check(self) -> None:
        """Raise :class:`InputError` for an option that cannot work."""
        known = source_names()
        for name in self.sources or []:
            if name not in known:
                raise InputError(f"unknown source {name!r}; choose from {', '.join(known)}")
        if self.sources is not None and not self.sources:
            raise InputError("no source given; choose from " + ", ".join(known))
        if not 1 <= self.max_results <= MAX_RESULTS_LIMIT:
            raise InputError(f"max results must be between 1 and {MAX_RESULTS_LIMIT}")
        for label, year in (("since", self.since), ("until", self.until)):
            if year is not None and not 1800 <= year <= 2100:
                raise InputError(f"--{label} {year} is not a plausible publication year")
        if self.since and self.until and self.since > self.until:
            raise InputError(f"--since {self.since} is after --until {self.until}")
        if not 1 <= self.max_iterations <= 10:
            raise InputError("max iterations must be between 1 and 10")
        if self.model and self.chat_model is None:
            self.chat_model = load_chat_model(self.model)

    def context(self) -> ReviewContext:
        return ReviewContext(model=self.model, sources=self.sources, max_results=self.max_results,
                             since=self.since, until=self.until,
                             max_iterations=self.max_iterations,
                             passages_per_question=self.passages_per_question,
                             chat_model=self.chat_model)


ProgressCallback = Callable[[str, dict[str, Any]], None]


def review(question: str, *, out: str | Path | None = None,
           on_progress: ProgressCallback | None = None, **options: Any) -> Report:
    """Run a literature review and return its :class:`Report` (written to ``out`` if given).

    Options: ``sources`` (list of names), ``max_results``, ``since``, ``until``, ``model``
    (a model name) or ``chat_model`` (a LangChain chat model object), ``max_iterations``,
    ``passages_per_question``, ``thread`` (names a resumable run), ``offline`` (use the recorded
    corpus of :mod:`scholargraph.testing` instead of the live services). ``on_progress`` is
    called with each node's name and update as the run goes.
    """
    try:
        settings = ReviewOptions(**options)
    except TypeError as exc:
        raise InputError(f"unknown option: {exc}") from exc
    cleaned = clean_question(question)
    settings.check()
    if out is not None:
        prepare_out_dir(out)
    with offline_services(settings.offline):
        state = run_graph(cleaned, settings, on_progress)
    report = build_report(question, state, settings.context())
    if out is not None:
        report.write(out)
    return report


def run_graph(question: str, options: ReviewOptions,
              on_progress: ProgressCallback | None = None) -> ReviewState:
    """Stream the graph to its end; with a thread id, checkpoint it in SQLite."""
    from scholargraph.graph import compile_graph

    final: ReviewState = {}
    with checkpointer_for(options.thread) as saver:
        graph = compile_graph(saver)
        config: dict[str, Any] = {"recursion_limit": 200}
        if options.thread:
            config["configurable"] = {"thread_id": options.thread}
        for mode, chunk in graph.stream({"question": question}, config=config,
                                        context=options.context(),
                                        stream_mode=["updates", "values"]):
            if mode == "values":
                final = chunk
            elif on_progress is not None:
                for node, update in chunk.items():
                    on_progress(node, update or {})
    return final


@contextmanager
def checkpointer_for(thread: str | None) -> Iterator[Any]:
    """A SQLite checkpointer for named runs, none otherwise."""
    if not thread:
        yield None
        return
    from langgraph.checkpoint.sqlite import SqliteSaver

    from scholargraph.settings import get_settings

    home = get_settings().home
    home.mkdir(parents=True, exist_ok=True)
    with SqliteSaver.from_conn_string(str(home / "checkpoints.sqlite")) as saver:
        yield saver


@contextmanager
def offline_services(enabled: bool) -> Iterator[None]:
    """With ``enabled``, point every source at the replay server of recorded responses."""
    if not enabled:
        yield
        return
    from scholargraph.testing import ReplayServer

    extra = {"SCHOLARGRAPH_RATE_SCALE": "100"}
    if not os.environ.get("MP_API_KEY"):
        extra["MP_API_KEY"] = OFFLINE_MP_KEY
    with ReplayServer.default() as server, server.environment(**extra):
        yield


def build_report(question: str, state: ReviewState, context: ReviewContext) -> Report:
    """The report of a finished run: references numbered by first citation."""
    draft = state.get("draft")
    passages = {p.id: p for p in state.get("passages", [])}
    references: list[Reference] = []
    numbers: dict[str, int] = {}
    findings: list[Finding] = []
    for finding in (draft.findings if draft else []):
        cited = []
        for passage_id in finding.passage_ids:
            work_id = passages[passage_id].work_id
            if work_id not in numbers:
                numbers[work_id] = len(numbers) + 1
                references.append(Reference(number=numbers[work_id], work_id=work_id))
            reference = references[numbers[work_id] - 1]
            if passage_id not in reference.passage_ids:
                reference.passage_ids.append(passage_id)
            cited.append(numbers[work_id])
        findings.append(finding.model_copy(update={"citations": sorted(set(cited))}))
    cited_passages = [passages[i] for ref in references for i in ref.passage_ids]
    log = state.get("search_log", [])
    failures = {entry.source: entry.error or "failed" for entry in log if entry.status == "error"}
    return Report(
        question=question,
        cleaned_question=state.get("cleaned_question", ""),
        engine=engine_name(context),
        sources_searched=state.get("active_sources", []),
        sub_questions=state.get("sub_questions", []),
        summary=draft.summary if draft else "",
        papers=state.get("papers", []),
        materials=list({m.material_id: m for m in state.get("materials", [])}.values()),
        findings=findings,
        gaps=draft.gaps if draft else [],
        references=references,
        passages=cited_passages,
        prisma=dict(state.get("prisma", {})),
        search_log=log,
        sources_failed=[SourceFailure(source=s, error=e) for s, e in failures.items()],
        evaluation=state["evaluation"],
        iterations=state.get("iteration", 1),
        stop_reason=state.get("stop_reason", ""),
        notes=list(dict.fromkeys(state.get("notes", []))),
    )

