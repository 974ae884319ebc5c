"""One clause over a resource limit never ends a run (issue 20 item 2).

Asked directly (``backend.coverage``), a clause whose proof exceeds ``step_limit`` or
``timeout`` raises :class:`~ilpkit.errors.ResourceLimitExceeded`.  Everything a run does
with clauses -- searches, learners that ask coverage themselves (R4F, static RF, TILDE,
GleanerSRL, Gleaner, boosting, ensembles), theory scoring, predicting test folds -- goes
through :func:`coverage_within_limits` / :func:`coverage_many_within_limits` instead: there
the clause covers none of the examples it was asked about (it is skipped, the same way
everywhere), the backend counts it (:func:`limits_exceeded`) and the run goes on.  Runs
report the count (``results.json`` ``limits_exceeded``, ``ilpkit learn``/``cv`` output).

Saturation drops a mode goal over a limit (:func:`ilpkit.core.bottom.saturate`);
:func:`note_dropped` counts those goals on the backend too (:func:`goals_dropped`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ilpkit.core.coverage import Coverage
from ilpkit.errors import ResourceLimitExceeded
from ilpkit.prolog.terms import Clause


def note_limit(backend: object, message: str) -> None:
    """Count one clause over a resource limit on ``backend`` (kept: the first message)."""
    count = limits_exceeded(backend)
    backend.limits_exceeded = count + 1  # type: ignore[attr-defined]
    if count == 0:
        backend.first_limit_message = message  # type: ignore[attr-defined]


def limits_exceeded(backend: object) -> int:
    """How many clauses evaluated during runs on ``backend`` exceeded a resource limit."""
    return int(getattr(backend, "limits_exceeded", 0))


def note_dropped(backend: object, goals: int) -> None:
    """Count ``goals`` mode goals that saturation dropped over a resource limit."""
    if goals:
        backend.goals_dropped = goals_dropped(backend) + goals  # type: ignore[attr-defined]


def goals_dropped(backend: object) -> int:
    """How many mode goals saturations on ``backend`` dropped over a resource limit."""
    return int(getattr(backend, "goals_dropped", 0))


def empty_coverage(backend: Any, among: Coverage | None) -> Coverage:
    """No example (of ``among``, or of the task)."""
    n = among.size if among is not None else int(backend.n_examples)
    return Coverage(np.zeros(0, dtype=np.int64), n, trusted=True)


def coverage_within_limits(backend: Any, clause: Clause, among: Coverage | None = None) -> Coverage:
    """``backend.coverage(clause, among)``, or no example when the clause exceeds a resource
    limit (counted on the backend)."""
    try:
        covered: Coverage = backend.coverage(clause, among)
    except ResourceLimitExceeded as exc:
        note_limit(backend, str(exc))
        return empty_coverage(backend, among)
    return covered


def coverage_many_within_limits(
    backend: Any, clauses: Sequence[Clause], among: Coverage | None = None
) -> list[Coverage]:
    """``backend.coverage_many(clauses, among)``; when the batch meets a resource limit, each
    clause is asked alone so that only those over the limit cover nothing (and are counted)."""
    if not clauses:
        return []
    try:
        return list(backend.coverage_many(list(clauses), among))
    except ResourceLimitExceeded:
        return [coverage_within_limits(backend, c, among) for c in clauses]
