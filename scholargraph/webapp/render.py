"""The pages' HTML, and the finished review as the page shows it: findings under their
sub-questions, each with the passages it rests on (the quoted span marked inside its passage)
and the work each comes from.

Everything here is plain data for the Jinja templates, which escape it; the one piece of ready
HTML, a formatted reference, is built from escaped parts by :func:`reference_html`. Links are
only ever ``http(s)`` URLs, so a record cannot smuggle a ``javascript:`` link onto the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import jinja2
from markupsafe import Markup, escape

from scholargraph.agents.schemas import Finding, Quote
from scholargraph.exports.citation import Styling, best_link, format_reference
from scholargraph.records import Passage, Work, passage_location
from scholargraph.report import Report
from scholargraph.wording import NO_PASSAGE


@dataclass(frozen=True)
class Evidence:
    """One passage behind a finding: the text before, in and after the quoted span (``quote``
    is empty when the whole passage is shown unmarked)."""

    number: int | None
    work: Work
    link: str | None
    before: str
    quote: str
    after: str
    location: str = ""
    """Where in the full text the passage lies ('Results > Efficacy, p. 6'); '' for an
    abstract."""


@dataclass(frozen=True)
class FindingGroup:
    title: str
    findings: list[Finding]
    unanswered: str = NO_PASSAGE
    """What the group says when it has no finding (:meth:`Report.unanswered_note`)."""


def safe_link(url: str | None) -> str | None:
    """The URL if a browser may follow it from the page (http or https), else None."""
    if url and urlsplit(url.strip()).scheme.lower() in {"http", "https"}:
        return url.strip()
    return None


def work_link(work: Work) -> str | None:
    """Where a reader checks the work: DOI, arXiv, PubMed or its own page."""
    return safe_link(best_link(work))


def _link_html(url: str) -> Markup:
    target = safe_link(url)
    if target is None:
        return escape(url)
    return Markup('<a href="{0}" rel="noopener noreferrer">{0}</a>').format(target)


HTML = Styling(
    text=escape,
    emphasis=lambda text: Markup("<em>{}</em>").format(text),
    link=_link_html,
    warning=lambda text: Markup('<strong class="warning">{}</strong>').format(text),
)


def reference_html(work: Work) -> Markup:
    """The APA-like reference of the exports, as HTML whose every piece was escaped."""
    return Markup(format_reference(work, HTML))


def finding_groups(report: Report) -> list[FindingGroup]:
    """Findings under their sub-question in the plan's order, the rest under 'Other findings';
    agreements, contradictions and limitations have their own sections."""
    findings = [finding for finding in report.findings if finding.kind == "finding"]
    groups = [FindingGroup(sub.text, [f for f in findings if f.sub_question_id == sub.id],
                           report.unanswered_note(sub)) for sub in report.sub_questions]
    known = {sub.id for sub in report.sub_questions}
    rest = [finding for finding in findings if finding.sub_question_id not in known]
    if rest:
        groups.append(FindingGroup("Other findings", rest))
    return groups


def findings_of_kind(report: Report, kind: str) -> list[Finding]:
    return [finding for finding in report.findings if finding.kind == kind]


def evidence(report: Report, finding: Finding) -> list[Evidence]:
    """The passages a finding cites, with the verbatim quotes marked where the system found
    them; a passage with no quote is shown whole."""
    passages = {passage.id: passage for passage in report.passages}
    numbers = report.reference_numbers()
    quoted = {quote.passage_id: quote for quote in finding.quotes}
    shown = []
    for passage_id in dict.fromkeys([*quoted, *finding.passage_ids]):
        passage = passages.get(passage_id)
        if passage is None:
            continue
        work = report.work(passage.work_id)
        before, quote, after = _split(passage, quoted.get(passage_id))
        shown.append(Evidence(numbers.get(work.id), work, work_link(work), before, quote, after,
                              passage_location(passage)))
    return shown


def _split(passage: Passage, quote: Quote | None) -> tuple[str, str, str]:
    """(before, quoted span, after) of the passage; the whole passage when there is no quote or
    its offsets do not match the passage's text."""
    text = passage.text
    if quote is not None and quote.text and text[quote.start:quote.end] == quote.text:
        return text[:quote.start], quote.text, text[quote.end:]
    return text, "", ""


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("scholargraph.webapp", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    )
    environment.globals.update(
        finding_groups=finding_groups, findings_of_kind=findings_of_kind, evidence=evidence,
        reference_html=reference_html,
    )
    return environment


TEMPLATES = _environment()


def page(template: str, **context: Any) -> str:
    """A template of ``scholargraph/webapp/templates`` rendered with every value escaped."""
    return TEMPLATES.get_template(template).render(**context)
