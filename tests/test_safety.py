"""Data files are not trusted code: what ``check_program`` refuses, and that nothing runs.

The hostile datasets in ``tests/data/hostile`` try to run ``touch /tmp/ilpkit-hostile-pwned``
in every way a Prolog data file can; each attempt must be refused with its file and line
unless the user trusts the data, and no mode of the native backend may ever create the file.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.core.formats import load_task
from ilpkit.core.safety import (
    ALLOWED_BUILTINS,
    MAX_REPORTED,
    UNSAFE_BUILTINS,
    check_program,
    unsafe_constructs,
)
from ilpkit.core.task import Task
from ilpkit.datasets import BUNDLED, bundled_path
from ilpkit.errors import DataError, UnsafeProgramError
from ilpkit.plugins.backends.base import BackendOptions
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.plugins.backends.native.resolution import _REFUSED, BUILTINS
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause, Term
from tests.skips import shared_data_missing
from tests.test_shared_data_sweep import CASES, SHARED

HOSTILE = Path(__file__).parent / "data" / "hostile"
PWNED = Path("/tmp/ilpkit-hostile-pwned")

# (line in hostile.b, what the message must say about it)
REFUSED_LINES = [
    (10, "the directive :- shell('touch /tmp/ilpkit-hostile-pwned')"),
    (11, "the directive :- initialization main"),
    (16, "a call of shell/1 in p/1"),
    (17, "a call of assertz/1 in q/0"),
    (18, "a meta-call of the variable G in r/1"),
    (19, "a call of open/3 in s/0"),
    (20, "a meta-call of the variable X with 1 more argument in t/0"),
]


@pytest.fixture(autouse=True)
def no_pwned_file() -> Iterator[None]:
    """Every test here must leave no trace of the hostile commands."""
    PWNED.unlink(missing_ok=True)
    yield
    assert not PWNED.exists(), "hostile data ran a command"


def hostile(stem: str = "hostile") -> Task:
    return load_task(HOSTILE / stem)


# -- the hostile dataset -----------------------------------------------------------------------


def test_every_hostile_construct_is_refused_with_file_and_line() -> None:
    with pytest.raises(UnsafeProgramError) as info:
        check_program(hostile())
    lines = str(info.value).splitlines()
    assert lines[0].startswith("data files are not trusted code: 8 constructs")
    for line, what in REFUSED_LINES:
        prefix = f"{HOSTILE / 'hostile.b'}:{line}:1: {what} is not allowed ("
        assert any(text.startswith(prefix) for text in lines), (prefix, lines)
    assert all(text.endswith("; pass --trust-data to allow it") for text in lines[1:])
    # The unreachable rule (line 24) and the directive calling nothing defined (line 25) pass.
    assert not any(":24:" in text or ":25:" in text for text in lines)


def test_unsafe_constructs_lists_without_raising() -> None:
    found = unsafe_constructs(hostile())
    assert [u.location.line for u in found if u.location] == [10, 11, 16, 17, 18, 19, 19, 20]
    assert "close/1" in found[6].what


def test_trusted_data_is_accepted() -> None:
    for stem in ("hostile", "directive", "metacall"):
        check_program(hostile(stem), trust_data=True)


def test_the_refusal_is_a_data_error() -> None:
    assert issubclass(UnsafeProgramError, DataError)


def test_metacall_of_a_goal_built_at_run_time_is_refused() -> None:
    with pytest.raises(UnsafeProgramError, match=r"metacall\.b:8:1: a meta-call of the variable G"):
        check_program(hostile("metacall"))


# -- the native backend, in every mode, never runs anything ------------------------------------


@pytest.mark.parametrize("stem", ["hostile", "directive", "metacall"])
@pytest.mark.parametrize("trust", [False, True])
def test_native_backend_never_runs_hostile_data(stem: str, trust: bool) -> None:
    backend = NativeBackend(NativeOptions(trust_data=trust))
    task = hostile(stem)
    try:
        backend.load(task)
    except DataError as exc:
        if not trust:
            assert isinstance(exc, UnsafeProgramError)
        return
    assert trust  # untrusted hostile data never loads
    for clause in ("target(A)", "target(A) :- run(A)", "target(A) :- colour(A, red)"):
        with contextlib.suppress(DataError):  # the engine refuses shell/1 when a call reaches it
            backend.coverage(Clause.from_term(_term(clause)))
    with contextlib.suppress(DataError):
        backend.saturate(0)


def test_trusted_directives_are_not_run_by_the_native_backend(
    caplog: pytest.LogCaptureFixture,
) -> None:
    backend = NativeBackend(NativeOptions(trust_data=True))
    backend.load(hostile("directive"))
    cover = backend.coverage(Clause.from_term(_term("target(A) :- colour(A, red)")))
    assert cover.tolist() == [0]
    assert "directive.b:5:1: 1 directive of the data not run" in caplog.text


def test_backend_options_default_to_untrusted() -> None:
    assert BackendOptions().trust_data is False


def _term(text: str) -> Term:
    return PrologReader().read_term(text)


# -- single constructs -------------------------------------------------------------------------


def program(tmp_path: Path, background: str) -> Task:
    """A small Aleph dataset whose mode go/1 makes the clauses of go/1 reachable."""
    (tmp_path / "t.b").write_text(
        ":- modeh(1, target(+thing)).\n:- modeb(1, go(+thing)).\n" + background + "\n"
    )
    (tmp_path / "t.f").write_text("target(a).\n")
    (tmp_path / "t.n").write_text("target(b).\n")
    return load_task(tmp_path / "t")


REFUSED = [
    ("go(X) :- findall(Y, shell(Y), _).", "a call of shell/1 in go/1"),
    ("go(X) :- \\+ shell(X).", "a call of shell/1"),
    ("go(X) :- format('~w', [X]).", "a call of format/2 in go/1 is not allowed (it formats text"),
    ("go(X) :- undefined_thing(X).", "undefined_thing/1 in go/1: no clause or fact of the data"),
    ("go(X) :- helper(X).\nhelper(X) :- nb_setval(k, X).", "a call of nb_setval/2 in helper/1"),
    ("go(X) :- maplist(call, [X]).", "a call of call/1 as a closure"),
    # call(G, A...) with a known G is the goal it builds
    ("go(X) :- call(:, user, shell(X)).", "a call of shell/1 in go/1"),
    ("go(X) :- call(format, '~@', [X]).", "a call of format/2 in go/1"),
    ("go(X) :- message_to_codes(X, [], _).", "a call of message_to_codes/3 in go/1"),
    ("go(X) :- print_message(error, format('~@', [X])).", "a call of print_message/2"),
    # a thrown term an engine could turn into a message running a goal (issue 21)
    (
        "go(X) :- throw(format('~@', [shell('id')])).",
        "a throw/1 of a term holding format/2 (format(~@,[shell(id)])) in go/1 is not allowed "
        "(it could run a goal if an engine turned the error into a message)",
    ),
    ("go(X) :- throw(error(type_error(a, shell(x)), _)).", "a throw/1 of a term holding shell/1"),
    ("go(X) :- throw(my(['~', '@'], X)).", "a throw/1 of a term holding the format directive ~@"),
    ('go(X) :- throw(my("ok ~@")).', "a throw/1 of a term holding the format directive ~@"),
    ("go(X) :- throw(x('a~@b')).", "a throw/1 of a term holding the format directive ~@"),
    ("go(X) :- call(throw, f(assertz(x))).", "a throw/1 of a term holding assertz/1"),
    ("go(X) :- call(user:throw, f(halt(1))).", "a throw/1 of a term holding halt/1"),
    ("go(X) :- catch(p(X), _, throw(f(shell(x)))).", "a throw/1 of a term holding shell/1"),
    ("go(X) :- maplist(throw, [X]).", "a call of throw/1 as a closure"),
    ("go(X) :- catch(true, _, X).", "a meta-call of the variable X"),
    ("go(X) :- forall(member(G, [X]), G).", "a meta-call of the variable G"),
    ("go(X) :- bagof(Y, Z^G, [X]).", "a meta-call of the variable G"),
    ("go(X) :- user:shell(X).", "a call of shell/1"),
    ("go(X) :- M = user, M:atom(X).", "the module-qualified goal M:atom(X)"),
    ("go(X) :- process:process_create(path(sh), [X], []).", "the module-qualified goal"),
    ("go(X) :- lists:helper(X).\nhelper(_).", "the module-qualified goal lists:helper(X)"),
    ("go(X) :- predsort(nosuch, [X], _).", "a call of nosuch/3"),
    ("go(X) :- foldl(step, [X], 0, _).", "a call of step/3"),
    ("go(_).\ngoal_expansion(a, shell(x)).", "facts of goal_expansion/2 is not allowed"),
    ("go(_).\nterm_expansion(X, X) :- true.", "a definition of term_expansion/2"),
    ("go(_).\nopen(_, _, _).", "a definition of open/3"),
    ("go(_).\nuser:foo(1).", "of :/2 is not allowed (a module-qualified clause"),
    ("go(_).\ngreeting --> [hello].", "grammar rules"),
    (":- modeb(1, shell(+thing)).\ngo(_).", "a modeb declaration of shell/1"),
    ("go(_).\n:- dynamic assertz/1.", "a dynamic declaration of assertz/1"),
    ("go(_).\n?- shell(ls).", "the directive ?- shell(ls)"),
    ("go(_).\n:- helper.\nhelper :- shell(ls).", "a call of shell/1 (in helper/0, "),
    ("go(_).\n:- halt.", "the directive :- halt is not allowed"),
    ("go(X) :- ignore(halt).", "a call of halt/0"),
]


@pytest.mark.parametrize(("background", "message"), REFUSED, ids=[r[0] for r in REFUSED])
def test_refused(tmp_path: Path, background: str, message: str) -> None:
    task = program(tmp_path, background)
    with pytest.raises(UnsafeProgramError) as info:
        check_program(task)
    assert message in str(info.value)
    check_program(task, trust_data=True)


ACCEPTED = [
    "go(X) :- findall(Y, member(Y, [X]), L), length(L, N), N > 0, \\+ X == b.",
    "go(X) :- maplist(step, [X], _).\nstep(A, A).",
    "go(X) :- foldl(add, [1, 2], 0, S), S > X.\nadd(A, B, C) :- C is A + B.",
    "go(X) :- predsort(cmp, [X], _).\ncmp(O, A, B) :- compare(O, A, B).",
    "go(X) :- call(eq(X), X).\neq(A, A).",
    "go(X) :- lists:append([X], [], _).",
    "go(X) :- user:helper(X).\nhelper(_).",
    "go(X) :- all(Y, member(Y, [X]), _).",
    "go(X) :- setof(Y, Z^member(Y-Z, [X-1]), _).",
    "go(X) :- catch(atom_length(X, _), _, fail).",
    "go(X) :- dyn(X).\n:- dynamic dyn/1.",
    "go(X) :- ( X = a -> true ; X = b *-> true ; once(X == c) ).",
    "go(_).\nunused :- shell(ls).",  # nothing can reach it
    "go(_).\n:- load_everything.",  # an engine would only raise an existence error
    "go(X) :- member(X, [a]).\nmember(X, [X|_]).",  # overriding a library predicate
    # ordinary thrown terms: ISO errors, a program's own balls, lists, atoms named like
    # built-ins (only compounds are goals an engine could run), a lone ~ or @
    "go(X) :- throw(error(type_error(integer, X), context(go/1, _))).",
    "go(X) :- throw(my_error(X, [1, 2, 3], 'a ~ b @ c', nl)).",
    "go(X) :- catch(throw(found(X)), found(Y), Y == X).",
    "go(X) :- call(throw, error(domain_error(positive, X), _)).",
]


@pytest.mark.parametrize("background", ACCEPTED)
def test_accepted(tmp_path: Path, background: str) -> None:
    check_program(program(tmp_path, background))


def test_reports_are_capped(tmp_path: Path) -> None:
    rules = "\n".join(f"go(X) :- shell{i}(X)." for i in range(MAX_REPORTED + 5))
    with pytest.raises(UnsafeProgramError) as info:
        check_program(program(tmp_path, rules))
    lines = str(info.value).splitlines()
    assert len(lines) == 1 + MAX_REPORTED + 1
    assert lines[-1] == "(5 further unsafe constructs not reported)"
    assert len(unsafe_constructs(program(tmp_path, rules))) == MAX_REPORTED + 5


# -- the allow-list and the native engine agree ------------------------------------------------


def test_allow_list_is_what_the_native_engine_implements() -> None:
    """A built-in added to the native engine must be judged side-effect-free (and added to
    ``ALLOWED_BUILTINS`` and docs/security.md) or the programs using it are refused."""
    assert BUILTINS <= ALLOWED_BUILTINS, sorted(BUILTINS - ALLOWED_BUILTINS)
    assert {("all", 3)} == ALLOWED_BUILTINS - BUILTINS


def test_what_the_native_engine_refuses_is_never_allowed() -> None:
    assert set(_REFUSED) <= set(UNSAFE_BUILTINS)
    assert not ALLOWED_BUILTINS & set(UNSAFE_BUILTINS)


# -- real data passes --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_datasets_pass(name: str) -> None:
    check_program(load_task(bundled_path(name)))


@pytest.mark.shared_data
@pytest.mark.skipif(not SHARED.is_dir(), reason=shared_data_missing(SHARED))
@pytest.mark.parametrize(
    ("variant", "stem"),
    [(c[0], c[1]) for c in CASES],
    ids=[f"{c[0]}{':' + c[1] if c[1] else ''}" for c in CASES],
)
def test_shared_datasets_pass(variant: str, stem: str | None) -> None:
    check_program(load_task(SHARED / variant, stem=stem))


# -- the command line --------------------------------------------------------------------------

runner = CliRunner()


def test_cli_refuses_hostile_data_with_file_and_line() -> None:
    data = str(HOSTILE / "hostile")
    result = runner.invoke(app, ["coverage", data, "--clause", "target(A) :- p(A)"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: data files are not trusted code")
    assert f"{HOSTILE / 'hostile.b'}:16:1: a call of shell/1 in p/1" in result.stderr
    assert "Traceback" not in result.output


def test_cli_trust_data_lifts_the_refusal() -> None:
    data = str(HOSTILE / "directive")
    clause = ["--clause", "target(A) :- colour(A, red)", "--json"]
    refused = runner.invoke(app, ["coverage", data, *clause])
    assert refused.exit_code == 2
    assert "directive.b:5:1: the directive :- shell(" in refused.stderr
    trusted = runner.invoke(app, ["coverage", data, *clause, "--trust-data"])
    assert trusted.exit_code == 0, trusted.output
    assert '"tp": 1' in trusted.stdout


@pytest.mark.parametrize(
    "command", ["learn", "predict", "explain", "coverage", "saturate", "cv", "run"]
)
def test_every_command_that_opens_a_backend_has_the_flag(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert "--trust-data" in result.stdout


def test_data_check_reports_unsafe_constructs_as_warnings() -> None:
    result = runner.invoke(app, ["data", "check", str(HOSTILE / "hostile")])
    assert result.exit_code == 0, result.output
    assert f"warning: {HOSTILE / 'hostile.b'}:18:1: a meta-call" in result.stderr
    assert "(8 unsafe constructs) unless you pass --trust-data" in result.stderr


def test_the_documented_allow_list_is_the_allow_list() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "security.md").read_text()
    blocks = re.findall(r"```allow-list\n(.*?)```", doc, flags=re.S)
    documented = {tuple(item.rsplit("/", 1)) for block in blocks for item in block.split()}
    assert documented == {(name, str(arity)) for name, arity in ALLOWED_BUILTINS}


def test_refused_facts_name_the_file_and_line_of_the_first(tmp_path: Path) -> None:
    """Facts are kept without locations; the checker reads the data files for a refused
    name only, and says where its first fact is."""
    task = program(tmp_path, "go(_).\nother(1).\ngoal_expansion(a, shell(x)).")
    with pytest.raises(UnsafeProgramError) as info:
        check_program(task)
    assert f"{tmp_path / 't.b'}:5" in str(info.value)
