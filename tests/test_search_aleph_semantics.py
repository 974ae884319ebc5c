"""The top-down searches follow the Aleph manual's ``search=bf`` order and ``explore`` setting.

Expected values are written from the manual's definitions (bf: shorter clauses first, then
by evaluation within a length; explore: prune only what is definitely worse than the best)
and Aleph's ``coverage`` evalfn (P - N), not read off the code's output.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import numpy as np
import pytest

from ilpkit.core.bottom import BottomClause, BottomLiteral
from ilpkit.core.coverage import Counts, Coverage, Weighting
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.search import Acceptance, Evaluated, SearchContext, Trajectory
from ilpkit.core.task import Task
from ilpkit.plugins.backends.native.engine import NativeBackend
from ilpkit.plugins.learners.theory import seed_score
from ilpkit.plugins.search import topdown
from ilpkit.plugins.search.topdown import TopDown, TopDownOptions, _Waiting, bf_key, waiting
from ilpkit.prolog.terms import Clause, Const, Struct, Var


@pytest.fixture(scope="module")
def trains(bundled: Callable[..., tuple[Task, NativeBackend]]) -> tuple[Task, NativeBackend]:
    return bundled("trains")


def context(
    trains: tuple[Task, NativeBackend], budget: int, *, explore: bool = False
) -> SearchContext:
    task, backend = trains
    return SearchContext(
        bottom=backend.saturate(0),
        backend=backend,
        scorer=get_plugin_manager().make("scorer", "coverage"),
        weighting=Weighting.of(task.examples),
        budget=budget,
        rng=random.Random(0),
        clauselength=4,
        acceptance=Acceptance(minpos=1, minacc=0.0, noise=0),
        explore=explore,
    )


def fake(body: tuple[int, ...], tp: float, fp: float, number: int) -> Evaluated:
    counts = Counts(tp, fp, 5.0, 5.0)
    empty = Coverage(np.zeros(0, dtype=np.int64), 10, trusted=True)
    return Evaluated(body, None, empty, counts, tp - fp, number)  # type: ignore[arg-type]


def test_bf_key_orders_by_length_then_score_then_age() -> None:
    # coverage scores (P - N): a=5-3=2, b=4-0=4, c=1-0=1 (one literal), d=5-5=0 (empty body)
    a, b = fake((1,), 5, 3, number=2), fake((2,), 4, 0, number=3)
    c, d = fake((0, 1), 1, 0, number=4), fake((), 5, 5, number=1)
    e = fake((3,), 4, 0, number=5)  # ties b on score and length, evaluated later
    order = sorted([a, b, c, d, e], key=bf_key)
    assert [x.number for x in order] == [1, 3, 5, 2, 4]


def test_bf_expands_shorter_first_and_the_best_first_within_a_length(
    trains: tuple[Task, NativeBackend],
) -> None:
    ctx = context(trains, 400)
    trajectory = Trajectory()
    ctx.observers.append(trajectory)
    TopDown(TopDownOptions(), "fifo").run(ctx)
    by_number = {e.number: e for e in trajectory}
    expanded = list(dict.fromkeys(e.parent for e in trajectory if e.parent is not None))
    nodes = [by_number[k] for k in expanded]
    # breadth-first by length; within one length, expanded in non-increasing P - N
    for x, y in itertools.pairwise(nodes):
        assert (len(x.body), -x.score) <= (len(y.body), -y.score)
    # the first one-literal clause expanded is the best-scored one-literal clause (P - N
    # recomputed here from the backend's coverage)
    one = [e for e in trajectory if len(e.body) == 1]
    first = next(n for n in nodes if len(n.body) == 1)
    best_one = max(
        ctx.weighting.counts(ctx.backend.coverage(e.clause)).tp
        - ctx.weighting.counts(ctx.backend.coverage(e.clause)).fp
        for e in one
    )
    assert first.score == best_one
    assert len({len(n.body) for n in nodes}) >= 2  # the budget reached a second level


@pytest.mark.parametrize(("explore", "pruned"), [(False, True), (True, False)])
def test_explore_prunes_only_what_is_definitely_worse(explore: bool, pruned: bool) -> None:
    """Coverage (P - N): a node with TP 5 has bound 5 - 0 = 5; the best scores 5 as well.
    Without explore it is no better, so pruned; with explore it is not definitely worse."""

    class Ctx:
        scorer = get_plugin_manager().make("scorer", "coverage")
        acceptance = Acceptance()
        incumbent = -np.inf

        @staticmethod
        def length(body: tuple[int, ...]) -> int:
            return len(body) + 1

    Ctx.explore = explore  # type: ignore[attr-defined]
    node = fake((1,), 5, 3, number=2)
    best = fake((2, 3), 5, 0, number=7)
    assert TopDown()._hopeless(node, best, Ctx) is pruned  # type: ignore[arg-type]
    worse = fake((1,), 4, 3, number=2)  # bound 4 < 5: pruned either way
    assert TopDown()._hopeless(worse, best, Ctx) is True  # type: ignore[arg-type]


def test_explore_keeps_searching_among_equally_good_clauses(
    trains: tuple[Task, NativeBackend],
) -> None:
    plain, explored = context(trains, 100_000), context(trains, 100_000, explore=True)
    best = TopDown(TopDownOptions(), "best").run(plain)
    best_explored = TopDown(TopDownOptions(), "best").run(explored)
    assert best is not None and best_explored is not None
    # both reach the optimum 5 - 0 (the five eastbound trains); explore evaluates more
    assert best.score == best_explored.score == 5.0
    assert explored.evaluated > plain.evaluated


@pytest.mark.parametrize(("minscore", "ok"), [(-np.inf, True), (3.0, True), (3.5, False)])
def test_minscore_bounds_an_acceptable_clause(minscore: float, ok: bool) -> None:
    # TP 4, FP 1: Aleph's coverage score P - N = 3; accepted iff 3 >= minscore
    counts = Counts(4.0, 1.0, 5.0, 5.0)
    assert Acceptance(minpos=1, minacc=0.0, noise=1, minscore=minscore).ok(counts, 3.0) is ok


@pytest.mark.parametrize(("minscore", "found"), [(5.0, True), (6.0, False)])
def test_minscore_above_the_reachable_ends_the_search_at_the_root(
    trains: tuple[Task, NativeBackend], minscore: float, found: bool
) -> None:
    """Trains (5 eastbound, 5 westbound) under coverage: the root's refinements score at most
    5 - 0 = 5, so minscore 6 is out of reach -- the root is pruned, one clause evaluated --
    while minscore 5 still finds short(B), closed(B) with P - N = 5."""
    ctx = context(trains, 100_000)
    ctx.acceptance = Acceptance(minpos=1, minacc=0.0, noise=0, minscore=minscore)
    best = TopDown(TopDownOptions(), "best").run(ctx)
    if found:
        assert best is not None and best.score == 5.0
    else:
        assert best is None and ctx.evaluated == 1


def test_a_waiting_clause_packs_its_coverage_when_the_bitset_is_smaller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(topdown, "PACK_FROM", 1)
    # 5 covered of 100: 5 x 8 = 40 bytes of ids against a 13-byte bitset -> packed
    e = fake((1,), 4, 1, number=3)
    e = Evaluated(e.body, e.clause, Coverage([0, 5, 63, 64, 99], 100), e.counts, e.score, e.number)
    packed = waiting(e)
    assert isinstance(packed, _Waiting) and packed.bits.nbytes == 13
    back = packed.unpack()
    assert back.coverage.ids.tolist() == [0, 5, 63, 64, 99] and back.coverage.size == 100
    assert (back.body, back.counts, back.score, back.number) == (e.body, e.counts, 3.0, 3)
    # 1 covered of 1,000: 8 bytes of ids against 125 of bitset -> kept as it is
    small = Evaluated(e.body, e.clause, Coverage([7], 1000), e.counts, e.score, e.number)
    assert waiting(small) is small


@pytest.mark.parametrize("order", ["best", "fifo"])
def test_packing_the_open_list_changes_nothing_searched(
    trains: tuple[Task, NativeBackend], order: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stream() -> list[tuple[tuple[int, ...], float]]:
        ctx, trajectory = context(trains, 500), Trajectory()
        ctx.observers.append(trajectory)
        TopDown(TopDownOptions(), order).run(ctx)  # type: ignore[arg-type]
        return [(e.body, e.score) for e in trajectory]

    monkeypatch.setattr(topdown, "PACK_FROM", 1)  # trains covers at most 10 examples
    packed = stream()
    monkeypatch.setattr(topdown, "waiting", lambda e: e)
    assert stream() == packed


def test_a_clause_covering_few_examples_is_not_packed() -> None:
    # 511 covered of 100,000: 4,088 bytes of ids, under PACK_FROM = 512 -> kept as it is
    e = fake((1,), 4, 1, number=3)
    few = Evaluated(e.body, e.clause, Coverage(range(511), 100_000), e.counts, 3.0, 3)
    assert waiting(few) is few
    # 512 covered of 2,000: 4,096 bytes against a 250-byte bitset -> packed
    many = Evaluated(e.body, e.clause, Coverage(range(512), 2_000), e.counts, 3.0, 3)
    assert isinstance(waiting(many), _Waiting)


# -- Aleph's own refinement operator (operator="aleph") and the seed's start label ------------
#
# A hand-built bottom clause  p(A) :- q(A,B), r(A), s(B), t(A)  (literals 0..3) over ten
# examples, 0-4 positive and 5-9 negative; each literal's own cover is given and a clause
# covers the intersection of its literals' covers (they share only A, or B through q).
_COVERS = {"q": {0, 1, 2, 3, 5, 6}, "r": {0, 1, 5, 6, 7}, "s": {0, 1, 5}, "t": {1, 2, 3, 4, 5}}


class _SetBackend:
    """Coverage of a clause = intersection of its body literals' covers (within ``among``)."""

    def __init__(self, covers: dict[str, set[int]]) -> None:
        self.covers = covers

    def coverage(self, clause: Clause, among: Coverage | None = None) -> Coverage:
        covered = set(range(10))
        for lit in clause.body:
            covered &= self.covers[lit.name]  # type: ignore[union-attr]
        if among is not None:
            covered &= set(among.ids.tolist())
        return Coverage(sorted(covered), 10)


def _tiny_bottom() -> BottomClause:
    a, b = Var("A"), Var("B")

    def lit(
        name: str, args: tuple[Var, ...], ins: tuple[int, ...], outs: tuple[int, ...]
    ) -> BottomLiteral:
        term = Struct(name, args)
        return BottomLiteral(term, term, 0, 1, ins, outs)

    literals = (
        lit("q", (a, b), (0,), (1,)),
        lit("r", (a,), (0,), ()),
        lit("s", (b,), (1,), ()),
        lit("t", (a,), (0,), ()),
    )
    return BottomClause(
        seed=Struct("p", (Const("e0"),)),
        head=Struct("p", (a,)),
        literals=literals,
        head_inputs=frozenset({0}),
        head_outputs=frozenset(),
        n_vars=2,
        modes=(),
        suppliers=(0, 0b0001),
    )


def _bottom_of(
    lits: tuple[BottomLiteral, ...], n_vars: int, suppliers: tuple[int, ...]
) -> BottomClause:
    """The bottom clause of seed p(e0) with head p(A) (A an input) and these literals."""
    return BottomClause(
        Struct("p", (Const("e0"),)),
        Struct("p", (Var("A"),)),
        lits,
        frozenset({0}),
        frozenset(),
        n_vars,
        (),
        suppliers,
    )


def _tiny_context(
    incumbent: float = -np.inf, covers: dict[str, set[int]] = _COVERS
) -> SearchContext:
    labels = np.array([1] * 5 + [0] * 5, dtype=np.int8)
    return SearchContext(
        bottom=_tiny_bottom(),
        backend=_SetBackend(covers),  # type: ignore[arg-type]
        scorer=get_plugin_manager().make("scorer", "coverage"),
        weighting=Weighting(labels, np.ones(10)),
        budget=100,
        rng=random.Random(0),
        clauselength=3,
        acceptance=Acceptance(minpos=1, minacc=0.0, noise=2),
        incumbent=incumbent,
    )


def _stream(
    operator: str, incumbent: float = -np.inf, covers: dict[str, set[int]] = _COVERS
) -> tuple[list[tuple[int, ...]], object]:
    ctx, trajectory = _tiny_context(incumbent, covers), Trajectory()
    ctx.observers.append(trajectory)
    best = TopDown(TopDownOptions(operator=operator), "fifo").run(ctx)
    return [e.body for e in trajectory], (best.body if best is not None else None)


def test_aleph_operator_adds_dependents_then_later_kept_siblings() -> None:
    """Coverage (P - N), noise 2, clauselength 3, worked by hand from Aleph's operator:
    root 5/5 (not acceptable); its refinements are the literals needing only A, in order:
    {q} 4/2 = 2 (kept: no best before it; then the best), {r} 2/3 (bound P = 2 <= 2: not
    kept), {t} 4/1 = 3 (bound 4 > 2: kept; then the best). bf takes {t} first (score 3): t
    outputs nothing and no kept sibling comes after it, so no refinement. Then {q}: its
    dependent s (takes B), then its later kept sibling t -- not r, which was not kept:
    {q,s} 2/1, {q,t} 3/1. Nothing beats {t}."""
    bodies, best = _stream("aleph")
    assert bodies == [(), (0,), (1,), (3,), (0, 2), (0, 3)]
    assert best == (3,)


def test_a_clause_that_becomes_the_best_is_still_a_sibling() -> None:
    """Aleph keeps a clause as a node by its bound against the best *before* it (pos_ok runs
    before update_best). Covers: q 5/2 = 3 (kept, best), r 2/3 (bound 2 <= 3: not kept),
    t = {1,2,3,4}: 4/0 = 4 (bound 4 > 3: kept, then the best). bf pops {t} first: bound
    4 <= 4, dropped. {q} (bound 5 > 4): its dependent s gives {q,s} = {0,1,5} 2/1, and its
    later kept sibling t gives {q,t} = {1,2,3} 3/0 -- though t's own bound no longer beats
    the best, it was kept when made."""
    covers = {**_COVERS, "q": {0, 1, 2, 3, 4, 5, 6}, "t": {1, 2, 3, 4}}
    bodies, best = _stream("aleph", covers=covers)
    assert bodies == [(), (0,), (1,), (3,), (0, 2), (0, 3)]
    assert best == (3,)


def test_the_sets_operator_adds_every_legal_literal_once() -> None:
    """The same task with ilpkit's default operator: {t} is refined by every literal whose
    inputs it binds (q, r), then {q} by r and s ({q,t} was already evaluated): 8 clauses."""
    bodies, best = _stream("sets")
    assert bodies == [(), (0,), (1,), (3,), (0, 3), (1, 3), (0, 1), (0, 2)]
    assert best == (3,)


@pytest.mark.parametrize("operator", ["sets", "aleph"])
def test_a_clause_must_beat_the_incumbent(operator: str) -> None:
    """Incumbent 4 (a clause already held scoring 4): {t} scores 3 and is no rule; no
    one-literal clause has a bound (its P) above 4, so none is refined -- 4 clauses in all."""
    bodies, best = _stream(operator, incumbent=4.0)
    assert best is None
    assert bodies == [(), (0,), (1,), (3,)]


@pytest.mark.parametrize(("scorer", "expected"), [("coverage", 1.0), ("compression", 0.0)])
def test_the_seed_scores_as_aleph_start_label(
    trains: tuple[Task, NativeBackend], scorer: str, expected: float
) -> None:
    """Aleph's start label is [1, 0, 2, F]: one positive, no negative, length 2. Coverage
    P - N = 1; compression P - N - L + 1 = 1 - 0 - 2 + 1 = 0 (Aleph manual, evalfn)."""
    ctx = context(trains, 10)
    ctx.scorer = get_plugin_manager().make("scorer", scorer)
    assert seed_score(ctx, 0) == expected


class _ModedBackend(_SetBackend):
    """A backend that, like Prolog on an arithmetic built-in, refuses a clause whose literal
    comes before the literal binding its input (a one-letter literal takes its argument as
    input; q and u output their second argument)."""

    def coverage(self, clause: Clause, among: Coverage | None = None) -> Coverage:
        bound = {"A"}
        for lit in clause.body:
            args = [str(a) for a in lit.args]  # type: ignore[union-attr]
            if lit.name in ("q", "u"):  # type: ignore[union-attr]
                bound.add(args[1])
            elif not set(args) <= bound:
                raise AssertionError(f"{lit} called with an unbound input")
        return super().coverage(clause, among)


def test_an_aleph_clause_lists_its_literals_in_the_order_added() -> None:
    """Bottom clause p(A) :- q(A,B), s(B), u(A,B): u outputs B again, so s depends on u too
    though s comes first in the bottom clause. Aleph's operator refines {u} by its dependent
    s: the clause is p(A) :- u(A,B), s(B) -- in bottom-clause order s(B) would come first,
    unbound. Covers: q {0,1,2,5}, s {0,1,5}, u {0,1,3,6}; {u} 2/2, {u,s} = {0,1} 2/0."""
    a, b = Var("A"), Var("B")
    lits = (
        BottomLiteral(Struct("q", (a, b)), Struct("q", (a, b)), 0, 1, (0,), (1,)),
        BottomLiteral(Struct("s", (b,)), Struct("s", (b,)), 0, 2, (1,), ()),
        BottomLiteral(Struct("u", (a, b)), Struct("u", (a, b)), 0, 1, (0,), (1,)),
    )
    bottom = _bottom_of(lits, 2, (0, 0b101))
    covers = {"q": {0, 1, 2, 5}, "s": {0, 1, 5}, "u": {0, 1, 3, 6}}
    ctx = _tiny_context(covers=covers)
    ctx.bottom, ctx.backend = bottom, _ModedBackend(covers)  # type: ignore[assignment]
    trajectory = Trajectory()
    ctx.observers.append(trajectory)
    TopDown(TopDownOptions(operator="aleph"), "fifo").run(ctx)
    clauses = {e.body: str(e.clause) for e in trajectory}
    assert clauses[(1, 2)] == "p(A) :- u(A,B), s(B)."
    assert [e.counts.tp for e in trajectory if e.body == (1, 2)] == [2.0]


def test_a_node_refines_by_the_dependents_of_the_literal_added_last() -> None:
    """p(A) :- q(A,B), r(A,C), s(B), v(C) (0..3), every literal covering the same 4
    positives and 2 negatives (noise 0: nothing acceptable, nothing pruned; bf then takes
    clauses of one length first-made first). Worked from Aleph's operator:
    root -> {q}, {r} (need only A); {q} -> its dependent s, then its later sibling r: {q,s},
    {q,r}; {r} -> its dependent v: {r,v}; {q,s} -> (s has no dependent) its later sibling r:
    the sequence q, s, r; {q,r} -> r's dependent v; {r,v} -> nothing. Then q, s, r -> the
    dependents of r, the literal added last (not of s, last in bottom-clause order): v.
    (clauselength 5: a clause of three body literals is still refined.)"""
    a, b, c = Var("A"), Var("B"), Var("C")
    lits = (
        BottomLiteral(Struct("q", (a, b)), Struct("q", (a, b)), 0, 1, (0,), (1,)),
        BottomLiteral(Struct("r", (a, c)), Struct("r", (a, c)), 0, 1, (0,), (2,)),
        BottomLiteral(Struct("s", (b,)), Struct("s", (b,)), 0, 2, (1,), ()),
        BottomLiteral(Struct("v", (c,)), Struct("v", (c,)), 0, 2, (2,), ()),
    )
    bottom = _bottom_of(lits, 3, (0, 0b0001, 0b0010))
    same = {0, 1, 2, 3, 5, 6}
    covers = {"q": same, "r": same, "s": same, "v": same}
    ctx = _tiny_context(covers=covers)
    ctx.bottom, ctx.clauselength = bottom, 5
    ctx.acceptance = Acceptance(minpos=1, minacc=0.0, noise=0)
    trajectory = Trajectory()
    ctx.observers.append(trajectory)
    assert TopDown(TopDownOptions(operator="aleph"), "fifo").run(ctx) is None
    assert [e.body for e in trajectory] == [
        (),
        (0,),
        (1,),
        (0, 2),
        (0, 1),
        (1, 3),
        (0, 1, 2),
        (0, 1, 3),
        (0, 1, 2, 3),
    ]
