"""A materials scientist reading Materials Project values: which entry is which polymorph (by
the structure its record states), which lies lowest by energy above hull, a claim about a
polymorph, and a property the entries do not hold, over the recorded stand-in
(``fixtures/materials/summary_docs.json``: TiO2 as mp-390, tetragonal I4_1/amd, on the hull,
and mp-2657, tetragonal P4_2/mnm, above it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scholargraph.agents.intent import detect_intent
from scholargraph.deterministic.evidence_table import (
    asked_properties,
    formula_entries,
    material_rows,
    unfound_line,
    unstated_values,
)
from scholargraph.deterministic.material_names import unheld_properties
from scholargraph.records import Material, SearchLogEntry
from scholargraph.report import Report
from scholargraph.sources.materials import MaterialsAgent
from scholargraph.testing.reviews import corpus_reviews

QUESTIONS = {
    "gaps": "band gap of anatase and rutile TiO2",
    "stable": "Which TiO2 polymorph is most stable?",
    "claim": "Rutile is the most stable polymorph of TiO2.",
    "conductivity": "thermal conductivity of silicon",
}


@pytest.fixture(scope="module")
def reviews(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Report]]:
    """Each question reviewed once over the whole recorded corpus."""
    with corpus_reviews(QUESTIONS, tmp_path_factory.mktemp("home")) as reviewed:
        yield reviewed


def test_a_computed_value_names_its_entry_and_structure(reviews: dict[str, Report]) -> None:
    """"2.06 eV computed (Materials Project mp-390)" left the reader to find out which TiO2
    mp-390 is: the row and the summary name the structure its record states."""
    report = reviews["gaps"]

    assert [(row.subject, row.value) for row in report.evidence_table
            if row.method.startswith("computed")] == [("TiO2 (mp-390, tetragonal I4_1/amd)",
                                                       "2.06")]
    assert ("band gap of TiO2: 2.06 eV computed (Materials Project mp-390, tetragonal "
            "I4_1/amd)") in report.summary
    assert ("The Materials Project states no band gap for TiO2 (mp-2657, tetragonal "
            "P4_2/mnm).") in report.summary


def test_the_polymorphs_of_a_formula_are_told_apart_and_ordered_by_the_hull(
        reviews: dict[str, Report]) -> None:
    for name in ("gaps", "stable"):
        summary = reviews[name].summary

        assert ("The Materials Project holds 2 entries for TiO2, told apart by the structure "
                "each record states (the records name no mineral): mp-390 (tetragonal "
                "I4_1/amd), on the computed convex hull; mp-2657 (tetragonal P4_2/mnm), above "
                "the computed convex hull (by how much the record does not state).") in summary
        assert "Lowest in computed energy: mp-390 (a 0 K GGA/GGA+U (PBE) ordering" in summary
        told = summary[summary.index("The Materials Project holds"):
                       summary.index("polymorphs close in energy).")]
        assert "anatase" not in told and "rutile" not in told  # no mineral guessed


def test_a_claim_about_a_polymorph_keeps_both_entries_and_their_values(
        reviews: dict[str, Report]) -> None:
    """The entry on the hull was excluded as "does not test the claim" and the one above it
    kept: a database entry is no study and is not ranked as one."""
    report = reviews["claim"]
    entries = {paper.title for paper in report.papers if paper.kind == "material"}
    excluded = [row for row in report.screening
                if "mp-" in row.title and row.decision != "included"]

    assert entries == {"Materials Project entry mp-390: TiO2",
                       "Materials Project entry mp-2657: TiO2"}
    assert not excluded
    assert ("energy above hull", "TiO2 (mp-390, tetragonal I4_1/amd)", "0") in {
        (row.measure.split(" (")[0], row.subject, row.value) for row in report.evidence_table}
    assert "Lowest in computed energy: mp-390" in report.summary
    assert not [s for s in report.stances
                if s.work_id in {p.id for p in report.papers if p.kind == "material"}]


def test_a_property_the_entries_do_not_hold_is_said_not_replaced_by_the_band_gap(
        reviews: dict[str, Report]) -> None:
    """"thermal conductivity of silicon" tabled the computed band gap of Si, the property
    assumed when a question names none the entries hold."""
    report = reviews["conductivity"]

    assert not [row for row in report.evidence_table if row.method.startswith("computed")]
    assert ("The Materials Project values this review reads include no thermal conductivity"
            in report.summary)
    assert "band gap of Si" not in report.summary


def test_structure_and_entry_say_what_the_record_states() -> None:
    both = Material(material_id="mp-390", formula="TiO2", crystal_system="Tetragonal",
                    space_group="I4_1/amd", is_stable=True)
    bare = Material(material_id="mp-1", formula="Si")

    assert (both.structure, both.entry) == ("tetragonal I4_1/amd", "mp-390, tetragonal I4_1/amd")
    assert (bare.structure, bare.entry) == ("", "mp-1")
    assert "stable at 0 K on the computed convex hull." in both.describe()
    assert "thermodynamically stable" not in both.describe()


def test_entries_are_ordered_by_their_distance_from_the_hull() -> None:
    """A stated energy above hull orders the entries; one only said to be off the hull comes
    after, one saying neither last; a formula with one entry says nothing."""
    low = Material(material_id="mp-2", formula="ZnS", space_group="F-43m",
                   energy_above_hull_ev_per_atom=0.0)
    high = Material(material_id="mp-1", formula="ZnS", space_group="P6_3mc",
                    energy_above_hull_ev_per_atom=0.012)
    off = Material(material_id="mp-3", formula="ZnS", is_stable=False)
    other = Material(material_id="mp-4", formula="GaN", energy_above_hull_ev_per_atom=0.0)
    works = [m.as_work() for m in (low, high, off, other)]

    line = formula_entries([off, high, low, other], works)

    assert line.index("mp-2 (F-43m), on the computed") < line.index(
        "mp-1 (P6_3mc), 0.012 eV/atom above") < line.index("mp-3 (structure not stated)")
    assert "Lowest in computed energy: mp-2 " in line and "GaN" not in line
    assert formula_entries([low, high], [low.as_work()]) == ""  # only included entries count


def test_a_property_beyond_the_entries_asks_no_computed_value() -> None:
    question = "thermal conductivity and band gap of silicon"
    si = Material(material_id="mp-149", formula="Si", band_gap_ev=0.61)
    intent = detect_intent(question, this_year=2026)

    assert unheld_properties(question) == ["thermal conductivity"]
    assert asked_properties(question, intent) == ["band gap"]
    assert asked_properties("thermal conductivity of silicon", intent) == []
    assert material_rows("thermal conductivity of silicon", [si], [si.as_work()], intent) == []
    assert unstated_values(question, [si], [si.as_work()], intent).startswith(
        "The Materials Project values this review reads include no thermal conductivity:")
    assert unstated_values(question, [si], [], intent) == ""  # no entry included: nothing


def test_a_name_the_source_cannot_search_by_is_not_called_no_material() -> None:
    reason = MaterialsAgent().no_query_reason(detect_intent("thermal conductivity of graphene"))

    assert "names no material" not in reason
    assert reason.startswith("the question names no formula, element, compound name")
    assert "nor would it give thermal conductivity" in reason


def test_what_the_database_lacks_is_said_once_per_material() -> None:
    """The search log's notes, every round, give one sentence naming each material not held;
    another source's notes and a search that found everything add nothing."""
    lacking = "no Materials Project record in the recorded corpus"
    log = [SearchLogEntry(source="materials", query="formula=GaN", note=f"GaN: {lacking}"),
           SearchLogEntry(source="materials", query="chemsys=Fe-Li-O",
                          note=f"chemical system Fe-Li-O: {lacking}"),
           SearchLogEntry(source="materials", query="formula=GaN", round=2,
                          note=f"GaN: {lacking}"),
           SearchLogEntry(source="materials", query="formula=Si"),
           SearchLogEntry(source="web", query="GaN", note="GaN: no Materials Project record")]

    assert unfound_line(log) == ("The Materials Project holds no record of GaN or chemical "
                                 "system Fe-Li-O in the recorded corpus.")
    assert unfound_line(log[3:4]) == ""


def test_the_materials_table_says_its_values_are_computed(reviews: dict[str, Report]) -> None:
    from scholargraph.exports.markdown import render

    text = render(reviews["gaps"])
    section = text[text.index("## Materials\n"):]

    assert section.split("\n")[2] == (
        "Materials Project entries; every value is computed (GGA/GGA+U (PBE) as the Materials "
        "Project computes it), and Stable means on the computed convex hull at 0 K.")
    assert "| mp-2657 | TiO2 | Tetragonal | P4\\_2/mnm |" in section
