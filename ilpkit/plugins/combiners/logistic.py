"""``logistic``: L2-regularised logistic regression over the clauses as Boolean features.

The plain, fast, calibrated baseline a user expects beside the published combiners: one
weight per clause and an intercept, fitted by scikit-learn's ``LogisticRegression`` (lbfgs)
on the training coverage matrix; the score is the probability of the positive class.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.combiner import ClausePool
from ilpkit.core.plugins import PluginSpec


class LogisticOptions(BaseModel):
    """Regularisation and class weights."""

    model_config = ConfigDict(extra="forbid")

    C: float = Field(default=1.0, gt=0, description="Inverse L2 regularisation strength.")
    class_weight: Literal["none", "balanced"] = Field(
        default="none", description="Class weights: none, or balanced (inverse frequencies)."
    )
    max_iter: int = Field(default=1000, ge=1, description="Solver iterations at most.")


class LogisticCombination:
    def __init__(self, coef: list[float], intercept: float) -> None:
        self.coef = np.asarray(coef, dtype=np.float64)
        self.intercept = intercept

    def predict_proba(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        z = matrix.astype(np.float64) @ self.coef + self.intercept
        return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)

    def score(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        return self.predict_proba(matrix)

    def predict(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        return np.asarray(self.predict_proba(matrix) >= 0.5, dtype=bool)

    def clause_weights(self) -> npt.NDArray[np.float64]:
        return self.coef

    def to_json(self) -> dict[str, Any]:
        return {"coef": self.coef.tolist(), "intercept": self.intercept}


class LogisticCombiner:
    name = "logistic"

    def __init__(self, options: LogisticOptions | None = None) -> None:
        self.options = options if options is not None else LogisticOptions()

    def fit(self, pool: ClausePool, *, seed: int = 0) -> LogisticCombination:
        y = pool.fit_labels
        k = len(pool.clauses)
        if k == 0 or len(np.unique(y)) < 2:
            rate = float(np.clip(y.mean() if len(y) else 0.5, 1e-6, 1 - 1e-6))
            return LogisticCombination([0.0] * k, float(np.log(rate / (1 - rate))))
        from sklearn.linear_model import LogisticRegression

        o = self.options
        model = LogisticRegression(
            C=o.C,
            class_weight=None if o.class_weight == "none" else "balanced",
            max_iter=o.max_iter,
        )
        model.fit(pool.fit_matrix.astype(np.float64), y, sample_weight=pool.fit_weights)
        return LogisticCombination(
            np.asarray(model.coef_, dtype=np.float64).ravel().tolist(), float(model.intercept_[0])
        )

    def combination_from_json(self, data: dict[str, Any]) -> LogisticCombination:
        return LogisticCombination(data["coef"], float(data["intercept"]))


SPEC = PluginSpec(
    kind="combiner",
    name="logistic",
    factory=LogisticCombiner,
    options=LogisticOptions,
    doc="Logistic regression over the clauses as features: a fast, calibrated baseline.",
)
