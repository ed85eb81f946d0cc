"""planning: break the question into 2-4 sub-questions, each saying what evidence would answer it.

The deterministic engine asks first for direct evidence on the question (restated, not repeated),
then for each alternative of an "A or B" question, then the facets a reviewer of that kind of
question checks, each written around the question's own concepts
(``scholargraph.deterministic.questions``). The LLM engine writes them freely into the same
:class:`Plan` schema.
"""

from __future__ import annotations

import re

from langgraph.runtime import Runtime
from pydantic import Field

from scholargraph.agents.schemas import Intent, Plan, SubQuestion
from scholargraph.context import ReviewContext
from scholargraph.deterministic.material_names import named_materials
from scholargraph.deterministic.questions import (
    Comparison,
    Concept,
    alternatives,
    asked_about,
    asked_noun_phrase,
    asked_of,
    claim_clause,
    comparison,
    concepts,
    is_claim,
    is_question,
    join,
    statement,
    topic,
    which_noun_phrase,
    with_alternative,
    yes_no_clause,
)
from scholargraph.deterministic.text import commonness, content_words, is_generic
from scholargraph.engines import session_for
from scholargraph.records import Record
from scholargraph.state import ReviewState

MAX_SUB_QUESTIONS = 4

DIRECT_SHAPE = "direct evidence on the question"

FACETS: dict[str, list[tuple[str, str]]] = {
    "comparative": [
        ("What results compare {a} with {b} {context}?",
         "studies that evaluate both side by side, with outcome measures"),
        ("Under which conditions {does} {a} or {b} perform better {context}?",
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
    "methods": [
        ("How have {topic} been evaluated, and on which data?",
         "evaluation designs, datasets, outcome measures"),
        ("What are the main findings and limitations of studies on {topic}?",
         "reported results, effect sizes, stated limitations"),
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
                      r"(?:thermal|electrical|ionic|[a-z]+-ion) conductivit(?:y|ies)|"
                      r"conductivit(?:y|ies)|"
                      r"(?:thermodynamic |thermal |chemical |phase |structural )?stability|"
                      r"elastic (?:moduli|modulus|"
                      r"constants?)|dielectric constants?|magnetic moments?|density of states)\b",
                      re.IGNORECASE)


METHOD_NOUNS = re.compile(r"^the (?:[\w\-]+ ){0,5}(?:methods|approaches|techniques|tools|"
                          r"algorithms|models)\b", re.IGNORECASE)
"""A "Which methods ...?" question asks for methods: the default facet asking which methods
studied them ("What methods and data have been used to study the methods used to detect
...?") goes round in a circle; it is asked how they were evaluated instead."""


def plan_from_template(question: str, intent: Intent) -> Plan:
    """Sub-questions a reviewer would ask: the direct evidence on the question first, then one
    per alternative of an "A or B" question, then the facets of the question's kind. A claim,
    and a yes/no question asked of its methods and findings, is asked about as a clause ("What
    do studies report on whether X increases Y?"), never as a noun phrase it is not: "Does the
    source of mesenchymal stem cells have an effect in the management of osteoarthritis of the
    knee?" asked "What methods and data have been used to study source, mesenchymal stem cells,
    management, osteoarthritis and knee?"."""
    intent = _materials_kind(question, intent)
    facets = _facets(question, intent)
    subject = (claim_clause(question) if is_claim(question)
               else asked_noun_phrase(question) or asked_about(question)
               or topic(question, leave_out=TEMPLATE_WORDS))
    if facets is FACETS["default"] and (asked := yes_no_clause(question)):
        subject = f"whether {asked}"
    elif facets is FACETS["default"] and (how := _how_clause(question)):
        subject = how
    elif facets is FACETS["default"] and (things := which_noun_phrase(question)):
        subject = things
        if METHOD_NOUNS.search(things.split(" that ")[0]):
            facets = FACETS["methods"]
    subs = [SubQuestion(id="q1", text=direct_question(question, asked_of(question) or subject),
                        answer_shape=DIRECT_SHAPE)]
    group = alternatives(question) if intent.kind != "comparative" else []
    for choice in group:
        subs.append(SubQuestion(id="", text=_as_question(with_alternative(question, group, choice)),
                                answer_shape=f"direct evidence on {choice.text}"))
    for template, shape in facets:
        text = template.format(**_slots(question, subject, intent))
        subs.append(SubQuestion(id="", text=_tidy(text), answer_shape=shape))
    unique = list({s.text.lower(): s for s in subs}.values())[:MAX_SUB_QUESTIONS]
    return Plan(sub_questions=[s.model_copy(update={"id": f"q{i}"})
                               for i, s in enumerate(unique, 1)])


def _how_clause(question: str) -> str | None:
    """A "How <adjective> is X ...?", "How is/are X <participle> ...?" or "How can X be
    <participle> ...?" question as a clause the facets can hold ("how effective cognitive
    behavioural therapy is for insomnia", "how diagnostic tests can be improved"): asked of
    its nouns alone it asked the studies "on cognitive behavioural therapy for insomnia"."""
    clause = statement(question) or ""
    return clause if clause.startswith("how ") else None


def direct_question(question: str, subject: str) -> str:
    """The question made into a request for direct evidence, never the question verbatim."""
    clause = statement(question)
    if clause:
        return f"What do studies report on {clause}?"
    return f"What do studies report on {subject}?"


JUDGING = re.compile(r"\b(?:more|less|most|least)\s+$", re.IGNORECASE)
"""A word judged, not a concept compared for ("more stable")."""
ROLE_BEFORE = re.compile(r"\b(?:as\s+(?:an?\s+|the\s+)?|(?:an?\s+)?(?:better|worse)\s+)$",
                         re.IGNORECASE)
"""What the compared materials are used as ("a better photovoltaic absorber", "as a cathode")."""


def material_comparison(question: str) -> Comparison | None:
    """The first two materials a comparative question names, compared for its other concepts
    ("GaN compared with silicon" for the band gap): a materials question compares materials,
    even where the words around "compared with" would pair the band gap with silicon."""
    materials = named_materials(question)
    if len(materials) < 2:
        return None
    a, b = materials[0], materials[1]
    rest = [c for c in concepts(question) if not any(
        c.start < m.end and m.start < c.end for m in materials) and not is_generic(c.text)
        and not JUDGING.search(question[:c.start])]
    roles = [c for c in rest if ROLE_BEFORE.search(question[:c.start])]
    if roles:
        return Comparison(a.written, b.written, f"as {join(roles, question)}")
    return Comparison(a.written, b.written, f"in terms of {join(rest, question)}" if rest else "")


MATERIALS_JUDGED = re.compile(r"\b(?:better|worse)\b.*\bthan\b", re.IGNORECASE)


def _materials_kind(question: str, intent: Intent) -> Intent:
    """A question judging one named material against another ("Is gallium arsenide a better
    photovoltaic absorber than silicon?") is planned as a comparison of the two, whatever kind
    its first words made it."""
    if (intent.kind in ("factual", "other") and "materials" in intent.domains
            and MATERIALS_JUDGED.search(question) and len(named_materials(question)) >= 2):
        return intent.model_copy(update={"kind": "comparative"})
    return intent


def _comparison(question: str, intent: Intent) -> Comparison | None:
    materials = intent.kind == "comparative" and "materials" in intent.domains
    found = material_comparison(question) if materials else None
    return found or comparison(question)


def _facets(question: str, intent: Intent) -> list[tuple[str, str]]:
    if intent.kind == "comparative" and _comparison(question, intent) is None:
        return FACETS["default"]
    if intent.kind == "material_property" and not (PROPERTY.search(question) and
                                                   _material(question)):
        return FACETS["default"]
    if intent.kind == "mechanism" and (statement(question) or "").startswith(("how ", "why ")):
        return FACETS["mechanism_clause"]
    return FACETS.get(intent.kind, FACETS["default"])


def _slots(question: str, subject: str, intent: Intent) -> dict[str, str]:
    """What the templates' placeholders stand for in this question."""
    pair = _comparison(question, intent)
    found = PROPERTY.search(question)
    clause = statement(question) or ""
    return {"a": pair.a if pair else "", "b": pair.b if pair else "",
            "context": pair.context if pair else "", "clause": clause,
            "does": "do" if pair and _plural(pair.b) else "does",
            "body": clause.split(" ", 1)[-1], "topic": subject,
            "property": found.group(0).lower() if found else "",
            **({"topic": _material(question)} if found and _material(question) else {})}


PLURAL_MARGIN = 0.5
"""How much rarer (in Zipf units) than the word its singular may be and still be one: a word
in -s whose stem is no word of its own, or a much rarer one, is singular ("diabetes",
"measles", "series", "physics")."""


def _plural(noun: str) -> bool:
    """Whether a noun phrase's head is plural ("GLP-1 receptor agonists"): the verb of "A or
    B" agrees with B ("do metformin or sulfonylureas perform better")."""
    head = noun.split()[-1].lower() if noun.split() else ""
    if not head.endswith("s") or head.endswith(("ss", "is", "us")) or len(head) <= 3:
        return False
    stem = commonness(head[:-1])
    return stem > 0 and stem >= commonness(head) - PLURAL_MARGIN


NOT_MATERIAL_WORDS = frozenset({
    "high", "higher", "highest", "low", "lower", "lowest", "large", "small", "wide", "narrow",
    "fast", "good", "poor", "about", "around", "approximately", "roughly", "nearly", "ev", "mev",
    "s/cm", "ms/cm", "gpa", "mpa", "k", "%", "value", "values"})
"""Words left of a property phrase that name no material: how much ("high lithium-ion
conductivity"), and a value's unit ("a band gap of about 3.7 eV"). Before, "solid electrolytes
with high lithium-ion conductivity" asked for values "for solid electrolytes and high
lithium-ion", and a claim of a 3.7 eV gap asked for values "for LiFePO4 and eV"."""
CONDITION = re.compile(r"^\s*(under|at|during|upon|after)\s+(?:the\s+)?$", re.IGNORECASE)
"""A condition the property is asked under ("stability under humidity"): it stays attached to
what it qualifies, not listed as a second material ("perovskite solar cell and humidity")."""


def _material(question: str) -> str:
    """The materials a property question is about: its concepts less the property's words,
    amounts and units; a condition stays attached ("perovskite solar cell under humidity")."""
    kept: list[Concept] = []
    previous: Concept | None = None
    for concept in concepts(question):
        rest = " ".join(w for w in PROPERTY.sub(" ", concept.text).split()
                        if w.lower() not in NOT_MATERIAL_WORDS
                        and not re.fullmatch(r"[\d.,]+", w))
        link = CONDITION.match(question[previous.end:concept.start]) if previous else None
        previous = concept
        if not rest or set(rest.lower().split()) <= TEMPLATE_WORDS:
            continue
        if kept and link:
            kept[-1] = Concept(f"{kept[-1].text} {link.group(1).lower()} {rest}",
                               kept[-1].start, concept.end)
        else:
            kept.append(Concept(rest, concept.start, concept.end))
    return join(kept, question)


def _as_question(text: str) -> str:
    if is_claim(text):
        return f"What do studies report on {claim_clause(text)}?"
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


MODEL_SHAPE = "evidence that answers it"
"""What a model's sub-question is said to need when the model wrote no usable answer shape."""
EMPTY_SHAPES = frozenset({"", "none", "null", "n/a", "na", "-", "?"})
CONTINUED = re.compile(r"\s*(?:Question|Answer|Sub-?question|Note)\s*:.*$", re.IGNORECASE)
"""Where a small model carries on past its answer, writing the next turn of a conversation
("NONE }}\nQuestion: What are some ways to improve ...?\nAnswer: {")."""


def one_line_of(text: str) -> str:
    """A model's field as one line: its first non-empty line, without the conversation it
    carried on into or the JSON punctuation it leaked (SmolLM2-135M's answer shapes held both)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    first = CONTINUED.sub("", first)
    return " ".join(first.strip(" \t{}[]\",'").split())


def usable_shape(text: str, first: bool) -> str:
    """A model's answer shape, or a plain one when it wrote none ('NONE', '', braces)."""
    shape = one_line_of(text)
    if shape.lower().rstrip(".") in EMPTY_SHAPES:
        return DIRECT_SHAPE if first else MODEL_SHAPE
    return shape


def distinct(texts: list[str], question: str, keywords: list[str]
             ) -> tuple[list[int], list[str]]:
    """The indices of the sub-questions to keep (related to the question and not repeating an
    earlier one) and a note for each dropped. A sub-question repeats another when its content
    words are all among the other's: SmolLM2-135M's plans asked "What is the current state of
    X?" and then "The current state of X.", and a review listed both as unanswered. A
    statement is no sub-question: SmolLM2-135M's q2 "Implementing data-driven approaches in
    ... public health surveillance is a multi-faceted endeavor that involves ..." was quoted
    in the review's summary and gaps as a question nothing answered."""
    asked = set(content_words(" ".join([question, *keywords])))
    kept: list[int] = []
    notes: list[str] = []
    for i, text in enumerate(texts):
        words = set(content_words(text))
        if not text:
            continue
        if not words & asked:
            notes.append(f"planning: dropped the model's sub-question {text!r} (it shares no "
                         "word with the question)")
            continue
        same = next((n for n, k in enumerate(kept, 1)
                     if words <= set(content_words(texts[k]))), None)
        if same is not None:
            notes.append(f"planning: dropped the model's sub-question {text!r} (it asks what "
                         f"q{same} asks)")
            continue
        if is_claim(text):
            notes.append(f"planning: dropped the model's sub-question {text!r} (a statement, "
                         "not a question)")
            continue
        kept.append(i)
    return kept, notes


def claim_first(question: str, intent: Intent) -> SubQuestion | None:
    """For a claim, the sub-question that asks the claim itself, as the deterministic engine
    words it ("What do studies report on whether X increases Y?"); None for a question or a
    topic. A claim's review weighs the studies on the claim: SmolLM2-135M's plans for claims
    opened on a neighbouring question ("What are the benefits of folate?") and never asked the
    claim, so the model's sub-questions follow it instead of replacing it."""
    if not is_claim(question):
        return None
    first = plan_from_template(question, intent).sub_questions[0]
    return first.model_copy(update={"id": "q1"})


def with_claim(written: list[str], claim: SubQuestion | None) -> list[str]:
    """The model's sub-questions after the claim's own (unless the model wrote it as is)."""
    if claim is None or (written and written[0] == claim.text):
        return written
    return [claim.text, *written]


def plan_problems(reply: PlanReply, question: str, keywords: list[str],
                  claim: SubQuestion | None = None) -> list[str]:
    """Why a model's plan cannot be used as it is: too few or too many sub-questions, or fewer
    than two that share a word with the question and do not repeat each other (the same count
    a user's plan must meet; a claim's own sub-question counts as one)."""
    written = [one_line_of(s.text) for s in reply.sub_questions]
    written = [t for t in written if t]
    kept, _ = distinct(with_claim(written, claim), question, keywords)
    if not MIN_SUB_QUESTIONS <= len(written) <= MODEL_MAX_SUB_QUESTIONS:
        return [(f"{len(written)} sub-questions where "
                 f"{MIN_SUB_QUESTIONS}-{MODEL_MAX_SUB_QUESTIONS} are needed")]
    if len(kept) < MIN_SUB_QUESTIONS:
        return [f"{len(kept)} of the sub-questions share a word with the question without "
                f"repeating another; {MIN_SUB_QUESTIONS} are needed"]
    return []


def plan_of(reply: PlanReply, question: str, keywords: list[str],
            claim: SubQuestion | None = None) -> tuple[Plan, list[str]]:
    """The model's plan, each field on one line, without the sub-questions unrelated to the
    question or repeating an earlier one (each with a note); for a claim, after the claim's
    own sub-question (:func:`claim_first`)."""
    written = [(one_line_of(s.text), s.answer_shape) for s in reply.sub_questions]
    written = [(text, shape) for text, shape in written if text]
    notes: list[str] = []
    texts = with_claim([text for text, _ in written], claim)
    if claim is not None and len(texts) > len(written):
        written = [(claim.text, claim.answer_shape), *written]
        notes.append(f"planning: q1 asks the claim itself ({claim.text!r}); the model's "
                     "sub-questions follow it")
    kept, dropped = distinct(texts, question, keywords)
    return Plan(sub_questions=[
        SubQuestion(id=f"q{n}", text=written[i][0],
                    answer_shape=usable_shape(written[i][1], first=n == 1))
        for n, i in enumerate(kept, 1)]), notes + dropped


def planning(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    question, found = state["cleaned_question"], state["intent"]
    notes: list[str] = []
    session = session_for(context, state)
    if session is None:
        plan = plan_from_template(question, found)
        return {"sub_questions": renumber(plan, question), "notes": notes}
    template = plan_from_template(question, found)
    claim = claim_first(question, found)
    reply, notes = session.ask(
        PlanReply, system=SYSTEM,
        user=f"Question: {question}\nKind: {found.kind}\nKey terms: {', '.join(found.keywords)}",
        fallback=lambda: PlanReply(sub_questions=[
            PlannedQuestion(text=s.text, answer_shape=s.answer_shape)
            for s in template.sub_questions]),
        step="planning", max_tokens=PLAN_TOKENS,
        check=lambda r: plan_problems(r, question, found.keywords, claim),
    )
    plan, dropped = plan_of(reply, question, found.keywords, claim)
    return {"sub_questions": renumber(plan, question), "notes": notes + dropped,
            "model_steps": session.steps}
