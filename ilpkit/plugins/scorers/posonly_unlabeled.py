"""``posonly-unlabeled``: a positive-only Bayes score over the unlabeled examples, for PU data.

Muggleton's (1996) "Learning from positive data" scores a hypothesis H by its posterior,
which for examples drawn from the target grows as ``(1 / g(H))^m`` times the prior
``2^-sz(H)``, where ``g(H)`` is H's generality (the probability that an instance drawn at
random is covered) and ``m`` the number of positives it covers.  Aleph estimates ``g`` from
examples it generates from the types (that is the ``posonly`` scorer,
:mod:`ilpkit.plugins.scorers.posonly`); in PU data the unlabeled examples are already such a
sample of the instance distribution, so this scorer counts them as the "random" class
(learners' ``unlabeled="negative"``).  Per clause, in logs and over the whole theory's
positives rather than Aleph's per-clause average:

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


class PosonlyUnlabeledScorer(PlainScorer):
    """TP * ln((N + 2) / (FP + 1)) - L, the negatives read as the unlabeled sample (see the
    module docstring)."""

    name = "posonly-unlabeled"

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        return counts.tp * math.log((counts.n + 2.0) / (counts.fp + 1.0)) - clause_length


SPECS: list[PluginSpec[Any]] = [
    scorer_spec(
        PosonlyUnlabeledScorer,
        "Positive-only Bayes score over unlabeled examples (PU data; learner option "
        "unlabeled=negative): TP ln((N+2)/(FP+1)) - L. Aleph's evalfn posonly is 'posonly'.",
    )
]
