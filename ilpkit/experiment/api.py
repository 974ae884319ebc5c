"""The Python API: the CLI's commands as functions.

>>> import ilpkit
>>> model = ilpkit.learn("trains", settings={"nodes": 50})             # ilpkit learn
>>> [str(r.clause) for r in ilpkit.explain(model)]                      # doctest: +SKIP
>>> ilpkit.predict(model, "trains").scores                              # doctest: +SKIP
>>> results = ilpkit.cv("trains", folds=5, settings={"nodes": 30}, out="runs/trains")
>>> results["summary"]["aurpc"]["mean"]                               # doctest: +SKIP

``learn``, ``predict``, ``explain`` and ``cv`` take the same choices as the commands of the
same names; ``run`` takes a :class:`~ilpkit.experiment.config.RunConfig` (or the path of a TOML
file) as ``ilpkit run`` does. Every one composes its run through :mod:`ilpkit.experiment.compose`,
so a search or scorer left unset is the learner's prescribed one (Gleaner: rrr with pr),
else the data's Aleph ``search``/``evalfn`` setting -- as on the command line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.learner import Model, Recorded, Rule
from ilpkit.core.search import Evaluated, Observer
from ilpkit.core.task import NEG, POS, Task
from ilpkit.errors import ConfigError, DataError
from ilpkit.experiment.config import RunConfig, load_config
from ilpkit.experiment.provenance import engine_record

__all__ = ["Predictions", "cv", "explain", "learn", "load_task", "predict", "run"]

if TYPE_CHECKING:
    from ilpkit.experiment.predictions import Predictions


def __getattr__(name: str) -> Any:
    if name == "Predictions":  # its own module: learn never builds one
        from ilpkit.experiment.predictions import Predictions

        return Predictions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run(
    config: RunConfig | str | Path,
    out: str | Path | None = None,
    *,
    resume: bool = False,
    trust_data: bool = False,
) -> dict[str, Any]:
    """Run the experiment ``config`` describes into ``out`` (default: its ``output`` key).

    ``trust_data`` turns the data safety checks off (``--trust-data``).  A configuration
    read from a file cannot: one recording ``trust_data = true`` (a run's config.toml) is
    refused unless ``trust_data=True`` is passed here; so is resuming a trusted run."""
    from ilpkit.experiment.config import apply_overrides
    from ilpkit.experiment.runs import check_recorded_trust, run_experiment, without_trust

    if not isinstance(config, RunConfig):
        recorded = load_config(config)
        check_recorded_trust(recorded, config, trusted=trust_data)
        config = without_trust(recorded)
    if trust_data:
        config = apply_overrides(config, ["backend.trust_data=true"], where="trust_data")
    target = out if out is not None else config.output
    if target is None:
        raise ConfigError("no output directory: pass out= or set the config's output")
    return run_experiment(config, target, resume=resume)  # composes the one Run


def cv(
    data: str | Path,
    *,
    out: str | Path,
    learner: str = "auto",
    search: str | None = None,
    scorer: str | None = None,
    combiner: str | None = None,
    backend: str = "native",
    executor: str = "local",
    parallel: str = "auto",
    folds: int | None = None,
    tune_folds: int = 0,
    repeats: int = 1,
    curve: list[int] | None = None,
    pu_label_frequency: float | None = None,
    pu_labelings: int | None = None,
    settings: dict[str, Any] | None = None,
    options: dict[str, dict[str, Any]] | None = None,
    seed: int = 0,
    data_format: str = "auto",
    stem: str | None = None,
    resume: bool = False,
    trust_data: bool = False,
) -> dict[str, Any]:
    """Cross-validate ``learner`` on ``data``; see ``ilpkit cv --help`` for each choice.

    ``settings`` override the data's Aleph settings; ``options`` maps a plugin kind
    (``"learner"``, ``"search"``, ``"scorer"``, ``"backend"``, ``"executor"``) to that
    plugin's options. ``learner`` ``"auto"``: ``aleph-tree`` for data that asks for Aleph's
    trees, else ``theory``. ``search``/``scorer`` left ``None``: the learner's, else the data's;
    ``combiner`` left ``None``: the learner's own combination.
    """
    from ilpkit.experiment.compose import run_config

    config = run_config(
        data,
        learner=learner,
        search=search,
        scorer=scorer,
        combiner=combiner,
        backend=backend,
        executor=executor,
        options=options,
        settings=settings,
        seed=seed,
        data_format=data_format,
        stem=stem,
        trust_data=trust_data,
        cv={
            "folds": folds,
            "tune_folds": tune_folds,
            "repeats": repeats,
            "curve": list(curve or []),
            "parallel": parallel,
            "pu_label_frequency": pu_label_frequency,
            "pu_labelings": pu_labelings,
        },
        where="cv()",
    )
    return run(config, out, resume=resume)


def learn(
    data: str | Path | Task,
    *,
    learner: str = "auto",
    search: str | None = None,
    scorer: str | None = None,
    combiner: str | None = None,
    backend: str = "native",
    executor: str | None = None,
    settings: Mapping[str, Any] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    seed: int = 0,
    data_format: str = "auto",
    stem: str | None = None,
    trust_data: bool = False,
    out: str | Path | None = None,
    observers: Sequence[Observer] = (),
    on_rule: Callable[[Evaluated], None] | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
    time_limit: float | None = None,
    on_plan: Callable[[int, str | None], None] | None = None,
    fold: str | None = None,
    evaluate: bool = True,
) -> Model:
    """Learn a model from ``data`` (a path, a bundled dataset's name, or a loaded
    :class:`~ilpkit.core.task.Task`, which is not changed), as ``ilpkit learn`` does.

    ``learner`` ``"auto"``: ``aleph-tree`` for data that asks for Aleph's trees (``evalfn``
    entropy or gini, or ``tree_type`` and ``dependent`` set), else ``theory``
    (:func:`ilpkit.experiment.compose.data_learner`).
    ``search``/``scorer`` left ``None``: the learner's prescribed ones, else the data's
    ``search``/``evalfn`` settings; a learner with its own search refuses another.
    ``combiner`` (a combiner plugin) combines a pool learner's clauses (gleaner,
    aleph-ensemble, single-theory, static-rf, pool) instead of its own combination.
    ``settings`` override the data's Aleph settings, ``options`` maps a plugin kind to that
    plugin's options. ``executor`` (``processes``, ``dask``) runs the learner's members
    (Gleaner seeds, ensemble theories) there; it needs ``data`` as a path, from which the
    workers read the task. ``out`` writes the model as JSON (:func:`ilpkit.core.learner.
    save_model`). ``observers`` see every evaluated clause, ``on_rule`` every rule kept,
    ``on_progress(done, total, what)`` every step (for progress displays).
    ``time_limit`` (seconds) stops the searches once passed (members run on an executor's
    workers too): the model holds what was found by then and its
    ``info["time_limit_reached"]`` says so. ``on_plan(planned, warning)`` hears, before
    learning, the most clauses the settings allow and a warning when that is very large
    (:mod:`ilpkit.core.budget`).  ``fold`` holds out that fold of the data (``test``,
    ``fold3``, or a folder of alternative splits), training on the others; without it the
    data's ``test`` fold is held out when it has one.  ``evaluate`` records the whole model's
    counts on the training and held-out examples in ``info["evaluation"]``
    (:mod:`ilpkit.experiment.whole_model`).
    """
    from ilpkit.core.bias_check import report
    from ilpkit.core.learner import default_train_ids
    from ilpkit.core.limits import goals_dropped, limits_exceeded
    from ilpkit.core.model_files import save_model
    from ilpkit.core.plugins import get_plugin_manager
    from ilpkit.core.search import time_limit as time_limit_of
    from ilpkit.core.timelimit import stop_requested
    from ilpkit.experiment.compose import Choices, Run, plugin_sections, run_config
    from ilpkit.experiment.learn_split import learn_split_for
    from ilpkit.experiment.whole_model import whole_model_counts

    manager = get_plugin_manager()
    config: RunConfig | Choices
    if isinstance(data, Task):
        if executor is not None:
            raise ConfigError(
                "learn(executor=...): pass the data as a path; workers read the task from it"
            )
        sections = plugin_sections(
            learner=learner,
            search=search,
            scorer=scorer,
            combiner=combiner,
            backend=backend,
            executor="local",
            options=options,
            trust_data=trust_data,
            where="learn()",
        )
        config = Choices.model_validate(
            {**sections, "seed": seed, "settings": dict(settings or {})}
        )
        run = Run.of(config, data, manager=manager, where="learn()")
    else:
        config = run_config(
            data,
            learner=learner,
            search=search,
            scorer=scorer,
            combiner=combiner,
            backend=backend,
            executor=executor or "local",
            options=options,
            settings=settings,
            seed=seed,
            data_format=data_format,
            stem=stem,
            trust_data=trust_data,
            where="learn()",
        )
        run = Run.of(config, manager=manager, where="learn()")
    config, task = run.config, run.task
    fitter = run.learner()
    if on_plan is not None:
        on_plan(*_plan(task, config.learner.name, fitter))
    with run.open_backend() as engine, time_limit_of(time_limit) as limit:
        pool = None
        if executor is not None:
            pool = manager.make("executor", config.executor.name, dict(config.executor.options))
        split = learn_split_for(task, fold)
        if split.note is not None:
            report([split.note])
        try:
            ctx = run.context(
                engine,
                train_ids=split.train,
                executor=pool,
                observers=observers,
                on_rule=on_rule,
                on_progress=on_progress,
            )
            model: Model = fitter.fit(task, ctx)
        finally:
            if pool is not None:
                pool.close()
        produced_by = engine_record(engine)
        evaluation = []
        if evaluate and stop_requested() is None:  # after a Ctrl-C, the model is what counts
            trained = default_train_ids(task) if split.train is None else split.train
            evaluation.append(whole_model_counts(model, engine, task, trained, "training"))
            if len(split.test):
                evaluation.append(
                    whole_model_counts(model, engine, task, split.test, split.test_name)
                )
    if isinstance(model, Recorded):
        model.info.update(
            {
                "data": task.name if isinstance(data, Task) else str(data),
                "backend": config.backend.name,
                "engine": produced_by,
                "search": config.search.name,
                "scorer": config.scorer.name,
                **({"combiner": config.combiner.name} if config.combiner.name != "auto" else {}),
                "settings": {k: _plain(v) for k, v in task.bias.settings.items()},
                "limits_exceeded": limits_exceeded(engine),
                "goals_dropped": goals_dropped(engine),
                "fold": fold,
                "held_out": split.test_name,
                **({"evaluation": evaluation} if evaluation else {}),
            }
        )
        if limit is not None and limit.reached:
            model.info["time_limit_reached"] = (
                f"stopped after the time limit of {limit.seconds:g} s: the model holds what "
                "was found by then"
            )
    if out is not None:
        save_model(model, out)
    return model


def _plan(task: Task, learner: str, fitter: Any) -> tuple[int, str | None]:
    from ilpkit.core.budget import large_search_warning, planned_clauses
    from ilpkit.core.learner import default_train_ids

    options = fitter.options.model_dump() if hasattr(fitter, "options") else {}
    train = default_train_ids(task)
    positives = int(np.sum(task.examples.labels[train] == POS))
    labelled = int(np.sum(np.isin(task.examples.labels[train], (POS, NEG))))
    planned = planned_clauses(task, learner, options, positives, labelled)
    return planned, large_search_warning(task, planned, positives, learner, options)


def _plain(value: object) -> object:
    if isinstance(value, float) and value == float("inf"):
        return "inf"
    return value if isinstance(value, (int, float, str, bool)) else str(value)


def load_task(
    path: str,
    data_format: str = "auto",
    stem: str | None = None,
    *,
    strict: bool = False,
    trust_data: bool = False,
) -> Task:
    """Read a dataset: a folder, a file stem, or the name of a bundled dataset.

    The data may only make ilpkit read files inside its folder (symbolic links resolved);
    ``trust_data=True`` (``--trust-data``) lets it read files anywhere. ``strict`` refuses
    clauses with a syntax error instead of skipping them; skipped ones are a ``UserWarning``
    (their count and the first one's place)."""
    from ilpkit.core.bias_check import warn_skipped_clauses
    from ilpkit.core.formats import load_task as _load
    from ilpkit.datasets import resolve_data_path

    task = _load(
        resolve_data_path(path), format=data_format, stem=stem, strict=strict, trust_data=trust_data
    )
    warn_skipped_clauses(task)  # a skipped clause changes what is learnt: said, not hidden
    return task


def _model(model: Model | str | Path) -> Model:
    from ilpkit.core.model_files import load_model

    return load_model(model) if isinstance(model, (str, Path)) else model


def _data(
    data: str | Path | Task, data_format: str, stem: str | None, trust_data: bool = False
) -> Task:
    if isinstance(data, Task):
        return data
    from ilpkit.core.formats import load_task
    from ilpkit.datasets import resolve_data_path

    return load_task(
        resolve_data_path(str(data)), format=data_format, stem=stem, trust_data=trust_data
    )


def _check_applies(fitted: Model, given: Model | str | Path, task: Task) -> None:
    """Refuse a model learnt for another target, or whose rules call predicates ``task``
    lacks: its scores there would all be 0 and look like a result."""
    from ilpkit.core.mismatch import check_model_predicates, check_model_target

    name = f"model {given}" if isinstance(given, (str, Path)) else "the model"
    target = fitted.to_json().get("target")
    check_model_target(target if isinstance(target, str) else None, task, name)
    check_model_predicates((r.clause for r in fitted.rules()), task, name)


def _engine(backend: str, options: Mapping[str, Any] | None, task: Task, trust_data: bool) -> Any:
    from ilpkit.experiment.compose import open_named_backend

    return open_named_backend(backend, options, task, trust_data=trust_data)


def predict(
    model: Model | str | Path,
    data: str | Path | Task,
    *,
    backend: str = "native",
    backend_options: Mapping[str, Any] | None = None,
    data_format: str = "auto",
    stem: str | None = None,
    trust_data: bool = False,
) -> Predictions:
    """Score every example of ``data`` with ``model`` (a model or its JSON file), as
    ``ilpkit predict`` does, on a fresh ``backend`` loaded with ``data``."""
    from ilpkit.core.limits import limits_exceeded

    fitted = _model(model)
    task = _data(data, data_format, stem, trust_data)
    _check_applies(fitted, model, task)
    with _engine(backend, backend_options, task, trust_data) as engine:
        scores = np.asarray(fitted.score(engine), dtype=np.float64)
        predicted = np.asarray(fitted.predict(engine), dtype=bool)
        limits = limits_exceeded(engine)
    from ilpkit.experiment.predictions import Predictions

    return Predictions(task, scores, predicted, limits, *_learnt_from(fitted, data, task))


def _learnt_from(
    fitted: Model, data: str | Path | Task, task: Task
) -> tuple[npt.NDArray[np.int64] | None, npt.NDArray[np.int64] | None, bool]:
    """Which examples of ``task`` the model learnt from and which it held out, when ``data``
    is the data it was learnt from (its ``info`` says); and whether its info names its data
    at all (models saved before it did, and other learners' files, may not)."""
    from ilpkit.core.learner import default_train_ids
    from ilpkit.experiment.learn_split import learn_split_for

    info = fitted.to_json().get("info") or {}
    recorded = info.get("data") if isinstance(info, dict) else None
    if not isinstance(recorded, str):
        return None, None, False
    if not _same_data(recorded, data, task):
        return None, None, True
    fold = info.get("fold")
    try:
        split = learn_split_for(task, fold if isinstance(fold, str) else None)
    except ConfigError:  # the data's folds changed since: say nothing rather than guess
        return None, None, True
    trained = default_train_ids(task) if split.train is None else split.train
    return trained, split.test, True


def _same_data(recorded: str, data: str | Path | Task, task: Task) -> bool:
    if isinstance(data, Task):
        return recorded == task.name
    if recorded == str(data):
        return True
    from ilpkit.datasets import resolve_data_path

    try:
        return (
            Path(resolve_data_path(recorded)).resolve()
            == Path(resolve_data_path(str(data))).resolve()
        )
    except (OSError, ConfigError, DataError):
        return False


def explain(
    model: Model | str | Path,
    data: str | Path | Task | None = None,
    *,
    backend: str = "native",
    backend_options: Mapping[str, Any] | None = None,
    data_format: str = "auto",
    stem: str | None = None,
    trust_data: bool = False,
) -> list[Rule]:
    """``model``'s rules with their precision, recall and TP/FP counts: those measured in
    training, or, given ``data``, recomputed on all of its examples (``ilpkit explain``)."""
    from ilpkit.core.learner import rule_stats

    fitted = _model(model)
    rules = fitted.rules()
    if data is None:
        return rules
    task = _data(data, data_format, stem, trust_data)
    _check_applies(fitted, model, task)
    with _engine(backend, backend_options, task, trust_data) as engine:
        return rule_stats(task, engine, [r.clause for r in rules], task.examples.ids)
