"""How runs start and end: one owner per run directory, interrupts, dead workers and parents,
temporary folders, output paths (issue 21, items 3, 4 and the output-path part of 6).

Most tests start real ``python -m ilpkit`` processes and signal them as a terminal, ``kill``
or the out-of-memory killer would, on the bundled ``trains`` and ``uwcse`` data with small
budgets.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.core import lifecycle
from ilpkit.core.executor import WorkerLost
from ilpkit.core.outpaths import OutputPathError, check_output_dir, check_output_file
from ilpkit.errors import ConfigError
from ilpkit.experiment.config import RunConfig, load_config
from ilpkit.experiment.cv import derive_seed
from ilpkit.experiment.runlock import RunLock, RunLocked
from ilpkit.experiment.runs import Interrupted, config_differences, run_experiment
from ilpkit.plugins.executors.processes import ProcessesExecutor, ProcessesOptions

psutil = pytest.importorskip("psutil")

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
TRAINS_CV = ["cv", "trains", "--folds", "5", "--set", "nodes=30", "--quiet"]
# uwcse units that run for many seconds: time to signal a run while its workers work
UWCSE_LONG = [
    "cv", "uwcse", "--search", "topdown", "--scorer", "laplace", "--set", "i=2",
    "--set", "nodes=100000", "--set", "clauselength=4", "--set", "minpos=2",
    "--set", "learner.max_rules=20", "--quiet", "--executor", "processes",
    "--set", "executor.workers=2",
]  # fmt: skip


def ilpkit_process(args: list[str], **env: str) -> subprocess.Popen[str]:
    """``python -m ilpkit ARGS`` in its own process group (as a terminal's foreground job)."""
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.Popen(
        [sys.executable, "-m", "ilpkit", *args],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def workers_of(pid: int) -> list[Any]:
    """The multiprocessing workers (not the resource tracker) started by process ``pid``."""
    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    out = []
    for child in children:
        try:
            if "spawn_main" in " ".join(child.cmdline()):
                out.append(child)
        except psutil.Error:
            continue
    return out


def wait_for(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def gone(processes: list[Any]) -> bool:
    for p in processes:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                return False
        except psutil.NoSuchProcess:
            continue
    return True


def finish(proc: subprocess.Popen[str], timeout: float) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"the run did not end within {timeout} s") from None
    return proc.returncode, err


@pytest.fixture
def reap() -> Iterator[list[Any]]:
    """Processes to kill if a test fails halfway (never left running)."""
    procs: list[Any] = []
    yield procs
    for p in procs:
        with contextlib.suppress(psutil.Error, OSError):
            p.kill()


def unit_summary(run_dir: Path) -> list[tuple[str, int, dict[str, float]]]:
    data = json.loads((run_dir / "results.json").read_text())
    return [(u["key"], u["seed"], u["metrics"]) for u in data["units"]]


# -- one owner per run directory ------------------------------------------------------------------
def test_a_second_lock_on_a_directory_is_refused_naming_the_holder(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with RunLock(run_dir) as lock:
        assert (run_dir / ".lock").read_text().startswith(f"pid {os.getpid()} on ")
        with pytest.raises(RunLocked, match=rf"{run_dir} is in use .*pid {os.getpid()}"):
            RunLock(run_dir).acquire()
        assert lock.taken_over is None
    assert not run_dir.exists()  # created by the lock, still empty: removed again
    with RunLock(run_dir):  # free again
        (run_dir / "kept").write_text("x")
    assert (run_dir / "kept").exists() and not (run_dir / ".lock").exists()


def test_a_lock_left_by_a_killed_run_is_taken_over_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    run_dir = tmp_path / "run"
    code = (
        "import os, signal, sys; from ilpkit.experiment.runlock import RunLock; "
        "lock = RunLock(sys.argv[1]); lock.acquire(); print(os.getpid(), flush=True); "
        "os.kill(os.getpid(), signal.SIGKILL)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(run_dir)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL
    dead = int(proc.stdout)
    assert f"pid {dead} on" in (run_dir / ".lock").read_text()  # left behind by kill -9
    with (
        caplog.at_level(logging.WARNING, logger="ilpkit.experiment.runlock"),
        RunLock(run_dir) as lock,
    ):
        assert lock.taken_over is not None and f"pid {dead} " in lock.taken_over
    assert f"taking over the lock of a run that is no longer running (pid {dead} " in caplog.text


def test_a_lock_file_released_between_open_and_flock_is_not_a_second_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B opens .lock while A holds it; A releases (unlinking that file) and C takes a new
    one before B's flock: B locks a file nobody uses any more, so it must look again and
    be refused by C -- not become a second owner."""
    import fcntl

    from ilpkit.experiment import runlock

    run_dir = tmp_path / "run"
    (run_dir / "kept").mkdir(parents=True)
    a, c = RunLock(run_dir), RunLock(run_dir)
    a.acquire()
    real_flock = fcntl.flock
    calls = []

    def flock_after_a_hands_over(fd: int, op: int) -> None:
        if not calls:
            calls.append(fd)
            a.release()
            monkeypatch.setattr(runlock.fcntl, "flock", real_flock)
            c.acquire()
        real_flock(fd, op)

    monkeypatch.setattr(runlock.fcntl, "flock", flock_after_a_hands_over)
    with pytest.raises(RunLocked, match=rf"pid {os.getpid()}"):
        RunLock(run_dir).acquire()
    assert calls  # B did lock the unlinked file first
    c.release()


def test_a_run_on_a_locked_directory_is_refused_before_any_work(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with RunLock(run_dir):
        result = runner.invoke(app, [*TRAINS_CV, "--out", str(run_dir)])
        assert result.exit_code == 2, result.output
        assert f"{run_dir} is in use by another ilpkit run (pid {os.getpid()}" in result.output
        assert sorted(p.name for p in run_dir.iterdir()) == [".lock"]  # nothing written


def test_two_runs_racing_for_one_directory_leave_one_consistent_run(tmp_path: Path) -> None:
    """Two real processes, different seeds, started together: exactly one succeeds and the
    directory holds its configuration, its units and its results only."""
    run_dir = tmp_path / "run"
    procs = {seed: ilpkit_process([*TRAINS_CV, "--seed", str(seed), "--out", str(run_dir)])
             for seed in (1, 2)}  # fmt: skip
    outcome = {seed: finish(p, 240) for seed, p in procs.items()}
    winners = [seed for seed, (code, _) in outcome.items() if code == 0]
    assert len(winners) == 1, outcome
    (loser,) = set(outcome) - set(winners)
    code, err = outcome[loser]
    assert code == 2 and "Traceback" not in err
    assert "is in use by another ilpkit run (pid" in err or "already holds a run" in err
    seed = winners[0]
    assert load_config(run_dir / "config.toml").seed == seed
    units = unit_summary(run_dir)
    assert [key for key, _, _ in units] == [f"r0-f{k}" for k in range(5)]
    # every unit's seed is the winner's: derive_seed(seed, "unit", repeat, fold)
    assert [s for _, s, _ in units] == [derive_seed(seed, "unit", 0, k) for k in range(5)]
    for key, unit_seed, _ in units:
        saved = json.loads((run_dir / "units" / f"{key}.json").read_text())
        assert saved["seed"] == unit_seed
    assert not (run_dir / ".lock").exists()


def test_resume_names_the_keys_that_differ(tmp_path: Path) -> None:
    base: dict[str, Any] = {
        "data": {"path": "trains"},
        "search": "bf",
        "scorer": "coverage",
        "settings": {"nodes": 30},
        "cv": {"folds": 5},
    }
    saved = RunConfig.model_validate(base)
    given = RunConfig.model_validate(
        {**base, "seed": 7, "settings": {"nodes": 40}, "executor": "processes"}
    )
    # the executor does not count: resuming elsewhere gives the same numbers
    assert config_differences(saved, given) == [
        "seed (config.toml: 0, now: 7)",
        "settings.nodes (config.toml: 30, now: 40)",
    ]
    target = tmp_path / "run"

    class StopAfterOne:
        def map(self, fn: Callable[[Any], Any], units: Any) -> Iterator[Any]:
            for i, unit in enumerate(units):
                if i == 1:
                    raise KeyboardInterrupt
                yield fn(unit)

        def close(self) -> None:
            pass

    with pytest.raises(Interrupted, match="1 of 5 units are saved") as info:
        run_experiment(saved, target, executor=StopAfterOne())
    assert info.value.exit_code == 130
    with pytest.raises(ConfigError, match=r"in seed \(config\.toml: 0, now: 7\)"):
        run_experiment(given, target, resume=True)


# -- output paths ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["learn", "no-such-data", "--out", "{dir}"], "--out {dir}: is a directory"),
        (["learn", "no-such-data", "--out", "{dir}/missing/m.json"], "{dir}/missing does not"),
        (["learn", "no-such-data", "--out", "{file}/m.json"], "{file} is a file, not a dir"),
        (["cv", "no-such-data", "--out", "{file}"], "--out {file}: is a file"),
        (["cv", "no-such-data", "--out", "{file}/a/b"], "{file} is a file, so no"),
        (["predict", "m.json", "no-such-data", "--out", "{dir}"], "--out {dir}: is a directory"),
    ],
)
def test_bad_output_paths_are_errors_before_any_work(
    tmp_path: Path, args: list[str], message: str
) -> None:
    """``no-such-data``: the output path is refused before the data is even looked for."""
    (tmp_path / "f").write_text("x")
    names = {"dir": str(tmp_path), "file": str(tmp_path / "f")}
    result = runner.invoke(app, [a.format(**names) for a in args])
    assert result.exit_code == 2, result.output
    assert message.format(**names) in result.output
    assert "Traceback" not in result.output and result.exception is not None
    assert isinstance(result.exception, SystemExit)


def test_output_path_checks_accept_what_can_be_written(tmp_path: Path) -> None:
    assert check_output_file(tmp_path / "m.json") == tmp_path / "m.json"
    assert check_output_dir(tmp_path / "runs" / "a") == tmp_path / "runs" / "a"  # parents made
    assert check_output_dir(tmp_path) == tmp_path
    with pytest.raises(OutputPathError, match="is a directory"):
        check_output_file(tmp_path)


# -- interrupts and exit codes --------------------------------------------------------------------
def test_ctrl_c_exits_130_with_one_line_for_learn_and_cv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ilpkit.experiment import runs
    from ilpkit.plugins.learners.theory import TheoryLearner

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(TheoryLearner, "fit", interrupted)
    result = runner.invoke(app, ["learn", "trains", "--quiet"])
    assert result.exit_code == 130
    assert result.output.strip() == "interrupted"
    monkeypatch.setattr(runs, "_results", interrupted)
    result = runner.invoke(app, [*TRAINS_CV, "--out", str(tmp_path / "run")])
    assert result.exit_code == 130
    lines = result.output.strip().splitlines()
    assert lines == [
        f"interrupted: 0 of 5 units are saved in {tmp_path / 'run'}; continue with: "
        f"ilpkit cv --resume {tmp_path / 'run'}"
    ]


@pytest.mark.parametrize(
    ("signals", "codes"),
    [
        ([signal.SIGINT], {130}),
        # a second Ctrl-C: at once, without traceback (late in the interpreter's exit,
        # Python's own default handler is back and the process ends by SIGINT: still 130
        # for the shell)
        ([signal.SIGINT, signal.SIGINT], {130, -signal.SIGINT}),
        ([signal.SIGTERM], {143}),
    ],
    ids=["ctrl-c", "ctrl-c-twice", "sigterm"],
)
def test_signals_end_a_processes_run_with_its_workers(
    tmp_path: Path, reap: list[Any], signals: list[int], codes: set[int]
) -> None:
    """Ctrl-C (SIGINT to the whole foreground group, as a terminal sends it) or SIGTERM while
    two workers learn: the run ends within seconds, with one line and no traceback, and no
    worker is left."""
    proc = ilpkit_process([*UWCSE_LONG, "--out", str(tmp_path / "run")])
    reap.append(psutil.Process(proc.pid))
    workers = wait_for(lambda: len(workers_of(proc.pid)) == 2 and workers_of(proc.pid), 120,
                       "two workers")  # fmt: skip
    reap.extend(workers)
    time.sleep(2.0)  # they import, load uwcse and start learning
    sent = time.monotonic()
    for k, signum in enumerate(signals):
        if k:
            time.sleep(0.05)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signum)
    code, err = finish(proc, 30)
    assert time.monotonic() - sent < 10
    assert code in codes, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    if len(signals) > 1:  # ended before its line, multiprocessing's tracker may warn instead
        lines = [line for line in lines if not line.startswith("interrupted: ")]
        assert all("resource_tracker" in line or "warnings.warn" in line for line in lines)
    else:  # one line, saying what is kept and how to resume
        (line,) = lines
        assert line.startswith("interrupted: 0 of 5 units are saved in")
    wait_for(lambda: gone(workers), 5, "the workers to exit")


def sleepy(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def suicide(_: int) -> int:
    os.kill(os.getpid(), signal.SIGKILL)
    return 0


def test_closing_with_units_running_stops_the_workers_at_once() -> None:
    executor = ProcessesExecutor(ProcessesOptions(workers=2))
    results = executor.map(sleepy, [0.0, 60.0, 60.0, 60.0])
    assert next(results) == 0.0
    workers = [psutil.Process(pid) for pid in executor._workers]
    started = time.monotonic()
    executor.close()
    assert time.monotonic() - started < 10
    assert gone(workers)


def test_a_killed_worker_is_an_error_naming_the_signal() -> None:
    executor = ProcessesExecutor(ProcessesOptions(workers=2))
    with executor, pytest.raises(WorkerLost, match=r"killed by SIGKILL \(kill -9, or the out"):
        list(executor.map(suicide, [1, 2]))


@pytest.mark.heavy  # from the quick suite (3-6 s): keeps the README's test command under 5 minutes
def test_a_worker_dying_while_units_are_submitted_is_worker_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the pool refuses new units once a worker has died (seen when a worker was killed as it
    # started): that too is a dead worker, not a BrokenProcessPool traceback
    from concurrent.futures.process import BrokenProcessPool

    executor = ProcessesExecutor(ProcessesOptions(workers=1))

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise BrokenProcessPool("A child process terminated abruptly")

    monkeypatch.setattr(executor._pool, "submit", broken)
    with executor, pytest.raises(WorkerLost, match="a worker process died"):
        executor.map(abs, [1, 2])


@pytest.mark.slow  # three cv runs of trains: about 12 s
def test_a_killed_worker_ends_a_run_with_how_to_resume_and_resume_matches(
    tmp_path: Path, reap: list[Any]
) -> None:
    run_dir = tmp_path / "run"
    args = [*TRAINS_CV, "--executor", "processes", "--set", "executor.workers=2"]
    proc = ilpkit_process([*args, "--out", str(run_dir)])
    reap.append(psutil.Process(proc.pid))
    first = wait_for(lambda: workers_of(proc.pid), 120, "a worker")[0]
    first.kill()  # as kill -9 or the out-of-memory killer would
    code, err = finish(proc, 60)
    assert code == 2, err
    assert "Traceback" not in err and "BrokenProcessPool" not in err
    assert "killed by SIGKILL" in err
    assert f"continue with: ilpkit cv --resume {run_dir}" in err
    resumed = runner.invoke(app, ["cv", "--resume", str(run_dir), "--quiet"])
    assert resumed.exit_code == 0, resumed.output
    clean = runner.invoke(app, [*TRAINS_CV, "--out", str(tmp_path / "clean")])
    assert clean.exit_code == 0, clean.output
    assert unit_summary(run_dir) == unit_summary(tmp_path / "clean")


@pytest.mark.heavy  # starts and kills a run with worker processes
def test_a_killed_parent_takes_its_workers_with_it(tmp_path: Path, reap: list[Any]) -> None:
    proc = ilpkit_process([*UWCSE_LONG, "--out", str(tmp_path / "run")])
    reap.append(psutil.Process(proc.pid))
    workers = wait_for(lambda: len(workers_of(proc.pid)) == 2 and workers_of(proc.pid), 120,
                       "two workers")  # fmt: skip
    reap.extend(workers)
    time.sleep(1.0)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    wait_for(lambda: gone(workers), 5, "the workers to follow their parent")


# -- temporary folders ----------------------------------------------------------------------------
def test_stale_temp_folders_of_dead_processes_are_swept(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    stale = tmp_path / f"ilpkit-prolog-{int(dead.stdout)}-abc123"
    alive = tmp_path / f"ilpkit-prolog-{os.getppid()}-def456"
    other = tmp_path / "ilpkit-prolog-notapid"
    for d in (stale, alive, other):
        (d / "sub").mkdir(parents=True)
    assert lifecycle.owner_pid(stale.name) == int(dead.stdout)
    assert lifecycle.owner_pid(other.name) is None
    assert lifecycle.sweep_stale_temp_dirs(tmp_path) == [stale]
    assert not stale.exists() and alive.exists() and other.exists()


needs_swipl = pytest.mark.skipif(shutil.which("swipl") is None, reason="swipl not installed")


def prolog_dirs(root: Path) -> list[Path]:
    return sorted(root.glob("ilpkit-prolog-*"))


@needs_swipl
@pytest.mark.slow  # three learn runs on swipl: about 11 s
def test_subprocess_backend_temp_folders_go_on_sigint_and_after_kill_9(
    tmp_path: Path, reap: list[Any]
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    learn = ["learn", "uwcse", "--backend", "subprocess", "--set", "nodes=100000",
             "--set", "i=2", "--set", "clauselength=4", "--quiet"]  # fmt: skip
    for how in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        proc = ilpkit_process(learn, TMPDIR=str(tmp))
        reap.append(psutil.Process(proc.pid))
        wait_for(lambda: prolog_dirs(tmp), 120, "the engine's temporary folder")
        time.sleep(1.0)
        os.kill(proc.pid, how)
        code, err = finish(proc, 30)
        assert "Traceback" not in err
        if how == signal.SIGKILL:
            assert code == -signal.SIGKILL
            (left,) = prolog_dirs(tmp)  # nothing can run on kill -9 ...
            assert lifecycle.owner_pid(left.name) == proc.pid
            assert lifecycle.sweep_stale_temp_dirs(tmp) == [left]  # ... the next start sweeps
        else:
            assert code == 128 + how, err
            assert prolog_dirs(tmp) == []
        assert not list(tmp.iterdir())


@pytest.mark.heavy  # starts and kills a run with worker processes and engines
@needs_swipl
def test_workers_remove_their_temp_folders_when_the_parent_is_killed(
    tmp_path: Path, reap: list[Any]
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    args = [*UWCSE_LONG, "--backend", "subprocess", "--out", str(tmp_path / "run")]
    proc = ilpkit_process(args, TMPDIR=str(tmp))
    reap.append(psutil.Process(proc.pid))
    wait_for(lambda: len(prolog_dirs(tmp)) >= 2, 120, "both workers' engines")
    workers = workers_of(proc.pid)
    reap.extend(workers)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    wait_for(lambda: gone(workers), 5, "the workers to follow their parent")
    wait_for(lambda: not prolog_dirs(tmp), 5, "their temporary folders to go")


def test_report_does_not_rewrite_a_run_in_progress(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert runner.invoke(app, [*TRAINS_CV, "--out", str(run_dir)]).exit_code == 0
    with RunLock(run_dir):
        result = runner.invoke(app, ["report", str(run_dir)])
        assert result.exit_code == 2
        assert f"{run_dir} is in use by another ilpkit run" in result.output
    result = runner.invoke(app, ["report", str(run_dir)])
    assert result.exit_code == 0, result.output


CHILD = """
import os, sys, time
if sys.argv[1] == "watchdog-only":
    sys.platform = "darwin"  # no PR_SET_PDEATHSIG: the polling thread must do it alone
from ilpkit.core import lifecycle
lifecycle.die_with_parent(os.getppid())
folder = lifecycle.temp_dir("test")
print(os.getpid(), folder, flush=True)
time.sleep(120)
"""
MIDDLE = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2]], stdout=sys.stdout)
time.sleep(120)
"""


@pytest.mark.parametrize("how", ["pdeathsig", "watchdog-only"])
def test_a_process_dies_with_its_parent_and_removes_its_temp_folder(
    tmp_path: Path, reap: list[Any], how: str
) -> None:
    if how == "pdeathsig" and not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    middle = subprocess.Popen(
        [sys.executable, "-c", MIDDLE, CHILD, how], env=env, stdout=subprocess.PIPE, text=True
    )
    reap.append(psutil.Process(middle.pid))
    assert middle.stdout is not None
    pid, folder = middle.stdout.readline().split()
    child = psutil.Process(int(pid))
    reap.append(child)
    assert Path(folder).is_dir() and Path(folder).parent == tmp_path
    middle.kill()
    middle.wait(timeout=30)
    wait_for(lambda: gone([child]), 5, "the child to follow its parent")
    assert not Path(folder).exists()  # its cleanup ran on the way out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_workers_ask_linux_for_a_signal_at_their_parents_death() -> None:
    code = (
        "import ctypes, os; from ilpkit.core import lifecycle; "
        "lifecycle.die_with_parent(os.getppid()); libc = ctypes.CDLL(None); "
        "sig = ctypes.c_int(); libc.prctl(2, ctypes.byref(sig), 0, 0, 0); print(sig.value)"
    )
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert int(out.stdout) == signal.SIGTERM  # PR_GET_PDEATHSIG (2) reads it back


# The killed-worker race of session 4: a SIGTERM that the kernel hands to a thread other than
# the main one (or that lands just before the main thread blocks) only sets a flag, and a
# worker blocked reading the pool's queue never looked at it, so the pool waited for ever.
BLOCKED_WORKER = """
import os, signal, threading, time
from ilpkit.core import lifecycle
lifecycle.die_with_parent(os.getppid())
def poke():
    time.sleep(0.3)
    signal.pthread_kill(threading.get_ident(), signal.SIGTERM)  # to this thread, not main
threading.Thread(target=poke).start()
read_end, _ = os.pipe()
os.read(read_end, 1)  # blocked, as a worker waiting for its next unit
"""


def test_a_worker_blocked_in_a_read_ends_on_a_sigterm_another_thread_receives() -> None:
    proc = subprocess.run([sys.executable, "-c", BLOCKED_WORKER], timeout=30,
                          env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr


# A Ctrl-C while Python imports the command modules (before any handler is installed).
CTRL_C_DURING_IMPORT = """
import sys
class InterruptImport:
    def find_spec(self, name, path=None, target=None):
        if name == "ilpkit.cli.main":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, InterruptImport())
sys.argv = ["ilpkit", "--version"]
from ilpkit.cli.entry import main
main()
"""


def test_ctrl_c_while_the_cli_is_imported_is_one_line_and_exit_130() -> None:
    proc = subprocess.run([sys.executable, "-c", CTRL_C_DURING_IMPORT], timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "interrupted\n"


def test_the_console_script_goes_through_the_interrupt_safe_entry() -> None:
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["ilpkit"] == "ilpkit.cli.entry:main"
