"""The whole model on a set of examples: Aleph's confusion matrix (Popper's TP/FN/TN/FP), the
figures it gives, and the ranking's AUROC/AURPC.

Per-rule counts say how good each clause is; a user asks first how good the model is, on the
examples it learnt from and, where the data holds them out, on test examples.  ``learn``
records these in the model's ``info["evaluation"]`` and prints them as one table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.learner import Model
from ilpkit.core.metrics import accuracy, auroc, aurpc, f1, pr_points_from_scores
from ilpkit.core.task import NEG, POS, Task


def whole_model_counts(
    model: Model, backend: Any, task: Task, ids: npt.NDArray[np.int64], on: str
) -> dict[str, Any]:
    """The model's classification and ranking of the labelled examples among ``ids``
    (``on`` names them: ``training``, ``test``, a fold).  Unlabelled examples (PU data's
    unlabelled ones) are left out: they have no class to be right or wrong about.  A figure
    the examples leave undefined (recall without positives, AUROC with one class) is None."""
    labels = task.examples.labels
    ids = np.asarray(ids, dtype=np.int64)
    ids = ids[np.isin(labels[ids], (POS, NEG))]
    y = labels[ids] == POS
    predicted = np.asarray(model.predict(backend, ids), dtype=bool)
    tp = int(np.sum(predicted & y))
    fp = int(np.sum(predicted & ~y))
    fn = int(np.sum(~predicted & y))
    tn = int(np.sum(~predicted & ~y))
    p, n = tp + fn, fp + tn
    row: dict[str, Any] = {
        "on": on,
        "examples": len(ids),
        "tp": tp,
        "fn": fn,
        "fp": fp,
        "tn": tn,
        "accuracy": accuracy(tp, fp, p, n) if len(ids) else None,
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / p if p else None,
        "f1": f1(tp, fp, p) if p else None,
        "auroc": None,
        "aurpc": None,
    }
    if 0 < p < len(ids):
        scores = np.asarray(model.score(backend, ids), dtype=np.float64)
        yi = y.astype(np.int64)
        row["auroc"] = auroc(scores, yi)
        row["aurpc"] = aurpc(pr_points_from_scores(scores, yi))
    return row


def one_class_on(row: dict[str, Any]) -> bool:
    """Whether the model put every example of ``row`` (both classes present) in one class."""
    both = row["tp"] + row["fn"] > 0 and row["fp"] + row["tn"] > 0
    return bool(both and (row["tp"] + row["fp"] == 0 or row["fn"] + row["tn"] == 0))
