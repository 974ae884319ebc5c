"""Metrics: exact AURPC (prankboost-ilp2009 sec. 4), AUROC, point metrics and the t-test.

Expected numbers are computed here from the formulas of PAPERS.md ("Metrics") -- the closed
form F(x) = x/a - (b/a^2) ln(a x + b) per segment, the Mann-Whitney pair count, the Student t
CDF in closed form for 1, 2 and 4 degrees of freedom -- or read from a t table; never from
the code under test.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ilpkit.core.metrics import (
    PRCurve,
    accuracy,
    auroc,
    aurpc,
    average_precision_step,
    f1,
    interpolated_precision,
    mean_cross_entropy,
    paired_t_test,
    pr_points_from_counts,
    pr_points_from_scores,
    regularized_incomplete_beta,
    roc_points,
    student_t_cdf,
)


def closed_form(x: float, a: float, b: float) -> float:
    """PAPERS.md: the antiderivative x/a - (b/a^2) ln(a x + b) of x / (a x + b)."""
    return x / a - (b / a**2) * math.log(a * x + b)


def segment(tp_a: float, fp_a: float, tp_b: float, fp_b: float) -> float:
    """integral_{TP_A}^{TP_B} x / (x + FP_A + s (x - TP_A)) dx by the closed form (a != 0)."""
    s = (fp_b - fp_a) / (tp_b - tp_a)
    a, b = 1 + s, fp_a - s * tp_a
    return closed_form(tp_b, a, b) - closed_form(tp_a, a, b)


def trapezoid(y: np.ndarray, x: np.ndarray) -> float:
    return float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2)


# --------------------------------------------------------------------------------------------
# AURPC: the closed form, the extensions, degenerate points
# --------------------------------------------------------------------------------------------


def test_segment_closed_form_by_hand_and_by_numerical_integration() -> None:
    # A = (2, 1), B = (6, 9): s = 2, a = 3, b = -3;
    # F(6) - F(2) = 4/3 - (-3/9)(ln 15 - ln 3) = 4/3 + ln(5)/3.
    by_hand = 4 / 3 + math.log(5) / 3
    assert segment(2, 1, 6, 9) == pytest.approx(by_hand, rel=1e-15)
    x = np.linspace(2, 6, 400_001)
    numeric = trapezoid(x / (x + 1 + 2 * (x - 2)), x)
    assert numeric == pytest.approx(by_hand, rel=1e-9)


def test_two_point_curve_is_the_sum_of_extension_segment_and_extension() -> None:
    p, n = 10.0, 20.0
    curve = pr_points_from_counts([(6, 9), (2, 1)], p, n)
    to_recall_0 = (2 / p) * (2 / 3)  # horizontal at A's precision
    a_to_b = (4 / 3 + math.log(5) / 3) / p
    # B = (6, 9) to (P, N) = (10, 20): s = 11/4, a = 3.75, b = 9 - 16.5 = -7.5.
    b_to_all = (4 / 3.75 + (7.5 / 3.75**2) * math.log(30 / 15)) / p
    assert b_to_all == pytest.approx(segment(6, 9, 10, 20) / p, rel=1e-14)
    assert aurpc(curve) == pytest.approx(to_recall_0 + a_to_b + b_to_all, rel=1e-13)
    assert aurpc(curve) == pytest.approx(0.4639491133776671, rel=1e-12)


def test_interpolated_precision_between_two_points() -> None:
    curve = pr_points_from_counts([(2, 1), (6, 9)], 10, 20)
    # Recall 0.4 is TP = 4, halfway from A to B: FP = 1 + 2 * 2 = 5, precision 4/9 --
    # not 8/15, the straight line between A's 2/3 and B's 2/5.
    got = interpolated_precision(curve, [0.0, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0])
    expected = [2 / 3, 2 / 3, 2 / 3, 4 / 9, 6 / 15, 8 / (8 + 9 + 2.75 * 2), 10 / 30]
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_aurpc_equals_numerical_integral_of_the_interpolated_curve() -> None:
    curve = pr_points_from_counts([(1, 0), (3, 4), (3, 7), (7, 8), (8, 15)], 10, 25)
    rho = np.linspace(0, 1, 1_000_001)
    numeric = trapezoid(interpolated_precision(curve, rho), rho)
    assert aurpc(curve) == pytest.approx(numeric, abs=1e-6)


def test_extension_to_recall_0_is_horizontal() -> None:
    # One point (4, 1) of P = 4: it reaches recall 1, so the area is recall * precision.
    assert aurpc(pr_points_from_counts([(4, 1)], 4, 9)) == pytest.approx(4 / 5, rel=1e-15)


def test_a_point_at_recall_1_is_not_extended_to_the_all_positive_point() -> None:
    # (10, 5) with P = 10, N = 20: area 10/15; (10, 20) would only add a vertical drop.
    assert aurpc(pr_points_from_counts([(10, 5)], 10, 20)) == pytest.approx(2 / 3, rel=1e-15)
    assert interpolated_precision(pr_points_from_counts([(10, 5)], 10, 20), [1.0])[0] == (
        pytest.approx(2 / 3)
    )


def test_empty_curve_is_the_all_positive_point() -> None:
    assert aurpc(pr_points_from_counts([], 10, 30)) == pytest.approx(0.25, rel=1e-15)
    assert aurpc(pr_points_from_counts([(0, 0)], 10, 30)) == pytest.approx(0.25, rel=1e-15)


def test_point_at_zero_recall_starts_at_precision_zero_when_kept() -> None:
    # (0, 5) to (10, 20): s = 1.5, a = 2.5, b = 5: [x/2.5 - (5/6.25) ln(2.5 x + 5)]_0^10.
    expected = (4 - 0.8 * math.log(30 / 5)) / 10
    curve = pr_points_from_counts([(0, 5)], 10, 20)
    assert aurpc(curve, zero_tp_points="keep") == pytest.approx(expected, rel=1e-14)
    # Dropped (the default, AUCCalculator's convention): only the all-positive point remains,
    # extended to recall 0 at its precision P / (P + N) = 1/3.
    assert aurpc(curve) == pytest.approx(1 / 3, rel=1e-15)


def test_top_tie_group_of_negatives_by_hand() -> None:
    # Scores [2, 1], labels [0, 1]: points (TP, FP) = (0, 1), (1, 1) with P = N = 1.
    # Davis & Goadrich drop (0, 1) and extend (1, 1) -- precision 1/2 -- to recall 0: area 1/2.
    curve = pr_points_from_scores([2, 1], [0, 1])
    assert aurpc(curve) == pytest.approx(0.5, rel=1e-15)
    np.testing.assert_allclose(interpolated_precision(curve, [0.0, 0.5, 1.0]), [0.5] * 3)
    # Kept: from (0, 1) to (1, 1) precision is x / (x + 1), area 1 - ln 2 = 0.3069.
    assert aurpc(curve, zero_tp_points="keep") == pytest.approx(1 - math.log(2), rel=1e-14)
    with pytest.raises(ValueError, match="zero_tp_points"):
        aurpc(curve, zero_tp_points="both")  # type: ignore[arg-type]


def aurpc_from_the_paper(scores: list[int], labels: list[bool], weights: list[float]) -> float:
    """A second AURPC, written from Davis & Goadrich (2006) and PAPERS.md, not from ilpkit.

    One point per distinct score threshold (ties move together); points with TP = 0 dropped;
    the first remaining point extended horizontally to recall 0; between consecutive points
    precision is TP / (TP + FP_A + s (TP - TP_A)) with s the local skew, integrated over recall
    numerically (scipy's adaptive quadrature), not with the closed form.
    """
    integrate = pytest.importorskip("scipy.integrate")
    points = []
    for threshold in sorted(set(scores), reverse=True):
        tp = sum(w for s, y, w in zip(scores, labels, weights, strict=True) if y and s >= threshold)
        fp = sum(
            w for s, y, w in zip(scores, labels, weights, strict=True) if not y and s >= threshold
        )
        points.append((tp, fp))
    p = sum(w for y, w in zip(labels, weights, strict=True) if y)
    points = [(tp, fp) for tp, fp in points if tp > 0]
    tp0, fp0 = points[0]
    area = (tp0 / p) * tp0 / (tp0 + fp0)  # horizontal extension to recall 0
    for (tp_a, fp_a), (tp_b, fp_b) in itertools.pairwise(points):
        if tp_b <= tp_a:
            continue
        s = (fp_b - fp_a) / (tp_b - tp_a)
        value, _ = integrate.quad(
            lambda r, tp_a=tp_a, fp_a=fp_a, s=s: (r * p) / (r * p + fp_a + s * (r * p - tp_a)),
            tp_a / p,
            tp_b / p,
            epsabs=1e-13,
            epsrel=1e-12,
        )
        area += value
    return area


def test_points_with_equal_tp_add_no_area() -> None:
    p, n = 10.0, 20.0
    points = [(8, 10), (4, 6), (4, 2)]
    # Sorted: (4, 2), (4, 6), (8, 10). (4, 2) -> (4, 6) is a vertical drop.
    expected = (
        (4 / p) * (4 / 6)
        + (2 - 0.5 * math.log(18 / 10)) / p  # (4, 6) -> (8, 10): a = 2, b = 2
        + (2 / 6 + (30 / 36) * math.log(30 / 18)) / p  # (8, 10) -> (10, 20): a = 6, b = -30
    )
    curve = pr_points_from_counts(points, p, n)
    assert curve.tp.tolist() == [4, 4, 8] and curve.fp.tolist() == [2, 6, 10]
    assert aurpc(curve) == pytest.approx(expected, rel=1e-13)
    # A duplicated point changes nothing.
    assert aurpc(pr_points_from_counts([*points, (4, 6)], p, n)) == pytest.approx(expected)


def test_non_nested_points_are_interpolated_in_recall_order() -> None:
    # (1, 5) -> (3, 3): FP falls, s = -1, a = 0: the integrand is x / 6; area (9 - 1)/12.
    p, n = 4.0, 10.0
    expected = (
        (1 / p) * (1 / 6)
        + (2 / 3) / p
        + (1 / 8 + (18 / 64) * math.log(14 / 6)) / p  # (3, 3) -> (4, 10): a = 8, b = -18
    )
    assert aurpc(pr_points_from_counts([(3, 3), (1, 5)], p, n)) == pytest.approx(
        expected, rel=1e-13
    )
    # s = -0.5 (a = 0.5, b = 2.5): [x/0.5 - 10 ln(0.5 x + 2.5)]_3^5 = 4 - 10 ln(5/4).
    curve = pr_points_from_counts([(3, 1), (5, 0)], 5, 10)
    expected2 = (3 / 5) * (3 / 4) + (4 - 10 * math.log(5 / 4)) / 5
    assert aurpc(curve) == pytest.approx(expected2, rel=1e-13)


def test_near_degenerate_segments_stay_accurate() -> None:
    # a -> 0 from both sides, and a long ranking's one-positive step (r -> 0): the closed
    # form cancels there; compare with the limits and with a fine trapezoid.
    for fp_b in (3 - 1e-9, 3 + 1e-9):
        curve = pr_points_from_counts([(1, 5), (3, fp_b)], 3, 10)
        assert aurpc(curve) == pytest.approx((1 / 6 + 2 / 3) / 3, rel=1e-8)
    tp_a, fp_a = 50_000.0, 10**6
    x = np.linspace(tp_a, tp_a + 1, 10_001)
    numeric = trapezoid(x / (x + fp_a), x)
    step = pr_points_from_counts([(tp_a, fp_a), (tp_a + 1, fp_a)], tp_a + 1, fp_a)
    head = tp_a * tp_a / (tp_a + fp_a)
    assert aurpc(step) * (tp_a + 1) - head == pytest.approx(numeric, rel=1e-9)


def test_long_curves_match_short_curve_arithmetic() -> None:
    # Curves of more than a few points are summed with numpy; the result is the same.
    rng = np.random.default_rng(7)
    tp = np.sort(rng.integers(0, 40, 60)).astype(float)
    fp = np.sort(rng.integers(0, 90, 60)).astype(float)
    long = pr_points_from_counts(np.c_[tp, fp], 40, 90)
    total = 0.0
    pts = [(0.0, 0.0), *zip(long.tp.tolist(), long.fp.tolist(), strict=True), (40.0, 90.0)]
    for (x0, fp0), (x1, fp1) in itertools.pairwise(pts):
        if x1 > x0:
            total += (x1 - x0) * (x1 / (x1 + fp1)) if x0 + fp0 == 0 else segment(x0, fp0, x1, fp1)
    assert aurpc(long) == pytest.approx(total / 40, rel=1e-12)


def test_weighted_curve_is_invariant_to_scaling_the_weights() -> None:
    scores = [0.9, 0.8, 0.8, 0.5, 0.4, 0.1]
    labels = [1, 0, 1, 1, 0, 0]
    w = np.array([0.5, 2.0, 1.0, 0.25, 1.0, 3.0])
    base = aurpc(pr_points_from_scores(scores, labels, w))
    assert aurpc(pr_points_from_scores(scores, labels, 1e-6 * w)) == pytest.approx(base)
    # Integer weights are repeated examples.
    repeated = np.repeat(np.arange(6), [2, 8, 4, 1, 4, 12])
    expected = aurpc(pr_points_from_scores(np.take(scores, repeated), np.take(labels, repeated)))
    assert aurpc(pr_points_from_scores(scores, labels, 4 * w)) == pytest.approx(expected)


def test_perfect_and_all_tied_rankings() -> None:
    assert aurpc(pr_points_from_scores([3, 2, 1, 0], [1, 1, 0, 0])) == pytest.approx(1.0)
    assert aurpc(pr_points_from_scores([1, 1, 1, 1], [1, 0, 0, 0])) == pytest.approx(0.25)


def test_aurpc_refuses_curves_without_positives() -> None:
    with pytest.raises(ValueError, match="P > 0"):
        aurpc(pr_points_from_counts([], 0, 5))
    with pytest.raises(ValueError, match="P > 0"):
        aurpc(pr_points_from_scores([0.3, 0.2], [0, 0]))


# --------------------------------------------------------------------------------------------
# Curve construction
# --------------------------------------------------------------------------------------------


def test_points_from_scores_move_tied_examples_together() -> None:
    curve = pr_points_from_scores([0.3, 0.8, 0.9, 0.8], [0, 1, 1, 0])
    assert isinstance(curve, PRCurve)
    assert curve.thresholds is not None
    assert curve.thresholds.tolist() == [0.9, 0.8, 0.3]
    assert curve.tp.tolist() == [1, 2, 2]
    assert curve.fp.tolist() == [0, 1, 2]
    assert (curve.p, curve.n) == (2, 2)
    np.testing.assert_allclose(curve.recall, [0.5, 1, 1])
    np.testing.assert_allclose(curve.precision, [1, 2 / 3, 0.5])


def test_points_from_scores_are_weighted() -> None:
    curve = pr_points_from_scores([2, 1, 1], [1, 1, 0], [0.5, 0.25, 2.0])
    assert curve.tp.tolist() == [0.5, 0.75] and curve.fp.tolist() == [0, 2]
    assert (curve.p, curve.n) == (0.75, 2.0)


def test_points_from_counts_validate_their_input() -> None:
    with pytest.raises(ValueError, match="must not exceed P"):
        pr_points_from_counts([(11, 0)], 10, 5)
    with pytest.raises(ValueError, match=">= 0"):
        pr_points_from_counts([(1, -1)], 10, 5)
    with pytest.raises(ValueError, match=">= 0"):
        pr_points_from_counts([(math.nan, 1)], 10, 5)
    with pytest.raises(ValueError, match="pairs"):
        pr_points_from_counts([(1, 2, 3)], 10, 5)
    # A sum that overshoots P by rounding is clipped.
    assert pr_points_from_counts([(0.1 + 0.2, 0)], 0.3, 1).tp.tolist() == [0.3]


def test_labels_must_be_binary() -> None:
    with pytest.raises(ValueError, match="drop unlabeled"):
        auroc([0.1, 0.2], [1, -1])
    with pytest.raises(ValueError, match="labels for"):
        auroc([0.1, 0.2], [1])
    with pytest.raises(ValueError, match="weights must be"):
        pr_points_from_scores([0.1, 0.2], [1, 0], [1, -1])


# --------------------------------------------------------------------------------------------
# AUROC and step-wise average precision
# --------------------------------------------------------------------------------------------


def test_auroc_with_ties_by_hand() -> None:
    scores, labels = [3, 2, 2, 1], [1, 1, 0, 0]
    # Pairs (pos, neg): 3>2, 3>1, 2=2 (1/2), 2>1 -> 3.5 / 4.
    assert auroc(scores, labels) == pytest.approx(0.875)
    # Weights 1, 2 | 3, 1: (1*3 + 1*1 + 2*3*0.5 + 2*1) / (3 * 4) = 9/12.
    assert auroc(scores, labels, [1, 2, 3, 1]) == pytest.approx(0.75)
    fpr, tpr, thresholds = roc_points(scores, labels)
    assert fpr.tolist() == [0, 0, 0.5, 1] and tpr.tolist() == [0, 0.5, 1, 1]
    assert thresholds[0] == math.inf and thresholds[1:].tolist() == [3, 2, 1]


def test_auroc_needs_both_classes() -> None:
    with pytest.raises(ValueError, match="positive and negative"):
        auroc([0.1, 0.2], [1, 1])


def test_average_precision_step_by_hand() -> None:
    # Ranking + - + with P = 2: AP = 1/2 * 1 + 1/2 * 2/3.
    assert average_precision_step([3, 2, 1], [1, 0, 1]) == pytest.approx(0.5 + 1 / 3)


rankings = st.integers(min_value=2, max_value=40).flatmap(
    lambda size: st.tuples(
        st.lists(st.integers(0, 6), min_size=size, max_size=size),  # few values: many ties
        st.lists(st.booleans(), min_size=size, max_size=size).filter(lambda y: 0 < sum(y) < len(y)),
        st.lists(st.floats(0.05, 5.0), min_size=size, max_size=size),
    )
)


@settings(max_examples=100, deadline=None)
@given(rankings)
def test_auroc_equals_sklearn(ranking: tuple[list[int], list[bool], list[float]]) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    scores, labels, weights = ranking
    assert auroc(scores, labels) == pytest.approx(metrics.roc_auc_score(labels, scores))
    assert auroc(scores, labels, weights) == pytest.approx(
        metrics.roc_auc_score(labels, scores, sample_weight=weights)
    )


@settings(max_examples=100, deadline=None)
@given(rankings)
def test_average_precision_step_equals_sklearn(
    ranking: tuple[list[int], list[bool], list[float]],
) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    scores, labels, weights = ranking
    assert average_precision_step(scores, labels) == pytest.approx(
        metrics.average_precision_score(labels, scores)
    )
    assert average_precision_step(scores, labels, weights) == pytest.approx(
        metrics.average_precision_score(labels, scores, sample_weight=weights)
    )


@settings(max_examples=100, deadline=None)
@given(rankings)
def test_aurpc_of_rankings_is_an_area(ranking: tuple[list[int], list[bool], list[float]]) -> None:
    scores, labels, weights = ranking
    curve = pr_points_from_scores(scores, labels, weights)
    area = aurpc(curve)
    assert 0.0 <= area <= 1.0 + 1e-12
    rho = np.unique(np.concatenate([np.linspace(0, 1, 20_001), curve.recall]))
    assert area == pytest.approx(trapezoid(interpolated_precision(curve, rho), rho), abs=2e-3)


# --------------------------------------------------------------------------------------------
# Point metrics
# --------------------------------------------------------------------------------------------


def test_f1_and_accuracy() -> None:
    # TP 6, FP 2, P 10: precision 3/4, recall 3/5, F1 = 2 * 0.45 / 1.35 = 2/3.
    assert f1(6, 2, 10) == pytest.approx(2 / 3)
    assert f1(0, 0, 0) == 0.0
    assert accuracy(6, 2, 10, 30) == pytest.approx((6 + 28) / 40)
    assert accuracy(0, 0, 0, 0) == 0.0


def test_mean_cross_entropy_clips_to_the_floor() -> None:
    probs, labels = [0.9, 0.2, 1.0, 0.0], [1, 0, 1, 1]
    expected = -(math.log(0.9) + math.log(0.8) + math.log(0.99) + math.log(0.01)) / 4
    assert mean_cross_entropy(probs, labels, 0.01) == pytest.approx(expected)
    with pytest.raises(ValueError, match="floor"):
        mean_cross_entropy(probs, labels, 0.0)


# --------------------------------------------------------------------------------------------
# Student t and the paired t-test
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("t", "dof", "p_value"),
    [
        # Two-sided critical values from a t table.
        (12.706, 1, 0.05),
        (4.303, 2, 0.05),
        (2.776, 4, 0.05),
        (4.604, 4, 0.01),
        (2.262, 9, 0.05),
        (3.250, 9, 0.01),
        (2.228, 10, 0.05),
        (2.045, 29, 0.05),
        (1.699, 29, 0.10),
    ],
)
def test_two_sided_tail_matches_the_t_table(t: float, dof: int, p_value: float) -> None:
    assert 2 * (1 - student_t_cdf(t, dof)) == pytest.approx(p_value, abs=2e-4)
    assert 2 * student_t_cdf(-t, dof) == pytest.approx(p_value, abs=2e-4)


@pytest.mark.parametrize("t", [-7.0, -1.3, -0.2, 0.0, 0.5, 2.0, 30.0])
def test_student_t_cdf_closed_forms(t: float) -> None:
    assert student_t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-13)
    assert student_t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(t * t + 2)), abs=1e-13)
    u = t / math.sqrt(1 + t * t / 4)
    nu4 = 0.5 + 3 / 8 * u * (1 - t * t / (12 * (1 + t * t / 4)))
    assert student_t_cdf(t, 4) == pytest.approx(nu4, abs=1e-13)


def test_incomplete_beta_special_cases() -> None:
    for x in (0.0, 0.1, 0.5, 0.93, 1.0):
        assert regularized_incomplete_beta(1, 1, x) == pytest.approx(x)
        assert regularized_incomplete_beta(3, 1, x) == pytest.approx(x**3)
        assert regularized_incomplete_beta(1, 2.5, x) == pytest.approx(1 - (1 - x) ** 2.5)
        assert regularized_incomplete_beta(2.5, 7, x) == pytest.approx(
            1 - regularized_incomplete_beta(7, 2.5, 1 - x)
        )


def test_paired_t_test_by_hand() -> None:
    a = [0.61, 0.72, 0.83, 0.94, 1.05]
    b = [0.60, 0.70, 0.80, 0.90, 1.00]
    # d = .01 .02 .03 .04 .05: mean .03, sd = .01 sqrt(2.5), t = .03 / (sd / sqrt 5) = 3 sqrt 2.
    t, p_value, dof = paired_t_test(a, b)
    assert dof == 4
    assert t == pytest.approx(3 * math.sqrt(2))
    u = t / math.sqrt(1 + t * t / 4)
    cdf = 0.5 + 3 / 8 * u * (1 - t * t / (12 * (1 + t * t / 4)))
    assert p_value == pytest.approx(2 * (1 - cdf), rel=1e-10)
    assert paired_t_test(b, a).t == pytest.approx(-t)


def test_paired_t_test_agrees_with_scipy_when_installed() -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(11)
    for k in (2, 3, 5, 10, 30):
        a, b = rng.random(k), rng.random(k) + 0.1
        ours = paired_t_test(a, b)
        ref = stats.ttest_rel(a, b)
        assert ours.t == pytest.approx(float(ref.statistic))
        assert ours.p_value == pytest.approx(float(ref.pvalue), rel=1e-9, abs=1e-14)


def test_paired_t_test_degenerate_inputs() -> None:
    assert paired_t_test([1, 2, 3], [1, 2, 3]) == (0.0, 1.0, 2)
    assert paired_t_test([2, 3, 4], [1, 2, 3]) == (math.inf, 0.0, 2)
    with pytest.raises(ValueError, match="at least 2 folds"):
        paired_t_test([1], [2])
    with pytest.raises(ValueError, match="differ in length"):
        paired_t_test([1, 2], [2])


@settings(max_examples=150, deadline=None)
@given(rankings)
def test_aurpc_equals_an_independent_implementation_of_davis_goadrich(
    ranking: tuple[list[int], list[bool], list[float]],
) -> None:
    scores, labels, weights = ranking
    expected = aurpc_from_the_paper(scores, labels, weights)
    assert aurpc(pr_points_from_scores(scores, labels, weights)) == pytest.approx(
        expected, abs=1e-9
    )
    ones = [1.0] * len(scores)
    assert aurpc(pr_points_from_scores(scores, labels)) == pytest.approx(
        aurpc_from_the_paper(scores, labels, ones), abs=1e-9
    )
