"""Executors: where independent units of work run.

Independent searches (Gleaner seeds, R4F rules, cross-validation folds) are described as
*units*: small picklable values (a task path or handle, a seed id, options), never live
engines. An executor applies one function to many units and hands the results back in the
order of the units, whether it runs them here, in worker processes or on a Dask cluster, so
the code that calls it never depends on where the work ran.

Executors are plugins of kind ``"executor"`` (see :mod:`ilpkit.core.plugins`); the built-in
``local`` one runs units serially in this process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Protocol, Self, TypeVar, runtime_checkable

from ilpkit.errors import IlpkitError

U = TypeVar("U")
R = TypeVar("R")


class WorkerLost(IlpkitError):
    """A worker process died while running a unit (killed, out of memory): the run stops
    with a message instead of a traceback; a run directory's finished units are kept."""


@runtime_checkable
class Executor(Protocol):
    """Runs a function over units of work and yields the results in order."""

    in_process: bool
    """Whether ``map`` runs the units in the calling process (then a cross-validation runs
    its folds there one after another and a learner's members with them)."""

    def map(self, fn: Callable[[U], R], units: Iterable[U]) -> Iterator[R]:
        """Yield ``fn(unit)`` for each unit, in the order of ``units``.

        ``fn`` must be a module-level function and each unit picklable, so that executors
        running work in other processes or machines can ship them. An exception raised by
        ``fn`` is raised from the iterator when its result is reached; a worker that died
        raises :class:`WorkerLost` there.
        """
        ...

    def close(self) -> None:
        """Release workers and connections; the executor is unusable afterwards. Units still
        running (after Ctrl-C, an error, or when the caller stopped reading) are stopped, not
        waited for."""
        ...


def runs_in_process(executor: object) -> bool:
    """What ``executor`` declares as ``in_process``; an executor that declares nothing is
    taken to run its units elsewhere (members are shipped to it, the safe choice)."""
    return bool(getattr(executor, "in_process", False))


class ExecutorBase:
    """Context-manager plumbing shared by executors: ``with`` closes, a closed one refuses."""

    _closed = False
    in_process: bool = False

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this executor is closed")

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
