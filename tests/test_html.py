"""The self-contained HTML review, parsed back with lxml: citations that show their passage and
link to the work, contradictions side by side, nothing executable or external, text from papers
shown as written."""

from __future__ import annotations

import lxml.html
import pytest

from scholargraph.agents.schemas import Evaluation, Finding, Quote, SubQuestion
from scholargraph.exports import html
from scholargraph.records import Passage, SearchLogEntry, Work
from scholargraph.report import Reference, Report

HOSTILE = 'Aspirin <script>alert("x")</script> & <img src=x onerror=alert(1)> "trials"'


def hostile_report(**changes: object) -> Report:
    trial = Work(title="A trial of aspirin", authors=["Smith, Ann"], year=2020, venue="BMJ",
                 doi="10.1136/bmj.1", pmid="123", abstract="a")
    cohort = Work(title="A cohort", authors=["Lee, Bo"], year=2015, arxiv_id="1501.00001",
                  kind="preprint", venue="arXiv", abstract="b")
    page = Work(title="A page", url="javascript:alert(1)", kind="web", venue="evil.example")
    texts = {trial.id: "Aspirin reduced stroke risk by 20% in adults. " + HOSTILE,
             cohort.id: "Aspirin had no effect on stroke risk in adults.",
             page.id: "A page about aspirin."}
    passages = [Passage(id=f"{w.id}#abstract:0-{len(t)}", work_id=w.id, text=t, start=0,
                        end=len(t)) for w, t in ((trial, texts[trial.id]),
                                                 (cohort, texts[cohort.id]),
                                                 (page, texts[page.id]))]
    p1, p2, p3 = passages

    def quote(passage: Passage, text: str) -> Quote:
        start = passage.text.index(text)
        return Quote(passage_id=passage.id, start=start, end=start + len(text), text=text)

    q1 = quote(p1, "Aspirin reduced stroke risk by 20% in adults.")
    q2 = quote(p2, p2.text)
    report = Report(
        question=f"Does aspirin work? {HOSTILE}",
        sub_questions=[SubQuestion(id="q1", text="Does aspirin reduce stroke?",
                                   answer_shape="trials")],
        summary=HOSTILE,
        papers=[trial, cohort, page],
        findings=[
            Finding(text=q1.text, passage_ids=[p1.id], sub_question_id="q1", quotes=[q1],
                    citations=[1]),
            Finding(text=HOSTILE, passage_ids=[p3.id], sub_question_id="q1", citations=[3]),
            Finding(text="Sources disagree on stroke, risk: one reports a decrease, the other "
                         "no effect.", passage_ids=[p1.id, p2.id], sub_question_id="q1",
                    kind="contradiction", quotes=[q1, q2], citations=[1, 2]),
        ],
        references=[Reference(number=1, work_id=trial.id, passage_ids=[p1.id]),
                    Reference(number=2, work_id=cohort.id, passage_ids=[p2.id]),
                    Reference(number=3, work_id=page.id, passage_ids=[p3.id])],
        passages=passages,
        prisma={"identified": {"pubmed": 2, "arxiv": 2}, "duplicates_removed": 1,
                "screened": 3, "excluded": 0, "included": 3},
        search_log=[SearchLogEntry(source="pubmed", query=f"aspirin[tiab] {HOSTILE}",
                                   n_results=2)],
        evaluation=Evaluation(overall=0.5, reason=HOSTILE),
        notes=[HOSTILE],
    )
    return report.model_copy(update=changes)


@pytest.fixture
def page() -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(html.render(hostile_report()))


def test_nothing_from_papers_becomes_markup(page):
    assert page.xpath("//script") == [] and page.xpath("//img") == []
    assert not [a for e in page.iter() if isinstance(e.tag, str) for a in e.attrib
                if a.startswith("on")]
    assert HOSTILE in page.xpath("string(//h1)")
    assert HOSTILE in page.xpath("string(//li[a[@class='cite' and text()='3']])")


def test_the_page_is_self_contained(page):
    assert page.xpath("//link") == [] and page.xpath("//*[@src]") == []
    (policy,) = page.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")
    assert "default-src 'none'" in policy and "script-src" not in policy
    for href in page.xpath("//a/@href"):
        assert href.startswith(("#ref-", "https://")), href
    assert "url(" not in page.xpath("string(//style)")


def test_citations_show_their_passage_and_link_to_the_work(page):
    first = page.xpath("//h3[text()='Does aspirin reduce stroke?']/following-sibling::ul[1]/li")[0]
    (cite,) = first.xpath("a[@class='cite']")
    assert cite.get("href") == "#ref-1"
    assert "Aspirin reduced stroke risk by 20% in adults." in cite.get("title")
    (reference,) = page.xpath("//li[@id='ref-1']")
    links = reference.xpath("a/@href")
    assert "https://doi.org/10.1136/bmj.1" in links
    assert "https://pubmed.ncbi.nlm.nih.gov/123/" in links
    evidence = first.xpath("details/blockquote")[0]
    assert "Aspirin reduced stroke risk by 20% in adults." in evidence.text_content()
    assert "https://doi.org/10.1136/bmj.1" in evidence.xpath(".//a/@href")
    (arxiv,) = page.xpath("//li[@id='ref-2']")
    assert "https://arxiv.org/abs/1501.00001" in arxiv.xpath("a/@href")


def test_a_javascript_url_is_never_a_link(page):
    (reference,) = page.xpath("//li[@id='ref-3']")
    assert reference.xpath(".//a") == []
    assert "javascript:" not in " ".join(page.xpath("//a/@href"))


def test_contradictions_are_side_by_side(page):
    (pair,) = page.xpath("//div[@class='pair']")
    sides = pair.xpath("div/blockquote")
    assert len(sides) == 2
    assert "reduced stroke risk" in sides[0].text_content()
    assert "no effect on stroke risk" in sides[1].text_content()
    heading = pair.getprevious()
    assert [a.text for a in heading.xpath("a[@class='cite']")] == ["1", "2"]


def test_figures_are_inline_svg(page):
    svgs = [e for e in page.iter() if isinstance(e.tag, str) and e.tag.endswith("svg")]
    assert len(svgs) == 2
    text = page.xpath("string(//body)")
    assert "Records screened (n = 3)" in text and f"aspirin[tiab] {HOSTILE}" in text


def test_another_citation_style_formats_the_references():
    page = lxml.html.document_fromstring(html.render(hostile_report(citation_style="ieee")))
    (reference,) = page.xpath("//li[@id='ref-1']")
    assert reference.text_content().startswith("A. Smith, “A trial of aspirin”")
