"""The ``best-clause`` combiner: an example's score is the best training precision among the
clauses that cover it (0 when none does), and it is called positive when that precision
reaches ``min_precision``.

A combiner is an object with ``name``, ``fit(pool, seed=...)`` returning a combination, and
``combination_from_json`` (:class:`ilpkit.core.combiner.Combiner`); the combination scores
rows of an examples x clauses coverage matrix and round-trips through JSON.  With the
package installed, ``ilpkit learn DATA --learner gleaner --combiner best-clause`` uses it, and
``ilpkit.testing.plugin_checks("combiner", "best-clause")`` checks it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.combiner import ClausePool


class BestClauseOptions(BaseModel):
    """Options of the best-clause combiner (`--set combiner.min_precision=0.8`)."""

    model_config = ConfigDict(extra="forbid")

    min_precision: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Positive when the best covering clause's training precision reaches this.",
    )


class BestClauseCombination:
    def __init__(self, precision: list[float], min_precision: float) -> None:
        self.precision = np.asarray(precision, dtype=np.float64)
        self.min_precision = min_precision

    def score(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        if matrix.shape[1] == 0:
            return np.zeros(matrix.shape[0])
        return np.where(matrix, self.precision, 0.0).max(axis=1)

    def predict(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        return np.asarray(self.score(matrix) >= self.min_precision, dtype=bool)

    def clause_weights(self) -> npt.NDArray[np.float64]:
        return self.precision

    def to_json(self) -> dict[str, Any]:
        return {"precision": self.precision.tolist(), "min_precision": self.min_precision}


class BestClauseCombiner:
    name = "best-clause"

    def __init__(self, options: BestClauseOptions | None = None) -> None:
        self.options = options if options is not None else BestClauseOptions()

    def fit(self, pool: ClausePool, *, seed: int = 0) -> BestClauseCombination:
        covered = pool.fit_matrix.sum(axis=0)
        tp = (pool.fit_matrix & pool.fit_labels[:, None]).sum(axis=0)
        precision = np.divide(tp, covered, out=np.zeros(len(covered)), where=covered > 0)
        return BestClauseCombination(precision.tolist(), self.options.min_precision)

    def combination_from_json(self, data: dict[str, Any]) -> BestClauseCombination:
        return BestClauseCombination(data["precision"], float(data["min_precision"]))
