"""rag_filter: keep, for each sub-question, the passages of the included works that answer it.

Ranking is hybrid (lexical + dense) with diversity across works; see :mod:`scholargraph.rag`.
A "re-filter" refinement widens the selection (``filter_depth``) without searching again.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from scholargraph.context import ReviewContext
from scholargraph.rag import select_passages
from scholargraph.state import ReviewState

WIDEN_PER_ROUND = 3


def rag_filter(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    per_question = context.passages_per_question + WIDEN_PER_ROUND * state.get("filter_depth", 0)
    selected, warnings = select_passages(state["sub_questions"], state.get("papers", []),
                                         per_question=per_question)
    passages = [passage for sub in state["sub_questions"] for passage in selected.get(sub.id, [])]
    return {"passages": passages, "notes": warnings}
