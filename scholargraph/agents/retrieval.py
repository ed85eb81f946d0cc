"""retrieval: gather every record the sources returned into one deduplicated list of works.

Deduplication runs over all rounds' records together, so a work found again by a gap query is
merged, not double-counted. The PRISMA counts come from the fate of every record identified
(:mod:`scholargraph.ledger`: a duplicate, excluded with its reason, or included), so they add up
by construction, whatever the rounds and whichever works share an id.
Screening excludes works with no text to judge and works off the question's topic (their title
and abstract mention few of its key terms, :mod:`scholargraph.deterministic.relevance`), each with
its reason. When the question is a claim to check rather than a question or a topic
(:func:`~scholargraph.deterministic.questions.is_claim`), the works screened in are ranked
against it (:mod:`scholargraph.rag.works`) and those that test it are included, most direct
first (:func:`~scholargraph.deterministic.relevance.works_testing_claim`); the others are
excluded with that reason, so the review cites every study that tests the claim, not those
merely on its topic. When OpenAlex is one of the run's sources, the works are then enriched from it
(citation counts, open-access links, retractions) and, with ``snowball``, joined by the works one
citation away (see :mod:`scholargraph.sources.enrich`). Then each included work gets its source
type and credibility (:mod:`scholargraph.deterministic.credibility`), from the merged and enriched
record. Last, the best-ranked included works are read in full where they are open access (up to the
run's ``full_text`` budget; :mod:`scholargraph.fulltext.fetch`), before ``rag_filter`` indexes their
passages; PRISMA's full-text stage (reports sought, not retrieved and why, assessed) comes from
that step. A work sought in full is sought once a run: its outcome stays in the state
(``full_texts``) and its text is carried to the next round's works.
"""

from __future__ import annotations

from datetime import date
from typing import cast

from langgraph.runtime import Runtime

from scholargraph.context import ReviewContext
from scholargraph.deterministic.credibility import assess
from scholargraph.deterministic.material_names import named_materials, reduced_formula
from scholargraph.deterministic.questions import is_claim
from scholargraph.deterministic.relevance import (
    EXCLUSION_NOT_TESTING,
    EXCLUSION_OFF_TOPIC,
    off_topic,
    works_testing_claim,
)
from scholargraph.fulltext.fetch import FullTextReader, rank_for_reading, readable
from scholargraph.ledger import (
    RETRIEVED,
    FullTextFate,
    Ledger,
    full_text_fates,
    identifying_source,
    work_key,
)
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
    works = carry_full_texts(found.works, state.get("papers", []))
    this_year = date.today().year
    question = state.get("cleaned_question") or state.get("question", "")
    named = named_entries(state.get("materials", []), question)
    reasons = [screening_reason(work, question, named) for work in works]
    notes = list(found.notes)
    order: dict[str, int] = {}
    # a claim's included works go most directly testing it first
    if is_claim(question):
        screened_in = [work for work, reason in zip(works, reasons, strict=True) if reason is None]
        ranked, warnings = rank_works(question, screened_in, context.run_settings)
        testing = works_testing_claim(ranked)
        reasons = [EXCLUSION_NOT_TESTING if reason is None and work.id not in testing else reason
                   for work, reason in zip(works, reasons, strict=True)]
        notes += [f"retrieval: {warning}" for warning in warnings]
        order = {work_id: rank for rank, work_id in enumerate(testing)}
    included = [work.model_copy(update={"credibility": assess(work, this_year)})
                for work, reason in zip(works, reasons, strict=True) if reason is None]
    included.sort(key=lambda work: order.get(work.id, len(order)))
    full_texts = dict(state.get("full_texts", {}))
    if context.full_text > 0:
        included, read, note = read_full_texts(state, included, context.full_text,
                                               context.run_settings, full_texts)
        full_texts.update(read)
        notes += [note] if note else []
    ledger = Ledger.build([identifying_source(record.sources) for record in records],
                          found.groups, reasons,
                          full_text_fates(full_texts, works))
    prisma = cast(Prisma, ledger.prisma(full_text_stage=context.full_text > 0))
    return {"papers": included, "prisma": prisma, "records": found.added,
            "search_log": found.log, "notes": notes, "full_texts": full_texts}


def carry_full_texts(works: list[Work], earlier: list[Work]) -> list[Work]:
    """``works`` with the full texts read in earlier rounds put back: each round folds the
    records afresh, and an article is read at most once a run."""
    read = {work_key(work): work for work in earlier if work.full_text_spans}
    return [_with_text_of(work, read[work_key(work)])
            if work_key(work) in read and not work.full_text_spans else work for work in works]


def _with_text_of(work: Work, earlier: Work) -> Work:
    return work.model_copy(update={
        "full_text": earlier.full_text, "full_text_spans": earlier.full_text_spans,
        "full_text_source": earlier.full_text_source, "licence": earlier.licence,
        "abstract": work.abstract or earlier.abstract})


def read_full_texts(state: ReviewState, included: list[Work], budget: int, settings: Settings,
                    known: dict[str, FullTextFate]
                    ) -> tuple[list[Work], dict[str, FullTextFate], str | None]:
    """The included works with the best-ranked open ones read in full, what became of each
    work sought this round, and the note saying what was read. Works sought in an earlier round
    count against the budget and are not asked for again (``known``)."""
    texts = [state.get("cleaned_question") or state.get("question", ""),
             *(sub.text for sub in state.get("sub_questions", []))]
    already = len({work_key(work) for work in included} & set(known))
    candidates = [work for work in included if readable(work) and known.get(
        work_key(work), FullTextFate(status=RETRIEVED)).status == RETRIEVED]
    ranked = rank_for_reading(candidates, texts)
    done = FullTextReader(settings).read_all(ranked, max(0, budget - already))
    read = {work_key(work): work for work in done.works if work.full_text_spans}
    return ([read.get(work_key(work), work) for work in included], done.fates(),
            done.note())
