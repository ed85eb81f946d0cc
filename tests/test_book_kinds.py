"""Books and book chapters are labelled and exported as what they are, not as journal articles.

The README's review ('machine learning for public health surveillance', offline, over the
recorded OpenAlex, PubMed and arXiv answers) includes Grote & Broadbent's chapter 'Machine
learning and public health' (OpenAlex type 'book-chapter', venue 'Routledge eBooks'); before,
it was a 'peer-reviewed article · journal article', @article, JOUR and article-journal. That
chapter discusses issues and no finding quotes it now, so these tests read the review of
'machine learning in healthcare', which cites the recorded IGI chapter 'Machine Learning in
Healthcare' (OpenAlex type 'book-chapter', venue 'Advances in human and social aspects of
technology book series').
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from scholargraph.cli import main
from scholargraph.deterministic.credibility import source_type
from scholargraph.exports.citation import entry_kind
from scholargraph.records import Work
from scholargraph.sources.library import load_library
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.sources.pubmed import works_from_efetch
from scholargraph.testing import fixture_bytes

QUESTION = "machine learning in healthcare"
CHAPTER = "Machine Learning in Healthcare"
BOOK = "Advances in human and social aspects of technology book series"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("review") / "out"
    assert main(["review", QUESTION, "--offline", "--out", str(out)]) == 0
    return out


def _entry(text: str, marker: str, title: str) -> str:
    """The one exported entry (split at ``marker``) holding ``title``."""
    entries = [part for part in re.split(marker, text) if title in part]
    assert len(entries) == 1, entries
    return entries[0]


def test_a_reviews_chapter_is_labelled_a_chapter_in_the_review(written: Path) -> None:
    line, = (line for line in (written / "review.md").read_text().splitlines()
             if CHAPTER + "." in line and "Kushwaha" in line)
    assert f"In *{BOOK}*." in line
    assert "book or chapter" in line and "book chapter: reviewed by its editors" in line
    assert "journal article" not in line and "peer-reviewed" not in line
    html = (written / "review.html").read_text()
    assert "book chapter: reviewed by its editors" in html


def test_the_chapter_is_exported_as_a_chapter_and_a_journal_article_stays_one(
        written: Path) -> None:
    bib = _entry((written / "references.bib").read_text(), r"\n(?=@)", CHAPTER)
    assert bib.startswith("@incollection{") and f"booktitle = {{{BOOK}}}" in bib
    assert "journal =" not in bib
    ris = (written / "references.ris").read_text()
    chapter = _entry(ris, r"\nER  - ", CHAPTER)
    assert "TY  - CHAP" in chapter and f"T2  - {BOOK}" in chapter
    journals = [record for record in re.split(r"\nER  - ", ris) if "\nJO  - " in record]
    assert journals and all("TY  - JOUR" in record for record in journals)
    items = json.loads((written / "references.csl.json").read_text())
    by_title = {item["title"]: item for item in items}
    assert by_title[CHAPTER]["type"] == "chapter"
    assert by_title[CHAPTER]["container-title"] == BOOK
    assert any(item["type"] == "article-journal" for item in items)


@pytest.mark.parametrize("name", ["references.bib", "references.ris", "references.csl.json"])
def test_the_exports_read_back_as_the_same_kinds(written: Path, name: str) -> None:
    """A chapter exported, then read as a library, is a chapter again (and an article an
    article), so a review run on its own references labels them the same way."""
    works = {work.title: work for work in load_library(written / name)}
    chapter = works[CHAPTER]
    assert chapter.kind == "chapter" and chapter.venue == BOOK
    assert entry_kind(chapter) == "chapter" and source_type(chapter) == "book"
    review = json.loads((written / "review.json").read_text())
    journal = [paper["title"] for paper in review["papers"] if paper["kind"] == "article"
               and paper.get("venue") and paper["title"] in works]
    assert journal and all(entry_kind(works[title]) == "journal" for title in journal)


def test_openalex_types_say_which_works_are_chapters() -> None:
    records = json.loads(fixture_bytes("openalex/peneira_works.json"))
    items = records["results"] if isinstance(records, dict) else records
    kinds = {(item["type"], work_from_openalex(item).kind) for item in items}
    assert ("book-chapter", "chapter") in kinds
    assert {kind for openalex_type, kind in kinds if openalex_type == "book-chapter"} == {"chapter"}
    assert {kind for openalex_type, kind in kinds if openalex_type == "review"} == {"article"}


BOOKSHELF = b"""<?xml version="1.0"?>
<PubmedArticleSet>
<PubmedBookArticle><BookDocument>
  <PMID Version="1">1001</PMID>
  <ArticleIdList><ArticleId IdType="bookaccession">NBK1116</ArticleId></ArticleIdList>
  <Book><Publisher><PublisherName>University of Washington, Seattle</PublisherName>
  </Publisher><BookTitle book="gene">GeneReviews&#xae;</BookTitle>
  <PubDate><Year>1993</Year></PubDate></Book>
</BookDocument></PubmedBookArticle>
<PubmedBookArticle><BookDocument>
  <PMID Version="1">1002</PMID>
  <ArticleIdList><ArticleId IdType="bookaccession">NBK1247</ArticleId></ArticleIdList>
  <Book><Publisher><PublisherName>University of Washington, Seattle</PublisherName>
  </Publisher><BookTitle book="gene">GeneReviews&#xae;</BookTitle>
  <PubDate><Year>1993</Year></PubDate></Book>
  <ArticleTitle book="gene" part="hfe">HFE Hemochromatosis</ArticleTitle>
  <AuthorList Type="authors"><Author><LastName>Barton</LastName><ForeName>James C</ForeName>
  <Initials>JC</Initials></Author></AuthorList>
</BookDocument></PubmedBookArticle>
</PubmedArticleSet>"""
"""Two NCBI Bookshelf records in efetch's PubmedBookArticle shape (NLM's pubmed DTD), written
here (no book record is among the recorded PubMed answers; the PMIDs are placeholders): a whole
book, without a chapter title, and a chapter of it."""


def test_pubmed_bookshelf_records_are_a_book_and_a_chapter_not_web_pages() -> None:
    book, chapter = works_from_efetch(io.BytesIO(BOOKSHELF))
    assert (book.kind, book.title, book.venue) == (
        "book", "GeneReviews\u00ae", "University of Washington, Seattle")
    assert (chapter.kind, chapter.title, chapter.venue) == (
        "chapter", "HFE Hemochromatosis", "GeneReviews\u00ae")
    for work in (book, chapter):
        assert source_type(work) == "book", work.title
    assert entry_kind(chapter) == "chapter" and entry_kind(book) == "book"


def test_a_book_keeps_matching_its_venue_for_deduplication() -> None:
    """Dedup compared the venue of an 'other' (PubMed book) and of an OpenAlex chapter typed
    'article'; books and chapters keep that comparison."""
    from scholargraph.dedup.keys import record_keys

    for kind in ("chapter", "book", "article", "other"):
        work = Work(title="A title long enough to key on", venue="GeneReviews", kind=kind)
        assert record_keys(work).venue, kind


def test_a_pubmed_book_and_chapter_round_trip_through_every_export(tmp_path: Path) -> None:
    from scholargraph.exports import bibtex, csljson, ris

    works = works_from_efetch(io.BytesIO(BOOKSHELF))
    (tmp_path / "refs.bib").write_text(bibtex.dumps(works), encoding="utf-8")
    (tmp_path / "refs.ris").write_text(ris.dumps(works), encoding="utf-8")
    (tmp_path / "refs.json").write_text(json.dumps(csljson.to_csl(works)), encoding="utf-8")
    assert "@book{" in (tmp_path / "refs.bib").read_text()
    assert "TY  - BOOK" in (tmp_path / "refs.ris").read_text()
    for name in ("refs.bib", "refs.ris", "refs.json"):
        read = {work.title: work for work in load_library(tmp_path / name)}
        assert [(read[w.title].kind, read[w.title].venue) for w in works] == [
            (w.kind, w.venue) for w in works], name
