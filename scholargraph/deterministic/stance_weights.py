"""Whether the support the rules read in a claim's most direct study stands: a small fitted
check on top of the direction-word rules (:mod:`scholargraph.deterministic.stance`).

The rules read a claim's most direct study (the work of its first-ranked sentence) as supporting
it when a result sentence points the claim's way (:func:`~scholargraph.deterministic.stance.
reading`) or restates it (:func:`~scholargraph.deterministic.stance.restates`). Many of these
labels are wrong in a way direction words cannot show: the study is on the claim's topic and
its result points the claim's way, but it tests something else (issue 22: on SciFact train
claims 0-399, 137 of 278 labels were on works that are not evidence, half of them on claims with
no evidence anywhere). How close the study comes to the claim shows it better, and a logistic
model weighs that here (:class:`SupportFeatures`); below its threshold the study is read neither
way.

The check only ever takes a support label away, from the most direct study. It never gives one
(a study read by closeness alone would be "supporting" a claim whatever way its figures point:
"a hazard ratio for stroke of 1.31" in statin users is close to "Statins lower the risk of
stroke"), never touches a contradiction, nor the other studies' readings, so a broad claim
still shows which way every study that tests it points. Its features are the study's own, none
of how it ranks against the other studies: a claim tested by several close studies is not
taken as a sign that the first is no test of it.

Fitted by ``bench/fit_stance_model.py`` (scikit-learn ``LogisticRegression``, L2 with C = 1, on
standardised features; written back here on the raw scale, the probability threshold folded
into ``INTERCEPT``) on the reviews of SciFact train claims 0-399 only: 308 most direct studies
read as supporting, target that the study is SUPPORT evidence of the claim; threshold 0.2
chosen on the same claims. Only coefficients are kept here. Held out (claims 400-808, the
dumped reviews re-read) label-f1 0.433 -> 0.443; figures in
:func:`scholargraph.agents.synthesis.with_stances`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

FITTED_EMBEDDER = "all-MiniLM-L6-v2"
"""The sentence model the cosines were measured with (PyTorch or int8: the same model). Under any
other embedder they are on another scale, and the rules decide alone."""

INTERCEPT = -4.772
RESTATED = 0.547
CLOSEST_COSINE = 4.086
TITLE_COSINE = 2.835
TERMS_NAMED = 2.257


class SupportFeatures(BaseModel):
    """What the check weighs for the most direct study of a claim, read as supporting it."""

    model_config = ConfigDict(frozen=True)

    restated: bool
    """Read so because a result sentence restates the claim (no direction word read), not by
    its direction words."""
    closest_cosine: float
    """Cosine of the claim and the abstract's sentence closest to it (the sentence model's): a
    study that tests the claim states it nearly in the claim's words somewhere."""
    title_cosine: float
    """Cosine of the claim and the study's title."""
    terms_named: float
    """Share of the claim's (stemmed) terms the sentence read names."""


def support_score(features: SupportFeatures) -> float:
    """The log-odds that the study is evidence supporting the claim, less the threshold's."""
    return (INTERCEPT + RESTATED * features.restated
            + CLOSEST_COSINE * features.closest_cosine + TITLE_COSINE * features.title_cosine
            + TERMS_NAMED * features.terms_named)


def supports(features: SupportFeatures) -> bool:
    """Whether the support the rules read in the most direct study stands."""
    return support_score(features) >= 0.0
