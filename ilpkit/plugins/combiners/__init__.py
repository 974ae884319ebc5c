"""The built-in combiners: each the combination step of a published method, taken out of its
learner (:mod:`ilpkit.core.combiner`), plus a logistic-regression baseline."""

from __future__ import annotations

from typing import Any

from ilpkit.core.plugins import PluginSpec
from ilpkit.plugins.combiners import forest, gleaner, logistic, rankboost, svm, vote, weighted

SPECS: list[PluginSpec[Any]] = [
    gleaner.SPEC,
    vote.SPEC,
    weighted.SPEC,
    rankboost.SPEC,
    svm.SPEC,
    forest.SPEC,
    logistic.SPEC,
]
