"""The ``local`` executor: runs units one after another in this process.

The default executor, and the reference the parallel ones are compared with: same results,
same order. With ``check_pickle`` it also pickles the function and every unit first, so work
that would fail to ship to the ``processes`` or ``dask`` executors fails here too.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.executor import ExecutorBase
from ilpkit.core.plugins import PluginSpec

U = TypeVar("U")
R = TypeVar("R")


class LocalOptions(BaseModel):
    """Options of the ``local`` executor."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check_pickle: bool = Field(
        default=False,
        description=(
            "Pickle the function and every unit before running it, to catch work that the "
            "processes and dask executors could not ship to their workers."
        ),
    )


class LocalExecutor(ExecutorBase):
    """Serial executor: ``map`` is a lazy, in-order ``map`` in the calling process."""

    in_process = True

    def __init__(self, options: LocalOptions | None = None) -> None:
        self.options = options if options is not None else LocalOptions()
        self._closed = False

    def map(self, fn: Callable[[U], R], units: Iterable[U]) -> Iterator[R]:
        """Yield ``fn(unit)`` for each unit, in order, computing each when it is asked for."""
        self._check_open()
        if self.options.check_pickle:
            _check_picklable(fn, "the function")
        return self._run(fn, units)

    def _run(self, fn: Callable[[U], R], units: Iterable[U]) -> Iterator[R]:
        for index, unit in enumerate(units):
            if self.options.check_pickle:
                _check_picklable(unit, f"unit {index}")
            yield fn(unit)

    def close(self) -> None:
        """Nothing to release; further ``map`` calls are refused, as on other executors."""
        self._closed = True


def _check_picklable(value: object, what: str) -> None:
    try:
        pickle.dumps(value)
    except Exception as err:
        raise TypeError(
            f"{what} cannot be pickled ({type(err).__name__}: {err}); executors that run work "
            "in other processes need module-level functions and plain-data units"
        ) from err


SPEC = PluginSpec(
    kind="executor",
    name="local",
    factory=LocalExecutor,
    options=LocalOptions,
    doc="Run units one after another in this process (serial, in order).",
)
