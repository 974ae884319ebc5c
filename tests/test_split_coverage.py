"""Coverage through independent parts (``ilpkit.core.split_coverage``): the parts of a clause,
the same coverage as the whole clause, limits counted rather than raised, and the memo kept on
a loaded backend across folds."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import ilpkit
from ilpkit.core.coverage import Coverage
from ilpkit.core.learner import parse_clause
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.split_coverage import (
    SplitCoverage,
    backend_memo,
    independent_parts,
    part_clauses,
)
from ilpkit.errors import ResourceLimitExceeded
from ilpkit.plugins.search.random_rules import RandomRuleGenerator, restrict_bias
from ilpkit.prolog.terms import Clause

CHEAP = "atm,bond,gteq,lteq,lumo,logp,nitro,methyl"
"""Mutagenesis without the ring predicates, whose first evaluation costs the native engine
tens of CPU seconds (tests/test_r4f_every_backend.py runs every mode)."""


def test_parts_by_hand() -> None:
    # body positions: 0 atm(A,B,..,C)  1 ring_size_6(A,D)  2 bond(A,B,E,1)  3 gteq(C,0.1)
    # 4 ring_size_5(A,F)  5 member(G,D): B links 0-2, C links 0-3, D links 1-5; A is the head's
    clause = parse_clause(
        "active(A) :- atm(A,B,c,22,C), ring_size_6(A,D), bond(A,B,E,1), gteq(C,0.1), "
        "ring_size_5(A,F), member(G,D)."
    )
    assert independent_parts(clause) == [[0, 2, 3], [1, 5], [4]]
    assert [str(c) for c in part_clauses(clause)] == [
        "active(A) :- atm(A,B,c,22,C), bond(A,B,D,1), gteq(C,0.1).",
        "active(A) :- ring_size_6(A,B), member(C,B).",
        "active(A) :- ring_size_5(A,B).",
    ]
    # a literal with only head variables (or none) is a part of its own
    assert independent_parts(parse_clause("p(A) :- q(A), r(A,B), s(B), t.")) == [[0], [1, 2], [3]]


def loaded() -> tuple[Any, Any]:
    task = ilpkit.load_task("mutagenesis")
    backend = get_plugin_manager().make("backend", "native", {})
    backend.load(task)
    return task, backend


def test_split_coverage_is_the_whole_clauses_coverage() -> None:
    task, backend = loaded()
    n = len(task.examples)
    among = Coverage(np.arange(0, n, 2), n)
    texts = [
        "active(A) :- atm(A,B,c,22,C), bond(A,B,D,7), atm(A,E,o,40,F).",
        "active(A) :- atm(A,B,n,38,C), atm(A,D,o,40,E), gteq(E,-0.4).",
        "active(A) :- bond(A,B,C,7), atm(A,D,cl,93,E).",
        "active(A) :- lumo(A,B), lteq(B,-1.9), logp(A,C), gteq(C,2.0).",
        "active(A) :- atm(A,B,c,22,C), nitro(A,D).",
        "active(A) :- methyl(A,B), atm(A,C,h,3,D).",
    ]
    clauses = [parse_clause(t) for t in texts]
    split = SplitCoverage(backend, among)
    got = split.coverage_many(clauses)
    want = backend.coverage_many(clauses, among)
    assert got == want
    # atm(A,B,c,22,C) appears in two clauses' parts, but only as part of bigger parts; the
    # parts "atm(A,B,o,40,C)" is asked once though both clause 1 and 3 hold it
    assert split.asked == len({str(p) for c in clauses for p in part_clauses(c)})
    again = split.coverage_many(clauses)
    assert again == want and split.asked == len({str(p) for c in clauses for p in part_clauses(c)})


class LimitedBackend:
    """Covers example e by ``p(e)`` parts; any part with ``slow`` exceeds the limit."""

    n_examples = 4

    def __init__(self) -> None:
        self.batches = 0
        self.single: list[str] = []
        self.limits_exceeded = 0
        self.first_limit_message = ""

    def _cover(self, clause: Clause) -> Coverage:
        if any("slow" in str(lit) for lit in clause.body):
            raise ResourceLimitExceeded(f"limit on {clause}")
        return Coverage([1, 2], 4) if "q" in str(clause) else Coverage([2, 3], 4)

    def coverage_many(self, clauses: Sequence[Clause], among: Coverage | None) -> list[Coverage]:
        self.batches += 1
        return [self._cover(c) for c in clauses]

    def coverage(self, clause: Clause, among: Coverage | None) -> Coverage:
        self.single.append(str(clause))
        return self._cover(clause)


def test_a_part_over_the_limit_is_counted_remembered_and_not_asked_again() -> None:
    backend = LimitedBackend()
    split = SplitCoverage(backend, Coverage.full(4))
    c1 = parse_clause("p(A) :- q(A,B), r(A,C).")  # parts q (covers 1,2) and r (covers 2,3)
    c2 = parse_clause("p(A) :- q(A,B), slow(A,C).")
    got = split.coverage_many([c1, c2])
    assert got[0] == Coverage([2], 4)  # {1,2} & {2,3}, by hand
    assert got[1] is None
    assert split.over_limit == 1 and backend.limits_exceeded == 1
    assert "slow" in backend.first_limit_message
    # the batch failed, so each new part was asked alone once (q, r, slow)
    assert sorted(backend.single) == sorted(
        ["p(A) :- q(A,B).", "p(A) :- r(A,B).", "p(A) :- slow(A,B)."]
    )
    batches = backend.batches
    assert split.coverage_many([c2]) == [None]  # remembered: no new question
    assert backend.batches == batches and backend.limits_exceeded == 1


def test_the_memo_on_the_backend_serves_the_next_fold_and_is_dropped_on_reload() -> None:
    task, backend = loaded()
    train = task.examples.ids[::3].astype(np.int64)

    def generator() -> RandomRuleGenerator:
        bias = restrict_bias(task.bias, CHEAP)
        return RandomRuleGenerator(backend, bias, train, random.Random(1), clauselength=4, depth=2)

    first = generator()
    rules = [first.next() for _ in range(15)]
    assert first.saturated > 0 and first.split.asked > 0
    second = generator()  # the same stream: every seed and part is known
    again = [second.next() for _ in range(15)]
    assert second.saturated == 0 and second.split.asked == 0
    assert [r.coverage for r in again] == [r.coverage for r in rules]
    memo = backend_memo(backend)
    assert memo is not None and memo.parts
    backend.load(ilpkit.load_task("mutagenesis"))  # another task: a fresh memo
    fresh = backend_memo(backend)
    assert fresh is not None and fresh is not memo and not fresh.parts


def test_a_backend_without_a_loaded_task_gets_no_memo() -> None:
    backend = get_plugin_manager().make("backend", "native", {})
    assert backend_memo(backend) is None
    assert backend_memo(LimitedBackend()) is None


@pytest.mark.parametrize("prefixes", [True, False])
def test_generator_coverage_is_the_whole_clause_coverage(prefixes: bool) -> None:
    task, backend = loaded()
    train = task.examples.ids.astype(np.int64)
    bias = restrict_bias(task.bias, CHEAP)
    gen = RandomRuleGenerator(
        backend, bias, train, random.Random(7), clauselength=5, depth=2, prefixes=prefixes
    )
    for _ in range(10):
        rule = gen.next()
        asked = list(rule.prefixes) if prefixes else [rule.clause]
        assert list(rule.coverage) == backend.coverage_many(asked, gen.among)


def test_explain_says_how_many_rules_a_limit_dropped() -> None:
    from rich.console import Console

    from ilpkit.plugins.learners.forest import ForestModel

    model = ForestModel("r4f", [], [], info={"rules_generated": 10, "rules_over_limit": 2})
    console = Console(record=True, width=300)
    console.print(model.explain_table("r4f"))
    assert "2 rules dropped because a part exceeded" in console.export_text()
