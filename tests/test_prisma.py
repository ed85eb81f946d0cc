"""The PRISMA 2020 record: counts that add up (on the recorded corpus, by construction), every
search as sent with its date, and the two figures as well-formed SVG that escapes source text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree
from pydantic import ValidationError

from scholargraph import review
from scholargraph.exports.prisma import PrismaRecord, flow_svg, prisma_record, years_svg
from scholargraph.records import SearchLogEntry, Work
from scholargraph.testing import ReplayServer

SVG = "{http://www.w3.org/2000/svg}"
QUESTION = "What is known about genetic variants and screening?"


def svg_text(svg: str) -> str:
    root = etree.fromstring(svg.encode("utf-8"))
    assert root.tag == f"{SVG}svg"
    assert root.findall(f".//{SVG}script") == []
    words = " ".join(" ".join(t.itertext()) for t in root.iter(f"{SVG}text")).split()
    return " ".join(words)


@pytest.mark.parametrize("counts, message", [
    ({"identified": {"pubmed": 5}, "duplicates_removed": 1, "screened": 3}, "identified"),
    ({"identified": {"pubmed": 5}, "screened": 5, "excluded": 1, "included": 5}, "screened"),
    ({"identified": {"pubmed": 5}, "screened": 5, "excluded": 2, "included": 3,
      "excluded_reasons": {"no abstract": 1}}, "reasons"),
])
def test_counts_that_do_not_add_up_are_refused(counts, message):
    with pytest.raises(ValidationError, match=message):
        PrismaRecord(**counts)


def test_flow_diagram_draws_every_count_and_escapes_source_text():
    log = [SearchLogEntry(source="pubmed", query='"a" <b> & c', n_results=4,
                          at="2026-01-02T10:00:00+00:00"),
           SearchLogEntry(source="arxiv", query="all:x", n_results=3, round=2,
                          at="2026-01-03T10:00:00+00:00")]
    record = prisma_record({"identified": {"arxiv": 3, "pubmed": 4}, "duplicates_removed": 2,
                            "screened": 5, "excluded": 1, "included": 4,
                            "excluded_reasons": {"no <abstract> & no text": 1}}, log)
    assert [s.query for s in record.searches] == ['"a" <b> & c', "all:x"]
    assert record.searches[0].date.startswith("2026-01-02")
    text = svg_text(flow_svg(record))
    for fact in ("Records identified (n = 7)", "searched 2026-01-02 to 2026-01-03",
                 "pubmed (n = 4; 1 search)", "Duplicate records removed (n = 2)",
                 "Records screened (n = 5)", "Records excluded (n = 1)",
                 "no <abstract> & no text (n = 1)", "Studies included in review (n = 4)"):
        assert fact in text, fact


def test_the_flow_accounts_for_works_included_without_their_full_text():
    """A review reads the full text of its best-ranked included works only: the flow said
    "Reports assessed in full text (n = 0)" and then "Studies included in review (n = 16)",
    which does not follow. The included works not read in full are counted on the way."""
    counts = {"identified": {"openalex": 30}, "duplicates_removed": 3, "screened": 27,
              "excluded": 11, "included": 16, "excluded_reasons": {"off topic": 11},
              "reports_sought": 4, "reports_not_retrieved": 3,
              "not_retrieved_reasons": {"no open full text": 3}, "reports_assessed": 1}
    text = svg_text(flow_svg(prisma_record(counts, [])))
    assert "Reports assessed in full text (n = 1)" in text
    assert "Included on title and abstract alone (n = 15)" in text
    assert "Studies included in review (n = 16)" in text
    every_one_read = {**counts, "included": 1, "excluded": 26,
                      "excluded_reasons": {"off topic": 26}, "reports_sought": 1,
                      "reports_not_retrieved": 0, "not_retrieved_reasons": {}}
    assert "alone" not in svg_text(flow_svg(prisma_record(every_one_read, [])))


def test_year_chart_has_a_bar_per_year_with_works():
    works = [Work(title=f"w{i}", year=year) for i, year in enumerate([2015, 2015, 2018, 2021])]
    root = etree.fromstring(years_svg([*works, Work(title="undated")]).encode("utf-8"))
    bars = {bar.findtext(f"{SVG}title") for bar in root.iter(f"{SVG}rect")
            if bar.find(f"{SVG}title") is not None}
    assert bars == {"2015: 2", "2018: 1", "2021: 1"}
    labels = " ".join(" ".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert "2015" in labels and "2021" in labels and "1 undated work not shown" in labels
    assert "No dated works" in svg_text(years_svg([]))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("out")
    with ReplayServer.default() as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path_factory.mktemp("home")),
            SCHOLARGRAPH_RATE_SCALE="1000"):
        review(QUESTION, sources=["pubmed", "arxiv", "openalex"], out=out)
    return out


def test_the_recorded_review_keeps_a_prisma_record_that_adds_up(recorded):
    data = json.loads((recorded / "review.json").read_text(encoding="utf-8"))
    record = prisma_record(data["prisma"], [SearchLogEntry(**e) for e in data["search_log"]])
    assert record.included == len(data["papers"]) > 0
    assert sum(record.excluded_reasons.values()) == record.excluded
    for source, count in record.identified.items():
        assert sum(s.identified for s in record.searches if s.source == source) == count
    assert {s.source for s in record.searches} >= set(record.identified)
    assert all(s.date and s.query for s in record.searches)


def test_the_recorded_review_writes_both_figures(recorded):
    data = json.loads((recorded / "review.json").read_text(encoding="utf-8"))
    flow = svg_text((recorded / "prisma.svg").read_text(encoding="utf-8"))
    assert f"Studies included in review (n = {len(data['papers'])})" in flow
    years = etree.fromstring((recorded / "years.svg").read_bytes())
    counted = sum(int(bar.findtext(f"{SVG}title").split(": ")[1])
                  for bar in years.iter(f"{SVG}rect") if bar.find(f"{SVG}title") is not None)
    assert counted == sum(1 for paper in data["papers"] if paper["year"])
    markdown = (recorded / "review.md").read_text(encoding="utf-8")
    assert "](prisma.svg)" in markdown and "](years.svg)" in markdown


def test_a_look_up_of_works_already_found_is_not_counted_as_a_search(replay, tmp_path) -> None:
    """The README review's PRISMA diagram said 'openalex (n = 26; 3 searches)' where two
    searches were sent: the third was the batched DOI look-up enriching the arXiv works
    (citation counts, open access, retraction), listed in the search log with no word of what it
    was. The diagram counts the searches now, and the log says 'enrichment look-up'."""
    import re

    from scholargraph import review

    report = review("machine learning for public health surveillance", offline=True,
                    sources=["arxiv", "openalex"], max_iterations=1, out=tmp_path / "out")
    openalex = [e for e in report.search_log if e.source == "openalex"]
    lookups = [e for e in openalex if e.query.startswith("filter=doi:")]
    assert lookups and all(e.note == "enrichment look-up" for e in lookups)
    svg = (tmp_path / "out" / "prisma.svg").read_text(encoding="utf-8")
    [said] = re.findall(r"openalex \(n = \d+; (\d+) search(?:es)?\)", svg)
    assert int(said) == len(openalex) - len(lookups)
    markdown = (tmp_path / "out" / "review.md").read_text(encoding="utf-8")
    assert "enrichment look-up" in markdown
