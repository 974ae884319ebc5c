"""Model files: a fitted model written as JSON and read back with the plugin that made it.

A module of its own because reading a file needs every kind that can have made it (a
learner's own model, or a pool combined by a combiner plugin): kept out of the learner and
combiner contracts, which then need not know each other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from ilpkit.core.learner import MODEL_FORMAT_VERSION, Model, ModelLoader
from ilpkit.errors import ConfigError, DataError

__all__ = ["load_model", "save_model"]


def save_model(model: Model, path: str | Path) -> None:
    """Write ``model`` as JSON; where ``path`` cannot be written the model is kept elsewhere
    and :class:`~ilpkit.core.outpaths.OutputWriteError` says where."""
    from ilpkit.core.outpaths import write_output

    data = model.to_json()
    write_output(path, json.dumps(data, indent=2) + "\n", what="the model", suffix=".json")


def load_model(path: str | Path) -> Model:
    """Read a model written by :func:`save_model`, with the learner plugin that made it."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{p}: model file does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{p}: not a model file ({exc})") from None
    if not isinstance(data, dict) or "learner" not in data:
        raise DataError(f"{p}: not an ilpkit model (no 'learner' key)")
    if data.get("format_version", 1) > MODEL_FORMAT_VERSION:
        raise DataError(f"{p}: model format {data['format_version']} is newer than this ilpkit")
    if "combiner" in data:  # a pool combined by a combiner plugin, whatever the learner
        from ilpkit.core.combiner import pool_model_from_json  # (writing needs none of it)

        return _complete(p, data, pool_model_from_json(data))
    from ilpkit.core.plugins import get_plugin_manager

    learner = get_plugin_manager().make("learner", str(data["learner"]), {})
    if not isinstance(learner, ModelLoader):
        raise ConfigError(f"learner {data['learner']!r} cannot load saved models")
    return _complete(p, data, learner.model_from_json(data))


# What a model is made of, by learner: a file lacking one its learner writes is refused
# (read with defaults, it would score every example 0 and look like a result).
_MODEL_PARTS: Final = ("target", "rules", "hypotheses", "tree", "trees", "members", "theory")


def _complete(path: Path, data: dict[str, Any], model: Model) -> Model:
    written = model.to_json()
    missing = [k for k in _MODEL_PARTS if k in written and data.get(k) is None]
    if missing:
        raise DataError(
            f"{path}: not a complete {data['learner']} model: no "
            + ", ".join(repr(k) for k in missing)
            + " (a model file is written by `ilpkit learn --out`)"
        )
    return model
