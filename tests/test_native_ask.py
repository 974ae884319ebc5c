"""Yes/no questions (``ilpkit/plugins/backends/native/ask.py``): a rule-defined literal whose
arguments are all bound (carcinogenesis' ``connected(R1, R2)`` over two rings' atom lists) is
asked only about the values the kernel reaches, answered set-at-a-time -- the evaluator now
takes a column of ground lists apart against ``[H|T]`` -- or call by call; the coverage is
Prolog's, by hand, against the paths it replaces, and against SWI-Prolog."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ilpkit.core.task import Task
from ilpkit.plugins.backends.native import ask
from ilpkit.plugins.backends.native import kernels as K
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.prolog.terms import Clause, Struct, to_prolog
from tests.reference_prover import make_task, swipl_coverage, swipl_path, term

BK = """
element(H, [H|_]).
element(H, [V|T]) :- H \\= V, element(H, T).
connected(R1, R2) :- R1 \\= R2, element(A, R1), element(A, R2).
bad(R) :- X is R + 1, X > 0.
""".strip().splitlines()

# connected(R1, R2): R1 and R2 differ and R1's *first* atom is in R2 (element(A, R1) with A
# free has one answer: for its second clause H \\= V fails on the unbound H).
RINGS = [
    "ring(d1, [a1, a2, a3])",  # r1
    "ring(d1, [a3, a4])",  # r2: connected(r2, r1) (a3 in r1)
    "ring(d1, [a5, a1])",  # r3: connected(r1, r3) (a1 in r3)
    "ring(d2, [b1, b2])",
    "ring(d2, [b3, b4])",  # d2: none
    "ring(d3, [c1])",
    "ring(d3, [c2, c1])",  # connected([c1], [c2, c1]): c1 found by the recursion
]


def task_of(facts: Sequence[str], keys: Sequence[str]) -> Task:
    task = make_task(list(facts), pos=[f"t({k})" for k in keys], modes=["modeh(1, t(+d))"])
    for rule in BK:
        task.program.add_clause(Clause.from_term(term(rule)))
    return task


def backend(task: Task, asking: bool = True, kernel: bool = True) -> NativeBackend:
    b = NativeBackend(NativeOptions(kernel=kernel))
    b.load(task)
    b._ask = asking
    return b


def cover(b: NativeBackend, text: str) -> set[str]:
    got = b.coverage(Clause.from_term(term(text)))
    atoms = b.task.examples.atoms
    return {to_prolog(atoms[i].args[0]) for i in got.tolist()}  # type: ignore[union-attr]


def outcome(b: NativeBackend, text: str) -> object:
    try:
        return cover(b, text)
    except Exception as exc:  # the error is the answer
        return (type(exc).__name__, str(exc))


@pytest.fixture(autouse=True)
def _kernel() -> None:
    if not K.HAVE_COMPILED:
        pytest.skip("numba is not installed: no kernel")


HAND = [
    ("t(A) :- ring(A, B), ring(A, C), connected(B, C)", {"d1", "d3"}),
    ("t(A) :- ring(A, B), ring(A, C), connected(C, B)", {"d1", "d3"}),
    ("t(A) :- ring(A, B), connected(B, [a1, a2, a3])", {"d1"}),  # r2
    ("t(A) :- ring(A, B), connected([a5, a1], B)", set()),  # a5 only in [a5, a1] itself
    ("t(A) :- ring(A, B), connected(B, B)", set()),  # R1 \\= R2 fails
    ("t(A) :- ring(A, B), ring(A, C), connected(B, C), connected(C, B)", set()),
]


@pytest.mark.parametrize(("text", "expected"), HAND)
def test_hand_checked_questions(text: str, expected: set[str]) -> None:
    task = task_of(RINGS, ["d1", "d2", "d3", "d4"])
    b = backend(task)
    assert cover(b, text) == expected
    assert b.stats.get("questions", 0) >= 1 and b.stats["engine_calls"] == 0
    assert cover(backend(task, asking=False), text) == expected
    assert cover(backend(task, kernel=False), text) == expected


def test_questions_asked_call_by_call_and_in_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the set-at-a-time evaluator (derive_rows=0) each question is a resolution
    call; with room for one question per kernel call the examples are decided over several
    rounds; the answers do not change."""
    task = task_of(RINGS, ["d1", "d2", "d3", "d4"])
    b = NativeBackend(NativeOptions(kernel=True, derive_rows=0))
    b.load(task)
    assert cover(b, HAND[0][0]) == HAND[0][1]
    assert b.stats["engine_calls"] >= 1
    monkeypatch.setattr(ask, "WANT", 3)  # [literal, arg, arg]
    b = backend(task)
    for text, expected in HAND:
        assert cover(b, text) == expected


def test_a_question_that_raises_hands_the_clause_back() -> None:
    """bad([...]) raises a type error in Prolog: the error the other paths give."""
    task = task_of(RINGS, ["d1", "d2", "d3", "d4"])
    text = "t(A) :- ring(A, B), bad(B)"
    answers = [
        outcome(backend(task, asking=a, kernel=k), text)
        for a, k in ((True, True), (False, True), (True, False))
    ]
    assert answers[0] == answers[1] == answers[2]
    assert answers[0][0] == "PrologRuntimeError"  # type: ignore[index]
    b = backend(task)
    outcome(b, text)
    assert ("bad", 1) in {b.questions.names[p] for p in b.questions.broken}


def test_evaluator_takes_lists_apart_as_the_machine_does() -> None:
    """connected/2 on every pair of rings, set-at-a-time (Deriver.each) == the resolution
    engine call by call."""
    task = task_of(RINGS, ["d1"])
    b = backend(task)
    rings = [term(f).args[1] for f in RINGS]  # type: ignore[union-attr]
    ids = [b.interner.id(r) for r in rings]
    calls = np.array([(x, y) for x in ids for y in ids], dtype=np.int64)
    got = b.deriver.each("connected", calls)
    assert got is not None
    terms = b.interner.terms
    one_by_one = [
        bool(b._solve_memo(Struct("connected", (terms[x], terms[y])), [])) for x, y in calls
    ]
    assert got.tolist() == one_by_one
    assert sum(one_by_one) == 3  # (r2, r1), (r1, r3), ([c1], [c2, c1])


ATOMS = st.sampled_from(["p", "q", "r", "s"])


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.lists(ATOMS, min_size=0, max_size=4)),
        min_size=1,
        max_size=10,
    )
)
def test_random_rings_agree_with_swipl(rings: list[tuple[int, list[str]]]) -> None:
    if swipl_path() is None:
        pytest.skip("swipl is not on PATH")
    facts = [f"ring(d{d}, [{', '.join(atoms)}])" for d, atoms in rings]
    task = task_of(facts, [f"d{i}" for i in range(4)])
    texts = [
        "t(A) :- ring(A, B), ring(A, C), connected(B, C)",
        "t(A) :- ring(A, B), ring(A, C), connected(C, B), ring(A, D), connected(D, B)",
        "t(A) :- ring(A, B), connected(B, [p, q])",
        "t(A) :- ring(A, B), ring(A, C), element(p, B), connected(B, C)",
    ]
    clauses = [Clause.from_term(term(t)) for t in texts]
    with tempfile.TemporaryDirectory() as tmp:
        judged = swipl_coverage(task.program, task.examples.atoms, clauses, Path(tmp))
    b = backend(task)
    assert [set(b.coverage(c).tolist()) for c in clauses] == judged
