"""The review as one self-contained HTML page (``review.html``): no script, no external asset.

Each numbered citation carries, as its tooltip, the passage it rests on, and each finding has an
"evidence" disclosure (``<details>``) with the quoted sentences and a link to the work (DOI, PubMed,
arXiv). Contradictions and agreement are set side by side. The PRISMA flow diagram and the chart
of included works by year are inline SVG.

Everything that comes from papers or sources (titles, names, quotes, queries, URLs) is untrusted:
text is HTML-escaped, only ``http``/``https`` URLs become links, and a Content-Security-Policy
forbids scripts and any external load, so a hostile abstract cannot run or fetch anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from scholargraph.agents.schemas import EvidenceRow, Finding, Quote
from scholargraph.deterministic.evidence_table import caveat_lines
from scholargraph.exports import prisma, screening, styles, updates
from scholargraph.exports.citation import (
    KEYS_LINE,
    Styling,
    arxiv_url,
    doi_url,
    landing_url,
    pubmed_url,
)
from scholargraph.exports.markdown import RERUN_INTRO, made_by
from scholargraph.records import Work, full_text_note
from scholargraph.wording import counted

if TYPE_CHECKING:
    from scholargraph.report import Report

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
CSS = """
body{font:16px/1.5 Georgia,serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1,h2,h3{font-family:Helvetica,Arial,sans-serif;line-height:1.25}
h2{border-bottom:1px solid #ccc;padding-bottom:.2rem;margin-top:2.2rem}
.method,.evaluation{color:#555;font-size:.9rem}
a.cite{text-decoration:none;font-family:Helvetica,Arial,sans-serif;font-size:.85rem}
details{margin:.2rem 0 .8rem;font-size:.9rem}summary{cursor:pointer;color:#2a5d8f}
blockquote{margin:.4rem 0 .4rem 1rem;padding-left:.8rem;border-left:3px solid #9cc3e6}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1rem;margin:.4rem 0 1.2rem}
.pair>div{border:1px solid #ddd;border-radius:4px;padding:.6rem;background:#fafafa}
.retracted{color:#b00020;font-weight:bold}
.flags{border:2px solid #b00020;border-radius:4px;padding:.6rem 1rem;margin:1rem 0}
table{border-collapse:collapse;font-size:.85rem;width:100%}
td,th{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}
figure{margin:1rem 0;overflow-x:auto}figcaption{font-size:.85rem;color:#555}
"""


def safe_url(url: str | None) -> str | None:
    """The URL if it is an absolute http(s) link, else None (no ``javascript:``, no relative)."""
    if not url:
        return None
    parts = urlsplit(url.strip())
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else None


def _link(url: str | None, label: str) -> str:
    href = safe_url(url)
    if href is None:
        return escape(label)
    return f'<a href="{escape(href)}" rel="noopener noreferrer">{escape(label)}</a>'


HTML_STYLING = Styling(
    text=escape,
    emphasis=lambda text: f"<i>{text}</i>",
    link=lambda url: _link(url, url),
    warning=lambda text: f'<span class="retracted">{text}</span>',
)


def work_links(work: Work, shown: str = "") -> str:
    """Links to the work: DOI, PubMed, arXiv, and its own page when it has none of these;
    a DOI link already in ``shown`` (a reference its style ends with the DOI) is not repeated."""
    doi = doi_url(work)
    links = [_link(url, label) for url, label in (
        (doi if doi and escape(doi) not in shown else None, f"doi:{work.doi}"),
        (pubmed_url(work), f"PubMed {work.pmid}"),
        (arxiv_url(work), f"arXiv:{work.arxiv_id}")) if url]
    if not links and not doi and safe_url(landing_url(work)):
        links.append(_link(landing_url(work), "link"))
    return " · ".join(links)


class _Citer:
    """Reference numbers and quoted evidence of a report, for citations with tooltips."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.number_of = {pid: ref.number for ref in report.references
                          for pid in ref.passage_ids}
        self.work_of = {ref.number: report.work(ref.work_id) for ref in report.references}

    def cite(self, numbers: Iterable[int], tooltips: dict[int, str] | None = None,
             passage_ids: Iterable[str] = ()) -> str:
        """'[1, 2]', or one bracket per work with its full-text location ('[2, Results,
        p. 6]') when any cited passage comes from a full text."""
        tooltips = tooltips or {}
        locations = self.report.locations(passage_ids)
        links = [f'<a class="cite" href="#ref-{n}" title="{escape(tooltips.get(n, ""))}">{n}</a>'
                 for n in sorted(set(numbers))]
        if any(n in locations for n in numbers):
            return " ".join(f"[{link}, {escape(locations[n])}]" if n in locations else f"[{link}]"
                            for n, link in zip(sorted(set(numbers)), links, strict=True))
        return f"[{', '.join(links)}]" if links else ""

    def finding_cite(self, finding: Finding) -> str:
        return self.cite(finding.citations, self.tooltips(finding), finding.passage_ids)

    def tooltips(self, finding: Finding) -> dict[int, str]:
        """Per reference number, the quoted sentences (else the passage) the finding rests on."""
        texts: dict[int, list[str]] = {}
        for quote in finding.quotes:
            if quote.passage_id in self.number_of:
                texts.setdefault(self.number_of[quote.passage_id], []).append(f"“{quote.text}”")
        for passage_id in finding.passage_ids:
            number = self.number_of.get(passage_id)
            if number is not None and number not in texts:
                texts[number] = [self.report.passage(passage_id).text]
        return {number: " … ".join(parts) for number, parts in texts.items()}

    def quote_block(self, quote: Quote) -> str:
        number = self.number_of.get(quote.passage_id)
        if number is None:
            return f"<blockquote>{escape(quote.text)}</blockquote>"
        work = self.work_of[number]
        source = f" — [{number}] {escape(work.title)} {work_links(work)}"
        return f"<blockquote>{escape(quote.text)}<br><small>{source}</small></blockquote>"

    def finding_item(self, finding: Finding) -> str:
        text = f"{escape(finding.text)} {self.finding_cite(finding)}"
        if note := self.report.weakness_note(finding):
            text += f" <em>({note})</em>"
        if finding.bearing == "opposes":
            text += " <em>(evidence against the question as stated)</em>"
        quotes = "".join(self.quote_block(q) for q in finding.quotes)
        evidence = f"<details><summary>evidence</summary>{quotes}</details>" if quotes else ""
        return f"<li>{text}{evidence}</li>"

    def side_by_side(self, finding: Finding) -> str:
        sides = "".join(f"<div>{self.quote_block(q)}</div>" for q in finding.quotes[:2])
        head = f"{escape(finding.text)} {self.finding_cite(finding)}"
        return f'<p>{head}</p><div class="pair">{sides}</div>'


def _row_cite(citer: _Citer, row: EvidenceRow) -> str:
    return citer.cite([row.citation] if row.citation else [], None, [row.passage_id])


def _section(title: str, body: str) -> str:
    return f"<h2>{escape(title)}</h2>\n{body}\n" if body else ""


def _list(items: list[str]) -> str:
    return f"<ul>{''.join(items)}</ul>" if items else ""


def _findings(report: Report, citer: _Citer) -> str:
    parts = []
    for sub in report.sub_questions:
        own = [f for f in report.findings if f.kind == "finding" and f.sub_question_id == sub.id]
        items = [citer.finding_item(f) for f in own] or [
            f"<li>{escape(report.unanswered_note(sub))}</li>"]
        parts.append(f"<h3>{escape(sub.text)}</h3>{_list(items)}")
    known = {sub.id for sub in report.sub_questions}
    rest = [f for f in report.findings if f.kind == "finding" and f.sub_question_id not in known]
    if rest:
        parts.append(f"<h3>Other findings</h3>{_list([citer.finding_item(f) for f in rest])}")
    return "".join(parts)


def _compared(report: Report, citer: _Citer) -> str:
    parts = []
    for kind, heading in (("contradiction", "Contradictions"), ("agreement", "Agreement")):
        chosen = [f for f in report.findings if f.kind == kind]
        if chosen:
            parts.append(f"<h3>{heading}</h3>" + "".join(
                citer.side_by_side(f) if len(f.quotes) >= 2 else _list([citer.finding_item(f)])
                for f in chosen))
    return "".join(parts) or "<p>No contradictions or agreement between sources were found.</p>"


def _gaps(report: Report, citer: _Citer) -> str:
    items = [f"<li>{escape(gap)}</li>" for gap in report.listed_gaps()]
    items += [citer.finding_item(f) for f in report.findings if f.kind == "limitation"]
    items += [f"<li>{escape(limitation)}</li>" for limitation in report.limitations]
    return _list(items)


def _references(report: Report) -> str:
    works = report.cited_works()
    formatted = styles.format_references(works, report.citation_style, "html", HTML_STYLING)
    items = [f'<li id="ref-{ref.number}">{text} {work_links(work, text)}{_notices(work)}'
             f'{_credibility(work)}{_full_text(work)}'
             + (f' <code class="key">{escape(ref.key)}</code>' if ref.key else "") + '</li>'
             for ref, work, text in zip(report.references, works, formatted)]
    intro = (f"<p class=\"method\">{escape(KEYS_LINE)}</p>"
             if any(ref.key for ref in report.references) else "")
    return f"{intro}<ol>{''.join(items)}</ol>" if items else ""


def _included(report: Report) -> str:
    """Every included work, cited or not, linked to its record, with its reference number;
    every decision, exclusions with their reasons, is in ``screening.csv``."""
    works = screening.included_works(report)
    if not works:
        return ""
    rows = "".join(
        f"<tr><td>{escape(item.label)} {work_links(work)}"
        f"{HTML_STYLING.warning(' RETRACTED') if item.retracted else ''}</td>"
        f"<td>{item.year or ''}</td>"
        f"<td>{_reference_link(item.reference)}</td></tr>"
        for item, work in zip(works, report.papers, strict=True))
    intro = screening.included_intro(len(works))
    return (f"<p>{escape(intro)}</p><table><tr><th>Work</th><th>Year</th><th>Cited</th></tr>"
            f"{rows}</table>")


def _reference_link(number: int | None) -> str:
    return f'<a class="cite" href="#ref-{number}">[{number}]</a>' if number else "no"


def _notices(work: Work) -> str:
    """The erratum, reply or meeting abstract deduplication attached to the work, if any."""
    if not work.notices:
        return ""
    return f' <small class="notices">[{escape("; ".join(work.notices))}]</small>'


def _full_text(work: Work) -> str:
    note = full_text_note(work)
    return f' <small class="full-text">[{escape(note)}]</small>' if note else ""


def _credibility(work: Work) -> str:
    if work.credibility is None:
        return ""
    return f' <small class="credibility">[{escape(work.credibility.describe())}]</small>'


def _evidence(report: Report, citer: _Citer) -> str:
    """The evidence table: one row per source, each value cited, its sentence quoted."""
    if not report.evidence_table:
        return ""
    head = "".join(f"<th>{name}</th>" for name in (
        "Measure", "Value", "Unit", "Method", "Population or material", "Source", "Passage"))
    rows = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in (
            row.measure, row.value, row.unit, row.method, row.subject))
        + f"<td>{_row_cite(citer, row)}</td>"
        + f"<td>“{escape(row.quote)}”</td></tr>" for row in report.evidence_table)
    caveats = "".join(f"<li>{escape(line)}</li>" for line in caveat_lines(report.evidence_table))
    return f"<table><tr>{head}</tr>{rows}</table>" + (f"<ul>{caveats}</ul>" if caveats else "")


def _prisma(report: Report) -> str:
    if not report.prisma:
        return ""
    record = prisma.prisma_record(report.prisma, report.search_log)
    rows = "".join(
        f"<tr><td>{escape(s.source)}</td><td>{escape(s.query)}</td><td>{escape(s.date)}</td>"
        f"<td>{s.identified}</td><td>{escape(s.status)}</td></tr>" for s in record.searches)
    table = ("<table><tr><th>Source</th><th>Query as sent</th><th>Date</th><th>Records</th>"
             f"<th>Status</th></tr>{rows}</table>")
    return (f"<figure>{prisma.flow_svg(record)}<figcaption>PRISMA 2020 flow diagram"
            f"</figcaption></figure><figure>{prisma.years_svg(report.papers)}<figcaption>"
            f"Included works by year</figcaption></figure>{table}")


def _rerun(report: Report) -> str:
    """The command that runs the review again, after the searches; nothing without a record."""
    if report.run is None or not report.run.command:
        return ""
    return (f'<p class="method">{escape(RERUN_INTRO)}</p>'
            f"<pre><code>{escape(report.run.command)}</code></pre>")


def render(report: Report) -> str:
    """The whole review as one HTML document."""
    citer = _Citer(report)
    evaluation = report.evaluation
    method = (f"Generated by {made_by(report)} on {report.generated_at[:10]} with the "
              f"{report.engine.model} engine; "
              f"sources: {', '.join(report.sources_searched) or 'none'};"
              f" {counted(report.iterations, 'search round')}"
              + (f"; stopped because: {report.stop_reason}" if report.stop_reason else "") + ".")
    scores = (f"Evaluation: overall {evaluation.overall:.2f}, citation support "
              f"{evaluation.citation_support:.2f}, source diversity "
              f"{evaluation.source_diversity:.2f}, recency {evaluation.recency:.2f}, "
              f"credibility {evaluation.credibility:.2f}; verdict: "
              f"{evaluation.verdict}" + (f" ({evaluation.reason})" if evaluation.reason else ""))
    body = [
        f"<h1>{escape(report.question)}</h1>",
        updates.html_flags(report),
        f'<p class="method">{escape(method)}</p><p class="evaluation">{escape(scores)}</p>',
        _section("Summary", f"<p>{escape(report.summary)}</p>" if report.summary else ""),
        updates.html_section(report, citer.finding_item),
        _section("Findings", _findings(report, citer)),
        _section("Evidence table", _evidence(report, citer)),
        _section("Agreement and contradictions", _compared(report, citer)),
        _section("Gaps and limitations", _gaps(report, citer)),
        _section("References", _references(report)),
        _section("Included works", _included(report)),
        _section("PRISMA flow", _prisma(report)),
        _rerun(report),
        _section("Notes", _list([f"<li>{escape(note)}</li>" for note in report.notes])),
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(report.question)}</title><style>{CSS}</style></head>\n<body>\n"
            + "\n".join(part for part in body if part) + "\n</body></html>\n")
