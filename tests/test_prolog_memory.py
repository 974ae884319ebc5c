"""Memory runaways on the SWI-Prolog and GNU Prolog backends end cleanly (issue 21, item 5).

Before: swipl grew to 3-4 GB on atoms (``atom_concat/3`` loops) and big integers (repeated
squaring), which live outside its stacks, and with pyswip the whole Python process aborted
(signal 6).  Now each query has a memory bound (``memory_limit_mb``): on SWI-Prolog an alarm
watches the resident memory (:func:`ilpkit_call_memory_limited` in the SWI hooks) and throws a
resource-limit error; a subprocess engine also runs under an address-space cap, past which it
is restarted.  Each runaway must be a :class:`ResourceLimitExceeded` naming the goal, and the
backend must answer the next query.  The in-process bridges run in a child process
(:func:`tests.test_swi_backend.in_child`): if SWI-Prolog aborted, the child would die and the
test fail.
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

ENGINES = ["swipl", "gprolog", "janus", "pyswip"]
BRIDGES = ("janus", "pyswip")
LIMIT_MB = 150.0

RUNAWAYS = [
    "sq(X) :- Y is X * X, sq(Y)",  # big integers by repeated squaring
    "ac(A) :- atom_concat(A, A, B), ac(B)",  # atoms doubling
    "ln(X) :- p(X, _), length(_, 1000000000000)",  # a huge list
    "nums(X) :- p(X, _), numlist(1, 1000000000, _)",
    "ok(X) :- p(X, _)",
]
GOALS = ["sq(3)", "ac(ab)", "ln(a)", "nums(a)"]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    if name in BRIDGES:
        bridge_available(name)
    elif shutil.which(PROFILES[name].executable) is None:
        if require_backends(name):
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {name} but it is not on PATH")
        pytest.skip(f"{name} is not on PATH")
    return name


def runaway(engine: str, limit: float) -> dict[str, Any]:
    """Each runaway goal's outcome (error type and message), then a normal query's."""
    task = task_with_rules(RUNAWAYS, ["p(a, b)"], ["t(a)"], [])
    backend: Any
    if engine in BRIDGES:
        from ilpkit.plugins.backends.prolog.swi_backend import SwiBackend, SwiOptions

        backend = SwiBackend(SwiOptions(bridge=engine, memory_limit_mb=limit, timeout=120))
    else:
        from ilpkit.plugins.backends.prolog.subprocess_backend import (
            SubprocessBackend,
            SubprocessOptions,
        )

        backend = SubprocessBackend(
            SubprocessOptions(engine=engine, memory_limit_mb=limit, timeout=120)
        )
    backend.load(task)
    outcomes = []
    try:
        for goal in GOALS:
            try:
                outcomes.append(["ok", str(backend.answers(term(goal), 1))])
            except Exception as exc:
                outcomes.append([type(exc).__name__, str(exc)])
            # usable after each runaway
            assert backend.coverage(Clause.from_term(term("t(A) :- ok(A)"))).tolist() == [0]
        return {"outcomes": outcomes}
    finally:
        backend.close()


def test_runaways_are_resource_limits_and_the_backend_survives(engine: str) -> None:
    if engine in BRIDGES:
        got: dict[str, Any] = in_child(engine, runaway, engine=engine, limit=LIMIT_MB)
    else:
        got = runaway(engine, LIMIT_MB)
    for goal, (kind, message) in zip(GOALS, got["outcomes"], strict=True):
        assert kind == "ResourceLimitExceeded", (goal, kind, message)
        assert f"goal: {goal}" in message
    if engine != "gprolog":  # GNU Prolog stops at its fixed stack sizes first
        by_goal = dict(zip(GOALS, got["outcomes"], strict=True))
        # atoms and big integers live outside SWI-Prolog's stacks: the memory watch stops them
        assert "memory limit of 150.0 MB exceeded" in by_goal["ac(ab)"][1]
        squaring = by_goal["sq(3)"][1]
        # SWI-Prolog refuses the integer before computing it: the server sets
        # max_integer_size to a quarter of the memory bound (>= 9.2, janus), or the data's
        # arithmetic goes through the same bound (9.0; docs/security.md, big integers)
        assert "memory limit of 150.0 MB exceeded" in squaring or (
            "max_integer_size" in squaring
        ), squaring


def test_no_memory_limit_sends_none() -> None:
    from ilpkit.plugins.backends.prolog.process import _limited

    assert _limited(["swipl", "-q"], None) == ["swipl", "-q"]
    wrapped = _limited(["swipl", "-q"], 3072)
    assert wrapped[-2:] == ["swipl", "-q"] and "ulimit -v 3145728" in wrapped[2]
