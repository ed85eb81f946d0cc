"""fields: whether a question reads as biomedical by its meaning, when no cue word says so.

The intent's cue words (``agents/intent.py``) name the life sciences by their own vocabulary:
disease, drug, gene, cell. A scientist's everyday clinical question often uses none of them
("Does vitamin D supplementation prevent fractures in older adults?"), and a list of words grows
without end. So, when no biomedical cue matches, the question is embedded with the run's
sentence encoder (the bundled all-MiniLM-L6-v2, which the RAG filter loads anyway) and compared
with short sketches of fields of research: it reads as biomedical when its nearest biomedical
sketch is nearer than its nearest sketch of any other field by :data:`BIOMEDICAL_MARGIN`.

The sketches are plain descriptions of what each field studies, written for this purpose (not
drawn from any evaluation data); the other fields are there so that a question on databases,
the Roman Empire or a battery cathode has somewhere nearer to go. The margin was chosen on half
of the routing bench (``python bench/routing.py --half even``) and measured on the other half.
"""

from __future__ import annotations

import numpy as np

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
)
"""What PubMed indexes, in a scientist's words: care, public health, the body, the lab."""

OTHER_SKETCHES: tuple[str, ...] = (
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
    "quantum physics, particles and fields",
    "astronomy, astrophysics, stars and galaxies",
    "optics, lasers and photonics",
    "materials science: alloys, crystals and thin films",
    "batteries, semiconductors and solar cells",
    "chemical synthesis, catalysis and reactions",
    "ecology: species, ecosystems, biodiversity and habitats",
    "climate change, weather and the atmosphere",
    "geology, earthquakes, oceans and the earth",
    "agriculture, crops, farming and soil",
    "history of societies, wars, empires and inventions",
    "literature, art, music, philosophy and religion",
    "economics, markets, trade, firms and finance",
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
"""The rest of research, so that "nearest" means something: computing, the physical sciences,
the earth and its life outside medicine, the social sciences and the humanities."""

BIOMEDICAL_MARGIN = 0.03
"""How much nearer (in cosine) the nearest biomedical sketch must be than the nearest other one.
Chosen on the even half of the routing bench among 0.00-0.10: below 0.02 content-free titles
("Chair's Message") drift to the biomedical side; above 0.04 short molecular claims are lost."""

SKETCH_MODELS = (MINILM, MINILM_INT8)
"""The encoders the margin was set for (any token limit: questions are short). Another model
places texts elsewhere, and loading one only for this would cost a run more than it saves."""

_sketches: dict[str, tuple[np.ndarray, np.ndarray]] = {}
"""The sketches' vectors per embedder name: embedded once a process."""


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


def _sketch_vectors(embedder: Embedder) -> tuple[np.ndarray, np.ndarray]:
    if embedder.name not in _sketches:
        _sketches[embedder.name] = (embedder.embed_documents(BIOMEDICAL_SKETCHES),
                                    embedder.embed_documents(OTHER_SKETCHES))
    return _sketches[embedder.name]


def biomedical_margin(text: str, embedder: Embedder) -> float:
    """How much nearer ``text`` lies to the nearest biomedical sketch than to the nearest other."""
    vector = embedder.embed_query(text)
    biomedical, other = _sketch_vectors(embedder)
    return float(np.max(biomedical @ vector) - np.max(other @ vector))


def reads_as_biomedical(text: str, embedder: Embedder | None) -> bool:
    """Whether ``text`` reads as biomedical by meaning; False without an embedder, or when the
    embedder fails (the cue words have then had the only say)."""
    if embedder is None or not text.strip():
        return False
    try:
        return biomedical_margin(text, embedder) > BIOMEDICAL_MARGIN
    except EmbeddingUnavailable:
        return False
