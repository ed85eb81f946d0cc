"""How often the deterministic intent sends a biomedical question to PubMed, and a computer
science one not to PubMed but to computer science: the routing rule's recall and its false
alarms, on real texts.

    python bench/routing.py [--half even|odd|all] [--cues-only] [--questions]

It reads as a run does: cue words, then the meaning of what no biomedical cue names, and the
field of what no cue places at all (the run's MiniLM against field sketches,
``scholargraph.deterministic.fields``); ``--cues-only`` reads by cue words alone, as before that
fallback. ``--questions`` also prints how each of
:data:`QUESTIONS` routes (mixed fields, written for this bench) and how many route as expected.

Biomedical: the SciFact train claims (``../shared/evaldata/scifact/claims``; every one is a
biomedical finding) and the titles of the screening reviews (mostly biomedical; two are on
software engineering and on statistics). Not biomedical: the DBLP titles of ``dedup/dblp_acm``
(database research papers), which should read as computer science; SciFact claims read as
computer science or physics are false alarms of that reading. ``--half`` keeps the claims with
even or odd ids and the DBLP titles on even or odd rows, so a rule chosen by looking at one half
is measured on the other.
The bench reads the shared evaluation data where it lies and copies none of it; it skips
cleanly when it is absent.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys

from scholargraph.agents.intent import active_sources, detect_intent
from scholargraph.context import ReviewContext
from scholargraph.deterministic.fields import field_embedder
from scholargraph.rag.embeddings import Embedder
from scholargraph.settings import get_settings

from shared_data import shared_beside

EVALDATA = shared_beside("evaldata")

QUESTIONS: tuple[tuple[str, bool | None, bool | None], ...] = (
    ("Does vitamin D supplementation prevent fractures in older adults?", True, False),
    ("Does walking every day lengthen life in elderly people?", True, False),
    ("Do standing desks reduce back pain in office workers?", True, False),
    ("Does screen time before bed harm children's sleep?", True, False),
    ("Does fluoridated drinking water reduce tooth decay?", True, False),
    ("Does a sugar tax reduce soft drink consumption?", True, False),
    ("Does hand washing reduce diarrhoea in low-income countries?", True, False),
    ("Does bilingualism delay dementia?", True, False),
    ("Is acupuncture effective for chronic low back pain?", True, False),
    ("Does aircraft noise disturb the sleep of people living near airports?", True, False),
    ("Does mindfulness training reduce stress in nurses?", True, False),
    ("Does quitting smoking in middle age reduce the risk of lung problems?", True, False),
    ("Is a Mediterranean diet associated with longer life?", True, False),
    ("Do iron supplements improve school performance in anaemic children?", True, False),
    ("Does breastfeeding raise children's IQ?", True, False),
    ("History of the printing press in Europe", False, False),
    ("Causes of the fall of the Western Roman Empire", False, False),
    ("Machine learning for code review", False, True),
    ("Are large language models good at writing unit tests?", False, True),
    ("Query optimization in distributed databases", False, True),
    ("Thermal conductivity of graphene", False, True),
    ("Stability of perovskite solar cells under humidity", False, True),
    ("Carbon capture with metal-organic frameworks", False, None),
    ("Gravitational wave detection with laser interferometers", False, True),
    ("Detection of dark matter with liquid xenon detectors", False, True),
    ("Effect of wolf reintroduction on the Yellowstone ecosystem", False, False),
    ("Coral reef bleaching and rising ocean temperatures", False, False),
    ("Does a minimum wage increase reduce employment?", False, False),
    ("The role of the Medici family in Renaissance art patronage", False, False),
    ("Effect of school class size on pupils' test scores", False, False),
    ("Lithium-ion battery cathode degradation mechanisms", False, True),
    ("Do neonicotinoid pesticides harm wild bee populations?", None, False),
    # written after the margin was set, as a check on questions it was not chosen with
    ("Is intermittent fasting effective for weight loss?", True, False),
    ("Do e-cigarettes help smokers quit?", True, False),
    ("Do hearing aids slow cognitive decline?", True, False),
    ("Deep learning for detecting fractures on radiographs", True, True),
    ("Does green space improve wellbeing in cities?", True, False),
    ("Compiler optimizations for GPU kernels", False, True),
    ("Impact of remote work on productivity", False, False),
    ("Effect of social media on teenage wellbeing", None, None),
    # the other fields by meaning (second pass), in words no cue names; written before their
    # margin was chosen
    ("Topological insulators", False, True),
    ("Neutrino oscillations", False, True),
    ("Dark energy and the expansion of the universe", False, True),
    ("Bose-Einstein condensates of ultracold atoms", False, True),
    ("Black hole evaporation", False, True),
    ("Corrosion of stainless steel in seawater", False, True),
    ("Fatigue cracking in welded steel joints", False, True),
    ("Two-dimensional transition metal dichalcogenides", False, True),
    ("Self-healing concrete", False, None),
    ("Mechanism of the Diels-Alder cycloaddition", None, False),
    ("Asymmetric organocatalysis", None, False),
    ("Green hydrogen production by water electrolysis", None, None),
    ("Consensus protocols for blockchains", False, True),
    ("Formal verification of smart contracts", False, True),
    ("Static analysis for finding bugs in C programs", False, True),
    ("Garbage collection in managed runtimes", False, True),
    # written after that margin was set, as a check
    ("Cache coherence in multicore processors", False, True),
    ("Differential privacy for census releases", False, True),
    ("Type inference for dynamic languages", False, True),
    ("Sorting networks", False, True),
    ("Fluid turbulence at high Reynolds number", False, True),
    ("Exoplanet atmospheres", False, True),
    ("Higgs boson decay channels", False, True),
    ("Hydrogen embrittlement of steels", False, True),
    ("Enantioselective hydrogenation of ketones", None, False),
    ("Ozone depletion over Antarctica", False, False),
    ("Origins of the First World War", False, False),
    ("Does tai chi prevent falls in the elderly?", True, False),
)
"""Questions of mixed fields written for this bench (none from the evaluation data), each with
whether a scientist would want PubMed asked, then arXiv: clinical and public-health questions in
everyday words (PubMed, not arXiv); computing, physics and materials ones (arXiv, not PubMed);
ecology, economics, education and history ones (neither). None: either is defensible (pesticides
and bees: ecology, with a toxicology side; chemistry, which PubMed indexes in part)."""


def sources_of(text: str, embedder: Embedder | None) -> list[str]:
    """The sources the deterministic reading of ``text`` asks, as a run with no explicit
    sources would."""
    return active_sources(detect_intent(text, this_year=2026, embedder=embedder), ReviewContext())


def domains_of(text: str, embedder: Embedder | None) -> list[str]:
    """The fields the deterministic reading of ``text`` places it in."""
    return list(detect_intent(text, this_year=2026, embedder=embedder).domains)


def share_reading(texts: list[str], fields: set[str], embedder: Embedder | None) -> float:
    """The share of ``texts`` read as in any of ``fields``."""
    return sum(bool(fields & set(domains_of(t, embedder))) for t in texts) / max(1, len(texts))


def asks_pubmed(text: str, embedder: Embedder | None) -> bool:
    """Whether the deterministic reading of ``text`` asks PubMed, as a run with no explicit
    sources would."""
    intent = detect_intent(text, this_year=2026, embedder=embedder)
    return "pubmed" in active_sources(intent, ReviewContext())


def pubmed_share(texts: list[str], embedder: Embedder | None = None) -> float:
    """The share of ``texts`` whose deterministic reading asks PubMed."""
    return sum(asks_pubmed(t, embedder) for t in texts) / max(1, len(texts))


def materials_share(texts: list[str], embedder: Embedder | None = None) -> float:
    """The share of ``texts`` whose deterministic reading asks the Materials Project: for the
    SciFact claims, false alarms (a gene or protein name read as a formula: "C5", "H3K9")."""
    return sum("materials" in sources_of(t, embedder) for t in texts) / max(1, len(texts))


def claims(half: str) -> list[str]:
    path = EVALDATA / "scifact" / "claims" / "claims_train.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    keep = {"even": 0, "odd": 1}.get(half)
    return [r["claim"] for r in rows if keep is None or int(r["id"]) % 2 == keep]


def review_titles() -> list[str]:
    return [json.loads(p.read_text()).get("review_title", "")
            for p in sorted((EVALDATA / "screening").glob("*/review.json"))]


def dblp_titles(half: str = "all") -> list[str]:
    with (EVALDATA / "dedup" / "dblp_acm" / "DBLP2_tableA.csv").open(encoding="latin-1") as f:
        titles = [row["title"] for row in csv.DictReader(f)]
    keep = {"even": 0, "odd": 1}.get(half)
    return [t for i, t in enumerate(titles) if keep is None or i % 2 == keep]


def print_questions(embedder: Embedder | None) -> None:
    """How each of :data:`QUESTIONS` routes, and how many route as expected."""
    agreed = judged = 0
    for question, pubmed, arxiv in QUESTIONS:
        intent = detect_intent(question, this_year=2026, embedder=embedder)
        sources = active_sources(intent, ReviewContext())
        wanted = [(w, s in sources) for w, s in ((pubmed, "pubmed"), (arxiv, "arxiv"))
                  if w is not None]
        mark = "  " if not wanted else ("ok" if all(w == a for w, a in wanted) else "NO")
        judged += bool(wanted)
        agreed += bool(wanted) and all(w == a for w, a in wanted)
        print(f"{mark} {'/'.join(intent.domains):28} {', '.join(sources):40} {question}")
    print(f"questions routed as expected (PubMed and arXiv): {agreed}/{judged}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("even", "odd", "all"), default="all")
    parser.add_argument("--cues-only", action="store_true",
                        help="read by cue words alone (no meaning fallback)")
    parser.add_argument("--questions", action="store_true",
                        help="also print how each of the bench's own questions routes")
    args = parser.parse_args()
    embedder = None if args.cues_only else field_embedder(get_settings())
    reading = "cue words only" if embedder is None else f"cue words, then {embedder.name}"
    print(f"reading: {reading}")
    if args.questions:
        print_questions(embedder)
    if not EVALDATA.exists():
        print(f"skipped: {EVALDATA} is absent")
        return 0
    half = args.half
    print(f"SciFact claims ({half}) asking PubMed: {pubmed_share(claims(half), embedder):.3f}")
    print(f"SciFact claims ({half}) asking the Materials Project (false alarms): "
          f"{materials_share(claims(half), embedder):.3f}")
    print(f"screening review titles asking PubMed: {pubmed_share(review_titles(), embedder):.3f}")
    print(f"DBLP titles ({half}) asking PubMed (false alarms): "
          f"{pubmed_share(dblp_titles(half), embedder):.3f}")
    print(f"DBLP titles ({half}) read as computer science: "
          f"{share_reading(dblp_titles(half), {'computer_science'}, embedder):.3f}")
    print(f"SciFact claims ({half}) read as computer science or physics (false alarms): "
          f"{share_reading(claims(half), {'computer_science', 'physics'}, embedder):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
