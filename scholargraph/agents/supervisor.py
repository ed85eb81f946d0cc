"""supervisor: owns control flow — where a run starts, whether it refines, and when it stops.

A fresh run goes to clean_query. After each evaluation the supervisor stops when the evaluator
accepts the draft or the iteration budget is spent; otherwise it starts another round, either back
to query_generation for gap queries (``more_evidence``) or straight to rag_filter with a wider
selection (``refilter``). The decision is a rule, not a model call, so a run's path can be audited.
"""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from scholargraph.context import ReviewContext
from scholargraph.state import FINISH, ReviewState

SupervisorRoute = Literal["clean_query", "query_generation", "rag_filter", "__end__"]


def supervisor(state: ReviewState, runtime: Runtime[ReviewContext]) -> Command[SupervisorRoute]:
    context = runtime.context or ReviewContext()
    if "cleaned_question" not in state or "evaluation" not in state:
        return Command(goto="clean_query", update={"iteration": 1, "filter_depth": 0})
    evaluation = state["evaluation"]
    iteration = state.get("iteration", 1)
    if evaluation.verdict == "accept":
        return Command(goto=FINISH, update={"stop_reason": f"accepted: {evaluation.reason}"})
    if iteration >= context.max_iterations:
        return Command(goto=FINISH, update={
            "stop_reason": f"iteration budget of {context.max_iterations} spent "
                           f"({evaluation.reason})"})
    if evaluation.verdict == "refilter":
        return Command(goto="rag_filter", update={
            "iteration": iteration + 1, "filter_depth": state.get("filter_depth", 0) + 1})
    return Command(goto="query_generation", update={"iteration": iteration + 1})
