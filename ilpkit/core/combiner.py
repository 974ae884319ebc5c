"""Combiners: the ensemble step as a plugin of its own.

Every published ensemble method generates a pool of clauses and then combines them: Gleaner
keeps the best clause per recall bin and thresholds "at least L of K" per bin, the Aleph
ensembles vote, the single-theory control weights its rules, GleanerSRL feeds an SVM and
calibrates it, the static-RF baseline grows a forest.  A *combiner* is that second step on
its own, so that any clause pool can be combined any way: ``ilpkit learn DATA --learner
gleaner --combiner svm``.

The contract is data in, model out:

* a :class:`ClausePool` holds the clauses, the member each came from (a Gleaner recall bin,
  an ensemble theory; ``groups``), and the example-by-clause coverage matrices of the
  training examples and, when the experiment has them, the tune examples;
* a combiner plugin's factory builds a :class:`Combiner` whose ``fit(pool, seed=...)``
  returns a :class:`Combination`: scores (and decisions) from a coverage matrix, JSON
  round-trip, per-clause weights for ``explain``;
* :class:`PoolModel` is the learner-facing :class:`~ilpkit.core.learner.Model`: it asks the
  backend for its clauses' coverage of the examples to score (one batch,
  :func:`~ilpkit.core.features.propositionalise`) and hands the matrix to the combination.

A learner that produces a pool declares ``takes_combiner=True`` in its capabilities and,
when the run names a combiner (``ctx.combiner``), returns ``PoolModel`` from
:func:`fit_pool`; a learner whose clause generation depends on its own combination
(boosting, trees) refuses a combiner (:func:`ilpkit.experiment.compose.resolve`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ilpkit.core.backend import BackendProtocol
from ilpkit.core.degenerate import DEGENERATE
from ilpkit.core.task import POS, Task
from ilpkit.errors import ConfigError, DataError
from ilpkit.prolog.terms import Clause

__all__ = [
    "ClausePool",
    "Combination",
    "Combiner",
    "PoolModel",
    "build_pool",
    "dense",
    "fit_pool",
    "pool_model_from_json",
]

Matrix = Any
"""An examples x clauses Boolean matrix: a numpy array or a SciPy sparse matrix."""


def dense(matrix: Matrix) -> npt.NDArray[np.bool_]:
    """``matrix`` as a dense Boolean numpy array."""
    if hasattr(matrix, "toarray"):
        return np.asarray(matrix.toarray(), dtype=bool)
    return np.asarray(matrix, dtype=bool)


@dataclass
class ClausePool:
    """Clauses, where each came from, and their coverage of the examples to fit on.

    ``fit_*`` are the training examples; ``tune_*`` the tune examples (None when the
    experiment has no tune folds: a combiner that needs held-out data then uses the training
    examples, as the published methods do).  Matrices are examples x clauses, Boolean."""

    clauses: list[Clause]
    groups: npt.NDArray[np.int64]
    """The member (Gleaner recall bin, ensemble theory, ...) clause ``j`` came from."""
    group_kind: str
    """What a group is, for messages and explain (``bin``, ``theory``, ``seed``, ``clause``)."""
    fit_ids: npt.NDArray[np.int64]
    fit_labels: npt.NDArray[np.bool_]
    fit_matrix: npt.NDArray[np.bool_]
    tune_ids: npt.NDArray[np.int64] | None = None
    tune_labels: npt.NDArray[np.bool_] | None = None
    tune_matrix: npt.NDArray[np.bool_] | None = None
    fit_weights: npt.NDArray[np.float64] | None = None
    """Example weights of the training examples (None: all 1)."""
    tune_weights: npt.NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        k = len(self.clauses)
        if len(self.groups) != k or self.fit_matrix.shape[1:] != (k,):
            raise ValueError("a clause pool needs one group and one matrix column per clause")

    @property
    def n_groups(self) -> int:
        return int(self.groups.max()) + 1 if len(self.groups) else 0

    def held_out(
        self,
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
        """The tune matrix, labels and weights, or the training ones without a tune set."""
        if self.tune_matrix is not None and self.tune_labels is not None:
            weights = self.tune_weights
            if weights is None:
                weights = np.ones(len(self.tune_labels))
            return self.tune_matrix, self.tune_labels, weights
        fit_weights = self.fit_weights
        if fit_weights is None:
            fit_weights = np.ones(len(self.fit_labels))
        return self.fit_matrix, self.fit_labels, fit_weights


@runtime_checkable
class Combination(Protocol):
    """A fitted combination: scores from coverage matrices."""

    def score(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        """A ranking score per row (higher: more likely positive)."""
        ...

    def predict(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]: ...

    def clause_weights(self) -> npt.NDArray[np.float64]:
        """One number per clause for ``explain`` (its weight, vote or importance)."""
        ...

    def to_json(self) -> dict[str, Any]: ...


@runtime_checkable
class Combiner(Protocol):
    """What a combiner plugin's factory builds."""

    name: str

    def fit(self, pool: ClausePool, *, seed: int = 0) -> Combination: ...

    def combination_from_json(self, data: dict[str, Any]) -> Combination: ...


@runtime_checkable
class ProbabilisticCombination(Protocol):
    """A combination whose scores are calibrated probabilities."""

    def predict_proba(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]: ...


# --------------------------------------------------------------------------------------------
# Building a pool and the model
# --------------------------------------------------------------------------------------------


def _labels(task: Task, ids: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    return np.asarray(task.examples.labels[ids] == POS, dtype=bool)


def build_pool(
    task: Task,
    backend: BackendProtocol,
    clauses: Sequence[Clause],
    groups: Sequence[int],
    group_kind: str,
    train_ids: npt.NDArray[np.int64],
    tune_ids: npt.NDArray[np.int64] | None,
) -> ClausePool:
    """The pool of ``clauses`` with their coverage of the training (and tune) examples,
    asked of ``backend`` in one batch per set.  A clause two members found stays twice (once
    in each), as Gleaner's bins count it: "at least L of K" counts both."""
    from ilpkit.core.features import propositionalise

    kept = list(clauses)
    kept_groups = [int(g) for g in groups]
    if len(kept) != len(kept_groups):
        raise ValueError("build_pool: one group per clause")
    train = np.asarray(train_ids, dtype=np.int64)
    fit_matrix = dense(propositionalise(backend, kept, train))
    tune_matrix = tune_labels = tune = None
    tune_weights = None
    if tune_ids is not None and len(tune_ids):
        tune = np.asarray(tune_ids, dtype=np.int64)
        tune_matrix = dense(propositionalise(backend, kept, tune))
        tune_labels = _labels(task, tune)
        tune_weights = np.asarray(task.examples.weights[tune], dtype=np.float64)
    return ClausePool(
        clauses=kept,
        groups=np.asarray(kept_groups, dtype=np.int64),
        group_kind=group_kind,
        fit_ids=train,
        fit_labels=_labels(task, train),
        fit_matrix=fit_matrix.reshape(len(train), len(kept)),
        tune_ids=tune,
        tune_labels=tune_labels,
        tune_matrix=None
        if tune_matrix is None or tune is None
        else tune_matrix.reshape(len(tune), len(kept)),
        fit_weights=np.asarray(task.examples.weights[train], dtype=np.float64),
        tune_weights=tune_weights,
    )


@dataclass
class PoolModel:
    """A clause pool's clauses combined by a combiner: the model of any pool learner run
    with ``--combiner``."""

    learner: str
    combiner: str
    clauses: list[Clause]
    groups: list[int]
    group_kind: str
    combination: Combination
    clauses_evaluated: int = 0
    info: dict[str, Any] = field(default_factory=dict)
    train_counts: list[list[float]] = field(default_factory=list)
    """Each clause's (TP, FP, precision, recall) on the training examples, for explain."""

    def matrix(
        self, backend: BackendProtocol, ids: npt.NDArray[np.int64] | None
    ) -> npt.NDArray[np.bool_]:
        from ilpkit.core.features import propositionalise

        ids = _ids(backend, ids)
        if not self.clauses:
            return np.zeros((len(ids), 0), dtype=bool)
        return dense(propositionalise(backend, self.clauses, ids)).reshape(
            len(ids), len(self.clauses)
        )

    def score(
        self, backend: BackendProtocol, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        return np.asarray(self.combination.score(self.matrix(backend, ids)), dtype=np.float64)

    def predict(
        self, backend: BackendProtocol, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.bool_]:
        return np.asarray(self.combination.predict(self.matrix(backend, ids)), dtype=bool)

    def rules(self) -> list[Any]:
        from ilpkit.core.learner import Rule

        weights = self.combination.clause_weights()
        counts = self.train_counts or [[0.0, 0.0, 0.0, 0.0]] * len(self.clauses)
        return [
            Rule(c, float(w), *(float(x) for x in n))
            for c, w, n in zip(self.clauses, weights, counts, strict=True)
        ]

    def to_json(self) -> dict[str, Any]:
        from ilpkit.core.learner import MODEL_FORMAT_VERSION

        return {
            "format_version": MODEL_FORMAT_VERSION,
            "learner": self.learner,
            "combiner": self.combiner,
            "clauses_evaluated": self.clauses_evaluated,
            "group_kind": self.group_kind,
            "groups": list(self.groups),
            "rules": [r.to_json() for r in self.rules()],
            "combination": self.combination.to_json(),
            "info": self.info,
        }


@dataclass
class ProbabilisticPoolModel(PoolModel):
    """A pool model whose combiner gives calibrated probabilities (svm, forest, logistic):
    cross-validation reports its mean cross entropy instead of fitting a calibration."""

    scores_are_probabilities: bool = True

    def predict_proba(
        self, backend: BackendProtocol, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        combination = self.combination
        assert isinstance(combination, ProbabilisticCombination)
        return combination.predict_proba(self.matrix(backend, ids))


@runtime_checkable
class PointCombination(Protocol):
    """A combination made of several classifiers (Gleaner's chosen theories), each a (TP, FP)
    point on the rows given."""

    def pr_counts(
        self, matrix: npt.NDArray[np.bool_], labels: npt.NDArray[np.bool_]
    ) -> list[tuple[float, float]]: ...


@dataclass
class PointsPoolModel(PoolModel):
    """A pool model whose combination is a set of point classifiers: cross-validation reports
    their recall-precision points (``aurpc_points``) as it does Gleaner's own."""

    def pr_counts(
        self, backend: BackendProtocol, ids: npt.NDArray[np.int64], labels: npt.NDArray[np.bool_]
    ) -> list[tuple[float, float]]:
        combination = self.combination
        assert isinstance(combination, PointCombination)
        return combination.pr_counts(self.matrix(backend, ids), np.asarray(labels, dtype=bool))


def _model_class(combination: Combination) -> type[PoolModel]:
    if isinstance(combination, ProbabilisticCombination):
        return ProbabilisticPoolModel
    if isinstance(combination, PointCombination):
        return PointsPoolModel
    return PoolModel


def pool_model_from_json(data: dict[str, Any]) -> PoolModel:
    """A :class:`PoolModel` read back (:func:`ilpkit.core.model_files.load_model` calls this for
    a model that names a combiner)."""
    from ilpkit.core.learner import parse_clause
    from ilpkit.core.plugins import get_plugin_manager

    try:
        name = str(data["combiner"])
        rules = data["rules"]
        clauses = [parse_clause(str(r["clause"])) for r in rules]
        groups = [int(g) for g in data.get("groups", [0] * len(clauses))]
        combination_data = data["combination"]
    except (KeyError, TypeError) as exc:
        raise DataError(f"a combined model lacks {exc}") from None
    combiner = get_plugin_manager().make("combiner", name, {})
    if not isinstance(combiner, Combiner):
        raise ConfigError(f"combiner {name!r} cannot read saved models")
    combination = combiner.combination_from_json(combination_data)
    return _model_class(combination)(
        learner=str(data["learner"]),
        combiner=name,
        clauses=clauses,
        groups=groups,
        group_kind=str(data.get("group_kind", "clause")),
        combination=combination,
        clauses_evaluated=int(data.get("clauses_evaluated", 0)),
        info=dict(data.get("info", {})),
        train_counts=[
            [float(r.get(k, 0.0)) for k in ("tp", "fp", "precision", "recall")] for r in rules
        ],
    )


def fit_pool(
    learner: str,
    task: Task,
    ctx: Any,
    clauses: Sequence[Clause],
    groups: Sequence[int],
    group_kind: str,
    *,
    clauses_evaluated: int,
    info: dict[str, Any] | None = None,
) -> PoolModel:
    """The pool of ``clauses`` combined by the run's combiner (``ctx.combiner``)."""
    combiner = ctx.combiner
    if combiner is None:
        raise ConfigError("internal: fit_pool needs a run that names a combiner")
    train = ctx.train(task)
    tune = ctx.tune_ids if ctx.tune_ids is not None and len(ctx.tune_ids) else None
    pool = build_pool(task, ctx.backend, clauses, groups, group_kind, train, tune)
    combination = combiner.fit(pool, seed=ctx.seed)
    info = dict(info or {})
    # what the combination found degenerate (Gleaner's predict theory covering everything)
    notes = [str(n) for n in getattr(combination, "degenerate", [])]
    if notes:
        info[DEGENERATE] = [*info.get(DEGENERATE, []), *notes]
    return _model_class(combination)(
        learner=learner,
        combiner=combiner.name,
        clauses=pool.clauses,
        groups=[int(g) for g in pool.groups],
        group_kind=group_kind,
        combination=combination,
        clauses_evaluated=clauses_evaluated,
        info={**info, "pool_clauses": len(pool.clauses), "seed": ctx.seed},
        train_counts=train_counts(pool),
    )


def train_counts(pool: ClausePool) -> list[list[float]]:
    """Each clause's weighted (TP, FP, precision, recall) on the pool's training examples."""
    weights = pool.fit_weights if pool.fit_weights is not None else np.ones(len(pool.fit_labels))
    pos = np.where(pool.fit_labels, weights, 0.0)
    neg = np.where(pool.fit_labels, 0.0, weights)
    m = pool.fit_matrix.astype(np.float64)
    tp, fp, p = pos @ m, neg @ m, float(pos.sum())
    out = []
    for a, b in zip(tp.tolist(), fp.tolist(), strict=True):
        out.append([a, b, a / (a + b) if a + b > 0 else 0.0, a / p if p > 0 else 0.0])
    return out


def _ids(backend: BackendProtocol, ids: npt.NDArray[np.int64] | None) -> npt.NDArray[np.int64]:
    if ids is None:
        return np.arange(backend.n_examples, dtype=np.int64)
    return np.asarray(ids, dtype=np.int64)
