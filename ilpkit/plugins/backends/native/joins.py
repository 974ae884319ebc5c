"""Binding tables and the vectorised operations on them.

A :class:`Bindings` table holds one row per partial substitution of a clause being evaluated:
the example id the row belongs to, and an id column per bound variable.  Literals over fact
tables are joins, comparisons are filters; both are whole-array numpy operations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ilpkit.core.distinct import distinct, distinct_of_sorted
from ilpkit.plugins.backends.native.store import FactTable, Ids
from ilpkit.prolog.terms import Var


@dataclass(frozen=True)
class Bindings:
    """Partial substitutions: ``ex[r]`` is row r's example id, ``cols[v][r]`` the id of v."""

    ex: Ids
    cols: dict[Var, Ids]

    def __len__(self) -> int:
        return int(self.ex.shape[0])

    @property
    def nbytes(self) -> int:
        return int(self.ex.nbytes + sum(c.nbytes for c in self.cols.values()))

    def take(self, rows: Ids | npt.NDArray[np.bool_]) -> Bindings:
        return Bindings(self.ex[rows], {v: c[rows] for v, c in self.cols.items()})

    def restrict(self, example_ids: Ids) -> Bindings:
        """Only the rows of the given (sorted) example ids."""
        if len(self) == 0:
            return self
        return self.take(np.isin(self.ex, example_ids, assume_unique=False))

    def project(self, keep: set[Var]) -> Bindings:
        """Drop the columns not in ``keep`` and the duplicate rows that leaves."""
        names = [v for v in self.cols if v in keep]
        if len(names) == len(self.cols):
            return self
        if len(self) == 0:
            return Bindings(self.ex, {v: self.cols[v] for v in names})
        rows = distinct_rows([self.ex, *(self.cols[v] for v in names)])
        return Bindings(self.ex[rows], {v: self.cols[v][rows] for v in names})

    def covered(self) -> Ids:
        """Distinct example ids.  Rows stay in example order through every operation (joins
        repeat rows in place, filters keep order), so this is a linear scan, not a sort."""
        ex = self.ex
        if len(ex) > 1 and not (ex[1:] >= ex[:-1]).all():  # defensive: fall back to a sort
            return distinct(ex)
        return distinct_of_sorted(ex)


def distinct_rows(columns: list[Ids]) -> Ids:
    """Indices of the first occurrence of each distinct row of the given id columns.

    Columns are packed into one int64 key while the product of their ranges fits (ids are
    small non-negative integers), so this is a 1-D unique -- far faster than a row-wise one.
    """
    key = columns[0].astype(np.int64, copy=True)
    span = int(key.max()) + 1 if len(key) else 1
    for col in columns[1:]:
        width = int(col.max()) + 1 if len(col) else 1
        if span * width >= 2**62:  # would overflow: compress the key so far to dense ranks
            _, key = np.unique(key, return_inverse=True)
            key = key.reshape(-1).astype(np.int64)
            span = int(key.max()) + 1
            if span * width >= 2**62:
                stacked = np.stack(columns, axis=1)
                _, first = np.unique(stacked, axis=0, return_index=True)
                return np.sort(first)
        key = key * width + col
        span *= width
    _, first = np.unique(key, return_index=True)
    return np.sort(first)


def expand_ranges(lo: Ids, counts: Ids) -> tuple[Ids, Ids]:
    """For rows with ``counts[i]`` matches starting at ``lo[i]`` in a sorted index, the row of
    each match and its position in the index."""
    total = int(counts.sum())
    rows = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    if total == 0:
        return rows, np.zeros(0, dtype=np.int64)
    starts = np.cumsum(counts) - counts
    offsets = np.arange(total, dtype=np.int64) - np.repeat(starts, counts)
    return rows, np.repeat(lo, counts) + offsets


def join_counts(
    table: Bindings, facts: FactTable, keys: list[tuple[Var, int]]
) -> tuple[int, Ids, Ids, int]:
    """Match counts of a join on ``keys`` (variable, fact column): ``(key column, lo, counts,
    total)``, using the most selective key column for the index lookup."""
    key_var, key_col = max(keys, key=lambda vc: facts.distinct(vc[1]))
    starts = facts.key_starts(key_col)
    top = len(starts) - 1  # ids >= top do not occur in the column
    probe = np.minimum(table.cols[key_var], top)
    lo = starts[probe]
    hi = starts[np.minimum(probe + 1, top)]
    counts = hi - lo
    return key_col, lo, counts, int(counts.sum())


def join(
    table: Bindings,
    facts: FactTable,
    keys: list[tuple[Var, int]],
    new: list[tuple[Var, int]],
    equal_cols: list[tuple[int, int]],
    *,
    counts: tuple[int, Ids, Ids, int] | None = None,
) -> Bindings:
    """Join ``table`` with ``facts``.

    ``keys``: bound variables and the fact column they must equal; ``new``: unbound variables
    and the column that binds them; ``equal_cols``: pairs of fact columns that must be equal
    (a variable occurring twice among the new ones).
    """
    data = facts.data
    if equal_cols:
        mask = np.ones(len(facts), dtype=bool)
        for a, b in equal_cols:
            mask &= data[:, a] == data[:, b]
        facts = FactTable.from_array(facts.name, data[mask])
        data = facts.data
        counts = None
    if not keys:
        n, m = len(table), len(facts)
        rows = np.repeat(np.arange(n, dtype=np.int64), m)
        fact_rows = np.tile(np.arange(m, dtype=np.int64), n)
    else:
        if counts is None:
            counts = join_counts(table, facts, keys)
        key_col, lo, cnt, _ = counts
        order, _ = facts.sorted_column(key_col)
        rows, pos = expand_ranges(lo, cnt)
        fact_rows = order[pos]
        key_var = next(v for v, c in keys if c == key_col)
        others = [(v, c) for v, c in keys if not (v == key_var and c == key_col)]
        if others:
            mask = np.ones(len(rows), dtype=bool)
            for v, c in others:
                mask &= table.cols[v][rows] == data[fact_rows, c]
            rows, fact_rows = rows[mask], fact_rows[mask]
    cols = {v: c[rows] for v, c in table.cols.items()}
    for v, c in new:
        cols[v] = data[fact_rows, c]
    return Bindings(table.ex[rows], cols)


def semi_join(
    table: Bindings,
    facts: FactTable,
    keys: list[tuple[Var, int]],
    equal_cols: list[tuple[int, int]],
    chunk_rows: int,
    check: Callable[[], None] | None = None,
) -> Ids:
    """Example ids of the rows of ``table`` that have at least one matching fact
    (``check()`` is called between chunks: it raises to stop on a time or memory limit).

    Nothing is materialised but index arrays: the coverage of a refinement needs only to know
    which of its parent's rows extend, not the extended rows themselves.
    """
    if equal_cols:
        data = facts.data
        mask = np.ones(len(facts), dtype=bool)
        for a, b in equal_cols:
            mask &= data[:, a] == data[:, b]
        facts = FactTable.from_array(facts.name, data[mask])
    if len(table) == 0 or len(facts) == 0:
        return np.zeros(0, dtype=np.int64)
    if not keys:
        return distinct_of_sorted(table.ex)
    key_col, lo, counts, _ = join_counts(table, facts, keys)
    if len(keys) == 1:
        return distinct_of_sorted(table.ex[counts > 0])
    order, _ = facts.sorted_column(key_col)
    key_var = next(v for v, c in keys if c == key_col)
    others = [(v, c) for v, c in keys if not (v == key_var and c == key_col)]
    data = facts.data
    hit = np.zeros(len(table), dtype=bool)
    # bounded memory: expand at most ``chunk_rows`` matches at a time
    bounds = np.cumsum(counts)
    start = 0
    while start < len(table):
        stop = int(
            np.searchsorted(
                bounds, bounds[start - 1] + chunk_rows if start else chunk_rows, "right"
            )
        )
        stop = max(stop, start + 1)
        if check is not None:
            check()
        rows, pos = expand_ranges(lo[start:stop], counts[start:stop])
        rows += start
        fact_rows = order[pos]
        ok = np.ones(len(rows), dtype=bool)
        for v, c in others:
            ok &= table.cols[v][rows] == data[fact_rows, c]
        hit[rows[ok]] = True
        start = stop
    return distinct_of_sorted(table.ex[hit])
