"""Which way each study a claim's review includes points: a small fitted decision on top of the
direction-word rules (:mod:`scholargraph.deterministic.stance`).

The rules read a study from its result sentence: direction words and negation around the
claim's terms (:func:`~scholargraph.deterministic.stance.reading`). They miss in two ways that
words alone cannot show: a study on the claim's topic whose result points the claim's way but
tests something else (most wrong labels on SciFact train claims are on works that are not
evidence at all), and a study that tests the claim whose result the rules cannot align with the
claim's outcome ("as many asthma attacks as those given placebo"). How close the study comes to
the claim shows both better, and two logistic models weigh it here (:class:`StanceFeatures`).

The words decide which labels a study may get, closeness whether it gets one
(:func:`decision`): support only where the rules read it so or a cue points the claim's way and
the rules do not read it against (:func:`may_support`), contradiction only where the rules read
it so, a cue points the other way, or its proportions disagree with the claim's
(:func:`may_contradict`). So a study is never read as supporting a claim its figures point
against, nor as contradicting one on closeness alone. Nothing says how a study ranks against the
others: every included study is weighed alike, and a broad claim shows which way each points.

Fitted by ``bench/fit_stance_model.py`` (scikit-learn ``LogisticRegression``, L2 with C = 1, on
standardised features; written back here on the raw scale, each probability threshold folded
into its intercept) on the reviews of SciFact train claims 0-399 only (``bench/review.py
--dump``, re-read), thresholds chosen there on out-of-fold probabilities. Only coefficients are
kept here. Issue 22, seventh pass, against the merged code (the support check that could only
withdraw the most direct study's support), re-reading the reviews: claims 0-399 label-f1 0.473
-> 0.478, contradiction-recall 0.395 -> 0.407, false-contradiction 0.045 -> 0.045; held out
(400-808) 0.461 -> 0.461 (label precision 0.508 -> 0.491, recall 0.422 -> 0.435),
contradiction-recall 0.287 -> 0.333, false-contradiction 0.034 -> 0.040; the 37 claims with
several evidence abstracts 0.338 -> 0.351. Richer models (rank, lead over the next study, the
claim's words named by specificity, cues on the claim's outcome) won up to 0.05 more on claims
0-399 and nothing or less held out, and with rank they preferred the first-ranked study (the 37
claims: 0.25-0.30).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

FITTED_EMBEDDER = "all-MiniLM-L6-v2"
"""The sentence model the cosines were measured with (PyTorch or int8: the same model). Under any
other embedder they are on another scale, and the rules decide alone."""

Label = Literal["supports", "contradicts"]


class StanceFeatures(BaseModel):
    """What the decision weighs for one included study of a claim, read from one result
    sentence (the one the rules read it from)."""

    model_config = ConfigDict(frozen=True)

    rules_support: bool
    """The rules read it as supporting the claim (its direction words, or a restatement)."""
    rules_against: bool
    """The rules read it as contradicting the claim or finding no effect."""
    restated: bool
    """Read as supporting because the sentence restates the claim (no direction word read)."""
    closest_cosine: float
    """Cosine of the claim and the abstract's sentence closest to it (the sentence model's)."""
    title_cosine: float
    """Cosine of the claim and the study's title."""
    sentence_cosine: float
    """Cosine of the claim and the sentence read."""
    sentence_lift: float
    """The sentence read's cosine less the mean of the abstract's sentences': a study whose
    result is where the claim is, not in its background."""
    terms_named: float
    """Share of the claim's (stemmed) terms the sentence names."""
    cue_with: bool
    """A direction cue of the sentence points the claim's way (:func:`~scholargraph.
    deterministic.stance.pointing`)."""
    cue_against: bool
    """A direction cue of the sentence points the other way."""
    numbers_disagree: bool
    """The sentence states proportions and none is near the claim's."""


Weights = dict[str, float]

SUPPORT: Weights = {
    "intercept": -4.179,
    "rules_support": 0.948,
    "restated": 0.598,
    "closest_cosine": 4.595,
    "title_cosine": 1.648,
    "sentence_cosine": -2.833,
    "sentence_lift": 0.198,
    "terms_named": 3.237,
}
"""Whether a study the words allow to support the claim (:func:`may_support`) is its SUPPORT
evidence; the threshold (0.2) folded into the intercept."""
CONTRADICT: Weights = {
    "intercept": -6.190,
    "rules_support": -0.868,
    "rules_against": 1.101,
    "restated": -2.323,
    "closest_cosine": 11.712,
    "title_cosine": -1.040,
    "sentence_cosine": -2.481,
    "sentence_lift": -2.016,
    "terms_named": 0.671,
}
"""Whether a study the words allow to contradict the claim (:func:`may_contradict`) is its
CONTRADICT evidence; the threshold (0.35) folded into the intercept."""


def score(weights: Weights, features: StanceFeatures) -> float:
    """The log-odds of the label, less its threshold's."""
    values = features.model_dump()
    return weights["intercept"] + sum(weight * float(values[name])
                                      for name, weight in weights.items() if name != "intercept")


def may_support(features: StanceFeatures) -> bool:
    """A study is read as supporting only where its words point the claim's way: the rules read
    it so, or a cue points so and the rules do not read it against."""
    return features.rules_support or (features.cue_with and not features.rules_against)


def may_contradict(features: StanceFeatures) -> bool:
    """A study is read against the claim only where its words point the other way: the rules
    read it so, a cue points so, or its proportions disagree with the claim's."""
    return features.rules_against or features.cue_against or features.numbers_disagree


def decision(features: StanceFeatures) -> Label | None:
    """The label the study gets: the likelier of those its words allow whose score clears its
    threshold, or None (neither way)."""
    scored = []
    if may_support(features):
        scored.append((score(SUPPORT, features), "supports"))
    if may_contradict(features):
        scored.append((score(CONTRADICT, features), "contradicts"))
    best = max(scored, default=None)
    return best[1] if best is not None and best[0] >= 0.0 else None  # type: ignore[return-value]
