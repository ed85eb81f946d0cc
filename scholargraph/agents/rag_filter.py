"""rag_filter: keep, for each sub-question, the passages of the included works that answer it.

Ranking is hybrid (lexical + dense) with diversity across works; see :mod:`scholargraph.rag`.
The filter asks the ranker for twice the passages it keeps, then lets source credibility nudge
the order (a prior of at most ±``CREDIBILITY_PRIOR`` on the relevance score), so between passages
of similar relevance a peer-reviewed article wins over an unreviewed page, while a clearly more
relevant weak source still gets in. A "re-filter" refinement widens the selection
(``filter_depth``) without searching again.

A work read in full has many passages, and its Introduction and Discussion, full of the
question's words, crowd out its abstract, where it states its own result in a few sentences.
So when a work read in full answers a sub-question, its abstract's passages are kept beside the
ones chosen (:func:`with_abstracts`): the synthesis then chooses among the work's own summary,
its Results and Conclusion, and its Discussion.

A claim rests on every study it includes, and a study's result sentence often lies in a piece of
its abstract the ranker did not keep for the claim: then it is never read against the claim nor
cited (the narrative review's "CONCLUSIONS The reviewed articles demonstrate the potential of NLP
and ML to enhance surveillance..."; knee trials in a 1,173-record library). So for a claim
the abstract pieces of every included work are heard under its own sub-question, ranked after
the kept ones (:func:`with_every_study`).
"""

from __future__ import annotations

from datetime import date

from langgraph.runtime import Runtime

from scholargraph.agents.schemas import SubQuestion
from scholargraph.context import ReviewContext
from scholargraph.deterministic.credibility import credibility_of
from scholargraph.deterministic.extractive import summary_passages, with_summaries
from scholargraph.deterministic.questions import is_claim
from scholargraph.deterministic.relevance import question_itself
from scholargraph.progress import say
from scholargraph.rag import select_passages
from scholargraph.records import Passage, Work
from scholargraph.state import ReviewState
from scholargraph.wording import counted

WIDEN_PER_ROUND = 3
CREDIBILITY_PRIOR = 0.2


def with_credibility_prior(candidates: list[Passage], works: dict[str, Work], keep: int,
                           this_year: int) -> list[Passage]:
    """The ``keep`` best candidates once relevance is weighted by the work's credibility."""
    def weighted(passage: Passage) -> float:
        work = works.get(passage.work_id)
        credibility = credibility_of(work, this_year).score if work else 0.5
        return passage.score * (1 + CREDIBILITY_PRIOR * (2 * credibility - 1))

    ranked = sorted(candidates, key=lambda p: (-weighted(p), p.id))
    return ranked[:keep]


def with_abstracts(chosen: list[Passage], works: dict[str, Work]) -> list[Passage]:
    """The chosen passages, then the abstract passages of each work read in full among them
    not already chosen, scored as the lowest chosen passage (so they rank after it)."""
    floor = min((p.score for p in chosen), default=0.0)
    read_in_full = {work_id: work for work_id, work in works.items() if work.full_text_spans}
    return with_summaries(chosen, read_in_full, score=floor)


def with_every_study(passages: list[Passage], subs: list[SubQuestion], question: str,
                     papers: list[Work]) -> list[Passage]:
    """The passages, with the abstract pieces of every included work not yet under a claim's
    own sub-question filed under it and scored as its lowest kept passage, so every included
    study is read against the claim. Any other question's passages are returned as they are.

    This was first done only for a claim about a whole class of things
    (:mod:`~scholargraph.deterministic.class_claims`). Any other claim over a 1,173-record knee
    osteoarthritis library included 12 studies and cited 4 of them, the others counted as
    finding neither way unread; with every study heard, it cites 8. On SciFact train claims
    400-808 (``bench/review.py --start 400``) abstract-label-f1 0.454 -> 0.456,
    rationale-precision 0.613 -> 0.622, cited-precision 0.514 -> 0.506."""
    itself = question_itself(subs, question)
    if itself is None or not is_claim(question):
        return passages
    own = [p for p in passages if p.sub_question_id == itself.id]
    heard = {p.id for p in own}
    floor = min((p.score for p in own), default=0.0)
    added = [piece.model_copy(update={"sub_question_id": itself.id, "score": floor})
             for work in papers for piece in summary_passages(work) if piece.id not in heard]
    return [*passages, *added]


NODE = "rag_filter"


def rag_filter(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    per_question = context.passages_per_question + WIDEN_PER_ROUND * state.get("filter_depth", 0)
    papers = state.get("papers", [])
    # embedding the passages of a large library's included works takes minutes (577 works of
    # a 1,173-record library: 148 s without a line)
    say(NODE, f"ranking the passages of {counted(len(papers), 'included work')} for "
              f"{counted(len(state['sub_questions']), 'sub-question')} (embedding those not "
              "embedded before)")
    selected, warnings = select_passages(state["sub_questions"], papers,
                                         per_question=2 * per_question,
                                         settings=context.run_settings)
    works = {work.id: work for work in papers}
    this_year = date.today().year
    passages = [passage for sub in state["sub_questions"]
                for passage in with_abstracts(with_credibility_prior(
                    selected.get(sub.id, []), works, per_question, this_year), works)]
    question = state.get("cleaned_question") or state.get("question", "")
    passages = with_every_study(passages, state["sub_questions"], question, papers)
    return {"passages": passages, "notes": warnings}
