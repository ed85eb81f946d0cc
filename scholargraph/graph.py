"""Builds the review graph: the supervisor, the planning agents, the tool loop and the evidence
stages.

::

    START → supervisor → clean_query → intent → planning → approve_plan → query_generation
          → [pubmed → arxiv → openalex → materials → web]   (registry order, active ones only)
          → retrieval → rag_filter → synthesis → evaluation → supervisor → END | refine

The tool loop's nodes and order come from :mod:`scholargraph.sources.registry`; each step of it
routes to the next *active* source, so inactive ones are skipped without ``if`` chains here.
``graph`` (compiled without a checkpointer, as LangGraph Studio and Server bring their own) is
what ``langgraph.json`` names.
"""

from __future__ import annotations

from collections.abc import Callable

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from scholargraph.agents.approval import approve_plan
from scholargraph.agents.clean_query import clean_query
from scholargraph.agents.evaluation import evaluation
from scholargraph.agents.intent import intent
from scholargraph.agents.planning import planning
from scholargraph.agents.query_generation import query_generation, stops_here
from scholargraph.agents.rag_filter import rag_filter
from scholargraph.agents.retrieval import retrieval
from scholargraph.agents.sources import make_source_node
from scholargraph.agents.supervisor import supervisor
from scholargraph.agents.synthesis import synthesis
from scholargraph.context import ReviewContext
from scholargraph.sources.registry import source_names
from scholargraph.state import FINISH, InputState, OutputState, ReviewState

AFTER_TOOLS = "retrieval"


def next_active(after: str | None, order: list[str]) -> Callable[[ReviewState], str]:
    """A router to the first active source after ``after`` in ``order``, else to retrieval;
    after query generation, to the end when a refinement round has nothing to search."""
    start = 0 if after is None else order.index(after) + 1

    def route(state: ReviewState) -> str:
        if after is None and stops_here(state):
            return FINISH
        active = set(state.get("active_sources", []))
        queried = {query.source for query in state.get("queries", [])}
        for name in order[start:]:
            if name in active and name in queried:
                return name
        return AFTER_TOOLS

    route.__name__ = f"after_{after or 'query_generation'}"
    return route


def build_graph() -> StateGraph[ReviewState, ReviewContext, InputState, OutputState]:
    """The uncompiled graph, for callers that compile it with their own checkpointer."""
    order = source_names()
    builder = StateGraph(ReviewState, context_schema=ReviewContext,
                         input_schema=InputState, output_schema=OutputState)
    builder.add_node("supervisor", supervisor)
    builder.add_node("clean_query", clean_query)
    builder.add_node("intent", intent)
    builder.add_node("planning", planning)
    builder.add_node("approve_plan", approve_plan)
    builder.add_node("query_generation", query_generation)
    for name in order:
        builder.add_node(name, make_source_node(name))
    builder.add_node("retrieval", retrieval)
    builder.add_node("rag_filter", rag_filter)
    builder.add_node("synthesis", synthesis)
    builder.add_node("evaluation", evaluation)

    builder.add_edge(START, "supervisor")
    builder.add_edge("clean_query", "intent")
    builder.add_edge("intent", "planning")
    builder.add_edge("planning", "approve_plan")
    for position, step in enumerate(["query_generation", *order]):
        successors = [*order[position:], AFTER_TOOLS, *([FINISH] if position == 0 else [])]
        builder.add_conditional_edges(step, next_active(None if position == 0 else step, order),
                                      successors)
    builder.add_edge("retrieval", "rag_filter")
    builder.add_edge("rag_filter", "synthesis")
    builder.add_edge("synthesis", "evaluation")
    builder.add_edge("evaluation", "supervisor")
    return builder


def compile_graph(checkpointer: BaseCheckpointSaver | None = None
                  ) -> CompiledStateGraph[ReviewState, ReviewContext, InputState, OutputState]:
    """The compiled graph, with a checkpointer when given (CLI and Python runs)."""
    return build_graph().compile(checkpointer=checkpointer, name="scholargraph")


graph = compile_graph()
