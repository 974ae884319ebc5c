"""Evaluation metrics: recall-precision and ROC curves, their areas, and significance tests.

Every count may be weighted: an example of weight w counts w times, and unweighted data is
weights of 1. Labels are ``1``/``True`` for positive and ``0``/``False`` for negative (the
values of :data:`ilpkit.core.task.POS` and :data:`~ilpkit.core.task.NEG`); drop unlabeled
examples first.

AURPC follows PAPERS.md "Metrics" and prankboost-ilp2009 sec. 4: Davis-Goadrich interpolation
between recall-precision points, integrated exactly with the closed form (:func:`aurpc`).
Points with TP = 0 are dropped by default, as Davis & Goadrich's AUCCalculator does
(``zero_tp_points="drop"``); ``"keep"`` keeps them, so a ranking whose top tie group holds only
negatives starts at precision 0.
scikit-learn's step-wise average precision is offered, under its own name, for comparison
(:func:`average_precision_step`). AUROC is the Mann-Whitney statistic with ties counted 1/2;
the K-fold paired t-test is the one of the dissertation, sec. 2.1. Pure numpy: the Student t
distribution is computed here from the regularized incomplete beta function.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple, overload

import numpy as np
import numpy.typing as npt

__all__ = [
    "PRCurve",
    "ROCPoints",
    "TTestResult",
    "ZeroTPPoints",
    "accuracy",
    "auroc",
    "aurpc",
    "average_precision_step",
    "f1",
    "interpolated_precision",
    "mean_cross_entropy",
    "paired_t_test",
    "pr_points_from_counts",
    "pr_points_from_scores",
    "regularized_incomplete_beta",
    "roc_points",
    "student_t_cdf",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

ZeroTPPoints = Literal["drop", "keep"]
"""What AURPC does with recall-precision points of TP = 0: ``"drop"`` them (Davis & Goadrich's
AUCCalculator; the curve starts at the first TP > 0 point, extended to recall 0 at its
precision) or ``"keep"`` them (a top tie group of negatives starts the curve at precision 0)."""

_REL_TOL: Final = 1e-9
"""Counts may exceed their class total by this fraction (float sums) and are then clipped."""
_SERIES_BELOW: Final = 0.1
"""Below this |r| the segment integral uses Taylor series (see :func:`_segment_areas`)."""
_SERIES_TERMS: Final = 17
"""Terms of those series: the first one left out is below 0.1**17 / 18 < 1e-17."""
_SCALAR_POINTS: Final = 16
"""Curves of at most this many points (single clauses, paths) are summed in plain floats."""


# --------------------------------------------------------------------------------------------
# Recall-precision curves
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PRCurve:
    """Points of a recall-precision curve as weighted counts, sorted by TP then FP.

    ``tp[i]``, ``fp[i]`` are the positive and negative weight predicted positive at point
    ``i``; ``p`` and ``n`` are the class totals. ``thresholds[i]`` is the score threshold of
    point ``i`` for a ranking (:func:`pr_points_from_scores`), ``None`` for a set of
    classifiers (:func:`pr_points_from_counts`). The extensions to recall 0 and 1 are not
    stored: :func:`aurpc` and :func:`interpolated_precision` add them.
    """

    tp: FloatArray
    fp: FloatArray
    p: float
    n: float
    thresholds: FloatArray | None = None

    def __len__(self) -> int:
        return int(self.tp.shape[0])

    @property
    def recall(self) -> FloatArray:
        return self.tp / self.p if self.p > 0 else np.zeros_like(self.tp)

    @property
    def precision(self) -> FloatArray:
        """TP / (TP + FP); 0 where a point predicts nothing positive (as ``Counts``)."""
        covered = self.tp + self.fp
        return np.divide(self.tp, covered, out=np.zeros_like(self.tp), where=covered > 0)


def pr_points_from_scores(
    scores: npt.ArrayLike, labels: npt.ArrayLike, weights: npt.ArrayLike | None = None
) -> PRCurve:
    """The recall-precision points of a ranking: one per distinct score, highest first.

    Point ``i`` predicts positive every example scored at least ``thresholds[i]``, so tied
    examples move TP and FP together. ``p`` and ``n`` are the totals of the last point, which
    therefore lies exactly at recall 1.
    """
    thresholds, tp, fp = _ranked_counts(scores, labels, weights)
    if tp.shape[0] == 0:
        return PRCurve(tp, fp, 0.0, 0.0, thresholds)
    return PRCurve(tp, fp, float(tp[-1]), float(fp[-1]), thresholds)


def pr_points_from_counts(
    points: npt.ArrayLike | list[tuple[float, float]], p: float, n: float
) -> PRCurve:
    """The recall-precision points of classifiers (theories, thresholds) given as (TP, FP).

    Points are sorted by TP, then FP. They need not be nested (Gleaner's per-bin theories
    are not): the sorted points are the curve, and a point with more TP but fewer FP than
    its predecessor is interpolated to like any other (see :func:`aurpc`). TP must lie in
    ``[0, p]`` and FP in ``[0, n]``; sums that overshoot by rounding are clipped.
    """
    arr = np.array(points, dtype=np.float64)
    if arr.size == 0:
        arr = arr.reshape(0, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"points must be (TP, FP) pairs, got an array of shape {arr.shape}")
    p, n = float(p), float(n)
    if not (0 <= p < math.inf and 0 <= n < math.inf):
        raise ValueError(f"class totals must be finite and >= 0, got P={p}, N={n}")
    tp, fp = arr[:, 0], arr[:, 1]
    if arr.size:
        if not arr.min() >= 0:  # also refuses NaN
            raise ValueError("TP and FP counts must be >= 0")
        if tp.max() > p * (1.0 + _REL_TOL) or fp.max() > n * (1.0 + _REL_TOL):
            raise ValueError(f"TP counts must not exceed P = {p}, nor FP counts N = {n}")
        np.minimum(tp, p, out=tp)
        np.minimum(fp, n, out=fp)
    if tp.shape[0] > 1:
        order = np.lexsort((fp, tp))
        tp, fp = tp[order], fp[order]
    return PRCurve(np.ascontiguousarray(tp), np.ascontiguousarray(fp), p, n)


def aurpc(curve: PRCurve, zero_tp_points: ZeroTPPoints = "drop") -> float:
    """Area under the recall-precision curve, Davis-Goadrich interpolation, computed exactly.

    Points with TP = 0 are first dropped (``zero_tp_points="drop"``, the default and the
    convention of Davis & Goadrich's AUCCalculator, PAPERS.md "Metrics") or kept (``"keep"``).
    The curve is the sorted points, extended (PAPERS.md "Metrics", prankboost-ilp2009 sec. 4):

    * to recall 0 horizontally, at the precision of its lowest-recall point. This equals
      prepending the point (TP, FP) = (0, 0): interpolating from the origin keeps FP/TP, and
      so precision, constant;
    * to recall 1 by the all-positive point (P, N), unless the last point has TP = P.

    Between consecutive points A and B with TP_A < TP_B, FP grows linearly with TP at the
    local skew s = (FP_B - FP_A) / (TP_B - TP_A), and the area is::

        (1/P) * integral_{TP_A}^{TP_B} x / (x + FP_A + s (x - TP_A)) dx
          = (1/P) [x/a - (b/a^2) ln(a x + b)]_{TP_A}^{TP_B},   a = 1 + s, b = FP_A - s TP_A.

    Points with equal TP add no area. See :func:`_segment_areas` for the degenerate cases and
    the cancellation-free evaluation of this closed form. An empty curve is the all-positive
    point alone: area P / (P + N). Raises ``ValueError`` when P = 0 (no positive weight).
    """
    if not curve.p > 0:
        raise ValueError("AURPC needs positive examples of non-zero total weight (P > 0)")
    curve = _with_zero_tp(curve, zero_tp_points)
    if len(curve) <= _SCALAR_POINTS:
        return _aurpc_scalar(curve)
    tp, fp = _extended(curve)
    return float(_segment_areas(tp, fp).sum() / curve.p)


def interpolated_precision(
    curve: PRCurve, recall: npt.ArrayLike, zero_tp_points: ZeroTPPoints = "drop"
) -> FloatArray:
    """Davis-Goadrich precision at each ``recall`` in [0, 1], on the curve :func:`aurpc` uses
    (with the same ``zero_tp_points`` convention).

    At the recall of several points (equal TP) the precision is that of the first of them,
    in (TP, FP) order; at recall 0 it is the limit from the right.
    """
    if not curve.p > 0:
        raise ValueError("precision at a recall needs positive weight (P > 0)")
    rho = np.asarray(recall, dtype=np.float64)
    if np.any((rho < 0) | (rho > 1)) or np.any(np.isnan(rho)):
        raise ValueError("recall values must lie in [0, 1]")
    tp, fp = _extended(_with_zero_tp(curve, zero_tp_points))
    rising = np.flatnonzero(np.diff(tp) > 0)
    tp_a, fp_a = tp[rising], fp[rising]
    tp_b, fp_b = tp[rising + 1], fp[rising + 1]
    x = rho * curve.p
    k = np.minimum(np.searchsorted(tp_b, x, side="left"), len(rising) - 1)
    s = (fp_b[k] - fp_a[k]) / (tp_b[k] - tp_a[k])
    denominator = x + fp_a[k] + s * (x - tp_a[k])
    at_origin = (x == 0) & (tp_a[k] + fp_a[k] == 0)  # constant precision 1 / (1 + s)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(at_origin, 1.0 / (1.0 + s), x / denominator)
    return out


def average_precision_step(
    scores: npt.ArrayLike, labels: npt.ArrayLike, weights: npt.ArrayLike | None = None
) -> float:
    """scikit-learn's step-wise average precision, sum_k (R_k - R_{k-1}) P_k.

    Equals ``sklearn.metrics.average_precision_score`` (with ``sample_weight=weights``). It
    is not the interpolated AURPC of :func:`aurpc`; it is here for comparison only.
    """
    curve = pr_points_from_scores(scores, labels, weights)
    if not curve.p > 0:
        raise ValueError("average precision needs positive examples of non-zero weight")
    d_recall = np.diff(curve.tp, prepend=0.0) / curve.p
    return float(np.sum(d_recall * curve.precision))


# --------------------------------------------------------------------------------------------
# ROC
# --------------------------------------------------------------------------------------------


class ROCPoints(NamedTuple):
    """ROC points from (0, 0) through one point per distinct score, highest score first."""

    fpr: FloatArray
    tpr: FloatArray
    thresholds: FloatArray  # thresholds[0] is +inf: nothing predicted positive


def roc_points(
    scores: npt.ArrayLike, labels: npt.ArrayLike, weights: npt.ArrayLike | None = None
) -> ROCPoints:
    """False- and true-positive rates at each distinct score threshold (weighted)."""
    thresholds, tp, fp = _ranked_counts(scores, labels, weights)
    p, n = _totals(tp, fp, "ROC points")
    return ROCPoints(
        np.concatenate(([0.0], fp / n)),
        np.concatenate(([0.0], tp / p)),
        np.concatenate(([np.inf], thresholds)),
    )


def auroc(
    scores: npt.ArrayLike, labels: npt.ArrayLike, weights: npt.ArrayLike | None = None
) -> float:
    """Area under the ROC curve: the Mann-Whitney statistic with ties counted 1/2.

    Weighted: ``sum_{i pos, j neg} w_i w_j ([s_i > s_j] + 0.5 [s_i = s_j]) / (W_pos W_neg)``,
    computed in O(n log n) as the trapezoid area of :func:`roc_points` (dissertation 2.1).
    """
    _, tp, fp = _ranked_counts(scores, labels, weights)
    p, n = _totals(tp, fp, "AUROC")
    tp_before = np.concatenate(([0.0], tp[:-1]))
    d_fp = np.diff(fp, prepend=0.0)
    return float(np.sum(d_fp * (tp_before + tp)) / (2.0 * p * n))


# --------------------------------------------------------------------------------------------
# Point metrics
# --------------------------------------------------------------------------------------------


def f1(tp: float, fp: float, p: float) -> float:
    """F1 = 2 precision recall / (precision + recall) = 2 TP / (TP + FP + P); 0 if undefined."""
    denominator = tp + fp + p
    return 2.0 * tp / denominator if denominator > 0 else 0.0


def accuracy(tp: float, fp: float, p: float, n: float) -> float:
    """(TP + TN) / (P + N) with TN = N - FP; 0 when there are no examples."""
    total = p + n
    return (tp + n - fp) / total if total > 0 else 0.0


def mean_cross_entropy(probs: npt.ArrayLike, labels: npt.ArrayLike, floor: float) -> float:
    """Mean cross entropy (gleanersrl sec. 3), in nats.

    ``-(1/n) sum_i [a_i ln p_i + (1 - a_i) ln(1 - p_i)]`` with each probability clipped to
    ``[floor, 1 - floor]`` (the paper's prob_min, ``0 < floor <= 0.5``). The paper writes
    ``log`` without a base; this is the natural log: divide by ln 2 for bits.
    """
    if not 0.0 < floor <= 0.5:
        raise ValueError(f"the probability floor must lie in (0, 0.5], got {floor}")
    prob = np.asarray(probs, dtype=np.float64).ravel()
    positive = _as_labels(labels, prob.shape[0])
    if prob.shape[0] == 0:
        raise ValueError("mean cross entropy of no examples")
    if np.any(np.isnan(prob)):
        raise ValueError("probabilities must not be NaN")
    clipped = np.clip(prob, floor, 1.0 - floor)
    log_likelihood = np.where(positive, np.log(clipped), np.log1p(-clipped))
    return float(-np.mean(log_likelihood))


# --------------------------------------------------------------------------------------------
# Significance: K-fold paired t-test
# --------------------------------------------------------------------------------------------


class TTestResult(NamedTuple):
    t: float
    p_value: float
    dof: int


def paired_t_test(a: npt.ArrayLike, b: npt.ArrayLike) -> TTestResult:
    """Two-sided K-fold paired t-test of per-fold scores ``a`` and ``b`` (dissertation 2.1).

    With differences d_k = a_k - b_k: ``t = mean(d) / (sd(d) / sqrt(K))`` (sd with K - 1 in
    the denominator), K - 1 degrees of freedom, p = P(|T| >= |t|). When every difference is
    the same, t is 0 with p = 1 if they are all 0, else +-inf with p = 0.
    """
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"paired scores differ in length ({x.shape[0]} vs {y.shape[0]})")
    k = int(x.shape[0])
    if k < 2:
        raise ValueError(f"a paired t-test needs at least 2 folds, got {k}")
    d = x - y
    dof = k - 1
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        if mean == 0.0:
            return TTestResult(0.0, 1.0, dof)
        return TTestResult(math.copysign(math.inf, mean), 0.0, dof)
    t = mean / (sd / math.sqrt(k))
    # Two-sided tail: P(|T| >= |t|) = I_{dof / (dof + t^2)}(dof / 2, 1 / 2).
    p_value = regularized_incomplete_beta(dof / 2.0, 0.5, dof / (dof + t * t))
    return TTestResult(t, p_value, dof)


def student_t_cdf(t: float, dof: float) -> float:
    """P(T <= t) for Student's t distribution with ``dof`` > 0 degrees of freedom."""
    if not dof > 0:
        raise ValueError(f"degrees of freedom must be > 0, got {dof}")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * regularized_incomplete_beta(dof / 2.0, 0.5, dof / (dof + t * t))
    return 1.0 - tail if t > 0 else tail


def regularized_incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b) for a, b > 0 and x in [0, 1], by its continued fraction.

    The fraction converges quickly for x < (a + 1) / (a + b + 2); beyond, the symmetry
    I_x(a, b) = 1 - I_{1-x}(b, a) is used (Numerical Recipes, sec. 6.4).
    """
    if not (a > 0 and b > 0):
        raise ValueError(f"beta parameters must be > 0, got a={a}, b={b}")
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"x must lie in [0, 1], got {x}")
    if x == 0.0 or x == 1.0:
        return x
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), evaluated by the modified Lentz method.

    I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * 1 / (1 + d_1 / (1 + d_2 / (1 + ...))) with
    d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) and
    d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)).
    """
    tiny, eps = 1e-300, 1e-15
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            delta = c * d
            h *= delta
        if abs(delta - 1.0) < eps:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _as_labels(labels: npt.ArrayLike, size: int) -> BoolArray:
    arr = np.asarray(labels).ravel()
    if arr.shape[0] != size:
        raise ValueError(f"{arr.shape[0]} labels for {size} scores")
    if arr.dtype == np.bool_:
        return arr
    bad = ~np.isin(arr, (0, 1))
    if np.any(bad):
        raise ValueError(
            "labels must be 1/True (positive) or 0/False (negative); got "
            f"{arr[bad][0]!r} (drop unlabeled examples first)"
        )
    return np.asarray(arr == 1)


def _as_weights(weights: npt.ArrayLike | None, size: int) -> FloatArray:
    if weights is None:
        return np.ones(size, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.shape[0] != size:
        raise ValueError(f"{w.shape[0]} weights for {size} scores")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and >= 0")
    return w


def _ranked_counts(
    scores: npt.ArrayLike, labels: npt.ArrayLike, weights: npt.ArrayLike | None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Distinct scores (descending) and the cumulative weighted TP, FP down to each."""
    s = np.asarray(scores, dtype=np.float64).ravel()
    if np.any(np.isnan(s)):
        raise ValueError("scores must not be NaN")
    positive = _as_labels(labels, s.shape[0])
    w = _as_weights(weights, s.shape[0])
    order = np.argsort(-s, kind="stable")
    s, positive, w = s[order], positive[order], w[order]
    tp = np.cumsum(np.where(positive, w, 0.0))
    fp = np.cumsum(np.where(positive, 0.0, w))
    last_of_tie = np.concatenate((np.flatnonzero(np.diff(s) != 0), [s.shape[0] - 1]))
    last_of_tie = last_of_tie[last_of_tie >= 0].astype(np.int64)
    return s[last_of_tie], tp[last_of_tie], fp[last_of_tie]


def _totals(tp: FloatArray, fp: FloatArray, what: str) -> tuple[float, float]:
    p = float(tp[-1]) if tp.shape[0] else 0.0
    n = float(fp[-1]) if fp.shape[0] else 0.0
    if not (p > 0 and n > 0):
        raise ValueError(f"{what} needs positive and negative examples of non-zero weight")
    return p, n


def _with_zero_tp(curve: PRCurve, zero_tp_points: ZeroTPPoints) -> PRCurve:
    """The curve without its TP = 0 points (``"drop"``) or unchanged (``"keep"``)."""
    if zero_tp_points == "keep":
        return curve
    if zero_tp_points != "drop":
        raise ValueError(f"zero_tp_points must be 'drop' or 'keep', got {zero_tp_points!r}")
    keep = curve.tp > 0
    if bool(keep.all()):
        return curve
    thresholds = None if curve.thresholds is None else curve.thresholds[keep]
    return PRCurve(curve.tp[keep], curve.fp[keep], curve.p, curve.n, thresholds)


def _extended(curve: PRCurve) -> tuple[FloatArray, FloatArray]:
    """The curve's points with (0, 0) first and (P, N) last unless recall 1 is reached."""
    tp, fp = [np.zeros(1)], [np.zeros(1)]
    tp.append(curve.tp)
    fp.append(curve.fp)
    if len(curve) == 0 or curve.tp[-1] < curve.p:
        tp.append(np.array([curve.p]))
        fp.append(np.array([curve.n]))
    return np.concatenate(tp), np.concatenate(fp)


def _segment_areas(tp: FloatArray, fp: FloatArray) -> FloatArray:
    """integral_{TP_A}^{TP_B} x / (x + FP_A + s (x - TP_A)) dx for consecutive points A, B.

    The denominator d(x) = a x + b (a = 1 + s, b = FP_A - s TP_A) is the predicted-positive
    weight, linear from d0 = TP_A + FP_A to d1 = TP_B + FP_B > 0, so it never vanishes inside
    the segment. Substituting u = a x + b in the closed form of PAPERS.md gives

        [x/a - (b/a^2) ln(a x + b)]_{TP_A}^{TP_B} = (D/d0) (TP_A g(r) + D h(r))

    with D = TP_B - TP_A, r = (d1 - d0) / d0 = a D / d0, g(r) = ln(1 + r) / r and
    h(r) = (r - ln(1 + r)) / r^2. This is the same closed form, but it keeps full precision
    where the textbook form cancels: a -> 0 (s -> -1, possible only when FP decreases, i.e. for
    non-nested classifier points; there the integrand tends to x / d0 and g, h to 1, 1/2) and
    short segments of long rankings (r -> 0); for |r| < 0.1, g and h use their Taylor series.
    Degenerate cases: D = 0 adds no area; d0 = 0 (A at the origin, b = 0) gives the
    constant precision TP_B / d1 over the segment, area D^2 / d1.
    """
    d_tp = np.diff(tp)
    rising = d_tp > 0
    x0, big_d = tp[:-1][rising], d_tp[rising]
    d0 = x0 + fp[:-1][rising]
    d1 = tp[1:][rising] + fp[1:][rising]
    areas = np.zeros(d_tp.shape[0])
    at_origin = d0 <= 0
    safe_d0 = np.where(at_origin, 1.0, d0)
    r = (big_d + np.diff(fp)[rising]) / safe_d0
    small = np.abs(r) < _SERIES_BELOW
    safe_r = np.where(small, 1.0, r)
    log_term = np.log1p(safe_r)
    g = np.where(small, _alternating_series(r, 1), log_term / safe_r)
    h = np.where(small, _alternating_series(r, 2), (safe_r - log_term) / safe_r**2)
    general = big_d / safe_d0 * (x0 * g + big_d * h)
    areas[rising] = np.where(at_origin, big_d**2 / d1, general)
    return areas


def _segment_area(x0: float, fp0: float, x1: float, fp1: float) -> float:
    """:func:`_segment_areas` for one segment with x1 > x0, in plain floats (same formula)."""
    big_d = x1 - x0
    d0 = x0 + fp0
    if d0 <= 0:
        return big_d * big_d / (x1 + fp1)
    r = (big_d + (fp1 - fp0)) / d0
    if abs(r) < _SERIES_BELOW:
        g, h = _alternating_series(r, 1), _alternating_series(r, 2)
    else:
        log_term = math.log1p(r)
        g, h = log_term / r, (r - log_term) / (r * r)
    return big_d / d0 * (x0 * g + big_d * h)


def _aurpc_scalar(curve: PRCurve) -> float:
    """:func:`aurpc` of a short curve, segment by segment in plain floats."""
    tp = [0.0, *curve.tp.tolist()]
    fp = [0.0, *curve.fp.tolist()]
    if tp[-1] < curve.p:
        tp.append(curve.p)
        fp.append(curve.n)
    area = 0.0
    for i in range(len(tp) - 1):
        if tp[i + 1] > tp[i]:
            area += _segment_area(tp[i], fp[i], tp[i + 1], fp[i + 1])
    return area / curve.p


@overload
def _alternating_series(r: float, offset: int) -> float: ...
@overload
def _alternating_series(r: FloatArray, offset: int) -> FloatArray: ...
def _alternating_series(r: float | FloatArray, offset: int) -> float | FloatArray:
    """sum_{k >= 0} (-r)^k / (k + offset), by Horner: g(r) for offset 1, h(r) for offset 2."""
    total = 0.0 * r
    for k in range(_SERIES_TERMS - 1, -1, -1):
        total = 1.0 / (k + offset) - r * total
    return total
