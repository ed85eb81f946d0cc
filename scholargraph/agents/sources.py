"""The tool-loop nodes: one per registered source agent, built from the registry.

Each node runs its agent's queries of the current round and returns what it found plus one
search-log entry per query. A failing source is recorded (status ``error`` with the reason) and
the review goes on; a source that cannot run (no key) is recorded as ``skipped`` with a note. A
source that cannot be reached at all (connection refused, host not found) fails its first query
fast, and its other queries, this round and later ones, are ``skipped`` with the reason.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from langgraph.runtime import Runtime

from scholargraph.context import ReviewContext
from scholargraph.errors import SourceError, SourceUnreachable
from scholargraph.http.cache import cached_answer_times, requests_sent
from scholargraph.http.policy import redact
from scholargraph.records import SearchLogEntry
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.registry import get_agent
from scholargraph.state import ReviewState


class SourceNode(Protocol):
    """A tool-loop node: the state and the run's runtime in, the state update out."""

    __name__: str

    def __call__(self, state: ReviewState, runtime: Runtime[ReviewContext]) -> dict[str, Any]: ...


def make_source_node(name: str) -> SourceNode:
    """The graph node of source ``name``."""

    def run_source(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
        context = runtime.context or ReviewContext()
        agent = get_agent(name, context.run_settings)
        round_number = state.get("iteration", 1)
        queries = [q for q in state.get("queries", []) if q.source == name]
        reason = agent.unavailable_reason()
        if reason:
            entries = [SearchLogEntry(source=name, query=q.query, status="skipped", error=reason,
                                      round=round_number) for q in queries]
            return {"search_log": entries, "notes": [f"{agent.label} skipped: {reason}"]}
        records, materials, log, notes = [], [], [], []
        intent = state["intent"]
        unreachable = _earlier_unreachable(state.get("search_log", []), name)
        added = context.added_window()
        for query in queries:
            if unreachable is not None:
                log.append(SearchLogEntry(
                    source=name, query=query.query, status="skipped", round=round_number,
                    error=f"not sent: {agent.label} could not be reached on an earlier query "
                          f"({unreachable})"))
                continue
            request = SearchRequest(query=query.query, limit=context.max_results,
                                    since=intent.since, until=intent.until,
                                    news_window=intent.news_window, wants_data=intent.wants_data,
                                    added_since=added[0] if added else None,
                                    added_until=added[1] if added else None)
            try:
                with cached_answer_times() as stored, requests_sent() as sent:
                    result = agent.search(request)
            except SourceError as exc:
                cut_off = isinstance(exc, SourceUnreachable)
                log.append(SearchLogEntry(source=name, query=query.query, status="error",
                                          error=exc.message, round=round_number,
                                          unreachable=cut_off,
                                          sent=_as_sent(sent, context)))
                if isinstance(exc, SourceUnreachable):
                    unreachable = exc.message
                    notes.append(_unreachable_note(agent.label, exc, len(queries) - len(log)))
                continue
            records.extend(result.works)
            materials.extend(result.materials)
            notes.extend(result.notes)
            log.append(SearchLogEntry(source=name, query=query.query, n_results=len(result.works),
                                      record_ids=[work.id for work in result.works],
                                      status="ok" if len(result) else "empty",
                                      note=_with_cache_note(result.log_note, stored),
                                      round=round_number, sent=_as_sent(sent, context),
                                      **_answered_at(stored)))
        return {"records": records, "materials": materials, "search_log": log,
                "notes": list(dict.fromkeys(notes))}

    run_source.__name__ = f"search_{name}"
    run_source.__doc__ = f"Run this round's {name} queries and record each in the search log."
    return run_source


def _as_sent(sent: list[str], context: ReviewContext) -> list[str]:
    """The requests of one search, once each in the order sent, any key in force scrubbed (a
    plug-in's key carried in a path or under a name it did not declare)."""
    return [redact(line, context.run_settings) for line in dict.fromkeys(sent)]


def _answered_at(stored: list[datetime]) -> dict[str, str]:
    """The log entry's time when its answer came from the cache: when the oldest cached
    answer was stored, the day the search really reached (an update searches from it)."""
    return {"at": min(stored).isoformat(timespec="seconds")} if stored else {}


def _with_cache_note(note: str | None, stored: list[datetime]) -> str | None:
    """The entry's note, saying when a cached answer was stored: a scientist reading the log
    of a re-run sees that the catalogue was read as it was that day."""
    if not stored:
        return note
    said = f"answered from the cache stored {min(stored).date().isoformat()}"
    return f"{note}; {said}" if note else said


def _earlier_unreachable(search_log: list[SearchLogEntry], name: str) -> str | None:
    """Why ``name`` could not be reached in an earlier round, or ``None`` if it could."""
    return next((entry.error for entry in search_log
                 if entry.source == name and entry.unreachable), None)


def _unreachable_note(label: str, error: SourceUnreachable, skipped: int) -> str:
    """What the reader should know when a source could not be reached at all."""
    rest = f"; its {skipped} other queries this round were not sent" if skipped else ""
    return f"{label} could not be reached ({error.message}){rest}"
