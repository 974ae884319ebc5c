"""Rule-defined predicates made only of tests (``gteq(X, Y) :- number(X), number(Y), X >= Y``),
answered inside the native backend's kernel (``ilpkit/plugins/backends/native/unfold.py``):
the same coverage as Prolog, by hand, against the derived-table path they replace, and
against SWI-Prolog on random comparisons."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ilpkit.core.task import Task
from ilpkit.plugins.backends.native import kernels as K
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.plugins.backends.native.unfold import Definition, definition_of
from ilpkit.prolog.terms import Clause, to_prolog
from tests.reference_prover import make_task, swipl_coverage, swipl_path, term

BK = """
gteq(X, X) :- number(X).
gteq(X, Y) :- number(X), number(Y), X >= Y.
lteq(X, X) :- number(X).
lteq(X, Y) :- number(X), number(Y), X =< Y.
samenum(X, Y) :- number(X), number(Y), X =:= Y.
isint(X) :- integer(X).
isatom(X) :- atom(X).
inrange(X, L, H) :- number(X), X >= L, X =< H.
gt1(X, Y) :- X > Y.
""".strip().splitlines()

BIG = 2**53 + 1  # its float is 2**53: a float comparison would call it =< 2**53
KEYS = "abcdefghij"
VALUES = ["1", "1.0", "2", "-1", "0.5", "x", "'[]'", "f(1)", str(BIG), "2.0"]
"""v(a, 1), v(b, 1.0), ...: ints, floats, an atom, '[]' (not an atom in SWI-Prolog 7), a
compound, an integer beyond floats, equal values of both types."""


def task_of(values: list[str], extra: Sequence[str] = ()) -> Task:
    keys = [f"k{i}" for i in range(len(values))] if len(values) != len(KEYS) else list(KEYS)
    facts = [f"v({k}, {v})" for k, v in zip(keys, values, strict=True)] + list(extra)
    task = make_task(facts, pos=[f"t({k})" for k in keys], modes=["modeh(1, t(+k))"])
    for rule in BK:
        task.program.add_clause(Clause.from_term(term(rule)))
    return task


def backend(task: Task, unfold: bool = True, kernel: bool = True) -> NativeBackend:
    b = NativeBackend(NativeOptions(kernel=kernel))
    b.load(task)
    b._unfold = unfold
    return b


def cover(b: NativeBackend, text: str) -> set[str]:
    got = b.coverage(Clause.from_term(term(text)))
    atoms = b.task.examples.atoms
    return {to_prolog(atoms[i].args[0]) for i in got.tolist()}  # type: ignore[union-attr]


def need_kernel() -> None:
    if not K.HAVE_COMPILED:
        pytest.skip("numba is not installed: no kernel")


# Expected by hand: a=1, b=1.0, c=2, d=-1, e=0.5, f=x, g='[]', h=f(1), i=2**53+1, j=2.0;
# u(a, 1.0), u(b, 2), u(c, 2), u(d, x), u(e, 0.5).
HAND = [
    ("t(A) :- v(A, B), gteq(B, 1)", set("abcij")),  # 1.0 >= 1; non-numbers fail
    ("t(A) :- v(A, B), gteq(B, 1.0)", set("abcij")),
    ("t(A) :- v(A, B), lteq(B, 1)", set("abde")),
    ("t(A) :- v(A, B), gteq(B, B)", set("abcdeij")),  # every number, by the first clause
    ("t(A) :- v(A, B), samenum(B, 1)", set("ab")),  # 1 =:= 1.0
    ("t(A) :- v(A, B), samenum(B, 2.0)", set("cj")),
    ("t(A) :- v(A, B), isint(B)", set("acdi")),
    ("t(A) :- v(A, B), isatom(B)", set("f")),  # '[]' is not an atom
    ("t(A) :- v(A, B), inrange(B, 0, 1)", set("abe")),
    ("t(A) :- v(A, B), lteq(B, 9007199254740992)", set("abcdej")),  # not i: exact, not float
    ("t(A) :- v(A, B), gteq(B, 9007199254740992)", set("i")),
    ("t(A) :- v(A, B), u(A, C), gteq(B, C)", set("ace")),  # d: number(x) fails
    ("t(A) :- v(A, B), u(A, C), lteq(B, C)", set("abce")),
    ("t(A) :- v(A, B), gteq(B, x)", set()),  # number(x) fails: no error
    ("t(A) :- v(A, B), gteq(B, 1), lteq(B, 1)", set("ab")),
    ("t(A) :- v(A, B), gt1(B, 0), isint(B)", None),  # x > 0 raises: see below
]
U_FACTS = ["u(a, 1.0)", "u(b, 2)", "u(c, 2)", "u(d, x)", "u(e, 0.5)"]


def test_recognised_definitions() -> None:
    def defn(*rules: str) -> Definition | None:
        return definition_of([Clause.from_term(term(r)) for r in rules])

    gteq = defn(*BK[:2])
    assert gteq is not None and len(gteq) == 2
    assert gteq[0][0].op == K.T_SAME  # gteq(X, X): the arguments are identical
    assert [t.op for t in gteq[1]] == [K.T_TYPE, K.T_TYPE, K.GE]
    assert defn("gt1(X, Y) :- X > Y") is not None  # one clause: an error hands back
    # several clauses: a comparison must follow a number test of each of its variables
    assert defn("p(X, Y) :- X > Y", "p(X, Y) :- X < Y") is None
    assert defn("p(X, Y) :- number(X), X > Y", "p(X, Y) :- X < Y") is None
    for rule in (
        "p(X) :- number(Y)",  # a variable not in the head
        "p(X) :- number(X), X + 1 > 2",  # an expression
        "p(X) :- number(X), X > a",  # a non-number
        "p(X) :- number(X), !",
        "p(X) :- q(X)",
        "p(f(X)) :- number(X)",
        "p(X) :- number(X) ; atom(X)",
    ):
        assert defn(rule) is None, rule
    # a clause without tests holds for any bound arguments: the rest is never needed
    assert defn("p(X) :- atom(X)", "p(X)", "p(X) :- number(X)") is not None
    assert len(defn("p(X) :- atom(X)", "p(X)", "p(X) :- number(X)")) == 2  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "expected"), [h for h in HAND if h[1] is not None])
def test_hand_checked_coverage(text: str, expected: set[str]) -> None:
    need_kernel()
    task = task_of(VALUES, U_FACTS)
    assert cover(backend(task), text) == expected
    # the path it replaces, and the set-at-a-time engine, agree
    assert cover(backend(task, unfold=False), text) == expected
    assert cover(backend(task, kernel=False), text) == expected
    # without the integer beyond floats (whose comparisons the kernel hands back), the
    # kernel answers alone: no Prolog call, no derived table
    small = task_of([v if v != str(BIG) else "3" for v in VALUES], U_FACTS)
    b = backend(small)
    assert cover(b, text) == cover(backend(small, unfold=False), text)
    assert b.stats["engine_calls"] == 0
    assert not any(t is not None for t in b._derived_tables.values())


def test_odd_cases_keep_the_backends_answer() -> None:
    """Where Prolog raises or binds, the literal is not unfolded (or the kernel hands the
    clause back), and the answer -- an error, or the bindings' coverage -- is the one the
    derived tables and the set-at-a-time engine give."""
    need_kernel()
    task = task_of(VALUES, U_FACTS)
    texts = [
        "t(A) :- v(A, B), gt1(C, B)",  # unbound: instantiation error
        "t(A) :- v(A, B), gt1(B, 0)",  # x > 0: type error
        "t(A) :- v(A, B), gt1(B, 0.5), B = x",
        "t(A) :- gteq(B, 1)",  # unbound B: gteq(X, X) binds it, so all are covered
        "t(A) :- v(A, B), gteq(C, B)",
        "t(A) :- v(A, B), isint(B), gt1(B, 1)",  # guarded by the clause: no error
    ]

    def outcome(b: NativeBackend, text: str) -> object:
        try:
            return cover(b, text)
        except Exception as exc:  # the error itself is the answer
            return (type(exc).__name__, str(exc))

    for text in texts:
        answers = [
            outcome(backend(task, unfold=u, kernel=k), text)
            for u, k in ((True, True), (False, True), (True, False))
        ]
        assert answers[0] == answers[1] == answers[2], text
    b = backend(task)
    assert outcome(b, texts[0])[0] == "PrologRuntimeError"  # type: ignore[index]
    assert "instantiation" in outcome(b, texts[0])[1]  # type: ignore[index]
    assert "type error" in outcome(b, texts[1])[1]  # type: ignore[index]
    assert cover(b, texts[3]) == set(KEYS)
    assert cover(b, texts[4]) == set("abcdeij")
    assert cover(b, texts[5]) == set("ci")


def test_hand_checked_against_swipl(tmp_path: Path) -> None:
    if swipl_path() is None:
        pytest.skip("swipl is not on PATH")
    need_kernel()
    task = task_of(VALUES, U_FACTS)
    texts = [t for t, e in HAND if e is not None]
    clauses = [Clause.from_term(term(t)) for t in texts]
    judged = swipl_coverage(task.program, task.examples.atoms, clauses, tmp_path)
    b = backend(task)
    assert [set(b.coverage(c).tolist()) for c in clauses] == judged


NUMBERS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([BIG, -BIG, 2**53, 10**20]),
    st.sampled_from([0.5, -1.5, 1.0, 2.0, 3.0, 1e-9, 2.5]),
)
VALUE = st.one_of(NUMBERS, st.sampled_from(["a", "'[]'", "g(1)"]))
LITERAL = st.tuples(
    st.sampled_from(["gteq", "lteq", "samenum", "inrange", "isint", "isatom"]),
    NUMBERS,
    NUMBERS,
    st.booleans(),
)


def _literal(name: str, k1: int | float, k2: int | float, var: bool) -> str:
    other = "C" if var else repr(k1)
    if name in ("isint", "isatom"):
        return f"{name}(B)"
    if name == "inrange":
        return f"inrange(B, {min(k1, k2)!r}, {max(k1, k2)!r})"
    return f"{name}(B, {other})"


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(VALUE, min_size=3, max_size=8),
    st.lists(st.lists(LITERAL, min_size=1, max_size=3), min_size=4, max_size=10),
)
def test_random_comparisons_agree_with_swipl(
    values: list[int | float | str], bodies: list[list[tuple[str, int, int, bool]]]
) -> None:
    """Random values (ints, floats, equal values of both types, integers beyond floats,
    non-numbers) and random test literals: native (kernel) == SWI-Prolog."""
    if swipl_path() is None:
        pytest.skip("swipl is not on PATH")
    need_kernel()
    texts = [str(v) if isinstance(v, str) else repr(v) for v in values]
    # u(k_i, C) pairs each example with the next value, for literals over two variables
    extra = [f"u(k{i}, {texts[(i + 1) % len(texts)]})" for i in range(len(texts))]
    task = task_of(texts, extra)
    clauses = [
        Clause.from_term(
            term("t(A) :- v(A, B), u(A, C), " + ", ".join(_literal(*lit) for lit in body))
        )
        for body in bodies
    ]
    with tempfile.TemporaryDirectory() as tmp:
        judged = swipl_coverage(task.program, task.examples.atoms, clauses, Path(tmp))
    b = backend(task)
    got = [set(b.coverage(c).tolist()) for c in clauses]
    assert got == judged, [str(c) for c in clauses]


def test_big_integer_in_a_plain_comparison_is_exact() -> None:
    """The kernel's own comparison literal: an integer beyond floats hands the clause to
    the set-at-a-time engine, which compares exactly (2**53 + 1 > 2**53)."""
    need_kernel()
    task = task_of(VALUES, U_FACTS)
    b = backend(task)
    assert cover(b, "t(A) :- v(A, B), isint(B), B > 9007199254740992") == {"i"}
    assert cover(b, "t(A) :- v(A, B), isint(B), B =< 9007199254740992") == set("acd")
    assert cover(b, "t(A) :- v(A, B), isint(B), B < 9007199254740993") == set("acd")
    assert cover(b, "t(A) :- v(A, B), inrange(B, 9007199254740993, 10)") == set()
