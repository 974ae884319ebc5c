"""``svm``: GleanerSRL's stages 3-4 over any pool: a kernel SVM and isotonic calibration.

The clauses are Boolean features (GleanerSRL's ``features="boolean"``).  For each C of
``c_grid`` an SVM with the chosen kernel plugin (dot, precision, recall, both-pos, info)
trains on the training examples; the C and probability floor with the lowest leave-one-out
mean cross entropy on the tune examples (the training examples without a tune set) among the
fits that converged are kept (:func:`~ilpkit.plugins.combiners.svm_solver.tune_svm`),
and the SVM's decision values on the tune examples are calibrated by isotonic regression,
clipped to [prob_min, 1 - prob_min].  Every step is GleanerSRL's own code
(:mod:`ilpkit.plugins.learners.gleanersrl`), and a clause several members kept is one
feature, as in GleanerSRL: on Gleaner's pool this is GleanerSRL with Boolean features
(tested).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import Field

from ilpkit.core.calibration import Isotonic, isotonic_fit
from ilpkit.core.combiner import ClausePool
from ilpkit.core.plugins import PluginSpec, get_plugin_manager
from ilpkit.errors import ConfigError
from ilpkit.plugins.combiners.kernels import FeatureStats, Kernel
from ilpkit.plugins.combiners.svm_solver import (
    SVMScore,
    SvmSolverOptions,
    fit_svm,
    tune_svm,
)


class SvmOptions(SvmSolverOptions):
    """Kernel, the tuning grids and the solver's limits (GleanerSRL's defaults)."""

    kernel: str = Field(
        default="dot", description="A kernel plugin: dot, precision, recall, both-pos, info."
    )


def feature_columns(pool: ClausePool) -> list[int]:
    """One column per distinct clause (its first), as GleanerSRL's Boolean features: a
    clause several members kept is one feature, not several equal ones."""
    seen: dict[str, int] = {}
    for j, clause in enumerate(pool.clauses):
        seen.setdefault(str(clause.canonical()), j)
    return sorted(seen.values())


class SvmCombination:
    def __init__(
        self,
        kernel: str,
        stats: FeatureStats,
        svm: SVMScore,
        isotonic: Isotonic,
        prob_min: float,
        tuning: list[dict[str, Any]],
        columns: list[int] | None = None,
        n_clauses: int | None = None,
    ) -> None:
        self.columns = list(range(len(stats.tp))) if columns is None else columns
        self.n_clauses = len(self.columns) if n_clauses is None else n_clauses
        self.kernel_name = kernel
        self.stats = stats
        self.svm = svm
        self.isotonic = isotonic
        self.prob_min = prob_min
        self.tuning = tuning

    def kernel(self) -> Kernel:
        kernel: Kernel = get_plugin_manager().make("kernel", self.kernel_name, {})
        return kernel

    def decision(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        if not self.columns:
            return np.full(matrix.shape[0], self.svm.intercept)
        x = matrix[:, self.columns].astype(np.float64)
        return self.svm.decision(x, self.kernel(), self.stats)

    def predict_proba(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        p = self.isotonic(self.decision(matrix))
        return np.asarray(np.clip(p, self.prob_min, 1.0 - self.prob_min), dtype=np.float64)

    def score(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        return self.predict_proba(matrix)

    def predict(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        return np.asarray(self.predict_proba(matrix) >= 0.5, dtype=bool)

    def clause_weights(self) -> npt.NDArray[np.float64]:
        """Each clause's weight in the SVM's linear form, on the first of equal clauses
        (zeros for the dual-form info kernel, which has none)."""
        out = np.zeros(self.n_clauses)
        k = len(self.columns)
        if self.svm.weights is None or k == 0:
            return out
        phi = self.kernel().feature_map(np.eye(k), self.stats)
        if phi is None:
            return out
        out[self.columns] = np.asarray(phi @ self.svm.weights, dtype=np.float64).ravel()
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel_name,
            "stats": self.stats.to_json(),
            "svm": self.svm.to_json(),
            "isotonic": {
                "thresholds": self.isotonic.thresholds.tolist(),
                "values": self.isotonic.values.tolist(),
            },
            "prob_min": self.prob_min,
            "tuning": self.tuning,
            "columns": self.columns,
            "n_clauses": self.n_clauses,
        }


class SvmCombiner:
    name = "svm"

    def __init__(self, options: SvmOptions | None = None) -> None:
        self.options = options if options is not None else SvmOptions()

    def fit(self, pool: ClausePool, *, seed: int = 0) -> SvmCombination:
        o = self.options
        kernel: Kernel = get_plugin_manager().make("kernel", o.kernel, {})
        columns = feature_columns(pool)
        x_train = pool.fit_matrix[:, columns].astype(np.float64)
        positive = pool.fit_labels
        if not 0 < positive.sum() < len(positive):
            raise ConfigError("combiner svm: the training set needs positive and negative examples")
        stats = FeatureStats.measure(x_train, positive)
        x_tune, y_tune, _ = pool.held_out()
        x_tune = x_tune[:, columns]

        def fits() -> Iterator[tuple[SVMScore, dict[str, Any]]]:
            for C in o.c_grid:
                if x_train.shape[1] == 0:
                    yield SVMScore(float(C), 0.0, weights=np.zeros(0)), {}
                    continue
                yield fit_svm(
                    x_train,
                    positive,
                    kernel,
                    stats,
                    C,
                    seed=seed % (2**31),
                    class_weight=None if o.class_weight == "none" else o.class_weight,
                    max_kernel_examples=o.max_kernel_examples,
                    max_iter=o.svm_max_iter,
                    loss=o.svm_loss,
                )

        def tune_scores(svm: SVMScore | None) -> npt.NDArray[np.float64]:
            assert svm is not None
            if x_train.shape[1] == 0:
                return np.full(len(y_tune), svm.intercept)
            return svm.decision(x_tune.astype(np.float64), kernel, stats)

        tuned = tune_svm(fits(), tune_scores, y_tune, tuple(o.prob_min_grid))
        svm, prob_min, tuning = tuned.svm, tuned.prob_min, tuned.tuning
        assert svm is not None
        iso = isotonic_fit(tuned.scores, y_tune)
        k = len(pool.clauses)
        return SvmCombination(o.kernel, stats, svm, iso, prob_min, tuning, columns, k)

    def combination_from_json(self, data: dict[str, Any]) -> SvmCombination:
        stats = FeatureStats.from_json(data["stats"])
        iso = data["isotonic"]
        return SvmCombination(
            str(data["kernel"]),
            stats,
            SVMScore.from_json(data["svm"], len(stats.tp)),
            Isotonic(
                np.asarray(iso["thresholds"], dtype=np.float64),
                np.asarray(iso["values"], dtype=np.float64),
            ),
            float(data["prob_min"]),
            list(data.get("tuning", [])),
            [int(j) for j in data["columns"]] if "columns" in data else None,
            int(data["n_clauses"]) if "n_clauses" in data else None,
        )


SPEC = PluginSpec(
    kind="combiner",
    name="svm",
    factory=SvmCombiner,
    options=SvmOptions,
    doc="GleanerSRL's kernel SVM over the clauses, calibrated by isotonic regression.",
)
