"""Search strategies over the clauses a bottom clause allows, and what they share.

A strategy receives a :class:`SearchContext` -- bottom clause, backend, scorer, example
weights, budget, random generator, observers -- and returns the best acceptable clause it
found.  Every clause it evaluates goes through :meth:`SearchContext.evaluate`, which counts it
("clauses evaluated", the x-axis of the papers' learning curves) and hands it to the
observers, so a learner can keep what it wants from the stream (Gleaner's recall bins,
PRankBoost's path) without the strategy knowing.

Coverage of a refinement that adds a literal is computed only on the examples its parent
covered (``among``); a clause that drops a literal is evaluated on the context's examples.

A clause whose coverage exceeds a resource limit (``step_limit``, ``timeout``) covers no
example: it scores as the empty coverage, is counted on the backend
(:mod:`ilpkit.core.limits`) and the search goes on -- one runaway clause never ends a run.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ilpkit.core.aleph_hooks import HookGate
from ilpkit.core.backend import BackendProtocol
from ilpkit.core.bottom import BottomClause
from ilpkit.core.coverage import Counts, Coverage, Weighting
from ilpkit.core.limits import coverage_within_limits
from ilpkit.core.limits import limits_exceeded as limits_exceeded  # re-exported
from ilpkit.core.limits import note_limit as note_limit  # re-exported
from ilpkit.core.refine import ClauseIds, Refiner
from ilpkit.core.scoring import Scorer as Scorer  # the one Scorer protocol, re-exported
from ilpkit.core.timelimit import TimeLimit as TimeLimit
from ilpkit.core.timelimit import time_is_up as time_is_up
from ilpkit.core.timelimit import time_limit as time_limit
from ilpkit.errors import IlpkitError
from ilpkit.prolog.terms import Clause

CoverageBackend = BackendProtocol
"""What a search needs from a backend: the one backend contract."""


class BudgetExhausted(Exception):
    """Raised inside a search when the clause budget is spent (strategies catch it)."""


@dataclass(frozen=True, slots=True)
class Evaluated:
    """A clause with its coverage and score."""

    body: ClauseIds
    clause: Clause
    coverage: Coverage
    counts: Counts
    score: float
    number: int  # 1-based position in the stream of evaluated clauses
    parent: int | None = None
    """``number`` of the evaluated clause this one was reached from (None: a start); following
    parents gives a clause's search trajectory (dissertation 5.1.2)."""
    veto: str | None = None
    """Which of Aleph's hooks refuses the clause (:mod:`ilpkit.core.aleph_hooks`): ``"prune"``
    (not evaluated: it covers nothing and is neither acceptable nor refined) or ``"false"``
    (a constraint holds: not acceptable, still refined; asked only of a clause the
    acceptance settings accept); None: neither."""

    @property
    def length(self) -> int:
        """Literals counting the head."""
        return len(self.body) + 1


Observer = Callable[[Evaluated], None]


@dataclass(frozen=True)
class Acceptance:
    """When a clause may enter a theory (Aleph's ``minpos``, ``minacc``, ``noise``,
    ``minscore``).

    ``minscore`` follows the Aleph manual ("minscore": a best clause scoring below it is not
    added to the theory); checking it on every clause is the same rule, since the best
    acceptable clause scores below it exactly when no acceptable clause reaches it."""

    minpos: float = 1
    minacc: float = 0.0
    noise: float = 0.0
    minscore: float = -math.inf

    def ok(self, counts: Counts, score: float = math.inf) -> bool:
        return (
            counts.tp >= self.minpos
            and counts.precision >= self.minacc
            and counts.fp <= self.noise
            and score >= self.minscore
        )


@dataclass
class SearchContext:
    """Everything a search needs; the single gate through which clauses are evaluated."""

    bottom: BottomClause
    backend: CoverageBackend
    scorer: Scorer
    weighting: Weighting
    budget: int
    rng: random.Random
    clauselength: int
    acceptance: Acceptance = field(default_factory=Acceptance)
    explore: bool = False
    """Aleph's ``explore`` setting: prune only what is *definitely worse* than the best clause
    (bound < best), not what is *no better* (bound <= best); see :mod:`ilpkit.plugins.search.
    topdown`."""
    incumbent: float = -math.inf
    """Score of a clause held before the search starts -- Aleph's start label, the seed kept
    as a ground fact when nothing beats it (``[1,0,2,F]``). Strategies that honour it prune
    against it as against a best clause found and return only a clause scoring above it."""
    free: frozenset[int] = frozenset()
    """Bottom-clause literals that add nothing to a clause's length (Aleph's operator does not
    count ``=`` literals: its ``clauselength`` and length-aware scores skip them)."""
    among: Coverage | None = None
    hooks: HookGate | None = None
    """Aleph's ``prune/1`` and ``false/0`` from the data, asked of each clause evaluated (a
    search honours them by refining no pruned clause: ``Evaluated.veto``)."""
    stop_at_tp: float | None = None
    """Aleph's early stop (its ``discontinue_search``, checked before each clause is made):
    the top-down searches end as soon as the best clause covers this many positives (the
    learner sets it to all its training positives); None: search on."""
    observers: list[Observer] = field(default_factory=list)
    evaluated: int = 0
    memo: bool = True
    """Keep every evaluated clause (with its coverage) so a clause met again is not tested
    again; a search that never meets a clause twice turns it off to hold less memory."""
    _memo: dict[ClauseIds, Evaluated] = field(default_factory=dict, repr=False)
    _refiner: Refiner | None = field(default=None, repr=False)
    _ahead: dict[ClauseIds, tuple[Coverage, Coverage]] = field(default_factory=dict, repr=False)
    """Coverage computed by :meth:`prefetch`, with the ``among`` it was computed on."""

    @property
    def refiner(self) -> Refiner:
        if self._refiner is None:
            self._refiner = Refiner(self.bottom, self.clauselength)
        return self._refiner

    @property
    def remaining(self) -> int:
        return self.budget - self.evaluated

    def evaluate(
        self,
        body: ClauseIds,
        parent: Evaluated | None = None,
        origin: Evaluated | None = None,
        order: Sequence[int] | None = None,
    ) -> Evaluated:
        """Evaluate the clause ``body`` (counted, observed).

        ``parent`` is a clause that ``body`` specialises (adds literals to); its coverage then
        bounds the examples tested.  ``origin`` is the clause ``body`` was reached from by any
        move (default: ``parent``); its number is recorded as the result's ``parent``.
        ``order``: the body's literals in the order the clause lists them (default: bottom-
        clause order; a search whose clauses are sequences, where a literal may take its input
        from a later literal of the bottom clause, gives its sequence).
        Raises :class:`BudgetExhausted` when the budget is spent.
        """
        if self.evaluated >= self.budget or time_is_up():
            raise BudgetExhausted
        known = self._memo.get(body)
        clause = self.bottom.clause(body) if order is None else self.bottom.ordered(order)
        veto = None
        if self.hooks is not None and self.hooks.pruned(clause):
            veto = "prune"  # Aleph makes the clause but proves nothing of it
            coverage = Coverage.empty(self.backend.n_examples)
        elif known is None:
            among = self.among
            if parent is not None and set(parent.body) <= set(body):
                among = parent.coverage
            ahead = self._ahead.pop(body, None)
            if ahead is not None and ahead[0] is among:
                coverage = ahead[1]
            else:
                coverage = coverage_within_limits(self.backend, clause, among)
        else:
            coverage = known.coverage
        counts = self.weighting.counts(coverage)
        score = self.scorer.score(
            counts, self.length(body), parent.counts if parent is not None else None
        )
        if (
            veto is None
            and self.hooks is not None
            and self.acceptance.ok(counts, score)  # it only decides acceptance
            and self.hooks.violated(clause, counts, self.length(body))
        ):
            veto = "false"  # a constraint holds: not acceptable, refined all the same
        self.evaluated += 1
        came_from = origin if origin is not None else parent
        result = Evaluated(
            body,
            clause,
            coverage,
            counts,
            score,
            self.evaluated,
            came_from.number if came_from is not None else None,
            veto,
        )
        if self.memo:
            self._memo[body] = result
        for observer in self.observers:
            observer(result)
        return result

    def length(self, body: ClauseIds) -> int:
        """Literals of the clause ``body``, counting the head and not the ``free`` ones."""
        if self.free.isdisjoint(body):  # no free literals (or none in this clause)
            return len(body) + 1
        return 1 + sum(1 for k in body if k not in self.free)

    def prefetch(
        self,
        bodies: Sequence[ClauseIds],
        parent: Evaluated,
        orders: Sequence[Sequence[int]] | None = None,
    ) -> None:
        """Ask the backend, in one ``coverage_many`` call, for the coverage of the
        refinements ``bodies`` of ``parent`` that :meth:`evaluate` is about to be asked for
        (in that order; as many as the budget leaves).  Only for a backend that says a batch
        is cheaper than its clauses one by one (``prefers_batches``: a Prolog engine, one
        round trip per batch); the results are what :meth:`evaluate` would compute, which
        then takes them instead.  A batch that fails (a clause over a resource limit, an
        engine error) is dropped: :meth:`evaluate` then asks clause by clause, as without
        it, and reports the error at the same clause."""
        if not getattr(self.backend, "prefers_batches", False):
            return
        if self.evaluated >= self.budget or time_is_up():
            return
        among = parent.coverage
        mine = set(parent.body)
        todo: list[ClauseIds] = []
        clauses: list[Clause] = []
        for i, body in enumerate(bodies):
            if len(todo) >= self.remaining:
                break
            if body in self._memo or body in self._ahead or not mine <= set(body):
                continue
            clause = self.bottom.clause(body) if orders is None else self.bottom.ordered(orders[i])
            if self.hooks is not None and self.hooks.pruned(clause):
                continue  # evaluate proves nothing of it
            todo.append(body)
            clauses.append(clause)
        if len(todo) < 2:
            return
        try:
            got = self.backend.coverage_many(clauses, among)
        except IlpkitError:
            return
        for body, coverage in zip(todo, got, strict=True):
            self._ahead[body] = (among, coverage)

    def better(self, a: Evaluated, b: Evaluated | None) -> bool:
        """Whether ``a`` beats ``b``: higher score, then shorter, then earlier (deterministic)."""
        if b is None:
            return True
        return (a.score, -len(a.body)) > (b.score, -len(b.body))

    def done(self, best: Evaluated | None) -> bool:
        """Whether ``best`` ends the search early: it covers ``stop_at_tp`` positives."""
        return (
            self.stop_at_tp is not None and best is not None and best.counts.tp >= self.stop_at_tp
        )

    def acceptable(self, e: Evaluated) -> bool:
        return e.veto is None and self.acceptance.ok(e.counts, e.score)


class SearchStrategy(Protocol):
    """A search plugin: ``run`` returns the best acceptable clause found, or None."""

    name: str

    def run(self, ctx: SearchContext) -> Evaluated | None: ...


@dataclass
class Trajectory:
    """An observer recording every evaluated clause (tests, learning curves)."""

    items: list[Evaluated] = field(default_factory=list)

    def __call__(self, e: Evaluated) -> None:
        self.items.append(e)

    def __iter__(self) -> Iterator[Evaluated]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


def sort_key(e: Evaluated) -> tuple[float, int, int]:
    """Best first: score descending, then fewer literals, then evaluation order."""
    return (-e.score, len(e.body), e.number)
