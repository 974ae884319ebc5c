"""Fuzzing every loader: whatever the files hold, loading ends, and only with an IlpkitError.

Each case mutates one file of a small valid dataset (Aleph, BoostSRL, Popper) or run file
(TOML) with the edits of ``benchmarks/fuzz_loaders.py`` (deletions, insertions of
Prolog-significant text, duplications, hostile lines: deep nesting, huge literals, bad
``op/3``, modes, settings and examples) and loads it.  The budget here is short, for CI;
``python benchmarks/fuzz_loaders.py --seconds 300`` is the long run.
"""

from __future__ import annotations

import random
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.fuzz_loaders import HOSTILE, SEEDS, mutate, run_target, write_case
from ilpkit.errors import IlpkitError


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging) when the body runs longer than ``seconds``."""
    if not hasattr(signal, "setitimer"):  # pragma: no cover - not on Windows
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"the loader did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def load_or_ilpkit_error(target: str, files: dict[str, str]) -> None:
    folder = Path(tempfile.mkdtemp(prefix=f"loader-fuzz-{target}-"))
    try:
        write_case(folder, files)
        with time_limit(10), suppress(IlpkitError):
            run_target(target, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.parametrize("target", sorted(SEEDS))
def test_the_seed_datasets_load(target: str) -> None:
    folder = Path(tempfile.mkdtemp())
    try:
        write_case(folder, SEEDS[target])
        run_target(target, folder)  # no error at all: the mutations start from valid input
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("target", sorted(SEEDS))
@FUZZ
@given(data=st.data())
def test_mutated_files_load_or_raise_an_ilpkit_error(target: str, data: st.DataObject) -> None:
    files = dict(SEEDS[target])
    name = data.draw(st.sampled_from(sorted(files)), label="file")
    rng = data.draw(st.randoms(use_true_random=False), label="rng")
    files[name] = mutate(files[name], rng)
    load_or_ilpkit_error(target, files)


@pytest.mark.parametrize("target", sorted(SEEDS))
@pytest.mark.parametrize("hostile", range(len(HOSTILE)))
def test_each_hostile_line_in_each_file(target: str, hostile: int) -> None:
    # Every hostile snippet at the top of every file of every format, deterministically.
    rng = random.Random(hostile)
    for name in sorted(SEEDS[target]):
        files = dict(SEEDS[target])
        files[name] = HOSTILE[hostile](rng) + files[name]
        load_or_ilpkit_error(target, files)
