"""Literature values for a materials question: one evidence-table row per material and property a
sentence states, beside the Materials Project's."""

from __future__ import annotations

from scholargraph.agents.intent import detect_intent
from scholargraph.deterministic.evidence_table import (
    asked_properties,
    evidence_table,
    is_materials_question,
    unstated_values,
    values_summary,
)
from scholargraph.records import Material, Passage, Work

QUESTION = "Compare the band gaps of ZnO and TiO2"


def rows_for(question: str, text: str) -> list:
    """The evidence table of ``question`` over one paper whose abstract is ``text``."""
    work, passage = paper_passage(text)
    rows, _ = evidence_table(question, detect_intent(question, this_year=2026), [passage],
                             [work], [], None)
    return rows


def paper_passage(text: str, title: str = "Optical gaps of wide-gap oxides") -> tuple[Work,
                                                                                    Passage]:
    work = Work(title=title, abstract=text, year=2020, doi="10.1000/oxides")
    return work, Passage(id=f"{work.id}#0-{len(text)}", work_id=work.id, text=text, start=0,
                         end=len(text), score=1.0)


def test_each_material_in_a_sentence_gets_its_own_row() -> None:
    work, passage = paper_passage(
        "Thin films were grown by sputtering. Optical absorption gave band gaps of 3.37 eV for "
        "ZnO and 3.2 eV for anatase TiO2 at room temperature.")
    intent = detect_intent(QUESTION, this_year=2026)

    rows, _ = evidence_table(QUESTION, intent, [passage], [work], [], None)

    assert [(r.subject, r.measure, r.value, r.unit) for r in rows] == [
        ("ZnO", "band gap", "3.37", "eV"), ("TiO2", "band gap", "3.2", "eV")]
    assert all(passage.text[r.start:r.end] == r.quote for r in rows)


def test_named_materials_and_units_decide_what_a_value_is() -> None:
    rows = rows_for("Is gallium arsenide a better photovoltaic absorber than silicon?",
                    "The measured band gap of gallium arsenide is 1.42 eV, against 1.12 eV for "
                    "silicon; cells reached 29.1 % efficiency.")

    assert [(r.subject, r.value) for r in rows] == [("GaAs", "1.42"), ("Si", "1.12")]


def test_what_a_materials_question_touches() -> None:
    def asked(question: str) -> list[str]:
        return asked_properties(question, detect_intent(question, this_year=2026))

    assert asked("band gap of Si and GaAs") == ["band gap"]
    assert asked("Is GaAs more stable than GaN?") == ["energy above hull", "band gap",
                                                     "formation energy"]
    assert asked("Is gallium arsenide a better photovoltaic absorber than silicon?") == [
        "band gap", "energy above hull", "formation energy"]
    assert is_materials_question("Is gallium arsenide a better absorber than silicon?",
                                 detect_intent("Is gallium arsenide a better photovoltaic "
                                               "absorber than silicon?", this_year=2026))
    assert not is_materials_question("Does zinc supplementation shorten diarrhoea in children?",
                                     detect_intent("Does zinc supplementation shorten diarrhoea "
                                                   "in children?", this_year=2026))


def test_a_paper_value_says_measured_or_computed_when_its_sentence_does() -> None:
    rows = rows_for(QUESTION, "The band gap of ZnO measured by optical absorption is 3.37 eV. "
                    "HSE06 calculations give a band gap of 3.05 eV for TiO2. The band gap of ZnO "
                    "is 3.3 eV in nanorods.")

    assert [(r.subject, r.value, r.method) for r in rows] == [
        ("ZnO", "3.37", "measured"), ("TiO2", "3.05", "computed (HSE06)")]
    assert all(r.caveat == "" for r in rows)  # a caveat is for the Materials Project's own


def test_computed_values_stand_beside_measured_ones_in_the_summary() -> None:
    question = "What is the band gap of silicon?"
    silicon = Material(material_id="mp-149", formula="Si", band_gap_ev=0.61)
    entry = silicon.as_work()
    work, passage = paper_passage("The measured band gap of crystalline silicon is 1.12 eV at "
                                  "300 K.", title="Silicon optical constants")
    intent = detect_intent(question, this_year=2026)

    rows, _ = evidence_table(question, intent, [passage], [work, entry], [silicon], None)
    summary = values_summary(rows)

    computed, measured = rows
    assert computed.method == "computed, GGA/GGA+U (PBE) as the Materials Project computes it"
    assert "underestimates band gaps" in computed.caveat
    assert (measured.subject, measured.value, measured.method) == ("Si", "1.12", "measured")
    assert summary.startswith("Computed and measured values side by side: band gap of Si: "
                              "0.61 eV computed (Materials Project mp-149), 1.12 eV measured.")
    assert "GGA/GGA+U (PBE) as the Materials Project computes it" in summary
    assert "no paper" not in summary.lower()


def test_each_entry_of_a_formula_is_named_by_its_id_and_structure_in_the_summary() -> None:
    """Two polymorphs share a formula: the summary names the entry each computed value is
    from, with the structure its record states, never one entry's value as the formula's own."""
    question = "What is the band gap of anatase and rutile TiO2?"
    anatase = Material(material_id="mp-390", formula="TiO2", band_gap_ev=2.06,
                       space_group="I4_1/amd")
    rutile = Material(material_id="mp-2657", formula="TiO2", band_gap_ev=1.78,
                      space_group="P4_2/mnm")
    intent = detect_intent(question, this_year=2026)
    rows, _ = evidence_table(question, intent, [], [anatase.as_work(), rutile.as_work()],
                             [anatase, rutile], None)

    assert values_summary(rows).startswith(
        "Values: band gap of TiO2: 2.06 eV computed (Materials Project mp-390, I4_1/amd), "
        "1.78 eV computed (Materials Project mp-2657, P4_2/mnm).")


def test_a_value_an_entry_leaves_out_is_said_not_passed_over() -> None:
    question = "Is GaAs a better absorber than LiFePO4?"
    gaas = Material(material_id="mp-2534", formula="GaAs", band_gap_ev=0.19,
                    energy_above_hull_ev_per_atom=0.0)
    lfp = Material(material_id="mp-19017", formula="LiFePO4", crystal_system="Orthorhombic")
    intent = detect_intent(question, this_year=2026)

    stated = unstated_values(question, [gaas, lfp], [gaas.as_work(), lfp.as_work()], intent)
    only_included = unstated_values(question, [gaas, lfp], [gaas.as_work()], intent)
    complete = Material(material_id="mp-149", formula="Si", band_gap_ev=0.61)

    assert stated == ("The Materials Project states no formation energy for GaAs (mp-2534); no "
                      "band gap, energy above hull or formation energy for LiFePO4 (mp-19017, "
                      "orthorhombic).")
    assert only_included == "The Materials Project states no formation energy for GaAs (mp-2534)."
    assert unstated_values("What is the band gap of silicon?", [complete], [complete.as_work()],
                           intent) == ""


def test_a_model_row_of_a_materials_question_says_measured_when_its_quote_does() -> None:
    from scholargraph.deterministic.evidence_table import RowReply, TableReply
    from scholargraph.testing import ScriptedChatModel, structured_reply

    question = "What is the band gap of silicon?"
    text = "Silicon has an indirect band gap of 1.12 eV measured at room temperature."
    work, passage = paper_passage(text, title="Silicon optical constants")
    reply = TableReply(rows=[RowReply(measure="band gap", value="1.12", unit="eV",
                                      subject="silicon", passage_id=passage.id, quote=text)])
    model = ScriptedChatModel(responses=[structured_reply(reply)])

    rows, _ = evidence_table(question, detect_intent(question, this_year=2026), [passage],
                             [work], [], model)

    assert [(r.subject, r.value, r.method) for r in rows] == [("silicon", "1.12", "measured")]
    assert model.remaining == 0
