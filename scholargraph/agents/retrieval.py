"""retrieval: gather every record the sources returned into one deduplicated list of works.

Deduplication runs over all rounds' records together, so a work found again by a gap query is
merged, not double-counted. The PRISMA counts come from the same pass, so they add up by
construction: screened = identified - duplicates removed; included = screened - excluded.
Screening excludes works with no text to judge and works off the question's topic (their title
and abstract mention few of its key terms, :mod:`scholargraph.deterministic.relevance`), each with
its reason. When the question is a claim to check rather than a question or a topic
(:func:`~scholargraph.deterministic.questions.is_claim`), the works screened in are ranked
against it (:mod:`scholargraph.rag.works`) and only those closest to it are included
(:func:`~scholargraph.deterministic.relevance.closest_to_claim`); the others are excluded with
that reason, so the review cites the studies that test the claim, not those merely on its
topic. When OpenAlex is one of the run's sources, the works are then enriched from it
(citation counts, open-access links, retractions) and, with ``snowball``, joined by the works one
citation away (see :mod:`scholargraph.sources.enrich`). Then each included work gets its source
type and credibility (:mod:`scholargraph.deterministic.credibility`), from the merged and enriched
record. Last, the best-ranked included works are read in full where they are open access (up to the
run's ``full_text`` budget; :mod:`scholargraph.fulltext.fetch`), before ``rag_filter`` indexes their
passages; PRISMA's full-text stage (reports sought, not retrieved and why, assessed) comes from
that step.
"""

from __future__ import annotations

from collections import Counter
from datetime import date

from langgraph.runtime import Runtime

from scholargraph.context import ReviewContext
from scholargraph.deterministic.credibility import assess
from scholargraph.deterministic.material_names import named_materials, reduced_formula
from scholargraph.deterministic.questions import is_claim
from scholargraph.deterministic.relevance import (
    EXCLUSION_NOT_CLOSEST,
    EXCLUSION_OFF_TOPIC,
    closest_to_claim,
    off_topic,
)
from scholargraph.fulltext.fetch import FullTextReader, rank_for_reading, readable
from scholargraph.rag.works import rank_works
from scholargraph.records import Material, Work
from scholargraph.settings import Settings
from scholargraph.sources.enrich import augment_with_openalex
from scholargraph.state import Prisma, ReviewState

EXCLUSION_NO_TEXT = "no title and abstract to assess"


def is_assessable(work: Work) -> bool:
    """A work can be screened when there is text beyond its title to judge it by."""
    return bool(work.abstract or work.full_text)


def screening_reason(work: Work, question: str, named: frozenset[str] = frozenset()
                     ) -> str | None:
    """Why a work is excluded at screening (no text to judge it by, or off topic: see
    :func:`scholargraph.deterministic.relevance.off_topic`), or None when it is included. A work
    found only by following citations is not screened by the question's words: the citation that
    links it to an included work is what made it a candidate; nor is the Materials Project entry
    of a material the question names (``named``: their work ids), which was looked up by that
    name and is the question's subject whatever words its entry uses."""
    if not is_assessable(work):
        return EXCLUSION_NO_TEXT
    if work.id in named:
        return None
    if question and work.sources != ["snowball"] and off_topic(work, question):
        return EXCLUSION_OFF_TOPIC
    return None


def named_entries(materials: list[Material], question: str) -> frozenset[str]:
    """The work ids of the Materials Project entries whose formula the question names."""
    named = {reduced_formula(m.formula) for m in named_materials(question) if m.formula}
    return frozenset(m.as_work().id for m in materials if reduced_formula(m.formula) in named)


def retrieval(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    found = augment_with_openalex(
        state.get("records", []), known=state.get("papers", []),
        use_openalex="openalex" in state.get("active_sources", []), snowball=context.snowball,
        limit=context.max_results, round_number=state.get("iteration", 1),
        settings=context.run_settings)
    records = [*state.get("records", []), *found.added]
    works = found.works
    this_year = date.today().year
    question = state.get("cleaned_question") or state.get("question", "")
    named = named_entries(state.get("materials", []), question)
    reasons = {work.id: screening_reason(work, question, named) for work in works}
    notes = list(found.notes)
    if is_claim(question):
        screened_in = [work for work in works if reasons[work.id] is None]
        ranked, warnings = rank_works(question, screened_in, context.run_settings)
        closest = closest_to_claim(ranked)
        reasons.update({work.id: EXCLUSION_NOT_CLOSEST for work in screened_in
                        if work.id not in closest})
        notes += [f"retrieval: {warning}" for warning in warnings]
    included = [work.model_copy(update={"credibility": assess(work, this_year)})
                for work in works if reasons[work.id] is None]
    identified = Counter(source for record in records for source in record.sources)
    excluded = Counter(reason for reason in reasons.values() if reason is not None)
    prisma: Prisma = {
        "identified": dict(sorted(identified.items())),
        "duplicates_removed": len(records) - len(works),
        "screened": len(works),
        "excluded": len(works) - len(included),
        "excluded_reasons": dict(sorted(excluded.items())),
        "included": len(included),
    }
    if context.full_text > 0:
        included, full_text_prisma, note = read_full_texts(state, included, context.full_text,
                                                           context.run_settings)
        prisma.update(full_text_prisma)  # type: ignore[typeddict-item]
        notes += [note] if note else []
    return {"papers": included, "prisma": prisma, "records": found.added,
            "search_log": found.log, "notes": notes}


def read_full_texts(state: ReviewState, included: list[Work], budget: int, settings: Settings
                    ) -> tuple[list[Work], dict[str, object], str | None]:
    """The included works with the best-ranked open ones read in full, PRISMA's full-text
    counts, and the note saying what was read."""
    texts = [state.get("cleaned_question") or state.get("question", ""),
             *(sub.text for sub in state.get("sub_questions", []))]
    ranked = rank_for_reading([work for work in included if readable(work)], texts)
    done = FullTextReader(settings).read_all(ranked, budget)
    by_id = {work.id: work for work in done.works}
    return [by_id.get(work.id, work) for work in included], done.prisma(), done.note()
