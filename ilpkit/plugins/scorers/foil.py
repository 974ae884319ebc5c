"""FOIL's information gain of a refinement over its parent (Quinlan 1990), on examples."""

from __future__ import annotations

import math
from typing import Any

from ilpkit.core.coverage import Counts
from ilpkit.core.plugins import PluginSpec
from ilpkit.plugins.scorers._common import PlainScorer, scorer_spec


class FoilGainScorer(PlainScorer):
    """FOIL gain: TP * (log2 prec - log2 prec_parent), prec = TP / (TP + FP).

    FOIL counts bindings; ilpkit counts examples, so t, the positives covered by both the
    clause and its parent, is the clause's TP (a refinement covers a subset of its parent's
    examples). Without a parent the most general clause (P, N) is the parent. A clause with
    TP = 0 gains 0. Raises ``ValueError`` if the clause covers positive weight its parent
    does not cover (TP > 0 with parent TP = 0): it is not a refinement of that parent.
    """

    name = "foil_gain"
    needs_parent = True

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        if counts.tp <= 0:
            return 0.0
        if parent is None:
            parent = Counts(counts.p, counts.n, counts.p, counts.n)
        if parent.tp <= 0:
            raise ValueError(
                f"foil_gain: the clause covers positive weight {counts.tp} but its parent "
                "covers none; pass the counts of the clause it was refined from"
            )
        return counts.tp * (math.log2(counts.precision) - math.log2(parent.precision))


SPECS: list[PluginSpec[Any]] = [
    scorer_spec(FoilGainScorer, "FOIL information gain over the parent clause."),
]

__all__ = ["SPECS", "FoilGainScorer"]
