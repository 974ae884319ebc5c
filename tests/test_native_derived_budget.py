"""The budget of tables derived for the kernel (``NativeOptions.derived_mb``).

A search meets a new constant in clause after clause (carcinogenesis' ``gteq(C, 0.42)``), and
each is a table of its own; without a bound they are kept for the whole run.  Here: what the
kernel store counts (hand-computed byte sizes), that a planner's estimate builds no dense
index, that dropping the tables changes no coverage (hand-checked answers and real data), and
that a clause needing more than the budget doubles it instead of deriving anew every call.
"""

from __future__ import annotations

import numpy as np
import pytest

from ilpkit.core.formats import load_task
from ilpkit.plugins.backends.native import kernel_cover
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.plugins.backends.native.plan import KernelStore
from ilpkit.plugins.backends.native.store import FactTable
from ilpkit.prolog.terms import Clause
from tests.reference_prover import term
from tests.test_native_derived import CARCINOGENESIS, PROGRAM, clauses_of, task_of


def table(rows: list[list[int]]) -> FactTable:
    return FactTable.from_array("t", np.array(rows, dtype=np.int64))


def test_the_store_counts_only_tables_that_do_not_last() -> None:
    lasting = table([[1, 2], [3, 4]])
    derived = table([[5, 9], [3, 9], [5, 9]])
    store = KernelStore([lasting])
    store.tab(lasting)
    store.index(lasting, 0)
    assert store.transient_bytes == 0
    store.tab(derived)  # 3 x 2 ids of 8 bytes, held by the table and copied: 2 x 48
    assert store.transient_bytes == 96
    # column 0 = [5, 3, 5]: order 3 x 8 (the table's and the copy), keys 3 x 8, and dense
    # starts for ids 0..6 (largest id 5, plus two): 7 x 8 (the table's and the copy)
    store.index(derived, 0)
    assert store.transient_bytes == 96 + 2 * 24 + 24 + 2 * 56
    store.index(derived, 0)  # registered once
    store.tab(derived)
    assert store.transient_bytes == 96 + 184


def test_a_key_count_builds_no_dense_starts() -> None:
    t = table([[7, 1], [2, 1], [7, 3]])
    assert t.key_count(0, 7) == 2
    assert t.key_count(0, 5) == 0
    assert t.key_count(1, 1) == 2
    assert t._starts == {}  # estimates bisect the sorted column
    t.key_starts(0)
    assert (t.key_count(0, 7), t.key_count(0, 2), t.key_count(0, 100)) == (2, 1, 0)


# h(M) :- symbond(M, A, B, 1), val(B, V), gteq(V, K).  symbond with type 1: m1's a-b both
# ways, so B in {a, b} and V in {1, 2}; m2's x, y have no val.  h(m1) holds iff K =< 2.
THRESHOLDS = {0: [0], 1: [0], 1.5: [0], 2: [0], 2.5: [], 3: []}


def gteq_clause(k: float) -> Clause:
    return Clause(
        term("h(M)"), (term("symbond(M, A, B, 1)"), term("val(B, V)"), term(f"gteq(V, {k})"))
    )


def test_dropping_the_derived_tables_changes_no_coverage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel_cover, "_DROP_EVERY", 1)
    backend = NativeBackend(NativeOptions(kernel=True, derive_tuples=0, derived_mb=1e-6))
    backend.load(task_of(PROGRAM))
    backend._unfold = backend._ask = False  # gteq(V, K) as a derived table, not in the kernel
    for _ in range(3):
        for k, expected in THRESHOLDS.items():
            assert backend.coverage(gteq_clause(k)).tolist() == expected
            backend.cache.clear()  # no cached binding table: the kernel answers each time
    # the kernel ran every clause but gteq(V, 3), whose constant no answer holds: no plan
    assert backend.stats.get("kernel", 0) == 3 * (len(THRESHOLDS) - 1)
    assert backend.stats.get("derived_drops", 0) >= 10


def test_a_clause_over_the_budget_doubles_it_instead_of_deriving_every_call() -> None:
    backend = NativeBackend(
        NativeOptions(kernel=True, derive_tuples=0, derived_mb=1e-6)
    )  # one byte
    backend.load(task_of(PROGRAM))
    for _ in range(40):
        assert backend.coverage(gteq_clause(1.5)).tolist() == [0]
        backend.cache.clear()
    # the second call drops the first call's tables; then every call within _DROP_EVERY of
    # that drop doubles the budget, until it holds the clause's tables
    assert backend.stats.get("derived_drops", 0) == 1
    assert backend.kstore.transient_bytes <= backend._derived_limit


def test_real_data_covers_the_same_with_tables_dropped_every_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not CARCINOGENESIS.is_dir():
        pytest.skip(f"{CARCINOGENESIS} not found")
    task = load_task(CARCINOGENESIS)
    probe = NativeBackend(NativeOptions(kernel=True))
    probe.load(task)
    clauses = clauses_of(task, probe, 20, 17)
    kept = NativeBackend(NativeOptions(kernel=True, derived_mb=1e6))
    kept.load(task)
    monkeypatch.setattr(kernel_cover, "_DROP_EVERY", 0)
    dropping = NativeBackend(NativeOptions(kernel=True, derived_mb=0))
    dropping.load(task)
    assert [dropping.coverage(cl).tolist() for cl in clauses] == [
        kept.coverage(cl).tolist() for cl in clauses
    ]
    assert kept.stats.get("derived_drops", 0) == 0
    assert dropping.stats.get("derived_drops", 0) >= 2  # each clause with a derived literal
