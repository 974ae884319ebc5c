"""``weighted``: the single-theory control's weighting schemes over any pool.

Each clause's counts on the tune examples (the training examples without a tune set) give
its weight, and an example's score combines the clauses that cover it, exactly as
``--learner single-theory`` does (:func:`~ilpkit.plugins.learners.single_theory.rule_weights`
and :func:`~ilpkit.plugins.learners.single_theory.combine` are that learner's own code):
ranked (m-estimate, max), lfpr, cn2, vote (mean precision), count, precision, recall, f1.
``predict`` says positive when any clause covers the example.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.combiner import ClausePool
from ilpkit.core.plugins import PluginSpec
from ilpkit.plugins.learners.single_theory import MEstimate, Scheme, combine, rule_weights


class WeightedOptions(BaseModel):
    """The weighting scheme (single-theory's)."""

    model_config = ConfigDict(extra="forbid")

    scheme: Scheme = Field(default="ranked", description="How matching clauses are combined.")
    m: float = Field(default=2.0, ge=0, description="m of the m-estimate (scheme ranked).")
    m_estimate: MEstimate = Field(
        default="dissertation",
        description="Scheme ranked: 'dissertation' (TP + m) / (TP + FP + 2m) or 'prior'.",
    )


def held_out_counts(
    matrix: npt.NDArray[np.bool_], labels: npt.NDArray[np.bool_], weights: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float, float]:
    """Each clause's weighted TP and FP, and the weighted P and N, on these examples."""
    pos = np.where(labels, weights, 0.0)
    neg = np.where(labels, 0.0, weights)
    m = matrix.astype(np.float64)
    return pos @ m, neg @ m, float(pos.sum()), float(neg.sum())


class WeightedCombination:
    def __init__(self, options: WeightedOptions, tp: list[float], fp: list[float], p: float,
                 n: float) -> None:  # fmt: skip
        self.options = options
        self.tp = np.asarray(tp, dtype=np.float64)
        self.fp = np.asarray(fp, dtype=np.float64)
        self.p = p
        self.n = n

    def clause_weights(self) -> npt.NDArray[np.float64]:
        o = self.options
        return rule_weights(o.scheme, self.tp, self.fp, self.p, self.n, o.m, o.m_estimate)

    def score(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        return combine(self.options.scheme, matrix, self.clause_weights(), self.tp, self.fp)

    def predict(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        return np.asarray(matrix.any(axis=1), dtype=bool)

    def to_json(self) -> dict[str, Any]:
        return {
            "options": self.options.model_dump(),
            "tp": self.tp.tolist(),
            "fp": self.fp.tolist(),
            "p": self.p,
            "n": self.n,
        }


class WeightedCombiner:
    name = "weighted"

    def __init__(self, options: WeightedOptions | None = None) -> None:
        self.options = options if options is not None else WeightedOptions()

    def fit(self, pool: ClausePool, *, seed: int = 0) -> WeightedCombination:
        tp, fp, p, n = held_out_counts(*pool.held_out())
        return WeightedCombination(self.options, tp.tolist(), fp.tolist(), p, n)

    def combination_from_json(self, data: dict[str, Any]) -> WeightedCombination:
        return WeightedCombination(
            WeightedOptions(**data["options"]), data["tp"], data["fp"], data["p"], data["n"]
        )


SPEC = PluginSpec(
    kind="combiner",
    name="weighted",
    factory=WeightedCombiner,
    options=WeightedOptions,
    doc="Clauses weighted on the tune set (single-theory's schemes: ranked, lfpr, cn2, ...).",
)
