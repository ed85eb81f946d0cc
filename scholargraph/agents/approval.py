"""approve_plan: with ``approve_plan`` set, pause after planning so a person can steer the run.

The pause is a LangGraph interrupt: Studio shows it, the CLI prompts for it, and Python callers
receive it and resume with ``Command(resume=decision)``. A decision accepts the plan, edits the
sub-questions and sources, or rejects it (the run then ends without searching). Without
``approve_plan`` the node passes straight through.
"""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt
from pydantic import Field, ValidationError

from scholargraph.agents.schemas import SubQuestion
from scholargraph.context import ReviewContext
from scholargraph.errors import InputError
from scholargraph.records import Record
from scholargraph.sources.registry import source_names
from scholargraph.state import FINISH, ReviewState

ApprovalRoute = Literal["query_generation", "__end__"]


class PlanDecision(Record):
    """What a person answers to the plan."""

    action: Literal["accept", "edit", "reject"]
    sub_questions: list[str] | None = Field(None, description="Replacement sub-questions (edit)")
    sources: list[str] | None = Field(None, description="Replacement sources (edit)")
    reason: str = ""


def plan_payload(state: ReviewState) -> dict:
    """What the interrupt shows: the plan and the sources it will search."""
    return {
        "question": state["cleaned_question"],
        "sub_questions": [sub.text for sub in state["sub_questions"]],
        "sources": state.get("active_sources", []),
        "available_sources": source_names(),
        "actions": ["accept", "edit", "reject"],
    }


def parse_decision(value: object) -> PlanDecision:
    """A decision from a resume value: a dict, a PlanDecision, or just the action's name."""
    if isinstance(value, str):
        value = {"action": value}
    try:
        decision = PlanDecision.model_validate(value)
    except ValidationError as exc:
        raise InputError(f"plan decision not understood: {exc.errors()[0]['msg']}; answer "
                         "{'action': 'accept' | 'edit' | 'reject', ...}") from exc
    unknown = set(decision.sources or []) - set(source_names())
    if unknown:
        raise InputError(f"unknown source(s) in the plan decision: {', '.join(sorted(unknown))}")
    return decision


def decision_from_text(text: str) -> PlanDecision:
    """A decision given beforehand (``--plan``): JSON as :class:`PlanDecision` reads it, or
    just the action's name (``accept``)."""
    import json

    value: object = text.strip()
    if isinstance(value, str) and value.startswith("{"):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise InputError(f"--plan is not valid JSON ({exc})") from None
    return parse_decision(value)


def recorded_decision(decision: PlanDecision) -> dict:
    """The decision as the run's record replays it: only what it says."""
    return decision.model_dump(exclude_defaults=True, mode="json")


def edited_plan(state: ReviewState, decision: PlanDecision) -> dict:
    update: dict = {}
    if decision.sub_questions:
        texts = [text.strip() for text in decision.sub_questions if text.strip()]
        update["sub_questions"] = [
            SubQuestion(id=f"q{i}", text=text, answer_shape="as the reviewer asked")
            for i, text in enumerate(texts, 1)]
    if decision.sources:
        chosen = set(decision.sources)
        update["active_sources"] = [name for name in source_names() if name in chosen]
    return update


def approve_plan(state: ReviewState, runtime: Runtime[ReviewContext]) -> Command[ApprovalRoute]:
    context = runtime.context or ReviewContext()
    if context.plan:  # decided beforehand (a re-run of an approved review): not asked again
        decision = decision_from_text(context.plan)
    elif context.approve_plan:
        decision = parse_decision(interrupt(plan_payload(state)))
    else:
        return Command(goto="query_generation")
    taken = {"plan_decision": recorded_decision(decision)}
    if decision.action == "reject":
        reason = decision.reason or "no reason given"
        return Command(goto=FINISH, update={"stop_reason": f"plan rejected: {reason}", **taken})
    update = edited_plan(state, decision) if decision.action == "edit" else {}
    note = ["plan edited by the reviewer"] if update else []
    return Command(goto="query_generation", update={**update, "notes": note, **taken})
