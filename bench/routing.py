"""How often the deterministic intent sends a biomedical question to PubMed, and a computer
science one not to PubMed: the routing rule's recall and its false alarms, on real texts.

    python bench/routing.py [--half even|odd|all]

Biomedical: the SciFact train claims (``../shared/evaldata/scifact/claims``; every one is a
biomedical finding) and the titles of the screening reviews. Not biomedical: the DBLP titles of
``dedup/dblp_acm`` (database research papers). ``--half`` keeps the claims with even or odd ids,
so a vocabulary chosen by looking at one half is measured on the other. The bench reads the
shared evaluation data where it lies and copies none of it; it skips cleanly when it is absent.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from scholargraph.agents.intent import active_sources, detect_intent
from scholargraph.context import ReviewContext

EVALDATA = Path(__file__).resolve().parents[2] / "shared" / "evaldata"


def pubmed_share(texts: list[str]) -> float:
    """The share of ``texts`` whose deterministic reading asks PubMed."""
    context = ReviewContext()
    asked = [t for t in texts if "pubmed" in active_sources(detect_intent(t, this_year=2026),
                                                            context)]
    return len(asked) / max(1, len(texts))


def claims(half: str) -> list[str]:
    path = EVALDATA / "scifact" / "claims" / "claims_train.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    keep = {"even": 0, "odd": 1}.get(half)
    return [r["claim"] for r in rows if keep is None or int(r["id"]) % 2 == keep]


def review_titles() -> list[str]:
    return [json.loads(p.read_text()).get("review_title", "")
            for p in sorted((EVALDATA / "screening").glob("*/review.json"))]


def dblp_titles() -> list[str]:
    with (EVALDATA / "dedup" / "dblp_acm" / "DBLP2_tableA.csv").open(encoding="latin-1") as f:
        return [row["title"] for row in csv.DictReader(f)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("even", "odd", "all"), default="all")
    half = parser.parse_args().half
    if not EVALDATA.exists():
        print(f"skipped: {EVALDATA} is absent")
        return 0
    print(f"SciFact claims ({half}) asking PubMed: {pubmed_share(claims(half)):.3f}")
    print(f"screening review titles asking PubMed: {pubmed_share(review_titles()):.3f}")
    print(f"DBLP titles asking PubMed (false alarms): {pubmed_share(dblp_titles()):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
