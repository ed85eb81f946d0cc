"""The finished review: what ``review.json`` holds, built from the graph's final state.

A :class:`Report` is what the Python API returns and what the CLI writes. Its ``write`` method
produces the five files of the contract: ``review.md``, ``review.json``, ``references.bib``,
``references.ris`` and ``references.csl.json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import Field

from scholargraph.context import ReviewContext
from scholargraph.engines import engine_name
from scholargraph.errors import OutputDirError
from scholargraph.evidence_table import evidence_passages
from scholargraph.records import Material, Passage, Record, SearchLogEntry, Work
from scholargraph.schemas import Evaluation, EvidenceRow, Finding, SubQuestion
from scholargraph.state import ReviewState

OUTPUT_FILES = ("review.md", "review.json", "references.bib", "references.ris",
                "references.csl.json")
FIGURE_FILES = ("review.html", "prisma.svg", "years.svg")
"""Written beside the contract's five: the self-contained HTML review and its two figures."""


class Reference(Record):
    """A numbered entry of the reference list: the work and the passages cited from it."""

    number: int
    work_id: str
    passage_ids: list[str] = Field(default_factory=list)


class SourceFailure(Record):
    source: str
    error: str


class Report(Record):
    """A literature review, ready to read, check and export."""

    question: str
    cleaned_question: str = ""
    engine: str = Field("deterministic", description="'deterministic' or the chat model's name")
    generated_at: str = Field(
        default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    sources_searched: list[str] = Field(default_factory=list)
    sub_questions: list[SubQuestion] = Field(default_factory=list)
    summary: str = ""
    papers: list[Work] = Field(default_factory=list, description="Included works, deduplicated")
    materials: list[Material] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    evidence_table: list[EvidenceRow] = Field(
        default_factory=list, description="Values the sources report, one row per source, "
        "each citing its passage (for questions that ask for values)")
    gaps: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list, description="Of the review itself")
    references: list[Reference] = Field(default_factory=list)
    passages: list[Passage] = Field(default_factory=list, description="Passages cited")
    prisma: dict[str, Any] = Field(default_factory=dict)
    search_log: list[SearchLogEntry] = Field(default_factory=list)
    sources_failed: list[SourceFailure] = Field(default_factory=list)
    evaluation: Evaluation = Field(default_factory=Evaluation)
    iterations: int = 0
    stop_reason: str = ""
    notes: list[str] = Field(default_factory=list)
    citation_style: str = Field("apa", description="Style of the formatted reference lists")

    def work(self, work_id: str) -> Work:
        for paper in self.papers:
            if paper.id == work_id:
                return paper
        raise KeyError(work_id)

    def cited_works(self) -> list[Work]:
        """The works of the reference list, in reference-number order."""
        return [self.work(reference.work_id) for reference in self.references]

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

    def write(self, out_dir: str | Path) -> dict[str, Path]:
        """Write the five output files and the three of ``FIGURE_FILES`` into ``out_dir``
        (created if needed); return their paths."""
        from scholargraph.exports import bibtex, csljson, html, markdown, prisma, ris

        directory = prepare_out_dir(out_dir)
        works = self.cited_works() or self.papers
        contents = {
            "review.md": markdown.render(self),
            "review.json": self.to_json(),
            "references.bib": bibtex.dumps(works),
            "references.ris": ris.dumps(works),
            "references.csl.json": json.dumps(csljson.to_csl(works), indent=2, ensure_ascii=False),
            "review.html": html.render(self),
            "prisma.svg": prisma.flow_svg(prisma.prisma_record(self.prisma, self.search_log)),
            "years.svg": prisma.years_svg(self.papers),
        }
        paths = {}
        for name, text in contents.items():
            path = directory / name
            path.write_text(text, encoding="utf-8")
            paths[name] = path
        return paths


PLAIN_PARTS = ("title", "abstract", "full_text")


def passage_location(passage: Passage) -> str:
    """Where a passage lies in its full text, as a citation shows it: its section (the first
    and last titles of a deep path: 'Results > Table 2') and its page ('Methods, p. 4'); '' for
    a title or an abstract."""
    parts: list[str] = []
    if passage.section not in PLAIN_PARTS:
        titles = [title for title in passage.section.split(" > ") if title]
        parts.append(" > ".join([titles[0], titles[-1]] if len(titles) > 2 else titles))
    if passage.page is not None:
        parts.append(f"p. {passage.page}")
    return ", ".join(part for part in parts if part)


def full_text_note(work: Work) -> str:
    """'read in full: PMC JATS; licence CC BY 4.0 URL' for a work whose full text was read
    (fetched or from the library), else ''."""
    if not work.full_text_source:
        return ""
    licence = f"; licence {work.licence}" if work.licence else "; licence not stated"
    return f"read in full: {work.full_text_source}{licence}"


def prepare_out_dir(out_dir: str | Path) -> Path:
    """Create ``out_dir`` and check it is writable, or raise :class:`OutputDirError` saying why."""
    directory = Path(out_dir).expanduser()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / ".scholargraph-write-test"
        probe.write_text("ok", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise OutputDirError(
            f"cannot write to --out {str(directory)!r}: {exc.strerror or exc}; "
            "choose a directory you can write to"
        ) from exc
    return directory


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
    cited_passages = [passages[i] for ref in references for i in ref.passage_ids]
    log = state.get("search_log", [])
    failures = {entry.source: entry.error or "failed" for entry in log if entry.status == "error"}
    return Report(
        question=question,
        cleaned_question=state.get("cleaned_question", ""),
        engine=engine_name(context),
        sources_searched=state.get("active_sources", []),
        sub_questions=state.get("sub_questions", []),
        summary=draft.summary if draft else "",
        papers=state.get("papers", []),
        materials=list({m.material_id: m for m in state.get("materials", [])}.values()),
        findings=findings,
        evidence_table=table,
        gaps=draft.gaps if draft else [],
        limitations=draft.limitations if draft else [],
        references=references,
        passages=cited_passages,
        prisma=dict(state.get("prisma", {})),
        search_log=log,
        sources_failed=[SourceFailure(source=s, error=e) for s, e in failures.items()],
        evaluation=state.get("evaluation") or Evaluation(),
        iterations=state.get("iteration", 0 if draft is None else 1),
        stop_reason=state.get("stop_reason", ""),
        notes=list(dict.fromkeys(state.get("notes", []))),
        citation_style=context.citation_style,
    )

