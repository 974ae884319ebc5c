"""``rankboost``: the pool's clauses as RankBoost.B's weak rankers.

RankBoost.B (PAPERS.md "RankBoost and PRankBoost"): positives and negatives each start at
total weight 1 (in proportion to the examples' own weights); each of ``rounds`` rounds picks
the clause h (h(x) = 1 when it covers x) with the largest r = sum_pos w h - sum_neg w h,
weights it alpha = 0.5 ln((1 + r) / (1 - r)), and re-weights (positives w exp(-alpha h),
negatives w exp(alpha h), each class renormalised to 1).  The score is sum_t alpha_t h_t(x);
``predict`` thresholds it where the training F1 is highest.  The arithmetic is the
``rankboost`` learner's own (:mod:`ilpkit.plugins.learners.boost_weak`); only the weak
learner differs: a pick from the pool instead of a hill-climbing search.  Rounds stop early
when no clause has r > 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.combiner import ClausePool
from ilpkit.core.plugins import PluginSpec
from ilpkit.plugins.learners.boost_weak import (
    alpha_from_r,
    f1_threshold,
    initial_weights,
    update_weights,
)


class RankBoostCombinerOptions(BaseModel):
    """Boosting rounds over the pool."""

    model_config = ConfigDict(extra="forbid")

    rounds: int = Field(default=50, ge=1, description="Boosting rounds T (a clause may recur).")


def boost(
    matrix: npt.NDArray[np.bool_],
    positive: npt.NDArray[np.bool_],
    base: npt.NDArray[np.float64],
    rounds: int,
) -> tuple[npt.NDArray[np.float64], list[tuple[int, float, float]]]:
    """Each clause's total alpha after ``rounds`` rounds, and the rounds as (clause, r,
    alpha)."""
    h_all = matrix.astype(np.float64)
    w = initial_weights(positive, base, 1.0)
    alphas = np.zeros(matrix.shape[1], dtype=np.float64)
    history = []
    for _ in range(rounds):
        if matrix.shape[1] == 0:
            break
        signed = np.where(positive, w, -w)
        r_all = signed @ h_all
        j = int(np.argmax(r_all))
        r = float(r_all[j])
        if r <= 0:
            break
        alpha = alpha_from_r(r)
        w = update_weights(w, positive, h_all[:, j], alpha, 1.0)
        alphas[j] += alpha
        history.append((j, r, alpha))
    return alphas, history


class RankBoostCombination:
    def __init__(self, alphas: list[float], threshold: float, rounds: list[list[float]]) -> None:
        self.alphas = np.asarray(alphas, dtype=np.float64)
        self.threshold = threshold
        self.rounds = rounds

    def score(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        return np.asarray(matrix.astype(np.float64) @ self.alphas, dtype=np.float64)

    def predict(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        if not self.rounds:
            return np.zeros(matrix.shape[0], dtype=bool)
        return np.asarray(self.score(matrix) >= self.threshold, dtype=bool)

    def clause_weights(self) -> npt.NDArray[np.float64]:
        return self.alphas

    def to_json(self) -> dict[str, Any]:
        return {"alphas": self.alphas.tolist(), "threshold": self.threshold, "rounds": self.rounds}


class RankBoostCombiner:
    name = "rankboost"

    def __init__(self, options: RankBoostCombinerOptions | None = None) -> None:
        self.options = options if options is not None else RankBoostCombinerOptions()

    def fit(self, pool: ClausePool, *, seed: int = 0) -> RankBoostCombination:
        base = pool.fit_weights
        if base is None:
            base = np.ones(len(pool.fit_labels))
        alphas, history = boost(pool.fit_matrix, pool.fit_labels, base, self.options.rounds)
        scores = pool.fit_matrix.astype(np.float64) @ alphas
        threshold = f1_threshold(scores, pool.fit_labels.astype(np.int64), base)
        return RankBoostCombination(
            alphas.tolist(), threshold, [[float(j), r, a] for j, r, a in history]
        )

    def combination_from_json(self, data: dict[str, Any]) -> RankBoostCombination:
        return RankBoostCombination(data["alphas"], float(data["threshold"]), data["rounds"])


SPEC = PluginSpec(
    kind="combiner",
    name="rankboost",
    factory=RankBoostCombiner,
    options=RankBoostCombinerOptions,
    doc="RankBoost.B with the pool's clauses as weak rankers: a weighted sum of clauses.",
)
