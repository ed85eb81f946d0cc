"""The local library source: records read from BibTeX, RIS, CSL-JSON, JSONL and PDF files,
registered before PubMed, and read whole in a review when ``--library`` is given (a script asking
the agent a query gets the records naming its words)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from scholargraph import review
from scholargraph.agents.schemas import Intent
from scholargraph.cli import main
from scholargraph.errors import ConfigurationError
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.library import LibraryAgent, LibraryError, load_library, match
from scholargraph.sources.registry import source_names
from scholargraph.testing.documents import text_pdf

BIBTEX = r"""
@article{mueller2019,
  author = {M{\"u}ller, J{\"u}rgen and Smith, Ann},
  title = {Polygenic {Risk} Scores for Breast Cancer Screening \& Prevention},
  journal = {Genetics in Medicine},
  year = {2019},
  doi = {10.1000/PRS.2019},
  abstract = {Polygenic risk scores improved the selection of women for screening.},
}
@misc{lee2021,
  author = {Lee, Bo},
  title = {Genetic variants and screening uptake},
  year = {2021},
  eprint = {2101.00001},
  archivePrefix = {arXiv},
}
"""
RIS = """TY  - JOUR
AU  - Garcia, Ana
TI  - Screening for hereditary cancer genetic variants in primary care
JO  - Family Practice
PY  - 2016///
DO  - 10.1000/ris.2016
AB  - Genetic variants were found in 4% of screened adults.
N1  - PMID: 11111111
ER  - 
"""
CSL = [{"id": "k", "type": "article-journal", "title": "Newborn genomic screening outcomes",
        "author": [{"family": "Kim", "given": "Dae"}], "issued": {"date-parts": [[2023]]},
        "container-title": "Pediatrics", "DOI": "10.1000/csl.2023",
        "abstract": "Genomic screening of newborns found actionable genetic variants."}]
JSONL = [
    {"title": "Cascade testing after genetic variants are found", "authors": ["Ito, Ken"],
     "year": 2020, "doi": "10.1000/jsonl.2020", "abstract": "Relatives were offered screening."},
    {"type": "article", "title": "A preprint on variant screening", "issued":
     {"date-parts": [[2024]]}, "author": [{"literal": "Consortium X"}],
     "number": "arXiv:2401.00002"},
]





@pytest.fixture
def library(tmp_path: Path) -> Path:
    folder = tmp_path / "library"
    (folder / "sub").mkdir(parents=True)
    (folder / "refs.bib").write_text(BIBTEX, encoding="utf-8")
    (folder / "refs.ris").write_text(RIS, encoding="utf-8")
    (folder / "zotero.json").write_text(json.dumps(CSL), encoding="utf-8")
    (folder / "sub" / "more.jsonl").write_text("\n".join(json.dumps(r) for r in JSONL) + "\n",
                                               encoding="utf-8")
    (folder / "sub" / "paper.pdf").write_bytes(text_pdf([[
        "Exome screening in adults", "doi: 10.1000/pdf.2022", "Abstract",
        "Population exome screening found pathogenic genetic variants in 2% of adults.",
        "1 Introduction", "Screening programmes are expanding."]], "Exome screening in adults",
        "/Author (Rossi, Marco; Bianchi, Lia) /CreationDate (D:20220301120000Z) "))
    (folder / "notes.txt").write_text("not a library file", encoding="utf-8")
    return folder


def by_title(works, start: str):
    (found,) = [w for w in works if w.title.startswith(start)]
    return found


def test_every_format_is_read_with_its_identifiers(library):
    works = load_library(library)
    assert len(works) == 7 and all(w.sources == ["library"] for w in works)
    bib = by_title(works, "Polygenic")
    assert bib.title == "Polygenic Risk Scores for Breast Cancer Screening & Prevention"
    assert bib.authors == ["Müller, Jürgen", "Smith, Ann"] and bib.doi == "10.1000/prs.2019"
    assert (bib.year, bib.venue, bib.kind) == (2019, "Genetics in Medicine", "article")
    preprint = by_title(works, "Genetic variants and screening uptake")
    assert (preprint.arxiv_id, preprint.kind) == ("2101.00001", "preprint")
    ris = by_title(works, "Screening for hereditary")
    assert (ris.year, ris.pmid, ris.doi, ris.venue) == (2016, "11111111", "10.1000/ris.2016",
                                                        "Family Practice")
    csl = by_title(works, "Newborn")
    assert (csl.authors, csl.year, csl.doi) == (["Kim, Dae"], 2023, "10.1000/csl.2023")
    assert by_title(works, "Cascade").authors == ["Ito, Ken"]
    consortium = by_title(works, "A preprint")
    assert (consortium.arxiv_id, consortium.kind, consortium.authors) == (
        "2401.00002", "preprint", ["Consortium X"])
    pdf = by_title(works, "Exome screening")
    assert pdf.authors == ["Rossi, Marco", "Bianchi, Lia"] and pdf.year == 2022
    assert pdf.doi == "10.1000/pdf.2022"
    assert pdf.abstract.startswith("Population exome screening found pathogenic")
    assert "Introduction" not in pdf.abstract and "expanding" in pdf.full_text


def test_a_query_is_answered_by_relevance_records_naming_more_terms_first(library):
    works = load_library(library)
    titles = [w.title for w in match(works, '"genetic variants" screening')]
    both = {"Genetic variants and screening uptake",
            "Screening for hereditary cancer genetic variants in primary care",
            "Newborn genomic screening outcomes",
            "Cascade testing after genetic variants are found", "Exome screening in adults"}
    assert set(titles[:len(both)]) == both
    # both terms in its title and again in its abstract: the best BM25 score
    assert titles[0] == "Screening for hereditary cancer genetic variants in primary care"
    # a record naming one of the terms answers too, after those naming both
    assert "Polygenic Risk Scores for Breast Cancer Screening & Prevention" in titles[len(both):]
    assert match(works, '"variants genetic"') == []  # a phrase is matched as written
    assert [w.title for w in match(works, "polygenic screen")][0] == (
        "Polygenic Risk Scores for Breast Cancer Screening & Prevention")


def test_the_agent_filters_years_and_limits(library):
    agent = LibraryAgent(path=library)
    result = agent.search(SearchRequest(query="screening", since=2020, limit=2))
    assert len(result.works) == 2 and all(w.year >= 2020 for w in result.works)
    assert agent.build_query(["genetic variants", "screening"], Intent(
        kind="factual", domains=["general"], keywords=[])) == '"genetic variants" screening'


def test_the_library_is_first_and_active_only_when_given(library, monkeypatch):
    monkeypatch.delenv("SCHOLARGRAPH_LIBRARY", raising=False)
    assert source_names()[0] == "library" and LibraryAgent.order < 10
    intent = Intent(kind="factual", domains=["physics"], keywords=["x"])
    assert not LibraryAgent().is_relevant(intent)
    assert "no library given" in LibraryAgent().unavailable_reason()
    monkeypatch.setenv("SCHOLARGRAPH_LIBRARY", str(library))
    assert LibraryAgent().is_relevant(intent) and LibraryAgent().unavailable_reason() is None
    assert "does not exist" in LibraryAgent(path=library / "gone").unavailable_reason()


def test_a_broken_file_is_an_error_that_names_it(tmp_path):
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"title": "ok"}\n{not json}\n', encoding="utf-8")
    with pytest.raises(LibraryError, match=r"broken.jsonl:2: not valid JSON"):
        load_library(broken)
    assert issubclass(LibraryError, ConfigurationError)


def test_a_review_searches_the_library_first(replay, library, tmp_path):
    report = review("What is known about genetic variants and screening?",
                    sources=["pubmed", "openalex"], library=str(library), out=tmp_path / "out")
    assert report.sources_searched[0] == "library"
    assert report.search_log[0].source == "library" and report.search_log[0].n_results > 0
    assert report.prisma["identified"]["library"] > 0
    from_library = [p for p in report.papers if "library" in p.sources]
    assert "Screening for hereditary cancer genetic variants in primary care" in {
        p.title for p in from_library}
    # found without an abstract: judged on its title, which is on the question, and kept
    assert "Genetic variants and screening uptake" in {p.title for p in report.papers}
    assert "no title and abstract to assess" not in report.prisma["excluded_reasons"]
    cited = {report.work(ref.work_id).id for ref in report.references}
    assert cited & {p.id for p in from_library}


@pytest.mark.parametrize("args, reason", [
    (["--library", "/nonexistent/refs.bib"], "does not exist"),
    (["--style", "ieeee"], "did you mean ieee"),
])
def test_bad_library_or_style_is_bad_input(args, reason, capsys, tmp_path):
    code = main(["review", "genetic screening?", "--out", str(tmp_path / "o"), *args])
    assert code == 2 and reason in capsys.readouterr().err


RIS_RECORD = ("TY  - JOUR\nTI  - Caf\u00e9 workers and shift work: a cohort\n"
              "AU  - M\u00fcller, Anna\nPY  - 2019\nER  - \n")


def run_cli_with_library(capsys: pytest.CaptureFixture[str], library: Path,
                         out: Path) -> tuple[int, list[str]]:
    code = main(["review", "shift work and health", "--library", str(library), "--sources",
                 "library", "--out", str(out), "--quiet"])
    return code, capsys.readouterr().err.strip().splitlines()


def test_a_windows_1252_export_is_read_with_a_warning(tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    library = tmp_path / "old-endnote.ris"
    library.write_bytes(RIS_RECORD.encode("cp1252"))
    works = load_library(library)
    assert [w.title for w in works] == ["Caf\u00e9 workers and shift work: a cohort"]
    assert works[0].authors == ["M\u00fcller, Anna"]
    assert any("not UTF-8" in record.getMessage() for record in caplog.records)


def test_records_without_a_title_are_left_out_and_counted(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    library = tmp_path / "export.jsonl"
    records = [{"title": "Shift work and sleep: a cohort", "abstract": "Nurses slept less."},
               {"title": "  ", "abstract": "A record whose title was lost in the export."},
               {"abstract": "Another record with no title field at all."}]
    library.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="scholargraph.sources.library"):
        works = load_library(library)
    assert [w.title for w in works] == ["Shift work and sleep: a cohort"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(str(library) in m and "2 record(s) without a title" in m for m in warnings), warnings


@pytest.mark.parametrize("name, content, reason", [
    ("broken.ris", b"TY  - JOUR\nTI  - \x81\x8d\x8f\x90\xff\xfe\nER  - \n", "nor Windows-1252"),
    ("notes.bib", b"these are my notes, not BibTeX\n", "is it really a BibTeX file"),
    ("records.jsonl", b'{"title": "A"}\n{"title": \n', "records.jsonl:2: not valid JSON"),
])
def test_an_unreadable_library_file_is_bad_input_named_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes,
        reason: str) -> None:
    library = tmp_path / name
    library.write_bytes(content)
    code, lines = run_cli_with_library(capsys, library, tmp_path / "out")
    assert code == 2
    assert len(lines) == 1 and str(library) in lines[0] and reason in lines[0], lines
    assert not (tmp_path / "out" / "review.json").exists()


def test_bibtex_values_with_and_without_latex(tmp_path: Path) -> None:
    """A value with LaTeX in it is converted (an accent, an escaped ampersand, a dash ligature);
    one without is read as it is, spaces collapsed, as the converter would give it, without
    running it (the converter took most of a 3,000-entry export's reading time)."""
    from pylatexenc.latex2text import LatexNodes2Text

    plain = "Zinc  therapy in Wilson disease:\n a cohort of 41 patients (2001 to 2019)"
    path = tmp_path / "refs.bib"
    path.write_text("@article{a,\n  title = {" + plain + "},\n  abstract = {Caf{\\'e} \\& "
                    "copper, 1990--2000},\n}\n")
    work, = load_library(path)
    assert work.title == " ".join(LatexNodes2Text().latex_to_text(plain).split())
    assert work.title == "Zinc therapy in Wilson disease: a cohort of 41 patients (2001 to 2019)"
    assert work.abstract == "Café & copper, 1990–2000"


def test_bibtex_text_symbols_keep_a_results_bounds(tmp_path: Path) -> None:
    """Zotero exports "<" and ">" in a BibTeX abstract as {\\textless} and {\\textgreater};
    the converter alone dropped them, and "P < 0.001" was read "P 0.001", the bound lost from
    the sentence a finding quotes."""
    path = tmp_path / "zotero.bib"
    path.write_text("@article{a,\n  title = {Knee pain {\\textgreater}6 months},\n"
                    "  abstract = {Pain fell (P {\\textless} 0.001) in both arms "
                    "{\\textbar} 40{\\%} of patients; dose {\\textperiodcentered} day.},\n}\n")
    work, = load_library(path)
    assert work.title == "Knee pain >6 months"
    assert work.abstract == ("Pain fell (P < 0.001) in both arms | 40% of patients; "
                             "dose \u00b7 day.")
