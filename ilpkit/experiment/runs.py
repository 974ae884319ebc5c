"""Run directories: an experiment's config, per-unit results, summary, report and plots.

Layout of ``RUN_DIR``::

    config.toml        the fully resolved RunConfig (``ilpkit run RUN_DIR/config.toml`` reruns)
    units/r0-f1.json   one file per finished unit: metrics, test scores, learning curve
    models/r0-f1.json  the model of that unit (``ilpkit explain`` / ``ilpkit predict`` read it)
    results.json       per-unit metrics, macro averages with standard deviations
    report.md          tables; plots/*.png and *.svg (PR, ROC and learning curves)

A unit's files are written as soon as it finishes, so an interrupted run keeps its finished
units and ``resume`` runs only the others. A run owns its directory: ``run_experiment`` holds
an exclusive lock on ``RUN_DIR/.lock`` (see :mod:`ilpkit.experiment.runlock`) from before its
first write to its end, so a second run on the same directory is refused.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ilpkit.core import lifecycle
from ilpkit.core.degenerate import one_class
from ilpkit.core.executor import Executor, WorkerLost, runs_in_process
from ilpkit.core.outpaths import check_output_dir
from ilpkit.errors import ConfigError, IlpkitError
from ilpkit.experiment.config import RunConfig, dump_config, load_config
from ilpkit.experiment.cv import (
    Unit,
    UnitResult,
    learner_has_members,
    plan,
    reporting_steps,
    run_unit,
)
from ilpkit.experiment.runlock import RunLock

METRICS = ("aurpc", "aurpc_points", "auroc", "f1", "accuracy", "mce")


class Interrupted(IlpkitError):
    """The user stopped a run; finished units are kept and ``--resume`` continues.

    ``exit_code`` is the shell's code of the signal (130 for Ctrl-C), which the CLI exits
    with."""

    def __init__(self, message: str, exit_code: int = 130) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class MetricSummary:
    mean: float
    std: float
    n: int

    def text(self) -> str:
        if self.n == 0 or math.isnan(self.mean):
            return "-"
        return f"{self.mean:.4f} ± {self.std:.4f}" if self.n > 1 else f"{self.mean:.4f}"


def summarize(units: Sequence[UnitResult]) -> dict[str, MetricSummary]:
    """Macro average and sample standard deviation of each metric over the units (NaNs,
    from test folds without one of the classes, are left out and counted out of ``n``)."""
    out: dict[str, MetricSummary] = {}
    for name in METRICS:
        values = np.array([u.metrics[name] for u in units if name in u.metrics], dtype=float)
        values = values[~np.isnan(values)]
        if values.size == 0:
            continue
        std = float(values.std(ddof=1)) if values.size > 1 else 0.0
        out[name] = MetricSummary(float(values.mean()), std, int(values.size))
    return out


class RunDirectory:
    """Reads and writes one run directory."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @property
    def config_file(self) -> Path:
        return self.path / "config.toml"

    def exists(self) -> bool:
        return self.config_file.is_file()

    def config(self) -> RunConfig:
        if not self.exists():
            raise ConfigError(f"{self.path}: not a run directory (no config.toml)")
        return load_config(self.config_file)

    def start(self, config: RunConfig) -> None:
        (self.path / "units").mkdir(parents=True, exist_ok=True)
        (self.path / "models").mkdir(exist_ok=True)
        saved = recorded(config).model_copy(update={"output": None})
        _atomic_write(self.config_file, dump_config(saved))

    def finished(self) -> set[str]:
        return {p.stem for p in (self.path / "units").glob("*.json")}

    def save_unit(self, result: UnitResult) -> None:
        data = result.to_json()
        model = data.pop("model")
        _atomic_write(self.path / "models" / f"{result.key}.json", json.dumps(model, indent=2))
        _atomic_write(self.path / "units" / f"{result.key}.json", json.dumps(data))

    def load_unit(self, key: str) -> UnitResult:
        path = self.path / "units" / f"{key}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise IlpkitError(f"{path}: cannot read a unit result ({exc})") from None
        return UnitResult.from_json({**data, "model": {}})

    def units(self) -> list[UnitResult]:
        """Every finished unit, in (repeat, fold) order."""
        results = [self.load_unit(key) for key in self.finished()]
        return sorted(results, key=lambda u: (u.repeat, u.fold))

    def results(self) -> dict[str, Any]:
        path = self.path / "results.json"
        if not path.is_file():
            raise ConfigError(f"{self.path}: no results.json (the run has not finished)")
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data


def run_experiment(
    config: RunConfig,
    out: str | Path,
    *,
    resume: bool = False,
    executor: Executor | None = None,
    on_unit: Callable[[UnitResult, int, int], None] | None = None,
    on_plan: Callable[[int, int], None] | None = None,
    on_step: Callable[[str, int, int, str], None] | None = None,
) -> dict[str, Any]:
    """Run every unit not yet in ``out``, then write results, report and plots.

    ``executor`` defaults to the config's executor plugin. ``on_plan(total, done)`` is told
    the number of units; ``on_unit(result, finished, total)`` each finished one;
    ``on_step(unit_key, done, total, what)`` each step (seed, theory, round) of a learner
    running in this process (not of units on other workers). Ctrl-C
    raises :class:`Interrupted` after the finished units are saved; a dead worker raises
    :class:`~ilpkit.core.executor.WorkerLost` saying how to resume. Another process running
    in ``out`` makes this raise :class:`~ilpkit.experiment.runlock.RunLocked` before any work.
    """
    config = with_absolute_data(config)
    run = RunDirectory(check_output_dir(out))
    with RunLock(run.path):
        return _run_owned(config, run, resume, executor, on_unit, on_plan, on_step)


def _run_owned(
    config: RunConfig,
    run: RunDirectory,
    resume: bool,
    executor: Any,
    on_unit: Callable[[UnitResult, int, int], None] | None,
    on_plan: Callable[[int, int], None] | None,
    on_step: Callable[[str, int, int, str], None] | None,
) -> dict[str, Any]:
    """:func:`run_experiment` once this process owns the run directory."""
    from ilpkit.core.plugins import get_plugin_manager
    from ilpkit.experiment.compose import WORKER_CACHE, Run
    from ilpkit.experiment.report import write_report

    if run.exists() and not resume:
        raise ConfigError(
            f"{run.path} already holds a run; pass --resume to continue it or choose another --out"
        )
    # options checked before the data is read, which is read once (units run here reuse it)
    run_ = Run.of(config, where="config", load=WORKER_CACHE.get_task)
    assert isinstance(run_.config, RunConfig)
    config, task = run_.config, run_.task
    if resume and run.exists():
        saved = run.config()
        if trusts_data(saved) and not trusts_data(config):
            raise ConfigError(_recorded_trust_message(run.config_file, saved))
        differences = config_differences(recorded(saved), recorded(config))
        if differences:
            raise ConfigError(
                f"{run.path}: --resume with a configuration that differs from the run's "
                f"config.toml in {', '.join(differences)}; resume with the same options (or "
                "no options: ilpkit cv --resume RUN_DIR)"
            )
    units = plan(task, config)
    run.start(config)
    done = run.finished()
    todo = [u for u in units if u.key not in done]
    if on_plan is not None:
        on_plan(len(units), len(units) - len(todo))
    own_executor = executor is None
    if executor is None:
        executor = get_plugin_manager().make(
            "executor", config.executor.name, dict(config.executor.options)
        )
    todo = _shipped(config, executor, todo)
    finished = len(units) - len(todo)
    try:
        with reporting_steps(on_step):
            for result in _results(config, executor, todo):
                run.save_unit(result)
                finished += 1
                if on_unit is not None:
                    on_unit(result, finished, len(units))
    except KeyboardInterrupt as exc:
        raise Interrupted(
            f"interrupted: {finished} of {len(units)} units are saved in {run.path}; "
            f"continue with: ilpkit cv --resume {run.path}",
            exit_code=lifecycle.exit_code(exc),
        ) from None
    except WorkerLost as exc:
        raise WorkerLost(
            f"{exc}\n{finished} of {len(units)} units are saved in {run.path}; "
            f"continue with: ilpkit cv --resume {run.path}"
        ) from None
    finally:
        if own_executor:
            executor.close()
    results = collect(run, units)
    _atomic_write(run.path / "results.json", json.dumps(results, indent=2))
    write_report(run, results)
    return results


def _shipped(config: RunConfig, executor: Any, todo: list[Unit]) -> list[Unit]:
    """``todo`` naming the data by content, and the data packed and handed to ``executor``,
    when it ships data to workers that may not see the caller's files."""
    from dataclasses import replace

    from ilpkit.core import shipping
    from ilpkit.datasets import resolve_data_path

    if not (isinstance(executor, shipping.ShipsData) and executor.ships_data) or not todo:
        return todo
    path = resolve_data_path(str(config.data.path))
    data = shipping.pack(path)
    content = shipping.register(data, path)
    executor.carry(data)
    shipped = config.model_copy(
        update={"data": config.data.model_copy(update={"content": content})}
    )
    return [replace(u, config=shipped) for u in todo]


def parallel_mode(config: RunConfig) -> str:
    """``folds`` or ``members``: what the config's executor runs (``cv.parallel`` resolved)."""
    mode = config.cv.parallel
    if mode == "auto":
        mode = "members" if learner_has_members(config) else "folds"
    return mode


def _results(config: RunConfig, executor: Executor, todo: list[Unit]) -> Any:
    """Unit results in order: units on the executor, or units here with their members on it."""
    if parallel_mode(config) == "folds" or runs_in_process(executor):
        return executor.map(run_unit, todo)
    return (run_unit(unit, members=executor) for unit in todo)


def _engines(units: Sequence[UnitResult]) -> list[dict[str, str]]:
    """The distinct engine records of the units (one, unless a resume changed engines)."""
    out: list[dict[str, str]] = []
    for u in units:
        if u.engine and u.engine not in out:
            out.append(u.engine)
    return out


def _recorded(units: Sequence[UnitResult]) -> dict[str, list[str]]:
    """Each degenerate-result line the units' learners recorded in their models (TIcER at
    its floor, ...), with the units that recorded it."""
    out: dict[str, list[str]] = {}
    for u in units:
        for note in u.degenerate:
            out.setdefault(note, []).append(u.key)
    return out


def collect(run: RunDirectory, units: Sequence[Unit]) -> dict[str, Any]:
    """results.json content: the units (without scores) and the macro summary."""
    loaded = [run.load_unit(u.key) for u in units]
    summary = summarize(loaded)
    return {
        "n_units": len(loaded),
        "limits_exceeded": sum(u.limits_exceeded for u in loaded),
        "goals_dropped": sum(u.goals_dropped for u in loaded),
        "engines": _engines(loaded),
        "empty_theories": [u.key for u in loaded if u.n_rules == 0],
        "one_class": [
            u.key
            for u in loaded
            if u.n_rules != 0 and one_class(u.predicted_positive, u.n_test) is not None
        ],
        "degenerate": _recorded(loaded),
        "summary": {k: {"mean": v.mean, "std": v.std, "n": v.n} for k, v in summary.items()},
        "units": [
            {
                "key": u.key,
                "repeat": u.repeat,
                "fold": u.fold,
                "fold_name": u.fold_name,
                "seed": u.seed,
                "n_train": u.n_train,
                "n_tune": u.n_tune,
                "n_test": u.n_test,
                "metrics": u.metrics,
                "clauses_evaluated": u.clauses_evaluated,
                "n_rules": u.n_rules,
                "limits_exceeded": u.limits_exceeded,
                "goals_dropped": u.goals_dropped,
                "engine": u.engine,
                "seconds": u.seconds,
                "curve": u.curve,
            }
            for u in loaded
        ],
    }


def with_absolute_data(config: RunConfig) -> RunConfig:
    """``config`` with its dataset path absolute (bundled names resolved), so config.toml
    reads back to the same data wherever the run directory is."""
    from ilpkit.datasets import resolve_data_path

    path = resolve_data_path(str(config.data.path)).resolve()
    return config.model_copy(update={"data": config.data.model_copy(update={"path": path})})


def trusts_data(config: RunConfig) -> bool:
    """Whether ``config`` turns the data safety checks off (``backend.trust_data``)."""
    return bool(config.backend.options.get("trust_data", False))


def without_trust(config: RunConfig) -> RunConfig:
    """``config`` without ``backend.trust_data``: what a recorded configuration (a run's
    config.toml, a TOML file) may run with, since trust comes only from the caller."""
    if "trust_data" not in config.backend.options:
        return config
    options = {k: v for k, v in config.backend.options.items() if k != "trust_data"}
    backend = config.backend.model_copy(update={"options": options})
    return config.model_copy(update={"backend": backend})


def check_recorded_trust(recorded: RunConfig, source: str | Path, *, trusted: bool) -> None:
    """Refuse a configuration read from ``source`` that records ``trust_data = true`` when
    the caller did not trust the data itself (``--trust-data``, ``trust_data=True``).

    Trust is never taken from a file: a run directory or configuration handed over by
    someone else would otherwise run the data's directives (``:- shell(...)``) here."""
    if trusts_data(recorded) and not trusted:
        raise ConfigError(_recorded_trust_message(source, recorded))


def _recorded_trust_message(source: str | Path, config: RunConfig) -> str:
    return (
        f"{source} records backend.trust_data = true, but trust is never taken from a "
        "recorded configuration: a run directory or configuration file made by someone else "
        "could otherwise make the data's directives (:- shell(...)) run on this machine. If "
        f"you trust the data at {config.data.path}, pass --trust-data (trust_data=True in "
        f"Python); otherwise remove trust_data from {source}"
    )


def recorded(config: RunConfig) -> RunConfig:
    """``config`` as config.toml holds it: a search or scorer its learner neither takes nor
    prescribes (r4f, static-rf, tilde) left ``auto``.

    Why: resolving gives such a learner the data's default (its context needs one, which it
    never runs); written down, ``--resume`` and ``ilpkit run RUN/config.toml`` would read it
    back as the user's choice, which the learner refuses."""
    from ilpkit.experiment.compose import learner_capabilities
    from ilpkit.experiment.config import AUTO, PluginChoice

    caps = learner_capabilities(config.learner.name, config.learner.options)
    update = {}
    if not caps.takes_search and caps.default_search is None:
        update["search"] = PluginChoice(name=AUTO)
    if not caps.takes_scorer and caps.default_scorer is None:
        update["scorer"] = PluginChoice(name=AUTO)
    return config.model_copy(update=update) if update else config


def config_differences(saved: RunConfig, given: RunConfig) -> list[str]:
    """The keys (dotted, ``settings.nodes``) where ``given`` differs from a run's saved
    configuration, each with both values; the executor and ``cv.parallel`` do not count."""
    a, b = _flat(_comparable(saved)), _flat(_comparable(given))
    return [
        f"{key} (config.toml: {_shown(a.get(key))}, now: {_shown(b.get(key))})"
        for key in sorted(a.keys() | b.keys())
        if a.get(key, _MISSING) != b.get(key, _MISSING)
    ]


_MISSING = object()


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(_flat(value, name + "."))
        else:
            out[name] = value
    return out


def _shown(value: Any) -> str:
    return "unset" if value is None else json.dumps(value)


def _comparable(config: RunConfig) -> dict[str, Any]:
    data = config.model_dump(mode="json")
    data.pop("output", None)
    data.pop("executor", None)  # resuming on another executor gives the same numbers
    data.get("cv", {}).pop("parallel", None)  # and so does another parallel mode
    return data


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text + ("" if text.endswith("\n") else "\n"), encoding="utf-8")
    os.replace(tmp, path)
