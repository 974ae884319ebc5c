"""Hostile programs against the Prolog layer (export and ``ilpkit_server.pl``).

* A program may not use the server's names (``ilpkit_*``, ``'$ilpkit_*'``): refused by the
  exporter with the data's file and line, even with ``trust_data``.
* An engine's refusal to let a program redefine one of its built-ins (a *clash*) is a load
  error, unless the predicate is on the allow-list (``append/3``, ``member/2``: the engine's
  version is side-effect free) or the data is trusted; then it is a warning.  The bundled
  definitions GNU Prolog replaces this way (mutagenesis' ``append/3``, UW-CSE's
  ``member/2``) answer exactly as the engine's built-ins.
* A mode predicate the program does not provide must not be an engine built-in, or the
  clauses ilpkit builds would call the engine's predicate (SWI-Prolog autoloads
  ``copy_file/2``).

Engine tests run for each engine on PATH (skipped otherwise, failed when
``ILPKIT_REQUIRE_BACKENDS`` names it).
"""

from __future__ import annotations

import shutil
from typing import Literal

import pytest

from ilpkit.core.bias import parse_mode
from ilpkit.core.safety import ALLOWED_BUILTINS
from ilpkit.core.task import Task
from ilpkit.errors import DataError, SourceLocation, UnsafeProgramError
from ilpkit.plugins.backends.native.engine import NativeBackend
from ilpkit.plugins.backends.prolog.export import export_program
from ilpkit.plugins.backends.prolog.profiles import PROFILES
from ilpkit.plugins.backends.prolog.subprocess_backend import (
    PrologEngineError,
    SubprocessBackend,
    SubprocessOptions,
)
from ilpkit.prolog.terms import Clause, Struct, Term, Var, iter_vars, substitute
from tests.reference_prover import load_bundled, make_task, require_backends, term

ENGINES = ["swipl", "gprolog", "yap"]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    if shutil.which(PROFILES[name].executable) is None:
        if require_backends(name):
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {name} but it is not on PATH")
        pytest.skip(f"{name} is not on PATH")
    return name


def hostile(rules: list[str], modes: tuple[str, ...] = ()) -> Task:
    """A small task whose rules are at ``evil.pl:<n>:1`` (n = 1-based rule index)."""
    task = make_task(
        ["p(a, b)", "p(c, d)"], ["t(a)"], ["t(c)"], ["modeh(1, t(+k))", "modeb(*, p(+k, -k))"]
    )
    for n, text in enumerate(rules, 1):
        task.program.add_clause(Clause.from_term(term(text)), SourceLocation("evil.pl", n, 1))
    for n, text in enumerate(modes, len(rules) + 1):
        t = term(text)
        assert type(t) is Struct and t.name in ("modeh", "modeb")
        kind: Literal["modeh", "modeb"] = "modeh" if t.name == "modeh" else "modeb"
        mode = parse_mode(kind, t.args[0], t.args[1], SourceLocation("evil.pl", n, 1))
        (task.bias.modeh if kind == "modeh" else task.bias.modeb).append(mode)
    return task


def load(task: Task, engine: str, **options: object) -> SubprocessBackend:
    backend = SubprocessBackend(SubprocessOptions(engine=engine, **options))  # type: ignore[arg-type]
    backend.load(task)
    return backend


# --------------------------------------------------------------------------------------------
# the server's names are reserved
# --------------------------------------------------------------------------------------------

RESERVED = [
    # replaces the server's loader: every later load would run the program's code
    (["ilpkit_load(F, P) :- P = []"], (), r"evil\.pl:1:1: a definition of ilpkit_load/2"),
    # a clause that covers everything, hidden among the examples
    (["'$ilpkit_example'(I, t(X)) :- p(X, _)"], (), r"evil\.pl:1:1: .*'\$ilpkit_example'/2"),
    (["ok(X) :- p(X, _)", "'$ilpkit_body'(_)"], (), r"evil\.pl:2:1: .*'\$ilpkit_body'/1"),
    # a mode makes the server's predicate callable by learned clauses (and "provided" for
    # the safety check, so bodies could call it)
    ([], ("modeb(*, ilpkit_load(#file, -problems))",), r"evil\.pl:1:1: a modeb .*ilpkit_load/2"),
    (["ilpkit_setup"], (), r"ilpkit_setup/0"),
]


@pytest.mark.parametrize(("rules", "modes", "message"), RESERVED)
@pytest.mark.parametrize("trust_data", [False, True])
def test_server_names_are_refused(
    rules: list[str], modes: tuple[str, ...], message: str, trust_data: bool
) -> None:
    task = hostile(rules, modes)
    with pytest.raises(DataError, match=message) as info:
        export_program(task, trust_data=trust_data)
    assert "reserved for ilpkit's Prolog server" in str(info.value)


def test_server_names_in_facts_dynamic_and_examples_are_refused() -> None:
    task = hostile([])
    task.program.add_fact(term("'$ilpkit_dynamic'(p, 2)"))
    with pytest.raises(DataError, match=r"facts of '\$ilpkit_dynamic'/2"):
        export_program(task)
    task = hostile([])
    task.program.dynamic.add(("ilpkit_reply", 1))
    with pytest.raises(DataError, match="a dynamic declaration of ilpkit_reply/1"):
        export_program(task)
    task = make_task(["p(a)"], ["ilpkit_ready(a, b)"], [])
    with pytest.raises(DataError, match="examples of ilpkit_ready/2"):
        export_program(task)
    # a name that merely contains the prefix is the program's
    export_program(hostile(["my_ilpkit_load(X) :- p(X, _)"]))


# --------------------------------------------------------------------------------------------
# built-ins the engine will not let the program redefine
# --------------------------------------------------------------------------------------------

# numbervars/3 is a built-in of all three engines that none lets a program redefine; it is
# neither on the allow-list nor one of the well-known unsafe built-ins the static check
# already refuses.  A program that defines it and calls it would get the engine's version.
CLASH_RULES = ["numbervars(T, S, E) :- E = S", "t2(X) :- p(X, _), numbervars(X, 0, _)"]


def without_static_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the static check off, to test the engine-side layer behind it."""
    import ilpkit.plugins.backends.prolog.export as export

    monkeypatch.setattr(export, "check_program", lambda task, **kw: None)


def test_clash_outside_the_allow_list_is_fatal(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert ("numbervars", 3) not in ALLOWED_BUILTINS
    task = hostile(CLASH_RULES)
    # the static check names the engines' built-in (lists read off the engines)
    with pytest.raises(UnsafeProgramError, match=r"evil\.pl:1:1: a definition of numbervars/3"):
        load(task, engine)
    # behind it, the server refuses the clash itself
    without_static_check(monkeypatch)
    with pytest.raises(PrologEngineError, match=r"(?s)evil\.pl:1:1: .*numbervars/3 is a built-in"):
        load(task, engine)
    # trusted: the engine's definition is kept, with a warning
    backend = load(task, engine, trust_data=True)
    try:
        assert any(
            "evil.pl:1:1" in w and "kept the engine's built-in" in w for w in backend.warnings
        )
    finally:
        backend.close()


def test_export_lists_the_builtins_that_may_stand_in() -> None:
    task = hostile(["append([], L, L)", "append([H|T], L, [H|R]) :- append(T, L, R)"])
    task.program.add_clause(Clause.from_term(term(CLASH_RULES[0])), SourceLocation("e.pl", 9, 1))
    with pytest.raises(UnsafeProgramError, match="numbervars/3"):
        export_program(task)
    import ilpkit.plugins.backends.prolog.export as export

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(export, "check_program", lambda task, **kw: None)
        text = export_program(task).text
    assert "'$ilpkit_builtin_ok'(append,3)." in text
    assert "'$ilpkit_builtin_ok'(numbervars,3)" not in text
    trusted = export_program(task, trust_data=True).text
    assert "'$ilpkit_builtin_ok'(numbervars,3)." in trusted
    assert "$ilpkit_not_builtin" not in trusted


def test_mode_predicate_that_is_an_engine_builtin_is_refused(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = hostile([], ("modeb(*, numbervars(+k, #int, -int))",))
    with pytest.raises(UnsafeProgramError, match=r"a modeb declaration of numbervars/3"):
        load(task, engine)
    without_static_check(monkeypatch)
    with pytest.raises(PrologEngineError, match=r"evil\.pl:1:1: numbervars/3 is named in a mode"):
        load(task, engine)
    load(task, engine, trust_data=True).close()
    # allow-listed built-ins and mode predicates nothing defines are fine
    fine = hostile([], ("modeb(*, member(-k, +list))", "modeb(*, nowhere(+k, -k))"))
    backend = load(fine, engine)
    try:
        assert backend.answers(term("nowhere(a, X)"), None) == []
    finally:
        backend.close()


def test_swipl_does_not_autoload_a_mode_predicate(monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("swipl") is None:
        if require_backends("swipl"):
            pytest.fail("ILPKIT_REQUIRE_BACKENDS lists swipl but it is not on PATH")
        pytest.skip("swipl is not on PATH")
    # library(filesex)'s copy_file/2: a learned clause t(A) :- copy_file(A, B) would run it
    task = hostile([], ("modeb(*, copy_file(+k, +k))",))
    with pytest.raises(UnsafeProgramError, match="a modeb declaration of copy_file/2"):
        load(task, "swipl")
    without_static_check(monkeypatch)
    with pytest.raises(PrologEngineError, match="copy_file/2 is named in a mode"):
        load(task, "swipl")


# --------------------------------------------------------------------------------------------
# allow-listed clashes: the engine's version answers as the program's would
# --------------------------------------------------------------------------------------------


def renamed(t: Term, old: tuple[str, int], new: str) -> Term:
    if type(t) is Struct:
        args = tuple(renamed(a, old, new) for a in t.args)
        name = new if (t.name, len(t.args)) == old else t.name
        return Struct(name, args)
    return t


def numbered(t: Term) -> Term:
    """``t`` with its variables renamed ``V0``, ``V1``, ... in order of first occurrence."""
    names: dict[Var, Var] = {}
    for v in iter_vars(t):
        names.setdefault(v, Var(f"V{len(names)}"))
    return substitute(t, dict(names))


AGREEMENT_GOALS = {
    ("append", 3): [
        "append(X, Y, [1, 2, 3])", "append([a], [b], Z)", "append(X, [c], [a, b, c])",
        "append([a|T], Y, [a, b])", "append(X, Y, Z)", "append(a, Y, Z)", "append([a], Y, Z)",
        "append(X, [95|Y], [49, 95, 50, 95, 51])", "append(X, Y, [a|T])", "append(X, b, Z)",
    ],
    ("member", 2): [
        "member(X, [a, b, a])", "member(b, [a, b, c])", "member(X, L)", "member(a, [b|T])",
        "member(X, foo)", "member(X, [a|foo])", "member(f(X), [f(1), g(2), f(3)])",
    ],
}  # fmt: skip


@pytest.mark.parametrize(
    ("dataset", "key"), [("mutagenesis", ("append", 3)), ("uwcse", ("member", 2))]
)
def test_kept_builtin_answers_as_the_bundled_definition(
    engine: str, dataset: str, key: tuple[str, int]
) -> None:
    """GNU Prolog keeps its own append/3 and member/2 for the bundled definitions; the
    program's definition, loaded under another name, gives the same answers in the same
    order (and so does the native backend, which runs the program's definition)."""
    source = load_bundled(dataset).program.clauses[key]
    own = f"prog_{key[0]}"
    rules = [sc.clause for sc in source] + [
        Clause(renamed(sc.clause.head, key, own), [renamed(g, key, own) for g in sc.clause.body])
        for sc in source
    ]
    task = make_task(["p(a, b)"], ["t(a)"], [])
    for n, c in enumerate(rules, 1):
        task.program.add_clause(c, SourceLocation("bk.pl", n, 1))
    backend = load(task, engine)
    nat = NativeBackend()
    nat.load(task)
    try:
        # GNU Prolog refuses both redefinitions; YAP's member/2 is a built-in written in
        # Prolog, to which it would add the program's clauses (so the server keeps it)
        if engine == "gprolog" or (engine == "yap" and key == ("member", 2)):
            assert any("kept the engine's built-in" in w for w in backend.warnings)
        for text in AGREEMENT_GOALS[key]:
            goal = term(text)
            theirs = backend.answers(goal, 8)
            mine = backend.answers(renamed(goal, key, own), 8)
            native_ = nat.answers(renamed(goal, key, own), 8)
            back = [renamed(a, (own, key[1]), key[0]) for a in mine]
            assert theirs == back, text
            # the native backend names an answer's free variables its own way
            assert [numbered(a) for a in native_] == [numbered(a) for a in mine], text
    finally:
        backend.close()


# --------------------------------------------------------------------------------------------
# trusted directives
# --------------------------------------------------------------------------------------------


def test_trusted_directives_are_exported_as_directives() -> None:
    """``:- G.``, never ``:- (:- G).`` (a goal engines do not run; GNU Prolog refuses it);
    without trust_data no directive is exported.  (That they run on every engine:
    tests/test_prolog_injection.py.)"""
    from ilpkit.core.task import SourcedTerm

    task = hostile([])
    task.directives.append(
        SourcedTerm(term(":- assertz(flag(on)), flag(X), X == on"), SourceLocation("e.pl", 3, 1))
    )
    task.directives.append(SourcedTerm(term("?- load_bg"), SourceLocation("e.pl", 4, 1)))
    exported = export_program(task, trust_data=True)
    lines = exported.text.splitlines()
    assert ":- assertz(flag(on)),flag(X),X == on." in lines, exported.text
    assert ":- load_bg." in lines
    assert exported.origin(lines.index(":- load_bg.")) == "e.pl:4:1"  # line 1: the header
    # untrusted: the harmless directive alone passes the check, and is not exported either
    del task.directives[0]
    assert not any(line.startswith(":-") for line in export_program(task).text.splitlines())
