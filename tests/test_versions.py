"""One work, one reference: the versions of a paper (preprints on several servers and the
journal article) merge into one work citing the published version, while what only looks like
one work (two journal DOIs, the recurring column of each issue) stays apart.

The version tests read recorded OpenAlex and arXiv answers through the real clients and the
replay server; the precision cases are written out, each the shape of a false merge a labelled
bibliography showed."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from scholargraph import review
from scholargraph.dedup import deduplicate, normalize_title, title_variants
from scholargraph.dedup.titles import recurring_column
from scholargraph.deterministic.credibility import assess, source_type
from scholargraph.identifiers import (
    identifiers_in_url,
    osf_id,
    preprint_server,
    published_doi_of_preprint,
)
from scholargraph.records import Work
from scholargraph.sources.arxiv import ArxivAgent
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.openalex import OpenAlexAgent, work_from_openalex
from scholargraph.sources.pubmed import works_from_efetch
from scholargraph.testing import ReplayServer, fixture_bytes

CROWDSOURCING = "Crowdsourcing for Machine Learning in Public Health Surveillance"
ARTICLE, OSF, JMIR_PREPRINT = "10.2196/28749", "10.31219/osf.io/ndp8m", "10.2196/preprints.28749"


def recorded_openalex() -> dict[str, Work]:
    """Every recorded OpenAlex work of the offline corpus, by DOI."""
    results = json.loads(fixture_bytes("openalex/peneira_works.json"))["results"]
    works = (work_from_openalex(item) for item in results)
    return {work.doi: work for work in works if work.doi}


def test_three_versions_found_by_openalex_are_one_work_citing_the_article(
        replay: ReplayServer) -> None:
    found = OpenAlexAgent().search(SearchRequest(
        query='"crowdsourcing" AND "public health surveillance"', limit=50)).works
    assert {ARTICLE, OSF, JMIR_PREPRINT} <= {work.doi for work in found}
    result = deduplicate(found)
    [work] = [w for w in result.works if w.title.startswith(CROWDSOURCING)]
    assert work.doi == ARTICLE and work.kind == "article" and work.pmid == "35040794"
    assert f"doi:{OSF}" in work.version_ids and f"doi:{JMIR_PREPRINT}" in work.version_ids
    merged = {m.merged_id: (m.rule, m.detail) for m in result.merges if m.work_id == work.id}
    assert merged == {f"doi:{OSF}": ("version", "osf:ndp8m"),  # the article's location
                      f"doi:{JMIR_PREPRINT}": ("version", f"doi:{ARTICLE}")}
    assert source_type(work) == "peer_reviewed"


def test_what_the_records_say_about_their_versions() -> None:
    works = recorded_openalex()
    assert works[ARTICLE].version_ids == ["osf:ndp8m"]  # OSF Preprints among its locations
    assert works[JMIR_PREPRINT].version_ids == [f"doi:{ARTICLE}"]  # its publishedVersion
    assert works[OSF].version_ids == []  # its own OSF page is not another version
    assert works["10.2196/preprints.50243"].version_ids == []
    assert published_doi_of_preprint("10.2196/preprints.50243") == "10.2196/50243"
    assert title_variants(works[JMIR_PREPRINT].title) == title_variants(works[ARTICLE].title)


def test_a_jmir_preprint_joins_the_article_its_doi_number_names() -> None:
    works = recorded_openalex()
    result = deduplicate([works["10.2196/preprints.50243"], works["10.2196/50243"]])
    [work] = result.works
    assert work.doi == "10.2196/50243" and work.version_ids[0] == "doi:10.2196/preprints.50243"
    assert [m.rule for m in result.merges] == ["version"]


def test_an_arxiv_preprint_and_its_proceedings_paper_are_one_work() -> None:
    works = recorded_openalex()
    preprint, paper = works["10.48550/arxiv.2304.04761"], works["10.1109/ichi57859.2023.00127"]
    [work] = deduplicate([preprint, paper]).works
    assert work.doi == "10.1109/ichi57859.2023.00127"
    assert "doi:10.48550/arxiv.2304.04761" in work.version_ids


def test_a_location_naming_another_work_is_not_a_version() -> None:
    works = recorded_openalex()
    article = works[ARTICLE]
    unrelated = works["10.1089/hs.2020.0194"].model_copy(update={"doi": "10.31219/osf.io/ndp8m"})
    assert len(deduplicate([article, unrelated]).works) == 2


def article(title: str, doi: str | None = None, **fields: object) -> Work:
    fields.setdefault("authors", ["Abad, Zahra", "Lee, Joon", "Butler, Gregory"])
    fields.setdefault("year", 2021)
    return Work(title=title, doi=doi, **fields)


def test_two_journal_dois_never_merge_whatever_the_titles_say() -> None:
    title = "Crowdsourcing for machine learning in public health surveillance"
    records = [article(title, "10.2196/28749", venue="J Med Internet Res"),
               article(title, "10.1016/j.jbi.2021.103721", venue="J Med Internet Res")]
    assert len(deduplicate(records).works) == 2


@pytest.mark.parametrize("server_doi", [
    "10.31219/osf.io/ndp8m", "10.2139/ssrn.3812345", "10.21203/rs.3.rs-123456/v1",
    "10.1101/2021.03.01.21252345", "10.2196/preprints.28749", "10.48550/arxiv.2104.00001"])
def test_a_preprint_server_doi_beside_a_journal_doi_is_one_work(server_doi: str) -> None:
    title = "Crowdsourcing for machine learning in public health surveillance"
    records = [article(title, server_doi, kind="preprint", year=2021),
               article(title, "10.2196/28749", venue="J Med Internet Res", year=2022)]
    [work] = deduplicate(records).works
    assert work.doi == "10.2196/28749" and work.version_ids == [f"doi:{server_doi}"]


def test_two_dois_of_one_server_are_two_preprints_unless_two_versions() -> None:
    title = "Crowdsourcing for machine learning in public health surveillance"
    two = [article(title, "10.2139/ssrn.3812345", kind="preprint"),
           article(title, "10.2139/ssrn.3899999", kind="preprint")]
    assert len(deduplicate(two).works) == 2
    versions = [article(title, "10.21203/rs.3.rs-123456/v1", kind="preprint"),
                article(title, "10.21203/rs.3.rs-123456/v2", kind="preprint")]
    assert len(deduplicate(versions).works) == 1


def test_preprint_servers_are_told_by_their_dois() -> None:
    assert preprint_server("10.1101/2020.05.01.123456") == "bioRxiv/medRxiv"
    assert preprint_server("10.1101/gr.123456.111") is None  # Genome Research, same prefix
    assert preprint_server("10.2196/preprints.28749") == "JMIR Preprints"
    assert preprint_server("10.2196/28749") is None
    assert preprint_server("10.31234/osf.io/abcde") == "OSF Preprints"  # PsyArXiv
    assert osf_id("10.31234/osf.io/AbCdE") == osf_id("https://osf.io/abcde/") == "abcde"
    assert identifiers_in_url("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC8808350") == [
        ("pmcid", "PMC8808350")]
    assert identifiers_in_url("http://arxiv.org/pdf/2304.04761v2") == [("arxiv", "2304.04761")]


# Recurring columns: the same title by the same editor in every issue of a volume.

def column(issue: str | None, pages: str | None = None, **fields: object) -> Work:
    fields.setdefault("sources", [])
    return Work(title="Editor's Comments", authors=["Rai, Arun"], year=2017,
                venue="MIS Quarterly", volume="41", issue=issue, pages=pages, **fields)


def test_a_recurring_column_in_each_issue_of_a_volume_stays_apart() -> None:
    issues = [column(str(number)) for number in (1, 2, 3, 4)]
    assert deduplicate(issues).duplicates_removed == 0
    undated = [column(None), column(None), column(None, pages="iii-xii")]
    assert deduplicate(undated).duplicates_removed == 0
    two_pages = [column(None, pages="iii-x"), column("2", pages="iii-x")]
    assert deduplicate(two_pages).duplicates_removed == 0  # roman front matter: no place


def test_one_issue_column_from_two_databases_is_one_work() -> None:
    same_place = [column("2", pages="301-306"), column("2", pages="301-6")]
    assert deduplicate(same_place).duplicates_removed == 1
    other_issue = [column("2", pages="301-306"), column("3", pages="301-306")]
    assert deduplicate(other_issue).duplicates_removed == 0
    front_matter = [column("2", pages="iii-xii"), column("2", pages="iii-xii"), column("2")]
    assert deduplicate(front_matter).duplicates_removed == 2  # one volume, one issue


def test_without_a_place_two_sources_with_one_column_each_agree() -> None:
    pair = [column(None, sources=["dblp"]), column(None, sources=["acm"])]
    assert deduplicate(pair).duplicates_removed == 1
    ambiguous = [column(None, sources=["dblp"]), column(None, sources=["acm"]),
                 column("3", sources=["acm"])]
    assert deduplicate(ambiguous).duplicates_removed == 0


def test_a_subject_title_is_not_a_column() -> None:
    titled = [Work(title="Editor's Comments: Next-Generation Digital Platforms", year=2017,
                   authors=["Rai, Arun"], venue="MIS Quarterly", volume="41", issue=issue)
              for issue in ("1", None)]
    assert deduplicate(titled).duplicates_removed == 1


# Source types come from the record, not from its address.

def test_pubmed_journal_articles_are_peer_reviewed_not_government_pages() -> None:
    articles = works_from_efetch(io.BytesIO(fixture_bytes("pubmed/biopython_pubmed1.xml")))
    assert articles and all(w.url.startswith("https://pubmed.ncbi.nlm.nih.gov/")
                            for w in articles)
    for work in articles:
        credibility = assess(work, 2026)
        assert credibility.source_type == "peer_reviewed", work.title
        assert credibility.reasons[0] == "journal article"


def test_a_pubmed_preprint_is_a_preprint() -> None:
    recorded = fixture_bytes("pubmed/biopython_pubmed1.xml").decode()
    as_preprint = recorded.replace(">Journal Article<", ">Preprint<", 1)
    first = works_from_efetch(io.BytesIO(as_preprint.encode()))[0]
    assert first.kind == "preprint" and source_type(first) == "preprint"


def test_ssrn_osf_and_jmir_preprints_are_preprint_servers() -> None:
    works = recorded_openalex()
    ssrn = works["10.2139/ssrn.4709697"]  # OpenAlex types it 'article'; its DOI is SSRN's
    assert ssrn.kind == "preprint" and ssrn.venue == "Social Science Research Network"
    assert assess(ssrn, 2026).reasons[0] == "preprint (SSRN): not peer reviewed"
    listed = Work(title="A working paper", venue="SSRN Electronic Journal", year=2016)
    assert listed.kind == "article" and source_type(listed) == "preprint"
    assert assess(works[OSF], 2026).reasons[0] == "preprint (OSF Preprints): not peer reviewed"
    lone = works["10.2196/preprints.26351"]
    assert assess(lone, 2026).reasons[0] == "preprint (JMIR Preprints): not peer reviewed"
    published = works[JMIR_PREPRINT]  # its record lists the published article
    assert source_type(published) == "peer_reviewed"
    assert assess(published, 2026).reasons[0] == (
        f"preprint published in a journal (DOI {ARTICLE})")
    for doi in ("10.21203/rs.3.rs-123456/v1", "10.1101/2021.03.01.21252345"):
        assert source_type(Work(title="A preprint", doi=doi, venue=None)) == "preprint"


def test_arxiv_records_with_a_journal_doi_or_reference_are_published(
        replay: ReplayServer) -> None:
    found = {w.arxiv_id: w for w in ArxivAgent().search(
        SearchRequest(query="all:testing", limit=100)).works}
    with_doi, with_reference, bare = found["1205.1866"], found["1202.4527"], found["2503.05378"]
    assert with_doi.doi == "10.5121/vlsic.2012.3205" and with_doi.journal_ref is None
    assert assess(with_doi, 2026).reasons[0] == (
        "preprint published in a journal (DOI 10.5121/vlsic.2012.3205)")
    assert with_reference.doi is None and with_reference.journal_ref
    assert source_type(with_reference) == "peer_reviewed"
    assert f"venue: {with_reference.journal_ref}" in assess(with_reference, 2026).reasons
    assert bare.doi is None and bare.journal_ref is None
    assert assess(bare, 2026).reasons[0] == "preprint (arXiv): not peer reviewed"


def test_a_government_page_found_on_the_web_is_still_official() -> None:
    page = Work(title="Surveillance case definitions", kind="web",
                url="https://www.cdc.gov/nndss/case-definitions.html")
    assert source_type(page) == "official"


def test_the_offline_review_cites_the_crowdsourcing_paper_once(tmp_path: Path) -> None:
    report = review("machine learning for public health surveillance", offline=True)
    versions = [p for p in report.papers if p.title.startswith(CROWDSOURCING)
                or p.title.lower().startswith(CROWDSOURCING.lower())]
    assert len(versions) == 1
    [paper] = versions
    assert paper.doi == ARTICLE and {f"doi:{OSF}", f"doi:{JMIR_PREPRINT}"} <= set(
        paper.version_ids)
    assert report.prisma["duplicates_removed"] >= 2
    versions = {f"doi:{OSF}", f"doi:{JMIR_PREPRINT}"}
    assert not versions & {passage.work_id for passage in report.passages}
    for finding in report.findings:
        assert not versions & {p.split("#")[0] for p in finding.passage_ids}
    report.write(tmp_path)
    for written in tmp_path.iterdir():
        if written.suffix in (".md", ".json", ".bib", ".ris", ".html"):
            text = written.read_text(encoding="utf-8")
            assert not CONTROL.search(text), (written.name, CONTROL.findall(text)[:3])


CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_a_preprint_joins_its_article_up_to_two_years_later() -> None:
    title = "Childhood circumstances and health of American and Chinese older adults"
    ssrn = Work(**recorded_openalex()["10.2139/ssrn.4709697"].model_dump(
        include={"title", "authors", "year", "venue", "doi", "kind"}))
    assert ssrn.title.startswith("Childhood Circumstances") and ssrn.venue == (
        "Social Science Research Network") and ssrn.kind == "preprint"
    later = [ssrn.model_copy(update={"doi": "10.1016/j.ssm.2026.101234", "venue": "SSM",
                                     "year": ssrn.year + gap, "title": title, "kind": "article"})
             for gap in (2, 3)]
    [work] = deduplicate([ssrn, later[0]]).works
    assert work.doi == "10.1016/j.ssm.2026.101234" and work.version_ids == [f"doi:{ssrn.doi}"]
    assert len(deduplicate([ssrn, later[1]]).works) == 2


def test_a_bibliography_listing_a_working_paper_like_a_journal_item_keeps_two_versions() -> None:
    """A bibliographic export gives an SSRN working paper as an article of 'SSRN Electronic
    Journal': listed like a journal item, it is a version of its own (the labelled sets keep
    a conference paper and its later journal version apart the same way)."""
    title = "Digital platform ecosystems and the governance of complementors"
    authors = ["Rai, Arun", "Tang, Xinlin"]
    working = Work(title=title, authors=authors, year=2016, venue="SSRN Electronic Journal",
                   doi="10.2139/ssrn.2812345")
    journal = Work(title=title, authors=authors, year=2018, venue="MIS Quarterly",
                   doi="10.25300/misq/2018/12345")
    assert working.kind == "article"
    assert len(deduplicate([working, journal]).works) == 2
    posted = working.model_copy(update={"kind": "preprint", "venue": None})
    assert len(deduplicate([posted, journal]).works) == 1


@pytest.mark.parametrize(("title", "is_column"), [
    ("Editor's Comments", True), ("Editor’s comments.", True), ("From the Editor-in-Chief", True),
    ("Guest Editorial", True), ("Message from the Program Chairs", True),
    ("Thank You to Our Reviewers 2017", True), ("Book Review Column", True),
    ("Editor's Comments: Next-Generation Digital Platforms", False),
    ("Information systems outsourcing", False), ("Digital platforms", False),
])
def test_recurring_column_titles(title: str, is_column: bool) -> None:
    assert recurring_column(normalize_title(title)) is is_column
