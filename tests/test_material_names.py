"""The materials a question names: formulas as written, element and compound names, and symbols
that are also words only where the question reads as naming a material."""

from __future__ import annotations

import pytest

from scholargraph.deterministic.material_names import compound_formula, named_materials
from scholargraph.deterministic.text import key_phrases, phrase_spans


def labels(text: str) -> list[str]:
    return [material.label for material in named_materials(text)]


@pytest.mark.parametrize(("question", "expected"), [
    ("band gap of Si and GaAs", ["Si", "GaAs"]),
    ("What is the band gap of GaN compared with silicon?", ["GaN", "Si"]),
    ("Compare the band gaps of ZnO and TiO2", ["ZnO", "TiO2"]),
    ("Is gallium arsenide a better photovoltaic absorber than silicon?", ["GaAs", "Si"]),
    ("lithium iron phosphate versus LiCoO2 cathodes", ["LiFePO4", "LiCoO2"]),
    ("titanium dioxide and zinc oxide photocatalysts", ["TiO2", "ZnO"]),
    ("silicon carbide, gallium nitride and aluminium oxide", ["SiC", "GaN", "Al2O3"]),
    ("molybdenum disulfide monolayers", ["MoS2"]),
    ("stability of Ca(OH)2", ["CaO2H2"]),
])
def test_every_material_named_is_found_in_order(question: str, expected: list[str]) -> None:
    assert labels(question) == expected


def test_a_name_allowing_several_formulas_gives_its_elements() -> None:
    [iron_oxide] = named_materials("corrosion of iron oxide")

    assert iron_oxide.formula is None  # FeO or Fe2O3: not guessed
    assert iron_oxide.elements == ("Fe", "O") and iron_oxide.label == "iron oxide"


@pytest.mark.parametrize(("question", "expected"), [
    ("In which materials is the band gap of In larger than in GaAs?", ["In", "GaAs"]),
    ("As a rule, is GaAs or As more toxic?", ["GaAs", "As"]),
    ("I want the band gap of I", ["I"]),
    ("No band gap is reported for CdTe", ["CdTe"]),
    ("Is the hepatitis B vaccine effective?", []),
    ("Does lead exposure lead to anaemia?", []),
    ("band gap of lead iodide", ["lead iodide"]),
    ("growth of In nanowires on Si", ["In", "Si"]),
    ("In thin films of GaAs, what limits mobility?", ["GaAs"]),
    ("oxygen vacancies in TiO2 and lithium-ion cells", ["TiO2"]),
    ("HIV and CNS in DNA", []),
])
def test_symbols_that_are_words_count_only_as_materials(question: str,
                                                        expected: list[str]) -> None:
    assert labels(question) == expected


def test_compound_formulas_follow_common_oxidation_states() -> None:
    assert compound_formula(["Ga"], "As", -3) == "GaAs"
    assert compound_formula(["Al"], "O", -2) == "Al2O3"
    assert compound_formula(["Li", "Fe"], "PO4", -3) == "LiFePO4"
    assert compound_formula(["Ti"], "O", -2, count=2) == "TiO2"
    assert compound_formula(["Fe"], "O", -2) is None  # Fe2+ and Fe3+ both common
    assert compound_formula(["Li", "Mn"], "O", -2) is None  # no balance with states up to +4
    assert compound_formula(["Cu", "In", "Ga"], "Se", -2) is None


def test_symbols_keep_their_case_through_concepts_and_terms() -> None:
    assert [p for p, _, _ in phrase_spans("band gap of Si and GaAs")] == ["band gap", "Si",
                                                                        "GaAs"]
    assert "Si" in key_phrases("What values are reported for Si?")
    assert "in" not in key_phrases("In which materials is the band gap of In larger?")
