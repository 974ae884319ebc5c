"""The operating-system fence around engine processes (issue 28, docs/security.md).

The static check is switched off on purpose (as if it had missed the payload): a goal of the
data then really calls ``shell/1``, ``process_create/3``, ``open/3``..., and only the fence
stands between it and the machine.  Each attack runs twice: fenced, it must leave no trace
and the engine must report an error; with ``fence="off"`` the same goal must do its harm
(so the test can fail).  The launcher itself is also tested on ``/bin/sh`` (no Prolog
needed), and a ``kill -9`` of a Python process must take its busy engine down.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from ilpkit.core.task import Task
from ilpkit.errors import BackendUnavailable, UnsafeProgramError
from ilpkit.plugins.backends.prolog import fence
from ilpkit.plugins.backends.prolog.fence import (
    FenceUnavailable,
    elf_interpreter,
    engine_home,
    engine_spec,
    landlock_abi,
    launcher_command,
)
from ilpkit.plugins.backends.prolog.subprocess_backend import SubprocessBackend, SubprocessOptions
from ilpkit.prolog.terms import Clause, Struct
from tests.reference_prover import make_task, require_backends, term
from tests.skips import engine_missing

ROOT = Path(__file__).resolve().parent.parent
LINUX = sys.platform.startswith("linux")
NO_LANDLOCK = "the kernel has no Landlock (Linux 5.13+ with CONFIG_SECURITY_LANDLOCK)"


def need_engine(name: str) -> None:
    if shutil.which(name) is None:
        if require_backends(name):
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {name} but it is not on PATH")
        pytest.skip(engine_missing(name))


def need_landlock() -> None:
    if landlock_abi() < 1:
        pytest.skip(NO_LANDLOCK)


@contextlib.contextmanager
def unchecked() -> Iterator[None]:
    """Switch the static check off, as if it had missed the payload."""

    def nothing(task: Task, **kwargs: Any) -> None:
        return None

    with mock.patch("ilpkit.plugins.backends.prolog.export.check_program", nothing):
        yield


# --------------------------------------------------------------------------------------------
# the launcher alone, on /bin/sh
# --------------------------------------------------------------------------------------------


def sh(script: str, spec: fence.FenceSpec | None, cwd: Path, mb: int | None = None) -> str:
    argv = launcher_command(["/bin/sh", "-c", script], address_space_mb=mb, spec=spec)
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


@pytest.mark.skipif(not LINUX, reason="the launcher's rlimits are tested on Linux")
def test_launcher_caps_memory_and_core_dumps(tmp_path: Path) -> None:
    out = sh("ulimit -v; ulimit -c", None, tmp_path, mb=300)
    assert out.split() == [str(300 * 1024), "0"]


def test_engine_files_are_found_from_the_resolved_binary() -> None:
    assert engine_home("/usr/lib/swi-prolog/bin/x86_64-linux/swipl") == ["/usr/lib/swi-prolog"]
    assert engine_home("/opt/swipl-9.2.9/lib/swipl/bin/x86_64-linux/swipl") == [
        "/opt/swipl-9.2.9/lib/swipl"
    ]
    assert engine_home("/usr/lib/gprolog/bin/gprolog") == ["/usr/lib/gprolog"]
    # a binary of a system prefix: its lib and share folders, never the whole prefix
    assert engine_home("/usr/local/bin/yap") == ["/usr/local/lib", "/usr/local/share"]
    assert engine_home("/bin/sh") == ["/lib", "/share"]
    if LINUX and os.path.exists("/bin/sh"):
        interp = elf_interpreter(os.path.realpath("/bin/sh"))
        assert interp is None or os.path.exists(interp)


def test_a_script_as_engine_cannot_be_fenced(tmp_path: Path) -> None:
    script = tmp_path / "swipl"
    script.write_text('#!/bin/sh\nexec swipl "$@"\n')
    with pytest.raises(FenceUnavailable, match="is a script"):
        engine_spec(str(script), "swipl", tmp_path)


@pytest.mark.skipif(not LINUX, reason="Landlock is Linux only")
def test_fenced_shell_reads_and_writes_only_what_it_is_given(tmp_path: Path) -> None:
    need_landlock()
    work, data, secret = tmp_path / "work", tmp_path / "data", tmp_path / "secret"
    for d in (work, data, secret):
        d.mkdir()
    (work / fence.SCRATCH).mkdir()
    (data / "d.txt").write_text("data-ok\n")
    (secret / "s.txt").write_text("s3cret\n")
    outside = tmp_path / "outside"
    script = (
        f"read a < {data}/d.txt && echo $a; "
        f"read b < {secret}/s.txt && echo $b; "
        "read c < /etc/passwd && echo passwd-read; "
        f"echo x > {outside} && echo outside-written; "
        f"echo y > {fence.SCRATCH}/f && echo scratch-written; "
        "/bin/true && echo ran-a-program"
    )
    open_out = sh(script, None, work)
    assert "s3cret" in open_out and "passwd-read" in open_out and "ran-a-program" in open_out
    outside.unlink()
    spec = engine_spec("/bin/sh", "sh", work, [data])
    spec.landlock = True
    out = sh(script, spec, work)
    assert "data-ok" in out and "scratch-written" in out
    for leak in ("s3cret", "passwd-read", "outside-written", "ran-a-program"):
        assert leak not in out, out
    assert not outside.exists()
    assert "Permission denied" in out


def test_without_landlock_require_refuses_and_auto_warns_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        mock.patch.object(fence, "landlock_abi", lambda: 0),
        mock.patch.object(fence, "_warned", False),
    ):
        with pytest.raises(FenceUnavailable, match="required"):
            fence.fence_for("require", "/bin/sh", "sh", tmp_path)
        for _ in range(3):
            spec = fence.fence_for("auto", "/bin/sh", "sh", tmp_path)
            assert spec is not None and not spec.landlock
    warnings = [r for r in caplog.records if "filesystem fence is off" in r.getMessage()]
    assert len(warnings) == 1


def test_trusted_data_turns_the_auto_fence_off_but_not_a_required_one() -> None:
    def mode(fence_opt: str, trust: bool) -> str:
        opts = SubprocessOptions(engine="swipl", fence=fence_opt)
        opts.trust_data = trust
        return SubprocessBackend(opts).fence_mode()

    assert mode("auto", False) == "auto"
    assert mode("auto", True) == "off"
    assert mode("require", True) == "require"
    assert mode("off", False) == "off"


# --------------------------------------------------------------------------------------------
# the engines: what the static check would have refused, stopped by the fence
# --------------------------------------------------------------------------------------------

ENGINES = ["swipl", "gprolog"]


def attacks(engine: str, tmp: Path) -> dict[str, tuple[str, Path | None]]:
    """name -> (the clause body of ``a_NAME(X)``, the canary it creates when it works)."""
    c = {n: tmp / f"canary-{n}" for n in ("shell", "proc", "open", "copy", "spawn", "popen")}
    out: dict[str, tuple[str, Path | None]] = {
        "open": (f"open('{c['open']}', write, S), write(S, x), close(S), X = done", c["open"]),
        "passwd": ("open('/etc/passwd', read, S), get_char(S, X), close(S)", None),
        "secret": (f"open('{tmp / 'secret.pl'}', read, S), read_term(S, X, []), close(S)", None),
    }
    if engine == "swipl":
        out["shell"] = (f"shell('touch {c['shell']}'), X = done", c["shell"])
        out["proc"] = (
            f"process_create('/usr/bin/touch', ['{c['proc']}'], []), X = done",
            c["proc"],
        )
        out["copy"] = (f"copy_file('{tmp / 'secret.pl'}', '{c['copy']}'), X = done", c["copy"])
    else:
        out["shell"] = (f"system('touch {c['shell']}'), X = done", c["shell"])
        out["spawn"] = (f"spawn('/usr/bin/touch', ['{c['spawn']}']), X = done", c["spawn"])
        out["popen"] = (
            f"popen('touch {c['popen']}', read, S), read(S, _), close(S), X = done",
            c["popen"],
        )
    return out


def hostile_task(bodies: dict[str, str], data: Path) -> Task:
    """``a_NAME(X) :- BODY`` for each attack, each a mode predicate (the check looks at it)."""
    modes = ["modeh(1, t(+k))", "modeb(*, p(+k))"]
    modes += [f"modeb(*, a_{name}(-k))" for name in bodies]
    task = make_task(["p(a)"], ["t(a)"], [], modes)
    for name, body in bodies.items():
        task.program.add_clause(Clause.from_term(term(f"a_{name}(X) :- {body}")))
    task.sources = [str(data / "t.b")]
    return task


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    need_engine(name)
    return name


def test_the_check_refuses_the_attacks_before_any_fence(engine: str, tmp_path: Path) -> None:
    bodies = {name: body for name, (body, _) in attacks(engine, tmp_path).items()}
    backend = SubprocessBackend(SubprocessOptions(engine=engine))
    with pytest.raises(UnsafeProgramError):
        backend.load(hostile_task(bodies, tmp_path))


def attack_outcomes(engine: str, mode: str, tmp: Path) -> tuple[dict[str, str], str]:
    data = tmp / "data"
    data.mkdir(exist_ok=True)
    (data / "t.b").write_text("")
    (data / "d.pl").write_text("data_ok.\n")
    (tmp / "secret.pl").write_text("s3cret.\n")
    table = attacks(engine, tmp)
    bodies = {name: body for name, (body, _) in table.items()}
    bodies["data"] = f"open('{data / 'd.pl'}', read, S), read_term(S, X, []), close(S)"
    bodies["scratch"] = "open('scratch/f', write, S), write(S, x), close(S), X = done"
    backend = SubprocessBackend(SubprocessOptions(engine=engine, fence=mode, timeout=20))
    got: dict[str, str] = {}
    with unchecked():
        backend.load(hostile_task(bodies, data))
    try:
        for name in bodies:
            try:
                answers = backend.answers(term(f"a_{name}(X)"), 1)
                got[name] = "ok " + " ".join(str(a) for a in answers)
            except Exception as exc:  # every failure mode is recorded; the asserts judge
                got[name] = f"ERROR {type(exc).__name__}: {exc}"
        engine_process = backend._engine
        stderr = engine_process.stderr_tail(20000) if engine_process is not None else ""
    finally:
        backend.close()
    return got, stderr


def test_the_fence_stops_what_the_check_missed(engine: str, tmp_path: Path) -> None:
    need_landlock()
    table = attacks(engine, tmp_path)
    got, stderr = attack_outcomes(engine, "require", tmp_path)
    for name, (_, canary) in table.items():
        if canary is not None:
            assert not canary.exists(), f"{engine}: {name} got through the fence: {got[name]}"
        outcome = got[name]
        if engine == "swipl" and name == "shell":
            # SWI-Prolog's shell/2 answers 0 when fork() is refused, but says why on stderr
            assert "Permission denied" in stderr, (outcome, stderr)
        elif engine == "gprolog" and name == "shell":
            assert outcome == "ok ", outcome  # system/1 fails: /bin/sh cannot be run
        else:
            assert outcome.startswith("ERROR"), (name, outcome)
        if name in ("open", "passwd", "secret", "copy"):
            assert "permission" in outcome.lower(), outcome
        assert "s3cret" not in outcome and "root:" not in outcome
    # what an engine may do still works: the task's data folder, its scratch folder
    assert got["data"] == "ok a_data(data_ok)", got["data"]
    assert got["scratch"] == "ok a_scratch(done)", got["scratch"]


def test_without_the_fence_the_same_goals_do_harm(engine: str, tmp_path: Path) -> None:
    table = attacks(engine, tmp_path)
    got, _ = attack_outcomes(engine, "off", tmp_path)
    for name, (_, canary) in table.items():
        if canary is not None:
            assert canary.exists(), f"{engine}: {name} did nothing without the fence: {got[name]}"
    assert "s3cret" in got["secret"]
    assert got["passwd"].startswith("ok"), got["passwd"]


def test_auto_fence_is_on_for_untrusted_data(engine: str, tmp_path: Path) -> None:
    need_landlock()
    backend = SubprocessBackend(SubprocessOptions(engine=engine))
    backend.load(make_task(["p(a)"], ["t(a)"], [], ["modeh(1, t(+k))", "modeb(*, p(+k))"]))
    try:
        assert backend._engine is not None and backend._engine.fenced
        assert backend.coverage(Clause.from_term(term("t(A) :- p(A)"))).tolist() == [0]
    finally:
        backend.close()


def test_the_memory_bound_still_sees_the_engines_memory(tmp_path: Path) -> None:
    """The SWI-Prolog server reads its resident memory in ``/proc/self/statm`` (0 would
    silently mean no bound): the fence lets the engine read its own."""
    need_engine("swipl")
    need_landlock()
    backend = SubprocessBackend(SubprocessOptions(engine="swipl", fence="require"))
    backend.load(make_task(["p(a)"], ["t(a)"], [], ["modeh(1, t(+k))", "modeb(*, p(+k))"]))
    try:
        (answer,) = backend.answers(term("ilpkit_rss(B)"), 1)
        assert isinstance(answer, Struct) and int(str(answer.args[0])) > 1_000_000, answer
    finally:
        backend.close()


def test_require_without_landlock_is_a_clear_error(tmp_path: Path) -> None:
    need_engine("swipl")
    backend = SubprocessBackend(SubprocessOptions(engine="swipl", fence="require"))
    task = make_task(["p(a)"], ["t(a)"], [], ["modeh(1, t(+k))", "modeb(*, p(+k))"])
    with (
        mock.patch.object(fence, "landlock_abi", lambda: 0),
        pytest.raises(BackendUnavailable, match="fence is required"),
    ):
        backend.load(task)


# --------------------------------------------------------------------------------------------
# engines die with ilpkit
# --------------------------------------------------------------------------------------------

_PARENT = """
import sys
from ilpkit.plugins.backends.prolog.subprocess_backend import SubprocessBackend, SubprocessOptions
from tests.reference_prover import make_task, term
from ilpkit.prolog.terms import Clause, Struct

backend = SubprocessBackend(SubprocessOptions(engine=sys.argv[1], fence=sys.argv[2],
                                              timeout=None, step_limit=None))
task = make_task(["p(a)"], ["t(a)"], [], ["modeh(1, t(+k))", "modeb(*, p(+k))"])
task.program.add_clause(Clause.from_term(term("spin(X) :- repeat, X == b")))
backend.load(task)
print(backend.pid, flush=True)
backend.answers(term("spin(a)"), 1)
"""


def engine_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # a zombie is dead
    except FileNotFoundError:
        return True


@pytest.mark.heavy  # starts an engine per case and kills its parent (about 1.5 s each)
@pytest.mark.skipif(not LINUX, reason="PR_SET_PDEATHSIG is Linux only")
@pytest.mark.parametrize("mode", ["auto", "off"])
def test_kill_9_of_ilpkit_takes_its_busy_engine_down(
    engine: str, mode: str, tmp_path: Path
) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_PARENT), engine, mode],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        time.sleep(1.0)  # the engine is now spinning
        assert not engine_gone(pid)
        with open(f"/proc/{pid}/stat") as f:
            assert f.read().rsplit(")", 1)[1].split()[0] == "R", "the engine should be busy"
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while not engine_gone(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not engine_gone(pid):
            os.kill(pid, signal.SIGKILL)
            pytest.fail(f"{engine} (pid {pid}) outlived the kill -9 of its parent")
    finally:
        if parent.poll() is None:
            parent.kill()


def test_trusted_directives_run_inside_a_required_fence(engine: str, tmp_path: Path) -> None:
    """``--trust-data`` turns the ``auto`` fence off (tests/test_prolog_injection.py writes a
    file from a directive); with ``fence=require`` the directives run inside the fence."""
    need_landlock()
    from ilpkit.core.formats import load_task

    canary = tmp_path / "directive-ran"
    (tmp_path / "t.b").write_text(
        ":- modeh(1, target(+thing)).\n:- modeb(1, p(+thing)).\n"
        f":- open('{canary}', write, S), write(S, ran), close(S).\np(a).\n"
    )
    (tmp_path / "t.f").write_text("target(a).\n")
    (tmp_path / "t.n").write_text("target(b).\n")
    options = SubprocessOptions(engine=engine, fence="require", timeout=20)
    options.trust_data = True
    backend = SubprocessBackend(options)
    try:
        backend.load(load_task(tmp_path / "t"))
        assert backend._engine is not None and backend._engine.fenced
        assert not canary.exists()
        assert any("t.b:3" in w and "ermission" in w for w in backend.warnings), backend.warnings
    finally:
        backend.close()
