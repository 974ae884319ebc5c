"""The C allocator's thresholds for a command's process (glibc only), OpenBLAS's idle
threads, and Python's cyclic collector while a command starts.

A search frees and allocates numpy arrays of a few hundred KB to a few MB, clause after
clause.  glibc returns such blocks to the system at once (``mmap`` above its threshold, a
trim of the heap's top past 128 KB) and takes them back on the next allocation, each page
faulted in again: on mutagenesis' ``--learner aleph`` run that was 1.3 million page faults
and 2.6 of its 24 CPU seconds, against 35,000 and 0.2 s with the thresholds below -- at the
same peak resident size (the memory is reused, not kept beyond what the run has held).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import MutableMapping

MMAP_THRESHOLD = 32 << 20
"""Blocks above this come from ``mmap`` (glibc's own dynamic threshold stops at 32 MB)."""
TRIM_THRESHOLD = 128 << 20
"""Free memory at the heap's top kept for reuse, up to this."""

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3


def reuse_freed_memory() -> bool:
    """Set the thresholds; False where the C library is not glibc (nothing is changed) or
    ``ILPKIT_MALLOC=default`` asks to leave the allocator as it is."""
    if not sys.platform.startswith("linux") or os.environ.get("ILPKIT_MALLOC") == "default":
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt  # absent from musl
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )


BLAS_THREAD_TIMEOUT = "20"
"""OpenBLAS's idle threads spin ``2**N`` CPU cycles before they sleep; its default N is 28."""


def idle_blas_threads_sleep(environ: MutableMapping[str, str] = os.environ) -> bool:
    """Let OpenBLAS's worker threads sleep after ``2**20`` cycles of waiting instead of
    ``2**28`` (unless ``OPENBLAS_THREAD_TIMEOUT`` is set already, to something); False if it
    was.

    Why: loading numpy starts OpenBLAS's threads, and each spins about 0.1 s before it first
    sleeps, in every process, BLAS used or not: 0.1 of ``ilpkit learn trains``' 0.47 CPU
    s (issue 32).  A sleeping thread wakes in microseconds when work comes.  OpenBLAS reads
    the variable once, when it loads: this must run before numpy is imported."""
    if environ.get("OPENBLAS_THREAD_TIMEOUT", "").strip():  # empty: OpenBLAS's default too
        return False
    environ["OPENBLAS_THREAD_TIMEOUT"] = BLAS_THREAD_TIMEOUT
    return True


STARTUP_COLLECTION_THRESHOLD = 200_000
"""The collector's first threshold while a command starts (Python's default is 700)."""

_saved_thresholds: list[tuple[int, int, int]] = []


def defer_collections() -> None:
    """Let the cyclic collector wait while a command starts, until :func:`work_begins`.

    Why: a command's start-up imports its modules (numpy, pydantic, the plugins it uses) and
    makes their functions, classes and dataclass methods: objects that live as long as the
    process and hold no garbage, yet at the default threshold the collector walked them in
    about 90 young and 8 middle collections, 15-20 ms of ``ilpkit learn trains``' CPU time.
    A command that never reaches :func:`work_begins` (``--help``, ``data check``) keeps the
    high threshold: the collector still runs, every 200,000 new objects instead of 700."""
    if not _saved_thresholds:
        old = gc.get_threshold()
        _saved_thresholds.append(old)
        gc.set_threshold(STARTUP_COLLECTION_THRESHOLD, *old[1:])


def work_begins() -> None:
    """End :func:`defer_collections`: what start-up made moves out of the collector's sight
    (``gc.freeze``) and the thresholds are Python's again.  Does nothing unless deferred
    (a library caller's collector is left alone)."""
    if _saved_thresholds:
        old = _saved_thresholds.pop()
        gc.freeze()
        gc.set_threshold(*old)
