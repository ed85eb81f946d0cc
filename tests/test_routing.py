"""Which sources a question asks: cue words, then the question's meaning (the run's MiniLM
against sketches of fields) for an everyday clinical question no cue word names, and for a
question of computing, physics, materials or chemistry no cue word places."""

from pathlib import Path

import pytest
from langgraph.runtime import Runtime

from scholargraph.agents.intent import active_sources, detect_intent, intent
from scholargraph.context import ReviewContext
from scholargraph.deterministic.fields import (
    BIOMEDICAL_MARGIN,
    biomedical_margin,
    field_embedder,
    read_field,
)
from scholargraph.rag.embeddings import Embedder, EmbeddingUnavailable
from scholargraph.settings import Settings

CLINICAL = ["Does vitamin D supplementation prevent fractures in older adults?",
            "Do standing desks reduce back pain in office workers?",
            "Does mindfulness training reduce stress in nurses?"]
"""Clinical questions in everyday words: no cue word of the life sciences in any of them."""
ELSEWHERE = ["History of the printing press in Europe",
             "Machine learning for code review",
             "Query optimization in distributed databases",
             "Coral reef bleaching and rising ocean temperatures",
             "The role of the Medici family in Renaissance art patronage"]
"""Questions of history, computing, ecology and art history: PubMed has nothing for them."""


@pytest.fixture(scope="module")
def embedder(shared_models: Path) -> Embedder:
    found = field_embedder(Settings(embedding_model=None, models_dir=shared_models))
    assert found is not None
    return found


def asks_pubmed(question: str, embedder: Embedder | None) -> bool:
    found = detect_intent(question, this_year=2026, embedder=embedder)
    return "pubmed" in active_sources(found, ReviewContext())


@pytest.mark.parametrize("question", CLINICAL)
def test_an_everyday_clinical_question_asks_pubmed_by_its_meaning(question, embedder):
    assert not asks_pubmed(question, None)  # the cue words alone miss it
    assert biomedical_margin(question, embedder) > BIOMEDICAL_MARGIN
    assert asks_pubmed(question, embedder)
    assert detect_intent(question, embedder=embedder).domains == ["biomedical"]


@pytest.mark.parametrize("question", ELSEWHERE)
def test_history_computing_and_ecology_stay_away_from_pubmed(question, embedder):
    assert biomedical_margin(question, embedder) < 0
    assert not asks_pubmed(question, embedder)


def test_a_cs_question_naming_a_biomedical_subject_asks_both():
    found = detect_intent("Machine learning for sepsis prediction in intensive care")
    assert {"biomedical", "computer_science"} <= set(found.domains)


def test_the_intent_node_reads_the_meaning_with_the_runs_embedder(shared_models: Path):
    settings = Settings(models_dir=shared_models)
    update = intent({"cleaned_question": CLINICAL[0]}, Runtime(context=ReviewContext(
        settings=settings)))
    assert "pubmed" in update["active_sources"]
    lexical = ReviewContext(settings=Settings(embedding_model="none", models_dir=shared_models))
    update = intent({"cleaned_question": CLINICAL[0]}, Runtime(context=lexical))
    assert update["active_sources"] == ["openalex", "web"]  # cue words alone, as chosen


@pytest.mark.parametrize("spec", ["none", "openai:text-embedding-3-small", "some/other-model"])
def test_other_embedders_leave_the_reading_to_cue_words(spec, shared_models: Path):
    """The margin is set for MiniLM; another model would place the sketches elsewhere, and
    loading one only for this costs more than a run can spare."""
    assert field_embedder(Settings(embedding_model=spec, models_dir=shared_models)) is None
    assert read_field(CLINICAL[0], None) is None


def test_a_missing_model_leaves_the_reading_to_cue_words(tmp_path: Path, monkeypatch):
    def not_installed() -> Path:
        raise EmbeddingUnavailable("the all-MiniLM-L6-v2 ONNX file is not installed")

    monkeypatch.setattr("scholargraph.rag.embeddings.source_onnx_path", not_installed)
    settings = Settings(embedding_model="all-MiniLM-L6-v2-int8-max64", models_dir=tmp_path)
    assert field_embedder(settings) is None


UNPLACED = [("Compiler optimizations for GPU kernels", "computer_science"),
            ("Static analysis for finding bugs in C programs", "computer_science"),
            ("Topological insulators", "physics"),
            ("Neutrino oscillations", "physics"),
            ("Corrosion of stainless steel in seawater", "materials"),
            ("Mechanism of the Diels-Alder cycloaddition", "chemistry")]
"""Questions of the fields arXiv and the chemistry sources serve, in words no cue names."""


def sources_of(question: str, embedder: Embedder | None) -> list[str]:
    return active_sources(detect_intent(question, this_year=2026, embedder=embedder),
                          ReviewContext())


@pytest.mark.parametrize(("question", "field"), UNPLACED)
def test_a_question_no_cue_word_places_takes_the_field_its_meaning_reads(question, field,
                                                                         embedder):
    assert detect_intent(question).domains == ["general"]  # the cue words alone miss it
    assert "arxiv" not in sources_of(question, None)
    assert read_field(question, embedder) == field
    assert detect_intent(question, embedder=embedder).domains == [field]
    asked = sources_of(question, embedder)
    assert ("arxiv" in asked) == (field != "chemistry")
    assert ("pubmed" in asked) == (field == "chemistry")  # PubMed serves chemistry


@pytest.mark.parametrize("question", ["History of the printing press in Europe",
                                      "Coral reef bleaching and rising ocean temperatures",
                                      "Does a minimum wage increase reduce employment?"])
def test_history_ecology_and_economics_stay_general(question, embedder):
    assert read_field(question, embedder) is None
    assert detect_intent(question, embedder=embedder).domains == ["general"]
    assert sources_of(question, embedder) == ["openalex", "web"]


@pytest.mark.parametrize("question", ["Stability of perovskite solar cells under humidity",
                                      "Machine learning for code review",
                                      "Gravitational wave detection with laser interferometers"])
def test_cue_words_decide_first_and_the_meaning_adds_no_other_field(question, embedder):
    assert detect_intent(question, embedder=embedder).domains == detect_intent(question).domains


@pytest.mark.parametrize("question", ["Is LiFePO4 thermodynamically stable?",
                                      "Which polymorph of TiO2 is most stable?",
                                      "Formation energy of Li-Fe-O compounds",
                                      "Is CsPbI3 thermodynamically stable at room temperature?"])
def test_a_materials_property_question_asks_the_materials_sources_not_pubmed(question,
                                                                              embedder):
    """A polymorph or formation-energy question reads as chemistry as well as materials (by
    its meaning or its words), and chemistry used to ask PubMed, which answered with
    toxicology. A question that reads as materials science and not as biomedical asks the
    Materials Project, arXiv and OpenAlex."""
    found = detect_intent(question, this_year=2026, embedder=embedder)
    assert "materials" in found.domains and "biomedical" not in found.domains
    assert active_sources(found, ReviewContext()) == ["arxiv", "openalex", "materials"]


@pytest.mark.parametrize("question", ["Toxicity of TiO2 nanoparticles in the lung",
                                      "Biocompatibility of titanium alloy implants",
                                      "Cytotoxicity of graphene oxide",
                                      "Does zinc oxide in sunscreen penetrate human skin?"])
def test_a_materials_question_about_health_still_asks_pubmed(question, embedder):
    """Its health side is read by cue words or by meaning (a sketch of toxicity and
    biocompatibility among the life sciences' sketches), not from a list of materials."""
    found = detect_intent(question, this_year=2026, embedder=embedder)
    assert "biomedical" in found.domains
    assert "pubmed" in active_sources(found, ReviewContext())


def test_chemistry_that_is_not_a_materials_question_still_asks_pubmed(embedder):
    found = detect_intent("Enantioselective hydrogenation of ketones", embedder=embedder)
    assert found.domains == ["chemistry"]
    assert "pubmed" in active_sources(found, ReviewContext())


@pytest.mark.parametrize("question", ["C2 deficiency increases risk of lupus.",
                                      "Does H1N1 vaccination prevent hospitalisation?",
                                      "HSP90 inhibition slows tumour growth in mice.",
                                      "Vitamin B12 deficiency causes anaemia.",
                                      "Ca2+ signalling in cardiac muscle cells",
                                      "HSCs expand in co-culture with stromal cells.",
                                      "H2O2 scavenging by catalase in red blood cells"])
def test_a_gene_protein_or_virus_name_in_a_biomedical_question_names_no_material(question,
                                                                                 embedder):
    """Written as formulas are (C2, H1N1, HSP90, B12, Ca2+; "HSCs" as H, S and caesium), such
    names read as carbon or a hydrogen nitride, and made the question a materials one: the
    Materials Project was asked for C2, and a question read as no other field left PubMed
    out."""
    found = detect_intent(question, this_year=2026, embedder=embedder)
    assert "materials" not in found.domains and found.formula is None
    asked = active_sources(found, ReviewContext())
    assert "pubmed" in asked and "materials" not in asked


@pytest.mark.parametrize(("question", "formula"), [("Is LiFePO4 stable?", "LiFePO4"),
                                                   ("band gap of GaN", "GaN"),
                                                   ("Band gap of VO2", "VO2")])
def test_a_formula_in_a_materials_question_still_names_a_material(question, formula, embedder):
    found = detect_intent(question, this_year=2026, embedder=embedder)
    assert found.domains == ["materials"] and found.formula == formula
    assert active_sources(found, ReviewContext()) == ["arxiv", "openalex", "materials"]


def test_a_materials_question_about_health_keeps_its_formula(embedder):
    found = detect_intent("Does TiO2 nanoparticle exposure cause lung inflammation?",
                          this_year=2026, embedder=embedder)
    assert {"biomedical", "materials"} <= set(found.domains) and found.formula == "TiO2"
