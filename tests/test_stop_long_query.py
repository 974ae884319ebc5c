"""learn's first Ctrl-C (or SIGTERM) also ends the query under way (issue 33): with no step
limit and no timeout, a query that never ends kept learn from writing its model until a
second Ctrl-C, which lost it.  The native engine checks for the stop every 2,048 steps, the
subprocess backend while it waits for the answer (then restarts the engine); SWI-Prolog in
process (janus, pyswip) is interrupted by the signal itself."""

from __future__ import annotations

import shutil
import threading
import time
from typing import Any

import pytest

from ilpkit.core.timelimit import clear_stop, request_stop
from ilpkit.errors import ResourceLimitExceeded
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.plugins.backends.prolog.subprocess_backend import SubprocessBackend, SubprocessOptions
from ilpkit.prolog.terms import Clause
from tests.reference_prover import require_backends, term
from tests.test_subprocess_backend import task_with_rules

SPIN = Clause.from_term(term("t(A) :- p(A, _), spin"))
PLAIN = Clause.from_term(term("t(A) :- p(A, b)"))


def _backend(name: str) -> Any:
    if name == "native":
        return NativeBackend(NativeOptions(step_limit=None, timeout=None))
    if shutil.which(name) is None:
        if require_backends(name):
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {name} but it is not on PATH")
        pytest.skip(f"{name} is not on PATH")
    return SubprocessBackend(SubprocessOptions(engine=name, step_limit=None, timeout=None))


@pytest.mark.parametrize("name", ["native", "swipl", "gprolog"])
def test_a_stop_ends_an_endless_query_and_the_backend_answers_again(name: str) -> None:
    task = task_with_rules(["spin :- repeat, fail"], ["p(a, b)", "p(c, d)"], ["t(a)"], ["t(c)"])
    backend = _backend(name)
    timer = threading.Timer(1.0, request_stop, args=("Ctrl-C",))
    try:
        backend.load(task)
        started = time.monotonic()
        timer.start()
        with pytest.raises(ResourceLimitExceeded) as caught:
            backend.coverage(SPIN)
        waited = time.monotonic() - started
        clear_stop()
        assert backend.coverage(PLAIN).ids.tolist() == [0]  # t(a) only: the engine is back
    finally:
        timer.cancel()
        clear_stop()
        backend.close()
    assert 0.9 < waited < 8, waited  # ended by the stop (at 1 s), not by anything else
    assert "stopped: Ctrl-C" in str(caught.value), str(caught.value)
