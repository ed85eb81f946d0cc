"""The Materials Project agent through mp_api's real client, over HTTP, against the stand-in."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from scholargraph.agents.schemas import Intent
from scholargraph.errors import SourceError, SourceUnavailable
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.materials import (
    SUMMARY_FIELDS,
    MaterialsAgent,
    MaterialsQuery,
    is_formula,
)
from scholargraph.testing import Fault, ReplayServer
from scholargraph.testing.services.materials import MaterialsService, load_documents

FAKE_KEY = "0123456789abcdef0123456789abcdef"  # 32 characters, as mp_api demands


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer([MaterialsService()]) as replay:
        yield replay


@pytest.fixture
def mp(server: ReplayServer) -> Iterator[ReplayServer]:
    """The stand-in, with the agent's endpoint and a fake key in the environment."""
    server.requests.clear()
    server.clear_faults()
    with server.environment(MP_API_KEY=FAKE_KEY, SCHOLARGRAPH_RATE_SCALE="1000"):
        yield server


def summary_requests(server: ReplayServer) -> list:
    return [r for r in server.requests if r.path.rstrip("/") == "/materials/summary"]


def test_formula_search_parses_ids_formula_and_band_gap(mp: ReplayServer) -> None:
    result = MaterialsAgent().search(SearchRequest(query="formula=TiO2", limit=5))

    by_id = {material.material_id: material for material in result.materials}
    assert set(by_id) == {"mp-390", "mp-2657"}
    anatase = by_id["mp-390"]
    assert (anatase.formula, anatase.band_gap_ev, anatase.space_group) == ("TiO2", 2.06, "I4_1/amd")
    assert anatase.crystal_system == "Tetragonal" and anatase.is_stable is True
    assert by_id["mp-2657"].band_gap_ev is None  # not in the stand-in: no value is made up
    work = next(w for w in result.works if w.url and w.url.endswith("mp-390"))
    assert work.kind == "material" and "2.06 eV" in (work.abstract or "")


def test_only_the_fields_a_material_uses_are_requested(mp: ReplayServer) -> None:
    MaterialsAgent().search(SearchRequest(query="formula=Si", limit=3))

    [request] = summary_requests(mp)
    assert request.param("_fields").split(",") == list(SUMMARY_FIELDS)
    assert request.param("_limit") == "3"
    assert request.param("formula") == "Si"
    assert request.headers["x-api-key"] == FAKE_KEY


def test_elements_and_band_gap_range_become_the_api_parameters(mp: ReplayServer) -> None:
    result = MaterialsAgent().search(SearchRequest(query="elements=Ti,O band_gap=1..3", limit=10))

    assert [m.material_id for m in result.materials] == ["mp-390"]
    [request] = summary_requests(mp)
    assert request.param("elements") == "Ti,O"
    assert float(request.param("band_gap_min")) == 1.0
    assert float(request.param("band_gap_max")) == 3.0


def test_open_ended_band_gap_range(mp: ReplayServer) -> None:
    result = MaterialsAgent().search(SearchRequest(query="band_gap=..0.7", limit=10))

    assert sorted(m.material_id for m in result.materials) == ["mp-149", "mp-2534"]


def test_skipped_with_a_clear_reason_without_a_key(server: ReplayServer) -> None:
    with server.environment(MP_API_KEY=""):
        reason = MaterialsAgent().unavailable_reason()
    assert reason is not None and "MP_API_KEY" in reason


def test_a_key_of_the_wrong_length_is_reported_without_echoing_it(server: ReplayServer) -> None:
    with server.environment(MP_API_KEY="short-secret-value"):
        reason = MaterialsAgent().unavailable_reason()
    assert reason is not None and "32 characters" in reason
    assert "short-secret-value" not in reason


def test_a_query_without_criteria_is_refused_before_any_request(mp: ReplayServer) -> None:
    with pytest.raises(SourceError,
                       match="no formula, elements, chemical system, id or band-gap range"):
        MaterialsAgent().search(SearchRequest(query="semiconductor oxides", limit=5))
    assert mp.count("mp") == 0


def test_a_malformed_criterion_is_refused(mp: ReplayServer) -> None:
    with pytest.raises(SourceError, match="band_gap wants LOW..HIGH"):
        MaterialsAgent().search(SearchRequest(query="band_gap=wide", limit=5))
    assert mp.count("mp") == 0


def test_server_errors_become_source_unavailable(mp: ReplayServer) -> None:
    MaterialsAgent().search(SearchRequest(query="formula=Si", limit=1))  # heartbeat cached
    mp.inject("mp", Fault("500", times=-1))

    with pytest.raises(SourceUnavailable):
        MaterialsAgent().search(SearchRequest(query="formula=GaAs", limit=1))


def test_the_key_is_never_logged(mp: ReplayServer, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        MaterialsAgent().search(SearchRequest(query="formula=ZnO", limit=2))
        mp.inject("mp", Fault("500", times=-1))
        with pytest.raises(SourceUnavailable) as failure:
            MaterialsAgent().search(SearchRequest(query="formula=GaAs", limit=2))

    assert caplog.records and FAKE_KEY not in caplog.text
    assert FAKE_KEY not in str(failure.value)


def test_an_endpoint_that_hangs_fails_cleanly() -> None:
    """mp_api's heartbeat has no timeout of its own; the agent waits for it no longer than
    SCHOLARGRAPH_TIMEOUT, and sends nothing else."""
    with ReplayServer([MaterialsService()]) as fresh, fresh.environment(
        MP_API_KEY=FAKE_KEY, SCHOLARGRAPH_RATE_SCALE="1000", SCHOLARGRAPH_TIMEOUT="0.2",
    ):
        fresh.inject("mp", Fault("hang", times=-1, seconds=1.0))
        with pytest.raises(SourceUnavailable):
            MaterialsAgent().search(SearchRequest(query="formula=Si", limit=1))
        assert {r.path for r in fresh.requests} == {"/heartbeat"}


@pytest.mark.parametrize("path", [None, "/materials"])
def test_an_endpoint_that_is_not_the_materials_project_is_named(path: str | None) -> None:
    """A malformed answer from a mirror names the variable pointing there, whether it comes
    to the heartbeat (which mp_api reads once per endpoint and process: a test server given a
    port an earlier one had skips it) or to the search itself."""
    with ReplayServer([MaterialsService()]) as fresh, fresh.environment(
        MP_API_KEY=FAKE_KEY, SCHOLARGRAPH_RATE_SCALE="1000",
    ):
        fresh.inject("mp", Fault("malformed", times=-1, path=path))
        with pytest.raises(SourceError, match="SCHOLARGRAPH_MP_URL"):
            MaterialsAgent().search(SearchRequest(query="formula=Si", limit=1))


def test_build_query_prefers_the_intent_formula() -> None:
    intent = Intent(kind="material_property", domains=["materials"], keywords=[], formula="ZnO")
    agent = MaterialsAgent()

    assert agent.build_query(["band gap", "wurtzite"], intent) == "formula=ZnO"
    plain = Intent(kind="material_property", domains=["materials"], keywords=[])
    assert agent.build_query(["LiFePO4", "cathode"], plain) == "formula=LiFePO4"
    assert agent.build_query(["lithium cobalt oxide", "cathode"], plain) == "elements=Li,Co,O"
    assert agent.build_query(["zinc oxides with band gap 1-3 eV"], plain) == (
        "elements=Zn,O band_gap=1..3")
    assert agent.build_query(["thermal conductivity"], plain) == ""  # no criteria: no query


@pytest.mark.parametrize(("text", "reason"), [
    ("colour=blue", "unknown criterion"), ("formula=Xq2", "not a chemical formula"),
    ("elements=Li,Qq", "not an element symbol"), ("band_gap=3..1", "is empty"),
    ("stable=maybe", "true or false"),
])
def test_malformed_queries_say_what_is_wrong(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        MaterialsQuery.parse(text)


def test_query_syntax_round_trips() -> None:
    query = MaterialsQuery.parse("formula=TiO2,ZnO elements=O band_gap=1.5.. stable=true")

    assert MaterialsQuery.parse(str(query)) == query
    assert query.search_arguments() == {"formula": ["TiO2", "ZnO"], "elements": ["O"],
                                        "band_gap": (1.5, 1000.0), "is_stable": True}


@pytest.mark.parametrize(("token", "expected"), [
    ("TiO2", True), ("Si", True), ("LiFePO4", True), ("GaAs", True),
    ("HIV", False), ("DNA", False), ("oxide", False), ("Xy2", False),
])
def test_formula_detection(token: str, expected: bool) -> None:
    assert is_formula(token) is expected


def test_stand_in_documents_follow_the_emmet_schema() -> None:
    """Every field of every hand-built document has the name and type emmet-core's SummaryDoc
    (the real API's model) gives it; documents carry only some fields, as ``_fields`` answers do."""
    from emmet.core.summary import SummaryDoc
    from pydantic import TypeAdapter

    for document in load_documents():
        for name, value in document.items():
            assert name in SummaryDoc.model_fields, name
            TypeAdapter(SummaryDoc.model_fields[name].annotation).validate_python(value)


def test_a_first_search_sends_one_heartbeat_and_one_search() -> None:
    """The summary rester alone asks the heartbeat once; MPRester would ask it three times."""
    from mp_api.client.core.client import BaseRester

    # mp_api keeps the heartbeat per endpoint and process: a loopback port reused from an
    # earlier test would otherwise answer from that cache
    BaseRester._get_heartbeat_info.cache_clear()
    with ReplayServer([MaterialsService()]) as fresh, fresh.environment(
        MP_API_KEY=FAKE_KEY, SCHOLARGRAPH_RATE_SCALE="1000",
    ):
        found = MaterialsAgent().search(SearchRequest(query="formula=Si", limit=1))
        assert found.works
        assert [r.path.rstrip("/") for r in fresh.requests] == ["/heartbeat",
                                                                "/materials/summary"]


def test_a_formula_the_stand_in_lacks_says_so_in_the_search_log(mp: ReplayServer) -> None:
    agent = MaterialsAgent()

    missing = agent.search(SearchRequest(query="formula=GaN", limit=5))
    partly = agent.search(SearchRequest(query="formula=Si,GaN", limit=5))
    found = agent.search(SearchRequest(query="formula=Si", limit=5))

    assert len(missing) == 0
    assert missing.log_note == "GaN: no Materials Project record in the recorded corpus"
    assert [m.formula for m in partly.materials] == ["Si"]
    assert partly.log_note == "GaN: no Materials Project record in the recorded corpus"
    assert found.log_note is None


def test_a_live_database_lacking_a_formula_is_not_called_the_recorded_corpus() -> None:
    """Another database version in the heartbeat (as the real API's) drops the corpus's words."""
    from scholargraph.sources.materials import absent_note

    query = MaterialsQuery.parse("formula=GaN")
    assert absent_note(query, [], "2025.09.25") == "GaN: no Materials Project record"
    assert absent_note(MaterialsQuery.parse("elements=Fe,O"), [], "2025.09.25") == (
        "elements Fe, O: no Materials Project record")


def test_named_queries_are_one_per_material_named() -> None:
    plain = Intent(kind="comparative", domains=["materials"], keywords=[])
    agent = MaterialsAgent()

    assert agent.named_queries("band gap of Si and GaAs", plain) == ["formula=Si", "formula=GaAs"]
    assert agent.named_queries("Is gallium arsenide a better absorber than silicon?", plain) == [
        "formula=GaAs", "formula=Si"]
    assert agent.named_queries("iron oxide with a band gap of 1-3 eV", plain) == [
        "elements=Fe,O band_gap=1..3"]
    assert agent.named_queries("thermal conductivity of glasses", plain) == []
