"""Cross-validation experiments: folds with train/tune/test roles, repeats, learning curves.

An experiment is a :class:`~ilpkit.experiment.config.RunConfig` cut into *units*, one per
(repeat, fold).  A unit is plain data (the config, two integers); :func:`run_unit` runs it
anywhere -- in this process, in a worker process, on a Dask worker -- and returns a
:class:`UnitResult` of plain data, so results are identical whichever executor ran them.
Every random choice of a unit is seeded from ``(config.seed, repeat, fold)``, never from the
worker.

Folds.  ``cv.folds = K`` deals the examples into K stratified folds with a seed derived from
``(seed, repeat)``; unset, the data's own folds are used (UW-CSE's five areas), or, for data
split into ``train``/``test`` only, that single split, or, for data whose folds are
``<folder>/train`` and ``<folder>/test`` (srlearn's ``fold1/train`` ...), one unit per
folder.  Unit ``k`` tests on fold ``k``, tunes on the ``cv.tune_folds`` folds after it
(cyclically) and trains on the rest, as in the dissertation's 3 train + 1 tune + 1 test
protocol.

Workers keep the task and the loaded backend of the last configuration they saw, so a
process loads its engine once per task, not once per unit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.degenerate import recorded_notes
from ilpkit.core.learner import Model, PointClassifiers, Probabilistic, Snapshots
from ilpkit.core.limits import goals_dropped, limits_exceeded
from ilpkit.core.metrics import (
    accuracy,
    auroc,
    aurpc,
    f1,
    mean_cross_entropy,
    pr_points_from_counts,
)
from ilpkit.core.metrics import pr_points_from_scores as pr_points
from ilpkit.core.task import NEG, POS, Task, stratified_folds
from ilpkit.errors import ConfigError, DataError
from ilpkit.experiment.compose import (
    WORKER_CACHE,
    Run,
    derive_seed,
    learner_capabilities,
    open_task,
)
from ilpkit.experiment.compose import (
    worker_context as worker_context,  # re-exported: learners written before compose.py
)
from ilpkit.experiment.config import RunConfig
from ilpkit.experiment.learn_split import (  # noqa: F401  (learn_split* re-exported)
    SPLIT_NAMES,
    LearnSplit,
    _grouped_splits,
    learn_split,
    learn_split_for,
)
from ilpkit.experiment.provenance import engine_record
from ilpkit.prolog.terms import to_prolog

"""Fold names that are roles of a fixed split rather than cross-validation folds."""

PROBABILITY_FLOOR = 1e-3
"""Floor of probabilities in the mean cross entropy (gleanersrl sec. 3's prob_min), unless
the model tuned its own (``model.probability_floor``: GleanerSRL)."""


@dataclass(frozen=True)
class Split:
    """One unit's roles: the example ids it trains, tunes and tests on."""

    name: str
    train: npt.NDArray[np.int64]
    tune: npt.NDArray[np.int64]
    test: npt.NDArray[np.int64]


@dataclass(frozen=True)
class Unit:
    """One (repeat, fold) of an experiment: picklable, runnable anywhere."""

    config: RunConfig
    repeat: int
    fold: int

    @property
    def key(self) -> str:
        return f"r{self.repeat}-f{self.fold}"


@dataclass
class UnitResult:
    """What one unit measured, as plain data (JSON-ready)."""

    key: str
    repeat: int
    fold: int
    fold_name: str
    seed: int
    n_train: int
    n_tune: int
    n_test: int
    metrics: dict[str, float]
    test_ids: list[int]
    labels: list[int]
    scores: list[float]
    curve: list[dict[str, float]] = field(default_factory=list)
    clauses_evaluated: int = 0
    seconds: float = 0.0
    model: dict[str, Any] = field(default_factory=dict)
    limits_exceeded: int = 0
    """Clauses of the unit's searches that exceeded a resource limit (scored as covering
    nothing; see :func:`ilpkit.core.limits.note_limit`)."""
    goals_dropped: int = 0
    """Mode goals the unit's saturations dropped over a resource limit."""
    probabilities: bool = False
    """Whether ``scores`` are calibrated probabilities (GleanerSRL): reports then draw a
    reliability diagram."""
    engine: dict[str, str] = field(default_factory=dict)
    """What computed the unit (:func:`ilpkit.experiment.provenance.engine_record`)."""
    n_rules: int | None = None
    """Rules of the unit's model (0: the theory is empty; None: a run from before this was
    recorded)."""
    predicted_positive: int | None = None
    """Test examples the model predicted positive (equal to ``n_test`` or 0: one class for
    all, :func:`ilpkit.core.degenerate.one_class`; None: a run from before this was
    recorded)."""
    degenerate: list[str] = field(default_factory=list)
    """What the learner recorded as degenerate about the unit's model (its ``info``,
    :func:`ilpkit.core.degenerate.recorded_notes`): kept here, as unit files hold no model."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UnitResult:
        return cls(**data)


# --------------------------------------------------------------------------------------------
# Seeds and folds
# --------------------------------------------------------------------------------------------


def fold_task(task: Task, config: RunConfig, repeat: int) -> Task:
    """``task`` with the folds of ``repeat``: stratified ones when ``cv.folds`` is set."""
    if config.cv.folds is None:
        return task
    return stratified_folds(task, config.cv.folds, seed=derive_seed(config.seed, "folds", repeat))


def splits(task: Task, config: RunConfig) -> list[Split]:
    """The train/tune/test roles of every unit of one repeat, in fold order; refuses a split
    whose test examples are also training examples (:func:`check_no_leak`)."""
    out = _splits(task, config)
    for split in out:
        check_no_leak(task, split)
    return out


def check_no_leak(task: Task, split: Split) -> None:
    """Raise :class:`DataError` when a test example's atom is also a training example of the
    unit: a fold layout that put the same example in two roles (e.g. a ``train_all`` file
    read as a fold) would otherwise report the score of a model tested on its training
    data.  Always on; the cost is one hash set of the training atoms."""
    atoms = task.examples.atoms
    train = {atoms[i] for i in split.train.tolist()}
    leaked = [i for i in split.test.tolist() if atoms[i] in train]
    if leaked:
        first = leaked[0]
        loc = task.examples.locations[first]
        raise DataError(
            f"{task.name}: unit {split.name!r} tests on {len(leaked)} of its "
            f"{len(split.test)} test examples that are also training examples (the first: "
            f"{to_prolog(atoms[first])}{f' at {loc}' if loc else ''}); the data's folds "
            "overlap. Fix the fold files, or set cv.folds=K to draw disjoint folds"
        )


def _splits(task: Task, config: RunConfig) -> list[Split]:
    folds = task.examples.folds
    names = task.fold_names
    cv_names = [n for n in names if n not in SPLIT_NAMES]
    if not cv_names:
        if "train" in names and "test" in names:
            return [_fixed_split(task)]
        raise ConfigError(
            f"{task.name}: the data has no folds; set cv.folds=K (e.g. --folds 5) to draw "
            "stratified ones"
        )
    k = len(cv_names)
    t = config.cv.tune_folds
    if t > k - 2:
        raise ConfigError(
            f"cv.tune_folds={t} leaves no training fold among {k} folds ({', '.join(cv_names)})"
        )
    grouped = _grouped_splits(names)
    if grouped is not None:
        return _group_splits(task, config, grouped)
    index = [names.index(n) for n in cv_names]
    unassigned = np.flatnonzero(folds < 0).astype(np.int64)
    out = []
    for i, name in enumerate(cv_names):
        tune_folds = {index[(i + j) % k] for j in range(1, t + 1)}
        test = np.flatnonzero(folds == index[i]).astype(np.int64)
        tune = np.flatnonzero(np.isin(folds, list(tune_folds))).astype(np.int64)
        train_mask = (folds >= 0) & (folds != index[i]) & ~np.isin(folds, list(tune_folds))
        train = np.union1d(np.flatnonzero(train_mask), unassigned).astype(np.int64)
        out.append(Split(name, train, tune, test))
    return out


def _group_splits(task: Task, config: RunConfig, groups: dict[str, dict[str, int]]) -> list[Split]:
    folds = task.examples.folds
    without_tune = [name for name, g in groups.items() if "tune" not in g]
    if config.cv.tune_folds and without_tune:
        raise ConfigError(
            f"{task.name}: the data's folds are fixed train/test splits per folder "
            f"({', '.join(groups)}) and {without_tune[0]} has no tune split; set "
            "cv.tune_folds=0 (--tune-folds 0; Gleaner then tunes on the training examples)"
        )

    def ids(group: dict[str, int], role: str) -> npt.NDArray[np.int64]:
        if role not in group:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(folds == group[role]).astype(np.int64)

    return [
        Split(name, ids(g, "train"), ids(g, "tune"), ids(g, "test")) for name, g in groups.items()
    ]


def _fixed_split(task: Task) -> Split:
    folds = task.examples.folds

    def ids(name: str) -> npt.NDArray[np.int64]:
        if name not in task.fold_names:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(folds == task.fold_names.index(name)).astype(np.int64)

    return Split("test", ids("train"), ids("tune"), ids("test"))


def plan(task: Task, config: RunConfig) -> list[Unit]:
    """Every unit of the experiment, repeats outermost."""
    n_folds = len(splits(fold_task(task, config, 0), config))
    return [Unit(config, r, k) for r in range(config.cv.repeats) for k in range(n_folds)]


# --------------------------------------------------------------------------------------------
# Running one unit
# --------------------------------------------------------------------------------------------


_CACHE = WORKER_CACHE

StepHook = Callable[[str, int, int, str], None]
_STEP_HOOK: list[StepHook] = []
"""Where units running in this process report their learner's steps (a progress bar);
empty in worker processes."""


@contextmanager
def reporting_steps(hook: StepHook | None) -> Iterator[None]:
    """While active, units run in this process call ``hook(unit_key, done, total, what)``
    after each learner step (see :attr:`LearnContext.on_progress`)."""
    if hook is None:
        yield
        return
    _STEP_HOOK.append(hook)
    try:
        yield
    finally:
        _STEP_HOOK.remove(hook)


load_configured_task = open_task
"""The config's dataset with its settings overrides
(:func:`ilpkit.experiment.compose.open_task`)."""


def run_unit(unit: Unit, members: Any = None) -> UnitResult:
    """Train on the unit's training folds, score its test fold, sample the learning curve.

    ``members``: an executor for the learner's own independent units (Gleaner seeds,
    ensemble theories); workers rebuild the task from ``unit.config``.
    """
    config = unit.config
    started = time.perf_counter()
    base = _CACHE.get_task(config)
    task = fold_task(base, config, unit.repeat)
    split = splits(task, config)[unit.fold]
    if config.cv.pu_label_frequency is not None:
        task = pu_task(task, split, config.cv.pu_label_frequency, config.seed, unit.repeat)
    labelled = split.test[np.isin(task.examples.labels[split.test], (POS, NEG))]
    no_positive = not np.any(task.examples.labels[split.train] == POS)
    if no_positive and config.cv.pu_label_frequency is None:
        raise DataError(f"{task.name}: unit {unit.key} has no positive training example")
    backend = _CACHE.get_backend(config, base)
    limits_before = limits_exceeded(backend)  # the backend is reused across units
    dropped_before = goals_dropped(backend)
    run = Run.of(config, base, resolved=True)  # resolved once, by run_experiment
    learner = run.learner()
    seed = derive_seed(config.seed, "unit", unit.repeat, unit.fold)
    ctx = run.context(
        backend,
        task,
        seed=seed,
        train_ids=split.train,
        tune_ids=split.tune,
        executor=members,
    )
    if _STEP_HOOK:
        hook = _STEP_HOOK[-1]
        ctx.on_progress = lambda done, total, what: hook(unit.key, done, total, what)
    model: Model = _no_label_model(task) if no_positive else learner.fit(task, ctx)
    labels = (task.examples.labels[labelled] == POS).astype(np.int64)
    scores = model.score(backend, labelled)
    metrics, predicted = _evaluate(model, backend, labelled, labels, scores)
    curve = []
    for budget in config.cv.curve:
        snapshot = model.at_budget(budget) if isinstance(model, Snapshots) else None
        if snapshot is None:
            break
        s = snapshot.score(backend, labelled)
        point = {"clauses": float(budget), **_ranking_metrics(s, labels)}
        point.update(_point_metrics(snapshot, backend, labelled, labels))
        curve.append(point)
    model_json = model.to_json()
    return UnitResult(
        key=unit.key,
        repeat=unit.repeat,
        fold=unit.fold,
        fold_name=split.name,
        seed=seed,
        n_train=len(split.train),
        n_tune=len(split.tune),
        n_test=len(labelled),
        metrics=metrics,
        test_ids=[int(i) for i in labelled],
        labels=[int(v) for v in labels],
        scores=[float(v) for v in scores],
        curve=curve,
        clauses_evaluated=int(model.clauses_evaluated),
        seconds=time.perf_counter() - started,
        model=model_json,
        n_rules=len(model.rules()),
        predicted_positive=int(predicted.sum()),
        degenerate=recorded_notes(model_json.get("info")),
        limits_exceeded=limits_exceeded(backend) - limits_before,
        goals_dropped=goals_dropped(backend) - dropped_before,
        engine=engine_record(backend),
        probabilities=bool(getattr(model, "scores_are_probabilities", False)),
    )


def _no_label_model(task: Task) -> Model:
    """The model of a PU unit with no labeled training positive: the empty theory, saying
    why (:data:`ilpkit.core.degenerate.PU_NO_LABELED_POSITIVE`)."""
    from ilpkit.core.degenerate import DEGENERATE, PU_NO_LABELED_POSITIVE
    from ilpkit.plugins.learners.theory import TheoryModel

    return TheoryModel([], target=task.target_name, info={DEGENERATE: [PU_NO_LABELED_POSITIVE]})


def pu_task(task: Task, split: Split, c: float, seed: int, repeat: int) -> Task:
    """``task`` with a PU labeling of the split's training and tune examples (repeat
    ``repeat`` draws its own; test labels stay true); see :func:`ilpkit.core.pu.pu_labels`."""
    from dataclasses import replace

    from ilpkit.core.pu import pu_labels
    from ilpkit.core.task import Examples

    ex = task.examples
    ids = np.union1d(split.train, split.tune).astype(np.int64)
    labels = pu_labels(ex.labels, ids, c, derive_seed(seed, "pu", repeat))
    examples = Examples(ex.atoms, labels, ex.weights, ex.folds, ex.locations)
    return replace(task, examples=examples, label_frequency=c)


def learner_has_members(config: RunConfig) -> bool:
    """Whether the config's learner declares members it may ship to an executor."""
    return learner_capabilities(config.learner.name, config.learner.options).has_members


def evaluate(
    model: Model,
    backend: Any,
    ids: npt.NDArray[np.int64],
    labels: npt.NDArray[np.int64],
    scores: npt.NDArray[np.float64],
) -> dict[str, float]:
    """AURPC, AUROC, and F1/accuracy of the model's own classification (plus MCE with
    probabilities) on the examples ``ids``."""
    return _evaluate(model, backend, ids, labels, scores)[0]


def _evaluate(
    model: Model,
    backend: Any,
    ids: npt.NDArray[np.int64],
    labels: npt.NDArray[np.int64],
    scores: npt.NDArray[np.float64],
) -> tuple[dict[str, float], npt.NDArray[np.bool_]]:
    """:func:`evaluate`'s metrics and the model's predictions they came from."""
    metrics = _ranking_metrics(scores, labels)
    metrics.update(_point_metrics(model, backend, ids, labels))
    predicted = np.asarray(model.predict(backend, ids), dtype=bool)
    p = float(labels.sum())
    n = float(len(labels) - labels.sum())
    tp = float(np.sum(predicted & (labels == 1)))
    fp = float(np.sum(predicted & (labels == 0)))
    metrics["f1"] = f1(tp, fp, p)
    metrics["accuracy"] = accuracy(tp, fp, p, n)
    if isinstance(model, Probabilistic) and len(labels):
        probs = np.asarray(model.predict_proba(backend, ids), dtype=np.float64)
        floor = float(getattr(model, "probability_floor", PROBABILITY_FLOOR))
        metrics["mce"] = mean_cross_entropy(probs, labels, floor)
    return metrics, predicted


def _point_metrics(
    model: Model, backend: Any, ids: npt.NDArray[np.int64], labels: npt.NDArray[np.int64]
) -> dict[str, float]:
    """AURPC over the model's own classifiers (Gleaner's per-bin theories, K-of-N votes),
    for models that define ``pr_counts``."""
    if not isinstance(model, PointClassifiers) or not 0 < labels.sum() < len(labels):
        return {}
    points = model.pr_counts(backend, ids, labels == 1)
    p, n = float(labels.sum()), float(len(labels) - labels.sum())
    return {"aurpc_points": aurpc(pr_points_from_counts(points, p, n))}


def _ranking_metrics(
    scores: npt.NDArray[np.float64], labels: npt.NDArray[np.int64]
) -> dict[str, float]:
    """AURPC and AUROC of a ranking; NaN where a class is missing from the test fold."""
    if labels.sum() == 0 or labels.sum() == len(labels):
        return {"aurpc": float("nan"), "auroc": float("nan")}
    return {
        "aurpc": aurpc(pr_points(scores, labels)),
        "auroc": auroc(scores, labels),
    }
