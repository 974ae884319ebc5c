"""``--time-limit``: one wall-clock deadline for every search of a run, wherever it runs.

A search checks :func:`time_is_up` as it evaluates clauses and stops as if its budget were
spent, keeping the best clause found so far; learners stop starting new searches. Units run
on other processes or machines (the processes and dask executors) get the same deadline:
executors wrap the function they ship with :func:`carry_time_limit`, which sends the deadline
as epoch seconds (monotonic clocks are per machine) and reports back whether it cut a search
(:func:`unwrap_time_limit`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from ilpkit.errors import ConfigError

U = TypeVar("U")
R = TypeVar("R")


class TimeLimit:
    """A deadline for every search in this process; ``reached`` says whether it cut one."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.reached = False

    def passed(self) -> bool:
        if time.monotonic() >= self.at:
            self.reached = True
        return self.reached

    def remaining(self) -> float:
        """Seconds left (negative once passed)."""
        return self.at - time.monotonic()


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


_STOP: list[str] = []
"""Why every search should stop now, whatever the time (the first Ctrl-C, SIGTERM or SIGHUP
on ``learn``: :func:`request_stop`); empty: no stop asked for."""


def request_stop(why: str) -> None:
    """Make every search in this process stop as at its time limit, keeping its best clause
    (``learn`` on the first Ctrl-C, SIGTERM or SIGHUP: the model found so far is then
    written)."""
    if not _STOP:
        _STOP.append(why)


def stop_requested() -> str | None:
    """Why a stop was asked for (:func:`request_stop`), or None."""
    return _STOP[0] if _STOP else None


def clear_stop() -> None:
    """Forget a stop asked for (the command that asked is done)."""
    _STOP.clear()


def time_is_up() -> bool:
    """Whether the active time limit has passed or a stop was asked for (learners stop
    starting new searches, saturation stops adding literals)."""
    return bool(_STOP) or (bool(_LIMIT) and _LIMIT[-1].passed())


class _Cut(Generic[R]):
    """A unit's result and whether the time limit cut a search while it ran.

    This and :class:`_UnderDeadline` are plain classes, not dataclasses: only executors use
    them, and a dataclass costs every command's start-up about 1.5 ms to build."""

    __slots__ = ("reached", "value")

    def __init__(self, value: R, reached: bool) -> None:
        self.value = value
        self.reached = reached


class _UnderDeadline(Generic[U, R]):
    """``fn`` run under the deadline of the process that shipped it (picklable if ``fn`` is)."""

    __slots__ = ("deadline_epoch", "fn", "seconds")

    def __init__(self, fn: Callable[[U], R], seconds: float, deadline_epoch: float) -> None:
        self.fn = fn
        self.seconds = seconds
        self.deadline_epoch = deadline_epoch

    def __call__(self, unit: U) -> _Cut[R]:
        limit = TimeLimit(self.seconds)
        limit.at = time.monotonic() + (self.deadline_epoch - time.time())
        _LIMIT.append(limit)
        try:
            value = self.fn(unit)
        finally:
            _LIMIT.remove(limit)
        return _Cut(value, limit.reached)


def carry_time_limit(fn: Callable[[U], R]) -> Callable[[U], Any]:
    """``fn`` as an executor should ship it: under this process's active time limit, if any
    (its results then need :func:`unwrap_time_limit`)."""
    if not _LIMIT:
        return fn
    limit = _LIMIT[-1]
    return _UnderDeadline(fn, limit.seconds, time.time() + limit.remaining())


def unwrap_time_limit(result: Any) -> Any:
    """A shipped unit's own result; a cut on the worker marks this process's limit reached."""
    if isinstance(result, _Cut):
        if result.reached and _LIMIT:
            _LIMIT[-1].reached = True
        return result.value
    return result
