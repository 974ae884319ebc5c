"""The Python API: the CLI's experiments as functions.

>>> import ilpkit
>>> results = ilpkit.cv("trains", folds=5, settings={"nodes": 30}, out="runs/trains")
>>> results["summary"]["aurpc"]["mean"]                               # doctest: +SKIP

``cv`` takes the same choices as ``ilpkit cv``; ``run`` takes a
:class:`~ilpkit.core.config.RunConfig` (or the path of a TOML file) as ``ilpkit run`` does.
Both return the content of the run directory's ``results.json``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ilpkit.core.config import RunConfig, apply_overrides, load_config, resolve_plugins

__all__ = ["cv", "run"]


def run(
    config: RunConfig | str | Path, out: str | Path | None = None, *, resume: bool = False
) -> dict[str, Any]:
    """Run the experiment ``config`` describes into ``out`` (default: its ``output`` key)."""
    from ilpkit.core.errors import ConfigError
    from ilpkit.core.plugins import get_plugin_manager
    from ilpkit.core.runs import run_experiment

    if not isinstance(config, RunConfig):
        config = load_config(config)
    target = out if out is not None else config.output
    if target is None:
        raise ConfigError("no output directory: pass out= or set the config's output")
    resolve_plugins(config, get_plugin_manager())
    return run_experiment(config, target, resume=resume)


def cv(
    data: str | Path,
    *,
    out: str | Path,
    learner: str = "theory",
    search: str = "topdown",
    scorer: str = "laplace",
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
) -> dict[str, Any]:
    """Cross-validate ``learner`` on ``data``; see ``ilpkit cv --help`` for each choice.

    ``settings`` override the data's Aleph settings; ``options`` maps a plugin kind
    (``"learner"``, ``"search"``, ``"scorer"``, ``"backend"``, ``"executor"``) to that
    plugin's options.
    """
    opts = options or {}
    raw = {
        "data": {"path": str(data), "format": data_format, "stem": stem},
        "learner": {"name": learner, "options": opts.get("learner", {})},
        "search": {"name": search, "options": opts.get("search", {})},
        "scorer": {"name": scorer, "options": opts.get("scorer", {})},
        "backend": {"name": backend, "options": opts.get("backend", {})},
        "executor": {"name": executor, "options": opts.get("executor", {})},
        "seed": seed,
        "settings": settings or {},
        "cv": {
            "folds": folds,
            "tune_folds": tune_folds,
            "repeats": repeats,
            "curve": list(curve or []),
            "parallel": parallel,
            "pu_label_frequency": pu_label_frequency,
            "pu_labelings": pu_labelings,
        },
    }
    unknown = set(opts) - {"learner", "search", "scorer", "backend", "executor"}
    if unknown:
        from ilpkit.core.errors import ConfigError

        raise ConfigError(f"options: unknown plugin kinds {sorted(unknown)}")
    return run(apply_overrides(raw, [], where="cv()"), out, resume=resume)
