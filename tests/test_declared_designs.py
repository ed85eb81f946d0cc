"""Study designs a record's sources declare (PubMed's publication types, OpenAlex's type, a book's
chapter) count in screening against criteria, beside the designs read from title and abstract."""

from __future__ import annotations

import io
import json

from scholargraph import review
from scholargraph.records import Work
from scholargraph.screening.relevance import declared_designs, read_criteria, screening_decisions
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.sources.pubmed import works_from_efetch
from scholargraph.testing import fixture_bytes


def _pubmed(name: str, pmid: str) -> Work:
    return next(w for w in works_from_efetch(io.BytesIO(fixture_bytes(f"pubmed/{name}")))
                if w.pmid == pmid)


def test_sources_declare_publication_types_and_a_merge_keeps_both():
    typed = _pubmed("biopython_pubmed1.xml", "12091962")
    assert typed.publication_types == ["Journal Article", "Review"]
    items = json.loads(fixture_bytes("openalex/peneira_works.json"))
    works = [work_from_openalex(item) for item in items["results"]]
    chapter = next(w for w in works if w.title == "Machine learning and public health")
    assert chapter.publication_types == ["book-chapter"] and chapter.kind == "chapter"
    merged = typed.merge(typed.model_copy(update={"publication_types": ["review"]}), "test")
    assert merged.publication_types == ["Journal Article", "Review", "review"]


def test_a_declared_review_is_excluded_by_criteria_its_title_does_not_reveal():
    typed = _pubmed("biopython_pubmed1.xml", "12091962")  # "The treatment of AIDS behind ..."
    assert declared_designs(typed.publication_types, typed.kind) == ["review"]
    criteria = read_criteria("Inclusion criteria: studies of AIDS treatment in prisons.\n"
                             "Exclusion criteria: reviews.")
    record = [(typed.title, typed.abstract or "")]
    question = "treatment of AIDS in correctional facilities"
    declared, unread = (screening_decisions(question, criteria, record, declared=designs)[0]
                        for designs in ([declared_designs(typed.publication_types)], None))
    assert declared.reason == "design: review; the criteria exclude reviews"
    assert unread.included  # its title and abstract say nothing of its design


def test_criteria_excluding_book_chapters_set_aside_the_chapters_a_search_finds(replay, tmp_path):
    report = review("machine learning for public health", sources=["openalex"],
                    criteria="Exclusion criteria: books and book chapters.", out=tmp_path / "out")
    rows = {row.title: row for row in report.screening}
    chapters = [title for title, row in rows.items() if "book chapter" in (row.reason or "")]
    assert "Machine learning and public health" in chapters
    assert all(rows[title].decision == "excluded" for title in chapters)
    assert all(work.kind not in ("chapter", "book") for work in report.papers)
    assert any(work.kind == "article" for work in report.papers)
