"""The ``dask`` executor: units run on a Dask ``distributed`` cluster.

Give ``address`` to use a running scheduler (``tcp://host:8786``); without it a
``LocalCluster`` of worker processes is started on the loopback interface and stopped on
``close()``. Units are submitted as impure tasks (each runs exactly once), and results are
gathered in the order of the units. Needs ``pip install 'ilpkit[dask]'``.

``close()`` with units still running (after Ctrl-C or an error) cancels them and stops the
local cluster without dask's warnings about the cancelled tasks; a task whose workers kept
dying (dask's ``KilledWorker``) is a :class:`~ilpkit.core.executor.WorkerLost` error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.executor import ExecutorBase, WorkerLost
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.timelimit import carry_time_limit, unwrap_time_limit
from ilpkit.errors import BackendUnavailable

U = TypeVar("U")
R = TypeVar("R")


class DaskOptions(BaseModel):
    """Options of the ``dask`` executor."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    address: str | None = Field(
        default=None,
        description="Scheduler address (tcp://host:8786); unset: start a LocalCluster.",
    )
    workers: int = Field(default=2, ge=1, description="Workers of the LocalCluster.")
    threads_per_worker: int = Field(default=1, ge=1, description="Threads per local worker.")
    ship_data: bool = Field(
        default=False,
        description="Send the dataset's files to the workers (once per worker, by content) "
        "for a cluster that does not share the caller's filesystem.",
    )


class DaskExecutor(ExecutorBase):
    """Maps units over a ``distributed.Client``."""

    def __init__(self, options: DaskOptions | None = None) -> None:
        self.options = options if options is not None else DaskOptions()
        try:
            import distributed
        except ImportError:
            raise BackendUnavailable(
                "the dask executor needs dask.distributed: pip install 'ilpkit[dask]'"
            ) from None
        client_type: Any = distributed.Client
        cluster_type: Any = distributed.LocalCluster
        self._cluster: Any = None
        if self.options.address is None:
            self._cluster = cluster_type(
                n_workers=self.options.workers,
                threads_per_worker=self.options.threads_per_worker,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            )
            self._client: Any = client_type(self._cluster)
        else:
            self._client = client_type(self.options.address)
        self._killed_worker: type[BaseException] = distributed.KilledWorker
        self._futures: list[Any] = []
        self._closed = False
        self._data: Any = None
        self.ships_data = self.options.ship_data

    def carry(self, data: Any) -> None:
        """Send ``data`` (a :class:`~ilpkit.core.shipping.DataPack`) to every worker once;
        units mapped from now on unpack it first (once per worker and content)."""
        self._check_open()
        self._data = self._client.scatter(data, broadcast=True)

    def map(self, fn: Callable[[U], R], units: Iterable[U]) -> Iterator[R]:
        self._check_open()
        # --time-limit reaches the workers' searches
        if self._data is not None:
            from ilpkit.core.shipping import run_with_data

            futures = self._client.map(
                run_with_data, list(units), fn=carry_time_limit(fn), data=self._data, pure=False
            )
        else:
            futures = self._client.map(carry_time_limit(fn), list(units), pure=False)
        # done futures would keep their results on the cluster
        self._futures = [f for f in self._futures if not f.done()] + futures
        return self._results(futures)

    def _results(self, futures: list[Any]) -> Iterator[R]:
        try:
            for future in futures:
                try:
                    result: R = unwrap_time_limit(future.result())
                except self._killed_worker as exc:
                    raise WorkerLost(f"dask workers kept dying running a unit: {exc}") from None
                yield result
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if not all(f.done() for f in self._futures):
            # stopped early: the cancelled tasks are expected, not worth dask's warnings
            for name in ("distributed", "distributed.worker", "distributed.nanny"):
                logging.getLogger(name).setLevel(logging.ERROR)
        for future in self._futures:
            future.cancel()
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


SPEC = PluginSpec(
    kind="executor",
    name="dask",
    factory=DaskExecutor,
    options=DaskOptions,
    doc="Run units on a Dask distributed cluster (a loopback LocalCluster by default).",
)
