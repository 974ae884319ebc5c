"""The native backend's time and memory limits hold inside long joins and the kernel (issue 20).

A clause over ``timeout`` (or growing the process past ``memory_limit_mb``) must stop close to
the limit with :class:`ResourceLimitExceeded` naming the clause -- the way the step limit is
reported -- not run to its end, and the backend must answer the next clause normally.
"""

from __future__ import annotations

import time

import pytest

from ilpkit.core.task import Task
from ilpkit.errors import ResourceLimitExceeded
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.plugins.backends.native.kernels import HAVE_COMPILED, warm_up
from ilpkit.prolog.terms import Clause
from tests.reference_prover import make_task, term

N = 120


def complete_graph() -> Task:
    """``e/2`` on N numbered nodes, every pair: paths of k edges number N**k."""
    facts = [f"e({i}, {j})" for i in range(N) for j in range(N)]
    return make_task(facts, pos=["h(0)", "h(1)"], neg=["h(2)"])


# A path of five edges ending above every node id: no example is covered, and proving that
# tuple at a time visits about N**5 = 2.5e10 paths (the comparison fails for every end, so
# every path is tried) -- hours, without a limit.
LONG = Clause(
    term("h(A)"),
    tuple(term(t) for t in ("e(A,B)", "e(B,C)", "e(C,D)", "e(D,E)", "e(E,F)", f"F > {N + 5}")),
)
SHORT = Clause(term("h(A)"), (term("e(A,B)"), term("B < 1")))


@pytest.mark.skipif(not HAVE_COMPILED, reason="the compiled kernel needs numba")
def test_kernel_stops_a_long_clause_at_the_timeout() -> None:
    warm_up()  # compiling the kernel is not the clause's time
    backend = NativeBackend(NativeOptions(kernel=True, timeout=1.0, kernel_steps=10**15))
    backend.load(complete_graph())
    assert backend.coverage(SHORT).tolist() == [0, 1, 2]  # compiles the plan's helpers too
    start = time.monotonic()
    with pytest.raises(ResourceLimitExceeded, match=r"time limit of 1\.0 s.*clause: h\(A\)"):
        backend.coverage(LONG)
    assert time.monotonic() - start < 6.0  # the limit plus a slice of kernel work
    assert backend.coverage(SHORT).tolist() == [0, 1, 2]  # and goes on


def test_set_at_a_time_engine_stops_a_long_join_at_the_timeout() -> None:
    # Two paths of two edges from the head's node and a test over both ends: D and E are
    # needed to the end, so the binding table is N**4 rows per example, evaluated in chunks.
    # (An earlier clause here, e(A,B),e(A,C),e(A,D),e(A,E),e(B,F),F > C, is now answered in
    # 0.5 s: the engine projects away D and E, which no later literal needs.)
    clause = Clause(
        term("h(A)"),
        tuple(term(t) for t in ("e(A,B)", "e(A,C)", "e(B,D)", "e(C,E)", "X is D+E", "X < 0")),
    )
    backend = NativeBackend(NativeOptions(timeout=1.0, kernel=False, row_limit=200_000))
    backend.load(complete_graph())
    start = time.monotonic()
    with pytest.raises(ResourceLimitExceeded, match=r"time limit of 1\.0 s"):
        backend.coverage(clause)
    assert time.monotonic() - start < 8.0
    assert backend.coverage(SHORT).tolist() == [0, 1, 2]


def test_set_at_a_time_engine_stops_at_the_memory_limit() -> None:
    clause = Clause(
        term("h(A)"),
        # N**3 rows per example, every column needed by the last literal: about 170 MB
        tuple(term(t) for t in ("e(A,B)", "e(A,C)", "e(A,D)", "e(B,E)", "E > C", "D > E")),
    )
    backend = NativeBackend(
        NativeOptions(kernel=False, memory_limit_mb=5, row_limit=50_000_000, cache_mb=0)
    )
    backend.load(complete_graph())
    with pytest.raises(ResourceLimitExceeded, match=r"memory limit of 5 MB"):
        backend.coverage(clause)


@pytest.mark.skipif(not HAVE_COMPILED, reason="the compiled kernel needs numba")
def test_paused_kernel_gives_the_answer_of_one_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # Slices of 7 candidate tests resume exactly where they stopped: same covered rows.
    from ilpkit.plugins.backends.native import plan as P

    # each example scans e(A, 0..N-1) for B > 100 (and C < 1 after it): about 100 candidate
    # tests, so about 15 slices each
    body = ("e(A,B)", "B > 100", "e(B,C)", "C < 1")
    clause = Clause(term("h(A)"), tuple(term(t) for t in body))
    backend = NativeBackend(NativeOptions(kernel=True))
    backend.load(complete_graph())
    want = backend.coverage(clause).tolist()
    assert want == [0, 1, 2]
    calls: list[int] = []
    monkeypatch.setattr(P, "SLICE_STEPS", 7)
    again = NativeBackend(NativeOptions(kernel=True))
    again.load(complete_graph())
    monkeypatch.setattr(again, "_check_deadline", lambda lit=None: calls.append(1))
    assert again.coverage(clause).tolist() == want
    assert len(calls) > 20
