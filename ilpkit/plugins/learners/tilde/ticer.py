"""TIcER: the label frequency of relational PU data from a first-order decision tree.

ticer-pu-relational.txt, section 3: folds are formed from the training examples; a TILDE tree
separating labeled from unlabeled examples is induced on one fold; every node of the tree
selects a subset of the other folds' examples, and each subset bounds ``c`` from below
(:func:`ilpkit.core.pu.label_frequency_bound`); the estimate is the largest bound.

Folds: where the data's own folds group related objects (UW-CSE's areas), the training
examples' data folds are used as they are, so that no fold shares objects with another;
otherwise the training examples are dealt into ``k`` stratified folds.  Decisions the paper
leaves open (documented in docs/pu.md): the tree is induced on the first fold and bounded on
all others (``rotate=True`` averages the estimate over every fold in turn); when no node gives
a positive bound, the estimate falls back to L/T of all bounding examples.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.pu import label_frequency_bound
from ilpkit.core.task import POS, Task
from ilpkit.plugins.learners.tilde.induce import Inducer

IdArray = npt.NDArray[np.int64]


@dataclass
class TicerResult:
    c: float
    per_tree: list[float] = field(default_factory=list)
    best_subset: dict[str, float] = field(default_factory=dict)
    """T, L and the bound of the node that gave the (first tree's) estimate."""
    folds: str = ""
    at_floor: int = 0
    """Trees none of whose nodes bounded ``c`` above zero, so that their estimate fell back
    to the labeled share L/T of all bounding examples (the least ``c`` the data allows)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "c": self.c,
            "per_tree": self.per_tree,
            "best_subset": self.best_subset,
            "folds": self.folds,
            "at_floor": self.at_floor,
        }


def ticer_folds(task: Task, ids: IdArray, k: int, seed: int) -> tuple[list[IdArray], str]:
    """The folds TIcER uses: the data's own (if at least 3 among ``ids``), else ``k``
    stratified ones."""
    data_folds = task.examples.folds[ids]
    distinct = sorted({int(f) for f in data_folds if f >= 0})
    if len(distinct) >= 3 and not np.any(data_folds < 0):
        groups = [ids[data_folds == f] for f in distinct]
        names = ", ".join(task.fold_names[f] for f in distinct)
        return groups, f"the data's folds ({names})"
    rng = np.random.default_rng(seed)
    labeled = task.examples.labels[ids] == POS
    assign = np.empty(len(ids), dtype=np.int64)
    for mask in (labeled, ~labeled):
        members = np.flatnonzero(mask)
        assign[rng.permutation(members)] = np.arange(len(members)) % k
    return [np.sort(ids[assign == f]) for f in range(k)], f"{k} stratified folds"


def estimate_label_frequency(
    task: Task,
    inducer: Inducer,
    ids: IdArray,
    *,
    k: int = 5,
    delta: float = 0.1,
    rotate: bool = False,
    seed: int = 0,
) -> TicerResult:
    """TIcER's estimate of ``c`` on the training examples ``ids`` (``inducer`` separates
    labeled from unlabeled; its ``c`` is ignored)."""
    folds, how = ticer_folds(task, np.asarray(ids, dtype=np.int64), k, seed)
    folds = [f for f in folds if len(f)]
    if len(folds) < 2:
        raise ValueError("TIcER needs at least two non-empty folds")
    inducer = replace(inducer, options=replace(inducer.options, c=1.0, count_adjust=False))
    labeled = task.examples.labels == POS
    estimates: list[float] = []
    best_subset: dict[str, float] = {}
    floors = 0
    for t in range(len(folds) if rotate else 1):
        tree_ids = folds[t]
        bound_ids = np.sort(np.concatenate([f for i, f in enumerate(folds) if i != t]))
        inducer.rng = random.Random(repr((seed, "ticer-tree", t)))
        tree = inducer.grow(tree_ids)
        best = -np.inf
        subset: dict[str, float] = {}
        for _, here in tree.route(inducer.backend, bound_ids):  # type: ignore[arg-type]
            total = float(len(here))
            if total == 0:
                continue
            n_labeled = float(labeled[here].sum())
            bound = label_frequency_bound(n_labeled, total, delta)
            if bound > best:
                best = bound
                subset = {"T": total, "L": n_labeled, "bound": bound}
        if best <= 0:
            floors += 1
            total = float(len(bound_ids))
            best = float(labeled[bound_ids].sum()) / total if total else 1.0
            subset = {"T": total, "L": float(labeled[bound_ids].sum()), "bound": best}
        estimates.append(min(1.0, best))
        if t == 0:
            best_subset = subset
    c = float(np.mean(estimates))
    return TicerResult(
        c=max(c, 1e-6), per_tree=estimates, best_subset=best_subset, folds=how, at_floor=floors
    )
