"""Which way each study a claim's review includes points: a small fitted decision on top of the
direction-word rules (:mod:`scholargraph.deterministic.stance`).

DRAFT: coefficients to be fitted by ``bench/fit_stance_model.py``.
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
