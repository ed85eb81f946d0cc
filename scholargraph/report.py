"""The finished review: what ``review.json`` holds, built from the graph's final state.

A :class:`Report` is what the Python API returns and what the CLI writes. Its ``write`` method
produces the five files of the contract: ``review.md``, ``review.json``, ``references.bib``,
``references.ris`` and ``references.csl.json``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from scholargraph.agents.schemas import (
    Evaluation,
    EvidenceRow,
    Finding,
    ModelStep,
    StructuredMethod,
    SubQuestion,
    WorkStance,
)
from scholargraph.context import ReviewContext
from scholargraph.deterministic.credibility import no_venue_named
from scholargraph.deterministic.evidence_table import evidence_passages
from scholargraph.deterministic.extractive import QUOTED_FOR_RESULTS
from scholargraph.deterministic.questions import asked, stance_claim, yes_no_clause
from scholargraph.engines import engine_name
from scholargraph.errors import ScholargraphError
from scholargraph.exports.citation import citation_keys
from scholargraph.exports.files import FIGURE_FILES, SCREENING_FILES, write_review
from scholargraph.history import HistoryEntry, UpdateSection
from scholargraph.ledger import ScreenedWork
from scholargraph.records import (
    Material,
    Passage,
    Record,
    SearchLogEntry,
    Work,
    passage_location,
)
from scholargraph.screening.relevance import (
    Abbreviations,
    kept_reason,
    read_criteria,
    record_text,
)
from scholargraph.sources.library import outside_window, untitled_records
from scholargraph.state import ReviewState
from scholargraph.wording import NO_PASSAGE

OUTPUT_FILES = ("review.md", "review.json", "references.bib", "references.ris",
                "references.csl.json")
"""The five files the contract names."""
REVIEW_FILES = (*OUTPUT_FILES, *FIGURE_FILES, *SCREENING_FILES)
"""Every file a review writes: the contract's five, the self-contained HTML review and its two
figures, and the screening record."""


class Reference(Record):
    """A numbered entry of the reference list: the work, its citation key and the passages
    cited from it."""

    number: int
    work_id: str
    key: str = Field("", description="Its entry in references.bib (key), references.ris (ID) "
                     "and references.csl.json (id), so that citation [n] resolves to one entry "
                     "of each")
    passage_ids: list[str] = Field(default_factory=list)


class ReviewCounts(Record):
    """The review's numbers, counted once: the CLI line, the summary, ``review.json`` and the
    PRISMA diagram all read them from here (or from the same PRISMA record), so they agree.

    They describe the whole review as it stands. After ``scholargraph update`` that is every
    run together (:func:`scholargraph.updating.whole_review_counts`): ``screened`` and
    ``excluded`` are every run's rows of ``screening.csv``, ``included`` each work once, and
    ``joined`` the works an update screened and kept that were already included (a new version
    of one), so ``screened - excluded = included + joined``; the update's own flow is
    ``update.prisma`` (and ``prisma``). Before, ``screened`` was the update's alone beside the
    total ``included`` (9 screened, 23 included), a pair no run had."""

    screened: int = 0
    excluded: int = 0
    included: int = Field(0, description="Works that passed screening")
    findings: int = Field(0, description="Quoted or written findings (kind 'finding')")
    contradictions: int = 0
    agreements: int = 0
    limitations: int = Field(0, description="Limitations the sources state, quoted")
    cited_works: int = Field(0, description="Works cited: the reference list's length")
    joined: int = Field(0, description="After an update: works it screened and kept that the "
                        "review already included (counted once in `included`)")


def review_counts(findings: list[Finding], prisma: dict[str, Any], cited_works: int
                  ) -> ReviewCounts:
    kinds = [finding.kind for finding in findings]
    return ReviewCounts(
        screened=int(prisma.get("screened", 0)), excluded=int(prisma.get("excluded", 0)),
        included=int(prisma.get("included", 0)), findings=kinds.count("finding"),
        contradictions=kinds.count("contradiction"), agreements=kinds.count("agreement"),
        limitations=kinds.count("limitation"), cited_works=cited_works)


def cited_work_ids(findings: list[Finding], rows: list[EvidenceRow],
                   passages: dict[str, Passage]) -> list[str]:
    """The works the findings and evidence-table rows cite, in order of first citation (the
    reference list's order)."""
    cited = [passage_id for finding in findings for passage_id in finding.passage_ids]
    cited += [row.passage_id for row in rows]
    return list(dict.fromkeys(passages[i].work_id for i in cited if i in passages))


class SourceFailure(Record):
    source: str
    error: str


class StepUsage(Record):
    """What one step asked of the model over the run, summed over its asks (one per round)."""

    step: str
    asks: int = Field(0, description="Questions put to the model (one answer each)")
    calls: int = Field(0, description="Requests sent, retries and method step-downs included")
    valid_first_time: int = Field(0, description="Asks whose first reply was usable")
    fallbacks: int = Field(0, description="Asks the deterministic engine answered instead")
    cut: int = Field(0, description="Replies cut at the token limit")
    timed_out: int = Field(0, description="Asks the model did not answer within the time limit")
    unjudged: int = Field(0, description="Items left without a valid answer after every retry "
                          "(screening: records kept without the model's verdict)")
    set_aside: list[StructuredMethod] = Field(
        default_factory=list, description="Methods the model answered with plain text in this "
        "step, which then asked the next way (for itself only)")
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    answered_by: Literal["model", "fallback", "both"] = "model"

    def outcome(self) -> str:
        """The step once, with what answered it: 'screening (the model 3 of 5 times, the
        deterministic fallback 2)' where both did."""
        if self.answered_by != "both":
            return self.step
        return (f"{self.step} (the model {self.asks - self.fallbacks} of {self.asks} times, "
                f"the deterministic fallback {self.fallbacks})")


class EngineSection(Record):
    """Which engine made the review and, with a model, what each step asked of it."""

    model: str = Field("deterministic", description="'deterministic' or the chat model's name")
    method: StructuredMethod | None = Field(
        None, description="How structured output was last requested (the method that worked)")
    refused: list[StructuredMethod] = Field(
        default_factory=list, description="Methods the server refused during the run")
    context_tokens: int | None = Field(None, description="The model's context size used")
    steps: list[StepUsage] = Field(default_factory=list)
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0

    def answered_by_model(self) -> list[str]:
        return [s.step for s in self.steps if s.answered_by != "fallback"]

    def line(self) -> str:
        """One sentence for review.md, each step named once with its outcome: a step asked
        several times (screening's batches, a second round) listed as both answered by the
        model and fallen back read as two contradicting outcomes."""
        if not self.steps:
            return f"Engine: {self.model}."
        parts = []
        for outcome, label in (("model", "answered by the model"),
                               ("both", "partly by the model"),
                               ("fallback", "deterministic fallback")):
            named = [s.outcome() for s in self.steps if s.answered_by == outcome]
            if named or outcome != "both":
                parts.append(f"{label}: {', '.join(named) or 'none'}")
        return (f"Engine: {self.model} ({self.method}); {self.calls} model calls, "
                f"{self.tokens_in} tokens in, {self.tokens_out} out, {self.seconds:.0f} s; "
                + "; ".join(parts) + ".")


def run_method(steps: list[ModelStep]) -> StructuredMethod | None:
    """How the run last asked for structured output: the last step's method, unless that step
    stepped down for itself alone (the model answered one prompt in plain text), then the
    method it started from, which the run went on using."""
    if not steps:
        return None
    last = steps[-1]
    return last.set_aside[0] if last.set_aside else last.method


def engine_section(model: str, steps: list[ModelStep]) -> EngineSection:
    """The engine section from the run's recorded model steps, summed per step."""
    usage: dict[str, StepUsage] = {}
    for step in steps:
        total = usage.setdefault(step.step, StepUsage(step=step.step))
        total.asks += 1
        total.calls += step.calls
        total.valid_first_time += step.valid_first_time
        total.fallbacks += step.answered_by == "fallback"
        total.cut += step.cut
        total.timed_out += step.timed_out
        total.unjudged += step.unjudged
        total.set_aside = list(dict.fromkeys([*total.set_aside, *step.set_aside]))
        total.tokens_in += step.tokens_in
        total.tokens_out += step.tokens_out
        total.seconds = round(total.seconds + step.seconds, 3)
    for total in usage.values():
        total.answered_by = ("fallback" if total.fallbacks == total.asks
                             else "both" if total.fallbacks else "model")
    listed = list(usage.values())
    return EngineSection(
        model=model, method=run_method(steps),
        refused=list(dict.fromkeys(m for s in steps for m in s.refused)),
        context_tokens=next((s.context_tokens for s in reversed(steps) if s.context_tokens),
                            None),
        steps=listed, calls=sum(s.calls for s in listed),
        tokens_in=sum(s.tokens_in for s in listed), tokens_out=sum(s.tokens_out for s in listed),
        seconds=round(sum(s.seconds for s in listed), 3))


class RunRecord(Record):
    """How the review was run: what a colleague needs to run it again and to know what they
    compare with. Keys, contact addresses and the checkpoint database are never recorded."""

    command: str = Field("", description="The shell command that runs this review again, "
                         "every option that differs from its default spelled out (the values "
                         "the environment gave included: as their options, or as the variables "
                         "of 'environment' before the command), writing to the folder 'rerun'")
    options: dict[str, Any] = Field(
        default_factory=dict, description="Every option of the run by its keyword of "
        "scholargraph.review() (question apart): review(report.question, **options) runs it "
        "again from Python")
    environment: dict[str, str] = Field(
        default_factory=dict, description="The variables the run was given that shaped what "
        "it did and no option carries (the embedding model, a mirror's address, plug-ins "
        "registered by SCHOLARGRAPH_SOURCES and their addresses), by name, as the command sets "
        "them before scholargraph; never a key")
    offline: bool = Field(False, description="Searched the recorded corpus, not the services")
    corpus_as_of: str | None = Field(None, description="Offline: the day the recorded corpus "
                                     "is served as of (YYYY-MM-DD)")
    endpoints: dict[str, str] = Field(
        default_factory=dict, description="Service addresses other than the official ones (a "
        "mirror, a proxy), without credentials or query; offline runs list none of the "
        "built-in services' (their replay server listens on another port each time); a "
        "plug-in's, by the variable its politeness declares (SCHOLARGRAPH_CROSSREF_URL)")
    plugins: dict[str, str] = Field(
        default_factory=dict, description="The source plug-ins registered for the run, by "
        "name: the class, where it was registered (an entry point, SCHOLARGRAPH_SOURCES) and "
        "the package that ships it, with its version; a re-run needs them installed")
    embedding_model: str = Field("", description="The model that embedded the passages "
                                 "('none': lexical ranking only)")
    library_sha256: str | None = Field(
        None, description="With --library: a SHA-256 of its files (names and contents), so a "
        "colleague can check that the library they re-run from is the one reviewed")
    versions: dict[str, str] = Field(
        default_factory=dict, description="scholargraph's, Python's and the versions of the "
        "packages that shape its answers")


class Report(Record):
    """A literature review, ready to read, check and export."""

    question: str
    cleaned_question: str = ""
    engine: EngineSection = Field(default_factory=EngineSection,
                                  description="The engine, and what each step asked of a model")
    generated_at: str = Field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    sources_searched: list[str] = Field(default_factory=list)
    sub_questions: list[SubQuestion] = Field(default_factory=list)
    summary: str = ""
    papers: list[Work] = Field(default_factory=list, description="Included works, deduplicated")
    materials: list[Material] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    evidence_table: list[EvidenceRow] = Field(
        default_factory=list, description="Values the sources report, one row per source, "
        "each citing its passage (for questions that ask for values)")
    stances: list[WorkStance] = Field(
        default_factory=list, description="For a claim: which way each included study points "
        "(supports, contradicts, no effect, neither), most direct first, with the sentence it "
        "is read from and its reference number")
    gaps: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list, description="Of the review itself")
    references: list[Reference] = Field(default_factory=list)
    passages: list[Passage] = Field(default_factory=list, description="Passages cited")
    prisma: dict[str, Any] = Field(default_factory=dict)
    screening: list[ScreenedWork] = Field(
        default_factory=list, description="Every work screened, in every round and by every "
        "path, with its decision and reason; its rows add up to `prisma` (`screening.csv`)")
    search_log: list[SearchLogEntry] = Field(default_factory=list)
    sources_failed: list[SourceFailure] = Field(default_factory=list)
    evaluation: Evaluation = Field(default_factory=Evaluation)
    iterations: int = 0
    stop_reason: str = ""
    notes: list[str] = Field(default_factory=list)
    citation_style: str = Field("apa", description="Style of the formatted reference lists")
    criteria: str | None = Field(
        None, description="The eligibility criteria the records were screened against, as text "
        "(read from the file when one was given): an update screens its new records by them")
    years: tuple[int | None, int | None] = Field(
        (None, None), description="The publication years searched (``--since``, ``--until``, "
        "or read from the question; None: open): an update keeps them")
    counts: ReviewCounts = Field(default_factory=ReviewCounts,
                                 description="The numbers the summary and the CLI report")
    searched_through: str = Field(
        "", description="The day the searches reached (YYYY-MM-DD; unset: the day it was "
        "generated): an update searches from it")
    history: list[HistoryEntry] = Field(
        default_factory=list, description="Earlier runs of this review, oldest first (written "
        "by `scholargraph update`)")
    update: UpdateSection | None = Field(
        None, description="What the last update changed (`scholargraph update`)")
    run: RunRecord | None = Field(
        None, description="How this run was made: its command, every option, the versions, "
        "so that a colleague can run it again (unset in reviews written before it was kept)")

    @property
    def day(self) -> str:
        """The day this run's searches reached (YYYY-MM-DD)."""
        return self.searched_through or self.generated_at[:10]

    @field_validator("engine", mode="before")
    @classmethod
    def _engine_by_name(cls, value: Any) -> Any:
        """A bare name (what ``engine`` held before it had a section) is the engine's model."""
        return EngineSection(model=value) if isinstance(value, str) else value

    def work(self, work_id: str) -> Work:
        for paper in self.papers:
            if paper.id == work_id:
                return paper
        raise KeyError(work_id)

    def reference_numbers(self) -> dict[str, int]:
        """Each cited work's number in the reference list, by work id."""
        return {reference.work_id: reference.number for reference in self.references}

    def cited_works(self) -> list[Work]:
        """The works of the reference list, in reference-number order."""
        return [self.work(reference.work_id) for reference in self.references]

    def unanswered_note(self, sub: SubQuestion) -> str:
        """What the findings under a sub-question with none say: that nothing answered it, or,
        for a claim's other sub-questions (methods, limitations), that its studies are quoted
        under the claim for their results (the gap :data:`QUOTED_FOR_RESULTS` names), which
        "No passage answered this sub-question" contradicted."""
        if f"{QUOTED_FOR_RESULTS}: {sub.text}" in self.gaps:
            return "Each included study is quoted for its result on the claim, not again here."
        return NO_PASSAGE

    def listed_gaps(self) -> list[str]:
        """The gaps the review lists under "Gaps and limitations": the synthesis's and the
        evaluator's, once each, without the claim's sub-questions answered by its studies'
        results (:data:`QUOTED_FOR_RESULTS`). Those are no gap, and the summary and each such
        sub-question's section already say so: a claim's review over the recorded corpus
        printed "Each included study is quoted for its result on the claim, not again for:
        ..." four times, twice as gaps. review.json keeps them in ``gaps``, where
        :meth:`unanswered_note` reads them."""
        return [gap for gap in dict.fromkeys([*self.gaps, *self.evaluation.gaps])
                if not gap.startswith(f"{QUOTED_FOR_RESULTS}: ")]

    def weakness_note(self, finding: Finding) -> str:
        """What the review can say of a finding's sources' standing: "" when one of them is
        strong enough, "peer review unknown" when every work it cites is a scholarly record
        naming no venue (a library exported without journal names: its works may well be
        journal articles), else "weak sources only" (preprints, news, pages). When no cited
        work names a venue the tag would be on every finding, and is left to the one gap that
        says so."""
        if not finding.weak_sources:
            return ""
        numbers = set(finding.citations)
        works = [self.work(r.work_id) for r in self.references if r.number in numbers]
        if not no_venue_named(works):
            return "weak sources only"
        if no_venue_named(self.cited_works()):
            return ""  # true of every finding: the gaps say it once (NO_VENUE_NAMED)
        return "peer review unknown"

    def passage(self, passage_id: str) -> Passage:
        for passage in self.passages:
            if passage.id == passage_id:
                return passage
        raise KeyError(passage_id)

    def locations(self, passage_ids: Iterable[str]) -> dict[int, str]:
        """Per reference number, where in the full text the cited passages lie ('Results,
        p. 6'); works cited only from their title or abstract are left out."""
        known = {passage.id: passage for passage in self.passages}
        numbers = {pid: ref.number for ref in self.references for pid in ref.passage_ids}
        found: dict[int, list[str]] = {}
        for passage_id in passage_ids:
            passage = known.get(passage_id)
            label = passage_location(passage) if passage else ""
            if label and passage_id in numbers:
                found.setdefault(numbers[passage_id], []).append(label)
        return {number: "; ".join(dict.fromkeys(labels)) for number, labels in found.items()}

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    def keyed_references(self) -> list[Reference]:
        """The references, each with the citation key the exports give its work
        (:func:`~scholargraph.exports.citation.citation_keys` over the cited works in
        reference order, as :func:`~scholargraph.exports.files.write_review` writes them)."""
        keys = citation_keys(self.cited_works())
        return [ref.model_copy(update={"key": key}) for ref, key in zip(self.references, keys)]

    def write(self, out_dir: str | Path) -> dict[str, Path]:
        """Write the review's nine files into ``out_dir`` (see
        :func:`scholargraph.exports.files.write_review`); return their paths. The references'
        keys are set first (an update renumbers them), so ``review.json``, ``review.md`` and
        the exports name each cited work by the same key."""
        self.references = self.keyed_references()
        return write_review(self, out_dir)


BALANCE_WORDS = (("supports", "supports it", "support it"),
                 ("contradicts", "contradicts it", "contradict it"),
                 ("no effect", "finds no effect", "find no effect"),
                 ("neither", "neither supports nor contradicts it",
                  "neither support nor contradict it"))
"""Each reading, as the balance line says it of one study and of several."""


NO_STUDY_TESTS = ("No included study tests the claim, so this review neither supports nor "
                  "contradicts it.")
"""The balance of a claim no included study tests, said plainly: a summary that only says it
"included none, so it has no findings" leaves the reader to conclude what that means for the
claim (over the recorded corpus, "Vitamin D supplementation prevents influenza in school
children.")."""


def balance_subject(question: str) -> str:
    """What the balance line says the studies support: "the claim" a claim states, or, for a
    yes/no question, what it asks, as a clause ("that the source of stem cells has an effect
    on knee osteoarthritis"). "Of the 574 included studies, 10 support the claim" read over a
    question that named no claim."""
    asked = yes_no_clause(question)
    return f"that {asked}" if asked else "the claim"


def asked_line(question: str) -> str:
    """The sentence that opens the summary, naming the question the review answers as it read
    it ("This review asks whether hair cortisol reflects long-term stress."): the summary read
    alone (review.json, the HTML page, a reader who skips the heading) said what was screened
    and found but not for which question, nor how the question was read."""
    return f"This review asks {asked(question)}."


def balance_line(stances: list[WorkStance], claim: bool = False,
                 subject: str = "the claim") -> str:
    """The balance of the studies that test a claim, each cited: "Of the 4 included studies, 2
    support the claim [1][3], 1 contradicts it [2], 1 finds no effect [4]."; a study not cited
    (it states no result) is counted without a number; empty without stances. The claim is
    named where the line first points at it ("Of the 5 included studies read against the
    claim, 1 supports it" read to scientists as if the studies opposed it), as ``subject``
    says it (:func:`balance_subject`). For a ``claim``
    (or a yes/no question) that no included study was read on, ``NO_STUDY_TESTS``."""
    if not stances:
        return NO_STUDY_TESTS if claim else ""
    parts = []
    for reading, one, several in BALANCE_WORDS:
        numbers = sorted({s.citation for s in stances if s.reading == reading and s.citation})
        count = sum(s.reading == reading for s in stances)
        if count:
            cited = "".join(f"[{number}]" for number in numbers)
            parts.append(f"{count} {one if count == 1 else several}{' ' + cited if cited else ''}")
    line = ", ".join(parts).replace(" it", f" {subject}", 1)
    if len(stances) == 1:
        return f"The one included study {line.removeprefix('1 ')}."
    return f"Of the {len(stances)} included studies, {line}."


UNTITLED_REASON = "no title"
"""PRISMA's reason for a library's records removed before screening for want of a title."""


def window_reason(since: int | None, until: int | None) -> str:
    """PRISMA's reason for a library's records set aside by the review's years: 'outside the
    years asked for: 2012 on, or undated'."""
    if since is not None and until is not None:
        years = f"{since}-{until}" if since != until else str(since)
    else:
        years = f"{since} on" if since is not None else f"up to {until}"
    return f"outside the years asked for: {years}, or undated"


def with_untitled_records(prisma: dict[str, Any], context: ReviewContext,
                          since: int | None = None, until: int | None = None) -> dict[str, Any]:
    """PRISMA's counts with a library's records that have no title (:func:`untitled_records`),
    and those outside the review's years ``since``-``until`` (:func:`outside_window`), among
    those identified from the library and removed before screening: "identified" is then the
    size of the export the scientist gave, as PRISMA 2020 counts a database search's records,
    not the size less the records the review could not screen or set aside by date (a
    232-record export reviewed from 2012 on was counted as 192 identified, and the 40 records
    the window left out were nowhere in the flow)."""
    path = context.library_path()
    identified = dict(prisma.get("identified") or {})
    if not path or "library" not in identified:
        return prisma
    try:
        removed = {UNTITLED_REASON: untitled_records(Path(path)),
                   window_reason(since, until): outside_window(Path(path), since, until)}
    except (OSError, ScholargraphError):  # the library is gone or unreadable since: as counted
        return prisma
    removed = {reason: count for reason, count in removed.items() if count}
    if not removed:
        return prisma
    identified["library"] += sum(removed.values())
    return {**prisma, "identified": identified, "removed_before_screening": {
        **(prisma.get("removed_before_screening") or {}), **removed}}


def with_kept_reasons(rows: list[ScreenedWork], papers: list[Work], question: str,
                      criteria: str | None,
                      verdicts: dict[str, str | None] | None = None) -> list[ScreenedWork]:
    """The screening rows, each included one with the reason it was kept
    (:func:`~scholargraph.screening.relevance.kept_reason`: the concepts it names and where,
    the design read), where screening gave it none: a systematic reviewer checks an inclusion
    as they check an exclusion, and a blank reason tells them nothing. ``verdicts``, when the
    model screened against the criteria: each included row also says whether the model judged
    it include or could not judge it (:func:`~scholargraph.screening.llm_criteria.model_part`)."""
    from scholargraph.screening.llm_criteria import model_part

    by_id = {paper.id: paper for paper in papers}
    read = read_criteria(criteria) if criteria else None
    abbreviations = Abbreviations.of([record_text(paper) for paper in papers])

    def reason(row: ScreenedWork) -> str:
        paper = by_id[row.work_id]
        said = row.reason or kept_reason(question, read, paper, abbreviations)
        return said if verdicts is None else f"{said}; {model_part(paper, verdicts)}"

    return [row.model_copy(update={"reason": reason(row)})
            if row.decision == "included" and row.work_id in by_id
            and (not row.reason or verdicts is not None) else row
            for row in rows]


def model_verdicts(state: ReviewState) -> dict[str, str | None] | None:
    """The model's screening verdicts when it screened in this run, else None."""
    from scholargraph.screening.llm_criteria import STEP

    if not any(step.step == STEP for step in state.get("model_steps", [])):
        return None
    return dict(state.get("criteria_verdicts", {}))


def _years(state: ReviewState) -> tuple[int | None, int | None]:
    """The publication years the run searched (its intent's: ``--since``/``--until``, or read
    from the question)."""
    intent = state.get("intent")
    return (intent.since, intent.until) if intent is not None else (None, None)


def report_from_state(question: str, state: ReviewState, context: ReviewContext) -> Report:
    """The report of a finished run: references numbered by first citation."""
    draft = state.get("draft")
    rows = draft.evidence_table if draft else []
    passages = {p.id: p for p in state.get("passages", [])}
    passages.update(evidence_passages(rows, state.get("passages", []), state.get("papers", [])))
    references: list[Reference] = []
    numbers: dict[str, int] = {}

    def cite(passage_id: str) -> int:
        work_id = passages[passage_id].work_id
        if work_id not in numbers:
            numbers[work_id] = len(numbers) + 1
            references.append(Reference(number=numbers[work_id], work_id=work_id))
        reference = references[numbers[work_id] - 1]
        if passage_id not in reference.passage_ids:
            reference.passage_ids.append(passage_id)
        return numbers[work_id]

    findings = [finding.model_copy(update={
        "citations": sorted({cite(passage_id) for passage_id in finding.passage_ids})})
        for finding in (draft.findings if draft else [])]
    table = [row.model_copy(update={"citation": cite(row.passage_id)})
             for row in rows if row.passage_id in passages]
    stances = [stance.model_copy(update={"citation": numbers.get(stance.work_id)})
               for stance in (draft.stances if draft else [])]
    cited_passages = [passages[i] for ref in references for i in ref.passage_ids]
    log = state.get("search_log", [])
    failures: dict[str, str] = {}
    for entry in log:  # a source's first failure: the later ones of a broken service repeat it
        if entry.status == "error":
            failures.setdefault(entry.source, entry.error or "failed")
    report = Report(
        question=question,
        cleaned_question=state.get("cleaned_question", ""),
        engine=engine_section(engine_name(context), list(state.get("model_steps", []))),
        sources_searched=state.get("active_sources", []),
        sub_questions=state.get("sub_questions", []),
        summary=" ".join(part for part in [asked_line(state.get("cleaned_question")
                                                      or question),
                                           draft.summary if draft else "",
                                           balance_line(stances, stance_claim(question)
                                                        is not None,
                                                        balance_subject(question))] if part),
        stances=stances,
        papers=state.get("papers", []),
        materials=list({m.material_id: m for m in state.get("materials", [])}.values()),
        findings=findings,
        evidence_table=table,
        gaps=draft.gaps if draft else [],
        limitations=draft.limitations if draft else [],
        references=references,
        passages=cited_passages,
        prisma=with_untitled_records(dict(state.get("prisma", {})), context,
                                     *_years(state)),
        screening=with_kept_reasons(list(state.get("screening", [])), state.get("papers", []),
                                    state.get("cleaned_question") or question, context.criteria,
                                    model_verdicts(state)),
        search_log=log,
        sources_failed=[SourceFailure(source=s, error=e) for s, e in failures.items()],
        evaluation=state.get("evaluation") or Evaluation(),
        iterations=state.get("iteration", 0 if draft is None else 1),
        stop_reason=state.get("stop_reason", ""),
        notes=list(dict.fromkeys(state.get("notes", []))),
        citation_style=context.citation_style,
        criteria=read_criteria(context.criteria).text if context.criteria else None,
        years=_years(state),
        counts=review_counts(findings, dict(state.get("prisma", {})), len(references)),
    )
    report.references = report.keyed_references()
    return report

