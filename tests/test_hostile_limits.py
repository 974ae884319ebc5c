"""Limits the data cannot defeat (issue 28).

Without ``--trust-data`` a data file must not be able to make a query outlive its limits, nor
take the host process down:

1. ``catch/3`` in the data never swallows a limit: a catch-all (``catch(spin, _, p(X))``),
   a catch of the limit's own ball, a catch inside ``findall/3``, nested catches and
   ``call(catch, ...)`` closures all end as :class:`ResourceLimitExceeded` on every engine,
   and the same on every engine (the exporter routes the data's ``catch/3`` through the
   server's ``ilpkit_catch/3``; the native engine's catch never matches a limit ball);
2. SIGTERM and SIGINT end a process whose in-process SWI-Prolog (janus, pyswip) runs a
   data goal;
3. the native engine bounds cyclic terms;
4. big integers stay within twice the memory limit on every engine;
5. ``upcase_atom/2`` and friends cannot abort the host process (SWI-Prolog 9.0.4).

Each engine-dependent check runs in a child process (:func:`tests.test_swi_backend.in_child`,
with a deadline): a limit that does not fire shows as a timeout, not as a hung test run.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from ilpkit.plugins.backends.prolog.profiles import PROFILES
from ilpkit.prolog.terms import Clause
from tests.reference_prover import require_backends, term
from tests.test_subprocess_backend import task_with_rules
from tests.test_swi_backend import bridge_available, in_child

ENGINES = ["native", "swipl", "gprolog", "janus", "pyswip"]
BRIDGES = ("janus", "pyswip")


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    if name in BRIDGES:
        bridge_available(name)
    elif name != "native" and shutil.which(PROFILES[name].executable) is None:
        if require_backends(name):
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {name} but it is not on PATH")
        pytest.skip(f"{name} is not on PATH")
    return name


def make_backend(engine: str, options: dict[str, Any]) -> Any:
    if engine == "native":
        from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions

        return NativeBackend(NativeOptions(**options))
    if engine in BRIDGES:
        from ilpkit.plugins.backends.prolog.swi_backend import SwiBackend, SwiOptions

        return SwiBackend(SwiOptions(bridge=engine, **options))
    from ilpkit.plugins.backends.prolog.subprocess_backend import (
        SubprocessBackend,
        SubprocessOptions,
    )

    if engine == "gprolog":  # no inference counter: the step limit is a wall-clock guard
        options = {**options, "guard_seconds": 2.0}
    return SubprocessBackend(SubprocessOptions(engine=engine, **options))


def cover(
    engine: str, rules: list[str], clauses: list[str], options: dict[str, Any]
) -> dict[str, Any]:
    """Coverage of each clause over ``t(a)`` (positive) and ``t(c)`` (negative), as ids or
    ``[error type, message]``; then the coverage of a harmless clause (the backend must
    still answer).  JSON-able, for :func:`in_child`."""
    task = task_with_rules(rules, ["p(a, b)", "p(c, d)"], ["t(a)"], ["t(c)"])
    backend = make_backend(engine, options)
    backend.load(task)
    out: list[Any] = []
    try:
        for text in clauses:
            try:
                out.append(backend.coverage(Clause.from_term(term(text))).tolist())
            except Exception as exc:
                out.append([type(exc).__name__, str(exc)])
        after = backend.coverage(Clause.from_term(term("t(A) :- p(A, _)"))).tolist()
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()
    return {"outcomes": out, "after": after}


def cover_on(
    engine: str, rules: list[str], clauses: list[str], options: dict[str, Any], timeout: float
) -> dict[str, Any]:
    result: dict[str, Any] = in_child(
        engine,
        cover,
        timeout=timeout,
        engine=engine,
        rules=rules,
        clauses=clauses,
        options=options,
    )
    return result


# --------------------------------------------------------------------------------------------
# 1. catch/3 never swallows a limit
# --------------------------------------------------------------------------------------------

SPIN = "spin :- spin"
"""A loop in constant memory: only the step or time limit ends it."""

SWALLOWERS = {
    "catch_all_loops_again": "v(X) :- p(X, _), catch(spin, _, v(X))",
    "catch_of_the_limit_ball": "v(X) :- p(X, _), catch(spin, inference_limit_exceeded, v(X))",
    "catch_of_the_time_ball": "v(X) :- p(X, _), catch(spin, time_limit_exceeded, v(X))",
    "catch_of_ilpkit_limit": "v(X) :- p(X, _), catch(spin, ilpkit_limit(_), v(X))",
    "catch_in_findall": "v(X) :- p(X, _), findall(Y, catch(spin, _, v(Y)), _)",
    "nested_catches": "v(X) :- p(X, _), catch(catch(spin, _, spin), _, v(X))",
    "call_catch_closure": "v(X) :- p(X, _), call(catch, spin, _, v(X))",
    "catch_closure_in_call": "v(X) :- p(X, _), call(catch(spin), _, v(X))",
    "catch_then_succeed": "v(X) :- p(X, _), catch(spin, _, true)",
    "catch_in_negation": "v(X) :- p(X, _), \\+ catch(spin, _, fail)",
    "resource_error_ball": "v(X) :- p(X, _), catch(throw(error(resource_error(x), _)), _, true)",
    "ilpkit_limit_ball": "v(X) :- p(X, _), catch(throw(ilpkit_limit(x)), _, true)",
}


@pytest.mark.heavy  # 58 s over every engine and payload: with the heavy tests
@pytest.mark.parametrize("case", sorted(SWALLOWERS))
def test_catch_in_the_data_never_swallows_the_step_limit(engine: str, case: str) -> None:
    got = cover_on(
        engine,
        [SPIN, SWALLOWERS[case]],
        ["t(A) :- v(A)"],
        {"step_limit": 200_000, "timeout": None},
        timeout=90,
    )
    (outcome,) = got["outcomes"]
    assert outcome[0] == "ResourceLimitExceeded", outcome
    assert got["after"] == [0, 1]


@pytest.mark.heavy  # wall-clock limits: with the heavy tests, away from a loaded machine's noise
@pytest.mark.parametrize("case", ["catch_all_loops_again", "catch_of_the_time_ball"])
def test_catch_in_the_data_never_swallows_the_time_limit(engine: str, case: str) -> None:
    got = cover_on(
        engine,
        [SPIN, SWALLOWERS[case]],
        ["t(A) :- v(A)"],
        {"step_limit": None, "timeout": 1.0},
        timeout=90,
    )
    (outcome,) = got["outcomes"]
    assert outcome[0] == "ResourceLimitExceeded", outcome
    assert got["after"] == [0, 1]


# catch/3 keeps its meaning otherwise: the same coverage on every engine.
CATCH_SEMANTICS = [
    "s1(X) :- p(X, _), catch(throw(f(X)), f(Y), Y == a)",  # the ball's copy meets the catcher
    "s2(X) :- p(X, Z), catch(W = Z, _, true), W == b",  # the goal's bindings stay
    "s3(X) :- p(X, _), catch(catch(throw(b), a, fail), b, true)",  # no match: outer catch
    "s4(X) :- p(X, _), catch(throw(g(1)), g(2), true)",  # no match anywhere: an error
    "s5(X) :- p(X, _), catch(member(Y, [1, 2, 3]), _, true), Y >= 2",  # backtracks into G
    "s6(X) :- p(X, _), call(catch, throw(x), x, true)",
    "s7(X) :- p(X, _), findall(Y, catch(member(Y, [a, X]), _, true), [a, a])",
    "s8(X) :- p(X, _), catch((member(Y, [1, 2]), !, Y == 2), _, true)",  # cut local to G
    "s9(X) :- p(X, _), catch(throw(e), E, (E == e, X == a))",
]


def test_catch_keeps_its_meaning_on_every_engine(engine: str) -> None:
    clauses = [f"t(A) :- s{i}(A)" for i in range(1, len(CATCH_SEMANTICS) + 1)]
    got = cover_on(engine, CATCH_SEMANTICS, clauses, {"timeout": 20}, timeout=90)
    outcomes = got["outcomes"]
    expected: list[Any] = [[0], [0], [0, 1], None, [0, 1], [0, 1], [0], [], [0]]
    for i, (want, have) in enumerate(zip(expected, outcomes, strict=True), 1):
        if want is None:
            assert have[0] == "PrologEngineError" or have[0] == "PrologRuntimeError", (i, have)
        else:
            assert have == want, (i, have)


def cover_within_limits(engine: str, rules: list[str], clauses: list[str]) -> dict[str, Any]:
    """A batch through :func:`~ilpkit.core.limits.coverage_many_within_limits`, as every
    search and learner asks: the ids of each clause and how many clauses met a limit."""
    from ilpkit.core.limits import coverage_many_within_limits, limits_exceeded

    task = task_with_rules(rules, ["p(a, b)", "p(c, d)"], ["t(a)"], ["t(c)"])
    backend = make_backend(engine, {"step_limit": 200_000, "timeout": None})
    backend.load(task)
    try:
        batch = [Clause.from_term(term(c)) for c in clauses]
        covered = [c.tolist() for c in coverage_many_within_limits(backend, batch)]
        return {"covered": covered, "limits": limits_exceeded(backend)}
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()


@pytest.mark.heavy  # from the quick suite (3-6 s): keeps the README's test command under 5 minutes
def test_a_clause_over_a_limit_covers_nothing_and_the_run_goes_on(engine: str) -> None:
    # left recursion, and a catch-all around it: both are limits, not errors, on every engine
    rules = [
        SPIN,
        "lr(X) :- lr(X), p(X, _)",
        "ca(X) :- p(X, _), catch(lr(X), _, true)",
        "cs(X) :- p(X, _), catch(spin, _, cs(X))",
    ]
    clauses = ["t(A) :- lr(A)", "t(A) :- ca(A)", "t(A) :- cs(A)", "t(A) :- p(A, b)"]
    got = in_child(
        engine, cover_within_limits, timeout=90, engine=engine, rules=rules, clauses=clauses
    )
    assert got == {"covered": [[], [], [], [0]], "limits": 3}


# --------------------------------------------------------------------------------------------
# 5. case conversion cannot abort the host (SWI-Prolog 9.0.4)
# --------------------------------------------------------------------------------------------

CASES = [
    "u1(X) :- p(X, _), upcase_atom('\u00b5', U), U == '\u039c'",
    "u2(X) :- p(X, _), string_upper('a\u00ff', U), atom_string(A, U), A == 'A\u0178'",
    "u3(X) :- p(X, _), maplist(upcase_atom, ['\u00b5', '\u00ff', ab], L), "
    "L == ['\u039c', '\u0178', 'AB']",
    "u4(X) :- p(X, Y), upcase_atom(Y, U), U == 'B'",
    "u5(X) :- p(X, _), upcase_atom('\u00b5\u00ff', '\u039c\u0178')",
    "u6(X) :- p(X, _), call(string_upper, '\u00b5', S), string_length(S, 1)",
    "u7(X) :- p(X, _), downcase_atom('\u039c\u00b5\u00ff', D), D == '\u03bc\u00b5\u00ff'",
    "u8(X) :- p(X, _), upcase_atom(f(x), _)",
]


@pytest.mark.parametrize("engine", ["swipl", "janus", "pyswip"], indirect=True)
def test_upper_case_of_latin1_text_does_not_abort_and_agrees_with_native(engine: str) -> None:
    clauses = [f"t(A) :- u{i}(A)" for i in range(1, len(CASES) + 1)]
    native = cover("native", CASES, clauses, {"timeout": 20})
    got = cover_on(engine, CASES, clauses, {"timeout": 20}, timeout=90)  # pyswip: exit 134
    assert native["outcomes"][:7] == [[0, 1], [0, 1], [0, 1], [0], [0, 1], [0, 1], [0, 1]]
    assert got["outcomes"][:7] == native["outcomes"][:7]
    assert got["outcomes"][7][0] == "PrologEngineError"  # a type error, as upcase_atom/2's
    assert "atomic" in got["outcomes"][7][1]
    assert got["after"] == [0, 1]


# --------------------------------------------------------------------------------------------
# 2. SIGINT and SIGTERM end a process whose in-process SWI-Prolog runs a data goal
# --------------------------------------------------------------------------------------------

SIGNALLED = """
import sys
from ilpkit.core.lifecycle import signal_handlers
from ilpkit.prolog.terms import Clause
from tests.test_hostile_limits import make_backend
from tests.test_subprocess_backend import task_with_rules
from tests.reference_prover import term

bridge, handlers = sys.argv[1], sys.argv[2] == "cli"
rules = ["spin :- spin", "v(X) :- p(X, _), catch(spin, _, v(X))"]
backend = make_backend(bridge, {"step_limit": None, "timeout": None})
backend.load(task_with_rules(rules, ["p(a, b)"], ["t(a)"], []))
print("READY", flush=True)
clause = Clause.from_term(term("t(A) :- v(A)"))
if handlers:  # as the CLI runs: SIGTERM raises Terminated, Ctrl-C KeyboardInterrupt
    with signal_handlers():
        backend.coverage(clause)
else:
    backend.coverage(clause)
"""


@pytest.mark.heavy  # 16 child processes, 15 s: with the heavy tests
@pytest.mark.parametrize("handlers", ["plain", "cli"])
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("bridge", ["janus", "pyswip"])
def test_a_signal_ends_a_data_goal_in_process(bridge: str, signame: str, handlers: str) -> None:
    import signal
    import subprocess
    import sys
    import time

    from tests.test_swi_backend import ROOT, bridge_env

    bridge_available(bridge)
    proc = subprocess.Popen(
        [sys.executable, "-c", SIGNALLED, bridge, handlers],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=bridge_env(bridge),
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "READY", proc.stderr.read() if proc.stderr else ""
        time.sleep(1.0)  # well inside the endless query
        sent = time.monotonic()
        proc.send_signal(getattr(signal, signame))
        code = proc.wait(timeout=10)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert took < 5.0
    if signame == "SIGTERM" and handlers == "plain":
        assert code == -signal.SIGTERM  # the default action
    else:
        assert code != 0
        assert proc.stderr is not None
        err = proc.stderr.read()
        assert "KeyboardInterrupt" in err or "Terminated" in err, err[-2000:]
