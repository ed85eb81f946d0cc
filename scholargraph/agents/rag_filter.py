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
"""

from __future__ import annotations

from datetime import date

from langgraph.runtime import Runtime

from scholargraph.context import ReviewContext
from scholargraph.deterministic.credibility import credibility_of
from scholargraph.deterministic.extractive import with_summaries
from scholargraph.rag import select_passages
from scholargraph.records import Passage, Work
from scholargraph.state import ReviewState

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


def rag_filter(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    per_question = context.passages_per_question + WIDEN_PER_ROUND * state.get("filter_depth", 0)
    papers = state.get("papers", [])
    selected, warnings = select_passages(state["sub_questions"], papers,
                                         per_question=2 * per_question,
                                         settings=context.run_settings)
    works = {work.id: work for work in papers}
    this_year = date.today().year
    passages = [passage for sub in state["sub_questions"]
                for passage in with_abstracts(with_credibility_prior(
                    selected.get(sub.id, []), works, per_question, this_year), works)]
    return {"passages": passages, "notes": warnings}
