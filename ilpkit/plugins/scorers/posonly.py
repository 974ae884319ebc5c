"""``posonly``: Aleph's positive-only evaluation (``set(evalfn, posonly)``; Muggleton, ILP-96).

"Learning from positive data" scores a clause learnt from positives alone by the posterior
of Bayes' rule: it covers P of the positives, is ``g`` general -- the probability that an
example of the target drawn at random is covered -- and costs its size. Aleph estimates
``g`` on a sample R of random examples generated from the head mode's types
(:mod:`ilpkit.core.random_examples`, ``gsamplesize`` of them), of which the clause covers
R', with a Laplace correction, and charges its length L (literals counting the head) per
positive covered:

    score = ln P - ln((R' + 1) / (|R| + 2)) - L / P

A learner that honours ``random_examples`` (``theory``, ``aleph``) generates the sample and
hands it to the scorer as the counts' negatives: ``counts.fp`` is R' and ``counts.n`` is
|R|. A refinement covers at most its parent's P and at least no random example, at one more
literal, which bounds every refinement's score as Aleph's pruning does.

Aleph's start label (the seed kept as a ground fact: one positive, no random example,
length 2) is scored by its ``evalfn/3``, which charges ``(L + 1) / P``, one literal more
than a clause's score: :meth:`AlephPosonlyScorer.label_score`.
"""

from __future__ import annotations

import math
from typing import Any

from ilpkit.core.coverage import Counts
from ilpkit.core.plugins import PluginSpec
from ilpkit.plugins.scorers._common import PlainScorer, scorer_spec


class AlephPosonlyScorer(PlainScorer):
    """ln P - ln((R' + 1) / (|R| + 2)) - L / P on counts whose negatives are the random
    sample (P = TP, R' = FP, |R| = N; see the module docstring); -inf when P = 0."""

    name = "posonly"
    random_examples = True

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        P, R_covered, R = counts.tp, counts.fp, counts.n  # the paper's names
        if P <= 0:
            return -math.inf
        return math.log(P) - math.log((R_covered + 1.0) / (R + 2.0)) - clause_length / P

    def label_score(self, counts: Counts, clause_length: int) -> float:
        """Aleph's score of a label ``[P, 0, L]`` (its start label: the seed as a ground
        fact, L = 2): ``ln P + ln(|R| + 2) - (L + 1) / P``, one literal more than
        :meth:`score` charges a clause of length L."""
        return self.score(Counts(counts.tp, 0.0, counts.p, counts.n), clause_length + 1)


SPECS: list[PluginSpec[Any]] = [
    scorer_spec(
        AlephPosonlyScorer,
        "Aleph's positive-only evaluation (evalfn posonly): ln P - ln((R'+1)/(|R|+2)) - L/P "
        "over gsamplesize random examples generated from the head mode's types (learners "
        "theory and aleph; negatives ignored).",
    )
]
