"""What a topic review quotes as findings and as the sources' limitations, read by a scientist:
the README's review of the recorded corpus (``--offline``: the whole graph against the replay
server of recorded responses)."""

from __future__ import annotations

import re

import pytest

from scholargraph import review
from scholargraph.deterministic.extractive import advice_only, quotable
from scholargraph.records import Passage
from scholargraph.report import Report

SURVEILLANCE = "machine learning for public health surveillance"


@pytest.fixture(scope="module")
def surveillance() -> Report:
    """The README's review, against the recorded corpus."""
    return review(SURVEILLANCE, offline=True)


def quoted(report: Report, kind: str) -> list[str]:
    """The sentences the review quotes as statements of ``kind``."""
    return [f.text for f in report.findings if f.kind == kind]


def test_a_fields_promise_opening_an_abstract_is_not_a_finding(surveillance: Report) -> None:
    """A book chapter's opening ("... machine learning (ML) ... shows promise for public
    health"), said before the chapter says what it does, is background; a work's closing
    conclusion in the same words ("... demonstrates strong potential for ...", after "we
    examined ...") is still quoted."""
    findings = quoted(surveillance, "finding")
    chapter = next(p for p in surveillance.papers
                   if p.title == "Machine learning and public health")
    assert chapter.abstract and "shows promise for public health" in chapter.abstract
    assert not [text for text in findings if "shows promise" in text]
    assert any(text.startswith("RS-based regionalization demonstrates strong potential")
               for text in findings)


def test_what_a_study_shows_is_not_a_limitation_of_it(surveillance: Report) -> None:
    """"The results of our study ... show that consensus-based inference models mask underlying
    uncertainty" is what the crowdsourcing study found: not quoted among the sources'
    limitations, though "uncertainty" is a limitation word; the question its background leaves
    open ("many questions remain to be explored") is."""
    limitations = quoted(surveillance, "limitation")
    assert not [text for text in limitations if "the results of our study" in text]
    assert any("many questions remain to be explored" in text for text in limitations)


@pytest.mark.parametrize(("sentence", "limitation"), [
    ("A limitation of this study is that we found only 12 cases.", True),
    ("Our sample was small, so the estimates are imprecise.", True),
    ("Our results show a benefit but may not generalise to other settings.", True),
    ("We found that the estimates were subject to selection bias.", False),
    ("The estimates may be subject to selection bias.", True),
    ("Our findings indicate that confounding by indication explains the association.", False),
    ("PARTICIPANTS 4,210 adults, with their prescriptions, outcomes and potential confounders.",
     False),
    ("METHODS The cohort was small, so a limitation of the design is its power.", True),
])
def test_a_limitation_is_read_from_what_the_sentence_says(sentence: str,
                                                          limitation: bool) -> None:
    """Stated limitations count even beside a result; a limitation word that is the subject of
    what the study found does not, nor one naming what a structured abstract's Methods or
    Participants measured ("potential confounders")."""
    passage = Passage(id="w#abstract:0", work_id="w", text=sentence, start=0,
                      end=len(sentence), section="abstract")
    [candidate] = quotable(passage, 2020)
    assert ("limitation" in candidate.facets) is limitation


ADVISES = re.compile(r"\b(should|must|need to|recommend\w*|it is important to|"
                     r"much to learn)\b", re.IGNORECASE)
"""Words by which a reader recognises advice or opinion rather than a result."""


def test_no_finding_only_advises(surveillance: Report) -> None:
    """The review once quoted a commentary's advice ("Additional systematic sources ... may
    need to be incorporated ...") and a comment's opinion ("Clinical and population health
    researchers have much to learn from one another ...") as findings; a finding is what a
    study found or concluded, so no finding advises or judges unless it reports a result."""
    findings = quoted(surveillance, "finding")
    assert findings
    assert not [text for text in findings if ADVISES.search(text)]


def test_a_commentary_is_included_named_and_not_quoted(surveillance: Report) -> None:
    """The COVID-19 infodemic commentary ("In this commentary, we briefly describe ... and
    propose ways ...") reports no study: it stays among the included works, no finding quotes
    it, and the gaps say why."""
    commentary = next(p for p in surveillance.papers
                      if p.title.startswith("Changes in the Scientific Information"))
    by_id = {p.id: p for p in surveillance.passages}
    quoted_works = {by_id[i].work_id for f in surveillance.findings if f.kind == "finding"
                    for i in f.passage_ids}
    assert commentary.id not in quoted_works
    [gap] = [g for g in surveillance.gaps if "commentar" in g]
    assert "Iskander & Bianchi" in gap and "no finding quotes" in gap


@pytest.mark.parametrize(("sentence", "advice"), [
    ("Additional systematic sources may need to be incorporated to monitor media.", True),
    ("Researchers have much to learn from one another regarding the use of machine learning "
     "to improve health outcomes.", True),
    ("We recommend that ambulatory monitoring is offered to every patient.", True),
    ("It is important to consider the quality of the labels.", True),
    ("These findings suggest that clinicians should screen for depression.", False),
    ("Screening reduced mortality by 20% and should be offered to all adults.", False),
    ("The published analyses lacked external validity and should not have been used.", False),
    ("GATA-3 is required for the maintenance of a normal number of stem cells.", False),
    ("We propose that HuR controls translation of a subset of target mRNAs.", False),
])
def test_advice_is_told_from_a_result(sentence: str, advice: bool) -> None:
    """A sentence that only advises or judges is never a finding; advice drawn from the study's
    own result, a result beside advice, a requirement found in the cell and a proposed
    mechanism are."""
    passage = Passage(id="w#abstract:0", work_id="w", text=sentence, start=0,
                      end=len(sentence), section="abstract")
    [candidate] = quotable(passage, 2020)
    assert ("advice" in candidate.facets) is advice
    assert ("advice" in candidate.facets) is advice_only(sentence)


def test_a_sentence_citing_a_flattened_superscript_states_the_cited_work() -> None:
    """A commentary's text with its reference numbers flattened ("... a variety of
    diseases.15 Science Clips ...", "... Johns Hopkins University,5 newer dashboards ...")
    retells the cited works: neither sentence is this work's finding; the sentence after the
    number, which cites nothing, is read as usual."""
    text = ("Public health surveillance systems have proven useful to monitor trends in a "
            "variety of diseases.15 Science Clips, a weekly current literature service, "
            "includes searches from 8 citation databases. Besides the dashboard created at "
            "Johns Hopkins University,5 newer dashboards track seroprevalence studies.")
    passage = Passage(id="w#abstract:0", work_id="w", text=text, start=0, end=len(text),
                      section="abstract")
    facets = {c.quote.text.split()[0]: c.facets for c in quotable(passage, 2021)}
    assert facets["Public"] == {"others"} and facets["Besides"] == {"others"}
    assert "others" not in facets["Science"]
