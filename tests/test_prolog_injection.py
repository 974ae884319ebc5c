"""Data terms never reach a formatter, message translator or meta-call (issue 21).

A background clause ``p(X) :- thing(X), throw(format('~@', [shell('id > FILE')]))`` ran the
shell command on SWI-Prolog (subprocess and pyswip): the server turned the caught term into a
message with SWI-Prolog's ``translate_message//1``, which formats ``format(F, A)`` terms, and
``~@`` calls a goal.  Two layers now stop it, both tested here:

* the engines (``ilpkit_server.pl``): errors are written by ilpkit with ``~q`` only.  Tested
  on every engine with the static check switched off (:func:`unchecked`), and with balls built
  at run time, which the static check cannot see and lets through;
* the static check (``ilpkit.core.safety``): a ``throw/1`` of a term holding a built-in a body
  may not call, or the text ``~@``, is refused at ``data check`` time, as are the formatters
  and message translators themselves.

Every payload runs ``touch CANARY``; the canary must never appear.  Engines: native, the
subprocess backend with swipl and gprolog (YAP when on PATH), the swi backend through janus
and pyswip (each in a child process: a process holds one libswipl).  A missing engine is
skipped, or failed when ``ILPKIT_REQUIRE_BACKENDS`` lists it.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ilpkit.core.bias import parse_mode
from ilpkit.core.safety import check_program, unsafe_constructs
from ilpkit.core.task import Task
from ilpkit.errors import UnsafeProgramError
from ilpkit.plugins.backends.base import Backend
from ilpkit.plugins.backends.prolog.profiles import PROFILES
from ilpkit.prolog.terms import Clause
from tests.reference_prover import require_backends, term
from tests.test_subprocess_backend import task_with_rules
from tests.test_swi_backend import bridge_available, in_child

ENGINES = ["native", "swipl", "gprolog", "yap", "janus", "pyswip"]
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


def installed_engines() -> list[str]:
    """The engines this machine can run (for the property test, which cannot skip)."""
    from ilpkit.plugins.backends.prolog.swi_backend import preflight

    out = ["native"]
    out += [e for e in ("swipl", "gprolog", "yap") if shutil.which(PROFILES[e].executable)]
    out += [b for b in BRIDGES if preflight(b).ok]  # type: ignore[arg-type]
    return out


# --------------------------------------------------------------------------------------------
# the payloads
# --------------------------------------------------------------------------------------------

SHELL = "shell('touch CANARY')"
"""The goal every payload hides; CANARY is replaced by a fresh path."""

# Balls written literally: the static check refuses them; run with the check switched off.
LITERAL = {
    "format": f"throw(format('~@', [{SHELL}]))",
    "iso_formal": f"throw(error(format('~@', [{SHELL}]), _))",
    "nested_culprit": f"throw(error(type_error(integer, f(format('~@', [{SHELL}]))), _))",
    "context_message": f"throw(error(existence_error(procedure, q/0), context(ev/1, "
    f"format('~@', [{SHELL}]))))",
    "context_caller": f"throw(error(instantiation_error, context(format('~@', [{SHELL}]), _)))",
    "message_lines": f"throw(error(my, context(_, ['~@'-[{SHELL}]])))",
    "limit_ball": f"throw(ilpkit_limit(format('~@', [{SHELL}])))",
    "resource_ball": f"throw(error(resource_error(format('~@', [{SHELL}])), _))",
    "codes_format": f'throw(format("~@", [{SHELL}]))',
    "call_throw": f"call(throw, format('~@', [{SHELL}]))",
    "rethrown": f"catch(throw(a), _, throw(error(format('~@', [{SHELL}]), c)))",
    "in_findall": f"findall(Y, (member(Y, [1]), throw(format('~@', [{SHELL}]))), _)",
    "unbound_ball": "throw(_)",
}

# Balls built at run time from harmless pieces: the static check lets these through (no
# literal term names shell/1 or holds ~@), so only the engines' own care stops them.
BUILT = {
    "built_format": "atom_codes(F, [126, 64]), G =.. [shell, 'touch CANARY'], "
    "B =.. [format, F, [G]], throw(B)",
    "built_error": "atom_codes(F, [126, 64]), G =.. [shell, 'touch CANARY'], "
    "B =.. [format, F, [G]], throw(error(B, _))",
    "built_context": "atom_codes(F, [126, 64]), G =.. [shell, 'touch CANARY'], "
    "B =.. [format, F, [G]], throw(error(type_error(a, b), context(B, B)))",
    "built_limit": "atom_codes(F, [126, 64]), G =.. [shell, 'touch CANARY'], "
    "B =.. [format, F, [G]], L =.. [ilpkit_limit, B], throw(L)",
    "built_in_catch": "atom_codes(F, [126, 64]), G =.. [shell, 'touch CANARY'], "
    "B =.. [format, F, [G]], catch(Z = 1, _, true), Z == 1, call(throw, B)",
}

# With the check off: a clause asserted now that throws later (assertz/1 is refused by the
# check, which is what stops the direct calls below).
LATER = {
    "assertz_later": f"assertz((later_{{i}}(_) :- throw(format('~@', [{SHELL}])))), later_{{i}}(X)",
}

# Direct calls of formatters and message translators: refused by the static check (an engine
# told to run them would run them, like shell/1 itself).
DIRECT = {
    "print_message": (f"print_message(error, format('~@', [{SHELL}]))", "print_message/2"),
    "message_to_codes": (f"message_to_codes(format('~@', [{SHELL}]), [], _)", "message_to_codes/3"),
    "format_atom": (f"format(atom(_), '~@', [{SHELL}])", "format/3"),
    "format_call": (f"call(format, '~@', [{SHELL}])", "format/2"),
    "assertz": (f"assertz((q :- {SHELL}))", "assertz/1"),
    "nested_meta": (
        f"findall(X, once(print_message(error, format('~@', [{SHELL}]))), _)", "print_message/2"
    ),
}  # fmt: skip


def payload_task(bodies: list[str], canary: Path) -> tuple[Task, list[str]]:
    """A task with one predicate ``ev_<i>/1`` per body (``ev_i(X) :- p(X, _), BODY``), each
    named in a mode so the static check sees it; returns the task and the names."""
    names = [f"ev_{i}" for i in range(len(bodies))]
    rules = [
        f"{n}(X) :- p(X, _), " + b.replace("CANARY", str(canary)).replace("{i}", str(i))
        for i, (n, b) in enumerate(zip(names, bodies, strict=True))
    ]
    task = task_with_rules(rules, ["p(a, b)", "p(c, d)"], ["t(a)"], ["t(c)"])
    for n in names:
        task.bias.modeb.append(parse_mode("modeb", term("*"), term(f"{n}(+k)"), None))
    return task, names


@contextlib.contextmanager
def unchecked() -> Iterator[None]:
    """Switch the static check off, as if it had missed the payload."""

    def nothing(task: Task, **kwargs: Any) -> None:
        return None

    def unproven(self: Any, task: Task) -> None:
        return None

    with (
        mock.patch("ilpkit.plugins.backends.prolog.export.check_program", nothing),
        mock.patch("ilpkit.plugins.backends.native.engine.check_program", nothing),
        # the in-process bridges' sandbox proof too: these payloads test what the server
        # does with a term that got past every check
        mock.patch("ilpkit.plugins.backends.prolog.swi_backend.SwiBackend._prove_safe", unproven),
    ):
        yield


def make_backend(engine: str) -> Backend:
    if engine == "native":
        from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions

        return NativeBackend(NativeOptions(timeout=10))
    if engine in BRIDGES:
        from ilpkit.plugins.backends.prolog.swi_backend import SwiBackend, SwiOptions

        return SwiBackend(SwiOptions(bridge=engine, timeout=10))
    from ilpkit.plugins.backends.prolog.subprocess_backend import (
        SubprocessBackend,
        SubprocessOptions,
    )

    return SubprocessBackend(SubprocessOptions(engine=engine, timeout=10))


def attack(engine: str, bodies: list[str], canary: str, check: bool) -> dict[str, Any]:
    """Load the payloads on ``engine`` and run each through coverage, a batch and answers.

    Returns the outcome of each call (the error type and message, or the answer) and the
    coverage of a harmless clause afterwards (the backend must still work).  JSON-able, so
    that a child process (janus, pyswip) can return it."""
    task, names = payload_task(bodies, Path(canary))
    backend = make_backend(engine)
    outcomes: list[str] = []

    def run(call: Any) -> None:
        try:
            outcomes.append(f"ok {call()!r}")
        except Exception as exc:  # every failure mode is recorded, the canary decides
            outcomes.append(f"{type(exc).__name__}: {exc}")

    try:
        with contextlib.ExitStack() as stack:
            if not check:
                stack.enter_context(unchecked())
            backend.load(task)
    except Exception as exc:
        return {"load": f"{type(exc).__name__}: {exc}", "outcomes": [], "after": None}
    try:
        clauses = [Clause.from_term(term(f"t(A) :- {n}(A)")) for n in names]
        for n, clause in zip(names, clauses, strict=True):
            run(lambda c=clause: backend.coverage(c).tolist())
            run(lambda n=n: [str(a) for a in backend.answers(term(f"{n}(a)"), 3)])
        run(lambda: [c.tolist() for c in backend.coverage_many(clauses)])
        after = backend.coverage(Clause.from_term(term("t(A) :- p(A, _)"))).tolist()
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()
    return {"load": "ok", "outcomes": outcomes, "after": after}


def attack_on(engine: str, bodies: list[str], canary: Path, check: bool) -> dict[str, Any]:
    """:func:`attack` here, or in a child process for an in-process SWI-Prolog bridge."""
    if engine in BRIDGES:
        result: dict[str, Any] = in_child(
            engine, attack, engine=engine, bodies=bodies, canary=str(canary), check=check
        )
        return result
    return attack(engine, bodies, str(canary), check)


# --------------------------------------------------------------------------------------------
# the engines never run a data term
# --------------------------------------------------------------------------------------------


def test_thrown_payloads_run_nothing(engine: str, tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    # the native engine refuses assertz/1 at load time (it has no database to change)
    bodies = [*LITERAL.values(), *(LATER.values() if engine != "native" else ())]
    got = attack_on(engine, bodies, canary, check=False)
    assert not canary.exists(), f"{engine} ran a command from a thrown term"
    assert got["load"] == "ok"
    assert got["after"] == [0, 1]
    # each payload is an error, written with ~q (the ball is shown, not interpreted)
    outcomes = got["outcomes"]
    assert len(outcomes) == 2 * len(bodies) + 1
    for text in outcomes:
        assert not text.startswith("ok"), text
    if engine != "native":
        first = outcomes[0]
        assert "format(~@,[shell(" in first or "format('~@',[shell(" in first, first


def test_payloads_built_at_run_time_pass_the_check_and_run_nothing(
    engine: str, tmp_path: Path
) -> None:
    canary = tmp_path / "canary"
    task, _ = payload_task(list(BUILT.values()), canary)
    check_program(task)  # nothing literal to see: the engines must cope
    got = attack_on(engine, list(BUILT.values()), canary, check=True)
    assert not canary.exists(), f"{engine} ran a command from a ball built at run time"
    assert got["after"] == [0, 1]
    assert not any(o.startswith("ok") for o in got["outcomes"]), got["outcomes"]


# --------------------------------------------------------------------------------------------
# the static check refuses the literal payloads and the direct calls
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(LITERAL.keys() - {"unbound_ball"}))
def test_literal_balls_are_refused_by_the_check(name: str, tmp_path: Path) -> None:
    task, _ = payload_task([LITERAL[name]], tmp_path / "canary")
    found = unsafe_constructs(task)
    assert len(found) == 1, found
    text = str(found[0])
    assert text.startswith("bk.pl:1:1: a throw/1 of a term holding "), text
    assert "could run a goal if an engine turned the error into a message" in text


@pytest.mark.parametrize("name", sorted(DIRECT))
def test_direct_formatter_calls_are_refused_by_the_check(
    name: str, engine: str, tmp_path: Path
) -> None:
    body, culprit = DIRECT[name]
    canary = tmp_path / "canary"
    task, _ = payload_task([body], canary)
    with pytest.raises(UnsafeProgramError, match=rf"bk\.pl:1:1: a call of {culprit} in ev_0/1"):
        check_program(task)
    got = attack_on(engine, [body], canary, check=True)
    assert not canary.exists()
    assert got["load"].startswith("UnsafeProgramError: data files are not trusted code")


def test_the_hostile_data_sets_of_issue_21_are_refused_by_data_check(tmp_path: Path) -> None:
    """``ilpkit data check`` warns about the payload of the issue, with file and line."""
    from typer.testing import CliRunner

    from ilpkit.cli.main import app

    canary = tmp_path / "canary"
    (tmp_path / "t.b").write_text(
        ":- modeh(1, target(+thing)).\n:- modeb(1, p(+thing)).\nthing(a).\n"
        f"p(X) :- thing(X), throw(format('~@', [shell('id > {canary}')])).\n"
    )
    (tmp_path / "t.f").write_text("target(a).\n")
    (tmp_path / "t.n").write_text("target(b).\n")
    result = CliRunner().invoke(app, ["data", "check", str(tmp_path / "t")])
    assert "t.b:4:1: a throw/1 of a term holding format/2" in result.output + result.stderr
    result = CliRunner().invoke(
        app, ["coverage", str(tmp_path / "t"), "--clause", "target(A) :- p(A)"]
    )
    assert result.exit_code == 2
    assert "a throw/1 of a term holding format/2" in result.stderr
    assert not canary.exists()


# --------------------------------------------------------------------------------------------
# property: shell/1 anywhere in an allow-listed program runs nothing
# --------------------------------------------------------------------------------------------

_SHELL_TERMS = st.sampled_from(
    [
        "shell('touch CANARY')",
        "G",  # built at run time: G =.. [shell, 'touch CANARY']
        "format('~@', [shell('touch CANARY')])",
        "format(F, [G])",  # both built at run time
        "['~@'-[shell('touch CANARY')]]",
        "f(g(h([shell('touch CANARY')])))",
    ]
)
_PREFIX = "atom_codes(F, [126, 64]), G =.. [shell, 'touch CANARY'], "


@st.composite
def payload_bodies(draw: st.DrawFn) -> str:
    """A body that only calls allow-listed built-ins and holds shell/1 as data somewhere: in a
    thrown term (plain, in an ISO error's culprit or context), an argument of a unification,
    a findall template, a call/N argument, a term_to_atom/2 text, ..."""
    inner = draw(_SHELL_TERMS)
    wrapper = draw(
        st.sampled_from(
            [
                "throw(X)",
                "throw(error(X, _))",
                "throw(error(type_error(callable, X), context(ev/1, X)))",
                "throw(error(existence_error(procedure, X), _))",
                "throw(ilpkit_limit(X))",
                "call(throw, X)",
                "Y = X, throw(Y)",
                "findall(X, member(_, [1]), L), throw(L)",
                "copy_term(X, Y), throw(error(Y, Y))",
                "term_to_atom(X, A), atom_length(A, _), throw(A)",
                "X = X, fail",
                "catch(throw(X), E, throw(E))",
                "catch(atom_length(X, _), E, throw(E))",
                "arg(1, f(X), Y), throw(error(domain_error(Y, Y), _))",
            ]
        )
    )
    meta = draw(
        st.sampled_from(
            ["{}", "once(({}))", "\\+ \\+ ({})", "findall(_, ({}), _)", "({}) -> true ; true"]
        )
    )
    return _PREFIX + meta.format(wrapper.replace("X", f"({inner})"))


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(bodies=st.lists(payload_bodies(), min_size=4, max_size=10))
def test_shell_anywhere_in_allowed_programs_runs_nothing(bodies: list[str], tmp_path: Path) -> None:
    canary = tmp_path / "canary-property"
    canary.unlink(missing_ok=True)
    for engine in installed_engines():
        # with the check on (what it lets through must be harmless) and off (the engines
        # alone must cope with what it refuses)
        for check in (True, False):
            got = attack_on(engine, bodies, canary, check=check)
            assert got["load"] == "ok" or (check and "UnsafeProgramError" in got["load"]), got
            assert not canary.exists(), (engine, check, bodies)


# --------------------------------------------------------------------------------------------
# --trust-data: the directives run (and without it they are refused)
# --------------------------------------------------------------------------------------------


def write_directive_data(folder: Path, canary: Path) -> Path:
    """An Aleph data set with two uninterpreted directives: one writes ``canary`` (its goals
    share the stream variable), one asserts a fact the program's mode predicate reads."""
    (folder / "t.b").write_text(
        ":- modeh(1, target(+thing)).\n:- modeb(1, flag(-thing)).\n:- dynamic flag/1.\n"
        f":- open('{canary}', write, S), write(S, ran), close(S).\n"
        ":- assertz(flag(on)).\n"
    )
    (folder / "t.f").write_text("target(a).\n")
    (folder / "t.n").write_text("target(b).\n")
    return folder / "t"


def load_directives(engine: str, data: str, trust: bool) -> dict[str, Any]:
    """Load ``data`` on ``engine``; the load error, or the answers of ``flag(X)``."""
    from ilpkit.core.formats import load_task

    backend = make_backend(engine)
    backend.options.trust_data = trust
    try:
        backend.load(load_task(Path(data)))
    except Exception as exc:
        return {"load": f"{type(exc).__name__}: {exc}"}
    try:
        return {"load": "ok", "flag": [str(a) for a in backend.answers(term("flag(X)"), None)]}
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()


def test_trusted_directives_run_on_every_prolog_engine(engine: str, tmp_path: Path) -> None:
    canary = tmp_path / "directive-ran"
    data = str(write_directive_data(tmp_path, canary))

    def on(trust: bool) -> dict[str, Any]:
        if engine in BRIDGES:
            got: dict[str, Any] = in_child(
                engine, load_directives, engine=engine, data=data, trust=trust
            )
            return got
        return load_directives(engine, data, trust)

    refused = on(False)
    assert refused["load"].startswith("UnsafeProgramError"), refused
    assert "t.b:4:1: the directive :- open(" in refused["load"]
    assert "t.b:5:1: the directive :- assertz(flag(on))" in refused["load"]
    assert not canary.exists()
    trusted = on(True)
    assert trusted["load"] == "ok", trusted
    if engine == "native":  # runs no directives (it logs a warning)
        assert not canary.exists()
        assert trusted["flag"] == []
    else:
        assert canary.read_text() == "ran"
        assert trusted["flag"] == ["flag(on)"]
