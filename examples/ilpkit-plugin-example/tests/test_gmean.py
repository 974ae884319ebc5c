"""Tests of the example plugin, run from its folder: `python -m pytest tests`."""

from __future__ import annotations

import math

import pytest
from ilpkit_gmean import GMeanOptions, GMeanScorer

from ilpkit.core.coverage import Counts
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.errors import ConfigError


def counts(tp: float, fp: float, p: float, n: float) -> Counts:
    return Counts(tp=tp, fp=fp, p=p, n=n)


def test_gmean_is_the_geometric_mean_of_precision_and_recall() -> None:
    # precision 4/5, recall 4/10: sqrt(0.8 * 0.4) = sqrt(0.32)
    assert math.isclose(GMeanScorer().score(counts(4, 1, 10, 20), 2), math.sqrt(0.32))


def test_min_tp_zeroes_small_clauses() -> None:
    scorer = GMeanScorer(GMeanOptions(min_tp=5))
    assert scorer.score(counts(4, 0, 10, 20), 2) == 0.0


def test_registered_through_the_entry_point() -> None:
    manager = get_plugin_manager()
    scorer = manager.make("scorer", "gmean", {"min_tp": 2})
    assert isinstance(scorer, GMeanScorer)
    with pytest.raises(ConfigError, match="min_tp"):
        manager.make("scorer", "gmean", {"min_tp": -1})
