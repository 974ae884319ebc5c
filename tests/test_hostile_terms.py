"""Cyclic terms and big integers the data cannot use to defeat the limits (issue 28, items 3
and 4 of :mod:`tests.test_hostile_limits`).

``Y = f(Y)`` builds a cyclic term (unification has no occurs check).  SWI-Prolog answers every
goal below on such rational trees; the native engine must answer the same, or stop at a limit
-- never run on past the query's step, time and memory limits (before: 5.7 GB against a
1,024 MB limit, unification and comparison running past 120 s).  Big integers grown by
repeated squaring or ``2 ** 100000000`` must end as a limit on every engine with the
process's peak memory within twice ``memory_limit_mb``.

Each check runs in a child process (:func:`tests.test_swi_backend.in_child`) that measures
its own peak resident size (or the engine's, for a subprocess engine) from ``/proc``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from ilpkit.prolog.terms import Clause
from tests import test_hostile_limits
from tests.reference_prover import term
from tests.test_hostile_limits import make_backend
from tests.test_subprocess_backend import task_with_rules
from tests.test_swi_backend import in_child

pytestmark = [
    pytest.mark.skipif(
        not Path("/proc/self/status").exists(), reason="measures peak memory from /proc"
    ),
    # 150 cases, each in a child process measuring its memory: minutes, with the heavy tests
    pytest.mark.heavy,
]

engine = test_hostile_limits.engine  # the fixture: every engine, skipped where missing

MEMORY_MB = 256

# (rule, SWI-Prolog's answer: True when t(A) :- c(A) covers both examples, False when none)
CYCLIC = {
    "copy_term": ("c(X) :- p(X, _), Y = f(Y), copy_term(Y, C), C = f(D), D == C", True),
    "copy_term_var": ("c(X) :- p(X, _), Y = f(Y, V), copy_term(Y, C), C \\== Y, V == V", True),
    "throw_caught": (
        "c(X) :- p(X, _), Y = f(Y), catch(throw(Y), B, true), B = f(B1), B1 == B",
        True,
    ),
    "ground": ("c(X) :- p(X, _), Y = f(Y), ground(Y)", True),
    "not_ground": ("c(X) :- p(X, _), Y = f(Y, _), ground(Y)", False),
    "identical": ("c(X) :- p(X, _), Y = f(Y), Z = f(Z), Y == Z", True),
    "not_identical": ("c(X) :- p(X, _), Y = f(Y, a), Z = f(Z, b), Y == Z", False),
    "compare": ("c(X) :- p(X, _), Y = f(Y, a), Z = f(Z, b), compare(O, Y, Z), O == (<)", True),
    "compare_unfolded": ("c(X) :- p(X, _), Y = f(f(Y, a), b), Z = f(Z, a), compare(>, Y, Z)", True),
    "term_variables": ("c(X) :- p(X, _), Y = f(Y, V), term_variables(Y, [W]), W == V", True),
    "univ_loop": ("c(X) :- p(X, _), T =.. [f, T], T = f(T2), T2 == T", True),
    "unify": ("c(X) :- p(X, _), Y = f(Y), Z = f(Z), Y = Z", True),
    "unify_fails": ("c(X) :- p(X, _), Y = f(Y, a), Z = f(Z, b), Y = Z", False),
    "unify_laps": ("c(X) :- p(X, _), Y = f(f(Y)), Z = f(Z), Y = Z", True),
    "head_unify": ("c(X) :- p(X, _), Y = f(Y), Z = f(Z), same(Y, Z)", True),
    "msort": ("c(X) :- p(X, _), Y = f(Y), Z = f(Z), msort([Z, Y, a], [a, _, _])", True),
    "findall": ("c(X) :- p(X, _), Y = f(Y), findall(Y, true, [R]), R = f(R2), R2 == R", True),
    "occurs_check": ("c(X) :- p(X, _), Y = f(Y), unify_with_occurs_check(W, Y), W == Y", True),
    "cyclic_list": ("c(X) :- p(X, _), L = [a|L], is_list(L)", False),
    "cyclic_memberchk": ("c(X) :- p(X, _), L = [a|L], memberchk(a, L)", True),
    "length_of_cycle": ("c(X) :- p(X, _), L = [a|L], catch(length(L, _), _, fail)", False),
    # f(T, T) nested 40 deep: 2**40 nodes as a tree, 40 with sharing
    "shared": ("c(X) :- p(X, _), d(40, T), copy_term(T, C), T = C, T == C, ground(C)", True),
}
HELPERS = [
    "same(A, A)",
    "d(0, a)",
    "d(N, f(T, T)) :- N > 0, M is N - 1, d(M, T)",
]

# each ends as a limit (native) or an error
CYCLIC_STOPS = {
    "uncaught_throw": "c(X) :- p(X, _), Y = f(Y), throw(Y)",
    "member_of_a_cycle": "c(X) :- p(X, _), L = [a|L], member(b, L)",
    "cyclic_expression": "c(X) :- p(X, _), Y = Y + 1, _ is Y",
    "cyclic_goal": "c(X) :- p(X, _), G = (true, G), call(G)",
    "cyclic_text": "c(X) :- p(X, _), Y = f(Y), term_to_atom(Y, _)",
}

BIGNUMS = {
    "repeated_squaring": ["c(X) :- p(X, _), q(X, 2)", "q(X, N) :- M is N * N, q(X, M)"],
    "huge_power": ["c(X) :- p(X, _), X1 is 2 ** 3000000000, X1 > 0"],  # 375 MB
    "huge_shift": ["c(X) :- p(X, _), X1 is 1 << 3000000000, X1 > 0"],
}


def _status_kb(pid: int | str, field: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cover_measured(
    engine: str, rules: list[str], clauses: list[str], options: dict[str, Any]
) -> dict[str, Any]:
    """Coverage of each clause (ids or ``[error type, message]``), its seconds, and the
    peak resident growth (MB) of the process running the engine (this process, or the
    subprocess engine) over the queries."""
    task = task_with_rules(rules, ["p(a, b)", "p(c, d)"], ["t(a)"], ["t(c)"])
    backend = make_backend(engine, options)
    backend.load(task)
    backend.coverage(Clause.from_term(term("t(A) :- p(A, _)")))  # compiles what it needs
    pid = getattr(backend, "pid", None) or "self"
    base = _status_kb(pid, "VmRSS")
    with open(f"/proc/{pid}/clear_refs", "w") as refs:  # VmHWM := VmRSS
        refs.write("5")
    out: list[Any] = []
    seconds: list[float] = []
    try:
        for text in clauses:
            start = time.monotonic()
            try:
                out.append(backend.coverage(Clause.from_term(term(text))).tolist())
            except Exception as exc:
                out.append([type(exc).__name__, str(exc)[:300]])
            seconds.append(time.monotonic() - start)
        peak = _status_kb(getattr(backend, "pid", None) or "self", "VmHWM")
        after = backend.coverage(Clause.from_term(term("t(A) :- p(A, _)"))).tolist()
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()
    return {
        "outcomes": out,
        "seconds": seconds,
        "grown_mb": (peak - base) / 1024,
        "after": after,
    }


def run(engine: str, rules: list[str], options: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = in_child(
        engine,
        cover_measured,
        timeout=240,
        engine=engine,
        rules=rules,
        clauses=["t(A) :- c(A)"],
        options=options,
    )
    return result


LIMITS = {"step_limit": 200_000, "timeout": 10.0, "memory_limit_mb": MEMORY_MB}


@pytest.mark.parametrize("case", sorted(CYCLIC))
def test_cyclic_terms_answer_as_swi_or_stop_at_a_limit(engine: str, case: str) -> None:
    if engine == "gprolog":
        pytest.skip("GNU Prolog has no rational trees: cyclic terms crash it (it is restarted)")
    rule, swi_answer = CYCLIC[case]
    got = run(engine, [rule, *HELPERS], LIMITS)
    (outcome,) = got["outcomes"]
    want = [0, 1] if swi_answer else []
    if engine == "native" and outcome and outcome[0] == "ResourceLimitExceeded":
        pass  # cannot answer: stopped at the limit
    else:
        assert outcome == want, outcome
    assert got["seconds"][0] < 15.0, got
    assert got["grown_mb"] < 2 * MEMORY_MB, got
    assert got["after"] == [0, 1]


@pytest.mark.parametrize("case", sorted(CYCLIC_STOPS))
def test_cyclic_terms_that_cannot_be_answered_end_quickly(engine: str, case: str) -> None:
    got = run(engine, [CYCLIC_STOPS[case], *HELPERS], LIMITS)
    (outcome,) = got["outcomes"]
    if case == "cyclic_text" and engine in ("swipl", "janus", "pyswip"):  # SWI writes cycles
        assert outcome == [0, 1], got
    else:
        assert isinstance(outcome[0], str), got
        assert outcome[0].endswith(("Error", "LimitExceeded")), got
    assert got["seconds"][0] < 15.0, got
    assert got["grown_mb"] < 2 * MEMORY_MB, got
    assert got["after"] == [0, 1]


@pytest.mark.parametrize("case", sorted(BIGNUMS))
def test_big_integers_end_as_a_limit_within_twice_the_memory_limit(engine: str, case: str) -> None:
    got = run(engine, BIGNUMS[case], {"step_limit": None, "timeout": 30.0, "memory_limit_mb": 128})
    (outcome,) = got["outcomes"]
    if engine != "gprolog":  # GNU Prolog's integers are bounded: no growth to stop
        assert outcome[0] == "ResourceLimitExceeded", got
    assert got["seconds"][0] < 30.0, got
    assert got["grown_mb"] < 2 * 128, got
    assert got["after"] == [0, 1]
