"""Fit the decision of which way each study a claim's review includes points
(:mod:`scholargraph.deterministic.stance_weights`) on dumped reviews, and measure it held out.

    python bench/fit_stance_model.py --claims CLAIMS.jsonl --dump DIR [--dump DIR ...]
                                     [--split 400] [--rows ROWS.pkl]

The reviews are those ``bench/review.py --dump DIR`` wrote (each claim's node updates and its
report). For each claim, its sentences are ranked again as synthesis ranks them
(:func:`~scholargraph.deterministic.extractive.claim_candidates`, with the default sentence
model), every included study is read by the rules
(:func:`scholargraph.agents.synthesis.study_reading`) and its features computed
(:class:`~scholargraph.deterministic.stance_weights.StanceFeatures`); ``--rows`` keeps them for
the next run. Two logistic regressions (scikit-learn, L2, standardised features) are fitted on
the claims before ``--split`` only: whether a study the words allow to support the claim is
SUPPORT evidence of it, and whether one they allow to contradict it is CONTRADICT evidence; the
two probability thresholds are chosen there too, on out-of-fold probabilities (``FOLDS`` folds
by claim), for label-F1 with false-contradiction at most ``MAX_FALSE_CONTRADICTION`` and
contradiction-recall at least the rules'. A review's findings read against the claim count as
the current :func:`~scholargraph.agents.synthesis.with_bearing` reads them again. Printed: the
coefficients on the raw scale (each threshold folded into its intercept), ready to be written
into ``stance_weights.py``, then the figures of the
rules alone, of the review as dumped, and of the rules with the decision, on the fitted part, on
the claims after ``--split`` (never seen), and on the claims with at least two evidence
abstracts. Labels count as ``bench/review.py`` counts them (SciFact's abstract-level label-only
F1), contradiction-recall and false-contradiction with the review's findings read against the
claim (their bearing does not depend on the stances).
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.preprocessing import StandardScaler

import __main__
from scholargraph.agents.schemas import Draft
from scholargraph.agents.synthesis import (
    StanceDecision,
    stance_claim,
    study_reading,
    with_bearing,
)
from scholargraph.deterministic.extractive import claim_candidates
from scholargraph.deterministic.questions import is_claim
from scholargraph.deterministic.relevance import question_itself
from scholargraph.deterministic.stance_weights import StanceFeatures
from scholargraph.rag.embeddings import Embedder, load_embedder
from scholargraph.testing.services.corpus import openalex_id_for

from review import LABELS, Claim, read_claims

FEATURES = ["rules_support", "rules_against", "restated", "closest_cosine", "title_cosine",
            "sentence_cosine", "sentence_lift", "terms_named"]
"""What the two models weigh (:class:`StanceFeatures`; the cues only decide which labels a study
may get). No feature says how a study ranks against the others: a decision that learns to
prefer the first-ranked study fits claims tested by one abstract and hides the other studies of
a broad claim (on the 37 claims with several evidence abstracts, label-f1 fell by 0.03-0.08
with rank and lead among the features)."""
C = 1.0
"""Inverse L2 strength (scikit-learn's default)."""
THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
FOLDS = 5
MAX_FALSE_CONTRADICTION = 0.05

Decide = Callable[[dict], str | None]
"""A study's row to its SciFact label (or None)."""


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
    support, against, thresholds = fit(tune)
    print(f"fitted on {len(tune)} reviews (claims 0-{args.split - 1}); thresholds {thresholds}")
    for name, (model, scaler), threshold in zip(("SUPPORT", "CONTRADICT"), (support, against),
                                                thresholds, strict=True):
        weights = model.coef_[0] / scaler.scale_
        intercept = (model.intercept_[0] - float(weights @ scaler.mean_)
                     - math.log(threshold / (1 - threshold)))
        print(f"{name}: Weights = {{")
        print(f'    "intercept": {intercept:.3f},')
        for feature, weight in zip(FEATURES, weights, strict=True):
            print(f'    "{feature}": {weight:.3f},')
        print("}")
    decide = decider(support, against, thresholds)
    for name, part in ((f"fitted 0-{args.split - 1}", tune),
                       (f"held out {args.split}-", held), ("several evidence", several)):
        print(name)
        for how, rule in (("rules", rules), ("as dumped", dumped), ("decision", decide)):
            print(f"  {how:10s} {figures(part, rule)}")


def claim_rows(claims: list[Claim], dumps: list[Path]) -> list[dict]:
    """Per dumped claim review, its row (:func:`claim_row`)."""
    embedder = load_embedder(None)
    rows = []
    for index, claim in enumerate(claims):
        path = next((d / f"{claim.claim_id}.pkl" for d in dumps
                     if (d / f"{claim.claim_id}.pkl").exists()), None)
        row = claim_row(index, claim, pickle.loads(path.read_bytes()), embedder) if path else None
        if row is not None:
            rows.append(row)
            print(f"[{index}] {claim.claim_id}", file=sys.stderr, flush=True)
    return rows


def claim_row(index: int, claim: Claim, dumped: dict, embedder: Embedder) -> dict | None:
    """One dumped review's included studies, each with its rule reading, features, the label
    the dumped review gave it and its gold document; and whether the review's findings read
    against the claim. None when the dump stops before synthesis."""
    state = before_synthesis(dumped["updates"])
    if state is None:
        return None
    report = dumped["report"]
    by_openalex = {openalex_id_for(doc): doc for doc in [*claim.evidence, *claim.cited]}
    passages, papers = state.get("passages", []), state.get("papers", [])
    question = state.get("cleaned_question") or state.get("question") or claim.text
    opposing = [f for f in report.findings if f.bearing == "opposes"]  # read again: may not now
    rechecked = with_bearing(Draft(summary="", findings=opposing), question, opposing).findings
    row: dict = {"index": index, "claim": claim, "studies": [],
                 "bearing_against": any(f.bearing == "opposes" for f in rechecked)}
    itself = question_itself(state["sub_questions"], question)
    stated = stance_claim(question)
    if itself is None or not passages or stated is None or not is_claim(question):
        return row
    ranked = claim_candidates(itself, passages, papers, state["intent"].keywords, embedder)
    decision = StanceDecision.of(stated, embedder)
    given = {s.work_id: LABELS.get(s.reading) for s in report.stances}
    for work in papers:
        direct = bool(ranked) and work.id == ranked[0].work_id
        read = study_reading(stated, work, ranked, direct)
        if read.chosen is None or decision is None:
            continue
        row["studies"].append({
            "doc": by_openalex.get(work.openalex_id or "", "x" + work.id),
            "rules": LABELS.get(read.reading), "dumped": given.get(work.id),
            "features": decision.features(work, read)})
    return row


def before_synthesis(updates: list[tuple[str, dict]]) -> dict | None:
    """The review's state as synthesis received it."""
    state: dict = {}
    for node, update in updates:
        if node == "synthesis":
            return dict(state)
        state.update(update)
    return None


def gold(row: dict, study: dict) -> set[str]:
    return row["claim"].evidence.get(study["doc"], set())


def fit(rows: list[dict]) -> tuple[tuple[LogisticRegression, StandardScaler],
                                   tuple[LogisticRegression, StandardScaler],
                                   tuple[float, float]]:
    """The two models on the studies their label is allowed for, and the thresholds with the
    best label-F1 (false-contradiction at most its bound, contradiction-recall at least the
    rules') on the same claims, read from out-of-fold probabilities (``FOLDS`` folds by claim):
    in-sample ones are too sure of the fitted claims and ask for thresholds too strict."""
    from scholargraph.deterministic.stance_weights import may_contradict, may_support
    models, folded = [], {}
    for allowed, label in ((may_support, "SUPPORT"), (may_contradict, "CONTRADICT")):
        cases = [(row, s) for row in rows for s in row["studies"] if allowed(s["features"])]
        x = np.array([vector(s["features"]) for _, s in cases])
        y = np.array([label in gold(row, s) for row, s in cases])
        groups = np.array([row["index"] for row, _ in cases])
        models.append(model_on(x, y))
        for train, test in GroupKFold(FOLDS).split(x, y, groups):
            model, scaler = model_on(x[train], y[train])
            p = model.predict_proba(scaler.transform(x[test]))[:, 1]
            for (_, study), value in zip([cases[i] for i in test], p, strict=True):
                folded.setdefault(id(study), []).append((math.log(value / (1 - value)), label))
    support, against = models
    out_of_fold = Decider(support, against, (0.5, 0.5))
    out_of_fold.known = folded
    floor = measure(rows, rules)["contradiction-recall"]
    best, best_f1 = (0.5, 0.5), -1.0
    for ts in THRESHOLDS:
        for tc in THRESHOLDS:
            out_of_fold.thresholds = (ts, tc)
            found = measure(rows, out_of_fold)
            if (found["false-contradiction"] <= MAX_FALSE_CONTRADICTION
                    and found["contradiction-recall"] >= floor and found["F1"] > best_f1):
                best, best_f1 = (ts, tc), found["F1"]
    return support, against, best


def model_on(x: np.ndarray, y: np.ndarray) -> tuple[LogisticRegression, StandardScaler]:
    scaler = StandardScaler().fit(x)
    return LogisticRegression(C=C, max_iter=5000).fit(scaler.transform(x), y), scaler


def vector(features: StanceFeatures) -> list[float]:
    return [float(getattr(features, name)) for name in FEATURES]


class Decider:
    """The decision with the two fitted models at ``thresholds`` (each study's probabilities
    computed once, so thresholds can be tried cheaply)."""

    def __init__(self, support: tuple[LogisticRegression, StandardScaler],
                 against: tuple[LogisticRegression, StandardScaler],
                 thresholds: tuple[float, float]) -> None:
        self.models = (support, against)
        self.thresholds = thresholds
        self.known: dict[int, list[tuple[float, str]]] = {}

    def odds(self, study: dict) -> list[tuple[float, str]]:
        """The log-odds of each label the study's words allow."""
        from scholargraph.deterministic.stance_weights import may_contradict, may_support
        if id(study) not in self.known:
            features = study["features"]
            x = np.array([vector(features)])
            found = []
            for (model, scaler), allowed, label in zip(
                    self.models, (may_support, may_contradict), ("SUPPORT", "CONTRADICT"),
                    strict=True):
                if allowed(features):
                    p = float(model.predict_proba(scaler.transform(x))[0, 1])
                    found.append((math.log(p / (1 - p)), label))
            self.known[id(study)] = found
        return self.known.get(id(study), [])

    def __call__(self, study: dict) -> str | None:
        cut = {label: math.log(t / (1 - t))
               for label, t in zip(("SUPPORT", "CONTRADICT"), self.thresholds, strict=True)}
        top = max(((value - cut[label], label) for value, label in self.odds(study)),
                  default=None)
        return top[1] if top is not None and top[0] >= 0 else None


def decider(support: tuple[LogisticRegression, StandardScaler],
            against: tuple[LogisticRegression, StandardScaler],
            thresholds: tuple[float, float]) -> Decider:
    return Decider(support, against, thresholds)


def rules(study: dict) -> str | None:
    return study["rules"]


def dumped(study: dict) -> str | None:
    return study["dumped"]


def measure(rows: list[dict], decide: Decide) -> dict[str, float]:
    """Label precision, recall and F1 (SciFact's label-only, abstract level), and the share of
    claims with CONTRADICT evidence, and of those with SUPPORT evidence only, read against."""
    given = right = 0
    contradicted = against_contradicted = supported = against_supported = 0
    for row in rows:
        labels = [(s, decide(s)) for s in row["studies"]]
        labels = [(s, label) for s, label in labels if label is not None]
        given += len(labels)
        right += sum(label in gold(row, s) for s, label in labels)
        against = row["bearing_against"] or any(label == "CONTRADICT" for _, label in labels)
        kinds = set().union(*row["claim"].evidence.values()) if row["claim"].evidence else set()
        if "CONTRADICT" in kinds:
            contradicted += 1
            against_contradicted += against
        elif "SUPPORT" in kinds:
            supported += 1
            against_supported += against
    total = sum(len(row["claim"].evidence) for row in rows)
    precision, recall = right / max(given, 1), right / max(total, 1)
    return {"F1": 2 * precision * recall / max(precision + recall, 1e-9), "P": precision,
            "R": recall, "labels": given,
            "contradiction-recall": against_contradicted / max(contradicted, 1),
            "false-contradiction": against_supported / max(supported, 1)}


def figures(rows: list[dict], decide: Decide) -> str:
    found = measure(rows, decide)
    return (f"label-F1 {found['F1']:.3f} (P {found['P']:.3f} R {found['R']:.3f}, "
            f"{found['labels']:.0f} labels)  contradiction-recall "
            f"{found['contradiction-recall']:.3f}  false-contradiction "
            f"{found['false-contradiction']:.3f}")


if __name__ == "__main__":
    main()
