"""A materials scientist's other ways of naming materials: a chemical system ("the Ti-O system",
"Li-Fe-O") and Materials Project ids ("mp-149"), each searched as such over the recorded
stand-in; and "materials" in its everyday sense ("teaching materials"), which is no question for
the Materials Project."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scholargraph.agents.intent import detect_intent
from scholargraph.agents.planning import plan_from_template
from scholargraph.deterministic.material_names import named_materials
from scholargraph.report import Report
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.materials import MaterialsAgent, MaterialsQuery
from scholargraph.testing import ReplayServer
from scholargraph.testing.reviews import MP_TEST_KEY, corpus_reviews
from scholargraph.testing.services.materials import MaterialsService

FAKE_KEY = MP_TEST_KEY


@pytest.mark.parametrize(("question", "expected"), [
    ("Which phases are stable in the Li-Fe-O system?", [("Li-Fe-O", "Fe-Li-O", None)]),
    ("phase stability in the Li\u2013Fe\u2013O system", [("Li\u2013Fe\u2013O", "Fe-Li-O", None)]),
    ("the Ti-O phase diagram", [("Ti-O", "O-Ti", None)]),
    ("Y-Ba-Cu-O superconductors", [("Y-Ba-Cu-O", "Ba-Cu-O-Y", None)]),
    ("band gap of mp-149 and mp-2534", [("mp-149", None, "mp-149"), ("mp-2534", None, "mp-2534")]),
    ("Compare mp-149 with GaAs", [("mp-149", None, "mp-149"), ("GaAs", None, None)]),
])
def test_systems_and_ids_are_one_material_each(question: str,
                                               expected: list[tuple[str, str | None, str | None]]
                                               ) -> None:
    found = [(m.label, m.chemsys, m.material_id) for m in named_materials(question)]

    assert found == expected


@pytest.mark.parametrize("question", [
    "I-V curves of organic diodes", "C-H activation by palladium", "C-H-O bond energies",
    "the I-V characteristics", "Ti-O bonds in the film",
])
def test_joined_symbols_that_are_no_chemical_system(question: str) -> None:
    assert not any(m.chemsys for m in named_materials(question))


@pytest.mark.parametrize("question", [
    "teaching materials for undergraduate chemistry",
    "patient information materials for asthma",
    "raw materials prices in the steel industry",
    "Materials and methods sections in clinical trial reports",
])
def test_materials_in_its_everyday_sense_is_no_materials_question(question: str) -> None:
    assert "materials" not in detect_intent(question).domains


@pytest.mark.parametrize("question", [
    "Li-Fe-O", "band gap of mp-19017", "new materials for thermoelectric generators",
    "teaching materials on perovskite solar cells",
    "mechanical strength of 3D printed materials",
    "certified reference materials for trace metal analysis",
])
def test_a_chemical_system_an_id_or_a_material_noun_is_a_materials_question(question: str
                                                                            ) -> None:
    assert "materials" in detect_intent(question).domains


def test_criteria_for_systems_and_ids_read_back_and_refuse_what_they_are_not() -> None:
    query = MaterialsQuery.parse("chemsys=Li-Fe-O ids=mp-149,mp-2534")

    assert query.chemsys == ("Fe-Li-O",) and query.material_ids == ("mp-149", "mp-2534")
    assert MaterialsQuery.parse(str(query)) == query
    assert query.search_arguments() == {"material_ids": ["mp-149", "mp-2534"],
                                        "chemsys": ["Fe-Li-O"]}
    with pytest.raises(ValueError, match="not a chemical system: Li-Xx"):
        MaterialsQuery.parse("chemsys=Li-Xx")
    with pytest.raises(ValueError, match="not a Materials Project id"):
        MaterialsQuery.parse("ids=149")


@pytest.fixture(scope="module")
def mp() -> Iterator[ReplayServer]:
    with ReplayServer([MaterialsService()]) as server, server.environment(
            MP_API_KEY=FAKE_KEY, SCHOLARGRAPH_RATE_SCALE="1000", SCHOLARGRAPH_NO_CACHE="1"):
        yield server


def test_a_chemical_system_finds_the_compounds_of_exactly_its_elements(mp: ReplayServer
                                                                       ) -> None:
    mp.requests.clear()
    found = MaterialsAgent().search(SearchRequest(query="chemsys=O-Ti", limit=200))
    absent = MaterialsAgent().search(SearchRequest(query="chemsys=Fe-Li-O", limit=200))

    assert sorted(m.material_id for m in found.materials) == ["mp-2657", "mp-390"]
    assert found.log_note is None
    assert [m.formula for m in absent.materials] == []  # LiFePO4 holds P too: not Li-Fe-O
    assert absent.log_note == ("chemical system Fe-Li-O: no Materials Project record in the "
                               "recorded corpus")
    sent = [r.param("chemsys") for r in mp.requests if r.path.rstrip("/") == "/materials/summary"]
    assert sent == ["O-Ti", "Fe-Li-O"]


def test_ids_find_their_entries_and_an_unknown_id_says_so(mp: ReplayServer) -> None:
    result = MaterialsAgent().search(SearchRequest(query="ids=mp-149,mp-2534,mp-1", limit=20))

    assert sorted(m.formula for m in result.materials) == ["GaAs", "Si"]
    assert result.log_note == "mp-1: no Materials Project record in the recorded corpus"


def test_a_kind_of_material_is_named_in_the_plural_once() -> None:
    question = "solid electrolytes with high lithium-ion conductivity"
    reason = MaterialsAgent().no_query_reason(detect_intent(question))

    assert "single out the solid electrolytes;" in reason and "electrolytess" not in reason


@pytest.mark.parametrize(("question", "wanted", "unwanted"), [
    ("solid electrolytes with high lithium-ion conductivity",
     "What values of lithium-ion conductivity are reported for solid electrolytes,",
     "high lithium-ion,"),
    ("LiFePO4 has a band gap of about 3.7 eV",
     "What values of band gap are reported for LiFePO4,", "and eV"),
    ("perovskite solar cell stability under humidity",
     "reported for perovskite solar cell under humidity,", "and humidity"),
    ("phase stability in the Ti-O system",
     "What values of phase stability are reported for Ti-O system,", "for phase"),
])
def test_a_property_question_asks_for_values_of_its_materials_only(question: str, wanted: str,
                                                                  unwanted: str) -> None:
    texts = [sub.text for sub in plan_from_template(question,
                                                    detect_intent(question)).sub_questions]

    assert any(wanted in text for text in texts), texts
    assert not any(unwanted in text for text in texts), texts


QUESTIONS = {
    "ids": "band gap of mp-149 and mp-2534",
    "lacking": "band gap of mp-19017 and mp-2534",
    "system": "phase stability in the Ti-O system",
    "teaching": "teaching materials for undergraduate chemistry",
}


@pytest.fixture(scope="module")
def reviews(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Report]]:
    """Each question reviewed once over the whole recorded corpus."""
    with corpus_reviews(QUESTIONS, tmp_path_factory.mktemp("home")) as reviewed:
        yield reviewed


def test_a_review_by_ids_tables_each_entrys_computed_value(reviews: dict[str, Report]) -> None:
    report = reviews["ids"]
    sent = [e.query for e in report.search_log if e.source == "materials"]
    rows = {(row.subject, row.value, row.unit) for row in report.evidence_table
            if row.method.startswith("computed")}

    assert sent == ["ids=mp-149", "ids=mp-2534"]
    assert {m.material_id for m in report.materials} == {"mp-149", "mp-2534"}
    assert {("Si (mp-149, cubic Fd-3m)", "0.61", "eV"),
            ("GaAs (mp-2534, cubic F-43m)", "0.19", "eV")} <= rows


def test_an_entry_named_by_id_is_included_though_it_lacks_the_value_asked(
        reviews: dict[str, Report]) -> None:
    """mp-19017's recorded entry states no band gap: it is still the entry the question names,
    and the summary says what it lacks."""
    report = reviews["lacking"]

    assert {p.title for p in report.papers} >= {"Materials Project entry mp-19017: LiFePO4",
                                                "Materials Project entry mp-2534: GaAs"}
    assert ("The Materials Project states no band gap for LiFePO4 (mp-19017, orthorhombic "
            "Pnma).") in report.summary


def test_a_review_of_a_chemical_system_finds_its_phases(reviews: dict[str, Report]) -> None:
    report = reviews["system"]
    sent = [(e.query, e.n_results) for e in report.search_log if e.source == "materials"]

    assert sent == [("chemsys=O-Ti", 2)]
    assert {m.material_id for m in report.materials} == {"mp-390", "mp-2657"}
    assert {p.title for p in report.papers if p.kind == "material"} == {
        "Materials Project entry mp-390: TiO2", "Materials Project entry mp-2657: TiO2"}


def test_teaching_materials_never_ask_the_materials_project(reviews: dict[str, Report]
                                                            ) -> None:
    report = reviews["teaching"]

    assert "materials" not in report.sources_searched
    assert not [e for e in report.search_log if e.source == "materials"]
