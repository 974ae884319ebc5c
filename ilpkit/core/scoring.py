"""What a clause scorer is, and the weighted ranking scores PRankBoost and RankBoost use.

A :class:`Scorer` turns a clause's weighted counts (:class:`~ilpkit.core.coverage.Counts`)
into a number, higher being better; searches compare clauses with it. Built-in scorers are
plugins of kind ``"scorer"`` (``ilpkit.plugins.scorers``); a third-party scorer implements
the same protocol and registers through the same hook.

The single-clause ranking scores of prankboost-ilp2009 live here, as plain functions, so
learners can use them without a plugin lookup: :func:`weighted_aurpc_point` (PRankBoost.Clause's
objective and r, sec. 4), :func:`weighted_aurpc_path` (PRankBoost.Path) and
:func:`weighted_auroc_r` (RankBoost.B's r). Every area comes from :func:`ilpkit.core.metrics.aurpc`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ilpkit.core.coverage import Counts
from ilpkit.core.metrics import aurpc, pr_points_from_counts

__all__ = [
    "PathScorer",
    "Scorer",
    "weighted_auroc_r",
    "weighted_aurpc_path",
    "weighted_aurpc_point",
]


@runtime_checkable
class Scorer(Protocol):
    """Scores one clause from its weighted counts; higher is better.

    ``clause_length`` is the number of literals of the clause counting the head (Aleph's L,
    ``clauselength``): 1 for the most general clause. ``parent`` is the counts of the clause
    this one was refined from, on the same weights; a scorer that uses it sets
    ``needs_parent`` and treats ``None`` as the most general clause, whose counts are
    (P, N). A scorer with ``needs_path`` scores a whole search path (:class:`PathScorer`).

    A scorer with ``random_examples`` (Aleph's ``posonly``) reads the counts' negatives as
    random examples of the target generated from the head mode's types
    (:mod:`ilpkit.core.random_examples`): a learner that honours it (declared by
    ``LearnerCapabilities.random_examples``) generates ``gsamplesize`` of them once per fit,
    counts them in place of the negatives, which it ignores, and applies no ``noise`` or
    ``minacc`` to them. Such a scorer may also define ``label_score(counts, clause_length)``,
    its value for a clause held before a search (Aleph's start label), where that differs
    from ``score``.

    Subclass this protocol explicitly to inherit the ``False`` defaults of the flags.
    """

    name: str
    needs_path: bool = False
    needs_parent: bool = False
    random_examples: bool = False

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        """The score of a clause with ``counts`` and ``clause_length`` literals."""
        ...


@runtime_checkable
class PathScorer(Scorer, Protocol):
    """A scorer of the clauses on a hill-climbing path (PRankBoost.Path, prankboost-ilp2009).

    ``score_path`` receives the counts of every clause on the path, from the most general
    to the last one; ``score`` scores a single clause as a one-clause path.
    """

    needs_path: bool = True

    def score_path(self, path: Sequence[Counts]) -> float:
        """The score of the whole path."""
        ...


def weighted_aurpc_point(counts: Counts) -> float:
    """Weighted AURPC of one clause (PRankBoost.Clause, prankboost-ilp2009 sec. 4).

    The clause's (TP, FP) is the only point; :func:`~ilpkit.core.metrics.aurpc` extends it
    horizontally to recall 0 and to recall 1 through the most general clause, (P, N).
    """
    return aurpc(pr_points_from_counts([(counts.tp, counts.fp)], counts.p, counts.n))


def weighted_aurpc_path(path: Sequence[Counts]) -> float:
    """Weighted AURPC of the curve through every clause of a path (PRankBoost.Path).

    The points are sorted by TP then FP and extended as in :func:`weighted_aurpc_point`.
    Every clause must be counted on the same weights (equal P and N).
    """
    if not path:
        raise ValueError("the AURPC of a path needs at least one clause")
    p, n = path[0].p, path[0].n
    if any(c.p != p or c.n != n for c in path):
        raise ValueError("the clauses of a path must be counted on the same weights (P, N)")
    return aurpc(pr_points_from_counts([(c.tp, c.fp) for c in path], p, n))


def weighted_auroc_r(counts: Counts) -> float:
    """RankBoost.B's r for a clause h in {0, 1}: TP/P - FP/N (PAPERS.md, "RankBoost").

    r = sum_pos w h - sum_neg w h with weights normalised per class to sum to 1; dividing by
    P and N does that normalisation. The single clause's ROC curve has area (1 + r) / 2.
    A class of zero total weight contributes 0.
    """
    tpr = counts.tp / counts.p if counts.p > 0 else 0.0
    fpr = counts.fp / counts.n if counts.n > 0 else 0.0
    return tpr - fpr
