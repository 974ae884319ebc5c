"""ilpkit: ensembles of first-order rules from large, skewed relational data.

The Python API mirrors the CLI: :func:`learn`, :func:`predict`, :func:`explain`, :func:`cv`
and :func:`run` (``ilpkit learn`` ... ``ilpkit run``),
:func:`load_task` to read a dataset (a path or a bundled name), and :class:`ILPEstimator`, a
scikit-learn-style wrapper for notebooks.  They are imported on first use, so ``import
ilpkit`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ilpkit._version import __version__
from ilpkit.errors import IlpkitError

if TYPE_CHECKING:
    from ilpkit.experiment.api import cv, explain, learn, load_task, predict, run
    from ilpkit.experiment.estimator import ILPEstimator


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


def __getattr__(name: str) -> Any:
    if name in ("cv", "run", "learn", "predict", "explain", "load_task"):
        from ilpkit.experiment import api

        return getattr(api, name)
    if name == "ILPEstimator":
        from ilpkit.experiment.estimator import ILPEstimator

        return ILPEstimator
    raise AttributeError(f"module 'ilpkit' has no attribute {name!r}")
