"""The ``processes`` executor: units run in N worker processes on this machine.

Workers are started with ``spawn`` (a clean interpreter, safe with in-process Prolog engines
and threads) and live for the executor's lifetime, so each loads its task and backend once
and reuses them for every later unit of the same configuration. Results come back in the
order of the units, whatever order the workers finish in.

Stopping: Ctrl-C is the parent's alone (workers ignore SIGINT); ``close()`` with units still
running -- after Ctrl-C, an error, or a consumer that stopped early -- terminates the workers
(SIGTERM, which makes each stop its Prolog engines and remove its temporary folders, then
SIGKILL after :data:`GRACE_SECONDS`) instead of waiting for their units. A worker dies with
its parent (see :func:`ilpkit.core.lifecycle.worker_init`), and a worker that dies (killed,
out of memory) is a :class:`WorkerLost` error, not a ``BrokenProcessPool`` traceback.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core import lifecycle
from ilpkit.core.executor import ExecutorBase, WorkerLost
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.timelimit import carry_time_limit, unwrap_time_limit

U = TypeVar("U")
R = TypeVar("R")

GRACE_SECONDS = 3.0
"""How long terminated workers get to clean up before they are killed."""


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
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=lifecycle.worker_init,
            initargs=(os.getpid(),),
        )
        self._futures: list[Future[Any]] = []
        self._workers: dict[int, Any] = {}  # pid -> multiprocessing.Process, every one started
        self._closed = False
        # a second Ctrl-C (or a signal) ends the process at once: workers first
        self._kill_all = lifecycle.track(self._kill_workers)

    def map(self, fn: Callable[[U], R], units: Iterable[U]) -> Iterator[R]:
        self._check_open()
        futures: list[Future[Any]] = []
        shipped = carry_time_limit(fn)  # --time-limit reaches the workers' searches
        try:
            for unit in units:
                futures.append(self._pool.submit(shipped, unit))
                self._workers.update(self._pool._processes or {})  # started on demand
        except BrokenProcessPool:  # a worker died while units were still being submitted
            raise WorkerLost(self._deaths()) from None
        finally:
            # only unfinished ones matter to close(); done ones would keep their results alive
            self._futures = [f for f in self._futures if not f.done()] + futures
        return self._results(futures)

    def _results(self, futures: list[Future[Any]]) -> Iterator[Any]:
        # No future is cancelled here: the pool's manager thread, when a worker dies, sets an
        # exception on every pending future and fails on a cancelled one (Python 3.11).
        # ``close()`` stops whatever is still pending.
        for future in futures:
            try:
                result = future.result()
            except BrokenProcessPool:
                raise WorkerLost(self._deaths()) from None
            yield unwrap_time_limit(result)

    def _deaths(self) -> str:
        """What happened to the workers that died, for :class:`WorkerLost`."""
        # the pool's manager thread may be reaping them right now: give it a moment
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline and not any(
            p.exitcode not in (None, 0, 128 + signal.SIGTERM) for p in self._workers.values()
        ):
            time.sleep(0.02)
        died, stopped = [], []
        for pid, process in sorted(self._workers.items()):
            code = process.exitcode
            if code in (None, 0):
                continue
            if code == 128 + signal.SIGTERM:  # stopped by the pool after another one died
                stopped.append(f"pid {pid} exited with status {code}")
            elif code < 0 and -code in signal.valid_signals():
                name = signal.Signals(-code).name
                hint = " (kill -9, or the out-of-memory killer)" if name == "SIGKILL" else ""
                died.append(f"pid {pid} killed by {name}{hint}")
            else:
                died.append(f"pid {pid} exited with status {code}")
        what = "; ".join(died or stopped) or "killed, or out of memory?"
        return f"a worker process died while running a unit: {what}"

    def close(self) -> None:
        """Stop the workers. When every unit has finished this waits for them to exit; with
        units still running or pending it terminates them (those units fail)."""
        if self._closed:
            return
        self._closed = True
        lifecycle.untrack(self._kill_all)
        if self._pool._broken or not all(f.done() for f in self._futures):
            # Units still running: the pool's manager thread sees the workers die and fails
            # the pending futures. A broken pool (a worker died): its manager thread has
            # failed every future and now joins the other workers, which it only asked to
            # stop -- make sure they do, or shutdown() below waits for ever.
            self._stop_workers()
        self._pool.shutdown(wait=True)

    def _stop_workers(self) -> None:
        """SIGTERM every worker, wait up to :data:`GRACE_SECONDS`, SIGKILL the rest."""
        workers = list({**self._workers, **(self._pool._processes or {})}.values())
        for process in workers:
            with contextlib.suppress(Exception):
                process.terminate()
        deadline = time.monotonic() + GRACE_SECONDS
        waiting = [p for p in workers if _sentinel(p) is not None]
        while waiting and time.monotonic() < deadline:
            ready = multiprocessing.connection.wait(
                [_sentinel(p) for p in waiting], timeout=deadline - time.monotonic()
            )
            waiting = [p for p in waiting if _sentinel(p) not in ready]
        for process in waiting:  # still running: its sentinel is not ready, so not reaped
            with contextlib.suppress(Exception):
                process.kill()

    def _kill_workers(self) -> None:
        """On a second signal: SIGTERM each worker (it cleans up and exits) without waiting."""
        for process in list(self._workers.values()):
            with contextlib.suppress(Exception):
                process.terminate()


def _sentinel(process: Any) -> Any:
    with contextlib.suppress(ValueError):  # a closed Process object
        return process.sentinel
    return None


SPEC = PluginSpec(
    kind="executor",
    name="processes",
    factory=ProcessesExecutor,
    options=ProcessesOptions,
    doc="Run units in N spawned worker processes on this machine (results in unit order).",
)
