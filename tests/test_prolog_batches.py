"""Batched coverage in a search and the Prolog backends' request shortcuts (issue 14, item 4).

A search asks a backend that prefers batches (the Prolog backends) for all refinements of a
node in one ``coverage_many`` call (``SearchContext.prefetch``), and a Prolog backend sends
the parent's example set once for all of them (``keep``/``last``).  Neither may change a
single answer: the search stream must be the one of clause-by-clause evaluation, and every
coverage the one the native backend computes, also after an error in between.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable, Sequence

import pytest

from ilpkit.core.coverage import Coverage, Weighting
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.refine import Refiner
from ilpkit.core.search import Acceptance, SearchContext, Trajectory
from ilpkit.core.task import Task
from ilpkit.errors import ResourceLimitExceeded
from ilpkit.plugins.backends.base import Backend
from ilpkit.plugins.backends.native.engine import NativeBackend
from ilpkit.plugins.backends.prolog.subprocess_backend import (
    AmongMemo,
    PrologEngineError,
    SubprocessBackend,
    SubprocessOptions,
    parse_ids,
)
from ilpkit.prolog.terms import Clause, Const, Struct, Var
from tests.skips import engine_missing


class Batching(NativeBackend):
    """The native backend, saying it prefers batches, counting its calls."""

    prefers_batches = True

    def __init__(self, *, fail_batches: bool = False) -> None:
        super().__init__()
        self.single = 0
        self.batches: list[int] = []
        self.fail_batches = fail_batches

    def coverage(self, clause: Clause, among: Coverage | None = None) -> Coverage:
        self.single += 1
        return super().coverage(clause, among)

    def coverage_many(
        self, clauses: Sequence[Clause], among: Coverage | None = None
    ) -> list[Coverage]:
        if self.fail_batches:
            raise ResourceLimitExceeded("a clause of the batch is over the limit")
        self.batches.append(len(clauses))
        return super().coverage_many(clauses, among)


def search(task: Task, backend: Backend, budget: int, name: str = "topdown") -> Trajectory:
    ctx = SearchContext(
        bottom=backend.saturate(0),
        backend=backend,
        scorer=get_plugin_manager().make("scorer", "laplace"),
        weighting=Weighting.of(task.examples),
        budget=budget,
        rng=random.Random(0),
        clauselength=4,
        acceptance=Acceptance(minpos=1, minacc=0.0, noise=0),
    )
    trajectory = Trajectory()
    ctx.observers.append(trajectory)
    get_plugin_manager().make("search", name, {}).run(ctx)
    return trajectory


def stream(t: Trajectory) -> list[tuple[object, ...]]:
    return [(e.body, e.coverage.tolist(), e.score, e.number, e.parent) for e in t]


@pytest.fixture(scope="module")
def trains(bundled: Callable[..., tuple[Task, NativeBackend]]) -> tuple[Task, NativeBackend]:
    return bundled("trains")


@pytest.mark.parametrize("name", ["topdown", "bf"])
@pytest.mark.parametrize("budget", [1, 2, 9, 60, 400])
def test_prefetch_leaves_the_search_stream_unchanged(
    trains: tuple[Task, NativeBackend], name: str, budget: int
) -> None:
    task, native = trains
    expected = stream(search(task, native, budget, name))
    batching = Batching()
    batching.load(task)
    got = stream(search(task, batching, budget, name))
    assert got == expected
    # the budget bounds what is asked: nothing beyond the clauses evaluated
    assert batching.single + sum(batching.batches) <= len(expected)
    if budget >= 60:
        assert batching.batches and max(batching.batches) > 1
        assert batching.single + len(batching.batches) < len(expected) / 2


def test_a_failed_batch_falls_back_to_clause_by_clause(
    trains: tuple[Task, NativeBackend],
) -> None:
    task, native = trains
    expected = stream(search(task, native, 60))
    failing = Batching(fail_batches=True)
    failing.load(task)
    assert stream(search(task, failing, 60)) == expected
    assert failing.single == len(expected)


def test_among_memo_sends_a_set_once_until_forgotten() -> None:
    a = Coverage([1, 2, 3, 7], 10)
    b = Coverage([1, 2, 3, 7], 10)  # equal, but another object: sent again
    memo = AmongMemo()
    assert memo.request_text(None) == "all"
    assert memo.request_text(a) == "keep([1-3,7-7])"
    assert memo.request_text(a) == "last"
    assert memo.request_text(Coverage([], 10)) == "[]"
    assert memo.request_text(a) == "last"  # all and [] do not replace the set kept
    assert memo.request_text(b) == "keep([1-3,7-7])"
    memo.forget()
    assert memo.request_text(b) == "keep([1-3,7-7])"


def test_parse_ids() -> None:
    assert parse_ids("").tolist() == []
    assert parse_ids("0").tolist() == [0]
    assert parse_ids("3,17,2824").tolist() == [3, 17, 2824]


# --------------------------------------------------------------------------------------------
# the engines: the same set asked about again, another set, an error in between
# --------------------------------------------------------------------------------------------


def prolog_backend(kind: str, task: Task) -> Backend:
    if kind in ("swipl", "gprolog"):
        if shutil.which(kind) is None:
            pytest.skip(engine_missing(kind))
        backend: Backend = SubprocessBackend(SubprocessOptions(engine=kind))
    else:
        from ilpkit.plugins.backends.prolog.swi_backend import SwiBackend, SwiOptions, preflight

        if not preflight("janus").ok and not preflight("pyswip").ok:
            pytest.skip("no SWI-Prolog bridge works here")
        backend = SwiBackend(SwiOptions())
    backend.load(task)
    return backend


@pytest.mark.parametrize("kind", ["swipl", "gprolog", "swi"])
def test_sets_kept_by_the_engine_give_native_answers(
    kind: str, bundled: Callable[..., tuple[Task, NativeBackend]]
) -> None:
    task, native = bundled("uwcse")
    bottom = native.saturate(int(task.examples.positives[0]))
    rng = random.Random(3)
    refiner = Refiner(bottom, None)
    clauses = [bottom.clause(refiner.random_clause(rng.randint(1, 3), rng)) for _ in range(12)]
    n = len(task.examples)
    a = Coverage(sorted(rng.sample(range(n), 700)), n)
    b = Coverage(sorted(rng.sample(range(n), 300)), n)
    head = bottom.clause(()).head
    bad = Clause(head, [Struct("is", (Var("X"), Struct("+", (Const("foo"), Const(1)))))])
    backend = prolog_backend(kind, task)
    try:
        for among in (a, a, b, a, None, a):  # keep, last, keep, keep, all, keep
            got = backend.coverage_many(clauses, among)
            assert [c.tolist() for c in got] == [
                c.tolist() for c in native.coverage_many(clauses, among)
            ]
            assert backend.coverage(clauses[3], among) == native.coverage(clauses[3], among)
        with pytest.raises(PrologEngineError):
            backend.coverage_many([clauses[0], bad], b)
        # the engine kept b; the backend must not take it for a
        got = backend.coverage_many(clauses, a)
        assert [c.tolist() for c in got] == [c.tolist() for c in native.coverage_many(clauses, a)]
        assert len({len(c) for c in got}) > 2  # the clauses differ
    finally:
        backend.close()
