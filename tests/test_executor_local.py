"""The built-in ``local`` executor: serial, lazy, in order."""

from __future__ import annotations

import threading

import pytest

from ilpkit.core.executor import Executor
from ilpkit.core.plugins import PluginManager
from ilpkit.plugins.executors.local import LocalExecutor, LocalOptions


def square(x: int) -> int:
    return x * x


def test_results_in_order() -> None:
    with LocalExecutor() as executor:
        assert isinstance(executor, Executor)
        assert list(executor.map(square, range(5))) == [0, 1, 4, 9, 16]
        assert list(executor.map(square, [])) == []


def test_map_is_lazy() -> None:
    calls: list[int] = []

    def record(x: int) -> int:
        calls.append(x)
        return x

    results = LocalExecutor().map(record, [1, 2, 3])
    assert calls == []
    assert next(results) == 1
    assert calls == [1]


def test_exceptions_surface_at_their_result() -> None:
    def fail_on_two(x: int) -> int:
        if x == 2:
            raise ValueError("two")
        return x

    results = LocalExecutor().map(fail_on_two, [1, 2, 3])
    assert next(results) == 1
    with pytest.raises(ValueError, match="two"):
        next(results)


def test_check_pickle_catches_unshippable_work() -> None:
    executor = LocalExecutor(LocalOptions(check_pickle=True))
    assert list(executor.map(square, [1, 2])) == [1, 4]
    with pytest.raises(TypeError, match="the function cannot be pickled"):
        executor.map(lambda x: x, [1])
    results = executor.map(square, [1, threading.Lock()])  # type: ignore[arg-type]
    assert next(results) == 1
    with pytest.raises(TypeError, match="unit 1 cannot be pickled"):
        next(results)


def test_closed_executor_refuses_work() -> None:
    executor = LocalExecutor()
    executor.close()
    with pytest.raises(RuntimeError, match="closed"):
        executor.map(square, [1])


def test_built_through_the_plugin_manager() -> None:
    executor = PluginManager(entry_points=False).make("executor", "local", {"check_pickle": True})
    assert isinstance(executor, LocalExecutor)
    assert executor.options.check_pickle
