"""The learners whose combination step became a combiner plugin (issue 29) give the models
they gave before: scores, decisions and rules equal to those saved from commit 134afe7 (main
before the combiner work), at the same seed and options.

``tests/data/models_before_combiners.json`` was written by running :func:`fit` at 134afe7
(``git archive 134afe7`` into a folder, then this module's :func:`fit` with that folder first on
``PYTHONPATH``); nothing in it comes from the code under test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ilpkit

SAVED = Path(__file__).parent / "data" / "models_before_combiners.json"
# Since issue 31, RRR's uniform start counts fewer states (only those a body of at most
# clauselength - 1 literals reaches), so fewer bottom clauses exceed max_start_states and fall
# back. On uwcse, 134afe7's seeds 25, 41 and 54 fell back at 200,000 (unpruned) states and seed
# 22 did not; pruned, seed 25 needs 109,362 states, seed 22 64,516, seeds 41 and 54 still more
# than 200,000. A limit of 100,000 gives the same starts as 134afe7.
SAME_STARTS = {"max_start_states": 100_000}
OPTIONS: dict[str, dict[str, Any]] = {
    "gleaner": {
        "learner": {"seeds": 4, "clauses_per_seed": 60, "min_tune_pos": 1},
        "search": SAME_STARTS,
    },
    # 134afe7 trained the dot kernel's SVM with LinearSVC's squared hinge; the paper's hinge is
    # the default since issue 31
    "gleanersrl": {
        "learner": {
            "seeds": 4,
            "clauses_per_seed": 60,
            "min_tune_pos": 1,
            "svm_loss": "squared-hinge",
        },
        "search": SAME_STARTS,
    },
    "aleph-ensemble": {"learner": {"theories": 4}},
    "single-theory": {},
    "static-rf": {"learner": {"rules": 100, "trees": 50}},
}
CASES = [
    *(pytest.param("trains", name, id=f"trains-{name}") for name in OPTIONS),
    *(
        pytest.param("uwcse", name, id=f"uwcse-{name}", marks=pytest.mark.heavy)
        for name in ("gleaner", "gleanersrl", "static-rf")
    ),
]


def fit(data: str, learner: str) -> dict[str, Any]:
    """The model's scores and decisions on ``data`` and its rules, at seed 0."""
    model = ilpkit.learn(data, learner=learner, seed=0, options=OPTIONS[learner])
    predicted = ilpkit.predict(model, data)
    return {
        "scores": [round(float(s), 12) for s in predicted.scores],
        "predicted": [bool(x) for x in predicted.predicted],
        "rules": [str(r) for r in model.rules()],
    }


@pytest.mark.parametrize(("data", "learner"), CASES)
def test_a_rebuilt_learner_gives_the_model_it_gave_before_combiners(
    data: str, learner: str
) -> None:
    saved = json.loads(SAVED.read_text(encoding="utf-8"))[f"{data}/{learner}"]
    now = fit(data, learner)
    assert [_without_weight(r) for r in now["rules"]] == [
        _without_weight(r) for r in saved["rules"]
    ]
    # An SVM's weights round differently on another CPU's BLAS kernels (GleanerSRL on UW-CSE,
    # an AMD EPYC: -0.122954 against the file's -0.122963, at most 1e-5 apart): compared
    # within 1e-4, not to 17 digits; the scores (isotonic steps) below stay exact.
    np.testing.assert_allclose(
        [_weight(r) for r in now["rules"]],
        [_weight(r) for r in saved["rules"]],
        rtol=1e-3,
        atol=1e-4,
    )
    assert now["predicted"] == saved["predicted"]
    np.testing.assert_allclose(now["scores"], saved["scores"], rtol=0, atol=1e-9)


_WEIGHT = re.compile(r"weight=([^,]+),")


def _weight(rule: str) -> float:
    found = _WEIGHT.search(rule)
    return float(found.group(1)) if found else 0.0


def _without_weight(rule: str) -> str:
    return _WEIGHT.sub("weight=*,", rule)
