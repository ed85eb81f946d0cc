"""What the judging agents produce: intent, plan, queries, draft review and evaluation.

Both engines return these models: the LLM engine through structured output, the deterministic
engine by rules. Field descriptions double as instructions to the model, so they say what a good
value looks like.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from scholargraph.records import Record

QuestionKind = Literal[
    "factual", "comparative", "mechanism", "review", "dataset", "material_property", "other"
]
Domain = Literal["biomedical", "physics", "computer_science", "materials", "chemistry", "general"]
Verdict = Literal["accept", "more_evidence", "refilter"]
NewsWindow = Literal["day", "week", "month", "year"]
FindingKind = Literal["finding", "agreement", "contradiction", "limitation"]
Bearing = Literal["supports", "opposes"]
StructuredMethod = Literal["json_schema", "function_calling", "json_mode"]


class Intent(Record):
    """What kind of question this is and where its answer is likely to be published."""

    kind: QuestionKind = Field(description="The kind of question")
    domains: list[Domain] = Field(description="Research fields the question belongs to")
    keywords: list[str] = Field(description="3-8 key terms or phrases, most specific first")
    since: int | None = Field(None, description="Earliest publication year asked for, if any")
    until: int | None = Field(None, description="Latest publication year asked for, if any")
    formula: str | None = Field(None, description="A chemical formula the question is about")
    news_window: NewsWindow | None = Field(
        None, description="Only when the question asks for news, the latest or recent "
        "developments, or this year's: how far back news results may reach")
    wants_data: bool = Field(False, description="Whether the question asks for specific values, "
                             "numbers, a table or a dataset")


class SubQuestion(Record):
    """One part of the question, answerable from a few passages."""

    id: str = Field(description="Short id such as 'q1'")
    text: str = Field(description="The sub-question, self-contained")
    answer_shape: str = Field(description="What evidence would answer it")


class Plan(Record):
    sub_questions: list[SubQuestion] = Field(description="2-5 sub-questions covering the question")


class SourceQuery(Record):
    """A query in one source's own syntax, for one sub-question."""

    source: str
    sub_question_id: str
    query: str
    round: int = 1


class Quote(Record):
    """A verbatim span of a passage: ``passage.text[start:end] == text``, so anyone can check it."""

    passage_id: str
    start: int = Field(description="Offset of the first character in the passage's text")
    end: int = Field(description="Offset just past the last character in the passage's text")
    text: str


class Finding(Record):
    """A statement of the review and the passages it rests on."""

    text: str
    passage_ids: list[str] = Field(description="Ids of the passages that support the statement")
    sub_question_id: str | None = None
    kind: FindingKind = "finding"
    citations: list[int] = Field(default_factory=list, description="Numbers into references")
    quotes: list[Quote] = Field(default_factory=list,
                                description="Filled by the system: the evidence, verbatim")
    support: float | None = Field(None, description="Filled by the system: 0-1 support check")
    weak_sources: bool = Field(False, description="Filled by the system: every work it cites "
                                                  "has low credibility")
    bearing: Bearing | None = Field(None, description="Filled by the system: whether the finding "
                                    "points the way the question's own claim does, or against it")


class WorkStance(Record):
    """Which way one included study points on the claim a review checks, read from the sentence
    that states its result."""

    work_id: str
    reading: Literal["supports", "contradicts", "no effect", "neither"] = Field(
        description="supports, contradicts, finds no effect where the claim states one, or "
                    "neither (no result sentence reads either way)")
    quote: Quote | None = Field(None, description="The result sentence it is read from")
    citation: int | None = Field(None, description="Filled by the system: reference number")


class EvidenceRow(Record):
    """One value a source reports (a band gap, an odds ratio, a sample size), with its unit, what it
    is about, and the verbatim passage span it comes from."""

    measure: str = Field(description="What the value measures, e.g. 'band gap', 'odds ratio', "
                                     "'sample size'")
    value: str = Field(description="The value as written, e.g. '3.2', '1.54 (95% CI 1.1-2.0)'")
    unit: str = Field("", description="Its unit as written, e.g. 'eV', '%', 'participants'; "
                                      "empty for a ratio")
    subject: str = Field(description="The population or material the value is about")
    passage_id: str = Field(description="Id of the passage the value is quoted from")
    quote: str = Field(description="The sentence of the passage stating the value, verbatim")
    start: int = Field(0, description="Filled by the system: offset of the quote in the passage")
    end: int = Field(0, description="Filled by the system: offset just past the quote")
    citation: int | None = Field(None, description="Filled by the system: reference number")
    method: str = Field("", description="How the value was obtained, as its source says: "
                        "'measured', 'computed (HSE06)'; empty when it does not say")
    caveat: str = Field("", description="Filled by the system: what a reader of a computed "
                        "value should keep in mind (GGA band gaps are underestimated)")


class EvidenceTable(Record):
    """The values the passages report for the question, one row per source."""

    rows: list[EvidenceRow] = Field(description="One row per source that states a value")


class Draft(Record):
    """The written review before the evaluator reads it."""

    summary: str
    findings: list[Finding]
    gaps: list[str] = Field(default_factory=list, description="What the evidence does not cover")
    limitations: list[str] = Field(default_factory=list,
                                   description="Limitations of this review and of its evidence")
    unsupported_removed: int = Field(0, description="Filled by the system: sentences removed "
                                                    "because their passages do not support them")
    evidence_table: list[EvidenceRow] = Field(
        default_factory=list, description="Filled by the system: values the sources report")
    stances: list[WorkStance] = Field(
        default_factory=list, description="Filled by the system: for a claim, which way each "
        "included study points, most direct first")


class Evaluation(Record):
    """The evaluator's scores (0-1), the gaps it names, and the verdict the supervisor acts on."""

    coverage: dict[str, float] = Field(default_factory=dict, description="Per sub-question id")
    citation_support: float = 0.0
    source_diversity: float = 0.0
    recency: float = 0.0
    credibility: float = Field(0.0, description="Mean credibility of the cited works")
    retracted: list[str] = Field(default_factory=list, description="Cited works now retracted")
    overall: float = 0.0
    gaps: list[str] = Field(default_factory=list)
    verdict: Verdict = "accept"
    reason: str = ""


class ModelStep(Record):
    """One question put to the chat model by one step: how it was asked, what it cost, and
    whether the model's answer or the deterministic fallback was used."""

    step: str = Field(description="The agent that asked: intent, planning, synthesis...")
    method: StructuredMethod = Field(description="How structured output was requested")
    calls: int = Field(0, description="Requests sent (retries and method step-downs included)")
    tokens_in: int = Field(0, description="Prompt tokens, as the server counted them")
    tokens_out: int = Field(0, description="Completion tokens, as the server counted them")
    seconds: float = 0.0
    answered_by: Literal["model", "fallback"] = "fallback"
    valid_first_time: bool = Field(False, description="The first reply was usable as it came")
    cut: int = Field(0, description="Replies cut at the token limit")
    refused: list[StructuredMethod] = Field(
        default_factory=list, description="Methods the server refused during this step")
    set_aside: list[StructuredMethod] = Field(
        default_factory=list, description="Methods the model answered with plain text during "
        "this step: this step asked the next way, later steps try them again")
    timed_out: bool = Field(False, description="The model did not answer within the time "
                            "limit: this step fell back")
    max_tokens: int | None = Field(None, description="The token limit sent with each call")
    context_tokens: int | None = Field(None, description="The model's context size used")
    unjudged: int = Field(0, description="Items this ask left without a valid answer after "
                          "every retry (screening: records kept without the model's verdict)")
