"""The ``processes`` executor: units run in N worker processes on this machine.

Workers are started with ``spawn`` (a clean interpreter, safe with in-process Prolog engines
and threads) and live for the executor's lifetime, so each loads its task and backend once
and reuses them for every later unit of the same configuration. Results come back in the
order of the units, whatever order the workers finish in.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.executor import ExecutorBase
from ilpkit.core.plugins import PluginSpec

U = TypeVar("U")
R = TypeVar("R")


class ProcessesOptions(BaseModel):
    """Options of the ``processes`` executor."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    workers: int | None = Field(
        default=None, ge=1, description="Worker processes (default: the number of CPUs)."
    )


class ProcessesExecutor(ExecutorBase):
    """A pool of spawned worker processes; ``map`` submits every unit and yields in order."""

    def __init__(self, options: ProcessesOptions | None = None) -> None:
        self.options = options if options is not None else ProcessesOptions()
        workers = self.options.workers or os.cpu_count() or 1
        self._pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn")
        )
        self._closed = False

    def map(self, fn: Callable[[U], R], units: Iterable[U]) -> Iterator[R]:
        self._check_open()
        futures = [self._pool.submit(fn, unit) for unit in units]
        return self._results(futures)

    def _results(self, futures: list[Future[R]]) -> Iterator[R]:
        try:
            for future in futures:
                yield future.result()
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        """Stop the workers; units not started are cancelled."""
        if not self._closed:
            self._closed = True
            self._pool.shutdown(wait=True, cancel_futures=True)


SPEC = PluginSpec(
    kind="executor",
    name="processes",
    factory=ProcessesExecutor,
    options=ProcessesOptions,
    doc="Run units in N spawned worker processes on this machine (results in unit order).",
)
