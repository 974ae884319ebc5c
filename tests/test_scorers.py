"""Clause scorers: the Scorer protocol, the built-in scorer plugins and the ranking helpers.

Expected values are worked out by hand from the formulas in the docstrings (Aleph's evalfns,
FOIL gain, prankboost-ilp2009 sec. 4 for the single-clause AURPC).
"""

from __future__ import annotations

import math
import pickle

import pytest

from ilpkit.core.coverage import Counts
from ilpkit.core.plugins import PluginManager, get_plugin_manager
from ilpkit.core.scoring import (
    Scorer,
    weighted_auroc_r,
    weighted_aurpc_path,
    weighted_aurpc_point,
)
from ilpkit.errors import ConfigError, PluginError
from ilpkit.plugins.scorers.aleph import MEstimateOptions, MEstimateScorer

# TP 6, FP 2 of P 10, N 30; a clause of 3 literals counting the head.
C = Counts(tp=6, fp=2, p=10, n=30)
L = 3

ALL = [
    "accuracy",
    "auroc",
    "aurpc",
    "auto_m",
    "compression",
    "coverage",
    "f1",
    "foil_gain",
    "laplace",
    "mestimate",
    "posonly",
    "posonly-unlabeled",
    "pr",
    "precision",
    "recall",
    "wracc",
]

# Single-clause AURPC of (6, 2), P = 10, N = 30: recall 0.6 at precision 3/4, then
# (6, 2) -> (10, 30): s = 7, a = 8, b = 2 - 42 = -40: [x/8 + (40/64) ln(8x - 40)]_6^10.
AURPC_C = 0.6 * 0.75 + (4 / 8 + (40 / 64) * math.log(40 / 8)) / 10

EXPECTED = {
    "coverage": 6 - 2,
    "compression": 6 - 2 - 3 + 1,
    "laplace": (6 + 1) / (6 + 2 + 2),
    "mestimate": (6 + 2 * 0.25) / (6 + 2 + 2),  # m = 2, prior = 10/40
    "auto_m": (6 + math.sqrt(8) * 0.25) / (6 + 2 + math.sqrt(8)),  # m = sqrt(TP + FP)
    "accuracy": (6 + 28) / 40,
    "wracc": 6 / 40 - (10 / 40) * (8 / 40),
    "precision": 6 / 8,
    "recall": 6 / 10,
    "f1": 2 * 6 / (6 + 2 + 10),
    "pr": 0.75 * 0.6,
    "foil_gain": 6 * (math.log2(6 / 8) - math.log2(10 / 40)),  # parent: (P, N)
    "aurpc": AURPC_C,
    "auroc": 6 / 10 - 2 / 30,
    # Aleph's posonly, N the random sample: ln P - ln((R'+1)/(|R|+2)) - L/P
    "posonly": math.log(6) - math.log((2 + 1) / (30 + 2)) - 3 / 6,
    "posonly-unlabeled": 6 * math.log((30 + 2) / (2 + 1)) - 3,  # TP ln((N+2)/(FP+1)) - L
}


def test_every_scorer_is_registered_as_a_builtin(manager: PluginManager) -> None:
    assert manager.names("scorer") == ALL
    assert {spec.source for spec in manager.specs("scorer")} == {"ilpkit"}
    assert "aurpc" in get_plugin_manager().names("scorer")


@pytest.mark.parametrize("name", ALL)
def test_each_scorer_on_hand_computed_counts(manager: PluginManager, name: str) -> None:
    scorer = manager.make("scorer", name)
    assert isinstance(scorer, Scorer)
    assert scorer.name == name
    assert scorer.needs_path is False
    assert scorer.score(C, L) == pytest.approx(EXPECTED[name], rel=1e-13)


@pytest.mark.parametrize("name", ALL)
def test_scorers_pickle_for_parallel_executors(manager: PluginManager, name: str) -> None:
    scorer = manager.make("scorer", name)
    assert pickle.loads(pickle.dumps(scorer)).score(C, L) == scorer.score(C, L)


def test_ratio_scorers_take_weighted_counts() -> None:
    # Every scorer but the additive ones (coverage, compression) and the smoothed ones
    # (laplace, mestimate) is unchanged when all weights are scaled.
    manager = PluginManager(entry_points=False)
    scaled = Counts(6 / 40, 2 / 40, 10 / 40, 30 / 40)
    for name in ("accuracy", "wracc", "precision", "recall", "f1", "pr", "aurpc", "auroc"):
        scorer = manager.make("scorer", name)
        assert scorer.score(scaled, L) == pytest.approx(EXPECTED[name], rel=1e-12), name
    assert manager.make("scorer", "coverage").score(scaled, L) == pytest.approx(0.1)


def test_compression_follows_aleph_counting_the_head() -> None:
    scorer = get_plugin_manager().make("scorer", "compression")
    assert scorer.score(Counts(5, 1, 9, 9), 1) == 4  # the most general clause: P - N
    assert scorer.score(Counts(5, 1, 9, 9), 4) == 1  # three body literals cost 3


def test_mestimate_options(manager: PluginManager) -> None:
    assert manager.make("scorer", "mestimate", {"m": 0}).score(C, L) == pytest.approx(0.75)
    with_prior = manager.make("scorer", "mestimate", {"m": 4, "prior": 0.5})
    assert with_prior.score(C, L) == pytest.approx((6 + 2) / (8 + 4))
    assert isinstance(with_prior, MEstimateScorer)
    assert with_prior.options == MEstimateOptions(m=4, prior=0.5)
    # No coverage: the m-estimate is the prior; with m = 0 as well, 0 (like precision).
    assert manager.make("scorer", "mestimate").score(Counts(0, 0, 10, 30), 1) == 0.25
    assert manager.make("scorer", "mestimate", {"m": 0}).score(Counts(0, 0, 10, 30), 1) == 0


def test_mestimate_refuses_bad_options(manager: PluginManager) -> None:
    with pytest.raises(ConfigError) as info:
        manager.make("scorer", "mestimate", {"m": -1})
    assert str(info.value) == (
        "scorer 'mestimate': option 'm': Input should be greater than or equal to 0 (got -1)"
    )
    with pytest.raises(ConfigError, match="option 'prior': Input should be less than or equal"):
        manager.make("scorer", "mestimate", {"prior": 1.5})
    with pytest.raises(ConfigError, match="unknown option; did you mean 'm'"):
        manager.make("scorer", "mestimate", {"mm": 3})
    with pytest.raises(ConfigError, match="no options are accepted here"):
        manager.make("scorer", "laplace", {"m": 3})


def test_unknown_scorer_suggests_the_closest(manager: PluginManager) -> None:
    with pytest.raises(PluginError, match="no scorer named 'laplase'; did you mean 'laplace'"):
        manager.get("scorer", "laplase")


def test_empty_coverage(manager: PluginManager) -> None:
    empty = Counts(0, 0, 10, 30)
    assert manager.make("scorer", "precision").score(empty, 2) == 0.0
    assert manager.make("scorer", "laplace").score(empty, 2) == 0.5
    assert manager.make("scorer", "f1").score(empty, 2) == 0.0
    assert manager.make("scorer", "wracc").score(empty, 2) == 0.0
    assert manager.make("scorer", "foil_gain").score(empty, 2) == 0.0
    # The empty clause's only point is (0, 0): its curve is the all-positive point's.
    assert manager.make("scorer", "aurpc").score(empty, 2) == pytest.approx(0.25)


def test_foil_gain_is_relative_to_the_parent(manager: PluginManager) -> None:
    scorer = manager.make("scorer", "foil_gain")
    assert scorer.needs_parent is True
    parent = Counts(8, 8, 10, 30)
    assert scorer.score(C, L, parent) == pytest.approx(6 * math.log2(0.75 / 0.5))
    assert scorer.score(C, L, None) == pytest.approx(6 * math.log2(3))
    # Losing precision is a negative gain.
    assert scorer.score(Counts(2, 6, 10, 30), L, Counts(4, 4, 10, 30)) == pytest.approx(
        2 * math.log2(0.25 / 0.5)
    )
    with pytest.raises(ValueError, match="parent covers none"):
        scorer.score(C, L, Counts(0, 5, 10, 30))


def test_weighted_aurpc_point_by_hand() -> None:
    assert weighted_aurpc_point(C) == pytest.approx(AURPC_C, rel=1e-13)
    # PRankBoost's first-round weights: 1/|X1| on positives, skew/|X0| on negatives
    # (skew = 30/10): the counts are (6/10, 2*3/30, 1, 3), the same curve up to scale.
    assert weighted_aurpc_point(Counts(0.6, 0.2, 1.0, 3.0)) == pytest.approx(AURPC_C)
    # A clause of recall 1 is its own point: recall * precision.
    assert weighted_aurpc_point(Counts(10, 5, 10, 30)) == pytest.approx(10 / 15)
    # The most general clause itself: P / (P + N).
    assert weighted_aurpc_point(Counts(10, 30, 10, 30)) == pytest.approx(0.25)


def test_weighted_aurpc_path() -> None:
    # Path from the most general clause (10, 30) through (8, 10) to (4, 2), P = 10, N = 30.
    path = [Counts(10, 30, 10, 30), Counts(8, 10, 10, 30), Counts(4, 2, 10, 30)]
    # Sorted: (4, 2), (8, 10), then (10, 30) reaches recall 1.
    # (4, 2) -> (8, 10): s = 2, a = 3, b = 2 - 8 = -6: [x/3 + (6/9) ln(3x - 6)]_4^8.
    # (8, 10) -> (10, 30): s = 10, a = 11, b = 10 - 80 = -70: [x/11 + (70/121) ln(11x - 70)]_8^10.
    expected = (
        0.4 * (4 / 6)
        + (4 / 3 + (6 / 9) * math.log(18 / 6)) / 10
        + (2 / 11 + (70 / 121) * math.log(40 / 18)) / 10
    )
    assert weighted_aurpc_path(path) == pytest.approx(expected, rel=1e-13)
    assert weighted_aurpc_path(path[::-1]) == pytest.approx(expected, rel=1e-13)
    assert weighted_aurpc_path([C]) == pytest.approx(weighted_aurpc_point(C))
    with pytest.raises(ValueError, match="same weights"):
        weighted_aurpc_path([C, Counts(1, 1, 10, 31)])
    with pytest.raises(ValueError, match="at least one clause"):
        weighted_aurpc_path([])


def test_weighted_auroc_r_is_rankboost_r() -> None:
    # Per-class normalised weights: r = sum_pos w h - sum_neg w h = TP/P - FP/N.
    assert weighted_auroc_r(C) == pytest.approx(0.6 - 1 / 15)
    assert weighted_auroc_r(Counts(10, 30, 10, 30)) == 0.0  # the most general clause
    assert weighted_auroc_r(Counts(10, 0, 10, 30)) == 1.0  # a perfect clause
    assert weighted_auroc_r(Counts(3, 0, 10, 0)) == pytest.approx(0.3)  # N = 0


@pytest.mark.parametrize("name", ["mestimate", "auto_m"])
def test_the_prior_is_fixed_at_the_totals_given(manager: PluginManager, name: str) -> None:
    """Aleph's m-estimates keep the prior of the examples as read (P / (P + N) at
    ``read_examples``) while its covering loop removes positives: ``with_prior_of``."""
    scorer = manager.make("scorer", name)
    fixed = scorer.with_prior_of(Counts(0, 0, 154, 594))  # WebKB: 154 positives, 594 negatives
    assert fixed.options.prior == pytest.approx(154 / 748)
    later = Counts(1, 0, 7, 594)  # one positive covered of the 7 left
    m = 2.0 if name == "mestimate" else 1.0  # auto_m: sqrt(TP + FP) = 1
    assert fixed.score(later, 2) == pytest.approx((1 + m * 154 / 748) / (1 + m))
    assert scorer.score(later, 2) == pytest.approx((1 + m * 7 / 601) / (1 + m))
    given = manager.make("scorer", name, {"prior": 0.5})
    assert given.with_prior_of(Counts(0, 0, 154, 594)) is given  # a prior given stays
