"""Fixtures several test files share (each used to build its own copy by hand)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ilpkit.backends.native.engine import NativeBackend
from ilpkit.core.formats import load_task
from ilpkit.core.plugins import PluginManager
from ilpkit.core.task import Task
from ilpkit.datasets import bundled_path


@pytest.fixture
def manager() -> PluginManager:
    """A plugin registry of the built-ins only, whatever else is installed here."""
    return PluginManager(entry_points=False)


@pytest.fixture(scope="session")
def bundled() -> Callable[..., tuple[Task, NativeBackend]]:
    """``bundled("uwcse", i=2)``: a bundled dataset with Aleph settings overrides, loaded
    into a native backend."""

    def build(name: str, **settings: Any) -> tuple[Task, NativeBackend]:
        task = load_task(bundled_path(name))
        for key, value in settings.items():
            task.bias.settings.set_value(key, value)
        backend = NativeBackend()
        backend.load(task)
        return task, backend

    return build
