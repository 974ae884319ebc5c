"""A directory of a learner's expensive, deterministic first step, reused by later runs.

Some comparisons run one learner many times on the same folds with options that change only
what happens *after* a costly step that is the same every time: GleanerSRL's variants all
start from Gleaner's stage 1, the single-theory control's eight weighting schemes all weight
one learnt theory.  :func:`cached_fit` stores that step's result (plain JSON) in a directory,
one file per :func:`fit_key`, and later runs read it instead of searching again.

The key is everything that decides the step: the data (:func:`data_digest`: examples with
their labels and weights, background program, modes and determinations), the split (training
and tune ids), the seed, the backend, the search and the scorer with their options, the
settings, and the options the learner names for the step -- never those of later steps (a
weighting scheme, a kernel), which is the point.  Options are recorded as given, defaults
included, so a changed default is a miss.  The cache does not know ilpkit's own version: clear
the directory after changing the code that learns the step.

Files are written whole to a temporary file in the same directory and renamed, so a reader
(another worker of a ``processes`` executor, another run) sees a complete file or none; two
workers that miss at once both learn and the later rename wins (with the same content, the
step being deterministic).  Each file carries its key: a file that is not JSON, is not a cache
entry of this format, holds another key (a copied or foreign file), or does not decode is
*ignored*: the step is learnt again, the file replaced, a warning logged, and
:attr:`Cached.replaced` says why.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from ilpkit.core.learner import LearnContext
from ilpkit.core.task import Task

log = logging.getLogger(__name__)

CACHE_FORMAT = 1
"""Written in every file; a file of another format is not read."""

T = TypeVar("T")


def data_digest(task: Task) -> str:
    """SHA-256 of what a learner reads from ``task``: the examples (atoms, labels, weights),
    the background program and the modes and determinations (settings are the context's)."""
    ex = task.examples
    digest = hashlib.sha256()
    for array in (ex.labels, ex.weights):
        digest.update(np.ascontiguousarray(array).tobytes())
    digest.update("\n".join(map(str, ex.atoms)).encode())
    program = task.program
    for pred in sorted(program.facts):
        digest.update(f"\nfacts {pred}\n".encode())
        digest.update("\n".join(map(str, program.facts[pred])).encode())
    for pred in sorted(program.clauses):
        digest.update(f"\nclauses {pred}\n".encode())
        digest.update("\n".join(str(c.clause) for c in program.clauses[pred]).encode())
    bias = task.bias
    digest.update("\n".join(str(m) for m in (*bias.modeh, *bias.modeb)).encode())
    digest.update(repr(bias.determinations).encode())
    return digest.hexdigest()


def _ids_digest(ids: Any) -> str:
    return hashlib.sha256(np.asarray(ids, dtype=np.int64).tobytes()).hexdigest()


def fit_key(task: Task, ctx: LearnContext, **step: Mapping[str, Any]) -> dict[str, Any]:
    """The key of a step learnt on ``task`` with ``ctx``: data, split, seed, backend, search,
    scorer, settings, and ``step`` (named groups of the options that decide the step, e.g.
    ``gleaner=options.model_dump()``)."""
    tune = ctx.tune_ids if ctx.tune_ids is not None else np.zeros(0, dtype=np.int64)
    search = ctx.make_search()
    backend = ctx.backend
    return {
        "task": task.name,
        "target": task.target_name,
        "data": data_digest(task),
        "train": _ids_digest(ctx.train(task)),
        "tune": _ids_digest(tune),
        "seed": ctx.seed,
        "backend": [type(backend).__name__, str(getattr(backend, "name", ""))],
        "search": [type(search).__name__, repr(getattr(search, "options", None))],
        "scorer": [type(ctx.scorer).__name__, repr(getattr(ctx.scorer, "options", None))],
        "settings": repr(sorted((k, str(v)) for k, v in ctx.settings.items())),
        **{name: dict(options) for name, options in step.items()},
    }


def _canonical(key: Mapping[str, Any]) -> str:
    return json.dumps(key, sort_keys=True, default=repr)


@dataclass(frozen=True)
class Cached(Generic[T]):
    """A step's result and where it came from."""

    value: T
    path: Path
    hit: bool
    """Read from ``path`` (True) or learnt by this call and written there (False)."""
    replaced: str | None = None
    """Why a file already at ``path`` was not used (then relearnt and replaced)."""

    def info(self) -> dict[str, Any]:
        """For a model's ``info``: the file, whether it was read, and any file replaced."""
        out: dict[str, Any] = {"file": str(self.path), "hit": self.hit}
        if self.replaced is not None:
            out["replaced"] = self.replaced
        return out


def cache_path(directory: str | Path, stem: str, key: Mapping[str, Any]) -> Path:
    """``directory/stem-<digest>.json``: the file of ``key``."""
    digest = hashlib.sha256(_canonical(key).encode()).hexdigest()[:24]
    return Path(directory) / f"{stem}-{digest}.json"


def _read(
    path: Path, stem: str, key: Mapping[str, Any], decode: Callable[[dict[str, Any]], T]
) -> tuple[T | None, str | None]:
    """The value stored at ``path`` for ``key``, or None and why it is not usable."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return None, f"unreadable ({type(e).__name__}: {e})"
    if not isinstance(stored, dict) or stored.get("cache_format") != CACHE_FORMAT:
        return None, f"not an ilpkit cache file of format {CACHE_FORMAT}"
    if stored.get("stem") != stem or _canonical(stored.get("key", {})) != _canonical(key):
        return None, "stored for another key"
    try:
        return decode(stored["value"]), None
    except Exception as e:  # whatever the model's reader raises on foreign data
        return None, f"does not decode ({type(e).__name__}: {e})"


def _write(path: Path, stem: str, key: Mapping[str, Any], value: dict[str, Any]) -> None:
    """Write atomically: a temporary file in ``path``'s directory, renamed over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"cache_format": CACHE_FORMAT, "stem": stem, "key": key, "value": value}
    text = json.dumps(entry, sort_keys=True, default=repr)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cached_fit(
    directory: str | Path,
    stem: str,
    key: Mapping[str, Any],
    fit: Callable[[], T],
    encode: Callable[[T], dict[str, Any]],
    decode: Callable[[dict[str, Any]], T],
) -> Cached[T]:
    """``fit()``'s result for ``key``: read from ``directory`` when a file holds it, else
    learnt, encoded and written there (a file that cannot be used is replaced, with a
    warning)."""
    path = cache_path(directory, stem, key)
    replaced = None
    if path.exists():
        value, replaced = _read(path, stem, key, decode)
        if value is not None:
            return Cached(value, path, hit=True)
        log.warning("cache file %s is %s: learning again and replacing it", path, replaced)
    value = fit()
    _write(path, stem, json.loads(_canonical(key)), encode(value))
    return Cached(value, path, hit=False, replaced=replaced)
