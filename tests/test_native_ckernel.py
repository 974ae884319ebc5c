"""The coverage kernel compiled from C (``cover_rows.c``, :mod:`.ckernel`) against the Python
function it translates (``kernels._cover_rows``) and numba's compilation of it.

The C kernel replaced numba as the default because it loads in milliseconds and a few MB
(issue 32); it must give the same answers, step counts and resumable state on every plan.
Here real plans -- every kernel call of short searches on the bundled UW-CSE (facts,
comparisons, `\\=`), mutagenesis (rule-defined literals: tests and questions) and trains --
are recorded, then replayed through each implementation with fresh copies of the arrays the
kernel writes.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ilpkit.plugins.backends.native import ckernel
from ilpkit.plugins.backends.native import kernels as K

C_KERNEL, WHY_NOT = ckernel.load()
needs_c = pytest.mark.skipif(C_KERNEL is None, reason=f"no C kernel: {WHY_NOT}")

WRITTEN = (6, 34, 37, 38, 39, 40, 41, 42)
"""Arguments the kernel writes: memo, want, state, covered, slots, pos, hi, found."""


def _record(monkeypatch: pytest.MonkeyPatch, run: Callable[[], Any]) -> list[tuple[Any, ...]]:
    K._kernel()
    real = K.cover_rows
    calls: list[tuple[Any, ...]] = []

    def recording(*args: Any) -> Any:
        calls.append(tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        return real(*args)

    monkeypatch.setattr(K, "cover_rows", recording)
    run()
    monkeypatch.undo()
    return calls


def _replay(kernel: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, ...]:
    fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    covered, status, steps = kernel(*fresh)
    assert covered is fresh[38]  # the array given, written in place
    return (int(status), int(steps), *(fresh[i].tolist() for i in WRITTEN))


def _learn(data: str, max_rules: int, **settings: Any) -> Callable[[], Any]:
    import ilpkit

    def run() -> Any:
        return ilpkit.learn(
            data,
            learner="theory",
            settings={"nodes": 200, **settings},
            options={"backend": {"kernel": True}, "learner": {"max_rules": max_rules}},
            evaluate=False,
        )

    return run


EXTRA = [
    "t(A) :- v(A, B), B > 0.7",
    "t(A) :- v(A, B), B =< 1, B >= -1",
    "t(A) :- v(A, B), v(C, D), A \\= C, D == B",
    "t(A) :- v(A, B), C = 1, B == C",
    "t(A) :- v(A, B), B \\== x",
]
"""Comparisons, (non-)identity and a binding ``=`` over test_native_unfold's values."""


def _hand_clauses() -> Any:
    from ilpkit.plugins.backends.native.prolog.errors import PrologRuntimeError
    from ilpkit.prolog.terms import Clause
    from tests.reference_prover import term
    from tests.test_native_unfold import HAND, VALUES, backend, task_of

    def run() -> None:
        b = backend(task_of(VALUES))
        for text in [*(h[0] for h in HAND), *EXTRA]:
            with contextlib.suppress(PrologRuntimeError):  # HAND has some Prolog raises on
                b.coverage(Clause.from_term(term(text)))

    return run


@pytest.fixture(scope="module")
def recorded() -> dict[str, list[tuple[Any, ...]]]:
    mp = pytest.MonkeyPatch()
    try:
        return {
            "uwcse": _record(mp, _learn("uwcse", 2, i=2, clauselength=4)),
            "mutagenesis": _record(mp, _learn("mutagenesis", 1, clauselength=4)),
            "trains": _record(mp, _learn("trains", 10)),
            "tests": _record(mp, _hand_clauses()),
        }
    finally:
        mp.undo()


@needs_c
def test_the_recorded_plans_use_every_literal_kind(
    recorded: dict[str, list[tuple[Any, ...]]],
) -> None:
    kinds = {int(k) for calls in recorded.values() for args in calls for k in args[8]}
    assert {K.FACT, K.CMP, K.BIND, K.EQ, K.NEQ, K.TESTS, K.ASK} <= kinds, kinds
    assert sum(len(c) for c in recorded.values()) > 150


@needs_c
@pytest.mark.parametrize("data", ["uwcse", "mutagenesis", "trains", "tests"])
def test_c_kernel_gives_the_python_kernels_answers(
    recorded: dict[str, list[tuple[Any, ...]]], data: str
) -> None:
    calls = recorded[data]
    assert calls
    for args in calls[:150]:  # the Python function is slow: the first 150 calls
        assert _replay(C_KERNEL, args) == _replay(K._cover_rows, args)


@needs_c
@pytest.mark.parametrize("data", ["uwcse", "mutagenesis", "trains", "tests"])
def test_c_kernel_gives_numbas_answers_on_every_call(
    recorded: dict[str, list[tuple[Any, ...]]], data: str
) -> None:
    pytest.importorskip("numba")
    compiled = K.numba_kernel()
    for args in recorded[data]:
        assert _replay(C_KERNEL, args) == _replay(compiled, args)


@needs_c
def test_c_kernel_pauses_and_resumes_as_one_call(
    recorded: dict[str, list[tuple[Any, ...]]],
) -> None:
    """Run in slices of 1..7 steps (``pause``), a call ends in the state of one whole call."""
    assert C_KERNEL is not None
    checked = 0
    for args in recorded["uwcse"][:60]:
        whole = _replay(C_KERNEL, args)
        if whole[0] != K.OK:
            continue
        for pause in (1, 3, 7):
            fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            total = 0
            while True:
                fresh[36] = pause
                fresh[35] = args[35] - total
                _, status, steps = C_KERNEL(*fresh)
                total += int(steps)
                if status != K.PAUSED:
                    break
            assert status == K.OK and total == whole[1]
            assert fresh[38].tolist() == whole[2 + WRITTEN.index(38)]
        checked += 1
    assert checked > 20


@needs_c
def test_c_kernel_refuses_arrays_of_the_wrong_type(
    recorded: dict[str, list[tuple[Any, ...]]],
) -> None:
    assert C_KERNEL is not None
    args = list(recorded["trains"][0])
    bad = list(args)
    bad[2] = args[2].astype(np.int32)  # rows
    with pytest.raises(TypeError, match="argument 2 must be a 1-D C-contiguous int64"):
        C_KERNEL(*bad)
    bad = list(args)
    bad[38] = np.zeros(len(args[38]), dtype=np.uint8)
    bad[38].flags.writeable = False  # covered is written
    with pytest.raises((TypeError, BufferError, ValueError)):
        C_KERNEL(*bad)
    with pytest.raises(TypeError, match="43 arguments"):
        C_KERNEL(*args[:-1])


C_MODULE, _ = ckernel.load_module()


def _known(memo: list[int], keys: list[int], rows: list[int]) -> list[int] | None:
    """What ``known_rows`` must say, from its definition: None when some row's answer is
    unknown (0), else the rows answered yes (1) in order."""
    answers = [memo[keys[r]] for r in rows]
    return None if 0 in answers else [r for r, a in zip(rows, answers, strict=True) if a == 1]


def _run_known(fn: Callable[..., int], memo: Any, keys: Any, rows: Any) -> list[int] | None:
    out = np.full(len(rows), -7, dtype=np.int64)
    k = fn(
        np.asarray(memo, dtype=np.uint8), np.asarray(keys, dtype=np.int64),
        np.asarray(rows, dtype=np.int64), out,
    )  # fmt: skip
    return None if k < 0 else out[:k].tolist()


def test_known_rows_by_hand() -> None:
    # memo: 1 yes, 2 no, 0 unknown; row r reads memo[keys[r]]
    memo, keys = [1, 2, 0, 1], [3, 1, 0, 2, 1]
    assert _run_known(K._known_rows, memo, keys, [0, 1, 2, 4]) == [0, 2]  # 1, 2, 1, 2
    assert _run_known(K._known_rows, memo, keys, [1, 3]) is None  # row 3 reads memo[2] = 0
    assert _run_known(K._known_rows, memo, keys, []) == []
    if C_MODULE is not None:
        assert _run_known(C_MODULE.known_rows, memo, keys, [0, 1, 2, 4]) == [0, 2]
        assert _run_known(C_MODULE.known_rows, memo, keys, [1, 3]) is None


@needs_c
@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 2), min_size=1, max_size=12),
    st.lists(st.integers(0, 11), min_size=1, max_size=12),
    st.data(),
)
def test_c_known_rows_is_the_definition_and_the_numpy_one(
    memo: list[int], raw_keys: list[int], data: st.DataObject
) -> None:
    assert C_MODULE is not None
    keys = [k % len(memo) for k in raw_keys]
    rows = data.draw(st.lists(st.integers(0, len(keys) - 1), max_size=15))
    want = _known(memo, keys, rows)
    assert _run_known(C_MODULE.known_rows, memo, keys, rows) == want
    assert _run_known(K._known_rows, memo, keys, rows) == want


@needs_c
def test_c_known_rows_refuses_what_it_cannot_read() -> None:
    assert C_MODULE is not None
    memo, keys = np.ones(3, dtype=np.uint8), np.arange(3, dtype=np.int64)
    rows, out = np.arange(3, dtype=np.int64), np.zeros(3, dtype=np.int64)
    with pytest.raises(TypeError, match="known_rows: argument 2 must be a 1-D C-contiguous int64"):
        C_MODULE.known_rows(memo, keys, rows.astype(np.int32), out)
    with pytest.raises(ValueError, match="out is shorter than rows"):
        C_MODULE.known_rows(memo, keys, rows, out[:2])
    with pytest.raises(IndexError, match="out of range"):
        C_MODULE.known_rows(memo, keys, np.array([3], dtype=np.int64), out)
    with pytest.raises(IndexError, match="out of range"):
        C_MODULE.known_rows(memo, np.array([0, 5, 1], dtype=np.int64), rows, out)
    with pytest.raises(TypeError, match="4 arguments"):
        C_MODULE.known_rows(memo, keys, rows)


def test_no_compiler_is_said_and_numba_takes_over(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setattr(ckernel.shutil, "which", lambda name: None)
    monkeypatch.setenv("ILPKIT_CACHE", str(tmp_path))
    kernel, why = ckernel.load()
    assert kernel is None and why == "no C compiler (cc, gcc or clang) on PATH"
    assert not ckernel.built()


@pytest.mark.parametrize("choice", ["numba", "python", "c"])
def test_ilpkit_kernel_chooses_the_implementation(choice: str) -> None:
    if choice == "c" and C_KERNEL is None:
        pytest.skip(f"no C kernel: {WHY_NOT}")
    code = (
        "import sys\nfrom ilpkit.plugins.backends.native import kernels as K\n"
        "K._kernel()\nprint(K.KERNEL_IMPL, 'numba' in sys.modules)"
    )
    env = {**os.environ, "ILPKIT_KERNEL": choice}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    impl, numba_loaded = out.stdout.split()
    assert impl == choice
    assert numba_loaded == str(choice == "numba")  # the C kernel needs no numba


def test_a_bad_ilpkit_kernel_is_a_clear_error() -> None:
    code = "from ilpkit.plugins.backends.native import kernels as K\nK._kernel()"
    env = {**os.environ, "ILPKIT_KERNEL": "fortran"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode != 0
    assert "ILPKIT_KERNEL='fortran': expected one of auto, c, numba, python" in out.stderr


def test_generations_keep_the_recent_entries_within_twice_their_size() -> None:
    from ilpkit.plugins.backends.native.memo import Generations

    memo: Generations[str, int] = Generations(2)
    memo.put("a", 1)
    memo.put("b", 2)
    memo.put("c", 3)  # the new generation was full: {a, b} becomes the old one
    assert len(memo) == 3 and memo.get("a") == 1  # a hit in the old one moves it forward
    memo.put("d", 4)  # new {c, a} full: it becomes the old one, b is dropped
    assert memo.get("b") is None
    assert [memo.get(k) for k in "acd"] == [1, 3, 4]
    assert len(memo) <= 4
    memo.clear()
    assert len(memo) == 0 and memo.get("c") is None
