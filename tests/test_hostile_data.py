"""Hostile data sets, each a route by which untrusted files made an engine run a command.

Each payload is an Aleph-format folder (``h.b``, ``h.f``, ``h.n``) whose background hides a
``shell``-like call (or a file read) behind a construct that made a Prolog engine run its own
predicate or read a clause unchecked (issue 28; every route here broke on at least one engine
before): a declaration of an engine's predicate (route A), a clause headed ``:-`` (B), a
single-sided-unification rule ``=>`` (C), a predicate the server calls (D), a hook the engine
calls by itself (E), and their neighbours.  Every payload runs on every engine (native, swipl
and gprolog subprocesses, janus and pyswip, each bridge in a child process) through load and
coverage, and must be refused with its file and line, with no canary file and no secret
printed.  A second pass switches ilpkit's static check off: the layers behind it (the
in-process bridges' sandbox proof, the subprocess engines' operating-system fence, the
native engine's own built-ins) must still run nothing.  A growing list: add each new route.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.core.formats import load_task
from ilpkit.core.task import Task
from ilpkit.errors import DataError
from ilpkit.prolog.terms import Clause
from tests import test_hostile_limits
from tests.reference_prover import term
from tests.test_prolog_injection import BRIDGES, make_backend
from tests.test_swi_backend import in_child

SECRET = "sk_live_hostile_0123456789"

HEAD = """\
:- modeh(1, t(+k)).
:- modeb(*, p(+k, -k)).
:- modeb(*, ev(+k)).
:- determination(t/1, p/2).
:- determination(t/1, ev/1).
p(a, b).
p(c, d).
"""
"""Lines 1-7 of every payload's background; the payload starts at line 8."""

RUN = "shell('touch CANARY')"

PAYLOADS: dict[str, tuple[str, str]] = {
    # route A: a declaration of an engine's own predicate, which then answers the calls
    "dynamic_copy_file": (
        ":- dynamic copy_file/2.\nev(X) :- p(X, _), copy_file('SOURCE', 'CANARY').",
        "dynamic declaration of copy_file/2",
    ),
    "table_copy_file": (
        ":- table copy_file/2.\nev(X) :- p(X, _), copy_file('SOURCE', 'CANARY').",
        "table declaration of copy_file/2",
    ),
    "dynamic_list_form": (
        ":- dynamic([copy_file/2]).\nev(X) :- p(X, _), copy_file('SOURCE', 'CANARY').",
        "dynamic declaration of copy_file/2",
    ),
    "discontiguous_copy_file": (
        ":- discontiguous copy_file/2.\nev(X) :- p(X, _), copy_file('SOURCE', 'CANARY').",
        "discontiguous declaration of copy_file/2",
    ),
    "multifile_copy_file": (
        ":- multifile copy_file/2.\nev(X) :- p(X, _), copy_file('SOURCE', 'CANARY').",
        "multifile declaration of copy_file/2",
    ),
    "setup_call_catcher_cleanup": (
        ":- dynamic setup_call_catcher_cleanup/4.\n"
        f"ev(X) :- p(X, _), setup_call_catcher_cleanup(true, {RUN}, _, true).",
        "declaration of setup_call_catcher_cleanup/4",
    ),
    "findnsols": (
        f":- dynamic findnsols/4.\nev(X) :- p(X, _), findnsols(1, Y, {RUN}, _).",
        "declaration of findnsols/4",
    ),
    "read_file_to_codes": (
        ":- dynamic read_file_to_codes/3.\n"
        "ev(X) :- p(X, _), read_file_to_codes('SECRETFILE', C, []), atom_codes(A, C), "
        "throw(A).",
        "declaration of read_file_to_codes/3",
    ),
    "popen": (
        ":- dynamic popen/3.\nev(X) :- p(X, _), popen('touch CANARY', read, _).",
        "declaration of popen/3",
    ),
    "spawn": (
        ":- dynamic spawn/2.\nev(X) :- p(X, _), spawn(touch, ['CANARY']).",
        "declaration of spawn/2",
    ),
    "system2": (
        ":- dynamic system/2.\nev(X) :- p(X, _), system('touch CANARY', _).",
        "declaration of system/2",
    ),
    "mode_of_library_predicate": (
        ":- modeb(*, copy_file(+k, +k)).\nev(X) :- p(X, _).",
        "modeb declaration of copy_file/2",
    ),
    # route B: a clause headed by a directive; the exporter would write `:- shell(...)`
    "directive_head": (
        f"(:- {RUN}) :- true.\nev(X) :- p(X, _).",
        "would be read by a Prolog engine as a directive",
    ),
    "query_head": (
        f"(?- {RUN}) :- true.\nev(X) :- p(X, _).",
        "would be read by a Prolog engine as a directive",
    ),
    # route C: SWI-Prolog stores H => B as a clause of H, its body unchecked
    "ssu_rule": (
        f"'=>'(ev(X), (p(X, _), {RUN})).",
        "single-sided-unification rule",
    ),
    "ssu_rule_with_guard": (
        f"'=>'(','(ev(X), p(X, _)), {RUN}).",
        "single-sided-unification rule",
    ),
    # route D: the server's own calls (the memory watch reads /proc with read_line_to_codes)
    "server_calls_read_line": (
        f"read_line_to_codes(_, _) :- {RUN}, fail.\nev(X) :- p(X, _).",
        "definition of read_line_to_codes/2",
    ),
    "server_calls_format_to_atom": (
        f"format_to_atom(_, _, _) :- {RUN}, fail.\nev(X) :- p(X, _).",
        "definition of format_to_atom/3",
    ),
    # route E: hooks the engine calls by itself
    "thread_message_hook": (
        f"thread_message_hook(_, _, _) :- {RUN}, fail.\nev(X) :- p(X, _).",
        "definition of thread_message_hook/3",
    ),
    "message_hook": (
        f"message_hook(_, _, _) :- {RUN}, fail.\nev(X) :- p(X, _).",
        "definition of message_hook/3",
    ),
    "prolog_list_goal": (
        f"prolog_list_goal(_) :- {RUN}, fail.\nev(X) :- p(X, _).",
        "definition of prolog_list_goal/1",
    ),
    # silent truncation: every engine stops reading at end_of_file
    "end_of_file": (
        "end_of_file.\nev(X) :- p(X, _).",
        "the end of the program",
    ),
}
"""name -> (background lines from line 8, what the refusal says)."""


SWI_REACHES: frozenset[str] = frozenset(
    {
        "dynamic_copy_file",
        "table_copy_file",
        "dynamic_list_form",
        "discontiguous_copy_file",
        "multifile_copy_file",
        "setup_call_catcher_cleanup",
        "findnsols",
        "read_file_to_codes",
        "server_calls_read_line",
        "mode_of_library_predicate",
    }
)
"""Payloads that reach an SWI-Prolog predicate when nothing else stops them (the others
call a name SWI-Prolog lacks, or a hook of module user, which the bridges' task module is
not)."""


def write_payload(folder: Path, body: str, canary: Path, secret: Path) -> Path:
    folder.mkdir(parents=True)
    source = folder / "source.txt"
    source.write_text("copied\n")
    text = body.replace("CANARY", str(canary)).replace("SECRETFILE", str(secret))
    (folder / "h.b").write_text(HEAD + text.replace("SOURCE", str(source)) + "\n")
    (folder / "h.f").write_text("t(a).\n")
    (folder / "h.n").write_text("t(c).\n")
    return folder


@contextlib.contextmanager
def unchecked() -> Iterator[None]:
    """Switch only the static check off (the layers behind it stay)."""

    def nothing(task: Task, **kwargs: object) -> None:
        return None

    with (
        mock.patch("ilpkit.plugins.backends.prolog.export.check_program", nothing),
        mock.patch("ilpkit.plugins.backends.native.engine.check_program", nothing),
    ):
        yield


def attack_all(engine: str, folders: list[str], check: bool) -> list[str]:
    """Load each payload folder on ``engine`` and ask the coverage of ``t(A) :- ev(A)``;
    the outcome of each (``refused: ...``, ``error: ...`` or ``ok [...]``).  JSON-able, so
    a child process (janus, pyswip) can return it."""
    out = []
    clause = Clause.from_term(term("t(A) :- ev(A)"))
    for folder in folders:
        try:
            task = load_task(folder)
        except DataError as exc:
            out.append(f"refused: {exc}")
            continue
        backend = make_backend(engine)
        try:
            with contextlib.ExitStack() as stack:
                if not check:
                    stack.enter_context(unchecked())
                backend.load(task)
            out.append(f"ok {backend.coverage(clause).tolist()}")
        except DataError as exc:
            out.append(f"refused: {exc}")
        except Exception as exc:  # any other failure: the canary decides
            out.append(f"error: {type(exc).__name__}: {exc}")
        finally:
            close = getattr(backend, "close", None)
            if close is not None:
                close()
    return out


def run_on(engine: str, folders: list[Path], check: bool) -> list[str]:
    names = [str(f) for f in folders]
    if engine in BRIDGES:
        got: list[str] = in_child(engine, attack_all, engine=engine, folders=names, check=check)
        return got
    return attack_all(engine, names, check)


engine = test_hostile_limits.engine  # the fixture: every engine, skipped where missing


@pytest.fixture
def payloads(tmp_path: Path) -> tuple[list[Path], Path, Path]:
    canary = tmp_path / "canary"
    secret = tmp_path / "secret.txt"
    secret.write_text(f"api_key({SECRET}).\n")
    folders = [
        write_payload(tmp_path / name, body, canary, secret) for name, (body, _) in PAYLOADS.items()
    ]
    return folders, canary, secret


def test_every_payload_is_refused_with_its_file_and_line(
    engine: str, payloads: tuple[list[Path], Path, Path]
) -> None:
    folders, canary, _ = payloads
    outcomes = run_on(engine, folders, check=True)
    assert not canary.exists(), f"{engine} ran a payload's command"
    for folder, (name, (_, says)), got in zip(folders, PAYLOADS.items(), outcomes, strict=True):
        assert got.startswith("refused: "), f"{name} on {engine}: {got}"
        assert says in got, f"{name} on {engine}: {got}"
        assert f"{folder / 'h.b'}:8:" in got or f"{folder / 'h.b'}:9:" in got, got
        assert SECRET not in got


@pytest.mark.heavy  # starts every engine on hostile data (about 2 s each)
def test_the_layers_behind_the_static_check_run_nothing(
    engine: str, payloads: tuple[list[Path], Path, Path]
) -> None:
    """The static check switched off: the sandbox proof (janus, pyswip), the fence (swipl,
    gprolog) and the native engine's own built-ins stop every payload that loads."""
    folders, canary, _ = payloads
    outcomes = run_on(engine, folders, check=False)
    assert not canary.exists(), f"{engine} ran a payload's command: {outcomes}"
    for name, got in zip(PAYLOADS, outcomes, strict=True):
        assert SECRET not in got, f"{name} on {engine} printed the secret: {got}"
        if engine in BRIDGES and name in SWI_REACHES:
            assert got.startswith("refused: "), f"{name} on {engine} was not refused: {got}"
    if engine in BRIDGES:  # what reaches an SWI-Prolog predicate is refused by the proof
        proved = [got for name, got in zip(PAYLOADS, outcomes, strict=True) if name in SWI_REACHES]
        assert sum("sandbox cannot prove" in got for got in proved) >= 8, proved


# --------------------------------------------------------------------------------------------
# every command refuses, and `data check` warns
# --------------------------------------------------------------------------------------------

runner = CliRunner()


@pytest.mark.parametrize("name", ["dynamic_copy_file", "thread_message_hook", "popen"])
@pytest.mark.parametrize(
    "command",
    [
        ["coverage", "--clause", "t(A) :- ev(A)"],
        ["saturate", "--example", "t(a)"],
        ["learn", "--set", "nodes=50"],
    ],
)
def test_every_command_refuses(
    name: str, command: list[str], payloads: tuple[list[Path], Path, Path]
) -> None:
    folders, canary, _ = payloads
    folder = folders[list(PAYLOADS).index(name)]
    args = [command[0], str(folder), *command[1:]]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "not trusted code" in result.output
    assert "h.b:8:" in result.output
    assert not canary.exists()


def test_data_check_warns(payloads: tuple[list[Path], Path, Path]) -> None:
    folders, canary, _ = payloads
    folder = folders[list(PAYLOADS).index("dynamic_copy_file")]
    result = runner.invoke(app, ["data", "check", str(folder)])
    assert "dynamic declaration of copy_file/2" in result.output, result.output
    assert not canary.exists()


def test_a_library_name_the_data_defines_is_its_own(tmp_path: Path) -> None:
    """A library predicate's name that the data defines by clauses is the data's (SWI-Prolog
    lets a program's definition override its autoloader): accepted, its clauses answer."""
    folder = write_payload(
        tmp_path / "lib",
        ":- dynamic copy_file/2.\ncopy_file(a, z).\nev(X) :- p(X, _), copy_file(X, _).",
        tmp_path / "canary",
        tmp_path / "secret",
    )
    task = load_task(folder)
    backend = make_backend("native")
    backend.load(task)  # defined by the program: its clauses answer, nothing is refused
    assert backend.coverage(Clause.from_term(term("t(A) :- ev(A)"))).tolist() == [0]


@pytest.mark.parametrize("head", ["(:- shell(x))", "'=>'(p(a), q)", "end_of_file", "(p(a) :- q)"])
@pytest.mark.parametrize("trust", [False, True])
def test_a_task_built_in_python_cannot_smuggle_a_directive(head: str, trust: bool) -> None:
    """The loaders refuse these shapes with their line; a task built in Python reaches the
    backends without a loader, and the check refuses it there, trusted or not."""
    from ilpkit.core.safety import check_program
    from tests.test_subprocess_backend import task_with_rules

    task = task_with_rules([], ["p(a, b)"], ["t(a)"], ["t(c)"])
    task.program.add_clause(Clause(term(head)), None)
    with pytest.raises(DataError, match="would be read by a Prolog engine as"):
        check_program(task, trust_data=trust)
