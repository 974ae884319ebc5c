"""A clause body's parts for the kernel (:mod:`ilpkit.plugins.backends.native.head_parts`):
a refinement's parts derived from its parent's equal the parts split afresh, and the native
backend, asked about a refinement within its parent's coverage, runs only the parts the
refinement added and answers as when asked alone."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ilpkit.core.bottom import saturate
from ilpkit.core.coverage import Coverage
from ilpkit.core.refine import Refiner
from ilpkit.core.task import Task
from ilpkit.plugins.backends.native import head_parts
from ilpkit.plugins.backends.native import kernels as K
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.plugins.backends.native.head_parts import (
    Group,
    Split,
    head_groups,
    refined_groups,
    split_of,
)
from ilpkit.prolog.terms import Clause, Struct, Term, Var
from tests.reference_prover import FactDB, random_task, term

needs_numba = pytest.mark.skipif(not K.HAVE_COMPILED, reason="numba is not installed")


def parts(groups: list[Group]) -> list[tuple[list[Var], list[str]]]:
    """Groups as comparable values: head variables and literal texts, in order."""
    return [(g.hv, [str(lit) for lit in g.lits]) for g in groups]


def same(groups: list[Group]) -> list[tuple[list[Var], list[int]]]:
    """Groups by their literal objects (equal literals may be distinct objects)."""
    return [(g.hv, [id(lit) for lit in g.lits]) for g in groups]


def clause(text: str) -> Clause:
    return Clause.from_term(term(text))


def head_vars(c: Clause) -> set[Var]:
    assert isinstance(c.head, Struct)
    return {a for a in c.head.args if isinstance(a, Var)}


# --------------------------------------------------------------------------------------------
# by hand
# --------------------------------------------------------------------------------------------


def test_an_added_literal_on_its_own_leaves_the_parents_part_alone() -> None:
    # p(A) :- q(A, C), r(C, B).   + t(A, E): E is new, so t is a part of its own
    c = clause("p(A) :- q(A, C), r(C, B), t(A, E)")
    hv, body = head_vars(c), list(c.body)
    parent = split_of(hv, body[:2], c.head)
    got = refined_groups(parent, body, hv, c.head)
    assert got is not None
    child, added = got
    assert parts(added) == [([Var("A")], ["t(A,E)"])]
    assert parts(child.groups) == [([Var("A")], ["q(A,C)", "r(C,B)"]), ([Var("A")], ["t(A,E)"])]
    assert child.groups[0] is parent.groups[0]  # the parent's part itself, not a copy
    assert child.ids == tuple(map(id, body))
    assert child == split_of(hv, body, c.head)


def test_an_added_literal_that_links_two_parts_merges_them_in_body_order() -> None:
    # p(A, B) :- q(A, C), s(B), t(B, E).  parts {q}, {s}, {t}; + u(C, E) between q and s
    # links q (C) and t (E): one part q, u, t reading A then B; s stays on its own
    c = clause("p(A, B) :- q(A, C), u(C, E), s(B), t(B, E)")
    hv, body = head_vars(c), list(c.body)
    before = [body[0], body[2], body[3]]
    parent = split_of(hv, before, c.head)
    assert parts(parent.groups) == [
        ([Var("A")], ["q(A,C)"]),
        ([Var("B")], ["s(B)"]),
        ([Var("B")], ["t(B,E)"]),
    ]
    got = refined_groups(parent, body, hv, c.head)
    assert got is not None
    child, added = got
    assert parts(added) == [([Var("A"), Var("B")], ["q(A,C)", "u(C,E)", "t(B,E)"])]
    afresh = head_groups(hv, body, c.head)
    assert sorted(parts(child.groups), key=str) == sorted(parts(afresh), key=str)


def test_a_literal_added_at_the_end_that_links_two_parts_merges_them_after_the_rest() -> None:
    # p(A, B) :- q(A, C), s(B), t(B, E).  + u(E, C) at the end links t (E) and q (C)
    c = clause("p(A, B) :- q(A, C), s(B), t(B, E), u(E, C)")
    hv, body = head_vars(c), list(c.body)
    parent = split_of(hv, body[:3], c.head)
    got = refined_groups(parent, body, hv, c.head)
    assert got is not None
    child, added = got
    # the joined parts' literals in body order, then the added one; head variables in the
    # order they first occur there; the part left alone first, as the parent had it
    assert parts(added) == [([Var("A"), Var("B")], ["q(A,C)", "t(B,E)", "u(E,C)"])]
    assert parts(child.groups) == [([Var("B")], ["s(B)"]), *parts(added)]
    assert child.groups[0] is parent.groups[1]
    afresh = split_of(hv, body, c.head)
    assert (child.ids, child.reach) == (afresh.ids, afresh.reach)


def test_a_body_holding_a_literal_object_twice_passes_no_split_on() -> None:
    c = clause("p(A) :- q(A, C), r(C, B), t(A, E)")
    hv, body = head_vars(c), list(c.body)
    twice = split_of(hv, [body[0], body[0]], c.head)
    assert not twice.distinct and split_of(hv, body[:1], c.head).distinct
    assert refined_groups(twice, [body[0], body[0], body[2]], hv, c.head) is None


def test_not_a_refinement_of_the_parent_is_split_afresh() -> None:
    c = clause("p(A) :- q(A, C), r(C, B), t(A, E)")
    hv, body = head_vars(c), list(c.body)
    parent = split_of(hv, body[:2], c.head)
    # a parent's literal missing (r): None
    assert refined_groups(parent, [body[0], body[2]], hv, c.head) is None
    # an equal literal that is another object is not the parent's
    again = clause("p(A) :- q(A, C), r(C, B)")
    assert refined_groups(parent, [body[0], again.body[1], body[2]], hv, c.head) is None
    # a literal object twice: None
    assert refined_groups(parent, [*body, body[2]], hv, c.head) is None
    # the parent's own body: every part kept, none to run
    same = refined_groups(parent, body[:2], hv, c.head)
    assert same is not None and same[1] == [] and same[0] is parent


# --------------------------------------------------------------------------------------------
# derived from the parent's = split afresh (property)
# --------------------------------------------------------------------------------------------

NAMES = ["A", "B", "C", "D", "E", "F", "G"]


@st.composite
def bodies(draw: st.DrawFn) -> tuple[Struct, list[Term], list[int]]:
    """A head over 1-2 of the variables, a body of 1-7 literals over all of them, and the
    positions of a parent's literals (a subset, in body order)."""
    head_names = draw(st.lists(st.sampled_from(NAMES[:3]), min_size=1, max_size=2, unique=True))
    head = Struct("p", tuple(Var(n) for n in head_names))
    n = draw(st.integers(1, 7))
    body: list[Term] = []
    for i in range(n):
        args = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3))
        body.append(Struct(f"q{i % 3}", tuple(Var(a) for a in args)))
    kept = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return head, body, [i for i in range(n) if kept[i]]


@settings(max_examples=400, deadline=None)
@given(bodies())
def test_parts_derived_from_the_parents_equal_parts_split_afresh(
    data: tuple[Struct, list[Term], list[int]],
) -> None:
    head, body, chosen = data
    hv = {a for a in head.args if isinstance(a, Var)}
    before = [body[i] for i in chosen]
    parent = split_of(hv, before, head) if before else Split([], (), 0)
    got = refined_groups(parent, body, hv, head)
    assert got is not None
    child, added = got
    afresh = split_of(hv, body, head)
    assert sorted(same(child.groups), key=str) == sorted(same(afresh.groups), key=str)
    assert (child.ids, child.reach) == (afresh.ids, afresh.reach)
    # the added parts are those not among the parent's, in the order split afresh gives
    theirs = [p for p in same(afresh.groups) if p not in same(parent.groups)]
    assert same(added) == theirs


# --------------------------------------------------------------------------------------------
# the backend: refinements asked within their parent's coverage
# --------------------------------------------------------------------------------------------


def native(task: Task) -> NativeBackend:
    backend = NativeBackend(NativeOptions(kernel=True))
    backend.load(task)
    return backend


@needs_numba
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_refinement_chains_within_their_parents_coverage_equal_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    task = random_task(rng)
    backend = native(task)
    db = FactDB(task.program.facts)
    example = task.examples.atoms[rng.choice(list(task.examples.positives))]
    bottom = saturate(example, task.bias, backend, rng.randint(1, 3))
    refiner = Refiner(bottom, None)
    for _ in range(4):
        body: tuple[int, ...] = ()
        among: Coverage | None = None
        for _ in range(4):  # a chain: each clause asked within its parent's coverage
            options = refiner.additions(body)
            if not options:
                break
            body = refiner.add(body, rng.choice(options))
            c = bottom.clause(body)
            got = backend.coverage(c, among)
            expected = db.coverage(c, task.examples.atoms)
            if among is not None:
                expected &= set(among.tolist())
            assert set(got.tolist()) == expected
            among = got


@needs_numba
def test_a_refinement_within_its_parents_coverage_runs_only_its_own_part() -> None:
    backend, c, _, seen = _sister_asked_after_daughter()
    assert backend.stats.get("kernel_inherited", 0) == 0
    got = backend.coverage(c, seen)
    assert backend.stats["kernel_inherited"] == 1
    assert got.tolist() == backend.coverage(c).tolist() == [0]  # mary has a sister
    assert backend.stats["kernel_inherited"] == 1  # asked alone: split afresh


@needs_numba
def test_what_the_backend_did_not_make_is_not_inherited() -> None:
    backend, c, _, seen = _sister_asked_after_daughter()
    task = backend.task
    # an equal coverage made elsewhere: split afresh
    copy = Coverage(seen.ids, seen.size)
    assert backend.coverage(c, copy).tolist() == [0]
    # another head object (equal): split afresh
    other = Clause(term("daughter(A, B)"), c.body)
    assert backend.coverage(other, seen).tolist() == [0]
    assert backend.stats.get("kernel_inherited", 0) == 0
    # a coverage made before a reload is not this load's
    backend.load(task)
    assert backend.coverage(c, seen).tolist() == [0]
    assert backend.stats.get("kernel_inherited", 0) == 0


def test_variables_past_the_numbering_share_a_bit_and_parts_stay_exact() -> None:
    """Past ``_MAX_BITS`` variables, new ones share one bit: parts that share only such a
    variable are merged, never split wrongly; coverage stays exact."""
    saved = dict(head_parts._VAR_BITS)
    try:
        for i in range(head_parts._MAX_BITS - len(head_parts._VAR_BITS)):
            head_parts._bits((Var(f"_Fill{i}"),))
        assert len(head_parts._VAR_BITS) == head_parts._MAX_BITS
        # _Over1-3: new variables, all the shared bit; q(A, _Over1) and r(A, _Over2) merge
        # although independent, r(A, _Over2) and s(_Over2) stay linked
        c = clause("p(A) :- q(A, _Over1), r(A, _Over2), s(_Over2), t(A, _Over3)")
        hv, body = head_vars(c), list(c.body)
        got = parts(head_groups(hv, body, c.head))
        assert got == [([Var("A")], [str(lit) for lit in body])]
        assert len(head_parts._VAR_BITS) == head_parts._MAX_BITS  # not grown
        if K.HAVE_COMPILED:
            backend, c, _, seen = _sister_asked_after_daughter()
            assert backend.coverage(c, seen).tolist() == backend.coverage(c).tolist() == [0]
    finally:
        head_parts._VAR_BITS.clear()
        head_parts._VAR_BITS.update(saved)
        head_parts._LITERAL_VARS.clear()  # masks made while the bits were full


def _sister_asked_after_daughter() -> tuple[NativeBackend, Clause, Clause, Coverage]:
    """A backend on :func:`_family`, "has a sister" as a refinement of "is a daughter",
    and the parent's coverage, asked first."""
    backend = native(_family())
    c = clause("daughter(A, B) :- female(A), parent(B, A), parent(B, C), female(C)")
    parent = Clause(c.head, c.body[:2])
    return backend, c, parent, backend.coverage(parent)


def _family() -> Task:
    from tests.reference_prover import make_task

    return make_task(
        facts=[
            "female(mary)", "female(ann)", "female(eve)",
            "parent(tom, mary)", "parent(tom, ann)", "parent(bob, eve)",
        ],
        pos=["daughter(mary, tom)"],
        neg=["daughter(eve, tom)", "daughter(tom, mary)"],
    )  # fmt: skip
