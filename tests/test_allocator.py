"""The allocator thresholds a command sets (issue 32: page faults of freed arrays)."""

from __future__ import annotations

import ctypes.util
import os
import subprocess
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


def test_openblas_idle_threads_sleep_sooner_unless_the_user_chose() -> None:
    environ: dict[str, str] = {}
    assert allocator.idle_blas_threads_sleep(environ) is True
    assert environ == {"OPENBLAS_THREAD_TIMEOUT": "20"}
    chosen = {"OPENBLAS_THREAD_TIMEOUT": "28"}
    assert allocator.idle_blas_threads_sleep(chosen) is False
    assert chosen == {"OPENBLAS_THREAD_TIMEOUT": "28"}
    empty = {"OPENBLAS_THREAD_TIMEOUT": ""}  # OpenBLAS reads an empty value as its default
    assert allocator.idle_blas_threads_sleep(empty) is True
    assert empty == {"OPENBLAS_THREAD_TIMEOUT": "20"}


def test_the_command_sets_it_before_numpy_loads() -> None:
    """OpenBLAS reads the variable once, when numpy loads it: the console script's module
    must not import numpy, and the run must see the setting."""
    code = (
        "import sys, os\n"
        "from ilpkit.cli import entry\n"
        "print('numpy' in sys.modules)\n"
        "sys.argv = ['ilpkit', 'learn', 'trains', '-q']\n"
        "import atexit\n"
        "atexit.register(lambda: print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'),"
        " 'numpy' in sys.modules))\n"
        "entry.main()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.stdout.split() == ["False", "20", "True"], out.stderr[-2000:]


def test_collections_wait_until_work_begins_then_thresholds_are_restored() -> None:
    import gc

    before = gc.get_threshold()
    allocator.work_begins()  # nothing deferred: a library caller's collector is left alone
    assert gc.get_threshold() == before
    try:
        allocator.defer_collections()
        allocator.defer_collections()  # once only: the saved thresholds stay Python's
        assert gc.get_threshold() == (allocator.STARTUP_COLLECTION_THRESHOLD, *before[1:])
        allocator.work_begins()
        assert gc.get_threshold() == before
        allocator.work_begins()
        assert gc.get_threshold() == before
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


@pytest.mark.parametrize(
    ("argv", "deferred"),
    [(["learn", "trains", "-q"], False), (["--version"], True)],
    ids=["learn", "version"],
)
def test_the_command_collects_normally_once_its_run_begins(
    argv: list[str], deferred: bool, tmp_path: os.PathLike[str]
) -> None:
    """The console script defers collections while it starts; a run's context ends that
    (Python's thresholds again), a command that runs nothing keeps the high threshold."""
    code = (
        "import sys, gc, atexit\n"
        "from ilpkit.cli import entry\n"
        "default = gc.get_threshold()\n"
        f"sys.argv = ['ilpkit', *{argv!r}]\n"
        "atexit.register(lambda: print(gc.get_threshold()[0], default[0]))\n"
        "entry.main()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    now, default = map(int, out.stdout.split()[-2:])
    assert now == (allocator.STARTUP_COLLECTION_THRESHOLD if deferred else default), out.stderr
