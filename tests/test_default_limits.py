"""With default options, every engine stops a looping query in seconds (issue 33).

``spin :- spin`` (a loop in constant memory), ``loop(X) :- loop(X)`` and the left recursion
``lr(X) :- lr(Y), q(Y, X)`` must end as :class:`ResourceLimitExceeded` with no option set.
Before the native backend got its own step limit (1,000,000 instead of 10,000,000) the three
took 78, 113 and 82 s there (the last at the memory limit), so a run whose clauses kept
meeting the loop never ended in practice; the Prolog engines took 0.3-7 s.

The bound is on CPU seconds of the process that runs the query where that is ours (native,
and the in-process bridges janus and pyswip), and on wall-clock seconds where the query runs
in a Prolog child (swipl, gprolog), generously: a loaded machine slows both.
"""

from __future__ import annotations

import shutil
import time
from typing import Any

import pytest

from ilpkit.plugins.backends.prolog.profiles import PROFILES
from ilpkit.prolog.terms import Clause
from tests.reference_prover import require_backends, term
from tests.test_subprocess_backend import task_with_rules
from tests.test_swi_backend import bridge_available, in_child

ENGINES = ["native", "swipl", "gprolog", "janus", "pyswip"]
IN_PROCESS = {"native", "janus", "pyswip"}
RULES = ["spin :- spin", "loop(X) :- loop(X)", "lr(X) :- lr(Y), q(Y, X)", "q(a, b)"]
CLAUSES = ["t(A) :- p(A, _), spin", "t(A) :- loop(A)", "t(A) :- lr(A)"]
CPU_BOUND = 25.0
"""CPU seconds one runaway may take in-process: native measured 1.7-11 CPU s per query at a
load of 7 on 2 cores (it was 78-113 s with the old default)."""
WALL_BOUND = 45.0
"""Wall-clock seconds one runaway may take in a Prolog child (measured 0.2-5 s)."""


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    if name in ("janus", "pyswip"):
        bridge_available(name)
    elif name != "native" and shutil.which(PROFILES[name].executable) is None:
        if require_backends(name):
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {name} but it is not on PATH")
        pytest.skip(f"{name} is not on PATH")
    return name


def default_backend(engine: str) -> Any:
    """The backend of ``engine`` with every option at its default."""
    if engine == "native":
        from ilpkit.plugins.backends.native.engine import NativeBackend

        return NativeBackend()
    if engine in ("janus", "pyswip"):
        from ilpkit.plugins.backends.prolog.swi_backend import SwiBackend, SwiOptions

        return SwiBackend(SwiOptions(bridge=engine))
    from ilpkit.plugins.backends.prolog.subprocess_backend import (
        SubprocessBackend,
        SubprocessOptions,
    )

    return SubprocessBackend(SubprocessOptions(engine=engine))


def run_runaways(engine: str) -> list[list[Any]]:
    """``[error type, message, wall s, CPU s]`` of each runaway clause (JSON-able, for
    :func:`in_child`)."""
    backend = default_backend(engine)
    backend.load(task_with_rules(RULES, ["p(a, b)", "p(c, d)"], ["t(a)"], ["t(c)"]))
    out: list[list[Any]] = []
    try:
        for text in CLAUSES:
            wall, cpu = time.monotonic(), time.process_time()
            try:
                covered = backend.coverage(Clause.from_term(term(text)))
                got: list[Any] = ["covered", covered.tolist()]
            except Exception as exc:
                got = [type(exc).__name__, str(exc)]
            out.append([*got, time.monotonic() - wall, time.process_time() - cpu])
    finally:
        backend.close()
    return out


@pytest.mark.heavy  # about 20 CPU s on native
def test_default_limits_stop_loops_in_seconds(engine: str) -> None:
    outcomes = in_child(engine, run_runaways, timeout=600, engine=engine)
    for text, (kind, message, wall, cpu) in zip(CLAUSES, outcomes, strict=True):
        assert kind == "ResourceLimitExceeded", (text, kind, message)
        if engine in IN_PROCESS:
            assert cpu < CPU_BOUND, (text, cpu, message)
        else:
            assert wall < WALL_BOUND, (text, wall, message)


def test_native_default_step_limit_is_lower_than_prolog_engines() -> None:
    """The native default (checked here without running a loop) and the message that names
    the option to raise."""
    from ilpkit.core.task import Program
    from ilpkit.errors import ResourceLimitExceeded
    from ilpkit.plugins.backends.base import BackendOptions
    from ilpkit.plugins.backends.native.engine import NativeOptions
    from ilpkit.plugins.backends.native.resolution import ResolutionEngine
    from ilpkit.prolog.reader import PrologReader

    assert NativeOptions().step_limit == 1_000_000
    assert BackendOptions().step_limit == 10_000_000  # the Prolog engines keep theirs
    program = Program()
    for read in PrologReader().read_text("spin :- spin.\n", "bk.pl"):
        program.add_clause(Clause.from_term(read.term), read.location)
    engine = ResolutionEngine(program, step_limit=5_000)
    with pytest.raises(ResourceLimitExceeded) as info:
        list(engine.solve(PrologReader().read_term("spin")))
    assert "limit of 5,000 resolution steps" in str(info.value)
    assert "raise backend.step_limit (--set backend.step_limit=N)" in str(info.value)
