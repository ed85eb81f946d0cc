"""fields: the field a question reads as by its meaning, when no cue word says so.

The intent's cue words (``agents/intent.py``) name the life sciences by their own vocabulary:
disease, drug, gene, cell. A scientist's everyday clinical question often uses none of them
("Does vitamin D supplementation prevent fractures in older adults?"), and a list of words grows
without end. So, when no biomedical cue matches, the question is embedded with the run's
sentence encoder (the bundled all-MiniLM-L6-v2, which the RAG filter loads anyway) and compared
with short sketches of fields of research: it reads as biomedical when its nearest biomedical
sketch is nearer than its nearest sketch of any other field by :data:`BIOMEDICAL_MARGIN`. A
question no cue word places at all ("Compiler optimizations for GPU kernels", "Topological
insulators") takes the field of its nearest sketch in the same way, computing, physics, materials
or chemistry, when that field leads every other by its margin (:data:`FIELD_MARGINS`), so that
arXiv is asked; nearest to a sketch of none of these (history, ecology, economics), it stays
general. All the sketches are embedded once a process; a question costs one short embedding.

The sketches are plain descriptions of what each field studies, written for this purpose (not
drawn from any evaluation data); the other fields are there so that a question on databases,
the Roman Empire or a battery cathode has somewhere nearer to go. The margins were chosen on half
of the routing bench (``python bench/routing.py --half even``) and measured on the other half.
"""

from __future__ import annotations

import numpy as np

from scholargraph.agents.schemas import Domain
from scholargraph.errors import ConfigurationError
from scholargraph.rag.embeddings import (
    MINILM,
    MINILM_INT8,
    Embedder,
    EmbeddingUnavailable,
    load_embedder,
)
from scholargraph.settings import Settings

BIOMEDICAL_SKETCHES: tuple[str, ...] = (
    "clinical medicine: diagnosis and treatment of patients",
    "a randomised controlled trial of a treatment",
    "public health and epidemiology: disease risk in a population",
    "nutrition, diet, vitamins and dietary supplements and health",
    "physical activity, exercise, sleep, smoking and alcohol and health outcomes",
    "health of older adults, elderly people and ageing",
    "health of children, infants and adolescents",
    "women's health, pregnancy and childbirth",
    "bones, joints, muscles, fractures, injuries and pain",
    "heart, blood vessels, blood pressure and circulation",
    "mental health, psychiatry and psychology",
    "the brain, nerves and neuroscience",
    "infections, viruses, bacteria, vaccines and immunity",
    "drugs, medicines, doses and side effects",
    "surgery, hospitals, nursing and health care",
    "molecular biology: genes, proteins and cells",
    "cancer and tumours",
    "physiology and metabolism of the human body",
    "laboratory animal experiments in mice and rats",
    "toxicity of nanoparticles and chemicals to human health",
    "biocompatibility of medical implants and biomaterials in the body",
)
"""What PubMed indexes, in a scientist's words: care, public health, the body, the lab, and
the health side of materials: a question on the toxicity of TiO2 nanoparticles or on titanium
implants reads as biomedical as well as materials, and asks PubMed, where one on TiO2's
polymorphs does not (the last two sketches; on SciFact train claims, 4 more read as
biomedical and 3 no longer as chemistry, ``bench/routing.py``)."""

COMPUTING_SKETCHES: tuple[str, ...] = (
    "machine learning and neural network models",
    "software engineering, programming and source code",
    "databases, query processing and data management",
    "computer networks, distributed systems and cloud computing",
    "computer security and cryptography",
    "algorithms, data structures and computational complexity",
    "natural language processing, search engines and information retrieval",
    "human-computer interaction and user interfaces",
    "robotics, control systems and autonomous vehicles",
    "computer vision and image processing",
    "programming languages, compilers and formal verification",
)
PHYSICS_SKETCHES: tuple[str, ...] = (
    "quantum physics, particles and fields",
    "astronomy, astrophysics, stars and galaxies",
    "optics, lasers and photonics",
    "gravity, relativity, black holes and cosmology",
    "condensed matter physics: electrons, magnetism and superconductivity",
    "atomic and nuclear physics",
)
MATERIALS_SKETCHES: tuple[str, ...] = (
    "materials science: alloys, crystals and thin films",
    "batteries, semiconductors and solar cells",
    "mechanical properties of metals and steel: strength, fatigue, cracking and corrosion",
)
CHEMISTRY_SKETCHES: tuple[str, ...] = (
    "chemical synthesis, catalysis and reactions",
    "organic chemistry: molecules, reactions and catalysts",
    "physical and analytical chemistry: spectroscopy and electrochemistry",
)
REST_SKETCHES: tuple[str, ...] = (
    "ecology: species, ecosystems, biodiversity and habitats",
    "climate change, weather and the atmosphere",
    "geology, earthquakes, oceans and the earth",
    "agriculture, crops, farming and soil",
    "history of societies, wars, empires and inventions",
    "literature, art, music, philosophy and religion",
    "economics, markets, trade, firms and finance",
    "work, jobs, employment and the workplace",
    "politics, law, government and elections",
    "education, schools, universities and teaching",
    "sociology, culture, media and social networks",
    "civil and mechanical engineering: structures, engines and machines",
    "energy systems, power grids and electricity",
    "mathematics: theorems, proofs and equations",
    "statistics: estimation, sampling and statistical models",
    "business management, organisations and marketing",
    "linguistics and languages",
    "transport, cities and urban planning",
)
"""The rest of research, so that "nearest" means something: the earth and its life outside
medicine, engineering, mathematics, the social sciences and the humanities."""

FIELD_SKETCHES: dict[Domain, tuple[str, ...]] = {
    "biomedical": BIOMEDICAL_SKETCHES, "computer_science": COMPUTING_SKETCHES,
    "physics": PHYSICS_SKETCHES, "materials": MATERIALS_SKETCHES,
    "chemistry": CHEMISTRY_SKETCHES,
}
"""The sketches of each field a source is chosen by; :data:`REST_SKETCHES` belong to none."""

BIOMEDICAL_MARGIN = 0.03
"""How much nearer (in cosine) the nearest biomedical sketch must be than the nearest other one.
Chosen on the even half of the routing bench among 0.00-0.10: below 0.02 content-free titles
("Chair's Message") drift to the biomedical side; above 0.04 short molecular claims are lost."""

FIELD_MARGINS: dict[str, float] = {
    "biomedical": BIOMEDICAL_MARGIN, "computer_science": 0.02, "physics": 0.02,
    "materials": 0.02, "chemistry": 0.02,
}
"""The lead each field's nearest sketch needs over every other field's nearest sketch. The
fields outside the life sciences share 0.02, chosen on the even half of the routing bench among
0.00-0.10 by DBLP titles read as computer science against SciFact claims read as computer science
or physics: at 0.00 three claims slip to computer science (leads up to 0.007), from 0.01 none do,
and recall falls a point every 0.01 after; 0.02 keeps twice the room of 0.01 for a point. On the
odd half, held out: DBLP titles read as computer science 0.061 -> 0.831, claims read as computer
science or physics 0.018 -> 0.018 (all from cue words)."""

SKETCH_MODELS = (MINILM, MINILM_INT8)
"""The encoders the margin was set for (any token limit: questions are short). Another model
places texts elsewhere, and loading one only for this would cost a run more than it saves."""

_sketches: dict[str, dict[str, np.ndarray]] = {}
"""The sketches' vectors per embedder name, by field ("rest" for the others): embedded once a
process."""


def field_embedder(settings: Settings) -> Embedder | None:
    """The run's embedder when it is the MiniLM the margin was set for, else None (cue words
    only). It is the one the RAG filter loads, so reading the field costs one short embedding."""
    spec = (settings.embedding_model or MINILM_INT8).strip()
    if not any(spec == name or spec.startswith(f"{name}-max") for name in SKETCH_MODELS):
        return None
    try:
        return load_embedder(spec, models_dir=settings.models_path)
    except ConfigurationError:  # EmbeddingUnavailable among them: cue words alone, as before
        return None


def _sketch_vectors(embedder: Embedder) -> dict[str, np.ndarray]:
    if embedder.name not in _sketches:
        groups = [*FIELD_SKETCHES.items(), ("rest", REST_SKETCHES)]
        _sketches[embedder.name] = {field: embedder.embed_documents(sketches)
                                    for field, sketches in groups}
    return _sketches[embedder.name]


def field_nearness(text: str, embedder: Embedder) -> dict[str, float]:
    """The cosine of ``text`` with the nearest sketch of each field ("rest": of none of ours)."""
    vector = embedder.embed_query(text)
    return {field: float(np.max(vectors @ vector))
            for field, vectors in _sketch_vectors(embedder).items()}


def lead(nearness: dict[str, float], field: str) -> float:
    """How much nearer ``field``'s nearest sketch is than the nearest sketch of any other."""
    return nearness[field] - max(v for f, v in nearness.items() if f != field)


def biomedical_margin(text: str, embedder: Embedder) -> float:
    """How much nearer ``text`` lies to the nearest biomedical sketch than to the nearest other."""
    return lead(field_nearness(text, embedder), "biomedical")


def read_field(text: str, embedder: Embedder | None) -> Domain | None:
    """The field ``text`` reads as by its meaning: the field of its nearest sketch, when that
    sketch is nearer than any other field's by the field's margin (:data:`FIELD_MARGINS`). None
    without an embedder, when the embedder fails, or when no field leads by enough."""
    if embedder is None or not text.strip():
        return None
    try:
        nearness = field_nearness(text, embedder)
    except EmbeddingUnavailable:
        return None
    nearest = max(FIELD_SKETCHES, key=nearness.__getitem__)  # a lead over "rest" too, below
    return nearest if lead(nearness, nearest) > FIELD_MARGINS[nearest] else None
