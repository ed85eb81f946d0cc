"""planning: break the question into 2-4 sub-questions, each saying what evidence would answer it.

The deterministic engine uses one template per question kind: the question itself first (it is
what the scientist asked), then the facets a reviewer of that kind of question checks. The LLM
engine writes them freely into the same :class:`Plan` schema.
"""

from __future__ import annotations

import re

from langgraph.runtime import Runtime
from pydantic import Field

from scholargraph.context import ReviewContext
from scholargraph.engines import session_for
from scholargraph.records import Record
from scholargraph.schemas import Intent, Plan, SubQuestion
from scholargraph.state import ReviewState
from scholargraph.text import content_words

MAX_SUB_QUESTIONS = 4

FACETS: dict[str, list[tuple[str, str]]] = {
    "comparative": [
        ("How do {a} and {b} compare in reported results?",
         "studies that evaluate both side by side, with outcome measures"),
        ("In which settings or conditions does one outperform the other for {topic}?",
         "subgroup, dataset or condition-specific results"),
    ],
    "mechanism": [
        ("What mechanisms have been proposed for {topic}?", "mechanistic or experimental studies"),
        ("What evidence supports or contradicts these mechanisms?",
         "experiments, interventions or replications"),
    ],
    "material_property": [
        ("What values of the property are reported for {topic}, computed and measured?",
         "numerical values with units, method (DFT functional or experiment)"),
        ("What explains differences between reported values for {topic}?",
         "method comparisons, sample or synthesis differences"),
    ],
    "dataset": [
        ("Which datasets or benchmarks exist for {topic}?", "dataset papers, size, licence"),
        ("How have these datasets been used and evaluated?", "studies reporting results on them"),
    ],
    "default": [
        ("What methods and data have been used to study {topic}?",
         "study designs, data sources, sample sizes"),
        ("What are the main findings and their limitations for {topic}?",
         "reported results, effect sizes, stated limitations"),
    ],
}


def plan_from_template(question: str, intent: Intent) -> Plan:
    """Sub-questions from the kind's template, the question itself first."""
    topic = " and ".join(intent.keywords[:2]) or question.rstrip("?")
    a, b = _compared_pair(question, intent)
    facets = FACETS.get(intent.kind, FACETS["default"])
    if intent.kind == "comparative" and not (a and b):
        facets = FACETS["default"]
    subs = [SubQuestion(id="q1", text=question, answer_shape="direct evidence on the question")]
    for template, shape in facets:
        text = template.format(topic=topic, a=a, b=b)
        subs.append(SubQuestion(id=f"q{len(subs) + 1}", text=text, answer_shape=shape))
    return Plan(sub_questions=subs[:MAX_SUB_QUESTIONS])


def _compared_pair(question: str, intent: Intent) -> tuple[str, str]:
    match = re.search(r"(?:compare|comparing|between)?\s*([\w\s\-]+?)\s+(?:versus|vs\.?|"
                      r"compared? (?:with|to)|and|or)\s+([\w\s\-]+?)(?:\s+(?:for|in|on|at)\b|[?.,]|$)",
                      question, re.IGNORECASE)
    if match and intent.kind == "comparative":
        return _tail(match.group(1)), _tail(match.group(2))
    return "", ""


def _tail(phrase: str) -> str:
    kept = re.sub(r"^(how|does|do|is|are|what|which|compare|comparing|between)\s+", "",
                  phrase.strip(), flags=re.IGNORECASE)
    return " ".join(kept.split()[-3:])


def renumber(plan: Plan, question: str) -> list[SubQuestion]:
    """Ids q1..qn in order, at most MAX_SUB_QUESTIONS, never empty."""
    subs = [s for s in plan.sub_questions if s.text.strip()] or [
        SubQuestion(id="q1", text=question, answer_shape="direct evidence on the question")]
    return [s.model_copy(update={"id": f"q{i}"}) for i, s in enumerate(subs[:MAX_SUB_QUESTIONS], 1)]


SYSTEM = """You plan literature reviews. Break the research question into 2-4 self-contained
sub-questions that together cover it; the first should be the question itself, made precise.
For each, say what evidence would answer it."""

MIN_SUB_QUESTIONS = 2
MODEL_MAX_SUB_QUESTIONS = 5
"""A model's plan must hold 2-5 sub-questions (the schema's rule); the first four are kept."""
PLAN_TOKENS = 400
"""Room for five sub-questions of a sentence each, with what would answer them."""


class PlannedQuestion(Record):
    """One sub-question as the model writes it (the system numbers them)."""

    text: str = Field(description="The sub-question, self-contained")
    answer_shape: str = Field(description="What evidence would answer it, in a few words")


class PlanReply(Record):
    """What the model writes for a plan: the sub-questions only."""

    sub_questions: list[PlannedQuestion] = Field(
        min_length=MIN_SUB_QUESTIONS, max_length=MODEL_MAX_SUB_QUESTIONS,
        description="2-5 sub-questions covering the question")


def plan_problems(reply: PlanReply, question: str, keywords: list[str]) -> list[str]:
    """Why a model's plan cannot be used as it is: too few or too many sub-questions, or
    sub-questions that share no word with the question (the same count a user's plan must meet)."""
    asked = set(content_words(" ".join([question, *keywords])))
    written = [s for s in reply.sub_questions if s.text.strip()]
    related = [s for s in written if set(content_words(s.text)) & asked]
    if not MIN_SUB_QUESTIONS <= len(written) <= MODEL_MAX_SUB_QUESTIONS:
        return [(f"{len(written)} sub-questions where "
                 f"{MIN_SUB_QUESTIONS}-{MODEL_MAX_SUB_QUESTIONS} are needed")]
    if len(related) < MIN_SUB_QUESTIONS:
        return [f"only {len(related)} sub-questions share a word with the question"]
    return []


def plan_of(reply: PlanReply, question: str, keywords: list[str]) -> tuple[Plan, list[str]]:
    """The model's plan without the sub-questions unrelated to the question (with a note)."""
    asked = set(content_words(" ".join([question, *keywords])))
    written = [s for s in reply.sub_questions if s.text.strip()]
    kept = [s for s in written if set(content_words(s.text)) & asked]
    notes = [f"planning: dropped the model's sub-question {s.text!r} (it shares no word with "
             "the question)" for s in written if s not in kept]
    return Plan(sub_questions=[SubQuestion(id=f"q{i}", text=s.text, answer_shape=s.answer_shape)
                               for i, s in enumerate(kept, 1)]), notes


def planning(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    question, found = state["cleaned_question"], state["intent"]
    notes: list[str] = []
    session = session_for(context, state)
    if session is None:
        plan = plan_from_template(question, found)
        return {"sub_questions": renumber(plan, question), "notes": notes}
    template = plan_from_template(question, found)
    reply, notes = session.ask(
        PlanReply, system=SYSTEM,
        user=f"Question: {question}\nKind: {found.kind}\nKey terms: {', '.join(found.keywords)}",
        fallback=lambda: PlanReply(sub_questions=[
            PlannedQuestion(text=s.text, answer_shape=s.answer_shape)
            for s in template.sub_questions]),
        step="planning", max_tokens=PLAN_TOKENS,
        check=lambda r: plan_problems(r, question, found.keywords),
    )
    plan, dropped = plan_of(reply, question, found.keywords)
    return {"sub_questions": renumber(plan, question), "notes": notes + dropped,
            "model_steps": session.steps}
