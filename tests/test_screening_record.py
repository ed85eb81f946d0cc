"""Every exclusion keeps a reason a person can check: ``screening.csv`` names each work screened,
in every round and by every path (a search, a library, snowballing), with its decision and
reason, and its rows add up to PRISMA's counts; ``review.md`` and ``review.html`` list every
included work, cited or not. Reviews run against the recorded corpus through the replay server.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scholargraph import review
from scholargraph.exports.screening import COLUMNS, label
from scholargraph.ledger import ScreenedWork
from scholargraph.report import REVIEW_FILES, Report
from scholargraph.sources.arxiv import ArxivAgent
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.testing import ReplayServer, fixture_bytes, fixture_path
from scholargraph.testing.services.openalex import OpenAlexService
from scholargraph.testing.services.repeated import repeated_server

QUESTION = "machine learning for public health surveillance"
Check = Callable[[str, dict[str, Any]], None]


def read_rows(folder: Path) -> tuple[str, list[dict[str, str]]]:
    text = (folder / "screening.csv").read_text(encoding="utf-8")
    return text, list(csv.DictReader(io.StringIO(text)))


def check_rows_name_the_review(rows: list[dict[str, str]], report: Report) -> None:
    """The included rows are the review's papers, the cited ones its references, and every
    exclusion has a reason."""
    included = [row for row in rows if row["decision"] == "included"]
    assert sorted(row["work_id"] for row in included) == sorted(p.id for p in report.papers)
    numbers = {ref.work_id: str(ref.number) for ref in report.references}
    for row in included:
        assert row["reference"] == numbers.get(row["work_id"], "")
        assert row["cited"] == ("yes" if row["work_id"] in numbers else "no")
    excluded = [row for row in rows if row["decision"] == "excluded"]
    assert all(row["reason"].strip() and row["cited"] == "no" for row in excluded)
    # an inclusion keeps its reason too: what screening read in the work
    assert all(row["reason"].startswith("kept: ") for row in included)


@pytest.fixture(scope="module")
def readme_review(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path]:
    """The README's review, written to a folder."""
    folder = tmp_path_factory.mktemp("review")
    with ReplayServer.default() as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path_factory.mktemp("home")),
            SCHOLARGRAPH_RATE_SCALE="1000"):
        report = review(QUESTION, out=folder / "out")
    return report, folder / "out"


def test_the_screening_record_names_every_work_and_adds_up_to_prisma(
        readme_review: tuple[Report, Path], screening_check: Check) -> None:
    report, folder = readme_review
    text, rows = read_rows(folder)
    assert tuple(rows[0]) == COLUMNS
    screening_check(text, report.prisma)
    kept = [row["reason"] for row in rows if row["decision"] == "included"]
    assert kept and all(reason.startswith("kept: addresses: machine learning (")
                        and "; public health surveillance (" in reason for reason in kept)
    assert [row.reason for row in report.screening if row.decision == "included"] == kept
    check_rows_name_the_review(rows, report)
    assert report.prisma["excluded"] > 0 and report.references  # both kinds of row were checked
    # the same record is in review.json, for programs
    data = json.loads((folder / "review.json").read_text(encoding="utf-8"))
    assert len(data["screening"]) == len(rows) == report.prisma["screened"]
    # a work found by several sources or records says so
    merged = [row for row in rows if row["merged_records"]]
    assert merged and all(row["source"] == row["found_by"].split("; ")[0] for row in rows)


def test_the_review_lists_every_included_work_cited_or_not(
        readme_review: tuple[Report, Path]) -> None:
    report, folder = readme_review
    markdown = (folder / "review.md").read_text(encoding="utf-8")
    section = markdown.split("## Included works", 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("| ") and
             not line.startswith("| Work |")]
    assert len(table) == len(report.papers) == report.counts.included
    uncited = {p.id for p in report.papers} - {ref.work_id for ref in report.references}
    assert uncited and sum(line.endswith("| no |") for line in table) == len(uncited)
    page = (folder / "review.html").read_text(encoding="utf-8")
    listed = page.split("<h2>Included works</h2>", 1)[1].split("<h2>", 1)[0]
    assert listed.count("<tr><td>") == len(report.papers)
    for paper in report.papers:
        assert html.escape(label(paper)) in listed
    assert re.search(r'href="#ref-1">\[1\]</a>', listed)


def citing_work() -> dict[str, Any]:
    """A work that cites the recorded W2741809807 (the state of open access), made from that
    record with a new id, DOI, title and abstract that no search finds: the recorded pool has
    no citation between two of its works (not a recording: the shape is OpenAlex's, the content
    made up)."""
    work = json.loads(fixture_bytes("openalex/openalex-python_W2741809807.json"))
    abstract = "Hand-made test record that cites one recorded work and says nothing else."
    work.update(id="https://openalex.org/W9000000002", doi="https://doi.org/10.5555/citing",
                ids={"openalex": "https://openalex.org/W9000000002"},
                title="A hand-made work that cites the state of OA",
                abstract_inverted_index={w: [at] for at, w in enumerate(abstract.split())},
                referenced_works=["https://openalex.org/W2741809807"], cited_by_count=5)
    return work


def test_snowballed_works_are_rows_of_their_own(tmp_path: Path, screening_check: Check) -> None:
    extra = OpenAlexService(extra_works=[citing_work()])
    with ReplayServer.default(extra=[extra]) as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000"):
        report = review("What is the prevalence and impact of open access articles?",
                        sources=["openalex"], max_results=5, max_iterations=1, snowball=True,
                        out=tmp_path / "out")
    text, rows = read_rows(tmp_path / "out")
    screening_check(text, report.prisma)
    check_rows_name_the_review(rows, report)
    assert report.prisma["identified"].get("snowball", 0) > 0
    assert any("snowball" in row["found_by"] for row in rows)


@pytest.mark.slow
def test_a_review_of_200_records_and_a_library_of_hundreds_writes_every_row(
        tmp_path: Path, screening_check: Check) -> None:
    """arXiv asked for 200 records, beside a library of 268 (200 preprints and the recorded
    OpenAlex works twice over, as two databases' exports of one search would hold them)."""
    with repeated_server() as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000"):
        preprints = ArxivAgent().search(SearchRequest(query="surveillance", limit=200)).works
        articles = [work_from_openalex(item.work) for item in OpenAlexService().pool]
        library = tmp_path / "library.jsonl"
        library.write_text("".join(
            json.dumps({"title": w.title, "authors": w.authors, "year": w.year,
                        "abstract": w.abstract, "doi": w.doi, "arxiv_id": w.arxiv_id}) + "\n"
            for w in [*preprints, *articles, *articles]), encoding="utf-8")
        report = review(QUESTION, sources=["arxiv", "library"], library=str(library),
                        max_results=200, max_iterations=1, full_text=0, out=tmp_path / "out")
    for name in REVIEW_FILES:
        assert (tmp_path / "out" / name).is_file(), name
    text, rows = read_rows(tmp_path / "out")
    screening_check(text, report.prisma)
    check_rows_name_the_review(rows, report)
    identified = report.prisma["identified"]
    assert identified["library"] == 268 and identified["arxiv"] >= 200
    merged = sum(len(row["merged_records"].split("; ")) for row in rows if row["merged_records"])
    assert len(rows) + merged == sum(identified.values())  # each record is a row or in one
    assert len(rows) > 200


def test_a_title_is_one_cell_as_written_and_never_a_formula(tmp_path: Path) -> None:
    """Commas, quotes and line breaks stay in their cell; a title a spreadsheet would run as a
    formula is written after an apostrophe (OWASP's advice against CSV injection)."""
    titles = ['Risk, "harm" and\nbenefit', '=HYPERLINK("http://evil.example","x")', "-omics"]
    screened = [ScreenedWork(work_id=f"doi:10.5555/{i}", title=title, source="library",
                             decision="excluded", reason="does not address: x")
                for i, title in enumerate(titles)]
    Report(question="q?", screening=screened).write(tmp_path)
    _, rows = read_rows(tmp_path)
    assert [row["title"] for row in rows] == [titles[0], f"'{titles[1]}", f"'{titles[2]}"]
    assert all(row["cited"] == "no" and row["full_text"] == "" for row in rows)


def test_a_work_that_came_in_full_from_the_library_says_where_it_was_read(
        tmp_path: Path, screening_check: Check) -> None:
    """The README's offline example: the library's article was not sought (PRISMA's full-text
    stage counts none) and its row says where its text was read."""
    report = review("Does erlotinib improve survival in EGFR-mutant non-small cell lung cancer?",
                    offline=True, sources=["library", "pubmed"], out=tmp_path / "out",
                    library=str(fixture_path("fulltext/pmc/biotext_PMC4816447.xml")))
    text, rows = read_rows(tmp_path / "out")
    screening_check(text, report.prisma)
    [row] = [row for row in rows if row["source"] == "library"]
    assert row["decision"] == "included" and row["cited"] == "yes"
    assert row["full_text"] == "not sought; read from library file biotext_PMC4816447.xml"
