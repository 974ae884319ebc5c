"""The examples ``ilpkit learn`` trains on and the fold it holds out.

Kept apart from :mod:`ilpkit.experiment.cv` (folds, units, evaluation): ``learn`` needs only
this, and a run's start-up need not import the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ilpkit.core.task import Task
from ilpkit.errors import ConfigError

SPLIT_NAMES = ("train", "tune", "test")
"""Fold names that are roles of one split rather than folds of a partition."""


def _grouped_splits(names: list[str]) -> dict[str, dict[str, int]] | None:
    """``{"fold1": {"train": 0, "test": 1}, ...}`` when every fold is a role of a fixed
    split in its own folder (BoostSRL/srlearn ``foldN/train``, ``foldN/test``): each folder
    is a unit of its own, not two folds of one partition (its examples may repeat in the
    other folders)."""
    groups: dict[str, dict[str, int]] = {}
    for i, name in enumerate(names):
        prefix, _, role = name.rpartition("/")
        if not prefix or role not in SPLIT_NAMES:
            return None
        groups.setdefault(prefix, {})[role] = i
    if not all("train" in g and "test" in g for g in groups.values()):
        return None
    return groups


def learn_split(task: Task) -> tuple[npt.NDArray[np.int64] | None, str | None]:
    """The examples ``ilpkit learn`` trains on, and a note when they are not all of them.

    Data whose folds are alternative train/test splits of the same examples (BoostSRL's
    ``fold1/train``, ``fold1/test``, ``fold2/train``, ...) holds each example once per
    split: trained on all of them, a learner would count each example that many times.
    ``learn`` then trains on the first split's training examples and says so.
    """
    groups = _grouped_splits(task.fold_names)
    if not groups:  # None, or {} for data without folds
        return None, None
    name, group = next(iter(groups.items()))
    ids = np.flatnonzero(task.examples.folds == group["train"]).astype(np.int64)
    return ids, (
        f"{task.name}: the data holds {len(groups)} alternative train/test splits "
        f"({', '.join(groups)}) of the same examples; learning on {name}/train only "
        f"({len(ids)} examples). `ilpkit cv` runs every split"
    )


@dataclass(frozen=True)
class LearnSplit:
    """What ``ilpkit learn`` trains on and what it reports a test table for."""

    train: npt.NDArray[np.int64] | None
    """Training examples (None: every example, or the ``train`` fold's)."""
    test: npt.NDArray[np.int64]
    """Held-out examples (empty: none)."""
    test_name: str
    """The held-out fold's name ('' when there is none)."""
    note: str | None = None
    """Said before learning when the training examples are not the data's all."""


def learn_split_for(task: Task, fold: str | None = None) -> LearnSplit:
    """The split ``ilpkit learn`` uses.  ``fold`` names a fold of the data (``test``,
    ``fold3``) to hold out, training on every other; for data made of alternative
    train/test folders (``fold1/train``, ``fold1/test``, ...), a folder's name picks that
    split.  Without ``fold``: the data's ``test`` fold is held out when there is one, the
    first of alternative splits is used (and said), else every example trains."""
    folds = task.examples.folds
    names = task.fold_names
    groups = _grouped_splits(names)

    def ids_of(index: int) -> npt.NDArray[np.int64]:
        return np.flatnonzero(folds == index).astype(np.int64)

    if fold is None:
        train, note = learn_split(task)
        if groups:
            name, group = next(iter(groups.items()))
            return LearnSplit(train, ids_of(group["test"]), f"{name}/test", note)
        if "test" in names:
            test = ids_of(names.index("test"))
            rest = np.flatnonzero(folds != names.index("test")).astype(np.int64)
            if "train" in names:  # learners train on the train fold by default
                rest = ids_of(names.index("train"))
            return LearnSplit(rest, test, "test")
        return LearnSplit(None, np.zeros(0, dtype=np.int64), "")
    if groups and fold in groups:
        group = groups[fold]
        return LearnSplit(ids_of(group["train"]), ids_of(group["test"]), f"{fold}/test")
    if fold in names and not groups:
        index = names.index(fold)
        train = np.flatnonzero(folds != index).astype(np.int64)
        if len(train) == 0:
            raise ConfigError(f"{task.name}: --fold {fold} leaves no example to train on")
        return LearnSplit(train, ids_of(index), fold)
    choices = list(groups) if groups else names
    if not choices:
        raise ConfigError(
            f"{task.name}: --fold {fold}: the data has no folds (use `ilpkit cv` to cross-validate)"
        )
    raise ConfigError(
        f"{task.name}: --fold {fold}: no such fold; the data's folds are {', '.join(choices)}"
    )
