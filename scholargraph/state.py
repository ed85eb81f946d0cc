"""The graph's state: a narrow input, a narrow output, and the private working state between them.

Channels that several nodes add to (records from each source agent, the search log, notes) carry
``operator.add`` as their reducer, so each node returns only what it adds. Everything else is
last-writer-wins: one node owns it.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Final, Literal, NotRequired

from langgraph.graph import END
from typing_extensions import TypedDict

from scholargraph.agents.schemas import (
    Draft,
    Evaluation,
    Intent,
    ModelStep,
    SourceQuery,
    SubQuestion,
)
from scholargraph.ledger import FullTextFate, ScreenedWork
from scholargraph.records import Material, Passage, SearchLogEntry, Work

FINISH: Final[Literal["__end__"]] = "__end__"
"""LangGraph's END, typed as the literal a ``Command[Literal[...]]`` route names."""
assert FINISH == END


class Prisma(TypedDict):
    """PRISMA 2020 counts; ``included`` = ``screened`` - excluded, by construction. The
    full-text stage (when works were sought in full): ``reports_assessed`` =
    ``reports_sought`` - ``reports_not_retrieved``, whose reasons add up to it."""

    identified: dict[str, int]
    duplicates_removed: int
    screened: int
    excluded: int
    excluded_reasons: dict[str, int]
    included: int
    reports_sought: NotRequired[int]
    reports_not_retrieved: NotRequired[int]
    not_retrieved_reasons: NotRequired[dict[str, int]]
    reports_assessed: NotRequired[int]
    full_text_licences: NotRequired[dict[str, int]]


class InputState(TypedDict):
    """What a caller gives: the question. Options travel in the run context."""

    question: str


class OutputState(TypedDict, total=False):
    """What a caller gets back, and what LangGraph Studio and Server show of the state after
    each step (they stream the output's keys only): the queries and, in ``search_log``, the
    ids of the works each query returned, but not ``records``, the works with their abstracts
    as every source gave them (``papers`` holds them once screened)."""

    question: str
    cleaned_question: str
    intent: Intent
    active_sources: list[str]
    sub_questions: list[SubQuestion]
    queries: list[SourceQuery]
    """This round's queries, one per source and sub-question (query generation owns them)."""
    papers: list[Work]
    materials: Annotated[list[Material], operator.add]
    passages: list[Passage]
    draft: Draft
    evaluation: Evaluation
    search_log: Annotated[list[SearchLogEntry], operator.add]
    prisma: Prisma
    screening: list[ScreenedWork]
    """Every work screened, over all rounds: its decision and why (retrieval owns it)."""
    iteration: int
    stop_reason: str
    notes: Annotated[list[str], operator.add]
    model_steps: Annotated[list[ModelStep], operator.add]


class ReviewState(OutputState, total=False):
    """The working state: the output plus what only the nodes need."""

    plan_decision: dict[str, Any]
    """The decision taken on the plan (approval or ``plan``), as JSON-ready values: the run's
    record replays it (``--plan``) so a re-run searches the plan the reviewer approved."""
    records: Annotated[list[Work], operator.add]
    filter_depth: int
    full_texts: dict[str, FullTextFate]
    """What became of each work sought in full, by work id, over all rounds (retrieval owns it)."""
    criteria_verdicts: dict[str, str | None]
    """What the chat model said of each work it judged against the criteria, by work key: the
    exclusion reason, or None for included, over all rounds (retrieval owns it)."""
