"""A scikit-learn-style estimator around ilpkit's plugins, for notebooks.

>>> from ilpkit import ILPEstimator, load_task
>>> task = load_task("trains")
>>> est = ILPEstimator(search="topdown", scorer="laplace", settings={"nodes": 50}).fit(task)
>>> est.predict_proba()[:, 1]                                          # doctest: +SKIP

It follows scikit-learn's conventions (constructor arguments stored unchanged,
``get_params``/``set_params``, fitted attributes ending in ``_``) without depending on
scikit-learn.  Examples are addressed by their ids in the fitted task, or given as another
:class:`~ilpkit.core.task.Task` with the same background (a held-out split), which is loaded
into a fresh backend.  ``predict_proba`` calibrates the model's scores on its training
examples by isotonic regression with a Laplace-style prior, unless the model has its own
probabilities.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.calibration import Isotonic, isotonic_fit
from ilpkit.core.errors import ConfigError
from ilpkit.core.learner import Model, Probabilistic
from ilpkit.core.task import NEG, POS, Task

Examples = npt.ArrayLike | Task | None


class ILPEstimator:
    """Learner + search + scorer + backend, fitted on a task.

    ``search``/``scorer`` left ``None`` are the learner's prescribed ones, else the data's
    Aleph settings (as ``ilpkit learn``); the run is composed by :mod:`ilpkit.core.compose`.
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
        seed: int = 0,
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

    # -- fitting ---------------------------------------------------------------------------------
    def fit(self, task: Task, train_ids: npt.ArrayLike | None = None) -> ILPEstimator:
        """Learn a model from ``task`` (its ``train`` fold, or ``train_ids`` when given)."""
        from ilpkit.core.compose import (
            Choices,
            make_context,
            make_learner,
            open_backend,
            plugin_sections,
            resolve,
            with_settings,
        )
        from ilpkit.core.config import resolve_plugins
        from ilpkit.core.learner import default_train_ids
        from ilpkit.core.plugins import get_plugin_manager

        manager = get_plugin_manager()
        sections = plugin_sections(
            learner=self.learner,
            search=self.search,
            scorer=self.scorer,
            backend=self.backend,
            executor="local",
            options={
                "learner": self.learner_options or {},
                "search": self.search_options or {},
                "scorer": self.scorer_options or {},
                "backend": self.backend_options or {},
            },
            where="ILPEstimator",
        )
        choices = Choices.model_validate(
            {**sections, "seed": self.seed, "settings": dict(self.settings or {})}
        )
        resolve_plugins(choices, manager, where="ILPEstimator")
        task = with_settings(task, choices.settings)  # the caller's task is not changed
        choices = resolve(choices, task, manager=manager, where="ILPEstimator")
        ids = (
            default_train_ids(task) if train_ids is None else np.asarray(train_ids, dtype=np.int64)
        )
        self.close()
        engine = open_backend(choices, task, manager)
        ctx = make_context(choices, task, engine, train_ids=ids, manager=manager)
        learner = make_learner(choices, manager)
        self.task_: Task = task
        self.backend_: Any = engine
        self.model_: Model = learner.fit(task, ctx)
        labelled = ids[np.isin(task.examples.labels[ids], (POS, NEG))]
        self.calibration_: Isotonic = isotonic_fit(
            self.model_.score(engine, labelled),
            task.examples.labels[labelled] == POS,
            prior=1.0,
        )
        return self

    # -- predictions -----------------------------------------------------------------------------
    def decision_function(self, examples: Examples = None) -> npt.NDArray[np.float64]:
        """The model's ranking score of each example (higher = more likely positive)."""
        backend, ids, close = self._resolve(examples)
        try:
            return np.asarray(self.model_.score(backend, ids), dtype=np.float64)
        finally:
            close()

    def predict(self, examples: Examples = None) -> npt.NDArray[np.bool_]:
        """The model's own classification of each example."""
        backend, ids, close = self._resolve(examples)
        try:
            return np.asarray(self.model_.predict(backend, ids), dtype=bool)
        finally:
            close()

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
            raise ConfigError("this ILPEstimator is not fitted yet; call fit(task) first")
        if isinstance(examples, Task):
            from ilpkit.core.compose import open_named_backend

            engine = open_named_backend(self.backend, self.backend_options, examples)
            return engine, examples.examples.ids, engine.close
        ids = None if examples is None else np.asarray(examples, dtype=np.int64)
        return self.backend_, ids, lambda: None

    def close(self) -> None:
        """Release the fitted backend (Prolog processes, caches)."""
        engine = getattr(self, "backend_", None)
        if engine is not None:
            engine.close()
