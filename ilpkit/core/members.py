"""Ensemble members shipped to an executor's workers (:meth:`LearnContext.run_members`).

A module of its own, imported when a learner ships members: a single theory never does,
and these dataclasses cost every run's start-up when :mod:`ilpkit.core.learner` held them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ilpkit.core.limits import goals_dropped, limits_exceeded, note_dropped

if TYPE_CHECKING:
    from ilpkit.core.learner import LearnContext
    from ilpkit.core.task import Task

__all__ = ["MemberJob", "MemberOutcome", "Shipped", "add_worker_counts", "member_outcome"]

M = TypeVar("M")


@dataclass(frozen=True)
class Shipped(Generic[M]):
    """How a learner's member runs on an executor's worker (:meth:`LearnContext.run_members`).

    ``run(task, ctx, payload)`` is a module-level function returning plain data; the
    framework rebuilds ``task`` and ``ctx`` (backend, search, scorer, seed) in the worker
    from the run's recipe. ``payload(k)`` is member k's picklable part; ``decode`` turns the
    plain data back into the member here.
    """

    run: Callable[[Task, LearnContext, Any], Any]
    payload: Callable[[int], Any]
    decode: Callable[[Any], M]


@dataclass(frozen=True)
class MemberJob:
    """One member as shipped to a worker: the recipe, the seed, the learner's function."""

    recipe: Any
    seed: int
    run: Callable[[Task, LearnContext, Any], Any]
    payload: Any


@dataclass(frozen=True)
class MemberOutcome:
    """A shipped member's plain-data result and what it counted on the worker's backend:
    clauses over a resource limit and saturation goals dropped (summed into the parent's
    backend, so a run reports the same counts wherever its members ran)."""

    result: Any
    limits_exceeded: int = 0
    goals_dropped: int = 0
    first_limit_message: str | None = None


def member_outcome(job: MemberJob, task: Task, ctx: LearnContext) -> MemberOutcome:
    """Run ``job`` on a worker's ``task`` and ``ctx`` (rebuilt by the runner from the job's
    recipe), with what it counted on the worker's backend."""
    limits, dropped = limits_exceeded(ctx.backend), goals_dropped(ctx.backend)
    result = job.run(task, ctx, job.payload)
    new_limits = limits_exceeded(ctx.backend) - limits
    return MemberOutcome(
        result,
        new_limits,
        goals_dropped(ctx.backend) - dropped,
        getattr(ctx.backend, "first_limit_message", None) if new_limits else None,
    )


def add_worker_counts(backend: object, outcome: MemberOutcome) -> Any:
    """Add a worker's counts to ``backend``; the member's result."""
    if outcome.limits_exceeded:
        if limits_exceeded(backend) == 0 and outcome.first_limit_message is not None:
            backend.first_limit_message = outcome.first_limit_message  # type: ignore[attr-defined]
        backend.limits_exceeded = (  # type: ignore[attr-defined]
            limits_exceeded(backend) + outcome.limits_exceeded
        )
    note_dropped(backend, outcome.goals_dropped)
    return outcome.result
