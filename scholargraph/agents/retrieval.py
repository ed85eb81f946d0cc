"""retrieval: gather every record the sources returned into one deduplicated list of works.

Deduplication runs over all rounds' records together, so a work found again by a gap query is
merged, not double-counted. The PRISMA counts come from the fate of every record identified
(:mod:`scholargraph.ledger`: a duplicate, excluded with its reason, or included), so they add up
by construction, whatever the rounds and whichever works share an id.
Screening judges every work against the question's concepts and meaning and, with ``--criteria``,
the study designs they admit (:mod:`scholargraph.screening.relevance`); a work set aside keeps its
reason ("does not address: public health surveillance"), and a work with a title and no abstract
is judged on its title. When the question is a claim to check rather than a question or a topic
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
from scholargraph.deterministic.relevance import EXCLUSION_NOT_TESTING, works_testing_claim
from scholargraph.engines import session_for
from scholargraph.fulltext.fetch import FullTextReader, rank_for_reading, readable
from scholargraph.ledger import (
    RETRIEVED,
    FullTextFate,
    Ledger,
    full_text_fates,
    identifying_source,
    work_key,
)
from scholargraph.rag.select import load_run_embedder, stored_vectors
from scholargraph.rag.works import rank_works
from scholargraph.records import Material, Work
from scholargraph.screening.llm_criteria import CriteriaJudge, criteria_judge
from scholargraph.screening.relevance import (
    Criteria,
    read_criteria,
    record_text,
    screening_decisions,
)
from scholargraph.settings import Settings
from scholargraph.sources.enrich import augment_with_openalex
from scholargraph.state import Prisma, ReviewState

EXCLUSION_NO_TEXT = "no title and abstract to assess"


def is_assessable(work: Work) -> bool:
    """A work can be screened when it has a title or an abstract to judge it by (a title alone
    is judged, and kept when in doubt: lacking an abstract is no reason to exclude)."""
    return bool(work.title.strip() or work.abstract or work.full_text)


def screening_reasons(works: list[Work], question: str, criteria: Criteria | None,
                      settings: Settings, notes: list[str],
                      named: frozenset[str] = frozenset(),
                      judge: CriteriaJudge | None = None) -> list[str | None]:
    """Why each work is excluded at screening, or None when it is included (see
    :func:`scholargraph.screening.relevance.screening_decisions`), in the works' order.

    Not judged by the question: a work found only by following citations (the citation that
    links it to an included work made it a candidate), and the Materials Project entry of a
    material the question names (``named``: their work ids), looked up by that name and the
    question's subject whatever words its entry uses. Warnings (no embedding model) go to
    ``notes``. With a ``judge`` (a chat model and criteria), the model then judges the works the
    rules kept (:mod:`scholargraph.screening.llm_criteria`).
    """
    reasons: list[str | None] = [None if is_assessable(work) else EXCLUSION_NO_TEXT
                                 for work in works]
    judged = [i for i, work in enumerate(works) if reasons[i] is None and question
              and work.sources != ["snowball"] and work.id not in named]
    if not judged:
        return reasons
    warnings: list[str] = []
    texts = [record_text(works[i]) for i in judged]
    embedder = load_run_embedder(settings, warnings)
    vectors = None if embedder is None else stored_vectors(
        texts, [works[i].id for i in judged], embedder, settings, warnings)
    decisions = screening_decisions(
        question, criteria, [(works[i].title, works[i].abstract or "") for i in judged],
        embedder=embedder if vectors is not None else None, vectors=vectors)
    for i, decision in zip(judged, decisions, strict=True):
        reasons[i] = decision.reason
    if judge is not None:
        kept = [i for i in judged if reasons[i] is None]
        for i, reason in zip(kept, judge.screen([works[i] for i in kept], notes), strict=True):
            reasons[i] = reason
    notes += [f"screening: {warning}" for warning in dict.fromkeys(warnings)]
    return reasons


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
    notes = list(found.notes)
    criteria = read_criteria(context.criteria) if context.criteria else None
    judge = criteria_judge(session_for(context, state) if criteria else None, question,
                           criteria, state)
    reasons = screening_reasons(works, question, criteria, context.run_settings, notes, named,
                                judge)
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
            "search_log": found.log, "notes": notes, "full_texts": full_texts,
            **(judge.update() if judge else {})}


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
