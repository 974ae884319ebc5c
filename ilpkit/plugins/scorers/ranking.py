"""Ranking objectives of one clause h in {0, 1}: PRankBoost's AURPC and RankBoost's r.

Both follow prankboost-ilp2009 (sec. 3-4) and PAPERS.md "RankBoost and PRankBoost"; the
numbers come from :mod:`ilpkit.core.scoring`. Counts are the boosting weights, so TP and FP
are the weighted sums the papers write as sum_pos w h and sum_neg w h.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ilpkit.core.coverage import Counts
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.scoring import weighted_auroc_r, weighted_aurpc_path, weighted_aurpc_point
from ilpkit.plugins.scorers._common import PlainScorer, scorer_spec


class AURPCScorer(PlainScorer):
    """Weighted AURPC of the clause's point, extended to recall 0 and through (P, N) to 1.

    PRankBoost.Clause's objective and its r (prankboost-ilp2009 sec. 4); in [0, 1].
    Raises ``ValueError`` when P = 0.
    """

    name = "aurpc"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return weighted_aurpc_point(counts)


class AUROCScorer(PlainScorer):
    """RankBoost.B's r = TP/P - FP/N, in [-1, 1]; the clause's AUROC is (1 + r) / 2.

    The objective of the RankBoost baseline (PAPERS.md); r rather than the area, since r is
    what RankBoost's alpha = 0.5 ln((1 + r) / (1 - r)) needs and orders clauses the same.
    """

    name = "auroc"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return weighted_auroc_r(counts)


class AURPCPathScorer(PlainScorer):
    """Weighted AURPC of the curve through every clause of a hill-climbing path.

    PRankBoost.Path's (and Mix1's) objective and r (prankboost-ilp2009 sec. 3-4): ``hillclimb``
    scores each candidate as the end of the path so far (``needs_path``). A lone clause
    scores as :class:`AURPCScorer`. Used by the boosting learners directly, not registered as
    a plugin: only a search that keeps a path can use it.
    """

    name = "aurpc_path"
    needs_path = True

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return weighted_aurpc_point(counts)

    def score_path(self, path: Sequence[Counts]) -> float:
        return weighted_aurpc_path(path)


SPECS: list[PluginSpec[Any]] = [
    scorer_spec(AURPCScorer, "Weighted AURPC of the clause's recall-precision point (PRankBoost)."),
    scorer_spec(AUROCScorer, "RankBoost's r = TP/P - FP/N, the weighted AUROC form."),
]

__all__ = ["SPECS", "AUROCScorer", "AURPCPathScorer", "AURPCScorer"]
