"""learn's first Ctrl-C (or SIGTERM) also ends the query under way (issue 33): with no step
limit and no timeout, a query that never ends kept learn from writing its model until a
second Ctrl-C, which lost it.  The native engine checks for the stop every 2,048 steps, the
subprocess backend while it waits for the answer (then restarts the engine); SWI-Prolog in
process (janus, pyswip) is interrupted by the signal itself.  The endless goal is a long
``between/3`` loop: ``spin :- spin`` overflows GNU Prolog's stack, and ``repeat/0`` is refused
in data (GNU Prolog's step limit does not count its retries)."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ilpkit.core.timelimit import clear_stop, request_stop
from ilpkit.errors import ResourceLimitExceeded
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.plugins.backends.prolog.subprocess_backend import SubprocessBackend, SubprocessOptions
from ilpkit.prolog.terms import Clause
from tests.reference_prover import require_backends, term
from tests.test_subprocess_backend import task_with_rules

ROOT = Path(__file__).resolve().parents[1]
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
    task = task_with_rules(
        ["spin :- between(1, 1000000000000, _), fail"], ["p(a, b)", "p(c, d)"], ["t(a)"], ["t(c)"]
    )
    backend = _backend(name)
    stopped_at: list[float] = []

    def stop() -> None:
        stopped_at.append(time.monotonic())
        request_stop("Ctrl-C")

    # The timer's thread needs the GIL to make the request (a Ctrl-C's handler runs in the
    # main thread and does not): the engine must let other threads run (it once kept them
    # waiting for seconds, releasing and retaking the GIL every millisecond to read its
    # resident size), and must end the query soon after the request.
    timer = threading.Timer(1.0, stop)
    try:
        backend.load(task)
        started = time.monotonic()
        timer.start()
        with pytest.raises(ResourceLimitExceeded) as caught:
            backend.coverage(SPIN)
        ended = time.monotonic()
        clear_stop()
        assert backend.coverage(PLAIN).ids.tolist() == [0]  # t(a) only: the engine is back
    finally:
        timer.cancel()
        clear_stop()
        backend.close()
    assert stopped_at and ended - started > 0.9, "the query ended before the stop"
    assert stopped_at[0] - started < 4, stopped_at[0] - started  # other threads ran
    assert ended - stopped_at[0] < 7, ended - stopped_at[0]  # the engine saw the stop
    assert "stopped: Ctrl-C" in str(caught.value), str(caught.value)


SLOW_TASK = """:- modeh(1, p(+t)).
:- modeb(1, q(+t)).
:- modeb(1, r(+t)).
:- determination(p/1, q/1).
:- determination(p/1, r/1).
:- set(i, 1).
q(a). q(b). q(c).
r(X) :- X == a, spin.
r(b). r(d).
spin :- spin.
"""


@pytest.mark.heavy  # a child learn per backend, each waiting 4 s before its Ctrl-C
@pytest.mark.parametrize(
    "backend",
    [
        ["--backend", "native"],
        ["--backend", "subprocess", "--set", "backend.engine=swipl"],
        ["--backend", "swi", "--set", "backend.bridge=janus"],
        ["--backend", "swi", "--set", "backend.bridge=pyswip"],
    ],
    ids=["native", "swipl", "janus", "pyswip"],
)
def test_ctrl_c_on_learn_ends_an_endless_saturation_query_and_writes_the_model(
    tmp_path: Path, backend: list[str]
) -> None:
    """Saturating p(a) calls r(a), which never ends and has no limit: the first Ctrl-C must
    end it, and learn write its model and exit 130 within seconds."""
    if backend[1] == "swi":
        from tests.test_swi_backend import bridge_available

        bridge_available(backend[-1].split("=")[1])
    elif backend[1] == "subprocess":
        _backend("swipl").close()  # skips when swipl is missing
    (tmp_path / "slow.b").write_text(SLOW_TASK)
    (tmp_path / "slow.f").write_text("p(a).\np(b).\n")
    (tmp_path / "slow.n").write_text("p(c).\np(d).\n")
    model = tmp_path / "m.json"
    argv = [sys.executable, "-m", "ilpkit", "learn", str(tmp_path / "slow.b"), *backend]
    argv += ["--set", "backend.step_limit=none", "-o", str(model)]
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(4)  # start-up and load are done: the saturation query spins
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert time.monotonic() - sent < 10, (out, err)
    assert json.loads(model.read_text())["info"]["interrupted"].startswith("stopped by Ctrl-C")
