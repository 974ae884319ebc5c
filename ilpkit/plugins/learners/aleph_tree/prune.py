"""Pessimistic pruning of a classification tree's rules (C4.5's confidence ``CF``).

C4.5 (Quinlan 1993, ch. 4 and, for rules, ch. 5) estimates the error rate of a set of N
training cases with E errors by the upper limit ``U_CF(E, N)`` of the binomial confidence
interval: the rate p at which seeing E or fewer errors in N cases has probability CF,

    sum_{k=0}^{E} C(N, k) p^k (1 - p)^(N - k) = CF.

Aleph prunes each leaf's rule (the path clause) on its own, greedily: among the clauses with
one body literal fewer that are still within the mode language, the one whose estimate over
all training examples it covers is lowest (the last of equals) replaces the rule while that
estimate does not exceed the rule's, and again until no deletion qualifies.  A negated test
counts as its literal for the mode check; a negated conjunction is in no mode, so a clause
that keeps one is not within the mode language.  The errors of a set of examples are those
outside its majority class.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ilpkit.core.bias import Mode
from ilpkit.plugins.learners.aleph_tree.refine import instance_of, var_name
from ilpkit.prolog.terms import Clause, Struct, Term, Var

IdArray = npt.NDArray[np.int64]

TOLERANCE = 1e-5
"""Bisection stops once the binomial tail is this close to CF (Aleph's tolerance)."""


def binomial_cdf(n: int, p: float, e: int) -> float:
    """P(X <= e) for X ~ Binomial(n, p)."""
    if e < 0:
        return 0.0
    return sum(math.comb(n, k) * p**k * (1.0 - p) ** (n - k) for k in range(min(e, n) + 1))


def upper_error_rate(errors: float, total: float, cf: float) -> float:
    """C4.5's ``U_CF(E, N)``: the error rate p with ``P(X <= E | N, p) = CF``, by bisection
    until the tail is within :data:`TOLERANCE` of CF (``N = 0``: rate 1)."""
    n, e = round(total), round(errors)
    if n <= 0:
        return 1.0
    lo, hi = 0.0, 1.0  # tail(lo) = 1 >= CF >= tail(hi) = 0 (for e < n)
    if e >= n:
        return 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        tail = binomial_cdf(n, mid, e)
        if abs(tail - cf) < TOLERANCE:
            return mid
        if tail > cf:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def majority_errors(counts: npt.NDArray[np.float64]) -> float:
    """Examples outside the majority class of class counts ``counts``."""
    return float(counts.sum() - counts.max()) if len(counts) else 0.0


def stripped(literal: Term) -> Term:
    """A negated test as its literal (for the mode check)."""
    if isinstance(literal, Struct) and literal.name == "not" and len(literal.args) == 1:
        return literal.args[0]
    return literal


@dataclass(frozen=True)
class ModeLanguage:
    """Whether a clause's body is within the mode language: every literal an instance of a
    body mode whose ``+`` places hold variables of the right type seen before (in the head
    or an earlier literal's ``+``/``-`` place), whose ``#`` places hold constants of the
    type's facts."""

    head_types: tuple[tuple[Var, str], ...]
    modes: tuple[Mode, ...]
    constants: dict[str, tuple[Term, ...]]

    def linked(self, body: Sequence[Term]) -> bool:
        typed: list[tuple[Var, str]] = list(self.head_types)
        for literal in body:
            lit = stripped(literal)
            mode = next((m for m in self.modes if self._fits(lit, m, typed)), None)
            if mode is None:
                return False
            for place in mode.outputs():
                value = _at(lit, place.path)
                if isinstance(value, Var):
                    typed.append((value, place.type))
        return True

    def _fits(self, lit: Term, mode: Mode, typed: list[tuple[Var, str]]) -> bool:
        if not instance_of(lit, mode.template):
            return False
        for place in mode.inputs():
            if (_at(lit, place.path), place.type) not in typed:
                return False
        for place in mode.constants():
            if _at(lit, place.path) not in self.constants.get(place.type, ()):
                return False
        for place in mode.outputs():
            value = _at(lit, place.path)
            if not isinstance(value, Var):
                return False
            if any(v == value and t != place.type for v, t in typed):
                return False
        return True


def _at(term: Term, path: tuple[int, ...]) -> Term:
    for k in path:
        assert isinstance(term, Struct)
        term = term.args[k]
    return term


@dataclass
class PrunedRule:
    body: tuple[Term, ...]
    error: float
    """The pessimistic error rate of the rule as pruned."""
    changed: bool
    """Its estimate fell below the unpruned rule's (the rule's examples are re-proved)."""


def prune_rule(
    head: Term,
    body: tuple[Term, ...],
    leaf_counts: npt.NDArray[np.float64],
    cf: float,
    language: ModeLanguage,
    counts_of: Callable[[Clause], npt.NDArray[np.float64]],
) -> PrunedRule:
    """Greedy deletion of body literals (C4.5's rule pruning as Aleph applies it).

    ``leaf_counts`` are the class counts of the leaf's examples; ``counts_of(clause)`` the
    class counts of the training examples a shorter clause covers."""
    start = upper_error_rate(majority_errors(leaf_counts), leaf_counts.sum(), cf)
    current, err = body, start
    while True:
        best_body, best_err = current, err
        for k in range(len(current)):
            shorter = current[:k] + current[k + 1 :]
            if not language.linked(shorter):
                continue
            counts = counts_of(Clause(head, shorter))
            estimate = upper_error_rate(majority_errors(counts), counts.sum(), cf)
            if estimate <= best_err:
                best_body, best_err = shorter, estimate
        if best_body == current:
            break
        current, err = best_body, best_err
    return PrunedRule(current, err, err < start)


__all__ = [
    "ModeLanguage",
    "PrunedRule",
    "binomial_cdf",
    "majority_errors",
    "prune_rule",
    "upper_error_rate",
    "var_name",
]
