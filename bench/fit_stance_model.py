"""Fit the decision of whether a claim's most direct study supports it
(:mod:`scholargraph.deterministic.stance_weights`) on dumped reviews, and measure it held out.

    python bench/fit_stance_model.py --claims CLAIMS.jsonl --dump DIR [--dump DIR ...]
                                     [--split 400] [--rows ROWS.pkl]

The reviews are those ``bench/review.py --dump DIR`` wrote (each claim's node updates). For
each claim, its sentences are ranked again as synthesis ranks them
(:func:`~scholargraph.deterministic.extractive.claim_candidates`, with the default sentence
model), every included study is read by the rules
(:func:`scholargraph.agents.synthesis.study_reading`), and the most direct study's features
(:class:`~scholargraph.deterministic.stance_weights.SupportFeatures`) are computed; ``--rows``
keeps them for the next run. A logistic regression (scikit-learn, L2, standardised features) is
fitted on the claims before ``--split`` only (target: the study is SUPPORT evidence of the
claim), its probability threshold chosen there too, on label-F1. Printed: the coefficients on the
raw scale (the threshold folded into the intercept), ready to be written into
``stance_weights.py``, then the label precision, recall and F1 of the rules alone and of the
rules with the decision, on the fitted part, on the claims after ``--split`` (never seen), and on
the claims with at least two evidence abstracts. A label counts as SciFact's abstract-level
label-only F1 counts it (``bench/review.py``), here over every included study's stance (the
bench counts the cited ones; the reviews cite every study given a stance). The contradiction
figures do not move: the decision never gives or takes a contradiction.
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

import __main__
from scholargraph.agents.synthesis import (
    StudyReading,
    SupportDecision,
    study_reading,
)
from scholargraph.deterministic.extractive import claim_candidates
from scholargraph.deterministic.questions import is_claim, stance_claim
from scholargraph.deterministic.relevance import question_itself
from scholargraph.deterministic.stance_weights import SupportFeatures
from scholargraph.rag.embeddings import load_embedder
from scholargraph.testing.services.corpus import openalex_id_for

from review import LABELS, Claim, read_claims

FEATURES = list(SupportFeatures.model_fields)
C = 1.0
"""Inverse L2 strength (scikit-learn's default)."""
THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=Path, required=True)
    parser.add_argument("--dump", type=Path, action="append", required=True,
                        help="folder of bench/review.py --dump (repeat for several)")
    parser.add_argument("--split", type=int, default=400, help="fit on claims before this index")
    parser.add_argument("--rows", type=Path, help="pickle to keep the computed rows in")
    args = parser.parse_args()
    __main__.Claim = Claim  # type: ignore[attr-defined]  # the dumps pickled it as __main__'s
    claims = read_claims(args.claims)
    if args.rows is not None and args.rows.exists():
        rows = pickle.loads(args.rows.read_bytes())
    else:
        rows = claim_rows(claims, args.dump)
        if args.rows is not None:
            args.rows.write_bytes(pickle.dumps(rows))
    tune = [row for row in rows if row["index"] < args.split]
    held = [row for row in rows if row["index"] >= args.split]
    several = [row for row in rows if len(row["claim"].evidence) >= 2]
    model, scaler, threshold = fit(tune, claims[:args.split])
    weights = model.coef_[0] / scaler.scale_
    intercept = (model.intercept_[0] - float(weights @ scaler.mean_)
                 - math.log(threshold / (1 - threshold)))
    print(f"fitted on {len(tune)} reviews (claims 0-{args.split - 1}), "
          f"{sum(row['direct'] is not None for row in tune)} most direct studies; "
          f"threshold {threshold}")
    print(f"INTERCEPT = {intercept:.3f}")
    for name, weight in zip(FEATURES, weights, strict=True):
        print(f"{name.upper()} = {weight:.3f}")
    decide = decider(model, scaler, threshold)
    for name, part, gold in (
            (f"fitted 0-{args.split - 1}", tune, claims[:args.split]),
            (f"held out {args.split}-{len(claims) - 1}", held, claims[args.split:]),
            ("several evidence", several, [c for c in claims if len(c.evidence) >= 2])):
        print(f"{name:24s} rules {scores(part, gold, None)}  with decision "
              f"{scores(part, gold, decide)}")


def claim_rows(claims: list[Claim], dumps: list[Path]) -> list[dict]:
    """Per dumped claim review: each included study's rule reading, and the most direct
    study's features, with the claim's gold labels of each study."""
    embedder = load_embedder(None)
    rows = []
    for index, claim in enumerate(claims):
        path = next((d / f"{claim.claim_id}.pkl" for d in dumps
                     if (d / f"{claim.claim_id}.pkl").exists()), None)
        state = before_synthesis(pickle.loads(path.read_bytes())["updates"]) if path else None
        if state is None:
            continue
        passages, papers = state.get("passages", []), state.get("papers", [])
        question = state.get("cleaned_question") or state.get("question") or claim.text
        itself = question_itself(state["sub_questions"], question)
        stated = stance_claim(question)
        if itself is None or not passages or stated is None or not is_claim(question):
            continue
        ranked = claim_candidates(itself, passages, papers, state["intent"].keywords, embedder)
        decision = SupportDecision.of(stated, embedder)
        by_openalex = {openalex_id_for(doc): doc for doc in [*claim.evidence, *claim.cited]}
        studies, direct = [], None
        for work in papers:
            is_direct = bool(ranked) and work.id == ranked[0].work_id
            read: StudyReading = study_reading(stated, work, ranked, is_direct)
            doc = by_openalex.get(work.openalex_id or "")
            studies.append((doc, read.reading, is_direct))
            if (is_direct and read.chosen is not None and decision is not None
                    and read.reading == "supports"):
                direct = decision.features(work, read.chosen, read)
        rows.append({"index": index, "claim": claim, "studies": studies, "direct": direct})
        print(f"[{index}] {claim.claim_id}", file=sys.stderr, flush=True)
    return rows


def before_synthesis(updates: list[tuple[str, dict]]) -> dict | None:
    """The review's state as synthesis received it."""
    state: dict = {}
    for node, update in updates:
        if node == "synthesis":
            return dict(state)
        state.update(update)
    return None


def supported(row: dict, doc: str | None) -> bool:
    return doc is not None and "SUPPORT" in row["claim"].evidence.get(doc, set())


def fit(rows: list[dict], claims: list[Claim]
        ) -> tuple[LogisticRegression, StandardScaler, float]:
    """The model on the most direct studies the rules read as supporting the claim, and the
    threshold with the best label-F1 on the same claims."""
    cases = [row for row in rows if row["direct"] is not None]
    x = np.array([vector(row["direct"]) for row in cases])
    y = np.array([supported(row, next(d for d, _, is_direct in row["studies"] if is_direct))
                  for row in cases])
    scaler = StandardScaler().fit(x)
    model = LogisticRegression(C=C, max_iter=3000).fit(scaler.transform(x), y)
    best = max(THRESHOLDS, key=lambda t: f1(rows, claims, decider(model, scaler, t)))
    return model, scaler, best


def vector(features: SupportFeatures) -> list[float]:
    return [float(getattr(features, name)) for name in FEATURES]


def decider(model: LogisticRegression, scaler: StandardScaler, threshold: float):
    def decide(features: SupportFeatures) -> bool:
        x = scaler.transform(np.array([vector(features)]))
        return bool(model.predict_proba(x)[0, 1] >= threshold)
    return decide


def given(row: dict, decide) -> list[tuple[str | None, str]]:
    """The (gold document or None, label) pairs one review gives: the rules' readings, the most
    direct study's given by ``decide`` when there is one to decide."""
    found = []
    for doc, reading, is_direct in row["studies"]:
        if is_direct and decide is not None and row["direct"] is not None:
            label = "SUPPORT" if decide(row["direct"]) else None  # the rules' SUPPORT, or none
        else:
            label = LABELS.get(reading)
        if label is not None:
            found.append((doc, label))
    return found


def counts(rows: list[dict], claims: list[Claim], decide) -> tuple[int, int, int]:
    """Labels given, right, and gold labels (a label on a study that is no evidence of the claim
    is given and wrong)."""
    pairs = [(row["claim"], doc, label) for row in rows for doc, label in given(row, decide)]
    right = sum(doc is not None and label in claim.evidence.get(doc, set())
                for claim, doc, label in pairs)
    return len(pairs), right, sum(len(claim.evidence) for claim in claims)


def f1(rows: list[dict], claims: list[Claim], decide) -> float:
    given, right, gold = counts(rows, claims, decide)
    precision, recall = right / max(given, 1), right / max(gold, 1)
    return 2 * precision * recall / max(precision + recall, 1e-9)


def scores(rows: list[dict], claims: list[Claim], decide) -> str:
    given, right, gold = counts(rows, claims, decide)
    return (f"F1 {f1(rows, claims, decide):.3f} (P {right / max(given, 1):.3f} "
            f"R {right / max(gold, 1):.3f}, {given} labels)")


if __name__ == "__main__":
    main()
