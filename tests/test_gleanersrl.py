"""GleanerSRL: Table 1's kernels, PAV, the prob_min leave-one-out choice, MCE, end to end.

Expected numbers are worked out by hand from the paper's formulas (Table 1, sec. 2.4, sec. 3),
as the comments show, never copied from the code's output.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console

import ilpkit
from ilpkit.core.calibration import choose_floor, isotonic_fit, leave_one_out
from ilpkit.core.learner import LearnContext
from ilpkit.core.metrics import mean_cross_entropy
from ilpkit.core.model_files import load_model, save_model
from ilpkit.core.plugins import PluginManager, PluginSpec, get_plugin_manager, hookimpl
from ilpkit.errors import PluginError
from ilpkit.experiment.runs import RunDirectory
from ilpkit.plugins.combiners.kernels import FeatureStats, KernelOptions, MatchKernel
from ilpkit.plugins.combiners.svm_solver import PROB_MIN_GRID
from ilpkit.plugins.learners.gleanersrl import GleanerSRLLearner, GleanerSRLOptions
from ilpkit.plugins.learners.gleanersrl.features import FeatureSpace

ROOT = Path(__file__).resolve().parent.parent

# 4 examples (rows) x 3 clauses (columns)
X = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]], dtype=float)
# training statistics, |train| = 8 with 4 positives:
#   clause 1: TP 2 FP 2 -> precision 1/2, recall 1/2, p_f = 4/8 = 1/2
#   clause 2: TP 1 FP 3 -> precision 1/4, recall 1/4, p_f = 1/2
#   clause 3: TP 2 FP 0 -> precision 1,   recall 1/2, p_f = 2/8 = 1/4
STATS = FeatureStats(np.array([2.0, 1.0, 2.0]), np.array([2.0, 3.0, 0.0]), n=8.0, p=4.0)


def gram_from_match(c: list[float]) -> np.ndarray:
    """K(xi, xj) = sum_f c_f [x_if = x_jf = 1] written out pair by pair."""
    (a, b, d) = c
    return np.array(
        [
            [a + b, a, b, 0],  # e1 = {1,2}: with e2 shares 1, with e3 shares 2
            [a, a + d, d, 0],  # e2 = {1,3}
            [b, d, b + d, 0],  # e3 = {2,3}
            [0, 0, 0, 0],  # e4 = {}
        ]
    )


# k(1,1) per clause from Table 1
MATCH_VALUES = {
    "dot": [1.0, 1.0, 1.0],
    "precision": [0.5, 0.25, 1.0],
    "recall": [0.5, 0.75, 0.5],  # 1 - recall_f
    "both-pos": [0.25, 0.0625, 1.0],  # precision_f ** 2
}


@pytest.mark.parametrize("name", sorted(MATCH_VALUES))
def test_linear_kernels_feature_map_gives_the_hand_gram(name: str) -> None:
    kernel = get_plugin_manager().make("kernel", name, {})
    expected = gram_from_match(MATCH_VALUES[name])
    phi = kernel.feature_map(X, STATS)
    np.testing.assert_allclose(phi @ phi.T, expected, atol=1e-12)
    np.testing.assert_allclose(kernel.gram(X, X, STATS), expected, atol=1e-12)


def test_dot_gram_by_counting_shared_clauses() -> None:
    kernel = get_plugin_manager().make("kernel", "dot", {})
    # e1.e1 = 2, e1.e2 = 1, e1.e3 = 1, e2.e2 = 2, e2.e3 = 1, e3.e3 = 2, e4 = 0
    expected = [[2, 1, 1, 0], [1, 2, 1, 0], [1, 1, 2, 0], [0, 0, 0, 0]]
    np.testing.assert_allclose(kernel.gram(X, X, STATS), expected)


def test_info_kernel_gram_by_hand() -> None:
    # clauses 1, 2 (p = 1/2): k11 = -log2(1/4) = 2, k10 = -log2(2 * 1/4) = 1, k00 = 2
    # clause 3 (p = 1/4): k11 = -log2(1/16) = 4, k10 = -log2(3/8), k00 = -log2(9/16)
    k10 = math.log2(8 / 3)
    k00 = math.log2(16 / 9)
    expected = np.array(
        [
            [2 + 2 + k00, 2 + 1 + k10, 1 + 2 + k10, 1 + 1 + k00],
            [2 + 1 + k10, 2 + 2 + 4, 1 + 1 + 4, 1 + 2 + k10],
            [1 + 2 + k10, 1 + 1 + 4, 2 + 2 + 4, 2 + 1 + k10],
            [1 + 1 + k00, 1 + 2 + k10, 2 + 1 + k10, 2 + 2 + k00],
        ]
    )
    kernel = get_plugin_manager().make("kernel", "info", {})
    assert kernel.feature_map(X, STATS) is None  # not PSD: no explicit map
    np.testing.assert_allclose(kernel.gram(X, X, STATS), expected, atol=1e-12)


def test_feature_stats_measured_from_a_matrix() -> None:
    x = np.array([[1, 0], [1, 1], [0, 1], [1, 0]], dtype=bool)
    stats = FeatureStats.measure(x, np.array([True, True, False, False]))
    np.testing.assert_array_equal(stats.tp, [2, 1])
    np.testing.assert_array_equal(stats.fp, [1, 1])
    np.testing.assert_allclose(stats.precision, [2 / 3, 1 / 2])
    np.testing.assert_allclose(stats.recall, [1.0, 0.5])


def test_binned_features_sum_train_precision_of_matching_clauses() -> None:
    # bin 0 holds clauses 0 and 1, bin 1 holds clause 1 and clause 2 twice (two seeds kept it)
    space = FeatureSpace(
        "binned", [], [[0, 1], [1, 2, 2]], [3, 7], np.array([0.5, 0.25, 1.0]), np.ones(2)
    )
    # e1 = {0,1}: [.5 + .25, .25]; e2 = {0,2}: [.5, 2]; e3 = {1,2}: [.25, .25 + 2]; e4: 0
    expected = [[0.75, 0.25], [0.5, 2.0], [0.25, 2.25], [0.0, 0.0]]
    np.testing.assert_allclose(space.from_booleans(X.astype(bool)), expected)
    space.kind, space.scale = "binned-normalised", np.array([0.75, 2.25])  # max on train
    np.testing.assert_allclose(
        space.from_booleans(X.astype(bool)), [[1, 1 / 9], [2 / 3, 8 / 9], [1 / 3, 1], [0, 0]]
    )


# --------------------------------------------------------------------------------------------
# Stage 4: PAV, leave-one-out, the floor
# --------------------------------------------------------------------------------------------


def test_pav_on_a_hand_sequence() -> None:
    # labels by score 1..6: 0 1 0 0 1 1. PAV: (1,0) violates -> pool 1/2; then 0 violates
    # -> pool (1,0,0) = 1/3; first block 0 <= 1/3; then 1, 1.
    iso = isotonic_fit([1, 2, 3, 4, 5, 6], [0, 1, 0, 0, 1, 1])
    np.testing.assert_allclose(iso([1, 2, 3, 4, 5, 6]), [0, 1 / 3, 1 / 3, 1 / 3, 1, 1])
    # between fitted scores: the step below; below all: the lowest value
    np.testing.assert_allclose(iso([0.0, 2.5, 4.9, 99]), [0, 1 / 3, 1 / 3, 1])


def test_pav_pools_tied_scores_first() -> None:
    # score 1 holds labels {1, 0} -> 1/2 (weight 2); score 2 -> 0 violates:
    # pooled (1 + 0) / (2 + 1) = 1/3; score 3 -> 1
    iso = isotonic_fit([1, 1, 2, 3], [1, 0, 0, 1])
    np.testing.assert_allclose(iso([1, 2, 3]), [1 / 3, 1 / 3, 1])


def test_leave_one_out_probabilities_by_hand() -> None:
    # scores 1..4, labels 0 0 1 1.  Without example 1: fit on (2,0) (3,1) (4,1) -> at score
    # 1 the lowest value 0.  Without 2: (1,0) (3,1) (4,1) -> at 2 the step of 1: 0.
    # Without 3: (1,0) (2,0) (4,1) -> at 3 the step of 2: 0.  Without 4: ... -> at 4: 1.
    loo = leave_one_out([1, 2, 3, 4], [0, 0, 1, 1])
    np.testing.assert_allclose(loo, [0, 0, 0, 1])


def test_prob_min_chosen_by_leave_one_out() -> None:
    # LOO probabilities [0, 0, 0, 1] for labels [0, 0, 1, 1]: MCE(f) = (-3 ln(1-f) - ln f)/4,
    # minimised where 3/(1-f) = 1/f, f = 1/4: the grid's 0.25.
    scores, positive = np.array([1.0, 2, 3, 4]), np.array([False, False, True, True])
    floor, mce = GleanerSRLLearner.tune_floor(scores, positive, PROB_MIN_GRID)
    assert floor == 0.25
    assert mce == pytest.approx((-3 * math.log(0.75) - math.log(0.25)) / 4)


def test_choose_floor_small_floor_wins_with_one_mistake_in_a_hundred() -> None:
    # 99 negatives at p = 0 (right) and a positive at p = 0 (the mistake):
    # MCE(f) = (-99 ln(1 - f) - ln f) / 100 is minimal at f = 1/100, on the grid.
    probs = np.zeros(100)
    labels = np.r_[np.zeros(99), 1]
    floor, mces = choose_floor(probs, labels, PROB_MIN_GRID)
    assert floor == 0.01
    assert mces[PROB_MIN_GRID.index(0.01)] == pytest.approx(
        (-99 * math.log(0.99) - math.log(0.01)) / 100
    )


def test_mean_cross_entropy_by_the_formula() -> None:
    # -(ln .9 + ln(1 - .2) + ln(1 - .6)) / 3
    got = mean_cross_entropy([0.9, 0.2, 0.6], [1, 0, 0], 0.001)
    assert got == pytest.approx((0.1053605157 + 0.2231435513 + 0.9162907319) / 3)
    # complete mistakes are clipped at prob_min = 0.1: -(ln .1 + ln .1) / 2
    assert mean_cross_entropy([1.0, 0.0], [0, 1], 0.1) == pytest.approx(2.302585093)


# --------------------------------------------------------------------------------------------
# Options and plugins
# --------------------------------------------------------------------------------------------


def test_variant_names_set_features_and_kernel() -> None:
    o = GleanerSRLOptions(kernel="binned-normalised-dot")
    assert (o.features, o.kernel) == ("binned-normalised", "dot")
    o = GleanerSRLOptions(kernel="boolean-both-pos")
    assert (o.features, o.kernel) == ("boolean", "both-pos")
    assert GleanerSRLOptions(kernel="gleaner").features == "gleaner"
    assert len(GleanerSRLOptions().c_grid) == 9 and GleanerSRLOptions().c_grid[0] == 1e4


def test_unknown_kernel_is_a_plugin_error() -> None:
    learner = GleanerSRLLearner(GleanerSRLOptions(kernel="precsion"))
    with pytest.raises(PluginError, match="did you mean 'precision'"):
        learner.kernel()


class HalfDot(MatchKernel):
    """A third-party kernel: k(1,1) = 1/2."""

    name = "half"

    def match_value(self, stats: FeatureStats) -> np.ndarray:
        return np.full_like(stats.tp, 0.5)


class ThirdParty:
    @hookimpl
    def ilpkit_register_plugins(self) -> list[PluginSpec[Any]]:
        return [PluginSpec("kernel", "half", lambda o: HalfDot(), KernelOptions, "k(1,1)=1/2")]


def test_a_third_party_kernel_is_a_registered_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    manager = PluginManager(entry_points=False)
    manager.register(ThirdParty(), name="third", source="thirdparty")
    monkeypatch.setattr("ilpkit.plugins.learners.gleanersrl.learner.get_plugin_manager",
                        lambda: manager)  # fmt: skip
    kernel = GleanerSRLLearner(GleanerSRLOptions(kernel="half")).kernel()
    np.testing.assert_allclose(kernel.gram(X, X, STATS), gram_from_match([0.5, 0.5, 0.5]))
    assert [s.name for s in manager.specs("kernel")] == sorted(
        ["dot", "precision", "recall", "both-pos", "info", "half"]
    )


# --------------------------------------------------------------------------------------------
# End to end on UW-CSE
# --------------------------------------------------------------------------------------------

SMALL = {"seeds": 3, "clauses_per_seed": 150, "clauselength": 4}


def cv_small(tmp_path: Path, kernel: str, backend: str = "native") -> Any:
    return ilpkit.cv("uwcse", out=tmp_path / kernel, learner="gleanersrl", search="rrr",
                     scorer="pr", backend=backend,
                     options={"learner": {**SMALL, "kernel": kernel,
                                          "stage1_cache": str(tmp_path / "stage1")}},
                     settings={"i": 2}, tune_folds=1)  # fmt: skip


def test_cv_on_uwcse_gives_calibrated_probabilities(tmp_path: Path) -> None:
    results = cv_small(tmp_path, "binned-dot")
    units = RunDirectory(tmp_path / "binned-dot").units()
    assert len(units) == 5
    for u in units:
        model = json.loads((tmp_path / "binned-dot" / "models" / f"{u.key}.json").read_text())
        floor = model["prob_min"]
        assert floor in PROB_MIN_GRID and model["svm"]["C"] in GleanerSRLOptions().c_grid
        scores = np.array(u.scores)
        assert np.all((scores >= floor) & (scores <= 1 - floor))
        # the reported MCE is the formula on the written probabilities with the model's floor
        assert u.metrics["mce"] == pytest.approx(mean_cross_entropy(scores, u.labels, floor))
        assert u.probabilities is True
    assert results["summary"]["mce"]["n"] == 5
    report = (tmp_path / "binned-dot" / "report.md").read_text()
    assert "| mce |" in report and "| MCE |" in report
    pytest.importorskip("matplotlib")
    assert (tmp_path / "binned-dot" / "plots" / "reliability.png").exists()


def test_stage1_cache_is_shared_by_variants(tmp_path: Path) -> None:
    cv_small(tmp_path, "boolean-dot")
    cached = sorted((tmp_path / "stage1").glob("stage1-*.json"))
    assert len(cached) == 5  # one per fold
    stamps = [p.stat().st_mtime_ns for p in cached]
    cv_small(tmp_path, "gleaner")
    assert [p.stat().st_mtime_ns for p in cached] == stamps  # read, not rewritten
    a = RunDirectory(tmp_path / "boolean-dot").units()
    b = RunDirectory(tmp_path / "gleaner").units()
    assert [u.clauses_evaluated for u in a] == [u.clauses_evaluated for u in b]


def fit_on_uwcse(kernel: str) -> tuple[Any, Any, Any]:
    from ilpkit.core.formats import load_task
    from ilpkit.datasets import bundled_path
    from ilpkit.plugins.backends.native.engine import NativeBackend

    task = load_task(bundled_path("uwcse"))
    task.bias.settings.set_value("i", 2)
    manager = get_plugin_manager()
    backend = NativeBackend()
    backend.load(task)
    folds = task.examples.folds
    ctx = LearnContext(
        backend=backend,
        make_search=lambda: manager.make("search", "rrr", {}),
        scorer=manager.make("scorer", "pr", {}),
        settings=task.bias.settings,
        seed=1,
        train_ids=np.flatnonzero(folds >= 2).astype(np.int64),
        tune_ids=np.flatnonzero(folds == 1).astype(np.int64),
    )
    learner = manager.make("learner", "gleanersrl", {**SMALL, "kernel": kernel})
    return learner.fit(task, ctx), backend, task


@pytest.mark.heavy  # from the quick suite (3-6 s): keeps the README's test command under 5 minutes
@pytest.mark.parametrize("kernel", ["boolean-info", "boolean-precision"])
def test_model_json_round_trip_scores_the_same(kernel: str, tmp_path: Path) -> None:
    model, backend, task = fit_on_uwcse(kernel)
    test = np.flatnonzero(task.examples.folds == 0).astype(np.int64)
    save_model(model, tmp_path / "m.json")
    again = load_model(tmp_path / "m.json")
    np.testing.assert_allclose(again.score(backend, test), model.score(backend, test))
    assert json.loads((tmp_path / "m.json").read_text())["features"]["clauses"][0].startswith(
        "advisedby("
    )
    console = Console(record=True, width=120)
    console.print(model.explain_table("t"))
    text = console.export_text()
    assert "advisedby(" in text and ("dual" in text) == (kernel == "boolean-info")


def test_explain_orders_clauses_by_absolute_weight() -> None:
    model, _, _ = fit_on_uwcse("boolean-dot")
    weights = [abs(r.weight) for r in model.rules()]
    assert weights == sorted(weights, reverse=True) and weights[0] > 0
    # the linear kernel's weights are the SVM's primal weights on each clause
    np.testing.assert_allclose(sorted(np.abs(model.svm.weights))[::-1], weights)


def test_predict_cli_writes_probabilities(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ilpkit.cli.main import app

    runner = CliRunner()
    out = tmp_path / "m.json"
    args = ["learn", "uwcse", "--learner", "gleanersrl", "--set", "i=2",
            "--set", "learner.seeds=2", "--set", "learner.clauses_per_seed=100",
            "--set", "learner.kernel=binned-dot", "-o", str(out), "-q"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["predict", str(out), "uwcse", "-o", str(tmp_path / "p.csv")])
    assert result.exit_code == 0, result.output
    rows = (tmp_path / "p.csv").read_text().splitlines()[1:]
    probs = np.array([float(r.rsplit(",", 1)[1]) for r in rows])
    floor = json.loads(out.read_text())["prob_min"]
    assert len(probs) == 2824 and probs.min() >= floor and probs.max() <= 1 - floor
    result = runner.invoke(app, ["explain", str(out)])
    assert result.exit_code == 0 and "bin " in result.output


def test_same_model_on_native_and_swi(tmp_path: Path) -> None:
    from ilpkit.plugins.backends.prolog.swi_backend import preflight

    if not preflight("pyswip").ok:
        pytest.skip("swi (pyswip) is not available")
    env = {k: v for k, v in os.environ.items() if k != "SWI_HOME_DIR"}
    env["PYTHONPATH"] = str(ROOT)
    env.pop("LIBSWIPL_PATH", None)
    env["PATH"] = os.pathsep.join(["/usr/bin", env.get("PATH", "")])
    models = {}
    for backend in ("native", "swi"):
        out = tmp_path / f"{backend}.json"
        args = ["learn", "uwcse", "--learner", "gleanersrl", "--set", "i=2",
                "--set", "learner.seeds=2", "--set", "learner.clauses_per_seed=100",
                "--set", "learner.clauselength=4", "--set", "learner.kernel=binned-dot",
                "--backend", backend, "--set", "backend.bridge=pyswip" if backend == "swi"
                else "backend.trust_data=false", "-o", str(out), "-q"]  # fmt: skip
        done = subprocess.run([sys.executable, "-m", "ilpkit", *args], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stderr
        models[backend] = json.loads(out.read_text())
    for key in ("features", "stats", "svm", "isotonic", "prob_min", "clauses_evaluated"):
        assert models["native"][key] == models["swi"][key], key


def test_reliability_points_by_hand() -> None:
    from ilpkit.experiment.report import reliability_points

    # ten bins of width 0.1: bin 0 holds .05 (neg); bin 1 holds .15 (pos) and .12 (neg);
    # bin 9 holds .95 (pos) and 1.0 (the last bin includes 1, pos)
    mean_p, frac, count = reliability_points([0.05, 0.15, 0.12, 0.95, 1.0], [0, 1, 0, 1, 1])
    np.testing.assert_allclose(mean_p, [0.05, 0.135, 0.975])
    np.testing.assert_allclose(frac, [0.0, 0.5, 1.0])
    np.testing.assert_allclose(count, [1, 2, 2])


@pytest.mark.parametrize("name", sorted(MATCH_VALUES))
def test_sparse_feature_matrices_give_the_same_gram_and_scores(name: str) -> None:
    from scipy.sparse import csr_matrix

    from ilpkit.plugins.combiners.svm_solver import fit_svm

    kernel = get_plugin_manager().make("kernel", name, {})
    sparse = csr_matrix(X.astype(bool))
    np.testing.assert_allclose(
        kernel.gram(sparse, sparse, STATS), gram_from_match(MATCH_VALUES[name])
    )
    positive = np.array([True, False, True, False])
    fits = [fit_svm(m, positive, kernel, STATS, 1.0, seed=0, class_weight=None,
                    max_kernel_examples=10, max_iter=1000)[0] for m in (X, sparse)]  # fmt: skip
    np.testing.assert_allclose(fits[0].decision(X, kernel, STATS),
                               fits[1].decision(sparse, kernel, STATS), atol=1e-6)  # fmt: skip


def test_info_kernel_past_its_size_cap_trains_on_all_positives_and_sampled_negatives() -> None:
    from ilpkit.plugins.combiners.svm_solver import _capped_rows, fit_svm

    x = np.vstack([X, X[:2]])  # 6 training rows
    positive = np.array([True, False, False, False, True, False])
    rows = _capped_rows(positive, 4, seed=3)
    assert len(rows) == 4 and {0, 4} <= set(rows.tolist())  # both positives kept
    kernel = get_plugin_manager().make("kernel", "info", {})
    svm, notes = fit_svm(x, positive, kernel, STATS, 1.0, seed=3, class_weight=None,
                         max_kernel_examples=4, max_iter=1000)  # fmt: skip
    assert notes["kernel_sample"] == 4 and notes["kernel_sample_of"] == 6
    assert svm.support is not None and len(svm.support) <= 4
