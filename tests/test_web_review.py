"""The web agent's modes through a whole review against the replay server: news for questions
about current events, labelled as news in review.json, review.md and every bibliography file, and a
review that completes, with a note, when a page needs a browser that is not there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scholargraph import review
from scholargraph.agents.intent import detect_intent
from scholargraph.testing import ReplayServer
from scholargraph.testing.services.ddg import SITES, Site, WebPagesService

NEWS_QUESTION = "What is the latest news on perovskite solar cell stability?"
NEWS_OUTLETS = {"Example Lab Notes", "Example Science Daily", "Example Energy Wire"}
MEDIUM_PATH = ("/homullus/fake-and-free-bypass-on-cookie-with-cloudflare-edge-cache-workers-for-"
               "wordpress-72c36d23c174")


@pytest.mark.parametrize(("question", "window", "wants_data"), [
    (NEWS_QUESTION, "month", True),  # stability: a material property, asked as values
    ("Breaking news today on measles outbreaks", "day", False),
    ("What happened this week in fusion energy research?", "week", False),
    ("perovskite solar cell efficiency since 2025", "year", False),
    ("perovskite solar cell efficiency since 2015", None, False),
    ("What is the band gap of TiO2?", None, True),
    ("Which datasets exist for sepsis prediction?", None, True),
    ("Give a table of measured values for graphene thermal conductivity", None, True),
    ("How does aspirin prevent colorectal cancer?", None, False),
    ("Machine learning on syndromic surveillance data for outbreak detection", None, False),
    ("What data exist on measles vaccine uptake in Europe?", None, True),
    ("Data on measles vaccine uptake in Europe", None, True),
])
def test_intent_reads_news_windows_and_requests_for_data(question: str, window: str | None,
                                                         wants_data: bool) -> None:
    intent = detect_intent(question, this_year=2026)
    assert (intent.news_window, intent.wants_data) == (window, wants_data)


@pytest.fixture(scope="module")
def news_review(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path, list]:
    """One review of a current question over the web source, shared by the checks below."""
    out = tmp_path_factory.mktemp("news-review")
    home = tmp_path_factory.mktemp("home")
    with ReplayServer.default() as server, server.environment(
            SCHOLARGRAPH_HOME=str(home), SCHOLARGRAPH_RATE_SCALE="1000"):
        report = review(NEWS_QUESTION, sources=["web"], out=out, max_iterations=1)
        requests = list(server.requests)
    return report, out, requests


@pytest.mark.slow
def test_news_results_are_searched_for_a_current_question(news_review) -> None:
    report, _, requests = news_review
    asked = [r for r in requests if r.service == "ddg" and r.path == "/news.js"]
    assert asked and {r.param("df") for r in asked} == {"m"}
    news = [paper for paper in report.papers if paper.kind == "news"]
    assert {paper.venue for paper in news} == NEWS_OUTLETS
    assert any("news results from the past month" in note for note in report.notes)


@pytest.mark.slow
def test_news_are_labelled_in_review_json_and_markdown(news_review) -> None:
    report, out, _ = news_review
    cited_news = [work for work in report.cited_works() if work.kind == "news"]
    assert cited_news, "the news excerpts answer the question and should be cited"

    papers = {paper["url"]: paper for paper in json.loads((out / "review.json").read_text())
              ["papers"]}
    for work in cited_news:
        saved = papers[work.url]
        assert saved["kind"] == "news" and saved["published"] == str(work.published)
    markdown = (out / "review.md").read_text()
    references = markdown.split("## References", 1)[1].split("\n## ", 1)[0]
    for work in cited_news:
        [line] = [line for line in references.splitlines() if work.venue in line]
        day = work.published
        assert f"({day.year}, {day.strftime('%B')} {day.day})" in line
        assert "\\[News\\]" in line  # shows as [News]


@pytest.mark.slow
def test_news_are_labelled_in_every_bibliography_file(news_review) -> None:
    report, out, _ = news_review
    cited_news = [work for work in report.cited_works() if work.kind == "news"]
    bibtex = (out / "references.bib").read_text()
    ris = (out / "references.ris").read_text()
    csl = json.loads((out / "references.csl.json").read_text())
    news_items = [item for item in csl if item["type"] == "article-newspaper"]

    assert bibtex.count("note = {News}") == len(cited_news)
    assert ris.count("TY  - NEWS") == len(cited_news)
    assert len(news_items) == len(cited_news)
    for work in cited_news:
        assert f"date = {{{work.published.isoformat()}}}" in bibtex
        assert f"DA  - {work.published.strftime('%Y/%m/%d/')}" in ris
    assert {item["container-title"] for item in news_items} <= NEWS_OUTLETS


@pytest.mark.slow
def test_a_review_completes_with_a_note_when_a_page_needs_a_missing_browser(
        tmp_path: Path) -> None:
    sites = {**SITES, "medium.com": Site(robots="medium.com.robots.txt", pages={
        MEDIUM_PATH: "script-shell.html", "/static/app.js": "script-shell.js",
        "/api/notes.json": "script-shell.json"})}
    with ReplayServer.default(extra=[WebPagesService(sites)]) as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000",
            SCHOLARGRAPH_CHROMIUM=str(tmp_path / "no-chromium-here")):
        report = review("How does bypass on cookie work in an edge cache?", sources=["web"],
                        out=tmp_path / "out", max_iterations=1)

    [note] = [note for note in report.notes if "built by JavaScript" in note]
    assert "no-chromium-here" in note and "apt-get install chromium" in note
    medium = next(paper for paper in report.papers if "medium.com" in (paper.url or ""))
    assert medium.full_text is None and medium.abstract  # the search snippet is kept
    assert "no-chromium-here" in (tmp_path / "out" / "review.md").read_text()
    assert report.sources_failed == []
