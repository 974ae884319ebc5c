"""ILPEstimator in scikit-learn's model selection, on UW-CSE with small budgets.

X holds example ids (or atoms) of the task bound at construction, y their labels; ``score``
is the area under the PR curve of ``decision_function``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import ilpkit
from ilpkit.core.errors import ConfigError
from ilpkit.core.metrics import aurpc, pr_points_from_scores
from ilpkit.core.task import NEG, POS

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
    est = small(seed=4)
    assert is_classifier(est)
    tags = est.__sklearn_tags__()
    assert tags.input_tags.one_d_array and not tags.input_tags.two_d_array
    twin = clone(est)
    assert twin is not est and twin.get_params() == est.get_params()


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
    names = np.where(y == 1, "advised", "not")
    est = small().fit(ids[::3], names[::3])
    assert list(est.classes_) == ["advised", "not"]
    # positive = the larger class name ("not") here: the labels say which class is which
    assert set(est.predict(ids[:20])) <= {"advised", "not"}


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


def test_check_estimator() -> None:
    # scikit-learn's check_estimator feeds numeric 2-D arrays; this estimator's X is a 1-d
    # array of example ids or atoms of its bound task (its input tags say so), so
    # check_estimator runs only the checks that need no data and skips the rest with a
    # SkipTestWarning. The data-free checks all pass:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = estimator_checks.check_estimator(small(), on_fail=None)
    assert results and all(r["status"] == "passed" for r in results)
    assert any("requires input" in str(w.message) for w in caught)
    est = small()
    for check in (
        "check_no_attributes_set_in_init",
        "check_parameters_default_constructible",
        "check_get_params_invariance",
        "check_set_params",
        "check_estimator_cloneable",
        "check_estimator_repr",
        "check_valid_tag_types",
        "check_estimators_unfitted",
    ):
        getattr(estimator_checks, check)("ILPEstimator", est)
    # Not run: check_dont_overwrite_parameters, check_estimators_overwrite_params and
    # check_fit_check_is_fitted fit on random floats, which are not examples of any task;
    # test_fit_changes_none_of_its_inputs covers what they check, on real examples.
