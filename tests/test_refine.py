"""Refinement operators: legality, additions, removals, random clauses -- checked against the
definition of a legal clause (``reference_prover.is_legal_reference``) by brute force."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ilpkit.core.bottom import BottomClause, BottomLiteral, saturate
from ilpkit.core.refine import Refiner
from ilpkit.prolog.terms import Const, Struct, Var, canonical_var_name
from tests.reference_prover import FactDB, is_legal_reference, make_task, random_task

# --------------------------------------------------------------------------------------------
# bottom clauses: built directly (any variable flow) or by saturating random data
# --------------------------------------------------------------------------------------------


def build_bottom(
    n_vars: int,
    head_inputs: set[int],
    flows: list[tuple[list[int], list[int]]],
) -> BottomClause:
    """A bottom clause with the given (inputs, outputs) per literal."""
    names = [Var(canonical_var_name(i)) for i in range(n_vars)]
    literals = []
    suppliers = [0] * n_vars
    for k, (ins, outs) in enumerate(flows):
        args = tuple(names[v] for v in (*ins, *outs)) or (Const(k),)
        literals.append(
            BottomLiteral(
                term=Struct(f"l{k}", args),
                ground=Struct(f"l{k}", tuple(Const(v) for v in (*ins, *outs)) or (Const(k),)),
                mode=0,
                depth=1,
                inputs=tuple(ins),
                outputs=tuple(outs),
            )
        )
        for v in outs:
            suppliers[v] |= 1 << k
    head_args = tuple(names[v] for v in sorted(head_inputs)) or (Const("h"),)
    return BottomClause(
        seed=Struct("h", head_args),
        head=Struct("h", head_args),
        literals=tuple(literals),
        head_inputs=frozenset(head_inputs),
        head_outputs=frozenset(),
        n_vars=n_vars,
        modes=(),
        suppliers=tuple(suppliers),
    )


@st.composite
def bottoms(draw: st.DrawFn) -> BottomClause:
    if draw(st.booleans()):
        n_vars = draw(st.integers(1, 8))
        var = st.integers(0, n_vars - 1)
        head_inputs = draw(st.sets(var, max_size=3))
        flows = draw(
            st.lists(
                st.tuples(
                    st.lists(var, max_size=3, unique=True), st.lists(var, max_size=2, unique=True)
                ),
                max_size=14,
            )
        )
        return build_bottom(n_vars, head_inputs, flows)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    task = random_task(rng)
    db = FactDB(task.program.facts)
    example = task.examples.atoms[rng.choice(list(task.examples.positives))]
    return saturate(example, task.bias, db, rng.randint(1, 3))


clauselengths = st.one_of(st.none(), st.integers(1, 7))


def legal(bc: BottomClause, clause: tuple[int, ...] | list[int], cl: int | None) -> bool:
    return is_legal_reference(
        [lit.inputs for lit in bc.literals],
        [lit.outputs for lit in bc.literals],
        bc.head_inputs,
        clause,
        cl,
    )


def random_legal_clause(bc: BottomClause, cl: int | None, rng: random.Random) -> tuple[int, ...]:
    """A legal clause grown by brute force (independent of the Refiner)."""
    clause: tuple[int, ...] = ()
    for _ in range(rng.randint(0, 6)):
        options = [k for k in range(len(bc)) if k not in clause and legal(bc, (*clause, k), cl)]
        if not options:
            break
        clause = tuple(sorted((*clause, rng.choice(options))))
    return clause


SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --------------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------------


@SETTINGS
@given(bottoms(), clauselengths, st.randoms(use_true_random=False))
def test_is_legal_matches_the_definition(
    bc: BottomClause, cl: int | None, rng: random.Random
) -> None:
    refiner = Refiner(bc, cl)
    n = len(bc)
    for _ in range(30):
        clause = tuple(sorted(rng.sample(range(n), rng.randint(0, min(n, 6))))) if n else ()
        assert refiner.is_legal(clause) == legal(bc, clause, cl), clause
    assert refiner.is_legal(()) == (cl is None or cl >= 1)
    # not a set of literal indices: never legal
    assert not refiner.is_legal((n,))
    assert not refiner.is_legal((-1,))
    if n:
        assert not refiner.is_legal((0, 0))


@SETTINGS
@given(bottoms(), clauselengths, st.integers(0, 2**32 - 1), st.integers(0, 6))
def test_random_clause_is_legal_maximal_and_deterministic(
    bc: BottomClause, cl: int | None, seed: int, length: int
) -> None:
    refiner = Refiner(bc, cl)
    clause = refiner.random_clause(length, random.Random(seed))
    if cl is not None and cl < 1:
        return
    assert list(clause) == sorted(set(clause))
    assert legal(bc, clause, cl)
    assert len(clause) <= length
    assert cl is None or 1 + len(clause) <= cl  # clauselength counts the head
    if len(clause) < length:  # stopped early: nothing could be added
        assert refiner.additions(clause) == []
    # the same seed gives the same clause
    assert refiner.random_clause(length, random.Random(seed)) == clause
    assert Refiner(bc, cl).random_clause(length, random.Random(seed)) == clause


@SETTINGS
@given(bottoms(), clauselengths, st.randoms(use_true_random=False))
def test_additions_and_removals_are_exactly_the_legal_moves(
    bc: BottomClause, cl: int | None, rng: random.Random
) -> None:
    refiner = Refiner(bc, cl)
    for _ in range(8):
        clause = random_legal_clause(bc, cl, rng)
        if not legal(bc, clause, cl):  # only when clauselength < 1
            assert cl is not None and cl < 1
            return
        brute_add = [k for k in range(len(bc)) if k not in clause and legal(bc, (*clause, k), cl)]
        assert refiner.additions(clause) == brute_add
        for k in brute_add:
            grown = refiner.add(clause, k)
            assert grown == tuple(sorted((*clause, k)))
            assert refiner.is_legal(grown)
        brute_remove = [j for j in clause if legal(bc, [i for i in clause if i != j], cl)]
        assert refiner.removals(clause) == brute_remove
        for j in brute_remove:
            shrunk = refiner.remove(clause, j)
            assert j not in shrunk and len(shrunk) == len(clause) - 1
            assert refiner.is_legal(shrunk)
        neighbours = refiner.neighbours(clause)
        assert neighbours == [refiner.add(clause, k) for k in brute_add] + [
            refiner.remove(clause, j) for j in brute_remove
        ]
        if cl is not None and 1 + len(clause) + 1 > cl:
            assert refiner.additions(clause) == []
        assert refiner.can_grow(clause) == (cl is None or len(clause) + 2 <= cl)


@SETTINGS
@given(bottoms(), st.integers(0, 2**32 - 1))
def test_random_walk_stays_legal(bc: BottomClause, seed: int) -> None:
    """Rapid Random Restart's moves: a walk of random neighbours never leaves the legal set."""
    rng = random.Random(seed)
    refiner = Refiner(bc, 5)
    clause = refiner.random_clause(3, rng)
    for _ in range(25):
        options = refiner.neighbours(clause)
        if not options:
            break
        clause = rng.choice(options)
        assert legal(bc, clause, 5)


# --------------------------------------------------------------------------------------------
# by hand
# --------------------------------------------------------------------------------------------


@pytest.fixture
def family_bottom() -> BottomClause:
    task = make_task(
        ["parent(ann,bob)", "parent(ann,cat)", "parent(bob,dan)", "parent(bob,eve)",
         "parent(cat,fay)", "parent(dan,gus)"],
        pos=["grandparent(ann,dan)"],
        modes=["modeh(1, grandparent(+person,+person))", "modeb(*, parent(+person,-person))"],
    )  # fmt: skip
    from tests.reference_prover import term

    # grandparent(A,B) :- parent(A,C), parent(A,D), parent(B,E), parent(C,B), parent(C,F),
    #                     parent(D,G)
    return saturate(term("grandparent(ann,dan)"), task.bias, FactDB(task.program.facts), 2)


def test_family_refinements_by_hand(family_bottom: BottomClause) -> None:
    r = Refiner(family_bottom, clauselength=3)
    # literals 0-2 take head inputs; 3 and 4 need C (literal 0); 5 needs D (literal 1)
    assert r.additions(()) == [0, 1, 2]
    assert r.additions((0,)) == [1, 2, 3, 4]
    assert r.additions((1,)) == [0, 2, 5]
    assert r.additions((0, 3)) == []  # clauselength 3 = head + 2 literals
    assert r.is_legal((0, 3)) and not r.is_legal((3,)) and not r.is_legal((0, 1, 3))
    assert r.removals((0, 3)) == [3]  # removing 0 would strand literal 3
    assert r.removals((1, 2)) == [1, 2]
    free = Refiner(family_bottom)  # no clauselength
    assert free.additions((0, 1, 2, 3, 4)) == [5]
    assert free.is_legal(tuple(range(6)))
    assert free.removals(tuple(range(6))) == [2, 3, 4, 5]
    assert family_bottom.clause((0, 3)) == family_bottom.clause((3, 0))
    assert str(family_bottom.clause((0, 3))) == "grandparent(A,B) :- parent(A,C), parent(C,B)."
