"""Search strategies: budgets, legality of every evaluated clause, determinism, optimality."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest

from ilpkit.core.coverage import Weighting
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.search import Acceptance, Evaluated, SearchContext, Trajectory
from ilpkit.core.task import Task
from ilpkit.plugins.backends.native.engine import NativeBackend


@pytest.fixture(scope="module")
def trains(bundled: Callable[..., tuple[Task, NativeBackend]]) -> tuple[Task, NativeBackend]:
    return bundled("trains")


def context(
    trains: tuple[Task, NativeBackend], budget: int, seed: int = 0, scorer: str = "coverage"
) -> SearchContext:
    task, backend = trains
    return SearchContext(
        bottom=backend.saturate(0),
        backend=backend,
        scorer=get_plugin_manager().make("scorer", scorer),
        weighting=Weighting.of(task.examples),
        budget=budget,
        rng=random.Random(seed),
        clauselength=4,
        acceptance=Acceptance(minpos=1, minacc=0.0, noise=0),
    )


def run(name: str, ctx: SearchContext, **options: object) -> Trajectory:
    trajectory = Trajectory()
    ctx.observers.append(trajectory)
    get_plugin_manager().make("search", name, options).run(ctx)
    return trajectory


@pytest.mark.parametrize("name", ["topdown", "bf", "hillclimb", "rrr"])
@pytest.mark.parametrize("budget", [1, 7, 60])
def test_budget_is_never_exceeded(
    trains: tuple[Task, NativeBackend], name: str, budget: int
) -> None:
    ctx = context(trains, budget)
    trajectory = run(name, ctx)
    assert ctx.evaluated == len(trajectory) <= budget
    assert [e.number for e in trajectory] == list(range(1, len(trajectory) + 1))


@pytest.mark.parametrize("name", ["topdown", "bf", "hillclimb", "rrr"])
def test_every_evaluated_clause_is_legal_and_correctly_counted(
    trains: tuple[Task, NativeBackend], name: str
) -> None:
    _task, backend = trains
    ctx = context(trains, 300)
    for e in run(name, ctx):
        assert ctx.refiner.is_legal(e.body)
        assert e.length <= 4
        fresh = ctx.weighting.counts(backend.coverage(e.clause))
        assert (e.counts.tp, e.counts.fp) == (fresh.tp, fresh.fp)


@pytest.mark.parametrize("name", ["topdown", "bf", "hillclimb", "rrr"])
def test_same_seed_same_stream(trains: tuple[Task, NativeBackend], name: str) -> None:
    first = [e.body for e in run(name, context(trains, 200, seed=3))]
    second = [e.body for e in run(name, context(trains, 200, seed=3))]
    assert first == second


def test_rrr_depends_on_the_seed(trains: tuple[Task, NativeBackend]) -> None:
    streams = {tuple(e.body for e in run("rrr", context(trains, 100, seed=s))) for s in range(4)}
    assert len(streams) > 1


def test_rrr_restarts_after_cutoff(trains: tuple[Task, NativeBackend]) -> None:
    ctx = context(trains, 100)
    search = get_plugin_manager().make("search", "rrr", {"rrr_cutoff": 10})
    search.run(ctx)
    assert ctx.evaluated == 100
    assert search.restarts >= 10  # 100 clauses, at most 10 per restart


def test_topdown_finds_the_best_clause_of_the_space(trains: tuple[Task, NativeBackend]) -> None:
    """With an ample budget, best-first search returns the best acceptable clause of length
    <= 4 in the whole bottom clause (enumerated here by brute force)."""
    _task, backend = trains
    ctx = context(trains, 100_000)
    best = get_plugin_manager().make("search", "topdown", {"expand_zero_fp": True}).run(ctx)
    assert best is not None
    refiner = ctx.refiner
    scorer = ctx.scorer
    top = None
    for size in range(0, 4):
        for body in itertools.combinations(range(len(ctx.bottom)), size):
            if not refiner.is_legal(body):
                continue
            counts = ctx.weighting.counts(backend.coverage(ctx.bottom.clause(body)))
            if not ctx.acceptance.ok(counts):
                continue
            score = scorer.score(counts, size + 1)
            if top is None or score > top:
                top = score
    assert best.score == top
    # the classic answer: has_car(A,B), short(B), closed(B) covers the 5 eastbound trains only
    assert (best.counts.tp, best.counts.fp) == (5.0, 0.0)


def test_hillclimb_trajectory_improves_monotonically(trains: tuple[Task, NativeBackend]) -> None:
    ctx = context(trains, 1000, scorer="laplace")
    search = get_plugin_manager().make("search", "hillclimb")
    best = search.run(ctx)
    scores = [e.score for e in search.trajectory]
    assert scores == sorted(scores) and len(set(scores)) == len(scores)
    assert best is search.trajectory[-1]
    assert search.trajectory[0].body == ()
    bodies = [set(e.body) for e in search.trajectory]
    assert all(a < b and len(b) == len(a) + 1 for a, b in itertools.pairwise(bodies))


@pytest.fixture(scope="module")
def uwcse(bundled: Callable[..., tuple[Task, NativeBackend]]) -> tuple[Task, NativeBackend]:
    return bundled("uwcse", i=2)


@pytest.mark.parametrize(("budget", "moves"), [(3, 0), (7, 1), (16, 2), (60, 2)])
def test_hillclimb_moves_to_the_best_addition_of_a_step_the_budget_cut_short(
    uwcse: tuple[Task, NativeBackend], budget: int, moves: int
) -> None:
    task, backend = uwcse
    ctx = SearchContext(
        bottom=backend.saturate(int(task.examples.positives[0]), depth=2),
        backend=backend,
        scorer=get_plugin_manager().make("scorer", "pr"),
        weighting=Weighting.of(task.examples),
        budget=budget,
        rng=random.Random(0),
        clauselength=5,
    )
    search = get_plugin_manager().make("search", "hillclimb")
    seen = Trajectory()
    ctx.observers.append(seen)
    search.run(ctx)
    evaluated = seen.items
    assert len(evaluated) <= budget
    # replay the climb on what was evaluated: a step's additions extend the clause moved to;
    # the last step may be partial, and the climb still moves on an improvement in it
    expected = [evaluated[0]]
    step: list[Evaluated] = []
    for e in evaluated[1:]:
        if step and len(e.body) > len(step[0].body):  # the next step began: settle this one
            expected.append(max(step, key=lambda c: c.score))
            step = []
        step.append(e)
    if step and max(c.score for c in step) > expected[-1].score:
        expected.append(max(step, key=lambda c: c.score))
    assert [t.body for t in search.trajectory] == [e.body for e in expected]
    # 7 ends inside the first step, 16 inside
    # the second: the move of the cut step is kept; 60 lets the climb end by itself
    assert len(search.trajectory) == 1 + moves
    assert (len(evaluated) == budget) == (budget < 60)


def test_refinements_are_tested_on_the_parent_coverage_only(
    trains: tuple[Task, NativeBackend],
) -> None:
    ctx = context(trains, 200)
    trajectory = run("topdown", ctx)
    by_body = {e.body: e for e in trajectory}
    for e in trajectory:
        for parent_body, parent in by_body.items():
            if set(parent_body) < set(e.body):
                assert e.coverage.issubset(parent.coverage)
