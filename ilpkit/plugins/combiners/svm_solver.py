"""GleanerSRL stage 3 (gleanersrl sec. 2.3): an SVM's weighted sum as the example's score.

Kernels with a feature map train scikit-learn's ``LinearSVC`` on ``phi(x)`` (primal, scales
to 100k+ examples); the others (Table 1's ``info``) train ``SVC(kernel="precomputed")`` on
the Gram matrix of the training examples, which is ``n x n``: past ``max_kernel_examples``
training examples the SVM trains on every positive and a seeded random sample of the
negatives that brings the total to the cap (recorded in the model's ``info``).

The score is the SVM's decision value ``sum_f w_f phi_f(x) + b`` (or
``sum_j alpha_j y_j K(x, x_j) + b``); the paper uses the weighted sum as the score ``s``.
"""

from __future__ import annotations

import random
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.calibration import choose_floor, leave_one_out
from ilpkit.core.metrics import mean_cross_entropy
from ilpkit.plugins.combiners.kernels import FeatureStats, Kernel, _dense

C_GRID = tuple(10.0**k for k in range(4, -5, -1))
"""The SVM complexities GleanerSRL tries on the tune set (10^4 down to 10^-4)."""
PROB_MIN_GRID = (0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.001, 0.0005, 0.0001)
"""The probability floors tried by leave-one-out calibration on the tune set."""


def tune_floor(
    scores: npt.NDArray[np.float64], positive: npt.NDArray[np.bool_], floors: tuple[float, ...]
) -> tuple[float, float]:
    """prob_min by leave-one-out isotonic calibration on the tune set, and its MCE."""
    if len(scores) < 2:
        probs = np.full(len(scores), 0.5)
        return floors[0], mean_cross_entropy(probs, positive, floors[0])
    loo = leave_one_out(scores, positive)
    floor, mces = choose_floor(loo, positive, floors)
    return floor, min(mces)


FloatArray = npt.NDArray[np.float64]


@dataclass
class SVMScore:
    """A trained SVM as data: primal ``weights`` over ``phi``, or ``support`` rows (feature
    values of the support vectors) with their ``dual`` coefficients ``alpha_j y_j``."""

    C: float
    intercept: float
    weights: FloatArray | None = None
    support: FloatArray | None = None
    dual: FloatArray | None = None

    def decision(self, x: Any, kernel: Kernel, stats: FeatureStats) -> FloatArray:
        if self.weights is not None:
            phi = kernel.feature_map(x, stats)
            if phi is None:
                raise ValueError(f"kernel {kernel.name!r} has no feature map for primal weights")
            return np.asarray(phi @ self.weights, dtype=np.float64).ravel() + self.intercept
        assert self.support is not None and self.dual is not None
        if len(self.support) == 0:
            return np.full(x.shape[0], self.intercept)
        gram = kernel.gram(x, self.support, stats)
        return np.asarray(gram @ self.dual, dtype=np.float64).ravel() + self.intercept

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"C": self.C, "intercept": self.intercept}
        if self.weights is not None:
            out["weights"] = self.weights.tolist()
        if self.support is not None and self.dual is not None:
            out["support"] = [_sparse_row(r) for r in self.support]
            out["dual"] = self.dual.tolist()
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any], n_features: int) -> SVMScore:
        support = None
        if "support" in data:
            support = np.zeros((len(data["support"]), n_features))
            for r, (cols, vals) in enumerate(data["support"]):
                support[r, cols] = vals
        return cls(
            C=float(data["C"]),
            intercept=float(data["intercept"]),
            weights=None if "weights" not in data else np.asarray(data["weights"], dtype=float),
            support=support,
            dual=None if "dual" not in data else np.asarray(data["dual"], dtype=np.float64),
        )


def fit_svm(
    x: Any,
    positive: npt.NDArray[np.bool_],
    kernel: Kernel,
    stats: FeatureStats,
    C: float,
    *,
    seed: int,
    class_weight: str | None,
    max_kernel_examples: int,
    max_iter: int,
) -> tuple[SVMScore, dict[str, Any]]:
    """Train the SVM on the training rows ``x``; returns it and notes for the model info.

    Both solvers stop after ``max_iter`` iterations (libsvm does not converge on the info
    kernel's indefinite Gram matrix at large C: minutes per fit without the cap); a fit that
    stopped there is noted as ``unconverged_C``."""
    from sklearn.exceptions import ConvergenceWarning  # scikit-learn loads only when used

    y = np.where(positive, 1, -1)
    if len(np.unique(y)) < 2:
        raise ValueError("GleanerSRL's SVM needs positive and negative training examples")
    phi = kernel.feature_map(x, stats)
    if phi is not None:
        from sklearn.svm import LinearSVC

        svm = LinearSVC(C=C, class_weight=class_weight, random_state=seed, max_iter=max_iter)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svm.fit(phi, y)
        w = np.asarray(svm.coef_, dtype=np.float64).ravel()
        return SVMScore(C, float(svm.intercept_[0]), weights=w), _converged(svm, C, max_iter)
    from sklearn.svm import SVC

    rows = np.arange(x.shape[0])
    notes: dict[str, Any] = {}
    if len(rows) > max_kernel_examples:
        rows = _capped_rows(positive, max_kernel_examples, seed)
        notes = {"kernel_sample": len(rows), "kernel_sample_of": int(x.shape[0])}
    xs = np.asarray(_dense(x[rows]), dtype=np.float64)
    gram = kernel.gram(xs, xs, stats)
    svm = SVC(
        C=C, kernel="precomputed", class_weight=class_weight, random_state=seed, max_iter=max_iter
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svm.fit(gram, y[rows])
    notes.update(_converged(svm, C, max_iter))
    support = xs[np.asarray(svm.support_, dtype=np.int64)]
    dual = np.asarray(svm.dual_coef_, dtype=np.float64).ravel()
    return SVMScore(C, float(svm.intercept_[0]), support=support, dual=dual), notes


def _converged(svm: Any, C: float, max_iter: int) -> dict[str, Any]:
    n_iter = np.max(np.atleast_1d(svm.n_iter_))
    return {"unconverged_C": [C]} if n_iter >= max_iter else {}


def _capped_rows(positive: npt.NDArray[np.bool_], cap: int, seed: int) -> npt.NDArray[np.int64]:
    """Every positive row and a seeded sample of negative rows, ``cap`` rows in all (sorted)."""
    pos = np.flatnonzero(positive)
    neg = np.flatnonzero(~positive).tolist()
    room = max(cap - len(pos), 0)
    sample = random.Random(repr(("gleanersrl-kernel-cap", seed))).sample(neg, min(room, len(neg)))
    return np.sort(np.concatenate([pos, np.asarray(sample, dtype=np.int64)])).astype(np.int64)


def _sparse_row(row: FloatArray) -> list[list[float]]:
    cols = np.flatnonzero(row)
    return [cols.tolist(), row[cols].tolist()]
