"""supervisor: owns control flow — where a run starts, whether it refines, and when it stops.

A fresh run goes to clean_query. After each evaluation the supervisor stops when the evaluator
accepts the draft or the iteration budget is spent; otherwise it starts another round, either back
to query_generation for gap queries (``more_evidence``) or straight to rag_filter with a wider
selection (``refilter``). A ``more_evidence`` round is started only when it can search something
new (:func:`nothing_left_to_search`): otherwise the run stops and says so. The decision is a rule,
not a model call, so a run's path can be audited.
"""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from scholargraph.agents.query_generation import deterministic_queries, gap_ids
from scholargraph.context import ReviewContext
from scholargraph.sources.registry import get_agent
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
    if nothing_left_to_search(state, context):
        weak = ", ".join(gap_ids(state)) or "the sub-questions"
        return Command(goto=FINISH, update={
            "stop_reason": f"nothing left to search: every source has been searched with every "
                           f"query the gaps allow (still without evidence: {weak})"})
    return Command(goto="query_generation", update={"iteration": iteration + 1})


def nothing_left_to_search(state: ReviewState, context: ReviewContext) -> bool:
    """Whether another round would search nothing new: the deterministic engine has no query
    for the gaps that is not already in the search log, and no chat model could write one
    (a model writes term queries for a source searched by terms; a source searched by name,
    the library read whole or the Materials Project by material, gets only its named queries,
    whatever the engine: :func:`~scholargraph.agents.query_generation.with_named_queries`).

    Without it, a library review sent back for evidence ran rounds 6-10 of a 10-round budget
    with zero queries each, re-screening and re-embedding its 2,500 records for a draft that
    could not change."""
    agents = [get_agent(name, context.run_settings) for name in state.get("active_sources", [])]
    if not agents:
        return True
    question = state.get("cleaned_question", "")
    intent, subs = state["intent"], state["sub_questions"]
    sent = {(entry.source, entry.query) for entry in state.get("search_log", [])}
    targets = gap_ids(state) or [sub.id for sub in subs]
    if deterministic_queries(agents, subs, intent, round_number=state.get("iteration", 1) + 1,
                             targets=targets, already_sent=sent, question=question):
        return False
    by_terms = [agent for agent in agents if not agent.named_queries(question, intent)]
    with_model = context.chat_model is not None or bool(context.model_name())
    return not (by_terms and with_model)
