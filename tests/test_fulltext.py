"""Open-access full text: parsing JATS and PDFs, fetching politely, and citing sections and pages.

Everything is offline: the parsers read the recorded CC BY full texts shipped in
``scholargraph/testing/fixtures/fulltext/``, and fetching goes to the replay server, which
serves them as PMC efetch answers and open-access copies (see that folder's PROVENANCE.md).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from scholargraph import review
from scholargraph.agents.schemas import Intent
from scholargraph.errors import InputError
from scholargraph.fulltext.fetch import FullTextReader
from scholargraph.fulltext.jats import parse_jats
from scholargraph.fulltext.pdf import parse_pdf
from scholargraph.rag.chunking import chunk_work
from scholargraph.records import Work
from scholargraph.settings import get_settings
from scholargraph.sources import registry
from scholargraph.sources.base import SearchRequest, SourceAgent, SourceResult
from scholargraph.sources.library import load_library
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.testing import Fault, RateLimit, ReplayServer, fixture_bytes, fixture_path
from scholargraph.webapp.render import evidence

EFETCH = "fulltext/pmc/biotext_PMC4816447.xml"
OA_NXML = "fulltext/pmc/s2orc-doc2json_PMC6398430.nxml"
OAI = "fulltext/pmc/pubmed-client_oai_PMC10653940.xml"
PDF = "fulltext/publisher/s2orc-doc2json_N18-3011.pdf"
ACL_URL = "https://aclanthology.org/N18-3011.pdf"
DISALLOWED_URL = "https://www.pnas.org/content/pnas/111/45/E4832.full.pdf"
CLOSED = json.loads(fixture_bytes(
    "fulltext/openalex/paperqa_test_does_openalex_work_not-oa-in-openalex.json"))


# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize("name", [EFETCH, OA_NXML, OAI])
def test_every_pmc_shape_gives_sections_paragraphs_and_table_rows(name: str) -> None:
    document = parse_jats(fixture_bytes(name))
    assert document.pmcid and document.doi and document.title
    assert "creativecommons.org/licenses/by/4.0" in (document.licence or "")
    kinds = {block.kind for block in document.blocks}
    assert kinds == {"paragraph", "caption", "table"}
    assert any(" > " in block.section for block in document.blocks if block.kind == "paragraph")
    assert document.tables and all(table.rows for table in document.tables)
    assert not any(re.search(r"</?[a-z-]+[ />]", block.text) for block in document.blocks)


def test_jats_title_paths_captions_and_tables_read_as_the_article_has_them() -> None:
    document = parse_jats(fixture_bytes(EFETCH))
    sections = [block.section for block in document.blocks]
    assert "Materials and Methods > Patient eligibility" in sections
    table = next(t for t in document.tables if t.label == "Table 4")
    assert table.caption == "Common toxicities."
    assert table.header[1:] == ["Grade 1", "Grade 2", "Grade 3"]
    assert table.rows[0] == ["Skin rash", "14", "17", "10"]
    row = next(b for b in document.blocks if b.kind == "table" and "Skin rash" in b.text)
    assert row.section == "Results > Safety > Table 4"
    assert row.text == "Table 4, Skin rash: Grade 1 14; Grade 2 17; Grade 3 10."
    assert not any(block.section.startswith("References") for block in document.blocks)
    rows = [block.text for block in document.blocks if block.section.endswith("Table 2")]
    assert "Table 2, Performance status: PS1 = 28." in rows  # the group's name carried down


def test_a_record_without_body_has_no_full_text() -> None:
    """The OAI record with its ``<body>`` taken out, as PMC serves scanned articles."""
    data = re.sub(rb"<body>.*</body>", b"", fixture_bytes(OAI), flags=re.DOTALL)
    document = parse_jats(data)
    assert document.title and not document.has_body


def test_entities_are_never_expanded_and_nothing_is_fetched(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    hostile = (f'<?xml version="1.0"?><!DOCTYPE article [<!ENTITY x SYSTEM "file://{secret}">]>'
               '<article><body><sec><title>Results</title><p>Leak: &x;.</p></sec></body>'
               '</article>').encode()
    document = parse_jats(hostile)
    assert document.blocks[0].section == "Results"
    assert "TOP-SECRET" not in document.blocks[0].text


def test_xml_that_is_not_jats_is_refused_with_a_reason() -> None:
    with pytest.raises(InputError, match="no JATS <article>"):
        parse_jats(b"<html><body><p>hello</p></body></html>")


def test_a_pdf_gives_pages_and_numbered_section_headings() -> None:
    document = parse_pdf(fixture_bytes(PDF))
    assert document.pages == 8
    sections = list(dict.fromkeys(block.section for block in document.blocks))
    assert sections[0] == "1 Introduction"
    assert "4 Entity Extraction and Linking > 4.2 Entity Extraction Models" in sections
    assert {block.page for block in document.blocks} >= {1, 4, 7}
    assert document.abstract and document.abstract.startswith("We describe a deployed")
    assert not any("Ammar" in block.text[:40] for block in document.blocks[:1])


def test_passages_of_a_full_text_carry_section_and_page_and_slice_back() -> None:
    document = parse_pdf(fixture_bytes(PDF))
    text, spans = document.joined()
    work = Work(title="Literature graph", abstract=document.abstract, full_text=text,
                full_text_spans=spans)
    passages = [p for p in chunk_work(work) if p.id.split("#")[1].startswith("full_text")]
    assert passages and all(p.text == text[p.start:p.end] for p in passages)
    assert all(p.page is not None and p.section != "full_text" for p in passages)


# ---------------------------------------------------------------- fetching


def works_to_read() -> list[Work]:
    jats = parse_jats(fixture_bytes(EFETCH))
    return [
        Work(title=jats.title or "", pmcid=jats.pmcid, doi=jats.doi),
        Work(title="Construction of the Literature Graph in Semantic Scholar", oa_url=ACL_URL),
        Work(title="A closed-access review", doi=CLOSED["doi"]),
        Work(title="A copy whose host disallows us", oa_url=DISALLOWED_URL),
    ]


@pytest.fixture
def cached_replay(tmp_path: Path) -> Iterator[ReplayServer]:
    with ReplayServer.default() as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_NO_CACHE="false",
            SCHOLARGRAPH_RATE_SCALE="1000"):
        yield server


def test_closed_and_disallowed_works_are_not_fetched_and_open_ones_are_read(
        cached_replay: ReplayServer) -> None:
    done = FullTextReader(get_settings()).read_all(works_to_read(), budget=10)
    statuses = [outcome.status for outcome in done.outcomes]
    assert statuses == ["retrieved", "retrieved", "closed_access", "robots"]
    paths = [(r.service, r.path) for r in cached_replay.requests]
    assert ("web", "/www.pnas.org/robots.txt") in paths
    assert not any("E4832" in path or "wrna" in path for _, path in paths)
    assert [r.param("db") for r in cached_replay.requests if r.service == "pubmed"] == ["pmc"]
    prisma = done.prisma()
    assert prisma["reports_sought"] == 4 and prisma["reports_assessed"] == 2
    assert prisma["not_retrieved_reasons"] == {"closed access": 1, "robots.txt disallows": 1}
    assert done.works[0].licence == "http://creativecommons.org/licenses/by/4.0/"
    assert done.works[1].full_text_spans[0].page == 1


def test_a_rerun_reads_the_full_texts_from_the_cache(cached_replay: ReplayServer) -> None:
    FullTextReader(get_settings()).read_all(works_to_read(), budget=10)
    before = len(cached_replay.requests)
    again = FullTextReader(get_settings()).read_all(works_to_read(), budget=10)
    assert len(cached_replay.requests) == before
    assert [o.status for o in again.outcomes][:2] == ["retrieved", "retrieved"]


def test_a_doi_redirect_is_followed_only_where_robots_allow(cached_replay: ReplayServer) -> None:
    """The real OpenAlex record of a PNAS paper: its oa_url is a DOI link that redirects to a
    host whose robots.txt disallows us, so the paper is not fetched; another DOI redirecting
    to an allowed copy is read."""
    pnas = work_from_openalex(json.loads(fixture_bytes(
        "fulltext/openalex/paperqa_test_doi_search_paper_attributes4.openalex.json")))
    assert pnas.oa_url == "https://doi.org/10.1073/pnas.1414271111" and pnas.pmcid
    allowed = Work(title="Literature graph", oa_url="https://doi.org/10.18653/v1/N18-3011")
    done = FullTextReader(get_settings()).read_all([pnas, allowed], budget=2)
    assert [o.status for o in done.outcomes] == ["robots", "retrieved"]
    paths = [r.path for r in cached_replay.requests if r.service == "web"]
    assert "/doi.org/10.1073/pnas.1414271111" in paths  # the redirect is asked, not followed
    assert not any("E4832" in path for path in paths)
    assert "/aclanthology.org/N18-3011.pdf" in paths


def test_the_budget_bounds_the_works_sought(cached_replay: ReplayServer) -> None:
    done = FullTextReader(get_settings()).read_all(works_to_read(), budget=1)
    assert len(done.outcomes) == 1 and done.works[1].full_text is None


# ---------------------------------------------------------------- whole reviews


class RecordedFullTexts(SourceAgent):
    """A test source: the recorded articles' own front matter as records (no full text), so
    the review must fetch their full texts from the replay server."""

    name: ClassVar[str] = "recorded"
    order: ClassVar[int] = 36
    label: ClassVar[str] = "Recorded full texts"
    domains = frozenset({"general", "biomedical", "computer_science"})

    def build_query(self, terms: list[str], intent: Intent) -> str:
        return " ".join(terms)

    def _search(self, request: SearchRequest) -> SourceResult:
        jats = parse_jats(fixture_bytes(EFETCH))
        pdf = parse_pdf(fixture_bytes(PDF))
        return SourceResult(works=[
            Work(title=jats.title or "", abstract=jats.abstract, pmcid=jats.pmcid, doi=jats.doi,
                 year=jats.year, authors=jats.authors, sources=[self.name]),
            Work(title=pdf.title or "", abstract=pdf.abstract, oa_url=ACL_URL, year=2018,
                 sources=[self.name]),
            Work(title="Closed-access review of erlotinib toxicity", doi=CLOSED["doi"],
                 abstract="Erlotinib skin rash and diarrhea were common toxicities.",
                 sources=[self.name]),
        ])


@pytest.fixture
def recorded_source(replay: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    module = type(sys)("recorded_fulltexts")
    module.RecordedFullTexts = RecordedFullTexts  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "recorded_fulltexts", module)
    monkeypatch.setenv(registry.SOURCES_ENV, "recorded_fulltexts:RecordedFullTexts")
    registry.refresh()
    yield
    monkeypatch.delenv(registry.SOURCES_ENV)
    registry.refresh()


QUESTION = ("What skin rash and diarrhea toxicities and survival did erlotinib give patients "
            "with EGFR mutations?")
PDF_QUESTION = ("How are entity extraction and linking used to build the Semantic Scholar "
                "literature graph?")


def test_a_review_cites_sections_of_jats_and_pages_of_pdfs(recorded_source: None,
                                                           tmp_path: Path) -> None:
    """Two reviews over the recorded source: one answered by the JATS article (and the closed
    review beside it), one by the PDF; each cites where in the full text its findings are."""
    report = review(QUESTION, sources=["recorded"], max_iterations=1, out=tmp_path / "out")
    assert any(text.startswith("1 of 2 included works was read in full")
               for text in report.limitations), report.limitations
    full = [p for p in report.passages if p.id.split("#")[1].startswith("full_text")]
    assert any(p.page is None and p.section not in ("full_text", "abstract") for p in full)
    markdown = (tmp_path / "out" / "review.md").read_text()
    assert re.search(r"\[\d+, (Results|Introduction|Discussion|Materials and Methods)", markdown)
    data = json.loads((tmp_path / "out" / "review.json").read_text())
    assert any(p["section"] not in ("abstract", "full_text", "title") for p in data["passages"])
    prisma = data["prisma"]
    assert prisma["reports_sought"] == 2 and prisma["reports_assessed"] == 1
    assert prisma["not_retrieved_reasons"] == {"closed access": 1}
    assert "Reports assessed in full text | 1" in markdown
    assert "read in full: PMC JATS; licence http://creativecommons.org/licenses/by/4.0/" in \
        markdown.replace("\\", "")
    svg = (tmp_path / "out" / "prisma.svg").read_text()
    assert "Reports sought for retrieval (n = 2)" in svg and "closed access (n = 1)" in svg

    pdf_report = review(PDF_QUESTION, sources=["recorded"], max_iterations=1,
                        out=tmp_path / "pdf")
    pages = [p for p in pdf_report.passages if p.id.split("#")[1].startswith("full_text")]
    assert any(p.page is not None for p in pages)
    assert re.search(r"\[\d+, [^\]]+, p\. \d+\]", (tmp_path / "pdf" / "review.md").read_text())
    shown = [item.location for finding in pdf_report.findings
             for item in evidence(pdf_report, finding)]
    assert any(re.fullmatch(r".+, p\. \d+", location) for location in shown)  # the live page
    html = (tmp_path / "pdf" / "review.html").read_text()
    assert re.search(r"</a>, [^\]<]+, p\. \d+\]", html)
    pdf_data = json.loads((tmp_path / "pdf" / "review.json").read_text())
    assert any(p["page"] for p in pdf_data["passages"])


def test_the_library_reads_jats_and_pdfs_in_full(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "article.nxml").write_bytes(fixture_bytes(OA_NXML))
    (tmp_path / "lib" / "paper.pdf").write_bytes(fixture_path(PDF).read_bytes())
    works = {w.title[:20]: w for w in load_library(tmp_path / "lib")}
    crows = works["Counting crows: popu"]
    assert crows.pmcid == "PMC6398430" and crows.abstract and crows.full_text_spans
    graph = works["Construction of the "]
    sections = {p.section for p in chunk_work(crows)}
    assert "METHODS > Study site and population" in sections
    assert {p.page for p in chunk_work(graph)} >= {1, 2, 7}


def test_the_evidence_table_carries_a_value_read_from_a_jats_table(recorded_source: None
                                                                   ) -> None:
    report = review("What values of survival in months did erlotinib give patients with an "
                    "EGFR mutation who failed early?", sources=["recorded"], max_iterations=1)
    from_tables = [row for row in report.evidence_table if row.quote.startswith("Table ")]
    assert from_tables, [row.quote for row in report.evidence_table]
    row = from_tables[0]
    passage = report.passage(row.passage_id)
    assert passage.section.endswith("Table 3") and row.unit == "months"
    assert passage.text[row.start:row.end] == row.quote and row.value in row.quote


def test_jats_variants_beyond_the_recordings() -> None:
    """Hand-written edge cases: paragraphs outside any section, an untitled typed section, a
    table inside a paragraph with a row-spanning label, a figure in the floats group, and a
    namespaced article."""
    article = b"""<?xml version="1.0"?>
<article xmlns="https://jats.nlm.nih.gov/ns/archiving/1.3/"
         xmlns:xlink="http://www.w3.org/1999/xlink">
 <front><article-meta><title-group><article-title>Edge <italic>cases</italic></article-title>
 </title-group><permissions><license xlink:href="https://creativecommons.org/publicdomain/zero/1.0/">
 <license-p>CC0</license-p></license></permissions></article-meta></front>
 <body><p>Opening paragraph before any section.</p>
  <sec sec-type="results"><p>Outcomes improved <xref ref-type="bibr">[3]</xref>.
   <table-wrap><label>Table 1</label><caption><title>Doses</title></caption><table>
    <thead><tr><th>Group</th><th>Dose (mg)</th><th>Weight (kg)</th></tr></thead>
    <tbody><tr><td rowspan="2">Adults</td><td>10</td><td>70</td></tr>
    <tr><td>20</td><td>80</td></tr></tbody></table></table-wrap></p>
   <sec><title>Subgroups</title><list><list-item><p>Older patients did better.</p></list-item>
   </list><disp-formula><tex-math>x^2</tex-math></disp-formula></sec></sec></body>
 <back><ref-list><ref><mixed-citation>Reference text.</mixed-citation></ref></ref-list></back>
 <floats-group><fig><label>Figure 1</label><caption><p>Flow of patients.</p></caption></fig>
 </floats-group>
</article>"""
    document = parse_jats(article)
    assert document.title == "Edge cases"
    assert document.licence == "https://creativecommons.org/publicdomain/zero/1.0/"
    by_text = {block.text: block for block in document.blocks}
    assert by_text["Opening paragraph before any section."].section == "Main text"
    assert by_text["Outcomes improved [3]."].section == "Results"
    assert by_text["Older patients did better."].section == "Results > Subgroups"
    assert by_text["Table 1. Doses"].kind == "caption"
    assert by_text["Table 1, Adults: Dose (mg) 20; Weight (kg) 80."].section == \
        "Results > Table 1"
    assert by_text["Figure 1. Flow of patients."].section == "Main text"
    assert document.tables[0].rows == [["Adults", "10", "70"], ["Adults", "20", "80"]]
    assert by_text["x^2"].section == "Results > Subgroups"  # a formula after a whole sentence
    assert not any("Reference text" in text for text in by_text)


def test_a_pdf_without_a_text_layer_or_not_a_pdf() -> None:
    with pytest.raises(InputError, match="not a readable PDF"):
        parse_pdf(b"%PDF-1.4 this is not really a PDF")


@pytest.mark.parametrize(("question", "from_pdf"), [
    ("What is the population structure of crows in an urban population?", False),
    ("How is the Semantic Scholar literature graph constructed?", True),
])
def test_a_review_of_a_library_cites_jats_sections_and_pdf_pages(
        question: str, from_pdf: bool, replay: ReplayServer, tmp_path: Path) -> None:
    library = tmp_path / "lib"
    library.mkdir()
    (library / "crows.nxml").write_bytes(fixture_bytes(OA_NXML))
    (library / "graph.pdf").write_bytes(fixture_bytes(PDF))
    report = review(question, sources=["library"], library=str(library), max_iterations=1,
                    full_text=0)
    cited = [p for p in report.passages if p.id.split("#")[1].startswith("full_text")]
    assert cited and all(p.section not in ("full_text", "abstract") for p in cited)
    assert all((p.page is not None) == from_pdf for p in cited)
    assert "reports_sought" not in report.prisma


def test_works_read_at_once_keep_each_services_pace(tmp_path: Path) -> None:
    """Three arXiv works are sought together: arXiv's limiter (one request every 3 s, scaled
    by ten here) spaces their PDFs, and the server, enforcing that pace, refuses none. The
    server measures gaps on arrival, so it allows 0.1 s of the 0.3 s for a loaded machine
    delaying one request more than the next (CI saw a 429 so); requests sent unpaced arrive
    together and are still refused."""
    works = [Work(title=f"Preprint {n}", arxiv_id=f"2304.0262{n}") for n in range(3)]
    with ReplayServer.default(rate_limits={"arxiv": RateLimit(1, 0.2)}) as server, \
            server.environment(SCHOLARGRAPH_HOME=str(tmp_path / "home"),
                               SCHOLARGRAPH_RATE_SCALE="10"):
        done = FullTextReader(get_settings()).read_all(works, budget=3)
        assert [o.status for o in done.outcomes] == ["not_recorded"] * 3
        assert server.count("arxiv") == 3 and server.violations("arxiv") == 0
        assert all(gap >= 0.2 for gap in server.gaps("arxiv"))


def test_a_copy_larger_than_the_size_cap_is_not_read(cached_replay: ReplayServer) -> None:
    """The PDF answer inflates past the page size cap (32 MiB) once decoded: refused while it
    streams, and counted as 'too large'."""
    cached_replay.inject("web", Fault("oversized", size=33 * 1024 * 1024,
                                      path="/aclanthology.org/N18-3011.pdf"))
    work = Work(title="Literature graph", oa_url=ACL_URL)
    done = FullTextReader(get_settings()).read_all([work], budget=1)
    assert [o.status for o in done.outcomes] == ["too_large"]
    assert done.prisma()["not_retrieved_reasons"] == {"too large": 1}
    assert done.works[0].full_text is None


def test_pdf_ligatures_and_compounds_broken_at_a_line_end_read_as_words() -> None:
    import io as _io

    from pypdf import PdfReader

    data = fixture_bytes(PDF)
    raw = "\n".join(page.extract_text() or "" for page in PdfReader(_io.BytesIO(data)).pages)
    ligatures = re.findall(r"\w*[\ufb00-\ufb06]\w*", raw)
    assert ligatures  # the text layer has them ('ﬁles')
    text = " ".join(block.text for block in parse_pdf(data).blocks)
    assert not re.search(r"[\ufb00-\ufb06]", text)
    assert "files" in text and "MED-LINE" in text  # 'MED-' ends a line in the PDF


def test_a_capitalised_pdf_heading_wrapped_over_two_lines_is_one_section() -> None:
    from scholargraph.fulltext.model import FullTextDocument
    from scholargraph.fulltext.pdf import _read_pages

    page = ("1 INTRODUCTION\nWriters draft reports from sources.\n"
            "2 CHARACTERIZING EXPOSITORY\nWRITING\nExpository writing cites evidence.\n"
            "3 RESULTS\nTABLE 1\nSUMMARIES HELP less than expected.")
    document = FullTextDocument(format="pdf")
    _read_pages([page], document)
    sections = [block.section for block in document.blocks]
    assert sections == ["1 Introduction", "2 Characterizing expository writing", "3 Results"]
    assert document.blocks[1].text == "Expository writing cites evidence."
    assert document.blocks[2].text.startswith("TABLE 1 SUMMARIES HELP")  # text stays text
