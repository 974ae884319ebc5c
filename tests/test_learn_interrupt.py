"""Ctrl-C on ``learn`` keeps the model found so far, and ``--time-limit`` bounds saturation
too (issue 33 item 3).

The first Ctrl-C stops every search as a time limit would (each keeps its best clause); learn
then writes the model, marked ``info.interrupted``, says so and exits 130
(docs/exit-codes.md). Saturation checks the same deadline between mode goals, so a run whose
seeds take long to saturate (mutagenesis in Popper's layout: 152 CPU s under
``--time-limit 60``) stops near the limit instead of after the bottom clause.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
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
