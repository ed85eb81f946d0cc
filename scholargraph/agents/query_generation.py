"""query_generation: for each active source and sub-question, a query in that source's syntax.

Round 1 writes one query per source for the question's key terms and one per further sub-question
with its distinctive terms. A refinement round writes queries aimed at the evaluator's gaps (the
poorly covered sub-questions), broader than before, and never a query already in the search log.
The syntax itself belongs to each source agent (``SourceAgent.build_query``), so a new agent brings
its own.
"""

from __future__ import annotations

import re
from typing import Literal

from langgraph.runtime import Runtime
from pydantic import Field

from scholargraph.agents.planning import TEMPLATE_WORDS
from scholargraph.agents.schemas import Intent, SourceQuery, SubQuestion
from scholargraph.context import ReviewContext
from scholargraph.deterministic.material_names import named_materials
from scholargraph.deterministic.questions import alternatives
from scholargraph.deterministic.text import (
    chemical_formulas,
    commonness,
    content_words,
    is_generic,
    key_phrases,
    specific_words,
)
from scholargraph.engines import session_for
from scholargraph.records import Record, SearchLogEntry
from scholargraph.sources.base import SourceAgent
from scholargraph.sources.registry import get_agent
from scholargraph.state import ReviewState

MAX_QUERIES_PER_SOURCE = 4
PER_SUB_QUESTION = 2
COVERED = 0.5


def gap_ids(state: ReviewState) -> list[str]:
    """Sub-questions the last evaluation found poorly covered."""
    evaluation = state.get("evaluation")
    if evaluation is None:
        return []
    return [sid for sid, score in evaluation.coverage.items() if score < COVERED]


MAX_TERMS = 4
ANY_TWO_WORDS = 6
"""Words of an any-two query: the six most specific make fifteen pairs. On the SciFact train
claims served as OpenAlex (``bench/review.py``'s corpus service), a gold evidence abstract is
among the first 20 records of such a query for 94% of the claims (87% with four words, 95% with
seven, whose 21 pairs make a long query); with the focused query beside it, 94% of the claims
have one among the records of round 1, against 39% for the focused query alone."""
KIND_WORDS = frozenset(["mechanism", "mechanisms", "dataset", "datasets", "benchmark",
                        "benchmarks", "values", "value"])
"""What a question asks for rather than what it is about: the templates name them around the
topic, so they are left out of queries even when the question used them."""


def terms_for(sub: SubQuestion, intent: Intent) -> list[str]:
    """Search terms for a sub-question: the concepts it names, without the words the planning
    templates put around them ("methods", "perform better"), most specific first.

    Words too general to search on ("adults", "risk") join only when fewer than two specific
    concepts are left (an "A or B" list counts as one). The alternatives come after the
    concepts they share, so a source that requires its first term and any of the others asks
    for ``C AND (A OR B)``. A
    sub-question naming no concept of its own is searched with the question's key terms.
    """
    question_words = _question_words(intent)
    own = [_without_template_words(p, question_words) for p in key_phrases(sub.text, limit=8)]
    own = [p for p in dict.fromkeys(own) if p]
    if not any(not is_generic(p) for p in own):
        own = list(intent.keywords)
    either = {c.text for c in alternatives(sub.text)}
    specific = sorted((p for p in own if not is_generic(p) and p not in either),
                      key=_rarest_word)
    options = [p for p in own if p in either]
    general = [p for p in own if is_generic(p) and p not in either]
    concepts = len(specific) + bool(options)
    chosen = [*specific, *general[:max(0, 2 - concepts)], *options]
    return chosen[:MAX_TERMS]


def words_for(sub: SubQuestion, intent: Intent) -> list[str]:
    """The sub-question's most specific words for an any-two query (rarest first, see
    :func:`~scholargraph.deterministic.text.specific_words`), without the planning templates'
    words unless the question itself used them."""
    question_words = _question_words(intent)
    kept = [w for w in specific_words(sub.text)
            if _without_template_words(w, question_words)]
    return kept[:ANY_TWO_WORDS]


def _question_words(intent: Intent) -> set[str]:
    return {word for term in intent.keywords for word in term.lower().split()}


def _rarest_word(phrase: str) -> float:
    """How common the rarest word of a phrase is: the lower, the more specific the phrase. A
    chemical formula names one compound exactly, so formulas rank first, in the question's
    order."""
    if chemical_formulas(phrase):
        return 0.0
    return min(commonness(word) for word in phrase.split())


def _without_template_words(phrase: str, question_words: set[str]) -> str:
    """The phrase less the planning templates' words, unless the question itself used them."""
    kept = [w for w in phrase.split() if w.lower() not in KIND_WORDS
            and (w.lower() not in TEMPLATE_WORDS or w.lower() in question_words)]
    return " ".join(kept)


QueryForm = Literal["focused", "any two"]
"""How a term set is asked: its first term required and any other joining it
(``SourceAgent.build_query``), or any two of its words (``SourceAgent.build_any_two_query``)."""


def term_sets(sub: SubQuestion, intent: Intent, round_number: int
              ) -> list[tuple[list[str], QueryForm]]:
    """The term combinations to try for a sub-question, and how to combine each, best first.

    Round 1 asks for the concepts together, the most specific required (as a librarian would),
    then for any two of the sub-question's most specific words, which finds the studies that
    name the subject in other words. A refinement round casts wider: first dropping the least
    important concepts, then each specific concept on its own, so a question whose concepts are
    never studied together still finds the evidence for each. A word too general to mean
    anything alone ("adults") is never searched alone, and multi-word terms are never broken into
    their words.
    """
    terms = terms_for(sub, intent)
    if round_number == 1:
        return [(terms, "focused"), (words_for(sub, intent), "any two")]
    narrower = [terms[:keep] for keep in range(len(terms) - 1, 0, -1)]
    singles = [[term] for term in terms[1:] if not is_generic(term)]
    return [(s, "focused") for s in [*narrower, *singles]
            if not (len(s) == 1 and is_generic(s[0]))]


def deterministic_queries(
    agents: list[SourceAgent], subs: list[SubQuestion], intent: Intent, *,
    round_number: int, targets: list[str], already_sent: set[tuple[str, str]],
    question: str = "",
) -> list[SourceQuery]:
    """Queries for every agent and target sub-question, new to the search log, capped per source.

    Each sub-question offers its combinations best first (:func:`term_sets`); the sub-questions
    take turns, so every one gets its best query before any gets its second, and each gets at
    most ``PER_SUB_QUESTION``. A source searched by the names the question holds (the Materials
    Project, by material) gets its :func:`named_source_queries` instead.
    """
    offers = {sub.id: term_sets(sub, intent, round_number) for sub in subs if sub.id in targets}
    queries: list[SourceQuery] = []
    for agent in agents:
        named = named_source_queries(agent, question, intent, subs, round_number, already_sent)
        if named is not None:
            queries += named
            continue
        seen: set[str] = set()
        written = dict.fromkeys(offers, 0)
        for turn in range(max((len(o) for o in offers.values()), default=0)):
            for sid, offered in offers.items():
                if (turn >= len(offered) or written[sid] >= PER_SUB_QUESTION
                        or len(seen) >= MAX_QUERIES_PER_SOURCE):
                    continue
                terms, form = offered[turn]
                text = (agent.build_any_two_query(terms, intent) if form == "any two"
                        else agent.build_query(terms, intent))
                if not text or text in seen or (agent.name, text) in already_sent:
                    continue
                seen.add(text)
                written[sid] += 1
                queries.append(SourceQuery(source=agent.name, sub_question_id=sid, query=text,
                                           round=round_number))
    return queries


def named_source_queries(agent: SourceAgent, question: str, intent: Intent,
                         subs: list[SubQuestion], round_number: int,
                         already_sent: set[tuple[str, str]]) -> list[SourceQuery] | None:
    """The source's one query per thing the question names (``SourceAgent.named_queries``: each
    material for the Materials Project), not yet sent, under the first sub-question; ``None``
    when the question names nothing the source looks up by name (it is searched by terms).

    Every named material is searched however many there are: the per-source cap is for term
    combinations, and a material left out is a row missing from the evidence table."""
    named = agent.named_queries(question, intent) if question else []
    if not named:
        return None
    first = subs[0].id if subs else "q1"
    return [SourceQuery(source=agent.name, sub_question_id=first, query=text, round=round_number)
            for text in named if (agent.name, text) not in already_sent]


class DraftQuery(Record):
    source: str = Field(description="One of the listed sources")
    sub_question_id: str = Field(description="The sub-question's id as listed, e.g. q1")
    query: str = Field(description="The query in that source's own syntax")


class QueryPlan(Record):
    queries: list[DraftQuery] = Field(
        min_length=1, description="One query per source and sub-question")


SYSTEM = """You write search queries for scientific sources. For each source and sub-question,
write one query in that source's own syntax (described below), precise enough to find primary
studies. In a refinement round, aim at the listed gaps and write broader or differently worded
queries than the ones already sent."""

TOKENS_PER_QUERY = 70
"""Room for one query with its source and sub-question id."""
MAX_QUERY_CHARS = 300


def query_generation(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    found, subs = state["intent"], state["sub_questions"]
    round_number = state.get("iteration", 1)
    targets = gap_ids(state) if round_number > 1 else [s.id for s in subs]
    targets = targets or [s.id for s in subs]
    agents = [get_agent(name, context.run_settings) for name in state.get("active_sources", [])]
    sent = {(entry.source, entry.query) for entry in state.get("search_log", [])}

    question = state.get("cleaned_question", "")

    def fallback() -> list[SourceQuery]:
        return deterministic_queries(agents, subs, found, round_number=round_number,
                                     targets=targets, already_sent=sent, question=question)

    session = session_for(context, state)
    if session is None or not agents:
        written = fallback()
        return {"queries": written,
                "search_log": unqueried(agents, written, found, round_number)}
    plan, notes = session.ask(
        QueryPlan, system=SYSTEM,
        user=_prompt(agents, subs, targets, sent, round_number),
        fallback=lambda: QueryPlan.model_construct(queries=[]), step="query_generation",
        max_tokens=TOKENS_PER_QUERY * len(agents) * len(targets) + 40,
    )
    queries, dropped = checked_queries(plan.queries, agents, subs, found, question, sent,
                                       round_number)
    notes = notes + dropped
    queries, named_notes = with_named_queries(queries, agents, subs, found, question, sent,
                                              round_number)
    notes = notes + named_notes
    if not queries:
        queries = fallback()
        if not queries and round_number > 1:
            return {"queries": [], "notes": notes, "model_steps": session.steps,
                    **nothing_new(state, round_number)}
        notes = notes or [("query_generation: the model proposed no new usable query; "
                           "the deterministic engine wrote them")]
        session.steps[-1].answered_by = "fallback"
    else:
        covered = {q.source for q in queries}
        missing = [a for a in agents if a.name not in covered]
        if missing:
            queries += deterministic_queries(missing, subs, found, round_number=round_number,
                                             targets=targets, already_sent=sent,
                                             question=question)
            notes.append("query_generation: the model wrote no usable query for "
                         f"{', '.join(a.name for a in missing)}; the deterministic engine did")
    return {"queries": queries, "notes": notes, "model_steps": session.steps,
            "search_log": unqueried(agents, queries, found, round_number)}


NOTHING_NEW = ("nothing left to search: the model wrote no query that was not already sent, "
               "and every source has been searched with every query the gaps allow")
"""The stop reason of a refinement round in which neither engine has a new query; the
deterministic engine's own stop (the supervisor's) says the second half alone."""


def nothing_new(state: ReviewState, round_number: int) -> dict:
    """What ends a refinement round that has nothing to search: the stop reason, naming the
    sub-questions still without evidence, and the round count put back to the rounds that
    searched (the graph routes to the end on an empty round, :func:`stops_here`).

    Before, such a round still ran: the retrieval, filter, synthesis and evaluation of the
    same records again, with more model calls, for a draft that could not change."""
    weak = ", ".join(gap_ids(state)) or "the sub-questions"
    return {"iteration": round_number - 1,
            "stop_reason": f"{NOTHING_NEW} (still without evidence: {weak})"}


def stops_here(state: ReviewState) -> bool:
    """Whether the run ends after query generation: a refinement round with no query to send
    (:func:`nothing_new` set its stop reason)."""
    return not state.get("queries") and str(state.get("stop_reason", "")).startswith(NOTHING_NEW)


def with_named_queries(queries: list[SourceQuery], agents: list[SourceAgent],
                       subs: list[SubQuestion], intent: Intent, question: str,
                       sent: set[tuple[str, str]], round_number: int
                       ) -> tuple[list[SourceQuery], list[str]]:
    """The model's queries, except that a source searched by name (the Materials Project) gets
    one query per material the question names in place of the model's, so that none is left
    out or merged into another's search; a note says so when the model's differed."""
    notes: list[str] = []
    for agent in agents:
        named = named_source_queries(agent, question, intent, subs, round_number, sent)
        if named is None:
            continue
        own = [q for q in queries if q.source == agent.name]
        if {q.query for q in own} != {q.query for q in named}:
            notes.append(f"query_generation: {agent.label} is searched {agent.named_by} "
                         f"({', '.join(q.query for q in named) or 'all sent'}) "
                         "instead of the model's queries")
        queries = [q for q in queries if q.source != agent.name] + named
    return queries, notes


def sub_question_id(value: str, known: list[str]) -> str | None:
    """A model's sub-question id as the plan numbers them: "q2", "2", "Q2" and "q 2" are q2."""
    cleaned = value.strip().lower().replace(" ", "")
    if cleaned in known:
        return cleaned
    if cleaned.isdigit() and f"q{cleaned}" in known:
        return f"q{cleaned}"
    return None


ARXIV_CATEGORY_PREFIXES: dict[str, tuple[str, ...]] = {
    "computer_science": ("cs.", "stat.", "eess.", "math.OC", "math.ST"),
    "physics": ("physics.", "quant-ph", "cond-mat", "astro-ph", "hep-", "gr-qc", "nucl-",
                "math-ph", "nlin."),
    "materials": ("cond-mat.mtrl-sci", "cond-mat.mes-hall", "cond-mat.str-el",
                  "cond-mat.supr-con", "physics.chem-ph", "physics.app-ph"),
    "chemistry": ("physics.chem-ph", "cond-mat.soft", "q-bio.BM"),
    "biomedical": ("q-bio.", "stat.AP", "physics.med-ph", "cs.LG", "stat.ML", "eess.IV"),
    "general": (),
}
"""arXiv categories each field of a question lets a query restrict to."""
DATE_VALUES = re.compile(
    r'"?(\d+)(?:/\d+)*"?\s*\[(?:dp|pdat|edat)\]'           # PubMed "2015"[dp]
    r'|(?:submittedDate|lastUpdatedDate):\s*\[\s*(\d+)\s+TO\s+(\d+)'  # arXiv
    r'|publication_(?:date|year):\s*(\d+)', re.IGNORECASE)   # OpenAlex filters
"""Dates in the sources' query syntaxes; each must be a plausible year (as --since must)."""


def query_problem(agent: SourceAgent, query: str, intent: Intent, question: str) -> str | None:
    """Why a model's query must not be sent, or None: the checks a user's options pass (years
    1800-2100), the source's own syntax (Materials Project criteria), and evidence in the question
    (formulas it names, arXiv categories of its fields, at least one of its words)."""
    if len(query) > MAX_QUERY_CHARS:
        return f"longer than {MAX_QUERY_CHARS} characters"
    for match in DATE_VALUES.finditer(query):
        for value in filter(None, match.groups()):
            if len(value) not in (4, 8, 12) or not 1800 <= int(value[:4]) <= 2100:
                return f"date {value} is not a plausible publication year"
    if agent.name == "materials":
        return _materials_problem(query, intent, question)
    if agent.name == "arxiv":
        allowed = [p for d in intent.domains for p in ARXIV_CATEGORY_PREFIXES.get(d, ())]
        for category in re.findall(r"cat:\s*([\w.\-]+)", query):
            if not any(category.startswith(prefix) for prefix in allowed):
                return (f"category {category} is outside the question's fields "
                        f"({', '.join(intent.domains)})")
    asked = set(content_words(" ".join([question, *intent.keywords])))
    if not set(content_words(query)) & asked:
        return "it shares no word with the question"
    return None


def _materials_problem(query: str, intent: Intent, question: str) -> str | None:
    from scholargraph.sources.materials import MaterialsQuery

    try:
        parsed = MaterialsQuery.parse(query)
    except ValueError as exc:
        return f"not Materials Project criteria ({exc})"
    if not parsed.has_criteria:
        return "no formula, elements, chemical system, id or band-gap range"
    named = set(chemical_formulas(question)) | ({intent.formula} if intent.formula else set())
    named |= {m.formula for m in named_materials(question) if m.formula}
    foreign = [f for f in parsed.formulas if f not in named]
    if foreign:
        return f"formula {', '.join(foreign)} is not named by the question"
    asked = named_materials(question)
    systems = {m.chemsys for m in asked if m.chemsys}
    ids = {m.material_id for m in asked if m.material_id}
    foreign = [c for c in parsed.chemsys if c not in systems]
    foreign += [i for i in parsed.material_ids if i not in ids]
    if foreign:
        return f"{', '.join(foreign)} is not named by the question"
    return None


def closest_sub_question(query: str, subs: list[SubQuestion]) -> str | None:
    """The sub-question sharing most content words with a query (none shared: None)."""
    words = set(content_words(query))
    shared = [(len(words & set(content_words(sub.text))), -i, sub.id) for i, sub in
              enumerate(subs)]
    best = max(shared, default=(0, 0, None))
    return best[2] if best[0] else None


def source_named(value: str, agents: list[SourceAgent]) -> SourceAgent | None:
    """The active source a model named: by its name, or by its service's host as small models
    write it ("https://www.ncbi.nlm.nih.gov" is PubMed)."""
    said = value.strip().lower()
    for agent in agents:
        hosts = getattr(agent.politeness, "official_hosts", ()) if agent.politeness else ()
        if said == agent.name or any(host.split(".")[0] in said for host in hosts):
            return agent
    return None


def checked_queries(drafts: list[DraftQuery], agents: list[SourceAgent], subs: list[SubQuestion],
                    intent: Intent, question: str, sent: set[tuple[str, str]],
                    round_number: int) -> tuple[list[SourceQuery], list[str]]:
    """The model's queries that may be sent: an active source, a known sub-question (its id
    normalised), new to the search log, and passing :func:`query_problem`; a note per drop."""
    known = [s.id for s in subs]
    seen = set(sent)
    queries: list[SourceQuery] = []
    notes: list[str] = []
    for draft in drafts:
        text = draft.query.strip()
        agent = source_named(draft.source, agents)
        sid = sub_question_id(draft.sub_question_id, known)
        if sid is None and agent is not None and text:
            sid = closest_sub_question(text, subs)
            if sid is not None:
                notes.append(f"query_generation: the model's query {text[:80]!r} named "
                             f"sub-question {draft.sub_question_id!r}; it is read as {sid}, "
                             "whose words it shares most")
        problem: str | None
        if agent is None:
            problem = f"source {draft.source!r} is not searched in this run"
        elif sid is None:
            problem = f"sub-question {draft.sub_question_id!r} is not in the plan"
        elif not text or (agent.name, text) in seen:
            continue
        else:
            problem = query_problem(agent, text, intent, question)
        if problem or agent is None or sid is None:
            notes.append(f"query_generation: dropped the model's query {text[:80]!r} for "
                         f"{draft.source} ({problem})")
            continue
        seen.add((agent.name, text))
        queries.append(SourceQuery(source=agent.name, sub_question_id=sid, query=text,
                                   round=round_number))
    return queries, notes


def unqueried(agents: list[SourceAgent], queries: list[SourceQuery], intent: Intent,
              round_number: int) -> list[SearchLogEntry]:
    """A ``skipped`` search-log entry, with the reason, for each source of the run that has no
    query in the first round, so a requested source never disappears from the log silently."""
    if round_number != 1:
        return []
    asked = {query.source for query in queries}
    return [SearchLogEntry(source=agent.name, query="", status="skipped",
                           error=agent.no_query_reason(intent), round=round_number)
            for agent in agents if agent.name not in asked]


def _prompt(agents: list[SourceAgent], subs: list[SubQuestion], targets: list[str],
            sent: set[tuple[str, str]], round_number: int) -> str:
    lines = [f"Round {round_number}.",
             "Sources (write each query's source exactly as named here, e.g. "
             f"{agents[0].name if agents else 'openalex'}):"]
    lines += [f"- {a.name}: {a.query_syntax}" for a in agents]
    lines.append("Sub-questions to search for:")
    lines += [f"- {s.id}: {s.text}" for s in subs if s.id in targets]
    if sent:
        lines.append("Already sent (do not repeat):")
        lines += [f"- {source}: {query}" for source, query in sorted(sent)]
    return "\n".join(lines)
