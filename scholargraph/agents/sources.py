"""The tool-loop nodes: one per registered source agent, built from the registry.

Each node runs its agent's queries of the current round and returns what it found plus one
search-log entry per query. A failing source is recorded (status ``error`` with the reason) and
the review goes on; a source that cannot run (no key) is recorded as ``skipped`` with a note.
"""

from __future__ import annotations

from collections.abc import Callable

from langgraph.runtime import Runtime

from scholargraph.context import ReviewContext
from scholargraph.errors import SourceError
from scholargraph.records import SearchLogEntry
from scholargraph.state import ReviewState
from scholargraph.tools.base import SearchRequest
from scholargraph.tools.registry import get_agent

SourceNode = Callable[[ReviewState, Runtime[ReviewContext]], dict]


def make_source_node(name: str) -> SourceNode:
    """The graph node of source ``name``."""

    def run_source(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
        context = runtime.context or ReviewContext()
        agent = get_agent(name)
        round_number = state.get("iteration", 1)
        queries = [q for q in state.get("queries", []) if q.source == name]
        reason = agent.unavailable_reason()
        if reason:
            entries = [SearchLogEntry(source=name, query=q.query, status="skipped", error=reason,
                                      round=round_number) for q in queries]
            return {"search_log": entries, "notes": [f"{agent.label} skipped: {reason}"]}
        records, materials, log, notes = [], [], [], []
        intent = state["intent"]
        for query in queries:
            request = SearchRequest(query=query.query, limit=context.max_results,
                                    since=intent.since, until=intent.until,
                                    news_window=intent.news_window, wants_data=intent.wants_data)
            try:
                result = agent.search(request)
            except SourceError as exc:
                log.append(SearchLogEntry(source=name, query=query.query, status="error",
                                          error=exc.message, round=round_number))
                continue
            records.extend(result.works)
            materials.extend(result.materials)
            notes.extend(result.notes)
            log.append(SearchLogEntry(source=name, query=query.query, n_results=len(result.works),
                                      status="ok" if len(result) else "empty", round=round_number))
        return {"records": records, "materials": materials, "search_log": log,
                "notes": list(dict.fromkeys(notes))}

    run_source.__name__ = f"search_{name}"
    run_source.__doc__ = f"Run this round's {name} queries and record each in the search log."
    return run_source
