"""Demand-driven tables of rule-defined literals (``native/demand.py``).

A literal whose inputs are head variables, over a predicate that starts with ground facts, is
decided on those facts first; the complete answers are computed only for the inputs of the
examples the facts leave undecided.  Expected coverage below is written by hand from the
Prolog meaning of each program (an example is covered when some answer of the body exists),
and checked against the same backend with ``demand=false`` (complete tables for every input).
"""

from __future__ import annotations

import numpy as np
import pytest

from ilpkit.core.coverage import Coverage
from ilpkit.core.task import Program, Task
from ilpkit.plugins.backends.native.demand import DemandTable, leading_facts
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause
from tests.reference_prover import make_task, term

PROGRAM = """
q(a, y1).
q(c, y3).
q(b, x2).
r(y1).
r(y3).
p(a, x1).
p(b, x2).
p(D, R) :- q(D, R).
cut(a, x1).
cut(D, _) :- D == b, !, fail.
cut(b, x9).
cut(c, x3).
first_rule(D, R) :- q(D, R).
first_rule(e, z).
w(b, y9).
w(D, R) :- q(D, R), R \\== x2.
v(a, x1).
v(D, R) :- var(R), q(D, R).
"""
EXAMPLES = ["h(a)", "h(b)", "h(c)", "h(d)"]


def task_of() -> Task:
    prog = Program()
    for rt in PrologReader().read_text(PROGRAM, "demand.pl"):
        prog.add_clause(Clause.from_term(rt.term), rt.location)
    shell = make_task([], pos=EXAMPLES[:2], neg=EXAMPLES[2:])
    return Task(
        name="demand", format="test", program=prog, examples=shell.examples, bias=shell.bias
    )


def backend(demand: bool = True) -> NativeBackend:
    b = NativeBackend(NativeOptions(kernel=True, demand=demand))
    b.load(task_of())
    return b


def covered(b: NativeBackend, text: str, among: list[int] | None = None) -> set[str]:
    clause = Clause.from_term(term(text))
    sub = None if among is None else Coverage(np.array(among, dtype=np.int64), len(EXAMPLES))
    return {EXAMPLES[i][2] for i in b.coverage(clause, sub).ids.tolist()}


# (clause, covered drugs): written from the program's meaning
CASES = [
    # p's answers: a -> x1 (fact), y1 (rule); b -> x2 (fact and rule); c -> y3 (rule); d none
    ("h(D) :- p(D, R)", {"a", "b", "c"}),
    ("h(D) :- p(D, R), r(R)", {"a", "c"}),  # a only through its rule answer y1
    ("h(D) :- p(D, x2)", {"b"}),
    ("h(D) :- p(D, y3)", {"c"}),
    # cut/2: a -> x1; b -> none (the rule cuts away cut(b, x9) and fails); c -> x3
    ("h(D) :- cut(D, R)", {"a", "c"}),
    ("h(D) :- cut(D, x9)", set()),
    # a rule first: no leading facts, the complete table as before
    ("h(D) :- first_rule(D, R)", {"a", "b", "c"}),
    # w(D, R) with R bound by p: a widened table (the call with R free, joined on R).
    # w's answers: a -> y1; b -> y9 (fact; x2 fails the rule's test); c -> y3
    ("h(D) :- p(D, R), w(D, R)", {"a", "c"}),
    # v(D, R) with R bound: the rule's var(R) fails, so only the fact v(a, x1) answers;
    # with R free it would answer q's rows too -- strict mode must refuse the widening
    ("h(D) :- p(D, R), v(D, R)", {"a"}),
    ("h(D) :- v(D, R)", {"a", "b", "c"}),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_demand_driven_coverage_matches_hand_results(text: str, expected: set[str]) -> None:
    assert covered(backend(), text) == expected
    assert covered(backend(demand=False), text) == expected


def test_only_undecided_inputs_are_completed() -> None:
    b = backend()
    assert covered(b, "h(D) :- p(D, R)") == {"a", "b", "c"}
    # a and b are proved by p's leading facts: only c and d need p's complete answers
    assert b.stats["demand_inputs"] == 2
    assert covered(b, "h(D) :- p(D, R), r(R)") == {"a", "c"}
    # a is now undecided on its fact x1 (not in r): completed; b's fact x2 fails r too
    assert b.stats["demand_inputs"] == 4
    # the grown table serves a clause seen before, and the kept answers of its part
    assert covered(b, "h(D) :- p(D, R)") == {"a", "b", "c"}
    assert covered(b, "h(D) :- p(D, R), r(R)") == {"a", "c"}
    assert b.stats["demand_inputs"] == 4


def test_a_subset_of_examples_first_then_all() -> None:
    b = backend()
    assert covered(b, "h(D) :- p(D, R), r(R)", among=[1, 3]) == set()  # b, d
    # the answers kept for b and d are final; a and c are decided now
    assert covered(b, "h(D) :- p(D, R), r(R)") == {"a", "c"}


def test_leading_facts_stop_at_the_first_other_clause() -> None:
    # per clause: interned arguments of a ground fact, None for anything else
    facts = [(1, 2), (3, 4), None, (5, 6)]
    got = leading_facts(facts, 2, [])
    assert got is not None and got.tolist() == [[1, 2], [3, 4]]
    got = leading_facts(facts, 2, [(1, 4)])
    assert got is not None and got.tolist() == [[3, 4]]
    assert leading_facts([None, (1, 2)], 2, []) is None
    empty = leading_facts(facts, 2, [(0, 9)])
    assert empty is not None and empty.shape == (0, 2)


def test_demand_table_replaces_the_facts_of_completed_inputs() -> None:
    # literal p(+D, -R): input position 0 reads head column 0
    table = DemandTable("p", [(0, 0)], np.array([[1, 10], [2, 20]], dtype=np.int64))
    head = np.array([[1], [2], [3]], dtype=np.int64)
    assert table.missing(head) == [(1,), (2,), (3,)]
    table.add([((1,), np.array([[1, 10], [1, 11]])), ((3,), np.zeros((0, 2), dtype=np.int64))])
    assert table.version == 1
    assert table.missing(head) == [(2,)]
    # input 2 keeps its fact; input 1 has its complete answers (the fact once); 3 has none
    assert sorted(map(tuple, table.table.data.tolist())) == [(1, 10), (1, 11), (2, 20)]


def test_widened_tables_only_where_strict_mode_allows() -> None:
    b = backend()
    assert covered(b, "h(D) :- p(D, R), w(D, R)") == {"a", "c"}
    widened = [d for d in b._demands.values() if d is not None and id(d) in b._strict]
    assert [d.name for d in widened] == ["w"] and not widened[0].broken
    assert covered(b, "h(D) :- p(D, R), v(D, R)") == {"a"}
    refused = [d for d in b._demands.values() if d is not None and d.name == "v"]
    assert len(refused) == 1 and refused[0].broken  # var(R): the widening is refused
