"""The arithmetic of PRankBoost and RankBoost.B, and their hill-climbing weak learners.

PRankBoost is prankboost-ilp2009 Table 1 (dissertation Table 6.1); RankBoost.B is the same
loop with both classes normalised to total 1 (PAPERS.md "RankBoost and PRankBoost"). The
functions here are pure so the tests can check them against hand-computed numbers; the
learners in :mod:`ilpkit.plugins.learners.boosting` only wire them to a backend.

Every area comes from :func:`ilpkit.core.metrics.aurpc` (through the weighted scores of
:mod:`ilpkit.core.scoring`); nothing here integrates a curve itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from ilpkit.core.coverage import Counts
from ilpkit.core.metrics import aurpc, pr_points_from_counts, pr_points_from_scores
from ilpkit.core.scoring import weighted_auroc_r, weighted_aurpc_path, weighted_aurpc_point
from ilpkit.core.search import Evaluated, Scorer
from ilpkit.plugins.scorers.ranking import AUROCScorer, AURPCPathScorer, AURPCScorer

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

Keep = Literal["clause", "path"]
Objective = Literal["aurpc_point", "aurpc_path", "auroc"]

R_CLIP: Final = 1.0 - 1e-9
"""|r| is clipped to this before alpha = 0.5 ln((1 + r) / (1 - r)): a weak learner with
r = 1 (every positive ranked above every negative) would get an infinite alpha and drown the
ensemble; the clip caps alpha at 0.5 ln((2 - 1e-9) / 1e-9), about 10.7."""


@dataclass(frozen=True)
class Variant:
    """How one round's weak learner searches (objective), what it keeps, and its r."""

    objective: Objective
    keep: Keep
    rate: Objective


VARIANTS: Final[dict[str, Variant]] = {
    # PRankBoost.Clause: the best clause, h in {0, 1}, scored by its own point.
    "clause": Variant("aurpc_point", "clause", "aurpc_point"),
    # PRankBoost.Path: the whole path, h in [0, 1], scored by the path's curve.
    "path": Variant("aurpc_path", "path", "aurpc_path"),
    # Mix1: the best clause only, but searched for and scored by the path's curve.
    "mix1": Variant("aurpc_path", "clause", "aurpc_path"),
    # Mix2: the whole path, but searched for and scored by the best clause's point.
    "mix2": Variant("aurpc_point", "path", "aurpc_point"),
    # RankBoost.B with clause weak learners: r = sum_pos w h - sum_neg w h.
    "rankboost": Variant("auroc", "clause", "auroc"),
}


def variant_of(weak: str, round_index: int) -> tuple[str, Variant]:
    """The variant of round ``round_index`` (0-based); Mix3 alternates Clause (even rounds:
    the 1st, 3rd, ...) and Path (odd rounds)."""
    if weak == "mix3":
        weak = "clause" if round_index % 2 == 0 else "path"
    return weak, VARIANTS[weak]


def objective_scorer(objective: Objective) -> Scorer:
    """The scorer hill climbing maximises for ``objective``."""
    if objective == "aurpc_point":
        return AURPCScorer()
    if objective == "aurpc_path":
        return AURPCPathScorer()
    return AUROCScorer()


def rate(objective: Objective, path: Sequence[Counts]) -> float:
    """r of a weak learner whose hill-climbing path is ``path`` (most general first, the
    kept best clause last)."""
    if objective == "aurpc_point":
        return weighted_aurpc_point(path[-1])
    if objective == "aurpc_path":
        return weighted_aurpc_path(path)
    return weighted_auroc_r(path[-1])


def initial_weights(positive: BoolArray, base: FloatArray, neg_total: float) -> FloatArray:
    """Table 1's w_1: positives share total 1, negatives total ``neg_total``.

    ``base`` are the examples' own weights (1 for unweighted data, which gives exactly
    1/|X1| and skew/|X0|); an example of base weight 0 stays at 0.
    """
    w = np.zeros_like(base, dtype=np.float64)
    pos_sum = float(base[positive].sum())
    neg_sum = float(base[~positive].sum())
    if pos_sum > 0:
        w[positive] = base[positive] / pos_sum
    if neg_sum > 0:
        w[~positive] = neg_total * base[~positive] / neg_sum
    return w


def alpha_from_r(r: float) -> float:
    """alpha = 0.5 ln((1 + r) / (1 - r)), r clipped to [-R_CLIP, R_CLIP] (see R_CLIP)."""
    r = min(max(r, -R_CLIP), R_CLIP)
    return 0.5 * math.log((1.0 + r) / (1.0 - r))


def update_weights(
    w: FloatArray, positive: BoolArray, h: FloatArray, alpha: float, neg_total: float
) -> FloatArray:
    """Table 1's update: positives w exp(-alpha h) / Z1, negatives w exp(alpha h) / Z0.

    Z1 = sum over positives of w exp(-alpha h), Z0 = (1 / neg_total) sum over negatives of
    w exp(alpha h), so positives keep total 1 and negatives ``neg_total`` (PRankBoost: skew;
    RankBoost.B: 1). A class of total weight 0 stays at 0.
    """
    out = np.array(w, dtype=np.float64)
    pos = out[positive] * np.exp(-alpha * h[positive])
    neg = out[~positive] * np.exp(alpha * h[~positive])
    z1 = float(pos.sum())
    z0 = float(neg.sum()) / neg_total if neg_total > 0 else 0.0
    out[positive] = pos / z1 if z1 > 0 else pos
    out[~positive] = neg / z0 if z0 > 0 else neg
    return out


def path_values(path: Sequence[Counts]) -> list[float]:
    """h of each path clause (most general first): the area under the path's curve between
    the clause's recall and recall 1, divided by the whole area (PAPERS.md decision).

    The area right of clause k is the AURPC of the sub-curve of clauses 0..k (k and the
    more general ones) minus that sub-curve's horizontal extension to recall 0, which
    :func:`~ilpkit.core.metrics.aurpc` adds at the precision of its first point and which is
    a rectangle (precision x recall). The most general clause, and any clause at recall 1,
    gets 0; on a hill-climbing path coverage is nested, so the values grow with specificity.
    """
    total = weighted_aurpc_path(path)
    p, n = path[0].p, path[0].n
    values = []
    for k in range(len(path)):
        curve = pr_points_from_counts([(c.tp, c.fp) for c in path[: k + 1]], p, n)
        tp0, fp0 = float(curve.tp[0]), float(curve.fp[0])
        if tp0 >= p:  # recall 1: nothing lies to the right (exactly 0, not rounding noise)
            values.append(0.0)
            continue
        horizontal = (tp0 / (tp0 + fp0)) * (tp0 / p) if tp0 > 0 else 0.0
        values.append(max(0.0, aurpc(curve) - horizontal) / total)
    return values


def kept(path: Sequence[Evaluated], keep: Keep) -> list[Evaluated]:
    """The clauses a weak learner keeps from its path: the last (best) or all of them."""
    return list(path) if keep == "path" else [path[-1]]


def hypothesis_values(path: Sequence[Evaluated], keep: Keep) -> list[float]:
    """h of each kept clause: 1 for a single clause, :func:`path_values` for a path."""
    if keep == "clause":
        return [1.0]
    return path_values([e.counts for e in path])


def most_specific(
    size: int, covered: Sequence[npt.NDArray[np.int64]], values: Sequence[float]
) -> FloatArray:
    """h(x) over ``size`` examples: the value of the most specific clause covering x.

    ``covered[k]`` are the example ids clause k covers, clauses most general first; a later
    clause overrides an earlier one. Examples no clause covers get 0.
    """
    h = np.zeros(size, dtype=np.float64)
    for ids, value in zip(covered, values, strict=True):
        h[ids] = value
    return h


def f1_threshold(scores: FloatArray, labels: npt.NDArray[np.int64], weights: FloatArray) -> float:
    """The score threshold t maximising F1 of "positive iff score >= t" on these examples
    (the highest such t on ties); the ranking itself does not need one, ``predict`` does."""
    curve = pr_points_from_scores(scores, labels, weights)
    if len(curve) == 0 or curve.thresholds is None:
        return 0.0
    f1 = 2.0 * curve.tp / (curve.tp + curve.fp + curve.p)
    return float(curve.thresholds[int(np.argmax(f1))])
