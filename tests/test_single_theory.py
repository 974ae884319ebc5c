"""single-theory weighting schemes, pinned on a hand-built example (dissertation ch. 4.2)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ilpkit
from ilpkit.plugins.learners.single_theory import SingleTheoryModel, combine, rule_weights

# Three rules with tune counts out of P = 10 positives and N = 20 negatives.
TP = np.array([4.0, 2.0, 1.0])
FP = np.array([1.0, 0.0, 3.0])
P, N, M = 10.0, 20.0, 2.0
# Which rules match each of four examples: ex0 r0+r2, ex1 r1, ex2 none, ex3 all three.
MATCHES = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 0], [1, 1, 1]], dtype=bool)

# Expected scores, computed by hand:
# ranked: the dissertation's m-estimates (sec. 4.2) (TP + M) / (TP + FP + 2M) = 6/9, 4/6,
#         3/8; an example gets the best of its rules.
# lfpr: 1 - FP/N = 0.95, 1, 0.85.  cn2: sum TP / sum (TP+FP).  vote: mean precision of
# 0.8, 1, 0.25.  cumulative: count; sums of precision; of recall 0.4, 0.2, 0.1; of
# F1 = 2TP/(TP+FP+P) = 8/15, 1/3, 1/7.
EXPECTED = {
    "ranked": [2 / 3, 2 / 3, 0.0, 2 / 3],
    "lfpr": [0.95, 1.0, 0.0, 1.0],
    "cn2": [5 / 9, 1.0, 0.0, 7 / 11],
    "vote": [(0.8 + 0.25) / 2, 1.0, 0.0, (0.8 + 1 + 0.25) / 3],
    "count": [2, 1, 0, 3],
    "precision": [1.05, 1.0, 0.0, 2.05],
    "recall": [0.5, 0.2, 0.0, 0.7],
    "f1": [8 / 15 + 1 / 7, 1 / 3, 0.0, 8 / 15 + 1 / 3 + 1 / 7],
}


@pytest.mark.parametrize("scheme", sorted(EXPECTED))
def test_scheme_scores_by_hand(scheme: str) -> None:
    weights = rule_weights(scheme, TP, FP, P, N, M)  # type: ignore[arg-type]
    got = combine(scheme, MATCHES, weights, TP, FP)  # type: ignore[arg-type]
    assert got == pytest.approx(EXPECTED[scheme])


def test_ranked_weights_are_the_dissertations_m_estimates() -> None:
    # Sec. 4.2: (TP + m) / (TP + FP + 2m), m = 2: (4+2)/(5+4), (2+2)/(2+4), (1+2)/(4+4).
    assert rule_weights("ranked", TP, FP, P, N, M) == pytest.approx([6 / 9, 4 / 6, 3 / 8])
    # m = 1 separates the rules: 5/7, 3/4, 2/6.
    assert rule_weights("ranked", TP, FP, P, N, 1.0) == pytest.approx([5 / 7, 3 / 4, 1 / 3])
    # The class-prior option: (TP + M*P/(P+N)) / (TP+FP+M) = (4+2/3)/7, (2+2/3)/4, (1+2/3)/6.
    assert rule_weights("ranked", TP, FP, P, N, M, "prior") == pytest.approx([2 / 3, 2 / 3, 5 / 18])
    # A rule with no tune coverage gets m / 2m = 1/2 from the dissertation's form.
    zero = np.zeros(1)
    assert rule_weights("ranked", zero, zero, P, N, M) == pytest.approx([0.5])


def test_single_theory_rules_cover_two_tune_positives() -> None:
    from ilpkit.core.coverage import Coverage
    from ilpkit.core.learner import LearnContext
    from ilpkit.core.plugins import get_plugin_manager
    from ilpkit.plugins.learners.single_theory import SingleTheoryLearner, SingleTheoryOptions

    # Trains: ids 0-4 positive. Tune {0, 1, 2, 5, 6}; the requirement is section 4.2.1's.
    task = ilpkit.load_task("trains")
    manager = get_plugin_manager()
    backend = manager.make("backend", "native", {})
    backend.load(task)

    def fit(min_tune_pos: int) -> SingleTheoryModel:
        ctx = LearnContext(
            backend=backend,
            make_search=lambda: manager.make("search", "topdown", {}),
            scorer=manager.make("scorer", "laplace", {}),
            settings=task.bias.settings,
            train_ids=np.array([3, 4, 7, 8, 9], dtype=np.int64),
            tune_ids=np.array([0, 1, 2, 5, 6], dtype=np.int64),
        )
        return SingleTheoryLearner(SingleTheoryOptions(min_tune_pos=min_tune_pos)).fit(task, ctx)

    model = fit(2)
    assert len(model.tune_tp) > 0 and all(model.tune_tp >= 2)
    tune_positives = Coverage(np.array([0, 1, 2], dtype=np.int64), 10)
    assert all(len(backend.coverage(c, tune_positives)) >= 2 for c in model.theory.clauses())
    # The tune set has 3 positives: requiring 4 leaves no acceptable rule at all.
    assert len(fit(4).theory.clauses()) == 0 < len(fit(0).theory.clauses())


def test_single_theory_end_to_end_on_uwcse_with_a_tune_fold(tmp_path: object) -> None:
    from pathlib import Path

    results = ilpkit.cv(
        "uwcse",
        learner="single-theory",
        settings={"i": 2, "nodes": 100, "clauselength": 3, "minpos": 2},
        options={"learner": {"scheme": "cn2", "max_rules": 4}},
        tune_folds=1,
        out=Path(str(tmp_path)) / "st",
    )
    assert results["n_units"] == 5
    assert 0.0 < results["summary"]["aurpc"]["mean"] <= 1.0
    model = json.loads((Path(str(tmp_path)) / "st" / "models" / "r0-f0.json").read_text())
    again = SingleTheoryModel.from_json(model)
    assert again.to_json() == model
