"""Aleph's evaluation functions (``set(evalfn, ...)``; dissertation Table 2.3), on weighted counts.

Aleph's formulas (``evalfn/4`` in aleph.pl) with its P, N, L read as TP, FP and the clause
length counting the head. Where Aleph differs from the name's usual meaning it is said below.
"""

from __future__ import annotations

import math
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.coverage import Counts
from ilpkit.core.metrics import accuracy
from ilpkit.core.plugins import PluginSpec
from ilpkit.plugins.scorers._common import OptionsScorer, PlainScorer, scorer_spec


class CoverageScorer(PlainScorer):
    """Aleph ``coverage``: TP - FP."""

    name = "coverage"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return counts.tp - counts.fp


class CompressionScorer(PlainScorer):
    """Aleph ``compression``: TP - FP - L + 1, L the clause length counting the head.

    Aleph's manual and code: "P - N - L + 1 where L is the number of literals in the clause";
    so the most general clause (L = 1) scores TP - FP, and each body literal costs 1.
    """

    name = "compression"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return counts.tp - counts.fp - clause_length + 1


class LaplaceScorer(PlainScorer):
    """Aleph ``laplace``: (TP + 1) / (TP + FP + 2)."""

    name = "laplace"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return (counts.tp + 1.0) / (counts.tp + counts.fp + 2.0)


def _prior_field() -> Any:
    return Field(
        default=None,
        ge=0,
        le=1,
        description=(
            "Prior precision, as Aleph's set(prior, ...); by default P / (P + N) of the "
            "weighted examples (the theory learners fix it at their training set's, as "
            "Aleph does)."
        ),
    )


class MEstimateOptions(BaseModel):
    """Options of the ``mestimate`` scorer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    m: float = Field(
        default=2.0,
        ge=0,
        allow_inf_nan=False,
        description=(
            "Weight m of the prior, as Aleph's set(m, M); 0 gives precision. Aleph without "
            "set(m, ...) uses sqrt(TP + FP) instead: the auto_m scorer."
        ),
    )
    prior: float | None = _prior_field()


class AutoMOptions(BaseModel):
    """Options of the ``auto_m`` scorer (its m is sqrt(TP + FP), not an option)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prior: float | None = _prior_field()


PriorOptionsT = TypeVar("PriorOptionsT", MEstimateOptions, AutoMOptions)


class _MEstimate(OptionsScorer[PriorOptionsT]):
    """(TP + m prior) / (TP + FP + m); 0 when TP + FP + m = 0."""

    def _m(self, counts: Counts) -> float:
        raise NotImplementedError

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        m = self._m(counts)
        prior = self.options.prior
        if prior is None:
            total = counts.p + counts.n
            prior = counts.p / total if total > 0 else 0.0
        denominator = counts.tp + counts.fp + m
        return (counts.tp + m * prior) / denominator if denominator > 0 else 0.0

    def with_prior_of(self, totals: Counts) -> Self:
        """This scorer with its prior fixed at ``totals``' P / (P + N), unless it was given.

        Aleph computes the prior once, from the examples as read (``read_examples``), and
        keeps it while its covering loop removes the positives each rule covers; a prior
        taken from the positives left falls with every rule (WebKB: from 0.21 to 0.01), and
        with it the bound that prunes a search."""
        if self.options.prior is not None:
            return self
        total = totals.p + totals.n
        prior = totals.p / total if total > 0 else 0.0
        return type(self)(self.options.model_copy(update={"prior": prior}))


class MEstimateScorer(_MEstimate[MEstimateOptions]):
    """Aleph ``mestimate`` with ``set(m, M)``: (TP + m prior) / (TP + FP + m)."""

    name = "mestimate"
    options_model = MEstimateOptions

    def _m(self, counts: Counts) -> float:
        return self.options.m


class AutoMScorer(_MEstimate[AutoMOptions]):
    """Aleph ``auto_m``: the m-estimate with m = sqrt(TP + FP) of the clause (and Aleph's
    ``mestimate`` without ``set(m, M)``)."""

    name = "auto_m"
    options_model = AutoMOptions

    def _m(self, counts: Counts) -> float:
        return math.sqrt(max(counts.tp + counts.fp, 0.0))


class AccuracyScorer(PlainScorer):
    """Accuracy (TP + TN) / (P + N), TN = N - FP: the clause read as a classifier.

    Not Aleph's ``accuracy`` evalfn, which is TP / (TP + FP): that one is ``precision``.
    """

    name = "accuracy"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return accuracy(counts.tp, counts.fp, counts.p, counts.n)


class WRAccScorer(PlainScorer):
    """Aleph ``wracc`` (Lavrac, Flach and Zupan): TP/T - (P/T)(TP + FP)/T with T = P + N.

    Equals coverage (TP + FP)/T times the precision gain over the prior, TP/(TP+FP) - P/T.
    """

    name = "wracc"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        total = counts.p + counts.n
        if total <= 0:
            return 0.0
        return counts.tp / total - (counts.p / total) * ((counts.tp + counts.fp) / total)


SPECS: list[PluginSpec[Any]] = [
    scorer_spec(CoverageScorer, "Aleph coverage: TP - FP."),
    scorer_spec(CompressionScorer, "Aleph compression: TP - FP - L + 1 (L counts the head)."),
    scorer_spec(LaplaceScorer, "Aleph laplace: (TP + 1) / (TP + FP + 2)."),
    scorer_spec(MEstimateScorer, "Aleph m-estimate: (TP + m * prior) / (TP + FP + m)."),
    scorer_spec(AutoMScorer, "Aleph auto_m: the m-estimate with m = sqrt(TP + FP)."),
    scorer_spec(AccuracyScorer, "Accuracy of the clause as a classifier: (TP + TN) / (P + N)."),
    scorer_spec(WRAccScorer, "Weighted relative accuracy: TP/T - (P/T) * (TP + FP)/T, T = P + N."),
]

__all__ = [
    "SPECS",
    "AccuracyScorer",
    "AutoMScorer",
    "CompressionScorer",
    "CoverageScorer",
    "LaplaceScorer",
    "MEstimateOptions",
    "MEstimateScorer",
    "WRAccScorer",
]
