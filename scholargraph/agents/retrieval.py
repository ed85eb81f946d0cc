"""retrieval: the records of every source, as one pipeline read top to bottom in :func:`retrieval`.

1. **collect** every record the sources returned, in all rounds so far (a library's records
   come once a run: it is read whole in the first round, :mod:`scholargraph.sources.library`);
2. **deduplicate** them once, all rounds together (:func:`scholargraph.dedup.deduplicate`), so a
   work found again by a gap query is merged, not counted twice;
3. **enrich** the works from OpenAlex when it is one of the run's sources (citation counts,
   open-access links, retractions) and, with ``snowball``, find the works one citation away
   (:mod:`scholargraph.sources.enrich`, which neither deduplicates nor merges); snowballed
   records join the others and the union is folded once more, so a snowballed work already
   found is merged with it;
4. **screen** every work against the question's concepts and meaning and, with ``--criteria``,
   the study designs they admit (:mod:`scholargraph.screening.relevance`): a work set aside
   keeps its reason ("does not address: public health surveillance"), and a work with a title
   and no abstract is judged on its title;
5. **rank**: when the question is a claim to check rather than a question or a topic
   (:func:`~scholargraph.deterministic.questions.is_claim`), the works screened in are ranked
   against it (:mod:`scholargraph.rag.works`) and those that test it are included, most direct
   first (:func:`~scholargraph.deterministic.relevance.works_testing_claim`); the others are
   excluded with that reason, so the review cites every study that tests the claim, not those
   merely on its topic. A question's or topic's included works are ranked by their screening
   score, closest to the question first. Each included work gets its source type and credibility
   (:mod:`scholargraph.deterministic.credibility`) from the merged and enriched record;
6. **read full texts**: the best-ranked included works are read in full where they are open
   access (up to the run's ``full_text`` budget; :mod:`scholargraph.fulltext.fetch`), before
   ``rag_filter`` indexes their passages. A work sought in full is sought once a run: its
   outcome stays in the state (``full_texts``) and its text is carried to the next round's works.

The PRISMA counts come from the fate of every record identified (:mod:`scholargraph.ledger`: a
duplicate, excluded with its reason, or included; the full-text stage from step 6), so they add
up by construction, whatever the rounds and whichever works share an id; the same ledger gives
``screening``, one row per work screened with its decision and reason (``screening.csv``). Every
work screened in is included: nothing here caps their number.
"""

from __future__ import annotations

from datetime import date
from typing import NamedTuple, cast

from langgraph.runtime import Runtime

from scholargraph.context import ReviewContext
from scholargraph.dedup import DedupResult, deduplicate
from scholargraph.dedup.titles import notice_kind, opens_with_notice_label
from scholargraph.deterministic.class_claims import about_a_class, class_claim_studies
from scholargraph.deterministic.credibility import assess
from scholargraph.deterministic.extractive import reports_no_study
from scholargraph.deterministic.material_names import (
    named_materials,
    reduced_formula,
    system_of,
)
from scholargraph.deterministic.questions import is_claim
from scholargraph.deterministic.relevance import (
    EXCLUSION_NO_STUDY,
    EXCLUSION_RANKED_FAR,
    EXCLUSION_TITLE_ONLY,
    not_testing_reason,
    title_only,
    works_testing_claim,
)
from scholargraph.deterministic.stance import reports_on_relation
from scholargraph.engines import session_for
from scholargraph.fulltext.fetch import FullTextReader, rank_for_reading, readable
from scholargraph.ledger import (
    CARRIED_REASON,
    RETRIEVED,
    FullTextFate,
    Ledger,
    full_text_fates,
    identifying_source,
    record_digest,
    screened_works,
    work_key,
)
from scholargraph.progress import say
from scholargraph.rag.select import load_run_embedder, stored_vectors
from scholargraph.rag.works import rank_works
from scholargraph.records import Material, Work, has_retraction_label
from scholargraph.screening.llm_criteria import CriteriaJudge, criteria_judge
from scholargraph.screening.relevance import (
    Criteria,
    declared_designs,
    read_criteria,
    record_text,
    screening_decisions,
)
from scholargraph.settings import Settings
from scholargraph.sources.enrich import Augmented, augment_with_openalex, with_known_facts
from scholargraph.state import Prisma, ReviewState
from scholargraph.wording import counted

NODE = "retrieval"
"""The node's name in its progress lines (:func:`~scholargraph.progress.say`)."""
EXCLUSION_NO_TEXT = "no title and abstract to assess"
EXCLUSION_NOTICE = "a notice about another work, not a study: {kind}"
CORRECTION_TYPES = {"published erratum": "erratum", "erratum": "erratum",
                    "retraction of publication": "retraction", "retraction": "retraction",
                    "expression of concern": "expression of concern"}
"""Publication types that declare a record a notice about another work (PubMed's, OpenAlex's
types, lower case), by the kind of notice."""


def correction_notice(work: Work) -> str | None:
    """The kind of notice a record is ('erratum', 'retraction', ...) when it is one: declared
    by its publication types, or by its title ("Correction to: ...", "Retraction: ...").
    Deduplication folds a notice into the work it corrects when both were found
    (``Work.notices``); one found alone is still no study of its own, whatever words of the
    question it repeats from the work's title, and a review must not quote it as a finding."""
    declared = next((CORRECTION_TYPES[t.lower()] for t in work.publication_types
                     if t.lower() in CORRECTION_TYPES), None)
    if declared is not None:
        return declared
    kind = notice_kind(work.title)
    if kind in ("erratum", "retraction") and opens_with_notice_label(work.title) \
            and not has_retraction_label(work.title):
        return kind  # "RETRACTED: <title>" is the retracted article itself, not its notice
    return None


def screening_start(work: Work) -> str | None:
    """A work's reason before it is judged by the question: no text to judge it by, or a
    notice about another work; None when it is to be judged."""
    if not is_assessable(work):
        return EXCLUSION_NO_TEXT
    notice = correction_notice(work)
    return EXCLUSION_NOTICE.format(kind=notice) if notice else None


def is_assessable(work: Work) -> bool:
    """A work can be screened when it has a title or an abstract to judge it by (a title alone
    is judged, and kept when in doubt: lacking an abstract is no reason to exclude)."""
    return bool(work.title.strip() or work.abstract or work.full_text)


class Screened(NamedTuple):
    """Screening's verdict on the works, in their order."""

    reasons: list[str | None]
    """Why each work is excluded, or None when it is included."""
    scores: dict[str, float]
    """The screening score (:func:`~scholargraph.screening.relevance.score_records`) of each
    work judged by the question, by work id; higher is closer to it."""


def screening_reasons(works: list[Work], question: str, criteria: Criteria | None,
                      settings: Settings, notes: list[str],
                      named: frozenset[str] = frozenset(),
                      judge: CriteriaJudge | None = None) -> Screened:
    """Why each work is excluded at screening, or None when it is included (see
    :func:`scholargraph.screening.relevance.screening_decisions`), in the works' order, and
    the screening score of each work judged.

    Not judged by the question: a work found only by following citations (the citation that
    links it to an included work made it a candidate), and the Materials Project entry of a
    material the question names (``named``: their work ids), looked up by that name and the
    question's subject whatever words its entry uses. Warnings (no embedding model) go to
    ``notes``. With a ``judge`` (a chat model and criteria), the model then judges the works the
    rules kept (:mod:`scholargraph.screening.llm_criteria`).
    """
    reasons: list[str | None] = [screening_start(work) for work in works]
    judged = [i for i, work in enumerate(works) if reasons[i] is None and question
              and work.sources != ["snowball"] and work.id not in named]
    if not judged:
        return Screened(reasons, {})
    warnings: list[str] = []
    texts = [record_text(works[i]) for i in judged]
    embedder = load_run_embedder(settings, warnings)
    vectors = None if embedder is None else stored_vectors(
        texts, [works[i].id for i in judged], embedder, settings, warnings)
    decisions = screening_decisions(
        question, criteria, [(works[i].title, works[i].abstract or "") for i in judged],
        embedder=embedder if vectors is not None else None, vectors=vectors,
        declared=[declared_designs(works[i].publication_types, works[i].kind) for i in judged])
    for i, decision in zip(judged, decisions, strict=True):
        reasons[i] = decision.reason
    scores = {works[i].id: decision.score for i, decision in zip(judged, decisions, strict=True)}
    if judge is not None:
        kept = [i for i in judged if reasons[i] is None]
        for i, reason in zip(kept, judge.screen([works[i] for i in kept], notes), strict=True):
            reasons[i] = reason
    notes += [f"screening: {warning}" for warning in dict.fromkeys(warnings)]
    return Screened(reasons, scores)


def named_entries(materials: list[Material], question: str) -> frozenset[str]:
    """The work ids of the Materials Project entries the question names: by formula, by id
    ("mp-19017"), or as a compound of a chemical system it names ("the Ti-O system": rutile and
    anatase alike). Before, an entry asked for by id or system was screened like a paper, and
    "band gap of mp-19017 and mp-2534" excluded mp-19017, whose entry states no band gap."""
    asked = named_materials(question)
    formulas = {reduced_formula(m.formula) for m in asked if m.formula}
    ids = {m.material_id for m in asked if m.material_id}
    systems = {m.chemsys for m in asked if m.chemsys}
    return frozenset(m.as_work().id for m in materials
                     if reduced_formula(m.formula) in formulas or m.material_id in ids
                     or system_of(m.formula) in systems)


def retrieval(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    """The retrieval pipeline, one step a line: collect, deduplicate, enrich, screen, rank,
    read full texts; then the ledger of every record's fate gives PRISMA's counts."""
    context = runtime.context or ReviewContext()
    question = state.get("cleaned_question") or state.get("question", "")
    records = collect(state)
    merged = deduplicate(records)
    found = enrich(merged.works, state, context)
    records, merged, works = with_snowballed(records, merged, found)
    works = carry_full_texts(works, state.get("papers", []))
    notes = list(found.notes)
    criteria = read_criteria(context.criteria) if context.criteria else None
    judge = criteria_judge(session_for(context, state) if criteria else None, question,
                           criteria, state)
    screened = screen(works, question, criteria, judge, state, context, notes)
    say(NODE, f"screened {counted(len(works), 'work')}: "
              f"{sum(reason is None for reason in screened.reasons)} kept")
    reasons, order = rank(works, screened, question, context.run_settings, notes)
    included = include(works, reasons, order)
    full_texts = dict(state.get("full_texts", {}))
    if context.full_text > 0:
        say(NODE, f"reading up to {counted(context.full_text, 'full text')} of the "
                  f"{counted(len(included), 'included work')}")
        included, read, note = read_full_texts(state, included, context.full_text,
                                               context.run_settings, full_texts)
        full_texts.update(read)
        notes += [note] if note else []
    ledger = Ledger.build([identifying_source(record.sources) for record in records],
                          merged.groups, reasons, full_text_fates(full_texts, works))
    prisma = cast(Prisma, ledger.prisma(full_text_stage=context.full_text > 0))
    screening = screened_works(ledger, records, merged.groups, works)
    return {"papers": included, "prisma": prisma, "screening": screening,
            "records": found.added,
            "search_log": found.log, "notes": notes, "full_texts": full_texts,
            **(judge.update() if judge else {})}


def collect(state: ReviewState) -> list[Work]:
    """Every record the sources returned, in all rounds so far (a work found again by a gap
    query is merged with its first record, not counted twice)."""
    return list(state.get("records", []))


def enrich(works: list[Work], state: ReviewState, context: ReviewContext) -> Augmented:
    """The deduplicated works with OpenAlex's facts when OpenAlex is one of the run's sources,
    and with ``snowball`` the records one citation away (returned apart, to be merged)."""
    found_elsewhere = sum(bool(work.doi) and not work.openalex_id for work in works)
    if "openalex" in state.get("active_sources", []) and found_elsewhere:
        say(NODE, f"looking up up to {counted(found_elsewhere, 'work')} found elsewhere in "
                  "OpenAlex (citations, open access, retractions)")
    return augment_with_openalex(
        works, known=state.get("papers", []),
        use_openalex="openalex" in state.get("active_sources", []), snowball=context.snowball,
        limit=context.max_results, round_number=state.get("iteration", 1),
        settings=context.run_settings)


def with_snowballed(records: list[Work], merged: DedupResult, found: Augmented
                    ) -> tuple[list[Work], DedupResult, list[Work]]:
    """The records, their folding and the enriched works, with the snowballed records joined:
    the union is folded once more, so a snowballed work already found is merged with it, and
    the merged works get back the OpenAlex facts just found (by id, no request). Nothing
    snowballed: all as they were."""
    if not found.added:
        return records, merged, found.works
    records = [*records, *found.added]
    merged = deduplicate(records)
    return records, merged, with_known_facts(merged.works, found.works)


def screen(works: list[Work], question: str, criteria: Criteria | None,
           judge: CriteriaJudge | None, state: ReviewState, context: ReviewContext,
           notes: list[str]) -> Screened:
    """Why each work is excluded at screening (None: screened in), in the works' order: the
    rules, then (LLM engine, with criteria) the model's verdict on what they kept; and each
    judged work's screening score."""
    named = named_entries(state.get("materials", []), question)
    carried = decided_before(works, context.decided_before)
    kept = (f"; {counted(len(carried), 'other')} screened in an earlier run, record unchanged: "
            "decision kept" if carried else "")
    say(NODE, f"screening {counted(len(works) - len(carried), 'work')} against the question "
              f"(embedding those not embedded before){kept}")
    if not carried:
        return screening_reasons(works, question, criteria, context.run_settings, notes, named,
                                 judge)
    rest = [work for index, work in enumerate(works) if index not in carried]
    screened = screening_reasons(rest, question, criteria, context.run_settings, notes, named,
                                 judge)
    decided = iter(screened.reasons)
    return Screened([CARRIED_REASON if index in carried else next(decided)
                     for index in range(len(works))], screened.scores)


def decided_before(works: list[Work], digests: dict[str, int] | None) -> set[int]:
    """The positions of the works an earlier run screened on the same record, under the same
    question and criteria (``digests``: record digest -> how many records said it, which an
    update passes): their decisions stand, and screening them again only spends time and may
    turn them (an update of a 900-record export screened every record again before the
    earlier decisions were put back). Each digest covers as many works as records said it.

    Measured on exports written from two shared screening reviews (first export 900 of 975
    and 1,000 of 1,173 records, a seventh without abstracts; second export whole): 202 of 975
    and 317 of 1,173 works screened instead of all, CPU 35 s -> 23 s and 33 s -> 27 s for
    the whole update; among the works screened, the same included studies kept (14 of 15,
    15 of 15) and 6 and 0 more records set aside."""
    if not digests:
        return set()
    left = dict(digests)
    carried = set()
    for index, work in enumerate(works):
        digest = record_digest(work)
        if left.get(digest, 0) > 0:
            left[digest] -= 1
            carried.add(index)
    return carried


def rank(works: list[Work], screened: Screened, question: str, settings: Settings,
         notes: list[str]) -> tuple[list[str | None], dict[str, int]]:
    """For a claim, the screened-in works that test it, most direct first (their rank by work
    id), the others excluded as not testing it; a work reporting no study of its own (a
    commentary, a protocol, a talk stating no result: :func:`reports_no_study`) tests no claim,
    and each is excluded so before the others are ranked. A record known by its title alone
    (:func:`title_only`) is not ranked, for its title could come first and count as the most
    direct test while stating no result to weigh: it is kept, after the works that test the
    claim and unread for or against it, when its title reports on the claim's relation
    (:func:`reports_on_relation`: a reviewer keeps it for its full text), and excluded when its
    title does not (issue 21: lacking an abstract is never the reason by itself). A database
    entry (a Materials Project record, ``Work.kind`` 'material') is no study and is not ranked
    as one: it is kept after the works that test the claim, its computed values set in the
    evidence table ("Rutile is the most stable polymorph of TiO2." excluded the entry on the
    hull, mp-390, as "does not test the claim", and kept the one above it). A question's or
    topic's works keep their reasons and are ranked by their screening score, closest to the
    question first (works not judged by it, snowballed ones and named Materials Project
    entries, after them as found): the review quotes and lists its included works in that
    order, so that in a large library the works most on the question come first, not those
    first in the file."""
    reasons = screened.reasons
    if not is_claim(question):
        by_score = sorted((work for work in works if work.id in screened.scores),
                          key=lambda work: -screened.scores[work.id])
        return reasons, {work.id: position for position, work in enumerate(by_score)}
    no_study = {work.id for work, reason in zip(works, reasons, strict=True)
                if reason is None and reports_no_study(work)}
    reasons = [EXCLUSION_NO_STUDY if work.id in no_study else reason
               for work, reason in zip(works, reasons, strict=True)]
    bare = {work.id for work, reason in zip(works, reasons, strict=True)
            if reason is None and title_only(work)}
    reasons = [EXCLUSION_TITLE_ONLY if work.id in bare
               and not reports_on_relation(question, work.title) else reason
               for work, reason in zip(works, reasons, strict=True)]
    entries = {work.id for work, reason in zip(works, reasons, strict=True)
               if reason is None and work.kind == "material"}
    screened_in = [work for work, reason in zip(works, reasons, strict=True)
                   if reason is None and work.id not in bare | entries]
    say(NODE, f"ranking {counted(len(screened_in), 'work')} screened in against the claim")
    ranked, warnings = rank_works(question, screened_in, settings)
    testing = works_testing_claim(ranked, class_claim_studies(question, screened_in),
                                  technical=not about_a_class(question))
    notes += [f"retrieval: {warning}" for warning in warnings]
    read = bool(ranked) and ranked[0].relation is not None
    why = {work.work_id: not_testing_reason(work, read) for work in ranked}
    reasons = [why.get(work.id, EXCLUSION_RANKED_FAR)
               if reason is None and work.id not in testing and work.id not in bare | entries
               else reason for work, reason in zip(works, reasons, strict=True)]
    return reasons, {work_id: position for position, work_id in enumerate(testing)}


def include(works: list[Work], reasons: list[str | None], order: dict[str, int]) -> list[Work]:
    """The works screened in, each with its source type and credibility, in ``order``'s order
    (the others after, as found)."""
    this_year = date.today().year
    included = [work.model_copy(update={"credibility": assess(work, this_year)})
                for work, reason in zip(works, reasons, strict=True) if reason is None]
    return sorted(included, key=lambda work: order.get(work.id, len(order)))


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
