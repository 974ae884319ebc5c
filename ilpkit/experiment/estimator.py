"""A scikit-learn-style estimator around ilpkit's plugins, for notebooks.

>>> from ilpkit import ILPEstimator, load_task
>>> task = load_task("trains")
>>> est = ILPEstimator(search="topdown", scorer="laplace", settings={"nodes": 50}).fit(task)
>>> est.predict_proba()[:, 1]                                          # doctest: +SKIP

It follows scikit-learn's conventions (constructor arguments stored unchanged,
``get_params``/``set_params``, fitted attributes ending in ``_``) without depending on
scikit-learn.  Examples are addressed by their ids in the fitted task, or given as another
:class:`~ilpkit.core.task.Task` with the same background (a held-out split), which is loaded
into a fresh backend.

For scikit-learn's model selection (``cross_val_score``, ``GridSearchCV``, ``Pipeline``), bind
the data at construction (``task=`` a Task, a dataset name or a folder) and pass examples as
``X`` -- their ids in that task or their atoms (``"advisedby(person1,person2)"``) -- with the
labels as ``y`` (1/True = positive)::

    est = ILPEstimator(task="uwcse", settings={"i": 2, "nodes": 100})
    cross_val_score(est, ids, labels, cv=3)      # score: area under the PR curve

``predict_proba`` calibrates the model's scores on its training examples by isotonic
regression with a Laplace-style prior, unless the model has its own probabilities.

``random_state`` is scikit-learn's name for the seed of every random choice (RRR's restarts,
Gleaner's seed examples, ensembles' samples). An int fixes it: the same int gives the same
model, the one ``ilpkit learn --seed INT`` learns. The default is 0, not scikit-learn's usual
None, so that an estimator left at its defaults is reproducible and learns what the command
line learns. ``None`` draws a fresh seed at each ``fit`` from numpy's global random state
(so ``np.random.seed`` fixes it, as for scikit-learn's own estimators); a
``numpy.random.RandomState`` or ``Generator`` gives one draw per ``fit``. The seed a fit used
is its ``seed_``. ``seed``, the old name, still works but is deprecated (a ``FutureWarning``
at ``fit``).
"""

from __future__ import annotations

import functools
import inspect
import numbers
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.calibration import Isotonic, isotonic_fit
from ilpkit.core.learner import Model, Probabilistic
from ilpkit.core.task import NEG, POS, Task
from ilpkit.errors import ConfigError

Examples = npt.ArrayLike | Task | None


RandomState = int | np.integer[Any] | np.random.RandomState | np.random.Generator | None
"""What ``random_state`` takes: scikit-learn's kinds, and a numpy ``Generator``."""

DEFAULT_RANDOM_STATE: int = 0
"""``random_state``'s default: the seed ``ilpkit learn`` and ``ilpkit cv`` default to."""

_SEEDS = 2**31
"""Seeds drawn for ``random_state=None`` or a numpy random state: 0 <= seed < 2**31 (31 bits,
as :func:`ilpkit.core.learner.derive_seed`)."""


def _as_int(value: object) -> int | None:
    """``value`` as an int if it is one (a numpy integer too; not a bool), else None."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return None


class EstimatorInputError(ConfigError, ValueError):
    """Bad ``X`` or ``y``: a :class:`ConfigError` for ilpkit (exit 2 on the command line) and
    a ``ValueError`` for scikit-learn, whose model selection and checks expect one."""


class ILPEstimator:
    """Learner + search + scorer + backend, fitted on a task.

    ``search``/``scorer`` left ``None`` are the learner's prescribed ones, else the data's
    Aleph settings (as ``ilpkit learn``); ``combiner`` combines a pool learner's clauses
    (``--combiner``); the run is composed by :mod:`ilpkit.experiment.compose`.
    ``random_state`` seeds every random choice (an int, default 0 as ``ilpkit learn``; None:
    a fresh seed per fit; a numpy ``RandomState``/``Generator``: one draw per fit); ``seed``
    is its deprecated old name.
    """

    def __init__(
        self,
        learner: str = "theory",
        search: str | None = None,
        scorer: str | None = None,
        backend: str = "native",
        settings: dict[str, Any] | None = None,
        learner_options: dict[str, Any] | None = None,
        search_options: dict[str, Any] | None = None,
        scorer_options: dict[str, Any] | None = None,
        backend_options: dict[str, Any] | None = None,
        seed: int | None = None,
        task: Task | str | None = None,
        combiner: str | None = None,
        combiner_options: dict[str, Any] | None = None,
        random_state: RandomState = DEFAULT_RANDOM_STATE,
    ) -> None:
        self.learner = learner
        self.search = search
        self.scorer = scorer
        self.backend = backend
        self.settings = settings
        self.learner_options = learner_options
        self.search_options = search_options
        self.scorer_options = scorer_options
        self.backend_options = backend_options
        self.seed = seed
        self.task = task
        self.combiner = combiner
        self.combiner_options = combiner_options
        self.random_state = random_state

    # -- scikit-learn parameter protocol -------------------------------------------------------
    @classmethod
    def _param_names(cls) -> list[str]:
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> ILPEstimator:
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"invalid parameter {name!r} for ILPEstimator; valid: {', '.join(valid)}"
                )
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {
            p.name: p.default
            for p in inspect.signature(type(self).__init__).parameters.values()
            if p.name != "self"
        }
        changed = [f"{k}={v!r}" for k, v in self.get_params().items() if v != defaults[k]]
        return f"ILPEstimator({', '.join(changed)})"

    # -- scikit-learn's estimator tags -----------------------------------------------------------
    _estimator_type = "classifier"  # scikit-learn < 1.6

    def __sklearn_tags__(self) -> Any:
        """A binary classifier whose ``X`` is a 1-d array of example ids or atoms (strings)."""
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(multi_class=False),
            input_tags=InputTags(one_d_array=True, two_d_array=False, string=True),
        )

    # -- fitting ---------------------------------------------------------------------------------
    def fit(self, X: Task | npt.ArrayLike, y: npt.ArrayLike | None = None) -> ILPEstimator:
        """Learn a model.

        ``fit(task)`` / ``fit(task, train_ids)``: from ``task``'s ``train`` fold, or the
        examples ``train_ids``, with the task's own labels.  ``fit(X, y)``: from the examples
        ``X`` (ids or atoms) of the task bound at construction, labelled by ``y``; neither
        ``X``, ``y`` nor that task is changed.
        """
        if isinstance(X, Task):
            self._fit_task(X, None if y is None else np.asarray(y, dtype=np.int64))
            self.classes_ = np.array([False, True])
            return self
        if y is None:
            raise EstimatorInputError("ILPEstimator.fit(X, y): y (the labels of X) is required")
        task = self._bound_task()
        ids = self._ids(X, task)
        labels = np.asarray(y)
        if labels.ndim != 1 or len(labels) != len(ids):
            raise EstimatorInputError(
                f"ILPEstimator.fit: y has shape {labels.shape}; expected ({len(ids)},), one "
                "label per example of X"
            )
        classes = _check_labels(labels)
        positive = _positive_mask(labels, classes)
        from dataclasses import replace

        new_labels = task.examples.labels.copy()
        new_labels[ids] = np.where(positive, POS, NEG)
        relabelled = replace(task, examples=replace(task.examples, labels=new_labels))
        self._fit_task(relabelled, ids)
        self.classes_ = classes
        return self

    def score(self, X: npt.ArrayLike, y: npt.ArrayLike) -> float:
        """Area under the precision-recall curve of ``decision_function(X)`` against ``y``
        (not accuracy: on skewed data, predicting "negative" everywhere is accurate)."""
        from ilpkit.core.metrics import aurpc, pr_points_from_scores

        labels = np.asarray(y)
        classes = getattr(self, "classes_", np.unique(labels))
        positive = _positive_mask(labels, classes).astype(np.int64)
        return float(aurpc(pr_points_from_scores(self.decision_function(X), positive)))

    def _bound_task(self) -> Task:
        if self.task is None:
            raise ConfigError(
                "ILPEstimator.fit(X, y) needs the data bound at construction: "
                "ILPEstimator(task=<Task, dataset name or folder>, ...)"
            )
        if isinstance(self.task, Task):
            return self.task
        return _load_bound(str(self.task))

    def _ids(self, X: Any, task: Task) -> npt.NDArray[np.int64]:
        """Example ids of ``X``: ids as given, or atoms (terms or their text) looked up."""
        items = np.asarray(X, dtype=object)
        if items.ndim == 2 and items.shape[1] == 1:
            items = items[:, 0]
        if items.ndim != 1:
            raise EstimatorInputError(
                f"ILPEstimator: X has shape {items.shape}; expected a 1-d array of example "
                "ids or atoms"
            )
        if len(items) and all(isinstance(v, (int, np.integer)) for v in items):
            ids = items.astype(np.int64)
            bad = ids[(ids < 0) | (ids >= len(task.examples))]
            if len(bad):
                raise EstimatorInputError(
                    f"ILPEstimator: example id {int(bad[0])} is not in {task.name} "
                    f"(ids 0..{len(task.examples) - 1})"
                )
            return ids
        index = {str(a): i for i, a in enumerate(task.examples.atoms)}
        out = []
        for v in items:
            i = index.get(str(v).strip().removesuffix("."))
            if i is None:
                raise EstimatorInputError(
                    f"ILPEstimator: {v} is not an example of {task.name} (X holds example "
                    "ids or atoms of the bound task)"
                )
            out.append(i)
        return np.asarray(out, dtype=np.int64)

    def _fit_task(self, task: Task, train_ids: npt.NDArray[np.int64] | None) -> ILPEstimator:
        """Learn a model from ``task`` (its ``train`` fold, or ``train_ids`` when given)."""
        from ilpkit.core.learner import default_train_ids
        from ilpkit.core.plugins import get_plugin_manager
        from ilpkit.experiment.compose import Choices, Run, plugin_sections

        manager = get_plugin_manager()
        sections = plugin_sections(
            learner=self.learner,
            search=self.search,
            scorer=self.scorer,
            combiner=self.combiner,
            backend=self.backend,
            executor="local",
            options={
                "learner": self.learner_options or {},
                "search": self.search_options or {},
                "scorer": self.scorer_options or {},
                "combiner": self.combiner_options or {},
                "backend": self.backend_options or {},
            },
            where="ILPEstimator",
        )
        self.seed_: int = self._fit_seed()
        choices = Choices.model_validate(
            {**sections, "seed": self.seed_, "settings": dict(self.settings or {})}
        )
        run = Run.of(choices, task, manager=manager, where="ILPEstimator")
        task = run.task  # with the settings applied: the caller's task is not changed
        ids = (
            default_train_ids(task) if train_ids is None else np.asarray(train_ids, dtype=np.int64)
        )
        self.close()
        engine = run.open_backend()
        self.task_: Task = task
        self.backend_: Any = engine
        self.model_: Model = run.fit(engine, train_ids=ids)
        labelled = ids[np.isin(task.examples.labels[ids], (POS, NEG))]
        self.calibration_: Isotonic = isotonic_fit(
            self.model_.score(engine, labelled),
            task.examples.labels[labelled] == POS,
            prior=1.0,
        )
        return self

    def _fit_seed(self) -> int:
        """The seed of this fit: ``random_state``'s (or the deprecated ``seed``'s)."""
        state = self.random_state
        if self.seed is not None:
            warnings.warn(
                "ILPEstimator(seed=...) is deprecated and will be removed; use "
                "random_state=..., scikit-learn's name (same meaning for an int)",
                FutureWarning,
                stacklevel=4,
            )
            if _as_int(state) not in (DEFAULT_RANDOM_STATE, self.seed):
                raise EstimatorInputError(
                    f"ILPEstimator: seed={self.seed!r} and random_state={state!r} are both "
                    "given; seed is the deprecated name of random_state: give random_state only"
                )
            state = self.seed
        return seed_of(state)

    # -- predictions -----------------------------------------------------------------------------
    def decision_function(self, examples: Examples = None) -> npt.NDArray[np.float64]:
        """The model's ranking score of each example (higher = more likely positive)."""
        backend, ids, close = self._resolve(examples)
        try:
            return np.asarray(self.model_.score(backend, ids), dtype=np.float64)
        finally:
            close()

    def predict(self, examples: Examples = None) -> npt.NDArray[Any]:
        """The model's own classification of each example: True/False, or after
        ``fit(X, y)`` the classes of ``y`` (``classes_[1]`` for positive)."""
        backend, ids, close = self._resolve(examples)
        try:
            predicted = np.asarray(self.model_.predict(backend, ids), dtype=bool)
        finally:
            close()
        classes = getattr(self, "classes_", None)
        if classes is None:
            return predicted
        if len(classes) == 1:
            return np.full(len(predicted), classes[0])
        return np.asarray(classes[predicted.astype(np.int64)])

    def predict_proba(self, examples: Examples = None) -> npt.NDArray[np.float64]:
        """Columns P(negative), P(positive), scikit-learn's layout."""
        backend, ids, close = self._resolve(examples)
        try:
            if isinstance(self.model_, Probabilistic):
                positive = np.asarray(self.model_.predict_proba(backend, ids), dtype=np.float64)
            else:
                positive = self.calibration_(self.model_.score(backend, ids))
        finally:
            close()
        return np.column_stack([1.0 - positive, positive])

    def _resolve(self, examples: Examples) -> tuple[Any, npt.NDArray[np.int64] | None, Any]:
        if not hasattr(self, "model_"):
            raise _not_fitted_error()
        if isinstance(examples, Task):
            from ilpkit.experiment.compose import open_named_backend

            engine = open_named_backend(self.backend, self.backend_options, examples)
            return engine, examples.examples.ids, engine.close
        if examples is None:
            return self._engine(), None, lambda: None
        return self._engine(), self._ids(examples, self.task_), lambda: None

    def _engine(self) -> Any:
        """The fitted task's backend, opened again after unpickling (:meth:`__getstate__`)."""
        if self.backend_ is None:
            from ilpkit.experiment.compose import open_named_backend

            self.backend_ = open_named_backend(self.backend, self.backend_options, self.task_)
        return self.backend_

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the fitted backend: an engine (Prolog processes, compiled kernels)
        does not pickle, and the task and model are enough to open it again."""
        state = self.__dict__.copy()
        if "backend_" in state:
            state["backend_"] = None
        return state

    def close(self) -> None:
        """Release the fitted backend (Prolog processes, caches)."""
        engine = getattr(self, "backend_", None)
        if engine is not None:
            engine.close()


def seed_of(random_state: object) -> int:
    """The seed a fit uses for ``random_state``: an int as it is; None, one drawn from numpy's
    global random state (``np.random.seed`` fixes it, as for scikit-learn's None); a
    ``RandomState`` or ``Generator``, one drawn from it (each fit draws anew).  Anything else
    is an :class:`EstimatorInputError` (a ``ValueError``)."""
    as_int = _as_int(random_state)
    if as_int is not None:
        return as_int
    if random_state is None:  # numpy's global random state, as scikit-learn's None
        return int(np.random.randint(_SEEDS))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(_SEEDS))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(_SEEDS))
    raise EstimatorInputError(
        f"ILPEstimator: random_state={random_state!r}; expected an int, None, or a "
        "numpy.random.RandomState or Generator"
    )


def _check_labels(labels: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The two classes of ``y``, or :class:`EstimatorInputError`: ILPEstimator needs both a
    positive and a negative class, given as True/False, 1/0 or 1/-1 (1 = positive)."""
    if len(labels) == 0:
        raise EstimatorInputError("ILPEstimator.fit: X and y are empty; no example to learn from")
    kind = labels.dtype.kind
    if kind == "f" and not np.all(np.isfinite(labels)):
        raise EstimatorInputError("ILPEstimator.fit: y holds NaN or infinity; labels are 1/0")
    if kind == "b":
        classes = np.unique(labels)
    elif kind in "iu" or (kind == "f" and np.all(labels == np.round(labels))):
        classes = np.unique(labels)
        if not (set(classes.tolist()) <= {0, 1} or set(classes.tolist()) <= {-1, 1}):
            shown = ", ".join(f"{c:g}" for c in classes[:5].tolist())
            raise EstimatorInputError(
                f"Unknown label type: y holds {shown}; ILPEstimator is a binary classifier "
                "whose labels are 1/0, 1/-1 or True/False (1 = positive)"
            )
    else:
        raise EstimatorInputError(
            f"Unknown label type: y has dtype {labels.dtype}; ILPEstimator is a binary "
            "classifier whose labels are 1/0, 1/-1 or True/False (1 = positive)"
        )
    if len(classes) < 2:
        raise EstimatorInputError(
            f"ILPEstimator.fit: y has only one class ({classes[0].item()!r}); it needs positive "
            "and negative examples"
        )
    return classes


def _positive_mask(labels: npt.NDArray[Any], classes: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """Which labels are the positive class: True/1, else the larger of two classes."""
    if labels.dtype == bool:
        return labels.astype(bool)
    positive = classes[-1] if len(classes) else 1
    if len(classes) == 1 and classes[0] in (0, False):
        return np.zeros(len(labels), dtype=bool)
    return np.asarray(labels == positive, dtype=bool)


_BOUND: dict[str, Task] = {}


def _load_bound(name: str) -> Task:
    """A bound dataset read once per process (clones and folds share it; fits copy labels)."""
    if name not in _BOUND:
        from ilpkit.experiment.api import load_task

        _BOUND[name] = load_task(name)
    return _BOUND[name]


@functools.cache
def _not_fitted_class() -> type[ConfigError]:
    """ConfigError, and scikit-learn's NotFittedError too when scikit-learn is installed."""
    try:
        from sklearn.exceptions import NotFittedError
    except ImportError:
        return ConfigError

    class NotFitted(ConfigError, NotFittedError):  # type: ignore[misc]
        """An ILPEstimator used before ``fit``."""

    return NotFitted


def _not_fitted_error() -> ConfigError:
    return _not_fitted_class()(
        "this ILPEstimator is not fitted yet; call fit(task) or fit(X, y) first"
    )
