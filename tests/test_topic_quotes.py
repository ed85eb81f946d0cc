"""What a topic review quotes as findings and as the sources' limitations, read by a scientist:
the README's review of the recorded corpus (``--offline``: the whole graph against the replay
server of recorded responses)."""

from __future__ import annotations

import pytest

from scholargraph import review
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
