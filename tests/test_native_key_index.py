"""The multi-column fact index of the set-at-a-time evaluator (``native/key_index.py``).

Expected rows and answers below are written by hand from the definitions: a probe matches
the relation rows whose indexed columns all equal its values, listed in relation order, and a
call's answers are SLD resolution's (Prolog order, with duplicates).
"""

from __future__ import annotations

import numpy as np
import pytest

from ilpkit.core.task import Program
from ilpkit.plugins.backends.native import key_index, vectorised
from ilpkit.plugins.backends.native.key_index import KeyIndex
from ilpkit.plugins.backends.native.resolution import ResolutionEngine
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause

REL = np.array(
    [
        [1, 10, 100],  # row 0
        [2, 10, 101],  # row 1
        [1, 11, 102],  # row 2
        [1, 10, 103],  # row 3
        [2, 11, 104],  # row 4
        [1, 10, 100],  # row 5 (a repeat of row 0)
    ],
    dtype=np.int64,
)


def matches(idx: KeyIndex, probes: list[list[int]]) -> list[list[int]]:
    lo, hi = idx.bounds([np.array(p, dtype=np.int64) for p in probes])
    return [idx.order[a:b].tolist() for a, b in zip(lo.tolist(), hi.tolist(), strict=True)]


def test_two_columns_give_exactly_the_matching_rows_in_relation_order() -> None:
    idx = KeyIndex(REL, (0, 1))
    assert idx.cols == (0, 1)
    # probes (1, 10), (2, 11), (2, 10), (1, 12): rows 0, 3, 5 | 4 | 1 | none
    got = matches(idx, [[1, 2, 2, 1], [10, 11, 10, 12]])
    assert got == [[0, 3, 5], [4], [1], []]


def test_a_value_absent_from_one_column_matches_nothing() -> None:
    idx = KeyIndex(REL, (1, 0))
    # (10, 7): drug 7 is in no row; (99, 1): 99 in no row; (11, 1): row 2
    assert matches(idx, [[10, 99, 11], [7, 1, 1]]) == [[], [], [2]]


def test_one_column_is_the_plain_sorted_index() -> None:
    idx = KeyIndex(REL, (2,))
    assert matches(idx, [[100, 104, 105]]) == [[0, 5], [4], []]


def test_an_empty_relation_matches_nothing() -> None:
    idx = KeyIndex(np.zeros((0, 3), dtype=np.int64), (0, 1))
    assert matches(idx, [[1, 2], [10, 10]]) == [[], []]


def test_columns_whose_codes_would_overflow_are_left_to_the_caller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 4 distinct values per column: 4 * 4 * 4 = 64 codes fit in the real limit (2**62) ...
    big = np.arange(4, dtype=np.int64).reshape(4, 1).repeat(3, axis=1)
    idx = KeyIndex(big, (0, 1, 2))
    assert idx.cols == (0, 1, 2)
    assert idx.strides == [16, 4, 1]
    # ... but with a limit of 20 only the first two columns (16 codes) are packed
    monkeypatch.setattr(key_index, "_PACK_LIMIT", 20)
    idx = KeyIndex(big, (0, 1, 2))
    assert idx.cols == (0, 1)
    assert matches(idx, [[3, 3], [3, 2]]) == [[3], []]


def test_a_join_filters_the_columns_the_index_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(key_index, "_PACK_LIMIT", 2)  # one column per index
    ev = vectorised.Evaluator(engine())
    got = ev.answers("p", [None, None])
    assert got == [("a", "x"), ("a", "w"), ("a", "x"), ("b", "y"), ("a", "z")]


PROGRAM = """
e(a, 1, x).
e(b, 1, y).
e(a, 2, z).
e(a, 1, w).
e(a, 1, x).
q(a, 1).
q(b, 1).
q(a, 2).
q(c, 1).
p(K, V) :- q(K, N), e(K, N, V).
"""


def engine() -> ResolutionEngine:
    prog = Program()
    for rt in PrologReader().read_text(PROGRAM, "k.pl"):
        prog.add_clause(Clause.from_term(rt.term), rt.location)
    return ResolutionEngine(prog)


def test_a_join_on_two_bound_columns_keeps_prolog_order_and_duplicates() -> None:
    # SLD: q(a,1) -> e(a,1,x), e(a,1,w), e(a,1,x); q(b,1) -> e(b,1,y); q(a,2) -> e(a,2,z);
    # q(c,1) -> nothing
    ev = vectorised.Evaluator(engine())
    got = ev.answers("p", [None, None])
    assert got == [("a", "x"), ("a", "w"), ("a", "x"), ("b", "y"), ("a", "z")]
    # the index was built on both bound columns of e/3
    assert any(idx.cols == (0, 1) for idx in ev._sorted.values())


def test_a_join_with_one_bound_argument_as_before() -> None:
    ev = vectorised.Evaluator(engine())
    assert ev.answers("p", ["a", None]) == [("a", "x"), ("a", "w"), ("a", "x"), ("a", "z")]
    assert ev.answers("e", [None, 1, None]) == [
        ("a", 1, "x"),
        ("b", 1, "y"),
        ("a", 1, "w"),
        ("a", 1, "x"),
    ]
