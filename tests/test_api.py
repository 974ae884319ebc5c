"""The Python API (ilpkit.cv / ilpkit.run), the estimator wrapper and isotonic calibration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
    assert params["random_state"] == 0 and params["seed"] is None  # seed: deprecated alias
    assert est.set_params(random_state=3) is est and est.random_state == 3
    with pytest.raises(ValueError, match="invalid parameter 'sed'"):
        est.set_params(sed=1)
    assert repr(est) == "ILPEstimator(scorer='precision', settings={'nodes': 40}, random_state=3)"
    with pytest.raises(ConfigError, match="not fitted"):
        est.predict()


# Gleaner (RRR) on trains: random restarts, so the seed shows in the model; a fit takes well
# under a second
GLEANER: dict[str, Any] = {
    "learner": "gleaner",
    "settings": {"nodes": 30},
    "learner_options": {"seeds": 2, "clauses_per_seed": 30},
}


def _rules(est: ilpkit.ILPEstimator) -> str:
    return json.dumps(est.model_.to_json()["rules"], sort_keys=True)


def test_random_state_seeds_the_fit_as_learn_s_seed_does() -> None:
    """random_state=N learns what ``ilpkit learn --seed N`` learns; another N, another
    model; left at its default, the estimator learns what learn's default seed 0 learns."""
    task = ilpkit.load_task("trains")
    three = ilpkit.ILPEstimator(random_state=3, **GLEANER).fit(task)
    assert three.seed_ == 3
    options = {"learner": GLEANER["learner_options"]}
    api = ilpkit.learn("trains", learner="gleaner", settings={"nodes": 30}, options=options, seed=3)
    assert _rules(three) == json.dumps(api.to_json()["rules"], sort_keys=True)
    four = ilpkit.ILPEstimator(random_state=np.int64(4), **GLEANER).fit(task)
    assert four.seed_ == 4 and _rules(four) != _rules(three)
    default = ilpkit.ILPEstimator(**GLEANER).fit(task)
    api0 = ilpkit.learn("trains", learner="gleaner", settings={"nodes": 30}, options=options)
    assert default.seed_ == 0
    assert _rules(default) == json.dumps(api0.to_json()["rules"], sort_keys=True)


def test_seed_is_a_deprecated_alias_of_random_state() -> None:
    task = ilpkit.load_task("trains")
    with pytest.warns(FutureWarning, match=r"seed=\.\.\.\) is deprecated.*use random_state"):
        old = ilpkit.ILPEstimator(seed=3, **GLEANER).fit(task)
    assert old.seed == 3 and old.seed_ == 3  # stored unchanged, used as random_state
    new = ilpkit.ILPEstimator(random_state=3, **GLEANER).fit(task)
    assert _rules(old) == _rules(new)
    with pytest.warns(FutureWarning):  # the same value under both names: no conflict
        ilpkit.ILPEstimator(seed=3, random_state=3, **GLEANER).fit(task)
    for other in (5, None, np.random.RandomState(0)):
        clash = ilpkit.ILPEstimator(seed=3, random_state=other, settings={"nodes": 5})
        with pytest.warns(FutureWarning), pytest.raises(ValueError, match="both given"):
            clash.fit(task)


def test_random_state_none_and_numpy_states_draw_a_seed_per_fit() -> None:
    """None: numpy's global random state (np.random.seed fixes it); a RandomState or a
    Generator: one draw per fit, so two fits of one estimator may differ."""
    from ilpkit.experiment.estimator import seed_of

    np.random.seed(7)
    first, second = seed_of(None), seed_of(None)
    np.random.seed(7)
    assert seed_of(None) == first and first != second
    state = np.random.RandomState(1)
    assert seed_of(state) != seed_of(state)
    assert seed_of(np.random.RandomState(1)) == seed_of(np.random.RandomState(1))
    assert seed_of(np.random.default_rng(1)) == seed_of(np.random.default_rng(1))
    assert all(0 <= seed_of(s) < 2**31 for s in (None, state, np.random.default_rng()))
    task = ilpkit.load_task("trains")
    est = ilpkit.ILPEstimator(random_state=None, settings={"nodes": 5})
    np.random.seed(7)
    assert est.fit(task).seed_ == first
    assert est.fit(task).seed_ == second


@pytest.mark.parametrize("bad", ["3", 2.5, True, [1]])
def test_a_random_state_of_another_kind_is_refused_at_fit(bad: object) -> None:
    est = ilpkit.ILPEstimator(random_state=bad, settings={"nodes": 5})  # type: ignore[arg-type]
    assert est.get_params()["random_state"] is bad  # stored unchanged, as scikit-learn asks
    with pytest.raises(ValueError, match="expected an int, None, or a numpy"):
        est.fit(ilpkit.load_task("trains"))


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
