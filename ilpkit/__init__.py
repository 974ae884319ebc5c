"""ilpkit: ensembles of first-order rules from large, skewed relational data.

The Python API mirrors the CLI: :func:`learn`, :func:`predict`, :func:`explain`, :func:`cv`
and :func:`run` (``ilpkit learn`` ... ``ilpkit run``),
:func:`load_task` to read a dataset (a path or a bundled name), and :class:`ILPEstimator`, a
scikit-learn-style wrapper for notebooks.  They are imported on first use, so ``import
ilpkit`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ilpkit.core.errors import IlpkitError

if TYPE_CHECKING:
    from ilpkit.core.task import Task
    from ilpkit.experiment.api import cv, explain, learn, predict, run
    from ilpkit.experiment.estimator import ILPEstimator

__version__ = "0.1.0"
__all__ = [
    "ILPEstimator",
    "IlpkitError",
    "__version__",
    "cv",
    "explain",
    "learn",
    "load_task",
    "predict",
    "run",
]


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


def __getattr__(name: str) -> Any:
    if name in ("cv", "run", "learn", "predict", "explain"):
        from ilpkit.experiment import api

        return getattr(api, name)
    if name == "ILPEstimator":
        from ilpkit.experiment.estimator import ILPEstimator

        return ILPEstimator
    raise AttributeError(f"module 'ilpkit' has no attribute {name!r}")
