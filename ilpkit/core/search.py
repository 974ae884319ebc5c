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
(:func:`limits_exceeded`) and the search goes on -- one runaway clause never ends a run.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ilpkit.core.backend import BackendProtocol
from ilpkit.core.bottom import BottomClause
from ilpkit.core.coverage import Counts, Coverage, Weighting
from ilpkit.core.errors import ConfigError, IlpkitError, ResourceLimitExceeded
from ilpkit.core.refine import ClauseIds, Refiner
from ilpkit.core.scoring import Scorer as Scorer  # the one Scorer protocol, re-exported
from ilpkit.core.terms import Clause

CoverageBackend = BackendProtocol
"""What a search needs from a backend: the one backend contract."""


class BudgetExhausted(Exception):
    """Raised inside a search when the clause budget is spent (strategies catch it)."""


class TimeLimit:
    """A wall-clock deadline for every search in this process (``--time-limit``): once it
    passes, each search stops as if its budget were spent and returns the best clause found so
    far, so the learner ends soon with what it has. ``reached`` says whether it cut a search.
    Searches run on other processes (the processes/dask executors) do not see it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.reached = False

    def passed(self) -> bool:
        if time.monotonic() >= self.at:
            self.reached = True
        return self.reached


_LIMIT: list[TimeLimit] = []  # the active limit, if any (a stack: nested limits)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[TimeLimit | None]:
    """Apply a :class:`TimeLimit` to every search started or running inside the block."""
    if seconds is None:
        yield None
        return
    if seconds <= 0:
        raise ConfigError(f"time limit {seconds}: expected a positive number of seconds")
    limit = TimeLimit(seconds)
    _LIMIT.append(limit)
    try:
        yield limit
    finally:
        _LIMIT.remove(limit)


def time_is_up() -> bool:
    """Whether the active time limit has passed (learners stop starting new searches)."""
    return bool(_LIMIT) and _LIMIT[-1].passed()


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

    @property
    def length(self) -> int:
        """Literals counting the head."""
        return len(self.body) + 1


Observer = Callable[[Evaluated], None]


@dataclass(frozen=True)
class Acceptance:
    """When a clause may enter a theory (Aleph's ``minpos``, ``minacc``, ``noise``)."""

    minpos: float = 1
    minacc: float = 0.0
    noise: float = 0.0

    def ok(self, counts: Counts) -> bool:
        return (
            counts.tp >= self.minpos and counts.precision >= self.minacc and counts.fp <= self.noise
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
    among: Coverage | None = None
    observers: list[Observer] = field(default_factory=list)
    evaluated: int = 0
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
        self, body: ClauseIds, parent: Evaluated | None = None, origin: Evaluated | None = None
    ) -> Evaluated:
        """Evaluate the clause ``body`` (counted, observed).

        ``parent`` is a clause that ``body`` specialises (adds literals to); its coverage then
        bounds the examples tested.  ``origin`` is the clause ``body`` was reached from by any
        move (default: ``parent``); its number is recorded as the result's ``parent``.
        Raises :class:`BudgetExhausted` when the budget is spent.
        """
        if self.evaluated >= self.budget or (_LIMIT and _LIMIT[-1].passed()):
            raise BudgetExhausted
        known = self._memo.get(body)
        clause = self.bottom.clause(body)
        if known is None:
            among = self.among
            if parent is not None and set(parent.body) <= set(body):
                among = parent.coverage
            ahead = self._ahead.pop(body, None)
            if ahead is not None and ahead[0] is among:
                coverage = ahead[1]
            else:
                try:
                    coverage = self.backend.coverage(clause, among)
                except ResourceLimitExceeded as exc:
                    note_limit(self.backend, str(exc))
                    n = among.size if among is not None else self.backend.n_examples
                    coverage = Coverage(np.zeros(0, dtype=np.int64), n, trusted=True)
        else:
            coverage = known.coverage
        counts = self.weighting.counts(coverage)
        score = self.scorer.score(
            counts, len(body) + 1, parent.counts if parent is not None else None
        )
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
        )
        self._memo[body] = result
        for observer in self.observers:
            observer(result)
        return result

    def prefetch(self, bodies: Sequence[ClauseIds], parent: Evaluated) -> None:
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
        if self.evaluated >= self.budget or (_LIMIT and _LIMIT[-1].passed()):
            return
        among = parent.coverage
        mine = set(parent.body)
        todo: list[ClauseIds] = []
        for body in bodies:
            if len(todo) >= self.remaining:
                break
            if body in self._memo or body in self._ahead or not mine <= set(body):
                continue
            todo.append(body)
        if len(todo) < 2:
            return
        try:
            got = self.backend.coverage_many([self.bottom.clause(b) for b in todo], among)
        except IlpkitError:
            return
        for body, coverage in zip(todo, got, strict=True):
            self._ahead[body] = (among, coverage)

    def better(self, a: Evaluated, b: Evaluated | None) -> bool:
        """Whether ``a`` beats ``b``: higher score, then shorter, then earlier (deterministic)."""
        if b is None:
            return True
        return (a.score, -len(a.body)) > (b.score, -len(b.body))

    def acceptable(self, e: Evaluated) -> bool:
        return self.acceptance.ok(e.counts)


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


def note_limit(backend: object, message: str) -> None:
    """Count one clause over a resource limit on ``backend`` (kept: the first message)."""
    count = limits_exceeded(backend)
    backend.limits_exceeded = count + 1  # type: ignore[attr-defined]
    if count == 0:
        backend.first_limit_message = message  # type: ignore[attr-defined]


def limits_exceeded(backend: object) -> int:
    """How many clauses evaluated by searches on ``backend`` exceeded a resource limit."""
    return int(getattr(backend, "limits_exceeded", 0))


def sort_key(e: Evaluated) -> tuple[float, int, int]:
    """Best first: score descending, then fewer literals, then evaluation order."""
    return (-e.score, len(e.body), e.number)
