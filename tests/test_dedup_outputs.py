"""What deduplication attaches to a work reaches the review: the retrieval node's papers, a
checkpoint, ``review.json``, ``review.md`` and ``review.html`` all name the work's erratum."""

from __future__ import annotations

import json
from pathlib import Path

import lxml.html
import pytest
from langgraph.runtime import Runtime
from markdown_it import MarkdownIt

from scholargraph.agents.retrieval import correction_notice, retrieval
from scholargraph.checkpoints import serializer
from scholargraph.context import ReviewContext
from scholargraph.records import Work
from scholargraph.report import Reference, Report

TITLE = "Ravulizumab for paroxysmal nocturnal haemoglobinuria in children"
JOURNAL = {"year": 2021, "venue": "Blood", "volume": "137"}
AUTHORS = ["Haugen, K.", "Mbeki, T.", "Santos, L."]
NOTICE = "Erratum: DOI 10.1182/blood.2021012345, PMID 33900001"


def records() -> list[Work]:
    """A paper as PubMed gives it (naming its erratum), the same paper from OpenAlex, and the
    erratum, which has a DOI and a PMID of its own."""
    pubmed = Work(title=f"{TITLE}.[Erratum appears in Blood. 2021 Jun 3;137(22):3150]",
                  authors=AUTHORS, pages="1201-1210", issue="9", pmid="33500001",
                  abstract="Twelve children were treated.", sources=["pubmed"], **JOURNAL)
    openalex = Work(title=TITLE, authors=AUTHORS, pages="1201-1210", issue="9",
                    doi="10.1182/blood.2020009999", sources=["openalex"], **JOURNAL)
    erratum = Work(title=f"Correction to: {TITLE}", authors=["Haugen, K."], pages="3150",
                   issue="22", doi="10.1182/blood.2021012345", pmid="33900001",
                   sources=["openalex"], **JOURNAL)
    return [pubmed, erratum, openalex]


def reviewed_paper() -> Work:
    """The one paper the retrieval node keeps from :func:`records`."""
    state = {"records": records(), "papers": [], "active_sources": ["pubmed"], "iteration": 1}
    update = retrieval(state, Runtime(context=ReviewContext()))
    [paper] = update["papers"]
    return paper


def test_the_retrieval_node_keeps_the_notices_dedup_attached() -> None:
    paper = reviewed_paper()
    assert (paper.pmid, paper.doi) == ("33500001", "10.1182/blood.2020009999")
    assert paper.notices == [NOTICE]
    assert paper.credibility is not None


def test_notices_survive_a_checkpoint_and_a_merge() -> None:
    paper = reviewed_paper()
    serde = serializer()
    assert serde.loads_typed(serde.dumps_typed(paper)) == paper
    reply = Work(title=TITLE, notices=["Reply: PMID 33900002"], **JOURNAL)
    assert paper.merge(reply, "fuzzy_title").notices == [NOTICE, "Reply: PMID 33900002"]
    assert reply.merge(paper, "fuzzy_title").notices == ["Reply: PMID 33900002", NOTICE]


def test_review_outputs_show_the_erratum(tmp_path: Path) -> None:
    paper = reviewed_paper()
    report = Report(question="Does ravulizumab help children with PNH?", papers=[paper],
                    references=[Reference(number=1, work_id=paper.id)])
    paths = report.write(tmp_path)

    [stored] = json.loads(paths["review.json"].read_text(encoding="utf-8"))["papers"]
    assert stored["notices"] == [NOTICE]
    assert {"id", "title", "doi", "pmid", "sources"} <= set(stored)

    markdown = MarkdownIt("commonmark").parse(paths["review.md"].read_text(encoding="utf-8"))
    [reference, _listed] = [token.content for token in markdown  # references, included works
                            if token.type == "inline" and TITLE in token.content]
    assert f"[{NOTICE}]" in reference.replace("\\", "")

    page = lxml.html.fromstring(paths["review.html"].read_bytes())
    [item] = page.xpath('//li[@id="ref-1"]')
    assert item.xpath('string(.//small[@class="notices"])') == f"[{NOTICE}]"


def test_a_work_without_notices_shows_none(tmp_path: Path) -> None:
    paper = records()[2]
    report = Report(question="Anything?", papers=[paper],
                    references=[Reference(number=1, work_id=paper.id)])
    paths = report.write(tmp_path)
    assert json.loads(paths["review.json"].read_text())["papers"][0]["notices"] == []
    assert "Erratum" not in paths["review.md"].read_text()
    assert not lxml.html.fromstring(paths["review.html"].read_bytes()).xpath(
        '//small[@class="notices"]')


def test_a_notice_found_without_its_work_is_set_aside_as_a_notice() -> None:
    erratum = Work(title=f"Correction to: {TITLE}", authors=["Haugen, K."], pages="3150",
                   doi="10.1182/blood.2021012345", sources=["openalex"], **JOURNAL)
    retraction = Work(title="Ravulizumab dosing in adults", pmid="33900003",
                      publication_types=["Retraction of Publication"], sources=["pubmed"],
                      **JOURNAL)
    study = Work(title="Errata in haematology trial reports: a survey", pmid="33900004",
                 abstract="One report in five was corrected.", sources=["pubmed"], **JOURNAL)
    state = {"records": [erratum, retraction, study], "papers": [],
             "active_sources": ["pubmed"], "iteration": 1}
    update = retrieval(state, Runtime(context=ReviewContext()))
    assert [paper.title for paper in update["papers"]] == [study.title]
    reasons = {row.title: row.reason for row in update["screening"]}
    assert reasons[erratum.title] == "a notice about another work, not a study: erratum"
    assert reasons[retraction.title] == "a notice about another work, not a study: retraction"


@pytest.mark.parametrize(("title", "kind"), [
    ("Erratum", "erratum"), ("Erratum - Ravulizumab dosing in adults", "erratum"),
    ("Correction to Ravulizumab dosing in adults", "erratum"),
    ("Notice of Retraction: Ravulizumab dosing in adults", "retraction"),
    ("Errata in trials: a survey", None), ("Erratum-prone dosing tables in haematology", None),
    ("Addendum to: Ravulizumab dosing in adults", "erratum"),
    ("RETRACTED: Ravulizumab dosing in adults", None)])
def test_a_notice_is_known_by_a_title_opening_with_its_label_alone(title: str,
                                                                    kind: str | None) -> None:
    assert correction_notice(Work(title=title, sources=["pubmed"])) == kind


def test_a_title_with_the_retraction_label_is_a_retracted_work() -> None:
    assert Work(title="RETRACTED: Ravulizumab cures PNH in a week").is_retracted
    assert Work(title="[Retracted] Ravulizumab cures PNH in a week").is_retracted
    assert not Work(title="Retracted publications in haematology: a bibliometric study"
                    ).is_retracted
    notice = Work(title="Retraction: Ravulizumab cures PNH in a week")
    assert not notice.is_retracted  # the notice, not the retracted work
