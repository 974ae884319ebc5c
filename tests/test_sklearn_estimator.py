"""ILPEstimator in scikit-learn's model selection, on UW-CSE with small budgets.

X holds example ids (or atoms) of the task bound at construction, y their labels; ``score``
is the area under the PR curve of ``decision_function``.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import ilpkit
from ilpkit.core.metrics import aurpc, pr_points_from_scores
from ilpkit.core.task import NEG, POS
from ilpkit.errors import ConfigError

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone, is_classifier  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer  # noqa: E402
from sklearn.utils import estimator_checks  # noqa: E402

# A small budget: a fit takes well under a CPU second on UW-CSE.
SMALL: dict[str, Any] = {
    "search": "topdown",
    "scorer": "laplace",
    "settings": {"i": 2, "nodes": 100, "clauselength": 3, "minpos": 2, "minacc": 0.05},
    "learner_options": {"max_rules": 2},
}


@pytest.fixture(scope="module")
def xy() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    task = ilpkit.load_task("uwcse")
    labels = task.examples.labels
    ids = np.flatnonzero(np.isin(labels, (POS, NEG)))
    return ids, (labels[ids] == POS).astype(np.int64)


def small(**extra: Any) -> ilpkit.ILPEstimator:
    return ilpkit.ILPEstimator(task="uwcse", **{**SMALL, **extra})


def test_is_a_cloneable_binary_classifier() -> None:
    est = small(random_state=4)
    assert is_classifier(est)
    tags = est.__sklearn_tags__()
    assert tags.input_tags.one_d_array and not tags.input_tags.two_d_array
    twin = clone(est)
    assert twin is not est and twin.get_params() == est.get_params()


@pytest.mark.parametrize(
    "state",
    [4, None, np.random.RandomState(4), np.random.default_rng(4)],
    ids=["int", "None", "RandomState", "Generator"],
)
def test_random_state_round_trips_through_get_params_set_params_and_clone(state: Any) -> None:
    """Stored unchanged; clone copies a numpy random state (scikit-learn deep-copies it), so
    the clone's first fit draws the seed the original's first fit draws."""
    from ilpkit.experiment.estimator import seed_of

    est = ilpkit.ILPEstimator(task="trains", random_state=state)
    assert est.get_params()["random_state"] is state
    twin = clone(est)
    assert set(twin.get_params()) == set(est.get_params())
    if isinstance(state, (int, type(None))):
        assert twin.get_params()["random_state"] is state
    else:
        assert type(twin.random_state) is type(state) and twin.random_state is not state
        assert seed_of(twin.random_state) == seed_of(state)
    assert ilpkit.ILPEstimator().set_params(random_state=state).random_state is state


def test_grid_search_over_random_state(xy: Any) -> None:
    """random_state is an ordinary parameter to search over; the deprecated seed is not
    needed for it."""
    ids, y = xy
    grid = GridSearchCV(
        small(learner_options={"max_rules": 1}), {"random_state": [0, 1]}, cv=2
    ).fit(ids[::4], y[::4])
    assert [p["random_state"] for p in grid.cv_results_["params"]] == [0, 1]
    assert grid.best_estimator_.seed_ == grid.best_params_["random_state"]


def test_a_clone_of_an_estimator_with_the_deprecated_seed_keeps_it() -> None:
    est = ilpkit.ILPEstimator(task="trains", seed=3, settings={"nodes": 5})
    twin = clone(est)
    assert twin.seed == 3 and twin.random_state == 0
    with pytest.warns(FutureWarning, match="deprecated"):
        twin.fit([0, 9], [1, 0])
    assert twin.seed_ == 3


def test_cross_val_score_equals_a_hand_written_loop(xy: Any) -> None:
    ids, y = xy
    folds = StratifiedKFold(n_splits=3)
    scores = cross_val_score(small(), ids, y, cv=folds)
    assert scores.shape == (3,) and np.all((scores >= 0) & (scores <= 1))
    # the same folds by hand: fit on train ids, AURPC of the scores on test ids
    train, test = next(iter(folds.split(ids, y)))
    est = small().fit(ids[train], y[train])
    by_hand = aurpc(pr_points_from_scores(est.decision_function(ids[test]), y[test]))
    assert scores[0] == pytest.approx(by_hand)
    # learnt something: better than ranking at random (the positive rate, 113/2824 = 0.04)
    assert scores.mean() > y.mean()


def test_grid_search_over_learner_options(xy: Any) -> None:
    ids, y = xy
    grid = GridSearchCV(
        small(), {"learner_options": [{"max_rules": 1}, {"max_rules": 2}]}, cv=2
    ).fit(ids, y)
    assert len(grid.cv_results_["params"]) == 2
    assert grid.best_params_["learner_options"] in ({"max_rules": 1}, {"max_rules": 2})
    assert len(grid.best_estimator_.model_.rules()) <= 2


def _same(x: Any) -> Any:
    return x


def test_pipeline(xy: Any) -> None:
    ids, y = xy
    pipe = Pipeline([("ids", FunctionTransformer(_same)), ("ilp", small())]).fit(ids, y)
    assert set(np.unique(pipe.predict(ids))) <= {0, 1}
    assert 0 <= pipe.score(ids, y) <= 1


def test_fit_changes_none_of_its_inputs(xy: Any) -> None:
    ids, y = xy
    task = ilpkit.load_task("uwcse")
    before = task.examples.labels.copy()
    x_copy, y_copy = ids.copy(), y.copy()
    flipped = 1 - y  # labels that contradict the task's: the estimator must not write them back
    est = ilpkit.ILPEstimator(task=task, **SMALL).fit(ids, flipped)
    assert np.array_equal(task.examples.labels, before)
    assert np.array_equal(ids, x_copy) and np.array_equal(y, y_copy)
    assert est.task is task  # parameters are stored unchanged


def test_atoms_and_ids_give_the_same_model(xy: Any) -> None:
    ids, y = xy
    task = ilpkit.load_task("uwcse")
    atoms = [str(task.examples.atoms[i]) for i in ids[::4]]
    by_ids = small().fit(ids[::4], y[::4]).model_.to_json()
    by_atoms = small().fit(atoms, y[::4]).model_.to_json()
    assert by_ids["rules"] == by_atoms["rules"]


def test_predict_returns_the_classes_of_y(xy: Any) -> None:
    ids, y = xy
    signs = np.where(y == 1, 1, -1)
    est = small().fit(ids[::3], signs[::3])
    assert list(est.classes_) == [-1, 1]
    assert set(est.predict(ids[:20])) <= {-1, 1}


@pytest.mark.parametrize(
    ("labels", "said"),
    [
        (["advised", "not"], "Unknown label type: y has dtype <U7"),  # which one is positive?
        ([0, 2], "Unknown label type: y holds 0, 2"),
        ([0.5, 1.0], "Unknown label type: y has dtype float64"),
        ([1, 1], "y has only one class (1)"),
        ([np.nan, 1.0], "y holds NaN or infinity"),
    ],
)
def test_labels_other_than_a_positive_and_a_negative_class_are_refused(
    labels: list[Any], said: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        small().fit([0, 1], labels)


def test_mistakes_are_named() -> None:
    with pytest.raises(ConfigError, match="bound at construction"):
        ilpkit.ILPEstimator().fit([0, 1], [1, 0])
    with pytest.raises(ConfigError, match=r"advisedby\(nobody,none\) is not an example"):
        small().fit(["advisedby(nobody,none)"], [1])
    with pytest.raises(ConfigError, match="example id 99999 is not in"):
        small().fit([99999], [1])
    with pytest.raises(ConfigError, match="one label per example"):
        small().fit([0, 1], [1])
    with pytest.raises(NotFittedError):
        small().predict([0])


NOT_NUMERIC = "feeds random numeric arrays as X; X here is example ids or atoms of the bound task"
APPLY: dict[str, str] = {
    "check_estimator_cloneable": "clone() copies the parameters",
    "check_estimator_tags_renamed": "no old-style tag methods",
    "check_valid_tag_types": "__sklearn_tags__ gives sklearn's Tags",
    "check_estimator_repr": "repr names the changed parameters",
    "check_no_attributes_set_in_init": "__init__ stores its arguments only",
    "check_estimators_unfitted": "predicting before fit raises NotFittedError",
    "check_do_not_raise_errors_in_init_or_set_params": "parameters are validated in fit",
    "check_mixin_order": "no scikit-learn mixins",
    "check_parameters_default_constructible": "every parameter has a default",
    "check_get_params_invariance": "get_params(deep) is the same either way",
    "check_set_params": "set_params stores values unchanged",
    "check_supervised_y_no_nan": "y with NaN or infinity is a ValueError",
    "check_fit1d": "X that is not ids or atoms is a ValueError",
    # vacuous here: no sample_weight, no partial_fit, no n_iter_
    "check_classifiers_one_label_sample_weights": "no sample_weight: passes vacuously",
    "check_estimators_partial_fit_n_features": "no partial_fit: passes vacuously",
    "check_non_transformer_estimators_n_iter": "no max_iter: passes vacuously",
}
"""The checks that apply to an estimator whose X is example ids, and pass."""
DO_NOT_APPLY: dict[str, str] = {
    **dict.fromkeys(
        [
            "check_classifiers_classes",
            "check_classifiers_one_label",
            "check_classifiers_regression_target",
            "check_classifiers_train",
            "check_decision_proba_consistency",
            "check_dict_unchanged",
            "check_dont_overwrite_parameters",
            "check_dtype_object",
            "check_estimators_dtypes",
            "check_estimators_fit_returns_self",
            "check_estimators_overwrite_params",
            "check_estimators_pickle",
            "check_f_contiguous_array_estimator",
            "check_fit2d_1feature",
            "check_fit2d_1sample",
            "check_fit2d_predict1d",
            "check_fit_check_is_fitted",
            "check_fit_idempotent",
            "check_fit_score_takes_y",
            "check_methods_sample_order_invariance",
            "check_methods_subset_invariance",
            "check_n_features_in",
            "check_n_features_in_after_fitting",
            "check_pipeline_consistency",
            "check_readonly_memmap_input",
            "check_supervised_y_2d",
            "check_positive_only_tag_during_fit",
            "check_estimators_nan_inf",
        ],
        NOT_NUMERIC,
    ),
    "check_complex_data": NOT_NUMERIC + "; refused, with ilpkit's message, not sklearn's",
    "check_estimators_empty_data_messages": "expects sklearn's '0 feature(s)' message",
    "check_requires_y_none": "expects sklearn's message for y=None; ours names fit(X, y)",
    "check_estimator_sparse_array": "sparse X: a ValueError, not sklearn's wording",
    "check_estimator_sparse_matrix": "sparse X: a ValueError, not sklearn's wording",
    "check_estimator_sparse_tag": "sparse X: a ValueError, not sklearn's wording",
    "check_classifier_data_not_an_array": "labels 1/2: refused (which one is positive?)",
    "check_classifier_not_supporting_multiclass": NOT_NUMERIC,
    "check_array_api_input": "array API inputs: X is not numeric",
}
"""The checks that do not apply, and why (docs/experiments.md lists them). Pickling, labels
and not changing inputs are tested on real examples below and above."""


def test_check_estimator_runs_every_check_with_an_honest_outcome() -> None:
    """check_estimator skips every data check for a 1-d X (the input tags); a subclass that
    claims 2-d input makes it run them all, so that each one's outcome is pinned: those in
    APPLY pass, the others fail or skip for the reason DO_NOT_APPLY gives."""

    class Probe(ilpkit.ILPEstimator):
        def __sklearn_tags__(self) -> Any:
            tags = super().__sklearn_tags__()
            tags.input_tags.two_d_array = True
            return tags

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = estimator_checks.check_estimator(Probe(task="trains"), on_fail=None)
    passed = {r["check_name"] for r in results if r["status"] == "passed"}
    other = {r["check_name"] for r in results if r["status"] != "passed"}
    assert passed == set(APPLY), passed ^ set(APPLY)
    assert other == set(DO_NOT_APPLY), other ^ set(DO_NOT_APPLY)
    with warnings.catch_warnings():  # as declared (1-d X), only the data-free checks run
        warnings.simplefilter("ignore")
        plain = estimator_checks.check_estimator(small(), on_fail=None)
    assert plain and all(r["status"] == "passed" for r in plain)


def test_a_fitted_estimator_pickles_and_predicts_the_same(xy: Any) -> None:
    """The fitted backend is not pickled (an engine) but opened again on first use."""
    import pickle

    ids, y = xy
    est = small().fit(ids[::2], y[::2])
    twin = pickle.loads(pickle.dumps(est))
    assert twin.backend_ is None  # reopened lazily
    test = ids[1::2]
    assert np.array_equal(twin.decision_function(test), est.decision_function(test))
    assert np.array_equal(twin.predict_proba(test), est.predict_proba(test))
    assert np.array_equal(twin.predict(test), est.predict(test))
    twin.close()
    est.close()


def test_x_and_y_mistakes_are_value_errors() -> None:
    with pytest.raises(ValueError, match="one label per example"):
        small().fit([0, 1], [1])
    with pytest.raises(ValueError, match="example id 99999 is not in"):
        small().fit([99999], [1])
    with pytest.raises(ValueError, match="X has shape"):
        small().fit(np.zeros((2, 2)), [0, 1])
    with pytest.raises(ValueError, match="X and y are empty"):
        small().fit([], [])
