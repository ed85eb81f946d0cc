"""planning: break the question into 2-4 sub-questions, each saying what evidence would answer it.

The deterministic engine uses one template per question kind: the question itself first (it is
what the scientist asked), then the facets a reviewer of that kind of question checks. The LLM
engine writes them freely into the same :class:`Plan` schema.
"""

from __future__ import annotations

import re

from langgraph.runtime import Runtime

from scholargraph.context import ReviewContext
from scholargraph.engines import ask_structured, chat_model_for
from scholargraph.schemas import Intent, Plan, SubQuestion
from scholargraph.state import ReviewState

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
For each, say what evidence would answer it. Use ids q1, q2, ..."""


def planning(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    question, found = state["cleaned_question"], state["intent"]
    notes: list[str] = []
    model = chat_model_for(context)
    if model is None:
        plan = plan_from_template(question, found)
    else:
        plan, notes = ask_structured(
            model, Plan, system=SYSTEM,
            user=f"Question: {question}\nKind: {found.kind}\nKey terms: {', '.join(found.keywords)}",
            fallback=lambda: plan_from_template(question, found), agent="planning",
        )
    return {"sub_questions": renumber(plan, question), "notes": notes}
