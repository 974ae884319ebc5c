"""Ctrl-C, SIGTERM and SIGHUP on ``learn`` keep the model found so far, and ``--time-limit``
bounds saturation too (issue 33 item 3).

The first Ctrl-C stops every search as a time limit would (each keeps its best clause); learn
then writes the model, marked ``info.interrupted``, says so and exits 130 (docs/exit-codes.md);
the first SIGTERM or SIGHUP likewise, exiting 143 or 129 (batch schedulers send SIGTERM).
Saturation checks the same deadline between mode goals, so a run whose
seeds take long to saturate (mutagenesis in Popper's layout: 152 CPU s under
``--time-limit 60``) stops near the limit instead of after the bottom clause.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ilpkit.core.timelimit import clear_stop, request_stop, time_is_up, time_limit

ROOT = Path(__file__).resolve().parents[1]


def test_a_requested_stop_makes_time_up_until_cleared() -> None:
    assert not time_is_up()
    request_stop("test")
    try:
        assert time_is_up()
    finally:
        clear_stop()
    assert not time_is_up()


def test_saturation_stops_adding_literals_once_the_time_limit_passed() -> None:
    from ilpkit.core.formats import load_task
    from ilpkit.datasets import bundled_path
    from ilpkit.plugins.backends.native.engine import NativeBackend

    task = load_task(bundled_path("trains"))
    with NativeBackend() as backend:
        backend.load(task)
        full = backend.saturate(0)
        with time_limit(1e-6):
            time.sleep(0.01)
            cut = backend.saturate(0)
    assert len(full.literals) > 0  # eastbound(east1) has cars, shapes, loads...
    assert len(cut.literals) == 0  # the deadline had passed before the first mode goal


@pytest.mark.heavy  # starts UW-CSE in a child process and waits for it: 10-30 s
def test_ctrl_c_on_learn_writes_the_model_found_so_far(tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ilpkit", "learn", "uwcse", "-o", str(model)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    assert proc.stderr is not None
    first = proc.stderr.readline()  # the large-search warning: the search is about to start
    assert "these settings allow" in first, first
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert "stopping: the search under way keeps its best clause" in err
    assert "interrupted: stopped by Ctrl-C" in err and f"written to {model}" in err
    data = json.loads(model.read_text())
    assert data["info"]["interrupted"].startswith("stopped by Ctrl-C")
    assert "clauses evaluated" in out  # the rules and the summary are printed as usual


@pytest.mark.heavy  # starts UW-CSE in a child process and waits for it: 10-30 s each
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_on_learn_write_the_model_found_so_far(
    tmp_path: Path, signum: int
) -> None:
    """What batch schedulers send (slurm at a job's time limit, ``kill``; SIGHUP when the
    terminal closes) keeps the model as Ctrl-C does, and exits 128 + the signal's number."""
    name = signal.Signals(signum).name
    model = tmp_path / "m.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ilpkit", "learn", "uwcse", "-o", str(model)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        # the signal's default disposition in the child: under nohup the tests inherit an
        # ignored SIGHUP, which learn rightly keeps ignored (tested below)
        preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    first = proc.stderr.readline()  # the large-search warning: the search is about to start
    assert "these settings allow" in first, first
    time.sleep(4)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signum, (out, err)
    assert f"stopping on {name}: the search under way keeps its best clause" in err
    assert f"interrupted: stopped by {name}" in err and f"written to {model}" in err
    data = json.loads(model.read_text())
    assert data["info"]["interrupted"].startswith(f"stopped by {name}: the model holds")
    assert "clauses evaluated" in out


def _wait_for(done: Callable[[], bool]) -> None:
    """A signal sent to this process runs its handler at the next bytecode; wait for it."""
    for _ in range(200):
        if done():
            return
        time.sleep(0.01)


def test_a_first_sigterm_stops_softly_and_a_second_stops_at_once() -> None:
    """In-process: the first SIGTERM asks every search to stop (as at a time limit) and is
    recorded; the second goes to the handler that was there before (lifecycle's, which
    raises Terminated); afterwards the handlers and the stop are as before."""
    from ilpkit.cli.learn_cmd import SOFT_SIGNALS, interrupted_note, stop_softly
    from ilpkit.core.lifecycle import Terminated

    saved = {s: signal.getsignal(s) for s in SOFT_SIGNALS}

    def before(signum: int, frame: object) -> None:
        raise Terminated(signum)

    signal.signal(signal.SIGTERM, before)
    try:
        with pytest.raises(Terminated) as stopped, stop_softly() as seen:
            os.kill(os.getpid(), signal.SIGTERM)
            _wait_for(lambda: bool(seen))
            assert seen == [signal.SIGTERM]
            assert time_is_up()
            os.kill(os.getpid(), signal.SIGTERM)
            _wait_for(lambda: False)  # the handler raises Terminated meanwhile
        assert stopped.value.signum == signal.SIGTERM
        assert not time_is_up()
        assert signal.getsignal(signal.SIGTERM) is before
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
    assert interrupted_note(signal.SIGTERM).startswith("stopped by SIGTERM: the model holds")
    assert interrupted_note(signal.SIGINT).startswith("stopped by Ctrl-C: the model holds")


def test_an_ignored_signal_stays_ignored() -> None:
    """``nohup`` ignores SIGHUP: learn does not take it over."""
    from ilpkit.cli.learn_cmd import SOFT_SIGNALS, stop_softly

    saved = {s: signal.getsignal(s) for s in SOFT_SIGNALS}
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with stop_softly() as seen:
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(0.05)
            assert seen == [] and not time_is_up()
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def test_the_cli_keeps_a_signal_ignored_where_it_started() -> None:
    """``nohup`` starts a command with SIGHUP ignored (so that closing the terminal does not
    end it): the command line's handlers leave it so, as they leave Ctrl-C in a background
    job."""
    from ilpkit.cli.learn_cmd import SOFT_SIGNALS
    from ilpkit.core import lifecycle

    saved = {s: signal.getsignal(s) for s in SOFT_SIGNALS}
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with lifecycle.signal_handlers():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN  # not ignored: ours
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


@pytest.mark.heavy  # starts UW-CSE in a child process and waits for it: 10-30 s
def test_learn_under_nohup_ignores_sighup_and_still_stops_softly_on_sigterm(
    tmp_path: Path,
) -> None:
    model = tmp_path / "m.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ilpkit", "learn", "uwcse", "-o", str(model)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),  # as nohup does
    )
    assert proc.stderr is not None
    first = proc.stderr.readline()
    assert "these settings allow" in first, first
    time.sleep(2)
    proc.send_signal(signal.SIGHUP)  # ignored
    time.sleep(2)
    assert proc.poll() is None
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, (out, err)
    assert "SIGHUP" not in err
    assert json.loads(model.read_text())["info"]["interrupted"].startswith("stopped by SIGTERM")
