"""When to stop screening: the knee of the discovery curve, and an estimate of what is left.

Both read the decisions in the order they were made (the labels file's order), which is the
ranking's order when the person screens the batches this tool hands them.

**The verdict** is Cormack and Grossman's knee method (SIGIR 2016, "Engineering quality and
reliability in technology-assisted review"): on the curve of relevant records found against
records screened, the knee is the point farthest from the straight line joining the origin to
the curve's end; the slope before it is compared with the slope after it (relevant found after
the knee plus one, over records screened after it). Stop when that ratio is at least
:data:`KNEE_RATIO` and at least :data:`MIN_SCREENED` records have been screened. *Assumption:*
records are screened best first, so relevant records thin out, and a long stretch after the knee
finding almost nothing means few are left. It does not hold for records screened in library order.

*How useful it is, measured* (``bench/screening_simulate.py`` on the nine shared screening sets,
the labels playing the person): it never stopped before 95% recall (mean stop-recall 0.995), so it
is safe, but it stopped before the end of the library on two sets only (Bannach-Brown_2019, 1,993
records, 280 included: at 38% of the records, recall 0.954; Smid_2020, 2,627 records, 27 included:
at 80%, recall 1.0); mean stop-screened-share 0.909. The raise of the ratio while few relevant
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

KNEE_RATIO = 6.0
"""Slope before the knee over slope after it, once :data:`KNEE_FOUND` relevant records are
found (Cormack and Grossman's values); with fewer found it is raised by as many as are missing.
Without the raise, on the nine shared screening sets the knee stopped Kitchenham_2010 and
Menon_2022 at a recall of 0.80 (``bench/screening_simulate.py``, ``stop-recall``)."""
KNEE_FOUND = 150
MIN_SCREENED = 150
"""Records screened before the knee may say stop (Cormack and Grossman's value)."""

RULE = (f"knee method (Cormack & Grossman 2016): stop when the rate of relevant records found "
        f"before the knee of the discovery curve is at least {KNEE_RATIO + KNEE_FOUND:g} minus "
        f"the relevant records found (at most {KNEE_FOUND}) times the rate after it, and at least "
        f"{MIN_SCREENED} records have been screened")
ASSUMPTION = ("records were screened best first, so relevant ones thin out; the estimate left "
              "assumes the chance of a relevant record keeps falling at the rate it has")


class StopEstimate(BaseModel):
    """Where screening stands and whether to stop."""

    screened: int = Field(description="Records decided so far")
    found: int = Field(description="Of them, included")
    total: int = Field(description="Records in the library (after merging duplicates)")
    estimated_left: float | None = Field(
        description="Relevant records estimated among the rest (None before any decision)")
    estimated_recall: float | None = Field(description="found / (found + estimated_left)")
    left_at_most: float | None = Field(
        description="Relevant records left if the rate since the knee held for all the rest")
    knee_ratio: float | None = Field(description="Slope before the knee over slope after it")
    verdict: str = Field(description="'stop' or 'continue'")
    rule: str = RULE
    assumption: str = ASSUMPTION


def estimate(decisions: list[bool], total: int) -> StopEstimate:
    """The verdict and estimate for decisions in screening order, out of ``total`` records."""
    screened, found = len(decisions), sum(decisions)
    left = records_left(decisions, total) if decisions else None
    ratio = knee_ratio(decisions)
    stop = ratio is not None and ratio >= required_ratio(found) and screened >= MIN_SCREENED
    recall = found / (found + left) if left is not None and found + left > 0 else None
    return StopEstimate(screened=screened, found=found, total=total, estimated_left=left,
                        estimated_recall=recall, left_at_most=rate_since_knee(decisions, total),
                        knee_ratio=ratio,
                        verdict="stop" if stop or screened >= total else "continue")


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
