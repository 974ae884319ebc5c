"""PRankBoost and RankBoost (prankboost-ilp2009 Table 1, dissertation ch.6).

Expected numbers are worked out by hand from the papers' formulas (the arithmetic is in the
comments); only the learners' end-to-end runs compare the code with itself (determinism,
round trips).
"""

from __future__ import annotations

import itertools
import json
import math
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.core.coverage import Counts
from ilpkit.core.learner import LearnContext
from ilpkit.core.metrics import aurpc, pr_points_from_scores
from ilpkit.core.model_files import load_model, save_model
from ilpkit.core.scoring import weighted_auroc_r, weighted_aurpc_path, weighted_aurpc_point
from ilpkit.core.search import SearchContext
from ilpkit.core.task import POS, Task
from ilpkit.plugins.backends.native.engine import NativeBackend
from ilpkit.plugins.learners import boosting
from ilpkit.plugins.learners.boost_model import BoostModel
from ilpkit.plugins.learners.boost_weak import (
    R_CLIP,
    alpha_from_r,
    f1_threshold,
    initial_weights,
    most_specific,
    objective_scorer,
    path_values,
    update_weights,
)
from ilpkit.plugins.learners.boosting import (
    PRankBoost,
    PRankBoostOptions,
    RankBoost,
    RankBoostOptions,
)
from ilpkit.plugins.search.hillclimb import HillClimb

runner = CliRunner()

SQRT2 = math.sqrt(2.0)

# The hand-built example: 3 positives then 6 negatives; skew = 6 / 3 = 2.
POSITIVE = np.array([True] * 3 + [False] * 6)
# h values of a weak learner: positives 1, 0, 1/2; negatives 1, 0, 0, 0, 0, 1/2.
H = np.array([1.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.5])
ALPHA = math.log(2.0)  # alpha for r = 0.6: 0.5 ln(1.6 / 0.4) = 0.5 ln 4 = ln 2


# --------------------------------------------------------------------------------------------
# Table 1 arithmetic
# --------------------------------------------------------------------------------------------


def test_initial_weights_are_one_over_x1_and_skew_over_x0() -> None:
    # skew = 2: positives 1/|X1| = 1/3, negatives skew/|X0| = 2/6 = 1/3
    w = initial_weights(POSITIVE, np.ones(9), 2.0)
    assert w == pytest.approx([1 / 3] * 9, rel=1e-15)
    # RankBoost.B: negatives 1/|X0| = 1/6
    w = initial_weights(POSITIVE, np.ones(9), 1.0)
    assert w == pytest.approx([1 / 3] * 3 + [1 / 6] * 6, rel=1e-15)


def test_alpha_for_known_r() -> None:
    assert alpha_from_r(0.6) == pytest.approx(0.5 * math.log(4.0), rel=1e-15)
    assert alpha_from_r(0.6) == pytest.approx(math.log(2.0), rel=1e-15)
    assert alpha_from_r(0.0) == 0.0
    assert alpha_from_r(-0.6) == pytest.approx(-math.log(2.0), rel=1e-15)
    # r = 1 (a perfect ranking) is clipped to 1 - 1e-9: alpha = 0.5 ln((2 - 1e-9) / 1e-9)
    # ~ 0.5 ln(2e9) = 0.5 (ln 2 + 9 ln 10) = 0.5 (0.693147 + 20.723266) = 10.708207
    assert R_CLIP == 1 - 1e-9
    assert alpha_from_r(1.0) == pytest.approx(10.708207, abs=1e-5)
    assert math.isfinite(alpha_from_r(1.0))


def test_prankboost_weight_update_by_hand() -> None:
    w = np.array([1 / 3] * 9)
    out = update_weights(w, POSITIVE, H, ALPHA, 2.0)
    # Positives: w exp(-alpha h) = (1/3) * (1/2, 1, 2^-1/2), since exp(-ln 2 * h) = 2^-h.
    # Z1 = (1/3)(1/2 + 1 + 1/sqrt2) = (1/3)(1.5 + 1/sqrt2), so
    # w' = (1/2, 1, 1/sqrt2) / (1.5 + 1/sqrt2) = (0.226541, 0.453082, 0.320377).
    z1 = 1.5 + 1 / SQRT2
    assert out[:3] == pytest.approx([0.5 / z1, 1 / z1, (1 / SQRT2) / z1], rel=1e-14)
    assert out[:3] == pytest.approx([0.226541, 0.453082, 0.320377], abs=1e-6)
    # Negatives: w exp(alpha h) = (1/3)(2, 1, 1, 1, 1, sqrt2); their sum is (6 + sqrt2)/3 and
    # Z0 = (1/skew) * sum = (6 + sqrt2)/6, so w' = 2 (2, 1, 1, 1, 1, sqrt2) / (6 + sqrt2):
    # 4/7.414214 = 0.539505, 2/7.414214 = 0.269752, 2 sqrt2/7.414214 = 0.381487.
    z = 6 + SQRT2
    expected = [4 / z, 2 / z, 2 / z, 2 / z, 2 / z, 2 * SQRT2 / z]
    assert out[3:] == pytest.approx(expected, rel=1e-14)
    assert out[3:] == pytest.approx([0.539505, *[0.269752] * 4, 0.381487], abs=1e-6)
    # class totals stay 1 and skew = 2
    assert out[:3].sum() == pytest.approx(1.0, rel=1e-15)
    assert out[3:].sum() == pytest.approx(2.0, rel=1e-15)
    # the input is not modified
    assert w == pytest.approx([1 / 3] * 9)


def test_rankboost_weight_update_by_hand() -> None:
    w = np.array([1 / 3] * 3 + [1 / 6] * 6)
    out = update_weights(w, POSITIVE, H, ALPHA, 1.0)
    # positives as in PRankBoost (their total was 1 there too)
    z1 = 1.5 + 1 / SQRT2
    assert out[:3] == pytest.approx([0.5 / z1, 1 / z1, (1 / SQRT2) / z1], rel=1e-14)
    # negatives: (1/6)(2, 1, 1, 1, 1, sqrt2) / Z0 with Z0 = (6 + sqrt2)/6 (skew 1), so
    # w' = (2, 1, 1, 1, 1, sqrt2) / (6 + sqrt2)
    z = 6 + SQRT2
    assert out[3:] == pytest.approx([2 / z, 1 / z, 1 / z, 1 / z, 1 / z, SQRT2 / z], rel=1e-14)
    assert out[3:].sum() == pytest.approx(1.0, rel=1e-15)


def test_update_with_alpha_zero_keeps_weights() -> None:
    w = np.array([0.2, 0.5, 0.3, 0.1, 0.3, 0.4, 0.5, 0.4, 0.3])  # totals 1 and 2
    assert update_weights(w, POSITIVE, H, 0.0, 2.0) == pytest.approx(w, rel=1e-15)


def test_rankboost_r_is_the_weighted_auroc_form() -> None:
    # r = sum_pos w h - sum_neg w h with per-class totals 1: for the weights above after
    # initialisation (1/3 per positive, 1/6 per negative) and h of H:
    # sum_pos = (1/3)(1 + 0 + 0.5) = 0.5, sum_neg = (1/6)(1 + 0.5) = 0.25, r = 0.25.
    w = np.array([1 / 3] * 3 + [1 / 6] * 6)
    r_sum = float((w * H)[POSITIVE].sum() - (w * H)[~POSITIVE].sum())
    assert r_sum == pytest.approx(0.25)
    # for a clause (h in {0, 1}) covering positive 1 and negatives 1, 2 (weights 1/3, 1/6,
    # 1/6): TP = 1/3, FP = 1/3, P = N = 1, r = 1/3 - 1/3 = 0
    assert weighted_auroc_r(Counts(1 / 3, 1 / 3, 1.0, 1.0)) == pytest.approx(0.0)
    assert weighted_auroc_r(Counts(2 / 3, 1 / 6, 1.0, 1.0)) == pytest.approx(0.5)


# --------------------------------------------------------------------------------------------
# Path h(x)
# --------------------------------------------------------------------------------------------


def test_path_values_on_a_constant_precision_path() -> None:
    # P = N = 4; path (4,4) -> (2,2) -> (1,1): precision 1/2 everywhere, so the curve is the
    # straight line precision = 1/2 and the total area is 1/2. The area right of recall 1/2
    # is 1/2 * 1/2 = 1/4 (h = 1/2), right of recall 1/4 it is 3/4 * 1/2 = 3/8 (h = 3/4).
    path = [Counts(4, 4, 4, 4), Counts(2, 2, 4, 4), Counts(1, 1, 4, 4)]
    assert weighted_aurpc_path(path) == pytest.approx(0.5, rel=1e-14)
    assert path_values(path) == pytest.approx([0.0, 0.5, 0.75], rel=1e-14)


def test_path_values_on_a_two_clause_path_by_the_closed_form() -> None:
    # P = N = 4; path: the most general clause (4, 4) and A = (2, 0).
    # Area: recall 0 -> 1/2 at precision 1 (A's horizontal extension): 1/2.
    # A -> (4, 4): s = 4/2 = 2, a = 1 + s = 3, b = FP_A - s TP_A = -4; the closed form
    # x/a - (b/a^2) ln(a x + b) = x/3 + (4/9) ln(3x - 4) from 2 to 4 gives
    # (4/3 - 2/3) + (4/9)(ln 8 - ln 2) = 2/3 + (4/9) ln 4; divided by P = 4: 1/6 + (1/9) ln 4
    # = 0.166667 + 0.154033 = 0.320699. Total 0.820699; h(A) = 0.320699 / 0.820699 = 0.390763.
    right = 1 / 6 + math.log(4) / 9
    total = 0.5 + right
    path = [Counts(4, 4, 4, 4), Counts(2, 0, 4, 4)]
    assert weighted_aurpc_path(path) == pytest.approx(total, rel=1e-13)
    assert path_values(path) == pytest.approx([0.0, right / total], rel=1e-13)
    assert path_values(path)[1] == pytest.approx(0.390763, abs=1e-6)


def test_path_values_on_a_three_clause_path() -> None:
    # P = 4, N = 8; path (4, 8) -> B = (3, 1) -> A = (1, 0), most general first.
    # recall 0 -> 1/4 at precision 1: 1/4.
    # A -> B: s = 1/2, a = 3/2, b = 0 - 1/2 = -1/2: [x/1.5 + (2/9) ln(1.5x - 0.5)]_1^3
    #   = (2 - 2/3) + (2/9)(ln 4 - ln 1) = 4/3 + (2/9) ln 4; /4 -> 1/3 + (1/18) ln 4.
    # B -> (4, 8): s = 7, a = 8, b = 1 - 21 = -20: [x/8 + (20/64) ln(8x - 20)]_3^4
    #   = 1/8 + (5/16)(ln 12 - ln 4) = 1/8 + (5/16) ln 3; /4 -> 1/32 + (5/64) ln 3.
    a_to_b = 1 / 3 + math.log(4) / 18
    b_to_all = 1 / 32 + 5 * math.log(3) / 64
    total = 0.25 + a_to_b + b_to_all
    path = [Counts(4, 8, 4, 8), Counts(3, 1, 4, 8), Counts(1, 0, 4, 8)]
    assert weighted_aurpc_path(path) == pytest.approx(total, rel=1e-13)
    values = path_values(path)
    assert values == pytest.approx([0.0, b_to_all / total, (a_to_b + b_to_all) / total])
    # h grows with specificity and stays below 1 (the horizontal piece is never counted)
    assert values[0] < values[1] < values[2] < 1.0
    # a clause that keeps recall 1 (fewer negatives only) has nothing to its right: 0
    path = [Counts(4, 8, 4, 8), Counts(4, 5, 4, 8), Counts(1, 0, 4, 8)]
    assert path_values(path)[:2] == [0.0, 0.0]


def test_h_is_the_value_of_the_most_specific_covering_clause() -> None:
    # 6 examples; most general clause covers all, B covers {1, 2, 3}, A covers {2}.
    covered = [np.arange(6), np.array([1, 2, 3]), np.array([2])]
    h = most_specific(6, covered, [0.0, 0.3, 0.8])
    assert h.tolist() == [0.0, 0.3, 0.8, 0.3, 0.0, 0.0]
    assert most_specific(3, [np.array([0, 2])], [1.0]).tolist() == [1.0, 0.0, 1.0]


def test_f1_threshold_by_hand() -> None:
    # scores 3, 2, 2, 1 with labels 1, 0, 1, 0 (P = 2): cut at 3: TP 1, FP 0, F1 = 2/3;
    # at 2: TP 2, FP 1, F1 = 4/5; at 1: TP 2, FP 2, F1 = 4/6. Best: 2.
    scores = np.array([3.0, 2.0, 2.0, 1.0])
    labels = np.array([1, 0, 1, 0])
    assert f1_threshold(scores, labels, np.ones(4)) == 2.0
    # ties go to the highest threshold: scores 2, 1, 0 with labels 1, 0, 1 (P = 2): at 2
    # F1 = 2/(1 + 0 + 2) = 2/3, at 1 F1 = 2/(1 + 1 + 2) = 1/2, at 0 F1 = 4/(2 + 1 + 2) = 4/5.
    # With labels 1, 1, 0 instead: at 2 F1 = 2/3, at 1 F1 = 4/4 = 1, at 0 F1 = 4/5 -> 1.
    assert f1_threshold(np.array([2.0, 1.0, 0.0]), np.array([1, 0, 1]), np.ones(3)) == 0.0
    assert f1_threshold(np.array([2.0, 1.0, 0.0]), np.array([1, 1, 0]), np.ones(3)) == 1.0
    # constant scores: the single cut
    assert f1_threshold(np.array([0.0, 0.0]), np.array([1, 0]), np.ones(2)) == 0.0


# --------------------------------------------------------------------------------------------
# Hill climbing on a path objective
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def uwcse(bundled: Callable[..., tuple[Task, NativeBackend]]) -> tuple[Task, NativeBackend]:
    return bundled("uwcse", i=2, clauselength=4, nodes=80)


def fit(
    uwcse: tuple[Task, NativeBackend], learner: PRankBoost | RankBoost, seed: int = 0
) -> BoostModel:
    task, backend = uwcse
    ctx = LearnContext(
        backend=backend,
        make_search=lambda: HillClimb(),
        scorer=objective_scorer("aurpc_point"),
        settings=task.bias.settings,
        seed=seed,
    )
    return learner.fit(task, ctx)


def prank(**options: Any) -> PRankBoost:
    return PRankBoost(PRankBoostOptions(**options))


class RecordingHillClimb(HillClimb):
    """Hill climbing that records each round's objective scorer and path."""

    runs: ClassVar[list[tuple[str, list[Counts]]]] = []

    def run(self, ctx: SearchContext) -> Any:
        best = super().run(ctx)
        RecordingHillClimb.runs.append((ctx.scorer.name, [e.counts for e in self.trajectory]))
        return best


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Counts]]]:
    RecordingHillClimb.runs = []
    monkeypatch.setattr(boosting, "HillClimb", RecordingHillClimb)
    return RecordingHillClimb.runs


def test_hillclimb_scores_candidates_as_the_end_of_the_path(
    uwcse: tuple[Task, NativeBackend], recording: list[tuple[str, list[Counts]]]
) -> None:
    fit(uwcse, prank(weak="path", rounds=2))
    for name, path in recording:
        assert name == "aurpc_path"
        # each step raised the path's area: a prefix-by-prefix increase
        areas = [weighted_aurpc_path(path[: k + 1]) for k in range(len(path))]
        assert all(b > a for a, b in itertools.pairwise(areas))


# --------------------------------------------------------------------------------------------
# What each variant keeps and how it is scored
# --------------------------------------------------------------------------------------------


def same_counts(points: tuple[tuple[float, float], ...], path: list[Counts]) -> bool:
    return [pt for pt in points] == [(c.tp, c.fp) for c in path]


@pytest.mark.parametrize(
    ("weak", "objective", "keeps_path", "rated_by_path"),
    [
        ("clause", "aurpc", False, False),
        ("path", "aurpc_path", True, True),
        ("mix1", "aurpc_path", False, True),
        ("mix2", "aurpc", True, False),
    ],
)
def test_variants_use_the_intended_objective_and_retention(
    uwcse: tuple[Task, NativeBackend],
    recording: list[tuple[str, list[Counts]]],
    weak: str,
    objective: str,
    keeps_path: bool,
    rated_by_path: bool,
) -> None:
    model = fit(uwcse, prank(weak=weak, rounds=3))
    assert len(model.hypotheses) == len(recording) == 3
    for hyp, (name, path) in zip(model.hypotheses, recording, strict=True):
        assert name == objective
        assert hyp.variant == weak
        assert same_counts(hyp.path, path)
        kept = [(c.weighted_tp, c.weighted_fp) for c in hyp.clauses]
        if keeps_path:
            assert kept == [(c.tp, c.fp) for c in path]
            assert not hyp.clauses[0].clause.body  # the most general clause first
            assert [c.value for c in hyp.clauses] == pytest.approx(path_values(path))
        else:
            assert kept == [(path[-1].tp, path[-1].fp)]
            assert [c.value for c in hyp.clauses] == [1.0]
        expected_r = weighted_aurpc_path(path) if rated_by_path else weighted_aurpc_point(path[-1])
        assert hyp.r == pytest.approx(expected_r, rel=1e-14)
        assert hyp.alpha == pytest.approx(0.5 * math.log((1 + hyp.r) / (1 - hyp.r)), rel=1e-14)


def test_mix3_alternates_clause_and_path(
    uwcse: tuple[Task, NativeBackend], recording: list[tuple[str, list[Counts]]]
) -> None:
    model = fit(uwcse, prank(weak="mix3", rounds=4))
    assert [h.variant for h in model.hypotheses] == ["clause", "path", "clause", "path"]
    assert [name for name, _ in recording] == ["aurpc", "aurpc_path", "aurpc", "aurpc_path"]
    assert [len(h.clauses) for h in model.hypotheses][0::2] == [1, 1]
    assert [len(h.clauses) == len(h.path) for h in model.hypotheses][1::2] == [True, True]


def test_rankboost_uses_r_as_objective_and_alpha(
    uwcse: tuple[Task, NativeBackend], recording: list[tuple[str, list[Counts]]]
) -> None:
    model = fit(uwcse, RankBoost(RankBoostOptions(rounds=3)))
    for hyp, (name, _) in zip(model.hypotheses, recording, strict=True):
        assert name == "auroc"
        # both classes at total 1 (RankBoost.B)
        assert (hyp.weighted_p, hyp.weighted_n) == pytest.approx((1.0, 1.0), rel=1e-12)
        c = hyp.clauses[0]
        assert hyp.r == pytest.approx(c.weighted_tp - c.weighted_fp, rel=1e-12)
        assert len(hyp.clauses) == 1 and c.value == 1.0


def test_prankboost_class_totals_are_one_and_skew_every_round(
    uwcse: tuple[Task, NativeBackend],
) -> None:
    task, _ = uwcse
    labels = task.examples.labels
    skew = float((labels == 0).sum()) / float((labels == POS).sum())  # 2711 / 113
    model = fit(uwcse, prank(rounds=4))
    assert model.info["skew"] == pytest.approx(skew)
    for hyp in model.hypotheses:
        assert hyp.weighted_p == pytest.approx(1.0, rel=1e-12)
        assert hyp.weighted_n == pytest.approx(skew, rel=1e-12)
    # the first round's weights are the unweighted data's: weighted = unweighted / |X1|
    first = model.hypotheses[0].clauses[0]
    assert first.weighted_tp == pytest.approx(first.tp / 113)
    assert first.weighted_fp == pytest.approx(first.fp / 113)


def test_weighted_seed_selection_draws_positive_seeds(
    uwcse: tuple[Task, NativeBackend],
) -> None:
    task, _ = uwcse
    weighted = fit(uwcse, prank(rounds=4, seed_selection="weighted"))
    seeds = [h.seed for h in weighted.hypotheses]
    assert all(task.examples.labels[s] == POS for s in seeds)


# --------------------------------------------------------------------------------------------
# Model: score, predict, determinism, round trip, anytime snapshots
# --------------------------------------------------------------------------------------------


def test_score_is_the_alpha_weighted_sum_of_h(uwcse: tuple[Task, NativeBackend]) -> None:
    task, backend = uwcse
    model = fit(uwcse, prank(weak="mix3", rounds=4))
    expected = np.zeros(len(task.examples))
    for hyp in model.hypotheses:
        h = np.zeros(len(task.examples))
        for c in hyp.clauses:  # most general first: the most specific covering one wins
            h[backend.coverage(c.clause).ids] = c.value
        expected += hyp.alpha * h
    assert model.score(backend) == pytest.approx(expected, rel=1e-12)
    ids = np.array([0, 5, 200, 2800])
    assert model.score(backend, ids) == pytest.approx(expected[ids], rel=1e-12)
    assert (model.predict(backend) == (model.score(backend) >= model.threshold)).all()


def test_training_aurpc_beats_the_positive_rate(uwcse: tuple[Task, NativeBackend]) -> None:
    task, backend = uwcse
    labels = (task.examples.labels == POS).astype(np.int64)
    rate = labels.mean()  # 113 / 2824 = 0.040: the AURPC of a random ranking
    learners = (
        prank(rounds=5),
        prank(weak="path", rounds=5),
        RankBoost(RankBoostOptions(rounds=5)),
    )
    for learner in learners:
        model = fit(uwcse, learner)
        assert aurpc(pr_points_from_scores(model.score(backend), labels)) > rate


def test_same_seed_same_model_other_seed_other_seeds(uwcse: tuple[Task, NativeBackend]) -> None:
    a = fit(uwcse, prank(weak="path", rounds=3), seed=1)
    b = fit(uwcse, prank(weak="path", rounds=3), seed=1)
    c = fit(uwcse, prank(weak="path", rounds=3), seed=2)
    assert a.to_json() == b.to_json()
    assert [h.seed for h in a.hypotheses] != [h.seed for h in c.hypotheses]


def test_model_json_round_trip(uwcse: tuple[Task, NativeBackend], tmp_path: Path) -> None:
    _, backend = uwcse
    model = fit(uwcse, prank(weak="mix3", rounds=3))
    data = json.loads(json.dumps(model.to_json()))
    again = BoostModel.from_json(data)
    assert again.to_json() == model.to_json()
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert isinstance(loaded, BoostModel) and loaded.learner == "prankboost"
    assert np.array_equal(loaded.score(backend), model.score(backend))
    assert [r.to_json() for r in loaded.rules()] == [r.to_json() for r in model.rules()]
    assert loaded.threshold == model.threshold


def test_rules_carry_alpha_times_value_and_unweighted_counts(
    uwcse: tuple[Task, NativeBackend],
) -> None:
    model = fit(uwcse, prank(weak="path", rounds=2))
    rules = model.rules()
    expected = [(h.alpha * c.value, c.tp, c.fp) for h in model.hypotheses for c in h.clauses]
    assert [(r.weight, r.tp, r.fp) for r in rules] == [e for e in expected if e[0] > 0]
    for r in rules:
        assert r.precision == pytest.approx(r.tp / (r.tp + r.fp))
        assert r.recall == pytest.approx(r.tp / 113)


def test_at_budget_keeps_the_rounds_finished_within_it(uwcse: tuple[Task, NativeBackend]) -> None:
    _, backend = uwcse
    model = fit(uwcse, prank(rounds=4))
    spent = [h.found_after for h in model.hypotheses]
    assert spent == sorted(spent) and spent[-1] == model.clauses_evaluated
    snap = model.at_budget(spent[1])
    assert [h.round for h in snap.hypotheses] == [1, 2]
    assert snap.threshold == model.hypotheses[1].threshold
    before = model.at_budget(spent[0] - 1)
    assert before.hypotheses == [] and before.clauses_evaluated == spent[0] - 1
    assert not before.score(backend).any()  # nothing learnt yet: every example scores 0
    full = model.at_budget(model.clauses_evaluated)
    assert full.to_json()["hypotheses"] == model.to_json()["hypotheses"]
    # beyond the run's total: every round, and the total as the clauses evaluated
    beyond = model.at_budget(model.clauses_evaluated + 1000)
    assert len(beyond.hypotheses) == 4 and beyond.clauses_evaluated == model.clauses_evaluated


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("learner", ["prankboost", "rankboost"])
def test_learn_predict_explain_on_trains(learner: str, tmp_path: Path) -> None:
    out = tmp_path / "model.json"
    result = runner.invoke(
        app,
        ["learn", "trains", "--learner", learner, "--set", "learner.rounds=5", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["learner"] == learner and len(data["hypotheses"]) == 5
    result = runner.invoke(app, ["predict", str(out), "trains"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["explain", str(out)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "alpha" in result.output and "w.prec" in result.output


def test_explain_orders_the_ensemble_by_alpha(
    uwcse: tuple[Task, NativeBackend], tmp_path: Path
) -> None:
    model = fit(uwcse, prank(rounds=3))
    save_model(model, tmp_path / "m.json")
    result = runner.invoke(app, ["explain", str(tmp_path / "m.json")], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    order = sorted(model.hypotheses, key=lambda h: (-h.alpha, h.round))
    shown = [f"{h.alpha:.4f}" for h in order]
    positions = [result.output.index(a) for a in shown]
    assert positions == sorted(positions)


@pytest.mark.parametrize("learner", ["prankboost", "rankboost"])
def test_cv_records_hillclimb_and_anytime_curves(learner: str, tmp_path: Path) -> None:
    out = tmp_path / "cv"
    args = ["cv", "uwcse", "--learner", learner, "--set", "learner.rounds=3", "--quiet"]
    args += ["--set", "i=2", "--set", "clauselength=3", "--set", "nodes=30"]
    args += ["--curve", "1,100000", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    config = tomllib.loads((out / "config.toml").read_text())
    assert config["search"]["name"] == "hillclimb"
    for unit in results["units"]:
        first, last = unit["curve"]
        # after 1 clause no round has finished: H = 0, AURPC = the test fold's positive rate
        labels = json.loads((out / "units" / f"{unit['key']}.json").read_text())["labels"]
        assert first["aurpc"] == pytest.approx(sum(labels) / len(labels))
        # far beyond the run's total: the final ensemble
        assert last["aurpc"] == pytest.approx(unit["metrics"]["aurpc"])
