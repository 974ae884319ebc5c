"""The allocator thresholds a command sets (issue 32: page faults of freed arrays)."""

from __future__ import annotations

import ctypes.util
import sys

import pytest

from ilpkit.core import allocator

glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or ctypes.util.find_library("c") is None,
    reason="glibc's mallopt only",
)


@glibc
def test_the_thresholds_are_set_on_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ILPKIT_MALLOC", raising=False)
    assert allocator.reuse_freed_memory() is True
    assert allocator.MMAP_THRESHOLD == 32 * 2**20 and allocator.TRIM_THRESHOLD == 128 * 2**20


def test_ilpkit_malloc_default_leaves_the_allocator_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ILPKIT_MALLOC", "default")
    assert allocator.reuse_freed_memory() is False
