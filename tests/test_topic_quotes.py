"""What a topic review quotes as findings and as the sources' limitations, read by a scientist:
the README's review of the recorded corpus (``--offline``: the whole graph against the replay
server of recorded responses)."""

from __future__ import annotations

import pytest

from scholargraph import review
from scholargraph.deterministic.extractive import quotable
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
])
def test_a_limitation_is_read_from_what_the_sentence_says(sentence: str,
                                                          limitation: bool) -> None:
    """Stated limitations count even beside a result; a limitation word that is the subject of
    what the study found does not."""
    passage = Passage(id="w#abstract:0", work_id="w", text=sentence, start=0,
                      end=len(sentence), section="abstract")
    [candidate] = quotable(passage, 2020)
    assert ("limitation" in candidate.facets) is limitation
