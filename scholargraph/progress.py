"""Live progress of a run: one readable line per step for people, one JSON object for machines.

Both consume the graph's ``updates`` stream (node name and what it returned), so they show the
step that just finished, per-source counts as each source answers, the refinement round and the
time spent since the run started. A long step says what it is doing while it works
(:func:`say`: "retrieval: screening 2,500 works ..."), through the graph's ``custom`` stream,
handed to the same callback as ``(node, {"progress": line})``.
"""

from __future__ import annotations

import json
import time
from typing import IO, Any

from langgraph.config import get_stream_writer
from rich.console import Console

from scholargraph.wording import counted

PROGRESS = "progress"
"""The key of a long step's own progress line, in the update handed to the progress callback
(an update holding it is a line, not what the node returned)."""


def say(node: str, line: str) -> None:
    """Tell the run's progress callback what ``node`` is doing now, while it works. A library
    review of 2,500 records spent 277 s in retrieval (screening, embedding) without a line;
    this is how it speaks. Outside a graph run (a node called directly) it does nothing."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # not inside a run: nobody to tell
        return
    writer({"node": node, PROGRESS: line})


def describe_update(node: str, update: dict[str, Any]) -> str | None:
    """One progress line for a node's update, or None for nodes not worth a line; with what the
    node asked of the chat model, when it asked."""
    line = _describe(node, update)
    steps = update.get("model_steps") or []
    if line and steps:
        line += "; " + "; ".join(model_line(step) for step in steps)
    return line


def model_line(step: Any) -> str:
    """A model step in a few words: calls, tokens, seconds, and who answered."""
    answered = "model answered" if step.answered_by == "model" else "fell back"
    return (f"{step.step} model: {counted(step.calls, 'call')} "
            f"({step.method}), {step.tokens_in}->{step.tokens_out} tokens, "
            f"{step.seconds:.1f}s, {answered}")


def _describe(node: str, update: dict[str, Any]) -> str | None:
    if PROGRESS in update:  # a graph node's name as its own summary line writes it
        return f"{node.replace('_', ' ')}: {update[PROGRESS]}"
    if node == "intent" and "intent" in update:
        return (f"intent: {update['intent'].kind}; sources: "
                f"{', '.join(update.get('active_sources', [])) or 'none'}")
    if node == "planning" and "sub_questions" in update:
        return f"planning: {len(update['sub_questions'])} sub-questions"
    if node == "query_generation" and "stop_reason" in update:  # a round with nothing to send
        return f"done: {update['stop_reason']}"
    if node == "query_generation":  # with each source left out and why, or it just vanished
        skipped = [f"; {entry.source} skipped: {entry.error}"
                   for entry in update.get("search_log", []) if entry.status == "skipped"]
        return (f"query generation: {counted(len(update.get('queries', [])), 'query', 'queries')}"
                + "".join(skipped))
    if node == "retrieval" and "prisma" in update:
        prisma = update["prisma"]
        return (f"retrieval: {sum(prisma['identified'].values())} records, "
                f"{prisma['duplicates_removed']} duplicates removed, {prisma['included']} included")
    if node == "rag_filter" and "passages" in update:
        return f"rag filter: {len(update['passages'])} passages"
    if node == "synthesis" and "draft" in update:
        findings = sum(finding.kind == "finding" for finding in update["draft"].findings)
        return f"synthesis: {counted(findings, 'finding')}"  # as the summary counts them
    if node == "evaluation" and "evaluation" in update:
        evaluation = update["evaluation"]
        return f"evaluation: overall {evaluation.overall:.2f}, verdict {evaluation.verdict}"
    if node == "supervisor" and "stop_reason" in update:
        return f"done: {update['stop_reason']}"
    if node == "supervisor" and update.get("iteration", 1) > 1:
        return f"refinement round {update['iteration']}"
    if "search_log" in update:
        return f"{node}: {searched(update['search_log'])}"
    return None


ERROR_CHARS = 80
"""How much of a failed query's error the progress line quotes (the run log has all of it)."""


def searched(entries: list[Any]) -> str:
    """What a source's queries brought, in words: "1 query -> 20 records", "3 queries -> 32
    records (25 + 7 + 0)", with the queries that failed or were skipped named and counted."""
    if not entries:
        return "no queries"
    answered = [e.n_results for e in entries if e.status in ("ok", "empty")]
    parts = []
    if answered:
        each = f" ({' + '.join(map(str, answered))})" if len(answered) > 1 and any(answered) else ""
        parts.append(counted(sum(answered), "record") + each)
    failed = [e for e in entries if e.status == "error"]
    if failed:
        errors = list(dict.fromkeys(_short(e.error or "no reason given") for e in failed))
        parts.append(f"{len(failed)} failed ({'; '.join(errors)})")
    skipped = sum(e.status == "skipped" for e in entries)
    if skipped:
        parts.append(f"{skipped} skipped")
    return f"{counted(len(entries), 'query', 'queries')} -> {', '.join(parts)}"


def _short(error: str) -> str:
    error = " ".join(error.split())
    return error if len(error) <= ERROR_CHARS else error[:ERROR_CHARS - 3].rstrip() + "..."


class ProgressPrinter:
    """Progress lines on stderr with the time since the run started (rich formatting)."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True, highlight=False)
        self.started = time.monotonic()

    def __call__(self, node: str, update: dict[str, Any]) -> None:
        line = describe_update(node, update)
        if line:
            elapsed = time.monotonic() - self.started
            self.console.print(f"[dim]{elapsed:6.1f}s[/dim]  {line}", markup=True,
                               soft_wrap=True)


class StepLines:
    """Progress of work outside the graph (``scholargraph screen``): each line as
    :class:`ProgressPrinter` prints a step's, with the time since the work started. Screening a
    3,000-record library the first time embeds every record, a minute or two on a laptop that
    went by without a word."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True, highlight=False)
        self.started = time.monotonic()

    def __call__(self, line: str) -> None:
        elapsed = time.monotonic() - self.started
        self.console.print(f"[dim]{elapsed:6.1f}s[/dim]  {line}", markup=True, soft_wrap=True)


class JsonlEvents:
    """One JSON object per step on ``stream``: node, round, elapsed seconds, summary, counts."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.started = time.monotonic()
        self.round = 1

    def __call__(self, node: str, update: dict[str, Any]) -> None:
        if node == "supervisor" and "iteration" in update:
            self.round = update["iteration"]
        event = {"node": node, "round": self.round,
                 "elapsed_s": round(time.monotonic() - self.started, 3),
                 "summary": describe_update(node, update)}
        if "search_log" in update:
            event["searches"] = [{"query": e.query, "n_results": e.n_results, "status": e.status,
                                  "error": e.error} for e in update["search_log"]]
        self.stream.write(json.dumps(event) + "\n")
        self.stream.flush()
