"""A record is screened and quoted on what it states: not on its reference list, its licence
notice or the links of the web page it was scraped from (an invented page; the recorded ones are
in tests/test_clean_text.py and tests/test_review_relevance.py)."""

from __future__ import annotations

import pytest

from scholargraph.deterministic.text import (
    licence_notice,
    not_a_statement,
    page_furniture,
    publisher_notice,
)
from scholargraph.rag.chunking import chunk_work, statement_runs, statement_text
from scholargraph.records import Work
from scholargraph.screening.relevance import (
    SCREENED_WORDS_MAX,
    record_text,
    screening_decisions,
)

QUESTION = "What is the prevalence of open access articles?"

BODY = ("Community gardens have spread across European cities over the last decade. "
        "We describe how twelve gardens in Lyon organised their water supply. "
        "Volunteers kept rain barrels and shared a rota for the dry months. ")
LICENCE = ("This is an open access article distributed under the terms of the Creative Commons "
           "Attribution License, which permits unrestricted use, distribution, and reproduction "
           "in any medium, provided the original work is properly cited. ")
FURNITURE = "Full-Text PDF Open Access Search for more papers by this author. "
REFERENCES = ("References1. Martin P, Durand L. Open access articles and their prevalence in "
              "urban ecology. J Urban Ecol. 2019;5(2):12-19. Crossref, Google Scholar")
PAGE = FURNITURE + BODY + LICENCE + REFERENCES
"""An invented commentary as a publisher's landing page gives it: the page's links, the body,
the licence notice, the reference list."""


def test_a_scraped_page_is_read_for_its_statements_alone() -> None:
    text = statement_text(PAGE)
    assert text == BODY.strip()
    runs = statement_runs(PAGE)
    assert all(PAGE[start:end] in BODY for run in runs for start, end in run)


def test_a_scraped_page_is_set_aside_for_a_question_its_licence_and_references_name() -> None:
    """Before, its licence line named "open access article" and its reference list "open access
    articles and their prevalence": the page addressed both concepts in words. Its statements
    name neither; a work on the question, with the same notice, is kept."""
    page = ("Water supply in community gardens: a commentary", PAGE)
    study = ("The prevalence of open access articles in ecology journals",
             "We measured the prevalence of open access articles in 40 ecology journals. "
             "Open access articles made up 31% of those published in 2020. " + LICENCE)
    decisions = screening_decisions(QUESTION, None, [page, study])
    assert decisions[0].reason == "does not address: prevalence; open access articles"
    assert decisions[1].included
    assert "Creative Commons" not in record_text({"title": study[0], "abstract": study[1]})


def test_passages_leave_out_the_licence_and_the_page_links_and_keep_offsets() -> None:
    work = Work(title="Water supply in community gardens", abstract=PAGE)
    passages = chunk_work(work)
    assert passages
    joined = " ".join(p.text for p in passages)
    assert "Volunteers kept rain barrels" in joined
    for banned in ("Creative Commons", "Full-Text PDF", "Martin P", "Google Scholar"):
        assert banned not in joined
    assert all(p.text == PAGE[p.start:p.end] for p in passages)


def test_a_licence_notice_alone_is_no_abstract() -> None:
    """An abstract field holding only the notice is screened as a title without an abstract
    (judged on its title, never excluded for lacking one)."""
    assert record_text({"title": "Open access in ecology", "abstract": LICENCE}) == (
        "Open access in ecology")


def test_screening_reads_an_abstracts_length_of_a_long_page() -> None:
    """A page's far paragraphs are not its abstract: a mention 700 words in is not read."""
    filler = "Gardeners shared tools and seeds with their neighbours every week. " * 70
    late = "Some journals offer open access articles to gardeners."
    text = record_text({"title": "Community gardens", "abstract": filler + late})
    assert late not in text
    assert SCREENED_WORDS_MAX <= len(text.split()) < SCREENED_WORDS_MAX + 20
    short = record_text({"title": "Community gardens", "abstract": late})
    assert late in short


@pytest.mark.parametrize("sentence", [
    "This is an open access article distributed under the terms of the Creative Commons "
    "Attribution License.",
    "This Open Access article is distributed under the terms of the Creative Commons License "
    "(http://creativecommons.org/licenses/by/4.0), which permits unrestricted use.",
    "Open Access This article is licensed under a Creative Commons Attribution 4.0 "
    "International License.",
    "This is an open access article under the CC BY-NC-ND license.",
    "\u00a9 2021 The Authors. Published by Elsevier Ltd.",
    "Copyright 2015 Wiley Periodicals, Inc.",
    "(c) 2010 Elsevier Inc. All rights reserved.",
    "Licensee MDPI, Basel, Switzerland.",
])
def test_licence_and_copyright_notices_are_recognised(sentence: str) -> None:
    assert licence_notice(sentence) and not_a_statement(sentence)


@pytest.mark.parametrize("sentence", [
    "Open access articles received 18% more citations than closed ones.",
    "Of the articles, 40% were distributed under a CC BY licence and 12% under CC BY-NC.",
    "Copyright law shapes how researchers share their preprints.",
    "We compared the prevalence of open access articles across 40 journals.",
    "We searched PubMed, Scopus and Google Scholar for studies published 2010-2020.",
])
def test_statements_about_open_access_and_licences_are_kept(sentence: str) -> None:
    assert not licence_notice(sentence) and not page_furniture(sentence)
    assert not not_a_statement(sentence)


def test_a_copyright_line_after_the_last_sentence_is_cut_off_it() -> None:
    """Abstracts end with their notice run on ("... bone loss. \u00a9 2016 American Society for
    Bone and Mineral Research."): the finding before it is kept, the notice left out."""
    finding = "Senescent garden soils may contribute to lower yields."
    abstract = f"{finding} \u00a9 2016 The Gardening Society. All rights reserved."
    assert statement_text(abstract) == finding
    assert [p.text for p in chunk_work(Work(title="Soils", abstract=abstract))] == [finding]


@pytest.mark.parametrize("sentence", [
    "This article was transferred from the Journal of Urban Ecology to Urban Science.",
    "This paper was accepted by the editors on 3 May 2020.",
    "This manuscript has been peer-reviewed and revised.",
    "This article is part of a special issue on urban gardening.",
    "Handling editor: Paul Martin.",
    "A correction to this article has been published.",
    "This is the accepted manuscript of an article published in Urban Science.",
])
def test_a_publishers_announcement_is_no_statement(sentence: str) -> None:
    """How a paper travelled through a journal was kept as a sentence screening read and a
    review could quote; it says nothing of the work."""
    assert publisher_notice(sentence) and not_a_statement(sentence)


@pytest.mark.parametrize("sentence", [
    "This paper presents twelve gardens and how they shared water.",
    "This study was accepted by the ethics board of the University of Lyon.",
    "Editors of gardening magazines were interviewed about water use.",
    "Accepted practice in Lyon is to share one rota across gardens.",
])
def test_a_works_own_sentence_about_papers_or_editors_is_kept(sentence: str) -> None:
    assert not publisher_notice(sentence) and not not_a_statement(sentence)


def test_a_publishers_announcement_is_neither_screened_nor_quoted() -> None:
    work = Work(title="Water in community gardens", year=2020, abstract=(
        BODY + "This article was transferred from the Journal of Urban Ecology to Urban "
        "Science. Gardens with barrels lost fewer crops in the dry months."))
    assert "transferred" not in statement_text(work.abstract)
    passages = [p.text for p in chunk_work(work)]
    assert not any("transferred" in text for text in passages)
    assert any("Gardens with barrels lost fewer crops" in text for text in passages)
