"""What :func:`ilpkit.predict` returns: a model's scores and classifications of a task.

A module of its own (re-exported by :mod:`ilpkit.experiment.api`): ``learn`` never builds
one, and a dataclass costs every command's start-up about 1.5 ms to build.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ilpkit.core.task import POS, Task

__all__ = ["Predictions"]


@dataclass(frozen=True)
class Predictions:
    """A model's scores and classifications of every example of a task."""

    task: Task
    scores: npt.NDArray[np.float64]
    """Ranking score of example ``i`` (higher: more likely positive)."""
    predicted: npt.NDArray[np.bool_]
    """The model's own classification of example ``i``."""
    limits_exceeded: int = 0
    """Clauses of the model that exceeded a resource limit while scoring (each then covered
    none of the examples asked; :mod:`ilpkit.core.limits`)."""
    trained: npt.NDArray[np.int64] | None = None
    """The examples the model learnt from, when these are its training data (else None)."""
    held_out: npt.NDArray[np.int64] | None = None
    """The examples its learn run held out (a test fold), when these are its training data."""
    names_its_data: bool = True
    """Whether the model records the data it was learnt from (if not, nobody can say whether
    :meth:`metrics` is in-sample)."""

    def rows(self) -> list[tuple[int, str, int, str, float]]:
        """``(id, example, label, fold, score)`` per example (``ilpkit predict``'s CSV)."""
        ex = self.task.examples
        names = self.task.fold_names
        out = []
        for i, atom in enumerate(ex.atoms):
            f = int(ex.folds[i])
            fold = names[f] if f >= 0 else ""
            out.append((i, str(atom), int(ex.labels[i]), fold, float(self.scores[i])))
        return out

    def metrics(self, ids: npt.NDArray[np.int64] | None = None) -> dict[str, float]:
        """AUROC and AURPC over the labelled examples (of ``ids``; empty when a class is
        missing)."""
        from ilpkit.core.metrics import auroc, aurpc, pr_points_from_scores

        chosen = self.task.examples.ids if ids is None else np.asarray(ids, dtype=np.int64)
        labels = self.task.examples.labels[chosen]
        labelled = chosen[labels >= 0]
        y = (self.task.examples.labels[labelled] == POS).astype(np.int8)
        if not 0 < y.sum() < len(y):
            return {}
        s = self.scores[labelled]
        return {
            "n": float(len(y)),
            "auroc": auroc(s, y),
            "aurpc": aurpc(pr_points_from_scores(s, y)),
        }
