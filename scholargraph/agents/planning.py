"""planning: break the question into 2-4 sub-questions, each saying what evidence would answer it.

The deterministic engine asks first for direct evidence on the question (restated, not repeated),
then for each alternative of an "A or B" question, then the facets a reviewer of that kind of
question checks, each written around the question's own concepts (``scholargraph.questions``). The LLM
engine writes them freely into the same :class:`Plan` schema.
"""

from __future__ import annotations

import re

from langgraph.runtime import Runtime

from scholargraph.context import ReviewContext
from scholargraph.engines import ask_structured, chat_model_for
from scholargraph.questions import (
    Concept,
    alternatives,
    comparison,
    concepts,
    is_question,
    join,
    statement,
    topic,
    with_alternative,
)
from scholargraph.schemas import Intent, Plan, SubQuestion
from scholargraph.state import ReviewState

MAX_SUB_QUESTIONS = 4

DIRECT_SHAPE = "direct evidence on the question"

FACETS: dict[str, list[tuple[str, str]]] = {
    "comparative": [
        ("What results compare {a} with {b} {context}?",
         "studies that evaluate both side by side, with outcome measures"),
        ("Under which conditions does {a} or {b} perform better {context}?",
         "subgroup, dataset or condition-specific results"),
    ],
    "mechanism": [
        ("What mechanisms have been proposed for {topic}?", "mechanistic or experimental studies"),
        ("What experiments support or contradict the proposed mechanisms of {topic}?",
         "experiments, interventions or replications"),
    ],
    "mechanism_clause": [
        ("What mechanisms could explain {clause}?", "mechanistic or experimental studies"),
        ("What experiments support or contradict the proposed mechanisms by which {body}?",
         "experiments, interventions or replications"),
    ],
    "material_property": [
        ("What values of {property} are reported for {topic}, computed and measured?",
         "numerical values with units, method (DFT functional or experiment)"),
        ("What explains differences between reported values of {property} for {topic}?",
         "method comparisons, sample or synthesis differences"),
    ],
    "dataset": [
        ("Which datasets or benchmarks exist for {topic}?", "dataset papers, size, licence"),
        ("How have datasets for {topic} been used and evaluated?",
         "studies reporting results on them"),
    ],
    "default": [
        ("What methods and data have been used to study {topic}?",
         "study designs, data sources, sample sizes"),
        ("What are the main findings and limitations of studies on {topic}?",
         "reported results, effect sizes, stated limitations"),
    ],
}

TEMPLATE_WORDS = frozenset(
    word for facets in FACETS.values() for template, _ in facets
    for word in re.findall(r"[a-z]+", re.sub(r"\{\w+\}", " ", template.lower()))
) | {"direct", "evidence", "whether", "studies", "study", "terms"}
"""Words the templates add around the question's concepts; never a concept themselves."""

PROPERTY = re.compile(r"\b(band ?gaps?|formation energ(?:y|ies)|lattice (?:constants?|parameters?)|"
                      r"(?:thermal|electrical|ionic) conductivit(?:y|ies)|conductivit(?:y|ies)|"
                      r"(?:thermodynamic |thermal |chemical )?stability|elastic (?:moduli|modulus|"
                      r"constants?)|dielectric constants?|magnetic moments?|density of states)\b",
                      re.IGNORECASE)


def plan_from_template(question: str, intent: Intent) -> Plan:
    """Sub-questions a reviewer would ask: the direct evidence on the question first, then one
    per alternative of an "A or B" question, then the facets of the question's kind."""
    subject = topic(question, leave_out=TEMPLATE_WORDS)
    subs = [SubQuestion(id="q1", text=direct_question(question, subject),
                        answer_shape=DIRECT_SHAPE)]
    group = alternatives(question) if intent.kind != "comparative" else []
    for choice in group:
        subs.append(SubQuestion(id="", text=_as_question(with_alternative(question, group, choice)),
                                answer_shape=f"direct evidence on {choice.text}"))
    for template, shape in _facets(question, intent):
        text = template.format(**_slots(question, subject))
        subs.append(SubQuestion(id="", text=_tidy(text), answer_shape=shape))
    unique = list({s.text.lower(): s for s in subs}.values())[:MAX_SUB_QUESTIONS]
    return Plan(sub_questions=[s.model_copy(update={"id": f"q{i}"})
                               for i, s in enumerate(unique, 1)])


def direct_question(question: str, subject: str) -> str:
    """The question made into a request for direct evidence, never the question verbatim."""
    clause = statement(question)
    if clause:
        return f"What do studies report on {clause}?"
    return f"What do studies report on {subject}?"


def _facets(question: str, intent: Intent) -> list[tuple[str, str]]:
    if intent.kind == "comparative" and comparison(question) is None:
        return FACETS["default"]
    if intent.kind == "material_property" and not (PROPERTY.search(question) and
                                                   _material(question)):
        return FACETS["default"]
    if intent.kind == "mechanism" and (statement(question) or "").startswith(("how ", "why ")):
        return FACETS["mechanism_clause"]
    return FACETS.get(intent.kind, FACETS["default"])


def _slots(question: str, subject: str) -> dict[str, str]:
    """What the templates' placeholders stand for in this question."""
    pair = comparison(question)
    found = PROPERTY.search(question)
    clause = statement(question) or ""
    return {"a": pair.a if pair else "", "b": pair.b if pair else "",
            "context": pair.context if pair else "", "clause": clause,
            "body": clause.split(" ", 1)[-1], "topic": subject,
            "property": found.group(0).lower() if found else "",
            **({"topic": _material(question)} if found and _material(question) else {})}


def _material(question: str) -> str:
    """The materials a property question is about: its concepts less the property's words."""
    kept = []
    for concept in concepts(question):
        rest = " ".join(PROPERTY.sub(" ", concept.text).split())
        if rest and not set(rest.lower().split()) <= TEMPLATE_WORDS:
            kept.append(Concept(rest, concept.start, concept.end))
    return join(kept, question)


def _as_question(text: str) -> str:
    text = text.strip().rstrip("?.! ")
    if not is_question(text):
        return f"What do studies report on {text[:1].lower() + text[1:]}?"
    return text + "?"


def _tidy(text: str) -> str:
    return re.sub(r"\s+([?,])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


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
