"""OpenAlex enrichment and citation snowballing, over real HTTP against the recorded OpenAlex works.

The recorded pool has no retracted work and no citation between two of its works. Where a test
needs one, it adds a Work object built here from a recorded one (``_handmade``), and says so.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from scholargraph import review
from scholargraph.agents.schemas import Finding
from scholargraph.records import Passage, Work
from scholargraph.report import Reference, Report
from scholargraph.sources.enrich import (
    OR_LIMIT,
    augment_with_openalex,
    enrich_with_openalex,
    is_lookup,
    snowball_citations,
)
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.testing import Fault, ReplayServer, fixture_bytes
from scholargraph.testing.services.openalex import OpenAlexService

STATE_OF_OA = json.loads(fixture_bytes("openalex/openalex-python_W2741809807.json"))
CHEMCROW_DOI = "10.1038/s42256-024-00832-8"


def _handmade(new_id: str, doi: str, **changes: object) -> dict:
    """A Work object made from the recorded W2741809807 with a new id, DOI and abstract (not a
    recording: the shape is OpenAlex's, the content is made up)."""
    work = copy.deepcopy(STATE_OF_OA)
    abstract = "Hand-made test record that cites one recorded work and says nothing else."
    work.update(id=f"https://openalex.org/{new_id}", doi=f"https://doi.org/{doi}",
                ids={"openalex": f"https://openalex.org/{new_id}", "doi": f"https://doi.org/{doi}"},
                abstract_inverted_index={word: [at] for at, word in enumerate(abstract.split())},
                **changes)
    return work


RETRACTED = _handmade("W9000000001", "10.5555/handmade.retracted",
                      title="A hand-made retracted work", is_retracted=True)
CITING = _handmade("W9000000002", "10.5555/handmade.citing",
                   title="A hand-made work that cites the state of OA",
                   referenced_works=["https://openalex.org/W2741809807"], cited_by_count=5)


@pytest.fixture
def handmade(tmp_path: Path) -> Iterator[ReplayServer]:
    """The default replay services, OpenAlex holding two hand-made works as well."""
    extra = OpenAlexService(extra_works=[RETRACTED, CITING])
    with ReplayServer.default(extra=[extra]) as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000"):
        yield server


def _found_elsewhere(doi: str | None, title: str = "A work found by PubMed") -> Work:
    return Work(title=title, doi=doi, sources=["pubmed"], abstract="An abstract.")


def test_works_found_elsewhere_are_enriched_in_one_request(replay: ReplayServer) -> None:
    works = [_found_elsewhere("10.7717/peerj.4375"), _found_elsewhere(CHEMCROW_DOI),
             _found_elsewhere("10.9999/not.in.openalex"), _found_elsewhere(None, "No DOI"),
             work_from_openalex(json.loads(fixture_bytes(
                 "openalex/paperqa_test_doi_search_paper_attributes0.openalex.json")))]

    enriched, log = enrich_with_openalex(works)

    [request] = replay.requests
    assert request.param("filter") == \
        f"doi:10.7717/peerj.4375|{CHEMCROW_DOI}|10.9999/not.in.openalex"
    assert request.param("per-page") == str(OR_LIMIT)
    assert set(request.param("select").split(",")) >= {"doi", "cited_by_count", "open_access",
                                                      "is_retracted", "referenced_works"}
    state_of_oa = enriched[0]
    assert state_of_oa.openalex_id == "W2741809807"
    assert state_of_oa.cited_by_count == STATE_OF_OA["cited_by_count"]
    assert state_of_oa.oa_url == STATE_OF_OA["open_access"]["oa_url"]
    assert state_of_oa.referenced_works == [ref.rsplit("/", 1)[-1]
                                            for ref in STATE_OF_OA["referenced_works"]]
    assert state_of_oa.sources == ["pubmed"] and state_of_oa.id == works[0].id
    assert enriched[1].openalex_id == "W4396723768"
    assert enriched[2:] == works[2:]  # not in OpenAlex, no DOI, or from OpenAlex already
    [entry] = log
    assert (entry.source, entry.status, entry.n_results) == ("openalex", "ok", 2)
    assert entry.query.startswith("filter=doi:10.7717/peerj.4375|")


def test_many_works_cost_one_request_per_hundred(replay: ReplayServer) -> None:
    works = [_found_elsewhere(f"10.9999/batch.{number}") for number in range(250)]
    works.append(_found_elsewhere("10.7717/peerj.4375"))

    enriched, log = enrich_with_openalex(works)

    sizes = [len(request.param("filter").removeprefix("doi:").split("|"))
             for request in replay.requests]
    assert sizes == [100, 100, 51]  # the replay, like the API, refuses more than 100
    assert [entry.status for entry in log] == ["empty", "empty", "ok"]
    assert enriched[-1].cited_by_count == STATE_OF_OA["cited_by_count"]


def test_a_failed_look_up_is_logged_and_the_works_kept(replay: ReplayServer) -> None:
    replay.inject("openalex", Fault("500", times=-1))
    works = [_found_elsewhere("10.7717/peerj.4375")]
    enriched, log = enrich_with_openalex(works)
    assert enriched == works
    [entry] = log
    assert entry.status == "error" and entry.error.startswith("enrichment look-up: ")


def test_a_refused_connection_is_not_asked_again_in_the_step() -> None:
    """OpenAlex refusing the connection (nothing listens on port 9) is met once: the later
    batches of 250 works and the snowballing are not sent, each batch is logged as not sent,
    the works keep what they have, and one note says so."""
    from scholargraph.settings import Settings

    works = [_found_elsewhere(f"10.9999/batch.{number}") for number in range(250)]
    refused = Settings(openalex_url="http://127.0.0.1:9/openalex")
    found = augment_with_openalex(works, snowball=True, settings=refused)
    assert found.works == works and found.added == []
    assert [entry.status for entry in found.log] == ["error", "skipped", "skipped"]
    assert found.log[0].unreachable and found.log[0].error.startswith("enrichment look-up: ")
    assert all(entry.error.startswith("not sent: OpenAlex could not be reached on an earlier "
                                      "look-up") for entry in found.log[1:])
    assert all(is_lookup(entry) for entry in found.log)
    [refusal, snowballing] = found.notes
    assert refusal.startswith("OpenAlex could not be reached (enrichment look-up: ")
    assert refusal.endswith("; its 2 other look-ups were not sent; the works keep what they have")
    assert snowballing == "citation snowballing was not done: OpenAlex could not be reached"


def test_works_of_earlier_rounds_are_not_looked_up_again(replay: ReplayServer) -> None:
    first, _ = enrich_with_openalex([_found_elsewhere("10.7717/peerj.4375")])
    sent = replay.count()
    again, log = enrich_with_openalex([_found_elsewhere("10.7717/peerj.4375")], known=first)
    assert replay.count() == sent and log == []
    assert again == first


def test_a_retraction_reported_by_openalex_is_flagged_in_every_output(
        handmade: ReplayServer, tmp_path: Path) -> None:
    [work], _ = enrich_with_openalex([_found_elsewhere("10.5555/handmade.retracted")])
    assert work.is_retracted

    passage = Passage(id=f"{work.id}#0-12", work_id=work.id, text="An abstract.", start=0, end=12)
    report = Report(question="q?", papers=[work], passages=[passage],
                    references=[Reference(number=1, work_id=work.id, passage_ids=[passage.id])],
                    findings=[Finding(text="A claim.", passage_ids=[passage.id], citations=[1])])
    paths = report.write(tmp_path / "out")

    assert json.loads(paths["review.json"].read_text())["papers"][0]["is_retracted"] is True
    assert "RETRACTED" in paths["review.md"].read_text()
    assert "note = {Retracted}" in paths["references.bib"].read_text()
    assert "N1  - RETRACTED" in paths["references.ris"].read_text()
    assert json.loads(paths["references.csl.json"].read_text())[0]["note"] == "Retracted"


def test_snowballing_follows_citations_both_ways(handmade: ReplayServer) -> None:
    seed = work_from_openalex(CITING)  # cites the recorded W2741809807
    found, log = snowball_citations([seed], limit=5)

    requests = {request.param("filter").split(":")[0]: request for request in handmade.requests}
    assert requests["openalex"].param("filter") == "openalex:W2741809807"
    assert requests["cites"].param("filter") == "cites:W9000000002"
    assert requests["cites"].param("sort") == "cited_by_count:desc"
    assert [work.openalex_id for work in found] == ["W2741809807"]
    assert found[0].sources == ["snowball"] and found[0].abstract
    assert [(entry.source, entry.status) for entry in log] == [("snowball", "ok"),
                                                                ("snowball", "empty")]

    cited = work_from_openalex(STATE_OF_OA)
    found, _ = snowball_citations([cited], limit=5)
    assert "W9000000002" in {work.openalex_id for work in found}  # forward: who cites it


def test_backward_snowballing_asks_for_the_most_cited_references_first(
        replay: ReplayServer) -> None:
    seeds = [work_from_openalex(STATE_OF_OA),
             work_from_openalex(json.loads(fixture_bytes(
                 "openalex/paperqa_test_doi_search_paper_attributes0.openalex.json")))]
    snowball_citations(seeds, limit=30)
    [backward] = [r for r in replay.requests if r.param("filter").startswith("openalex:")]
    asked = backward.param("filter").removeprefix("openalex:").split("|")
    assert len(asked) == 30 and len(set(asked)) == 30
    references = {ref.rsplit("/", 1)[-1] for seed in seeds for ref in seed.referenced_works}
    assert set(asked) <= references


def test_a_review_with_snowballing_counts_citation_searching(handmade: ReplayServer) -> None:
    report = review("What is the prevalence and impact of open access articles?",
                    sources=["openalex"], max_results=5, max_iterations=1, snowball=True)

    assert report.prisma["identified"].get("snowball") == 1
    citing = next(paper for paper in report.papers if paper.openalex_id == "W9000000002")
    assert citing.sources == ["snowball"]
    entries = [entry for entry in report.search_log if entry.source == "snowball"]
    assert {entry.query.split(":")[0] for entry in entries} == {"filter=openalex", "filter=cites"}
    sent = [r for r in handmade.requests if (r.param("filter") or "").startswith("cites:")]
    assert len(sent) == len([e for e in entries if e.query.startswith("filter=cites")])


def test_augment_without_snowball_sends_only_enrichment(replay: ReplayServer) -> None:
    records = [_found_elsewhere("10.7717/peerj.4375"),
               Work(title="The state of OA", doi="10.7717/PEERJ.4375", sources=["arxiv"])]
    found = augment_with_openalex(records)
    # enrichment does not deduplicate (the retrieval pipeline does, once): two records of one
    # DOI stay two works, and the DOI is asked for once
    assert found.added == [] and len(found.works) == 2
    assert all(w.cited_by_count == STATE_OF_OA["cited_by_count"] for w in found.works)
    assert replay.count() == 1


def test_openalex_is_not_asked_when_it_is_not_a_source(replay: ReplayServer) -> None:
    found = augment_with_openalex([_found_elsewhere("10.7717/peerj.4375")], use_openalex=False,
                                  snowball=True)
    assert replay.count() == 0 and found.log == [] and found.works[0].cited_by_count is None
    assert found.notes and "OpenAlex" in found.notes[0]
