"""The best-clause combiner: hand-checked scores, and ilpkit's combiner contract suite."""

from __future__ import annotations

import numpy as np
import pytest
from ilpkit_gmean.bestclause import BestClauseCombiner, BestClauseOptions

from ilpkit.core.combiner import ClausePool
from ilpkit.prolog.terms import Clause, Struct, Var
from ilpkit.testing import PluginCheck, plugin_checks


def test_scores_are_the_best_covering_precision() -> None:
    # clause 0 covers pos0, pos1, neg0: precision 2/3; clause 1 covers pos0: precision 1
    matrix = np.array([[1, 1], [1, 0], [1, 0], [0, 0]], dtype=bool)
    head = Struct("t", (Var("A"),))
    pool = ClausePool(
        clauses=[Clause(head, (Struct(f"c{j}", (Var("A"),)),)) for j in range(2)],
        groups=np.array([0, 1]),
        group_kind="clause",
        fit_ids=np.arange(4),
        fit_labels=np.array([True, True, False, False]),
        fit_matrix=matrix,
    )
    fitted = BestClauseCombiner(BestClauseOptions(min_precision=0.9)).fit(pool)
    assert np.allclose(fitted.score(matrix), [1.0, 2 / 3, 2 / 3, 0.0])
    assert fitted.predict(matrix).tolist() == [True, False, False, False]


@pytest.mark.parametrize("check", plugin_checks("combiner", "best-clause"), ids=str)
def test_ilpkits_combiner_contract(check: PluginCheck) -> None:
    check.run()
