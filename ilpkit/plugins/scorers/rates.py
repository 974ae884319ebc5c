"""Precision, recall and their combinations, as used by Gleaner (dissertation ch. 4, 2.1)."""

from __future__ import annotations

from typing import Any

from ilpkit.core.coverage import Counts
from ilpkit.core.metrics import f1
from ilpkit.core.plugins import PluginSpec
from ilpkit.plugins.scorers._common import PlainScorer, scorer_spec


class PrecisionScorer(PlainScorer):
    """Precision TP / (TP + FP), 0 when the clause covers nothing (Aleph's ``accuracy``)."""

    name = "precision"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return counts.precision


class RecallScorer(PlainScorer):
    """Recall TP / P, 0 when P = 0."""

    name = "recall"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return counts.recall


class F1Scorer(PlainScorer):
    """F1 = 2 TP / (TP + FP + P), the harmonic mean of precision and recall."""

    name = "f1"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return f1(counts.tp, counts.fp, counts.p)


class PrecisionRecallScorer(PlainScorer):
    """Precision * recall: Gleaner's heuristic for its RRR search and its bins (ch. 4)."""

    name = "pr"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return counts.precision * counts.recall


SPECS: list[PluginSpec[Any]] = [
    scorer_spec(PrecisionScorer, "Precision: TP / (TP + FP)."),
    scorer_spec(RecallScorer, "Recall: TP / P."),
    scorer_spec(F1Scorer, "F1: 2 TP / (TP + FP + P)."),
    scorer_spec(PrecisionRecallScorer, "Precision * recall (Gleaner's heuristic)."),
]

__all__ = ["SPECS", "F1Scorer", "PrecisionRecallScorer", "PrecisionScorer", "RecallScorer"]
