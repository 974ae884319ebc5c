"""``posonly``: Muggleton's (1996) positive-only Bayesian evaluation, for PU data.

"Learning from positive data" scores a hypothesis H by its posterior, which for examples
drawn from the target grows as ``(1 / g(H))^m`` times the prior ``2^-sz(H)``, where ``g(H)``
is H's generality (the probability that an instance drawn at random is covered) and ``m`` the
number of positives it covers.  Aleph estimates ``g`` from randomly generated examples; in PU
data the unlabeled examples are such a sample of the instance distribution, so ilpkit counts
them as the "random" class (learners' ``unlabeled="negative"``).  Per clause, in logs:

    score = TP * ln((N + 2) / (FP + 1)) - L

with ``(FP + 1) / (N + 2)`` the Laplace-corrected generality, FP the random (unlabeled)
examples covered among N, and L the clause length counting the head (the size penalty).
"""

from __future__ import annotations

import math
from typing import Any

from ilpkit.core.coverage import Counts
from ilpkit.core.plugins import PluginSpec
from ilpkit.plugins.scorers._common import PlainScorer, scorer_spec


class PosonlyScorer(PlainScorer):
    """TP * ln((N + 2) / (FP + 1)) - L (Muggleton 1996; see the module docstring)."""

    name = "posonly"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return counts.tp * math.log((counts.n + 2.0) / (counts.fp + 1.0)) - clause_length


SPECS: list[PluginSpec[Any]] = [
    scorer_spec(
        PosonlyScorer,
        "Positive-only Bayes score (Muggleton 1996): TP ln((N+2)/(FP+1)) - L, the negatives "
        "read as a random sample (PU data: the unlabeled examples).",
    )
]
