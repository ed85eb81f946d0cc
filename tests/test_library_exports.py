"""Real exports of other shapes read through the library readers (``--library`` and ``screen``):
RIS from Scopus, Embase, Ovid, EndNote and Web of Science, Web of Science plain text, MEDLINE
``.nbib``, PubMed and EndNote XML, BibTeX without keys or with undefined abbreviations, UTF-16,
semicolon- and tab-separated tables. The files are the projects' own test data, byte for byte
(``scholargraph/testing/fixtures/PROVENANCE_library.md``); expected values are read from the
raw files with their tags, not typed in."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from scholargraph.cli import main
from scholargraph.dedup import deduplicate
from scholargraph.screening.records import read_library
from scholargraph.sources.library import LibraryError, csv_authors, load_library
from scholargraph.sources.pubmed import pubmed_records
from scholargraph.sources.reference_files import parse_xml
from scholargraph.testing import fixture_path


def library(name: str) -> Path:
    return Path(str(fixture_path(f"library/{name}")))


def tag_values(name: str, tag: str) -> list[str]:
    """Every value of a tagged export's ``tag`` ('TY  - ', 'PMID- ', 'TI ')."""
    text = library(name).read_text(encoding="utf-8-sig")
    return [value.strip() for value in re.findall(rf"^{re.escape(tag)}(.*)$", text, re.M)]


def test_scopus_ris_keeps_every_field_and_its_pubmed_ids() -> None:
    works = load_library(library("asreview_scopus.ris"))
    assert len(works) == len(tag_values("asreview_scopus.ris", "TY  - "))
    assert all(w.title and w.abstract and w.authors and w.year and w.doi and w.venue
               for w in works)
    assert {w.pmid for w in works if w.pmid} == set(tag_values("asreview_scopus.ris", "C2  - "))


def test_endnote_ris_of_pubmed_records_saved_as_txt_gives_their_pmids() -> None:
    works = load_library(library("asreview_pubmed_endnote.txt"))
    assert [w.pmid for w in works] == tag_values("asreview_pubmed_endnote.txt", "AN  - ")
    assert all(w.abstract and w.doi for w in works)


@pytest.mark.parametrize("name", ["asreview_embase.ris", "asreview_ovid_psycinfo.ris",
                                  "jabref_RisImporterTest5a.ris"])
def test_t1_titles_n2_abstracts_and_full_journal_names_are_read(name: str) -> None:
    works = load_library(library(name))
    assert [w.title for w in works] == tag_values(name, "T1  - ")
    assert all(w.abstract for w in works)
    journals = tag_values(name, "JF  - ") or tag_values(name, "JO  - ")
    assert [w.venue for w in works][:len(journals)] == journals


def test_an_accession_number_from_another_database_is_not_a_pmid() -> None:
    works = load_library(library("asreview_ovid_psycinfo.ris"))
    assert not any(w.pmid for w in works)


def test_a_doi_given_twice_in_do_and_m3_is_read_once() -> None:
    work, = load_library(library("jabref_RisImporterTest9.ris"))
    assert work.doi == tag_values("jabref_RisImporterTest9.ris", "DO  - ")[0].lower()


def test_a_record_with_only_a_short_title_is_kept_by_it() -> None:
    work, = load_library(library("rispy_example_utf_chars.ris"))
    assert work.title == tag_values("rispy_example_utf_chars.ris", "ST  - ")[0]
    assert "Состояние" in (work.abstract or "")


@pytest.mark.parametrize("name", ["rispy_example_wos.ris", "asreview_web_of_science.txt"])
def test_web_of_science_exports_are_read_whatever_their_format_or_suffix(name: str) -> None:
    works = load_library(library(name))
    assert works and all(w.title and w.abstract and w.doi and w.year and w.authors
                         for w in works)


def test_web_of_science_plain_text_gives_full_names_sources_and_pmids() -> None:
    works = load_library(library("rispy_example_wos.ris"))
    assert [w.pmid for w in works] == tag_values("rispy_example_wos.ris", "PM ")
    assert [w.venue for w in works] == tag_values("rispy_example_wos.ris", "SO ")
    assert [w.authors[0] for w in works] == tag_values("rispy_example_wos.ris", "AF ")


@pytest.mark.parametrize("name", ["jabref_NbibImporterTest.nbib", "biopython_pubmed_result2.txt"])
def test_medline_exports_are_read(name: str) -> None:
    works = load_library(library(name))
    assert [w.pmid for w in works] == tag_values(name, "PMID- ")
    assert all(w.title and w.year and w.venue and w.authors for w in works)
    assert any(w.doi for w in works) and all(w.publication_types for w in works)


def test_a_saved_pubmed_book_record_is_read_as_a_book(caplog) -> None:
    with caplog.at_level(logging.WARNING):
        work, = load_library(library("jabref_MedlineImporterTestPubmedBook.xml"))
    assert "left out" not in caplog.text
    assert work.kind == "book" and work.pmid and work.abstract
    assert work.publication_types and work.sources == ["library"]


def test_a_pubmed_record_without_its_citation_is_left_out_and_the_others_kept(caplog) -> None:
    broken = library("jabref_MedlineImporterTestMinimalEntry.xml").read_bytes()
    good = Path(str(fixture_path("pubmed/biopython_pubmed2.xml"))).read_bytes()
    good_root, broken_root = parse_xml(good), parse_xml(broken)
    assert good_root is not None and broken_root is not None
    broken_record = broken_root if broken_root.tag == "PubmedArticle" else broken_root[0]
    assert broken_record.find("MedlineCitation") is None
    good_root.insert(1, broken_record)
    with caplog.at_level(logging.WARNING):
        works = pubmed_records(good_root)
    assert len(works) == len(good_root) - 1 and "left out" in caplog.text


@pytest.mark.parametrize("name", ["jabref_EndnoteXmlImporterTestArticle.xml",
                                  "jabref_EndnoteXmlImporterTestArticle2.xml"])
def test_endnote_xml_is_read(name: str) -> None:
    works = load_library(library(name))
    text = library(name).read_text()
    assert len(works) == text.count("<record>")
    assert all(w.title and w.authors and w.year and w.venue for w in works)
    if "<electronic-resource-num>" in text:
        assert works[0].doi and works[0].doi in text.lower()


def test_endnote_xml_books_and_sections_keep_their_kind() -> None:
    works = load_library(library("jabref_EndnoteXmlImporterTestArticle2.xml"))
    names = re.findall(r'<ref-type name="([^"]+)"', library(
        "jabref_EndnoteXmlImporterTestArticle2.xml").read_text())
    kinds = {"Journal Article": "article", "Book": "book", "Book Section": "chapter"}
    assert [w.kind for w in works] == [kinds[name] for name in names]


def test_a_bibtex_entry_without_a_key_is_read() -> None:
    work, = load_library(library("jabref_RisImporterTest6.bib"))
    assert work.title.startswith("Chelation") and work.doi and work.pmcid


def test_undefined_string_abbreviations_do_not_lose_the_file() -> None:
    works = load_library(library("jabref_BibtexImporter.examples.bib"))
    titled = re.findall(r"^\s*title\s*=", library("jabref_BibtexImporter.examples.bib")
                        .read_text(), re.M)
    assert len(works) == len(titled) and all(w.authors and w.year for w in works)


def test_utf16_with_mac_line_ends_is_read() -> None:
    work, = load_library(library("jabref_encoding-utf-16BE-with-header.bib"))
    assert work.title == "Ü ist ein Umlaut"


@pytest.mark.parametrize("name", ["asreview_generic_semicolon.csv", "asreview_generic_tab.tsv"])
def test_semicolon_and_tab_separated_tables_are_read_by_review_and_screen(name: str) -> None:
    works = load_library(library(name), with_csv=True)
    records = read_library(library(name))
    assert [w.title for w in works] == [r.work.title for r in records]
    assert works and all(w.abstract and w.year and len(w.authors) > 1 for w in works)
    assert not any("[" in author or "'" in author for w in works for author in w.authors)


def test_embase_table_names_and_years_are_read() -> None:
    works = load_library(library("asreview_embase.csv"), with_csv=True)
    assert all(w.year and len(w.authors) >= 1 for w in works)
    assert works[0].authors == ["Liu R.", "Adler D.G."]


@pytest.mark.parametrize(("cell", "names"), [
    ("Rossi, Marco; Bianchi, Lia", ["Rossi, Marco", "Bianchi, Lia"]),
    ("Liu R., Adler D.G.", ["Liu R.", "Adler D.G."]),
    ("Rossi, Marco", ["Rossi, Marco"]),
])
def test_table_author_cells(cell: str, names: list[str]) -> None:
    assert csv_authors(cell) == names


def test_a_folder_passes_over_text_files_that_are_not_exports(tmp_path: Path) -> None:
    (tmp_path / "README.txt").write_text("Search of 2024-01-05, run by A. Rossi.\n")
    (tmp_path / "pubmed.nbib").write_bytes(library("jabref_NbibImporterTest.nbib").read_bytes())
    assert [w.pmid for w in load_library(tmp_path)] == \
        tag_values("jabref_NbibImporterTest.nbib", "PMID- ")
    with pytest.raises(LibraryError, match="RIS, MEDLINE"):
        load_library(tmp_path / "README.txt")


def test_an_xml_of_another_kind_is_refused_naming_what_it_is(tmp_path: Path) -> None:
    other = tmp_path / "mods.xml"
    other.write_text('<modsCollection xmlns="http://www.loc.gov/mods/v3"><mods/></modsCollection>')
    with pytest.raises(LibraryError, match="modsCollection"):
        load_library(other)


def test_a_pmc_articleset_gives_every_article(tmp_path: Path) -> None:
    articles = [re.sub(rb"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>", b"", library(name).read_bytes())
                for name in ("pubmed_parser_pone.0046493.nxml", "pubmed_parser_pntd.0002065.nxml")]
    both = tmp_path / "efetch_pmc.xml"
    both.write_bytes(b"<pmc-articleset>" + b"".join(articles) + b"</pmc-articleset>")
    works = load_library(both)
    assert {w.doi for w in works} == {"10.1371/journal.pone.0046493",
                                      "10.1371/journal.pntd.0002065"}
    assert all(w.full_text and w.full_text_spans for w in works)


@pytest.mark.parametrize("name", ["asreview_pubmed_endnote.txt", "jabref_NbibImporterTest.nbib",
                                  "asreview_generic_semicolon.csv"])
def test_review_offline_reads_an_export_whole(name: str, tmp_path: Path, capsys) -> None:
    code = main(["review", "what helps", "--library", str(library(name)), "--sources",
                 "library", "--offline", "--quiet", "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err


def test_declarations_in_a_jats_body_are_not_read_as_evidence() -> None:
    name = "pubmed_parser_1471-2180-11-174.nxml"
    raw = library(name).read_text()
    declared = re.findall(r"<sec[^>]*>\s*<title>(Competing interests|Authors' contributions)",
                          raw)
    assert declared  # the article has them in its body
    work, = load_library(library(name))
    sections = {span.section.split(" > ")[0] for span in work.full_text_spans}
    assert not sections & set(declared) and "Acknowledgements" not in sections
    assert {"Background", "Methods", "Results", "Discussion"} <= sections


def test_a_password_protected_pdf_is_refused_saying_so(tmp_path: Path, capsys) -> None:
    with pytest.raises(LibraryError, match="password-protected"):
        load_library(library("jabref_encrypted.pdf"))
    code = main(["review", "Does exercise help?", "--library", str(library("jabref_encrypted.pdf")),
                 "--sources", "library", "--offline", "--quiet", "--out", str(tmp_path / "o")])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "password-protected" in lines[0]


def test_a_title_a_program_wrote_into_a_pdf_is_not_taken_for_the_papers(tmp_path: Path) -> None:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    writer.add_metadata({"/Title": "Microsoft Word - draft_v3_final.docx"})
    path = tmp_path / "Rossi2019.pdf"
    with path.open("wb") as out:
        writer.write(out)
    work, = load_library(path)
    assert work.title == "Rossi2019"


def test_two_exports_of_one_search_in_a_folder_are_deduplicated(tmp_path: Path) -> None:
    for name in ("asreview_embase.ris", "asreview_embase.csv"):
        (tmp_path / name).write_bytes(library(name).read_bytes())
    records = load_library(tmp_path, with_csv=True)
    merged = deduplicate(records).works
    from_ris = load_library(library("asreview_embase.ris"))
    assert len(records) == 2 * len(from_ris) and len(merged) == len(from_ris)
    assert {w.doi for w in merged} == {w.doi for w in from_ris}



def test_the_duplicates_of_one_export_file_are_deduplicated(tmp_path: Path) -> None:
    """One export holding every database's hits for a search, duplicates and all, as reference
    managers export them: the records of one work join without a shared identifier, and two
    trials whose titles differ by their number stay apart."""
    def entry(title: str, journal: str, database: str, pages: str = "23") -> str:
        return (f"TY  - JOUR\nTI  - {title}\nAU  - Zuber, J.\nAU  - Le Quintrec, M.\n"
                f"PY  - 2011\nJO  - {journal}\nVL  - 7\nSP  - {pages}\n"
                f"DB  - {database}\nER  - \n")
    title = "New insights into postrenal transplant hemolytic uremic syndrome"
    export = tmp_path / "search.ris"
    export.write_text(entry(title, "Nat Rev Nephrol", "MEDLINE")
                      + entry(title + ".", "Nature Reviews Nephrology", "Embase")
                      + entry("Eculizumab in the FOCUS 1 trial", "Blood", "MEDLINE")
                      + entry("Eculizumab in the FOCUS 2 trial", "Blood", "Embase", "140"),
                      encoding="utf-8")
    records = load_library(export)
    assert len(records) == 4 and all(record.sources == ["library"] for record in records)
    merged = deduplicate(records)
    assert merged.duplicates_removed == 1
    assert sorted(group for group in merged.groups if len(group) > 1) == [[0, 1]]


def test_a_tab_delimited_table_saved_as_txt_is_read_as_a_table(tmp_path: Path) -> None:
    saved = tmp_path / "savedrecs.txt"
    saved.write_bytes(library("asreview_generic_tab.tsv").read_bytes())
    assert [w.title for w in load_library(saved)] == \
        [w.title for w in load_library(library("asreview_generic_tab.tsv"), with_csv=True)]


def test_a_crossref_work_saved_as_json_is_read_with_its_list_titles(tmp_path: Path) -> None:
    recorded = json.loads(Path(str(fixture_path("crossref/paperqa_doi_search.work.json")))
                          .read_text())["message"]
    saved = tmp_path / "crossref.json"
    saved.write_text(json.dumps([recorded]))
    work, = load_library(saved)
    assert work.title == recorded["title"][0] and work.venue == recorded["container-title"][0]
    assert work.year == recorded["issued"]["date-parts"][0][0]
    assert work.doi == recorded["DOI"].lower() and work.pages == recorded["page"]
    first = recorded["author"][0]
    assert work.authors[0] == f"{first['family']}, {first['given']}"


def test_excels_separator_line_is_read_not_taken_for_the_header(tmp_path: Path) -> None:
    table = tmp_path / "excel.csv"
    table.write_text("sep=;\n" + library("asreview_generic_semicolon.csv").read_text())
    assert [w.title for w in load_library(table, with_csv=True)] == \
        [w.title for w in load_library(library("asreview_generic_semicolon.csv"), with_csv=True)]


def test_collective_authors_are_kept_in_medline_and_pubmed_xml() -> None:
    nbib, = load_library(library("jabref_NbibImporterTest.nbib"))
    assert tag_values("jabref_NbibImporterTest.nbib", "CN  - ")[0] in nbib.authors
    xml = Path(str(fixture_path("pubmed/biopython_pubmed7.xml")))
    group = re.findall(r"<CollectiveName>([^<]+)<", xml.read_text())
    work, = load_library(xml)
    assert group and group[0] in work.authors and work.sources == ["library"]
