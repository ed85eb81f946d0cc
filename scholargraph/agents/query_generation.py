"""query_generation: for each active source and sub-question, a query in that source's syntax.

Round 1 writes one query per source for the question's key terms and one per further sub-question
with its distinctive terms. A refinement round writes queries aimed at the evaluator's gaps (the
poorly covered sub-questions), broader than before, and never a query already in the search log.
The syntax itself belongs to each source agent (``SourceAgent.build_query``), so a new agent brings
its own.
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import Field

from scholargraph.context import ReviewContext
from scholargraph.engines import ask_structured, chat_model_for
from scholargraph.records import Record
from scholargraph.schemas import Intent, SourceQuery, SubQuestion
from scholargraph.state import ReviewState
from scholargraph.text import key_phrases
from scholargraph.tools.base import SourceAgent
from scholargraph.tools.registry import get_agent

MAX_QUERIES_PER_SOURCE = 3
COVERED = 0.5


def gap_ids(state: ReviewState) -> list[str]:
    """Sub-questions the last evaluation found poorly covered."""
    evaluation = state.get("evaluation")
    if evaluation is None:
        return []
    return [sid for sid, score in evaluation.coverage.items() if score < COVERED]


# Words of the planning templates: they describe the kind of evidence wanted, not the topic,
# so they never go into a search query.
FACET_WORDS = frozenset({
    "methods", "method", "data", "main", "findings", "finding", "limitations", "mechanisms",
    "mechanism", "evidence", "values", "value", "property", "properties", "datasets", "dataset",
    "benchmarks", "benchmark", "settings", "conditions", "results", "reported", "computed",
    "measured", "differences", "explanation", "explains", "proposed", "supports", "contradicts",
    "outperform", "side", "studies",
})


def terms_for(sub: SubQuestion, intent: Intent) -> list[str]:
    """Search terms for a sub-question: the question's key terms plus the sub-question's own topic
    terms (template words such as "methods" or "limitations" left out)."""
    known = {k.lower() for k in intent.keywords}
    own = [p for p in key_phrases(sub.text, limit=4)
           if p.lower() not in known and not set(p.lower().split()) <= FACET_WORDS]
    return list(dict.fromkeys([*intent.keywords[:3], *own[:2]]))


def term_sets(terms: list[str], round_number: int) -> list[list[str]]:
    """The term combinations to try, most specific first.

    Round 1 asks for all the terms together (concepts ANDed, as a librarian would). A refinement
    round casts wider: first dropping the least important terms, then each concept on its own, so
    a question whose concepts are never studied together still finds the evidence for each, and
    last the words of multi-word terms on their own ("genetic risk" -> genetic, risk).
    """
    if round_number == 1:
        return [terms]
    narrower = [terms[:keep] for keep in range(len(terms) - 1, 0, -1)]
    singles = [[term] for term in terms[1:]]
    split = list(dict.fromkeys(word for term in terms for word in term.split()))
    return [*narrower, *singles, *([split] if len(split) > len(terms) else [])]


def deterministic_queries(
    agents: list[SourceAgent], subs: list[SubQuestion], intent: Intent, *,
    round_number: int, targets: list[str], already_sent: set[tuple[str, str]],
) -> list[SourceQuery]:
    """Queries for every agent and target sub-question, new to the search log, capped per source."""
    queries: list[SourceQuery] = []
    per_sub = 1 if round_number == 1 else 2
    for agent in agents:
        seen: set[str] = set()
        for sub in (s for s in subs if s.id in targets):
            added = 0
            for terms in term_sets(terms_for(sub, intent), round_number):
                text = agent.build_query(terms, intent)
                if text and text not in seen and (agent.name, text) not in already_sent:
                    seen.add(text)
                    added += 1
                    queries.append(SourceQuery(source=agent.name, sub_question_id=sub.id,
                                               query=text, round=round_number))
                if added == per_sub or len(seen) >= MAX_QUERIES_PER_SOURCE:
                    break
            if len(seen) >= MAX_QUERIES_PER_SOURCE:
                break
    return queries


class DraftQuery(Record):
    source: str = Field(description="One of the listed sources")
    sub_question_id: str
    query: str = Field(description="The query in that source's own syntax")


class QueryPlan(Record):
    queries: list[DraftQuery]


SYSTEM = """You write search queries for scientific sources. For each source and sub-question,
write one query in that source's own syntax (described below), precise enough to find primary
studies. In a refinement round, aim at the listed gaps and write broader or differently worded
queries than the ones already sent."""


def query_generation(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    found, subs = state["intent"], state["sub_questions"]
    round_number = state.get("iteration", 1)
    targets = gap_ids(state) if round_number > 1 else [s.id for s in subs]
    targets = targets or [s.id for s in subs]
    agents = [get_agent(name, context.run_settings) for name in state.get("active_sources", [])]
    sent = {(entry.source, entry.query) for entry in state.get("search_log", [])}

    def fallback() -> list[SourceQuery]:
        return deterministic_queries(agents, subs, found, round_number=round_number,
                                     targets=targets, already_sent=sent)

    model = chat_model_for(context)
    if model is None or not agents:
        return {"queries": fallback()}
    plan, notes = ask_structured(
        model, QueryPlan, system=SYSTEM,
        user=_prompt(agents, subs, targets, sent, round_number),
        fallback=lambda: QueryPlan(queries=[]), agent="query_generation",
    )
    names = {agent.name for agent in agents}
    seen = set(sent)
    queries: list[SourceQuery] = []
    for q in plan.queries:
        key = (q.source, q.query.strip())
        if q.source in names and key[1] and key not in seen:
            seen.add(key)
            queries.append(SourceQuery(source=q.source, sub_question_id=q.sub_question_id,
                                       query=key[1], round=round_number))
    if not queries:
        queries = fallback()
        notes = notes or [("query_generation: the model proposed no new usable query; "
                           "the deterministic engine wrote them")]
    return {"queries": queries, "notes": notes}


def _prompt(agents: list[SourceAgent], subs: list[SubQuestion], targets: list[str],
            sent: set[tuple[str, str]], round_number: int) -> str:
    lines = [f"Round {round_number}.", "Sources:"]
    lines += [f"- {a.name}: {a.query_syntax}" for a in agents]
    lines.append("Sub-questions to search for:")
    lines += [f"- {s.id}: {s.text}" for s in subs if s.id in targets]
    if sent:
        lines.append("Already sent (do not repeat):")
        lines += [f"- {source}: {query}" for source, query in sorted(sent)]
    return "\n".join(lines)
