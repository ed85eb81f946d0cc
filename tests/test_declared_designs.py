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


def test_a_record_presenting_another_groups_study_is_a_commentary_to_criteria():
    """A record whose abstract presents another group's study ("... Okafor and colleagues
    present ...", the sentence often carrying the reference it retells, which screening does
    not read) is a commentary: criteria excluding commentaries set it aside, as the review's
    own gaps already name it; a study reporting its own work is kept."""
    question = "machine learning for gout flare prediction"
    criteria = read_criteria("Inclusion criteria: studies of machine learning that predict gout "
                             "flares.\nExclusion criteria: editorials and commentaries.")
    comment = ("Predicting gout flares with machine learning",
               "Gout flares burden patients. In a study published in this issue, Okafor "
               "and colleagues present a machine learning model to predict gout flares.3Okafor "
               "AB Li Y et al.Predicting flares.Lancet. 2022; 4: e1-e9 Crossref Google Scholar "
               "Their work points to new care pathways.")
    study = ("Machine learning predicts gout flares",
             "We trained a machine learning model on 2,000 patients with gout. The model "
             "predicted gout flares with an AUC of 0.81.")
    decisions = screening_decisions(question, criteria, [comment, study])
    assert [d.reason for d in decisions] == [
        "design: editorial; the criteria exclude editorials", None]
    assert [d.reason for d in screening_decisions(question, None, [comment, study])] == [
        None, None]
