"""GleanerSRL stage 3 (gleanersrl sec. 2.3): an SVM's weighted sum as the example's score.

The SVM's loss (``loss``): ``"hinge"``, the paper's default, is the standard soft-margin SVM
"solved by a linear or quadratic program" (its ref. [2]): libsvm's ``SVC``, whose intercept is
not regularised, with ``kernel="linear"`` on the feature map ``phi(x)`` of the kernels that
have one and ``kernel="precomputed"`` on the Gram matrix of the others (Table 1's ``info``).
``"squared-hinge"`` trains scikit-learn's ``LinearSVC`` with its defaults (squared hinge,
regularised intercept) on ``phi(x)``: primal, it scales to 100k+ examples; libsvm has no
squared hinge, so ``info`` keeps the hinge (the model's ``info.svm_loss`` says which loss
trained it). A precomputed Gram matrix is ``n x n``: past ``max_kernel_examples`` training
examples the SVM trains on every positive and a seeded random sample of the negatives that
brings the total to the cap (recorded in the model's ``info``).

Same seed, same model (issue 31): the Gram matrices, feature maps and decision values are
computed with the BLAS on one thread (``threadpoolctl``), so their rounding, and an
unconverged libsvm fit that amplifies it, do not depend on ``OPENBLAS_NUM_THREADS``. A fit
that stops at ``max_iter`` is not converged: :func:`tune_svm` chooses C among converged fits
only, and says so in the tuning table.

The score is the SVM's decision value ``sum_f w_f phi_f(x) + b`` (or
``sum_j alpha_j y_j K(x, x_j) + b``); the paper uses the weighted sum as the score ``s``.
"""

from __future__ import annotations

import contextlib
import random
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.calibration import choose_floor, leave_one_out
from ilpkit.core.metrics import mean_cross_entropy
from ilpkit.plugins.combiners.kernels import FeatureStats, Kernel, _dense

C_GRID = tuple(10.0**k for k in range(4, -5, -1))
"""The SVM complexities GleanerSRL tries on the tune set (10^4 down to 10^-4)."""
PROB_MIN_GRID = (0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.001, 0.0005, 0.0001)
"""The probability floors tried by leave-one-out calibration on the tune set."""


SvmLoss = Literal["hinge", "squared-hinge"]
"""``hinge``: the standard soft-margin SVM (libsvm, the paper's); ``squared-hinge``:
``LinearSVC``'s defaults."""


class SvmSolverOptions(BaseModel):
    """The SVM's tuning grids and solver limits, as GleanerSRL and the ``svm`` combiner
    take them (their defaults are GleanerSRL's)."""

    model_config = ConfigDict(extra="forbid")

    c_grid: list[float] = Field(
        default=list(C_GRID), min_length=1, description="SVM complexities C tried on the tune set."
    )
    prob_min_grid: list[float] = Field(
        default=list(PROB_MIN_GRID),
        min_length=1,
        description="Probability floors tried by leave-one-out on the tune set.",
    )
    class_weight: Literal["none", "balanced"] = Field(
        default="none", description="SVM class weights: none (as the paper) or balanced."
    )
    max_kernel_examples: int = Field(
        default=4000,
        ge=2,
        description="Precomputed-kernel SVMs (info) train on at most this many examples: all "
        "positives and a seeded sample of negatives.",
    )
    svm_max_iter: int = Field(
        default=1_000_000,
        ge=1,
        description="Iterations after which an SVM fit stops (unconverged: not chosen).",
    )
    svm_loss: SvmLoss = Field(
        default="hinge",
        description="hinge: the standard soft-margin SVM (libsvm, the paper's); squared-hinge: "
        "LinearSVC's defaults (squared hinge, regularised intercept; not for info).",
    )


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """The BLAS on one thread inside the block (when ``threadpoolctl`` is installed: it comes
    with scikit-learn), so that sums round the same whatever ``OPENBLAS_NUM_THREADS`` says."""
    try:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - scikit-learn depends on it
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def floor_mces(
    scores: npt.NDArray[np.float64], positive: npt.NDArray[np.bool_], floors: tuple[float, ...]
) -> list[float]:
    """The leave-one-out isotonic MCE on the tune set of every floor of ``floors``."""
    if len(scores) < 2:
        probs = np.full(len(scores), 0.5)
        return [mean_cross_entropy(probs, positive, f) for f in floors]
    return choose_floor(leave_one_out(scores, positive), positive, floors)[1]


def tune_floor(
    scores: npt.NDArray[np.float64], positive: npt.NDArray[np.bool_], floors: tuple[float, ...]
) -> tuple[float, float]:
    """prob_min by leave-one-out isotonic calibration on the tune set, and its MCE."""
    mces = floor_mces(scores, positive, floors)
    best = min(range(len(floors)), key=lambda k: (mces[k], k))
    return floors[best], mces[best]


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
        with one_blas_thread():
            return self._decision(x, kernel, stats)

    def _decision(self, x: Any, kernel: Kernel, stats: FeatureStats) -> FloatArray:
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
    loss: SvmLoss = "hinge",
) -> tuple[SVMScore, dict[str, Any]]:
    """Train the SVM on the training rows ``x``; returns it and notes for the model info.

    Both solvers stop after ``max_iter`` iterations (libsvm does not converge on the info
    kernel's indefinite Gram matrix at large C: minutes per fit without the cap); a fit that
    stopped there is noted as ``unconverged_C``. The notes' ``svm_loss`` is the loss used."""
    with one_blas_thread():
        return _fit_svm(
            x, positive, kernel, stats, C, seed=seed, class_weight=class_weight,
            max_kernel_examples=max_kernel_examples, max_iter=max_iter, loss=loss,
        )  # fmt: skip


def _fit_svm(
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
    loss: SvmLoss,
) -> tuple[SVMScore, dict[str, Any]]:
    from sklearn.exceptions import ConvergenceWarning  # scikit-learn loads only when used

    y = np.where(positive, 1, -1)
    if len(np.unique(y)) < 2:
        raise ValueError("GleanerSRL's SVM needs positive and negative training examples")
    phi = kernel.feature_map(x, stats)
    if phi is not None and loss == "squared-hinge":
        from sklearn.svm import LinearSVC

        svm = LinearSVC(C=C, class_weight=class_weight, random_state=seed, max_iter=max_iter)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svm.fit(phi, y)
        w = np.asarray(svm.coef_, dtype=np.float64).ravel()
        notes = {"svm_loss": "squared-hinge", **_converged(svm, C, max_iter)}
        return SVMScore(C, float(svm.intercept_[0]), weights=w), notes
    from sklearn.svm import SVC

    if phi is not None:  # the standard hinge on the feature map: libsvm's linear kernel
        svm = SVC(C=C, kernel="linear", class_weight=class_weight, max_iter=max_iter)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svm.fit(phi, y)
        w = np.asarray(_dense(svm.coef_), dtype=np.float64).ravel()
        notes = {"svm_loss": "hinge", **_converged(svm, C, max_iter)}
        return SVMScore(C, float(svm.intercept_[0]), weights=w), notes
    rows = np.arange(x.shape[0])
    notes = {"svm_loss": "hinge"}
    if len(rows) > max_kernel_examples:
        rows = _capped_rows(positive, max_kernel_examples, seed)
        notes.update({"kernel_sample": len(rows), "kernel_sample_of": int(x.shape[0])})
    xs = np.asarray(_dense(x[rows]), dtype=np.float64)
    gram = kernel.gram(xs, xs, stats)
    svm = SVC(C=C, kernel="precomputed", class_weight=class_weight, max_iter=max_iter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svm.fit(gram, y[rows])
    notes.update(_converged(svm, C, max_iter))
    support = xs[np.asarray(svm.support_, dtype=np.int64)]
    dual = np.asarray(svm.dual_coef_, dtype=np.float64).ravel()
    return SVMScore(C, float(svm.intercept_[0]), support=support, dual=dual), notes


@dataclass
class Tuned:
    """What tuning chose: the SVM (None for the gleaner baseline), its tune scores, the floor,
    the tuning table (one row per C) and the fits' notes gathered for the model's ``info``."""

    svm: SVMScore | None
    scores: FloatArray
    prob_min: float
    tuning: list[dict[str, Any]]
    notes: dict[str, Any] = field(default_factory=dict)


ALL_UNCONVERGED = (
    "every SVM fit of the C grid stopped at svm_max_iter before converging, so C was chosen "
    "among unconverged fits (whose result depends on rounding); raise learner.svm_max_iter "
    "(combiner.svm_max_iter) or try another kernel"
)
"""The model's ``info.degenerate`` line when no fit of the C grid converged."""


def tune_svm(
    fits: Iterable[tuple[SVMScore | None, dict[str, Any]]],
    tune_scores: Callable[[SVMScore | None], FloatArray],
    positive: npt.NDArray[np.bool_],
    floors: tuple[float, ...],
) -> Tuned:
    """C and prob_min together (gleanersrl sec. 2.3-2.4): the (C, prob_min) of the lowest
    leave-one-out tune MCE (ties: the earlier C, then the earlier floor) among the fits that
    converged; only when none converged, among all (``notes["all_unconverged"]``).

    Each tuning row holds the C, whether its fit converged, the MCE of every floor
    (``mces``, in ``floors`` order), and its best floor and MCE."""
    rows: list[dict[str, Any]] = []
    candidates: list[tuple[SVMScore | None, FloatArray]] = []
    notes: dict[str, Any] = {}
    for svm, fit_notes in fits:
        s = tune_scores(svm)
        mces = floor_mces(s, positive, floors)
        best = min(range(len(floors)), key=lambda k: (mces[k], k))
        converged = not fit_notes.get("unconverged_C")
        rows.append({
            "C": None if svm is None else svm.C, "converged": converged,
            "prob_min": floors[best], "mce": mces[best], "mces": mces,
        })  # fmt: skip
        candidates.append((svm, s))
        for key, value in fit_notes.items():
            if key == "unconverged_C":
                notes.setdefault(key, []).extend(value)
            else:
                notes[key] = value
    if not rows:
        raise ValueError("no SVM fits to tune")
    eligible = [k for k, row in enumerate(rows) if row["converged"]]
    if not eligible:
        eligible = list(range(len(rows)))
        notes["all_unconverged"] = True
    k = min(eligible, key=lambda j: (rows[j]["mce"], j))
    svm, s = candidates[k]
    return Tuned(svm, s, float(rows[k]["prob_min"]), rows, notes)


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
