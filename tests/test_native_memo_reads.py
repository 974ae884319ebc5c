"""A kernel part whose answers are all in its memo is read there, without calling the kernel
(``kernel_cover._run_part``).  Expected sets are worked out by hand from the facts (Prolog's
meaning of ``\\+ \\+ (Head = E, Body)``), not copied from any backend's output."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ilpkit.core.coverage import Coverage
from ilpkit.plugins.backends.native import ask, kernel_cover, plan
from ilpkit.plugins.backends.native import kernels as K
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.plugins.backends.native.plan import HeadIndex
from ilpkit.prolog.terms import Clause
from tests.reference_prover import make_task, term

pytestmark = pytest.mark.skipif(not K.HAVE_COMPILED, reason="numba is not installed")

TASK = make_task(
    ["parent(ann, bob)", "parent(bob, cid)", "parent(cid, dan)", "female(ann)", "female(cid)"],
    # examples 0-3 in this order
    pos=["m(ann)", "m(bob)"],
    neg=["m(cid)", "m(dan)"],
)


def backend() -> NativeBackend:
    b = NativeBackend(NativeOptions(kernel=True))
    b.load(TASK)
    return b


def counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the kernel calls (rows per call)."""
    calls: list[int] = []
    real = plan.run_plan

    def run_plan(plan: Any, head: Any, rows: Any, *rest: Any) -> Any:
        calls.append(len(rows))
        return real(plan, head, rows, *rest)

    monkeypatch.setattr(ask, "run_plan", run_plan)  # the kernel is run from ask._run_asking
    return calls


def cov(b: NativeBackend, text: str, among: list[int] | None = None) -> list[int]:
    sub = None if among is None else Coverage(np.array(among, dtype=np.int64), 4)
    return b.coverage(Clause.from_term(term(text)), sub).tolist()


def test_known_answers_are_read_from_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counting(monkeypatch)
    b = backend()
    # parent(X, Y), female(Y): ann -> bob (no), bob -> cid (yes), cid -> dan (no), dan: none
    assert cov(b, "m(X) :- parent(X, Y), female(Y)") == [1]
    assert calls == [4]
    # the same part again, on all rows and on a subset: no kernel call
    assert cov(b, "m(X) :- parent(X, Y), female(Y)") == [1]
    assert cov(b, "m(X) :- parent(X, Y), female(Y)", [0, 1]) == [1]
    assert calls == [4]
    # a variant of the part (other variable names) has the same memo
    assert cov(b, "m(A) :- parent(A, B), female(B)", [1, 2, 3]) == [1]
    assert calls == [4]


def test_a_part_with_unknown_rows_goes_to_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counting(monkeypatch)
    b = backend()
    # female(X): ann, cid -> examples 0, 2; first asked for examples 0 and 1 only
    assert cov(b, "m(X) :- female(X)", [0, 1]) == [0]
    # examples 2, 3 are not in the memo yet: the kernel runs (and answers them)
    assert cov(b, "m(X) :- female(X)") == [0, 2]
    assert calls == [2, 4]
    # now every row is known; a clause of two parts runs neither
    # parent(X, _): ann, bob, cid -> 0, 1, 2; with female(X): 0, 2
    assert cov(b, "m(X) :- parent(X, Y)") == [0, 1, 2]
    assert calls == [2, 4, 4]
    assert cov(b, "m(X) :- parent(X, Y), female(X)") == [0, 2]
    assert calls == [2, 4, 4]


def test_memo_keys_are_the_ranks_of_the_head_columns_times_their_strides() -> None:
    hix = HeadIndex.__new__(HeadIndex)
    hix.arity = 3
    # ranks of rows 0, 1, 2 (three head columns each); columns have 3, 3 and 4 values
    hix.ranks = np.array([0, 1, 2, 1, 0, 3, 2, 2, 0], dtype=np.int64)
    hix.dims = [3, 3, 4]
    hix._row_keys = {}
    # columns (2, 0): strides (3, 1), row-major over column 0's three values
    assert hix.strides([2, 0]).tolist() == [3, 1]
    # row 0: 2 * 3 + 0 = 6; row 1: 3 * 3 + 1 = 10; row 2: 0 * 3 + 2 = 2
    assert hix.row_keys([2, 0]).tolist() == [6, 10, 2]
    assert hix.row_keys([1]).tolist() == [1, 0, 2]  # one column: its rank (stride 1)
    assert hix.row_keys([]).tolist() == [0, 0, 0]  # no head column: the one entry
    assert hix.strides([0, 1, 2]).tolist() == [12, 4, 1]
    # columns (0, 1, 2): 0*12+1*4+2 = 6, 1*12+0*4+3 = 15, 2*12+2*4+0 = 32
    assert hix.row_keys([0, 1, 2]).tolist() == [6, 15, 32]

    class P:
        row_keys = hix.row_keys([2, 0])

    rows = np.array([0, 2], dtype=np.int64)
    assert kernel_cover._memo_keys(hix, P(), rows).tolist() == [6, 2]  # type: ignore[arg-type]
