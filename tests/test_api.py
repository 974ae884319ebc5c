"""The Python API (ilpkit.cv / ilpkit.run), the estimator wrapper and isotonic calibration."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ilpkit
from ilpkit.core.calibration import isotonic_fit
from ilpkit.errors import ConfigError


def test_isotonic_fit_pools_adjacent_violators_by_hand() -> None:
    # scores 1..4 with labels 0,1,0,1: the violation (1 then 0) pools scores 2 and 3 at 1/2
    fit = isotonic_fit([1, 2, 3, 4], [0, 1, 0, 1])
    assert fit.values.tolist() == [0.0, 0.5, 0.5, 1.0]
    # between and outside fitted scores: the step of the nearest score below, else the lowest
    assert fit([0.5, 1.0, 2.5, 3.9, 10]).tolist() == [0.0, 0.0, 0.5, 0.5, 1.0]


def test_isotonic_prior_adds_pseudo_examples_at_the_base_rate() -> None:
    # 2 positives of 4 -> rate 1/2; score 0: (0 + 0.5) / (2 + 1) = 1/6; score 1: 2.5/3 = 5/6
    fit = isotonic_fit([0, 0, 1, 1], [0, 0, 1, 1], prior=1.0)
    assert np.allclose(fit.values, [1 / 6, 5 / 6])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.booleans()), min_size=1, max_size=40))
def test_isotonic_is_monotone_and_matches_sklearn(pairs: list[tuple[int, bool]]) -> None:
    from sklearn.isotonic import IsotonicRegression

    scores = np.array([p[0] for p in pairs], dtype=float)
    labels = np.array([p[1] for p in pairs], dtype=float)
    fit = isotonic_fit(scores, labels)
    assert np.all(np.diff(fit.values) >= -1e-12)
    expected = IsotonicRegression().fit(scores, labels).predict(fit.thresholds)
    assert np.allclose(fit.values, expected)


def test_estimator_follows_the_sklearn_parameter_protocol() -> None:
    est = ilpkit.ILPEstimator(scorer="precision", settings={"nodes": 40})
    params = est.get_params()
    assert params["scorer"] == "precision" and params["settings"] == {"nodes": 40}
    assert est.set_params(seed=3) is est and est.seed == 3
    with pytest.raises(ValueError, match="invalid parameter 'sed'"):
        est.set_params(sed=1)
    assert repr(est) == "ILPEstimator(scorer='precision', settings={'nodes': 40}, seed=3)"
    with pytest.raises(ConfigError, match="not fitted"):
        est.predict()


def test_estimator_on_trains_learns_the_eastbound_rule_and_calibrates() -> None:
    task = ilpkit.load_task("trains")
    est = ilpkit.ILPEstimator(search="topdown", scorer="laplace", settings={"nodes": 50})
    est.fit(task)
    assert est.predict().tolist() == [True] * 5 + [False] * 5
    proba = est.predict_proba()
    assert proba.shape == (10, 2)
    assert np.allclose(proba.sum(axis=1), 1.0)
    # one rule covering the 5 positives only; prior 1 at rate 1/2: (5 + .5)/6 and .5/6
    assert np.allclose(proba[:, 1], [5.5 / 6] * 5 + [0.5 / 6] * 5)
    # a held-out Task is scored on a fresh backend: the same task gives the same scores
    assert np.array_equal(
        est.decision_function(ilpkit.load_task("trains")), est.decision_function()
    )
    est.close()


def test_api_cv_and_run_write_the_same_results(tmp_path: Path) -> None:
    a = ilpkit.cv("trains", folds=5, settings={"nodes": 30}, out=tmp_path / "a")
    assert a["n_units"] == 5
    b = ilpkit.run(tmp_path / "a" / "config.toml", tmp_path / "b")
    for x, y in zip(a["units"], b["units"], strict=True):
        assert x["metrics"] == y["metrics"]
    assert json.loads((tmp_path / "b" / "results.json").read_text())["n_units"] == 5
    with pytest.raises(ConfigError, match="unknown plugin kinds"):
        ilpkit.cv("trains", folds=5, out=tmp_path / "c", options={"lerner": {}})
