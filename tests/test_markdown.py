"""The Markdown review, read back with markdown-it-py (CommonMark with GitHub tables), so the checks
are about what a reader sees, not about the raw text."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from scholargraph.agents.schemas import Evaluation, Finding, SubQuestion
from scholargraph.exports import markdown
from scholargraph.records import Material, SearchLogEntry, Work
from scholargraph.report import Reference, Report, SourceFailure
from scholargraph.sources.arxiv import ArxivAgent
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.pubmed import PubMedAgent
from scholargraph.testing import ReplayServer

TRICKY_TITLE = "CRISPR *screens* of [DNA](http://evil.example) repair & <b>50%</b> | _x_ `y` #1"
# Records strip markup from titles when they are made, so this is the title the report holds.
STORED_TITLE = "CRISPR *screens* of [DNA](http://evil.example) repair & 50% | _x_ `y` #1"


def sample_report(**changes: object) -> Report:
    works = [
        Work(title=TRICKY_TITLE, authors=["Müller, Jürgen", "Smith JA"], year=2021,
             venue="Nature", doi="10.1038/xyz", pmid="123", is_retracted=True),
        Work(title="Attention is all you need", authors=["Ashish Vaswani", "Noam Shazeer"],
             year=2017, venue="arXiv", arxiv_id="1706.03762", kind="preprint"),
        Work(title="1986. A web page without authors or year", url="https://example.org/a",
             venue="example.org", kind="web"),
        Work(title="Silicon band gaps", authors=[f"Author{i}, A." for i in range(25)],
             year=2019, venue="Phys. Rev. B", doi="10.1103/abc"),
    ]
    material = Material(material_id="mp-149", formula="Si", band_gap_ev=0.61, is_stable=True)
    works.append(material.as_work())
    fields: dict[str, object] = dict(
        question="Does CRISPR_x *work*?",
        engine="deterministic",
        sources_searched=["pubmed", "arxiv", "web", "materials"],
        sub_questions=[SubQuestion(id="q1", text="What is known?", answer_shape="facts"),
                       SubQuestion(id="q2", text="What is missing?", answer_shape="gaps")],
        summary="- Not a list item. 2021. Not one either.",
        papers=works,
        materials=[material],
        findings=[
            Finding(text="Screens found [many] genes.", passage_ids=["p1"],
                    sub_question_id="q1", citations=[1, 4]),
            Finding(text="Models use attention.", passage_ids=["p2"], sub_question_id="q1",
                    citations=[2]),
            Finding(text="Silicon has a gap of 0.61 eV.", passage_ids=["p5"],
                    citations=[5, 4]),
            Finding(text="Effect increases repair.", passage_ids=["p1"], sub_question_id="q1",
                    kind="contradiction", citations=[1, 3]),
            Finding(text="Both report gaps near 1 eV.", passage_ids=["p4"],
                    sub_question_id="q1", kind="agreement", citations=[4, 5]),
        ],
        gaps=["No randomised trials."],
        references=[Reference(number=n, work_id=w.id) for n, w in enumerate(works, start=1)],
        prisma={"identified": {"pubmed": 7, "arxiv": 3}, "duplicates_removed": 2,
                "screened": 8, "excluded": 3, "included": 5},
        search_log=[
            SearchLogEntry(source="pubmed", query="crispr[tiab] | repair", n_results=7),
            SearchLogEntry(source="web", query="silicon", status="error", n_results=0,
                           error="HTTP 503 <html>", round=2),
        ],
        sources_failed=[SourceFailure(source="web", error="HTTP 503 after 3 retries")],
        evaluation=Evaluation(overall=0.71, citation_support=0.9, verdict="accept",
                              reason="coverage good"),
        iterations=2,
        stop_reason="the evaluator accepted the draft",
        notes=["web search fell back to the HTML backend"],
    )
    fields.update(changes)
    return Report.model_validate(fields)


def parse(text: str) -> list[Token]:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(text)


def section(tokens: list[Token], title: str) -> list[Token]:
    """The tokens between the level-2 heading ``title`` and the next level-2 heading."""
    start = None
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2":
            if start is not None:
                return tokens[start:index]
            if tokens[index + 1].content == title:
                start = index + 3
    assert start is not None, f"no section {title!r}"
    return tokens[start:]


def h2_titles(tokens: list[Token]) -> list[str]:
    return [tokens[i + 1].content for i, token in enumerate(tokens)
            if token.type == "heading_open" and token.tag == "h2"]


def inline_text(token: Token) -> str:
    """The text a reader sees in an inline token (escapes resolved, markup dropped)."""
    return "".join(child.content for child in token.children or []
                   if child.type in ("text", "code_inline"))


def list_items(tokens: list[Token]) -> list[Token]:
    """The inline token of each top-level item of the first list in ``tokens``."""
    items, depth = [], 0
    for index, token in enumerate(tokens):
        if token.type == "list_item_open":
            depth += 1
            if depth == 1:
                items.append(tokens[index + 2])
        elif token.type == "list_item_close":
            depth -= 1
    return items


@pytest.fixture
def tokens() -> list[Token]:
    return parse(markdown.render(sample_report()))


def test_sections_in_reading_order(tokens: list[Token]) -> None:
    assert h2_titles(tokens) == [
        "Summary", "Findings", "Agreement and contradictions", "Gaps and limitations",
        "Materials", "References", "Included works", "PRISMA flow", "Search log", "Notes",
        "Failed sources"]
    title = tokens[1]
    assert tokens[0].tag == "h1" and inline_text(title) == "Does CRISPR_x *work*?"


def test_every_included_work_is_listed_cited_or_not() -> None:
    report = sample_report()
    cited = report.references[:2]
    tokens = parse(markdown.render(report.model_copy(update={"references": cited})))
    cells = [inline_text(token) for token in section(tokens, "Included works")
             if token.type == "inline"]
    rows = [cells[i:i + 3] for i in range(4, len(cells), 3)]  # after the intro and the header
    assert cells[1:4] == ["Work", "Year", "Cited"]
    assert len(rows) == len(report.papers)
    assert [row[2] for row in rows] == ["[1]", "[2]", "no", "no", "no"]
    assert rows[0][0] == f"Müller & Smith: {STORED_TITLE} (RETRACTED)" and rows[0][1] == "2021"
    assert rows[3][0].startswith("Author0 et al.: Silicon band gaps")
    inline = [child for token in section(tokens, "Included works") for child in
              token.children or []]
    assert inline and not any(child.type == "link_open" for child in inline)  # titles are text


def test_method_line_says_how_the_review_was_made(tokens: list[Token]) -> None:
    method = inline_text(tokens[4])
    for fact in ("deterministic engine", "pubmed, arxiv, web, materials", "2 search rounds",
                 "the evaluator accepted the draft", sample_report().generated_at[:10]):
        assert fact in method


def test_one_reference_per_report_reference_in_number_order(tokens: list[Token]) -> None:
    report = sample_report()
    references = section(tokens, "References")
    assert references[0].type == "ordered_list_open"
    assert int(references[0].attrs.get("start", 1)) == 1
    items = list_items(references)
    assert len(items) == len(report.references)
    for item, work in zip(items, report.cited_works()):
        assert work.title.removesuffix(".") in inline_text(item)


def test_every_citation_in_findings_resolves(tokens: list[Token]) -> None:
    numbers = {ref.number for ref in sample_report().references}
    cited: list[int] = []
    for title in ("Findings", "Agreement and contradictions"):
        for item in list_items(section(tokens, title)) + _nested_items(section(tokens, title)):
            for group in re.findall(r"\[(\d+(?:, \d+)*)\]$", inline_text(item)):
                cited += [int(number) for number in group.split(", ")]
    assert cited and set(cited) <= numbers
    assert set(cited) == {n for f in sample_report().findings for n in f.citations}


def _nested_items(tokens: list[Token]) -> list[Token]:
    return [tokens[i + 2] for i, token in enumerate(tokens) if token.type == "list_item_open"]


def test_findings_are_grouped_by_sub_question(tokens: list[Token]) -> None:
    findings = section(tokens, "Findings")
    headings = [findings[i + 1].content for i, token in enumerate(findings)
                if token.type == "heading_open" and token.tag == "h3"]
    assert headings == ["What is known?", "What is missing?", "Other findings"]
    texts = [inline_text(item) for item in _nested_items(findings)]
    assert texts == ["Screens found [many] genes. [1, 4]", "Models use attention. [2]",
                     "No passage answered this sub-question.",
                     "Silicon has a gap of 0.61 eV. [4, 5]"]


def test_contradictions_and_agreement_are_shown_with_both_citations(
        tokens: list[Token]) -> None:
    items = [inline_text(item)
             for item in _nested_items(section(tokens, "Agreement and contradictions"))]
    assert items == ["Effect increases repair. [1, 3]", "Both report gaps near 1 eV. [4, 5]"]


def test_retracted_works_are_flagged(tokens: list[Token]) -> None:
    items = list_items(section(tokens, "References"))
    flagged = [i for i, item in enumerate(items, start=1)
               if any(child.type == "strong_open" for child in item.children or [])
               and "RETRACTED" in inline_text(item)]
    assert flagged == [1]
    gaps = " ".join(inline_text(item)
                    for item in list_items(section(tokens, "Gaps and limitations")))
    assert "Cited work [1] has been retracted" in gaps


def test_text_from_papers_renders_as_written(tokens: list[Token]) -> None:
    first = list_items(section(tokens, "References"))[0]
    children = first.children or []
    assert "html_inline" not in {child.type for child in children}
    emphasised = [children[i + 1].content for i, child in enumerate(children)
                  if child.type == "em_open"]
    assert emphasised == ["Nature"]
    links = [child.attrs["href"] for child in first.children or [] if child.type == "link_open"]
    assert links == ["https://doi.org/10.1038/xyz"]
    assert STORED_TITLE in inline_text(first)
    summary = section(tokens, "Summary")
    assert summary[0].type == "paragraph_open"
    assert inline_text(summary[1]) == "- Not a list item. 2021. Not one either."


def test_reference_format_is_apa_like(tokens: list[Token]) -> None:
    items = [inline_text(item) for item in list_items(section(tokens, "References"))]
    assert items[0].startswith("Müller, J., & Smith, J. A. (2021). CRISPR")
    assert "Nature. https://doi.org/10.1038/xyz" in items[0]
    assert items[1] == ("Vaswani, A., & Shazeer, N. (2017). Attention is all you need. "
                        "arXiv preprint arXiv:1706.03762. https://arxiv.org/abs/1706.03762")
    assert items[2].startswith("1986. A web page without authors or year. (n.d.). example.org.")
    assert "Author18, A., ... Author24, A. (2019)" in items[3]
    assert items[4].startswith("Materials Project. (n.d.). Materials Project entry mp-149: Si.")


def test_tables_keep_their_columns(tokens: list[Token]) -> None:
    log = section(tokens, "Search log")
    rows = _table_rows(log)
    assert rows[0] == ["Round", "Source", "Query", "Results", "Status", "Error or note"]
    assert rows[1] == ["1", "pubmed", "crispr[tiab] | repair", "7", "ok", ""]
    assert rows[2] == ["2", "web", "silicon", "0", "error", "HTTP 503 <html>"]
    prisma = _table_rows(section(tokens, "PRISMA flow"))
    assert prisma[1:] == [["Records identified: pubmed", "7"], ["Records identified: arxiv", "3"],
                          ["Duplicates removed", "2"], ["Records screened", "8"],
                          ["Records excluded", "3"], ["Works included", "5"]]
    materials = _table_rows(section(tokens, "Materials"))
    assert materials[1][:2] == ["mp-149", "Si"] and materials[1][4] == "0.61"


def _table_rows(tokens: list[Token]) -> list[list[str]]:
    rows: list[list[str]] = []
    for token in tokens:
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and rows:
            rows[-1].append(inline_text(token))
    return rows


def test_a_report_without_materials_or_failures_leaves_those_sections_out() -> None:
    tokens = parse(markdown.render(sample_report(materials=[], sources_failed=[], notes=[])))
    titles = h2_titles(tokens)
    assert "Materials" not in titles and "Failed sources" not in titles
    assert "Notes" not in titles


def test_an_empty_report_still_renders() -> None:
    text = markdown.render(Report(question="Anything?"))
    tokens = parse(text)
    assert inline_text(tokens[1]) == "Anything?"
    assert "0 search rounds" in text


def test_recorded_records_render_as_written(replay: ReplayServer) -> None:
    """Real titles from the PubMed and arXiv recordings, fetched by the real clients, each show
    in the reference list exactly as the source gave them, with a working link."""
    works = PubMedAgent().search(SearchRequest(query="the", limit=20)).works
    works += ArxivAgent().search(SearchRequest(query="testing", limit=100)).works
    report = Report(question="What is known about testing?", papers=works,
                    references=[Reference(number=n, work_id=w.id)
                                for n, w in enumerate(works, start=1)])
    items = list_items(section(parse(markdown.render(report)), "References"))
    assert len(items) == len(works)
    for item, work in zip(items, works):
        assert work.title.rstrip(".") in inline_text(item)
        hrefs = [child.attrs["href"] for child in item.children or []
                 if child.type == "link_open"]
        assert len(hrefs) == 1 and hrefs[0].startswith("https://")


def test_a_claims_other_sub_question_says_its_studies_are_quoted_for_their_results() -> None:
    """A claim's review quotes each study under the claim for its result; its methods
    sub-question, left without findings for that reason, says so in the markdown, the HTML
    and the live page, not that no passage answered it."""
    from scholargraph.deterministic.extractive import QUOTED_FOR_RESULTS
    from scholargraph.exports import html
    from scholargraph.webapp.render import finding_groups

    methods = SubQuestion(id="q2", text="What methods were used?", answer_shape="methods")
    report = sample_report().model_copy(update={
        "sub_questions": [*sample_report().sub_questions[:1], methods],
        "gaps": [f"{QUOTED_FOR_RESULTS}: {methods.text}"]})
    quoted = "Each included study is quoted for its result on the claim, not again here."
    assert report.unanswered_note(methods) == quoted
    assert f"- {quoted}" in markdown.render(report)
    assert quoted in html.render(report)
    assert [group.unanswered for group in finding_groups(report)][1] == quoted
    plain = sample_report()
    assert plain.unanswered_note(plain.sub_questions[1]) == "No passage answered this sub-question."
