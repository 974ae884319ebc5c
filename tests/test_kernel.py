"""The compiled coverage kernel (``native/kernels.py``, ``native/plan.py``).

(a) hand-checked cases: each expected set is worked out from the facts by hand (Prolog's
    meaning of ``\\+ \\+ (Head = E, Body)``), not copied from any backend's output;
(b) differential: on every bundled data set, random legal clauses and greedy refinement
    chains give the same coverage with the kernel, without it (the set-at-a-time engine) and
    in SWI-Prolog (when ``swipl`` is installed); random databases (hypothesis) against the
    reference prover.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ilpkit.core.bottom import saturate
from ilpkit.core.refine import Refiner
from ilpkit.core.task import Task
from ilpkit.plugins.backends.native import kernels as K
from ilpkit.plugins.backends.native.ask import Questions
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.plugins.backends.native.head_parts import head_groups
from ilpkit.plugins.backends.native.plan import (
    HeadIndex,
    KernelStore,
    Plan,
    build_plan,
)
from ilpkit.prolog.terms import Clause, Const, Struct, Term, Var
from tests.reference_prover import (
    FactDB,
    load_bundled,
    make_task,
    random_task,
    swipl_coverage,
    swipl_path,
    term,
)


def head_components(
    head_vars: set[Var], body: list[Term], head: object = None
) -> list[tuple[list[Var], list[Term]]]:
    """:func:`head_groups` as ``(head variables, literals)`` pairs."""
    return [(g.hv, g.lits) for g in head_groups(head_vars, body, head)]


needs_numba = pytest.mark.skipif(not K.HAVE_COMPILED, reason="numba is not installed")


def native(task: Task, **options: object) -> NativeBackend:
    """A loaded native backend; the kernel forced on unless ``kernel`` is given (``auto``
    would leave these small tasks to the set-at-a-time engine)."""
    options.setdefault("kernel", True)
    backend = NativeBackend(NativeOptions(**options))  # type: ignore[arg-type]
    backend.load(task)
    return backend


def cov(backend: NativeBackend, text: str) -> set[int]:
    return set(backend.coverage(Clause.from_term(term(text))).tolist())


FAMILY = make_task(
    [
        "parent(ann, bob)", "parent(bob, cid)", "parent(cid, dan)",
        "female(ann)", "female(cid)",
        "age(ann, 80)", "age(bob, 55)", "age(cid, 30)", "age(dan, 5)",
    ],
    pos=["gp(ann, cid)", "gp(bob, dan)"],
    neg=["gp(ann, dan)", "gp(cid, ann)"],
    modes=["modeh(1, gp(+p, +p))", "modeb(*, parent(+p, -p))", "modeb(*, female(+p))"],
)  # fmt: skip


# --------------------------------------------------------------------------------------------
# (a) hand-checked
# --------------------------------------------------------------------------------------------


@needs_numba
def test_chain_and_independent_head_parts() -> None:
    b = native(FAMILY)
    # examples 0..3: gp(ann,cid) gp(bob,dan) gp(ann,dan) gp(cid,ann)
    assert cov(b, "gp(A, B) :- parent(A, C), parent(C, B)") == {0, 1}
    # two parts, one per head variable: female(A) holds for ann, cid; B has a child for
    # cid (dan), ann (bob), not dan
    assert cov(b, "gp(A, B) :- female(A), parent(B, C)") == {0, 3}
    # the same part again (answers memoised per value of A): unchanged
    assert cov(b, "gp(A, B) :- female(A)") == {0, 2, 3}
    assert b.stats["kernel"] >= 3


@needs_numba
def test_comparisons_and_ground_unification() -> None:
    b = native(FAMILY)
    # ages: ann 80, bob 55, cid 30
    assert cov(b, "gp(A, B) :- age(A, X), X > 50") == {0, 1, 2}
    assert cov(b, "gp(A, B) :- age(A, X), age(B, Y), X >= Y") == {0, 1, 2}
    assert cov(b, "gp(A, B) :- age(A, X), age(B, Y), X < Y") == {3}
    # A's child is never B in these examples; A's grandchild is B for 0 and 1
    assert cov(b, "gp(A, B) :- parent(A, C), C \\= B") == {0, 1, 2, 3}
    assert cov(b, "gp(A, B) :- parent(A, C), parent(C, D), D = B") == {0, 1}
    assert cov(b, "gp(A, B) :- parent(A, C), C == bob") == {0, 2}
    assert cov(b, "gp(A, B) :- X = 80, age(A, X)") == {0, 2}


@needs_numba
def test_a_test_on_an_unbound_variable_keeps_prolog_order() -> None:
    # In Prolog C is unbound at C == bob, so the test fails for every example; proving
    # parent(A, C) first would wrongly give {0, 2}.  The plan refuses; the engine answers.
    b = native(FAMILY)
    assert cov(b, "gp(A, B) :- C == bob, parent(A, C)") == set()


@needs_numba
def test_step_budget_falls_back_with_the_same_answer() -> None:
    b = native(FAMILY, kernel_steps=1)
    assert cov(b, "gp(A, B) :- parent(A, C), parent(C, B)") == {0, 1}
    assert b.stats.get("kernel", 0) == 0


def test_auto_leaves_a_small_fact_task_to_the_engine_until_it_has_cost_a_kernel_load(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``kernel=auto`` (the default) with no C kernel built yet: the set-at-a-time engine
    answers until it has spent ``kernel_after`` CPU seconds, then the kernel; the answers are
    the same either way."""
    monkeypatch.setattr(K, "ready", lambda: False)
    b = native(FAMILY, kernel="auto")  # kernel_after 0.5 s: far more than these clauses take
    assert NativeOptions().kernel == "auto"
    assert cov(b, "gp(A, B) :- parent(A, C), parent(C, B)") == {0, 1}
    assert cov(b, "gp(A, B) :- female(A), parent(B, C)") == {0, 3}
    assert b.stats.get("kernel", 0) == 0
    eager = native(FAMILY, kernel="auto", kernel_after=0.0)  # spent at once: the kernel next
    assert cov(eager, "gp(A, B) :- parent(A, C), parent(C, B)") == {0, 1}
    assert eager.stats.get("kernel", 0) == 0
    assert cov(eager, "gp(A, B) :- female(A), parent(B, C)") == {0, 3}
    assert eager.stats.get("kernel", 0) == int(K.HAVE_COMPILED)


def test_auto_starts_with_a_built_c_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """A C kernel in the cache loads in milliseconds: ``auto`` uses it from the first clause."""
    monkeypatch.setattr(K, "ready", lambda: True)
    assert native(FAMILY, kernel="auto")._kernel_on is True
    monkeypatch.setattr(K, "ready", lambda: False)
    assert native(FAMILY, kernel="auto")._kernel_on is None


def test_auto_starts_with_the_kernel_when_a_body_mode_is_rule_defined(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(K, "ready", lambda: False)
    task = make_task(
        ["parent(ann, bob)", "parent(bob, cid)"],
        pos=["gp(ann, cid)"],
        neg=["gp(bob, ann)"],
        modes=["modeh(1, gp(+p, +p))", "modeb(*, anc(+p, -p))"],
    )
    task.program.add_clause(Clause.from_term(term("anc(X, Y) :- parent(X, Y)")))
    assert native(task, kernel="auto")._kernel_on is True
    assert native(FAMILY, kernel="auto")._kernel_on is None  # facts only: not yet
    assert native(FAMILY, kernel=False)._kernel_on is False


@needs_numba
def test_among_and_head_constants() -> None:
    from ilpkit.core.coverage import Coverage

    b = native(FAMILY)
    clause = Clause.from_term(term("gp(A, B) :- parent(A, C), parent(C, B)"))
    assert set(b.coverage(clause, Coverage([1, 2, 3], 4)).tolist()) == {1}
    assert cov(b, "gp(ann, B) :- parent(ann, C)") == {0, 2}
    assert cov(b, "gp(A, A) :- parent(A, C)") == set()


def test_once_and_backjumping_flags() -> None:
    # gp(A,B) :- parent(A,C), female(D), parent(C,B) over 3 parent facts (3 distinct values
    # per column) and 2 female facts.  Expected matches per call: parent(A,C) with A bound
    # 3/3 = 1, parent(C,B) with B bound 1, female(D) 2 -> greedy order parent(A,C),
    # parent(C,B) (C now bound too), female(D).
    # once: parent(A,C) binds C, read later -> 0; parent(C,B) binds nothing -> 1; female(D)
    # binds D, read by nothing -> 1.  dep (latest binder of what a literal reads): parent(A,C)
    # reads A (head) -> -1; parent(C,B) reads C (literal 0) -> 0; female(D) reads nothing -> -1.
    store = KernelStore()
    b = native(FAMILY)
    body = list(Clause.from_term(term("gp(A, B) :- parent(A, C), female(D), parent(C, B)")).body)
    A, B = Var("A"), Var("B")
    assert len(head_components({A, B}, body)) == 2  # female(D) shares no variable
    plan = build_plan([A, B], body, b.facts, b.interner, store)
    kind, tab, *_, once, dep = plan.arrays
    assert list(kind) == [K.FACT] * 3
    assert [store._keep[t].name for t in tab] == ["parent", "parent", "female"]
    assert list(once) == [0, 1, 1]
    assert list(dep) == [-1, 0, -1]


def test_kernel_as_plain_python_equals_compiled() -> None:
    """The kernel's Python source (what runs without numba) gives the same answers."""
    b = native(FAMILY)
    body = list(Clause.from_term(term("gp(A, B) :- parent(A, C), parent(C, B)")).body)
    A, B = Var("A"), Var("B")
    store = KernelStore()
    plan = build_plan([A, B], body, b.facts, b.interner, store)
    hix = b._head_index(("gp", 2))
    rows = np.arange(4, dtype=np.int64)
    n_lits = len(plan.arrays[0])

    def resume_state() -> tuple[np.ndarray, ...]:
        # pause after 10**6 tests (never here); [example, literal, entering]; the kernel's
        # working arrays (covered, slots, pos, hi, found), fresh for each run
        return (
            np.array([0, -1, 1, 0, 0], dtype=np.int64), np.zeros(4, dtype=np.uint8),
            np.zeros(max(plan.nslots, 1), dtype=np.int64), np.zeros(n_lits, dtype=np.int64),
            np.zeros(n_lits, dtype=np.int64), np.zeros(n_lits, dtype=np.uint8),
        )  # fmt: skip

    head = (
        hix.data, hix.arity, rows, np.array([0, 1], dtype=np.int64), hix.ranks,
        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8), plan.nslots, *plan.arrays,
    )  # fmt: skip
    q = Questions()
    tail = (b.interner.numeric(), b.interner.types(), q.keys, q.vals, q.want, 10**6, 10**6)
    lists = (*store.tabs.arrays(), *store.orders.arrays(), *store.starts.arrays())
    args: tuple[Any, ...] = (*head, *lists, *tail, *resume_state())
    covered, status, _ = K._cover_rows(*args)
    assert status == K.OK
    assert covered.tolist() == [1, 1, 0, 0]
    if K.HAVE_COMPILED:
        args = (*head, *lists, *tail, *resume_state())
        assert K.cover_rows(*args)[0].tolist() == [1, 1, 0, 0]


# --------------------------------------------------------------------------------------------
# (b) differential
# --------------------------------------------------------------------------------------------


def clauses_of(task: Task, n: int, seed: int) -> list[Clause]:
    """Random legal clauses and greedy (TP - FP) refinement chains from bottom clauses."""
    rng = random.Random(seed)
    backend = native(task, kernel=False)
    positives = task.examples.positives.tolist()
    depth = min(int(task.bias.settings["i"]), 2)
    out: list[Clause] = []
    while len(out) < n:
        bottom = saturate(task.examples.atoms[rng.choice(positives)], task.bias, backend, depth)
        if len(bottom) == 0:
            continue
        refiner = Refiner(bottom, 6)
        out += [bottom.clause(refiner.random_clause(rng.randint(0, 5), rng)) for _ in range(6)]
        body: tuple[int, ...] = ()
        for _ in range(4):
            options = refiner.additions(body)[:20]
            if not options:
                break
            scored = []
            for k in options:
                c = backend.coverage(bottom.clause(refiner.add(body, k))).counts(task.examples)
                scored.append((c.tp - c.fp, k))
            body = refiner.add(body, max(scored)[1])
            out.append(bottom.clause(body))
    return out[:n]


BUNDLED = ["trains", "uwcse", "toy_father", "mutagenesis"]
RING_PERCEPTION = {
    "benzene", "carbon_5_aromatic_ring", "carbon_6_ring", "hetero_aromatic_6_ring",
    "hetero_aromatic_5_ring", "ring_size_6", "ring_size_5", "anthracene", "phenanthrene",
    "ball3",
}  # fmt: skip


@pytest.mark.heavy  # from the quick suite (3-6 s): keeps the README's test command under 5 minutes
@needs_numba
@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_kernel_equals_engine_and_swipl(name: str, tmp_path: Path) -> None:
    task = load_bundled(name)
    if name == "mutagenesis":
        # without the ring-perception modes: SWI-Prolog's exhaustive ring searches take
        # minutes per clause set (test_native_agreement.py judges those separately)
        task.bias.modeb = [m for m in task.bias.modeb if m.name not in RING_PERCEPTION]
    clauses = clauses_of(task, 60 if name == "mutagenesis" else 150, seed=7)
    with_kernel = native(task)
    engine = native(task, kernel=False)
    got = [set(with_kernel.coverage(c).tolist()) for c in clauses]
    assert got == [set(engine.coverage(c).tolist()) for c in clauses]
    assert with_kernel.stats.get("kernel", 0) > len(clauses) // 3
    if swipl_path() is not None:
        judged = swipl_coverage(
            task.program,
            task.examples.atoms,
            clauses,
            tmp_path,
            [m.indicator for m in task.bias.modeb],
        )
        assert got == judged


@needs_numba
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_random_databases_kernel_equals_reference(seed: int) -> None:
    rng = random.Random(seed)
    task = random_task(rng)
    backend = native(task)
    engine = native(task, kernel=False)
    db = FactDB(task.program.facts)
    example = task.examples.atoms[rng.choice(list(task.examples.positives))]
    bottom = saturate(example, task.bias, engine, rng.randint(1, 3))
    refiner = Refiner(bottom, None)
    for _ in range(8):
        clause = bottom.clause(refiner.random_clause(rng.randint(1, 5), rng))
        expected = db.coverage(clause, task.examples.atoms)
        assert set(backend.coverage(clause).tolist()) == expected
        assert set(engine.coverage(clause).tolist()) == expected


def test_segments_keep_arrays_end_to_end() -> None:
    """Segments hold each appended array at its offsets, across buffer growth."""
    seg = K.Segments()
    parts = [np.arange(n, dtype=np.int64) * 3 for n in (5, 0, 2000, 7)]  # 2,012 > 1,024 cells
    for i, a in enumerate(parts):
        assert seg.append(a) == i
    flat, at = seg.arrays()
    assert len(seg) == 4
    assert at.tolist() == [0, 5, 5, 2005, 2012]  # cumulative lengths 5, 0, 2000, 7
    for i, a in enumerate(parts):
        assert seg[i].tolist() == a.tolist()
        assert flat[at[i] : at[i + 1]].tolist() == a.tolist()
    with pytest.raises(IndexError):
        seg[4]
    for _ in range(40):  # offsets grow past their first 16 entries
        seg.append(np.array([1, 2], dtype=np.int64))
    assert len(seg) == 44 and seg[43].tolist() == [1, 2] and seg[2].tolist() == parts[2].tolist()


def test_part_key_is_the_same_exactly_for_variants_on_the_same_head_columns() -> None:
    """Two body parts share a kernel memo iff one is the other with variables renamed and
    they read the same head columns (the head variable at column c is -1 - c; the others
    are numbered by first occurrence, counting the head variables first)."""
    from ilpkit.plugins.backends.native.engine_common import _part_key

    def lits(text: str) -> list[Term]:
        return list(Clause.from_term(term(f"h(A, B) :- {text}")).body)

    key = ("h", 2)
    A, B, X = Var("A"), Var("B"), Var("X")
    k1 = _part_key(key, [A], [0], lits("p(A, C), q(C, D, 5)"))
    assert k1 == (key, "p", 2, -1, 1, "q", 3, 1, 2, Const(5))  # C = 1, D = 2 (A is first)
    # a variant (C, D renamed; the head variable called X, same column): same key
    assert _part_key(key, [X], [0], [Struct("p", (X, Var("E"))), *lits("q(E, F, 5)")]) == k1
    # the same literals reading head column 1 instead: another key
    assert _part_key(key, [B], [1], lits("p(B, C), q(C, D, 5)")) != k1
    # a constant where a variable was, and a repeated variable: other keys
    assert _part_key(key, [A], [0], lits("p(A, C), q(C, 5, 5)")) != k1
    assert _part_key(key, [A], [0], lits("p(A, C), q(C, C, 5)")) != k1
    # a literal with a compound argument: renamed terms, equal for variants
    k2 = _part_key(key, [A], [0], lits("r(A, f(C)), s(C)"))
    assert k2 == _part_key(key, [A], [0], lits("r(A, f(Z)), s(Z)"))
    assert k2 != _part_key(key, [A], [0], lits("r(A, f(C)), s(D)"))


def test_sparse_indexes_are_bisected_with_the_same_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every column forced sparse: no key starts are stored and the kernel bisects the row
    order; gp(A, B) :- parent(A, C), parent(C, B) still covers the two grandparent pairs."""
    from ilpkit.plugins.backends.native import store as S

    monkeypatch.setattr(S, "_DENSE_FACTOR", 0)
    monkeypatch.setattr(S, "_DENSE_SLACK", -1)
    b = native(FAMILY)
    body = list(Clause.from_term(term("gp(A, B) :- parent(A, C), parent(C, B)")).body)
    A, B = Var("A"), Var("B")
    store = KernelStore()
    plan = build_plan([A, B], body, b.facts, b.interner, store)
    assert all(len(store.starts[i]) == 0 for i in range(len(store.starts)))
    assert len(store.orders) >= 1  # parent(C, B) is looked up by its bound key
    hix = b._head_index(("gp", 2))
    n_lits = len(plan.arrays[0])
    args = (
        hix.data, hix.arity, np.arange(4, dtype=np.int64), np.array([0, 1], dtype=np.int64),
        hix.ranks, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8), plan.nslots,
        *plan.arrays, *store.tabs.arrays(), *store.orders.arrays(), *store.starts.arrays(),
        b.interner.numeric(), b.interner.types(), Questions().keys, Questions().vals,
        Questions().want, 10**6, 10**6,
    )  # fmt: skip
    for kernel in (K._cover_rows, K.cover_rows):
        state = (
            np.array([0, -1, 1, 0, 0], dtype=np.int64), np.zeros(4, dtype=np.uint8),
            np.zeros(max(plan.nslots, 1), dtype=np.int64), np.zeros(n_lits, dtype=np.int64),
            np.zeros(n_lits, dtype=np.int64), np.zeros(n_lits, dtype=np.uint8),
        )  # fmt: skip
        covered, status, _ = kernel(*args, *state)
        assert status == K.OK
        assert covered.tolist() == [1, 1, 0, 0]


def test_head_components_by_hand_and_kept_per_head() -> None:
    # p(A, B) :- q(A, C), r(C, B), s(B), t(D), u(D, A), q(A, C).
    # Non-head variables: q {C}, r {C}, s {}, t {D}, u {D}: parts {q, r, q}, {s}, {t, u};
    # their head variables in first-occurrence order: (A, B), (B), (A).
    clause = Clause.from_term(term("p(A, B) :- q(A, C), r(C, B), s(B), t(D), u(D, A), q(A, C)"))
    A, B = Var("A"), Var("B")
    body = list(clause.body)
    expected = [
        ([A, B], [body[0], body[1], body[5]]),
        ([B], [body[2]]),
        ([A], [body[3], body[4]]),
    ]
    assert head_components({A, B}, body) == expected
    # kept per literal for the head object: a second call (and a refinement) agree
    assert head_components({A, B}, body, clause.head) == expected
    assert head_components({A, B}, body, clause.head) == expected
    assert head_components({A, B}, body[:2], clause.head) == [([A, B], body[:2])]
    # the same literal objects under another head (B not in it): the split is recomputed
    other = Struct("p", (A,))
    assert head_components({A}, body[:3], other) == [([A], body[:3])]


def test_a_packed_plan_gives_back_the_kernels_sixteen_arrays() -> None:
    """Two literals: fifteen integer arrays (the float constants apart) packed end to end;
    the kernel's argument order puts the floats 13th."""
    ints = [[10 + k, 20 + k] for k in range(9)]  # kind .. a_end: one entry per literal
    ints += [[1, 2, 3], [4, 5, 6], [7, 8, 9]]  # amode, acol, aval: one per argument
    ints += [[30, 31], [1, 0], [-1, 0]]  # cop, once, dep
    plan = Plan.pack(4, ints, [0.0, 0.5, -2.25])
    assert plan.nslots == 4 and plan.n_lits == 2
    assert plan.ints.dtype == np.int64 and len(plan.ints) == 9 * 2 + 3 * 3 + 3 * 2
    got = plan.arrays
    assert len(got) == 16
    assert [a.tolist() for a in got[:12]] == ints[:12]
    assert got[12].dtype == np.float64 and got[12].tolist() == [0.0, 0.5, -2.25]
    assert [a.tolist() for a in got[13:]] == ints[12:]
    assert all(a.flags.c_contiguous for a in got)
    assert all(a.dtype == np.int64 for i, a in enumerate(got) if i != 12)


def test_parts_reading_the_same_head_columns_share_one_layout() -> None:
    """Strides are row-major over the columns' distinct values: head p(X, Y) with 3 values
    of X and 2 of Y reads (X, Y) with strides (2, 1), (Y,) with (1,)."""
    from ilpkit.plugins.backends.native.store import FactTable

    data = np.array([[5, 7], [6, 7], [9, 8], [5, 8]], dtype=np.int64)
    hix = HeadIndex(np.arange(4), FactTable.from_array("p", data), 4)
    cols, strides = hix.layout([0, 1])
    assert cols.tolist() == [0, 1] and strides.tolist() == [2, 1]
    assert hix.layout((0, 1))[0] is cols  # shared, not rebuilt
    assert hix.layout([1])[1].tolist() == [1]
