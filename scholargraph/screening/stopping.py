"""When to stop screening: a statistical test of recall, the knee of the discovery curve, and an
estimate of what is left.

All read the decisions in the order they were made (the labels file's order), which is the
ranking's order when the person screens the batches this tool hands them.

**The verdict** is the stopping rule of Callaghan and Müller-Hansen (2020, "Statistical stopping
criteria for automated screening in systematic reviews", Systematic Reviews 9:152). It tests the
hypothesis "fewer than :data:`RECALL_TARGET` of the relevant records are found so far" and says
stop when the hypothesis is rejected at :data:`CONFIDENCE`. Were it true, the library would hold
at least ``floor(found / target) + 1`` relevant records; for each window of the last 1, 2, ...
records screened, the records not screened when the window began would then hold at least that
many minus those found before it, and the chance of drawing the window from them with as few
relevant records as it held is hypergeometric (:func:`recall_p_value`, the lowest chance over
the windows). *Assumption:* the records in the window are treated as drawn at random from those
not yet screened when it began. Screened best first, the window's records are more likely
relevant than the rest, so the test errs on the side of screening on; screened at random the
assumption holds exactly, and the test then said stop below 95% recall in 7 of 200 simulated
libraries of 500 records with 25 relevant (3.5%, within the 5% the confidence allows; checked
after every 10 records; ``tests/test_screen.py`` checks 100 smaller ones).

*Measured* (``bench/screening_simulate.py`` on the nine shared screening sets, the labels playing
the person, the verdict checked after every batch of 10): it said stop before the end of the
library on all nine, never below 95% recall (mean stop-recall 0.994, mean share screened
0.813), where the knee method (below) stopped early on three only (share screened 0.865). With
the learner's cross-validated weighting and the zero-shot score of relevance.py as merged on
2026-11-27: the test 9 of 9 early, none below 95% (stop-recall 0.992, share 0.809); the knee 3
of 9 early, and on Bannach-Brown_2019 at recall 0.932, below the target. With one SVM per view
(the learner as of the second session of 2026-11-27): the test 9 of 9 early, none below 95%
(stop-recall 0.992, share 0.807); the knee 2 of 9 early, Smid_2020 at recall 1.0 and
Bannach-Brown_2019 at 0.929, below the target. With the scores joined by rank and no stop
list (the third session of 2026-11-27): the test 9 of 9 early, none below 95% (stop-recall 0.992,
share 0.796; lowest Bannach-Brown_2019 0.968 and Menon_2022 0.973); the knee 3 of 9 early,
Appenzeller-Herzog_2019 at 0.962, Smid_2020 at 1.0 and Bannach-Brown_2019 at 0.936, below the
target.
With few relevant records found the test needs many records without one: 25 found and none in
the last 1,000 of 2,000 leaves p = 0.24, as two missed relevant records could hide among the
965 left.

**The knee method** stands beside it (``knee_verdict``; Cormack and Grossman, SIGIR 2016,
"Engineering quality and reliability in technology-assisted review"): on the curve of relevant
records found against records screened, the knee is the point farthest from the straight line
joining the origin to the curve's end; the slope before it is compared with the slope after it
(relevant found after the knee plus one, over records screened after it). Stop when that ratio
is at least :data:`KNEE_RATIO` and at least :data:`MIN_SCREENED` records have been screened.
*Assumption:* records are screened best first, so relevant records thin out, and a long stretch
after the knee finding almost nothing means few are left. It does not hold for records screened
in library order.

*How useful it is, measured* (``bench/screening_simulate.py`` on the nine shared screening sets,
the labels playing the person): it never stopped before 95% recall (mean stop-recall 0.995), so it
is safe, but it stopped before the end of the library on two sets only (Bannach-Brown_2019, 1,993
records, 280 included: at 38% of the records, recall 0.954; Smid_2020, 2,627 records, 27 included:
at 80%, recall 1.0); mean stop-screened-share 0.909. With the later zero-shot prior (relevance.py
as merged at af3edc2) it stopped also Appenzeller-Herzog_2019 at 60% of the records, recall 0.96:
mean stop-recall 0.991, stop-screened-share 0.865. The raise of the ratio while few relevant
records are found is what holds it back: with ``found`` relevant records found at rate ``r``
before the knee, the stretch after it must hold at least ``2 * (156 - found) / r`` records with at
most one more relevant one, which for 26 includes found among the first 300 records is about 3,100
records, more than a library of 2,873 holds. The rule was made for collections far larger than one
review's search results; on a library of a few thousand records with tens of includes it says
"continue" to the end, and the person reads ``estimated_left`` and ``left_at_most`` instead.

**The estimate** of relevant records left fits the chance that the i-th record screened is
relevant as ``exp(a - b*i)`` (a Poisson model of the hits, fitted by maximum likelihood with
``b >= 0``) and sums it over the records not yet screened. *Assumption:* the chance keeps
falling, as it has, at a constant rate; a ranking that improves late (a new kind of relevant
record found) breaks it, so the estimate is a guide, and the verdict does not rest on it. Beside
it stands a cautious bound, ``left_at_most``: the rate since the knee (found after it plus one,
over records screened after it) held over every record left, which assumes only that the rate
does not rise again.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, Field
from scipy.optimize import minimize
from scipy.stats import hypergeom

KNEE_RATIO = 6.0
"""Slope before the knee over slope after it, once :data:`KNEE_FOUND` relevant records are
found (Cormack and Grossman's values); with fewer found it is raised by as many as are missing.
Without the raise, on the nine shared screening sets the knee stopped Kitchenham_2010 and
Menon_2022 at a recall of 0.80 (``bench/screening_simulate.py``, ``stop-recall``)."""
KNEE_FOUND = 150
MIN_SCREENED = 150
"""Records screened before the knee may say stop (Cormack and Grossman's value)."""
ESTIMATE_MIN = MIN_SCREENED
"""Decisions before the estimate of relevant records left (and the recall it implies) is given:
fitted to fewer, the falling rate is noise. Measured along the simulated screening of
``bench/screening_simulate.py`` (the labels playing the person, checked every 10 decisions, while
recall was below 1) on the nine shared screening sets: before 150 decisions the estimated recall
exceeded the true one by more than 0.10 at 22 of 117 checkpoints, in every review (Sep_2021,
after 10 decisions with 4 of its 40 relevant records found, said 99% where 10% were found;
Appenzeller-Herzog_2019 after 130 said 95% where 69% were; after 2 decisions the interactive
status line said 0.0 left), from 150 on at 9 of 681, in two reviews (Appenzeller-Herzog_2019 at
160: 0.91 said, 0.81 true; Jeyaraman_2020 from 160 to 230, up to 0.91 said where 0.74 were
found, a plateau in its ranking the falling rate does not foresee). 150 is the knee's value,
not tuned on these sets. The cautious ``left_at_most`` is given from the first decision."""

RULE = (f"knee method (Cormack & Grossman 2016): stop when the rate of relevant records found "
        f"before the knee of the discovery curve is at least {KNEE_RATIO + KNEE_FOUND:g} minus "
        f"the relevant records found (at most {KNEE_FOUND}) times the rate after it, and at least "
        f"{MIN_SCREENED} records have been screened")
ASSUMPTION = ("records were screened best first, so relevant ones thin out; the estimate left "
              "assumes the chance of a relevant record keeps falling at the rate it has")


RECALL_TARGET = 0.95
"""The recall the statistical rule tests for (Callaghan and Müller-Hansen's example value)."""
CONFIDENCE = 0.95
"""Stop when "recall is below :data:`RECALL_TARGET`" is rejected at this confidence."""
TEST_RULE = (f"hypergeometric test (Callaghan & Müller-Hansen 2020): stop when the hypothesis "
             f"that fewer than {RECALL_TARGET:.0%} of the relevant records are found is "
             f"rejected at {CONFIDENCE:.0%} confidence")
TEST_ASSUMPTION = ("the records screened last (each window ending at the latest decision) are "
                   "treated as drawn at random from those not yet screened when the window "
                   "began; screening best first makes this cautious, as the records left are "
                   "less likely relevant than those in the window")


class StopEstimate(BaseModel):
    """Where screening stands and whether to stop."""

    screened: int = Field(description="Records decided so far")
    found: int = Field(description="Of them, included")
    total: int = Field(description="Records in the library (after merging duplicates)")
    estimated_left: float | None = Field(
        description="Relevant records estimated among the rest (None before ESTIMATE_MIN "
        "decisions, or all the records if fewer: too few to fit a falling rate to)")
    estimated_recall: float | None = Field(description="found / (found + estimated_left)")
    left_at_most: float | None = Field(
        description="Relevant records left if the rate since the knee held for all the rest")
    knee_ratio: float | None = Field(description="Slope before the knee over slope after it")
    recall_target: float = RECALL_TARGET
    recall_p: float | None = Field(
        description="p-value of 'recall is below recall_target' (None before any decision)")
    verdict: str = Field(description="'stop' or 'continue', by the hypergeometric test")
    rule: str = TEST_RULE
    assumption: str = TEST_ASSUMPTION
    knee_verdict: str = Field(description="'stop' or 'continue', by the knee method")
    knee_rule: str = RULE
    knee_assumption: str = ASSUMPTION


def estimate(decisions: list[bool], total: int) -> StopEstimate:
    """The verdict and estimate for decisions in screening order, out of ``total`` records."""
    screened, found = len(decisions), sum(decisions)
    fitted = decisions and (screened >= ESTIMATE_MIN or screened >= total)
    left = records_left(decisions, total) if fitted else None
    ratio = knee_ratio(decisions)
    knee_stop = ratio is not None and ratio >= required_ratio(found) and screened >= MIN_SCREENED
    recall = found / (found + left) if left is not None and found + left > 0 else None
    p_value = recall_p_value(decisions, total)
    test_stop = p_value is not None and p_value < 1 - CONFIDENCE
    return StopEstimate(screened=screened, found=found, total=total, estimated_left=left,
                        estimated_recall=recall, left_at_most=rate_since_knee(decisions, total),
                        knee_ratio=ratio, recall_p=p_value,
                        verdict=_verdict(test_stop or screened >= total),
                        knee_verdict=_verdict(knee_stop or screened >= total))


def _verdict(stop: bool) -> str:
    return "stop" if stop else "continue"


def recall_p_value(decisions: list[bool], total: int,
                   target: float = RECALL_TARGET) -> float | None:
    """p-value of the hypothesis "fewer than ``target`` of the relevant records are found", the
    lowest over the windows of the last 1, 2, ... records screened (None before any decision).

    If recall were below the target, the library would hold at least ``floor(found / target) +
    1`` relevant records, so the records not screened when a window began held at least that
    many minus those found before it. Drawing the window's records at random from them, finding
    as few relevant ones as the window did has the hypergeometric chance computed here; a small
    chance rejects the hypothesis (Callaghan and Müller-Hansen 2020, Systematic Reviews 9:152).
    """
    if not decisions:
        return None
    hits = np.asarray(decisions, dtype=bool)
    screened, found = len(hits), int(hits.sum())
    sizes = np.arange(1, screened + 1)
    in_window = np.cumsum(hits[::-1])
    urn = total - screened + sizes
    smallest = math.floor(found / target + 1e-9) + 1
    relevant_in_urn = smallest - (found - in_window)
    if (relevant_in_urn > urn).any():  # the records left cannot hold that many: recall >= target
        return 0.0
    chances = hypergeom.cdf(in_window, urn, relevant_in_urn, sizes)
    return float(min(chances.min(), 1.0))


def required_ratio(found: int) -> float:
    """The slope ratio the knee must reach with ``found`` relevant records found."""
    return KNEE_RATIO + KNEE_FOUND - min(found, KNEE_FOUND)


def knee(decisions: list[bool]) -> int | None:
    """Records screened up to the knee of the discovery curve: the point farthest above the
    chord from the origin to the curve's end (None before any relevant record, or with too few
    decisions to have a knee)."""
    gain = np.cumsum(np.asarray(decisions, dtype=np.float64))
    if len(gain) < 2 or gain[-1] == 0:
        return None
    positions = np.arange(1, len(gain) + 1, dtype=np.float64)
    distance = gain - positions * gain[-1] / len(gain)
    return int(np.argmax(distance[:-1])) + 1


def _rates(decisions: list[bool], at: int) -> tuple[float, float]:
    """(rate of relevant records up to the knee at ``at``, rate after it, plus one found)."""
    before = sum(decisions[:at]) / at
    after = (sum(decisions[at:]) + 1) / (len(decisions) - at)
    return before, after


def knee_ratio(decisions: list[bool]) -> float | None:
    """Slope of the discovery curve before its knee over the slope after it."""
    at = knee(decisions)
    if at is None:
        return None
    before, after = _rates(decisions, at)
    return before / after


def rate_since_knee(decisions: list[bool], total: int) -> float | None:
    """Relevant records left if the rate since the knee (plus one found) held for the rest."""
    at = knee(decisions)
    if at is None:
        return None
    return min(_rates(decisions, at)[1] * (total - len(decisions)), total - len(decisions))


def records_left(decisions: list[bool], total: int) -> float:
    """Relevant records expected among the ``total - len(decisions)`` not yet screened."""
    rest = total - len(decisions)
    if rest <= 0 or not decisions:
        return 0.0
    a, b = _decay_fit(np.asarray(decisions, dtype=np.float64))
    start = len(decisions)
    if b < 1e-9:
        left = math.exp(a) * rest
    else:
        left = math.exp(a - b * start) * (1 - math.exp(-b * rest)) / (1 - math.exp(-b))
    return float(min(left, rest))


def _decay_fit(hits: np.ndarray) -> tuple[float, float]:
    """(a, b) maximising the Poisson likelihood of the hits under rate exp(a - b*i), b >= 0."""
    positions = np.arange(len(hits), dtype=np.float64)
    found = hits.sum()
    if found == 0:
        # no hit yet: the rate is below one in the records screened; take half a hit over them
        return math.log(0.5 / len(hits)), 0.0

    def loss(params: np.ndarray) -> float:
        a, b = params
        rate = np.exp(a - b * positions)
        return float(rate.sum() - (hits * (a - b * positions)).sum())

    start = np.array([math.log(found / len(hits)), 0.0])
    fitted = minimize(loss, start, method="L-BFGS-B", bounds=[(None, None), (0.0, None)])
    return float(fitted.x[0]), float(fitted.x[1])
