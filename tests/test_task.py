"""Task-level operations: stratified folds, round trips of every bundled dataset."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ilpkit.core.formats import FORMATS, load_task
from ilpkit.core.task import NEG, POS, stratified_folds
from ilpkit.datasets import BUNDLED, bundled_path
from ilpkit.errors import DataError


def test_stratified_folds_balance_each_label() -> None:
    task = load_task(bundled_path("uwcse"))
    folded = stratified_folds(task, 5, seed=1)
    assert folded.fold_names == ["fold0", "fold1", "fold2", "fold3", "fold4"]
    ex = folded.examples
    for label, total in ((POS, 113), (NEG, 2711)):
        sizes = [int(np.sum((ex.folds == f) & (ex.labels == label))) for f in range(5)]
        assert sum(sizes) == total
        assert max(sizes) - min(sizes) <= 1
    assert any("replaced by 5 stratified folds" in n for n in folded.notes)
    # the same seed gives the same folds, another seed others
    assert np.array_equal(stratified_folds(task, 5, seed=1).examples.folds, ex.folds)
    assert not np.array_equal(stratified_folds(task, 5, seed=2).examples.folds, ex.folds)


def test_stratified_folds_refuse_too_few_positives() -> None:
    task = load_task(bundled_path("trains"))
    with pytest.raises(DataError, match="5 positive examples cannot fill 6 stratified folds"):
        stratified_folds(task, 6)
    with pytest.raises(DataError, match="k >= 2"):
        stratified_folds(task, 1)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_every_bundled_dataset_round_trips_in_its_own_format(name: str, tmp_path: Path) -> None:
    task = load_task(bundled_path(name))
    FORMATS[task.format].write(task, tmp_path / "out")
    again = load_task(tmp_path / "out", format=task.format)
    assert again.examples == task.examples
    assert again.program == task.program
    assert again.bias == task.bias
    assert again.fold_names == task.fold_names
