"""Interned ground values and fact tables with per-column indexes.

Every ground term the engine meets (atoms, numbers, strings, ground compound terms) gets an
integer id; a predicate defined by facts becomes a table of id columns.  Joins then work on
integer arrays only.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from itertools import chain
from typing import Final

import numpy as np
import numpy.typing as npt

from ilpkit.core.distinct import distinct as distinct_ids
from ilpkit.prolog.terms import Const, Str, Struct, Term

Ids = npt.NDArray[np.int64]


class Interner:
    """Ground term <-> integer id, with the numeric value of numbers for comparisons."""

    def __init__(self) -> None:
        self.ids: dict[Term, int] = {}
        self.terms: list[Term] = []
        # grown by doubling: a search interns a new constant clause after clause
        # (``gteq(C, 0.42)``), and rebuilding the arrays each time costs O(terms)
        self._numeric = np.zeros(64, dtype=np.float64)
        self._types = np.zeros(64, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.terms)

    def id(self, term: Term) -> int:
        i = self.ids.get(term)
        if i is None:
            i = self.ids[term] = len(self.terms)
            self.terms.append(term)
            if i >= len(self._numeric):
                self._numeric = np.concatenate([self._numeric, np.zeros_like(self._numeric)])
                self._types = np.concatenate([self._types, np.zeros_like(self._types)])
            self._numeric[i] = _float(term)
            self._types[i] = type_bits(term)
        return i

    def id_array(self, rows: Sequence[tuple[Term, ...]], arity: int) -> Ids:
        """The ids of ``rows`` as an ``(len(rows), arity)`` array, interning new terms in
        order of first occurrence (as :meth:`id` one by one would).

        Readers share one object per constant, so the terms are grouped by object identity
        first: the dictionary (and the terms' ``__hash__``) sees each object once instead of
        once per cell -- the bulk of loading millions of facts.
        """
        flat = list(chain.from_iterable(rows))
        if not flat:
            return np.zeros((len(rows), arity), dtype=np.int64)
        address = np.fromiter(map(id, flat), dtype=np.uint64, count=len(flat))
        _, first, inverse = np.unique(address, return_index=True, return_inverse=True)
        ident = self.id
        ids = np.zeros(len(first), dtype=np.int64)
        for k in np.argsort(first, kind="stable").tolist():
            ids[k] = ident(flat[int(first[k])])
        return ids[inverse.reshape(-1)].reshape(len(rows), arity)

    def lookup(self, term: Term) -> int | None:
        return self.ids.get(term)

    def term(self, i: int) -> Term:
        return self.terms[i]

    def numeric(self) -> npt.NDArray[np.float64]:
        """Numeric value of every id: NaN for non-numbers, and for integers beyond 2**53,
        whose float is not their value (a comparison of floats would not be Prolog's:
        the kernel and the vectorised tests hand such values to the resolution engine)."""
        return self._numeric[: len(self.terms)]

    def types(self) -> Ids:
        """The type bits of every id (:func:`type_bits`)."""
        return self._types[: len(self.terms)]


T_INT: Final = 1
T_FLOAT: Final = 2
T_ATOM: Final = 4
T_NIL: Final = 8  # '[]', which SWI-Prolog 7 and the native engine do not count as an atom
T_STRING: Final = 16
T_COMPOUND: Final = 32
T_ANY: Final = T_INT | T_FLOAT | T_ATOM | T_NIL | T_STRING | T_COMPOUND

TYPE_TESTS: Final = {
    "var": 0,  # a value in a table is bound
    "nonvar": T_ANY,
    "ground": T_ANY,  # interned terms are ground
    "number": T_INT | T_FLOAT,
    "integer": T_INT,
    "float": T_FLOAT,
    "atom": T_ATOM,
    "atomic": T_INT | T_FLOAT | T_ATOM | T_NIL | T_STRING,
    "compound": T_COMPOUND,
    "callable": T_ATOM | T_COMPOUND,
}
"""The type tests on a ground term, as the type bits they accept (the native engine's
``builtins_core`` tests, which are SWI-Prolog's)."""


def _float(term: Term) -> float:
    """A number's value as a float; NaN for a non-number or an integer beyond 2**53."""
    value = term.value if type(term) is Const else None
    if type(value) is float:
        return value
    if type(value) is int and abs(value) <= 2**53:
        return float(value)
    return math.nan


def type_bits(term: Term) -> int:
    """What kind of ground term ``term`` is, as ``T_*`` bits."""
    if type(term) is Const:
        v = term.value
        if type(v) is int:
            return T_INT
        if type(v) is float:
            return T_FLOAT
        return T_NIL if v == "[]" else T_ATOM
    if type(term) is Struct:
        return T_COMPOUND
    return T_STRING if type(term) is Str else 0


_DENSE_FACTOR: Final = 8
_DENSE_SLACK: Final = 4096
"""A column is indexed densely (one start per id) while its largest id is at most
``_DENSE_FACTOR`` times its rows plus ``_DENSE_SLACK`` (32 KB)."""


class FactTable:
    """The ground facts of one predicate as id columns (rows in Prolog order)."""

    def __init__(self, name: str, arity: int, rows: Sequence[tuple[Term, ...]], interner: Interner):
        self.name = name
        self.arity = arity
        self.data = interner.id_array(rows, arity)
        self._sorted: dict[int, tuple[Ids, Ids]] = {}
        self._starts: dict[int, Ids] = {}
        self._selections: OrderedDict[tuple[tuple[int, int], ...], FactTable] = OrderedDict()
        self._distinct: dict[int, int] = {}

    @classmethod
    def from_array(cls, name: str, data: Ids) -> FactTable:
        table = cls.__new__(cls)
        table.name = name
        table.arity = int(data.shape[1])
        table.data = data
        table._sorted = {}
        table._starts = {}
        table._selections = OrderedDict()
        table._distinct = {}
        return table

    def __len__(self) -> int:
        return int(self.data.shape[0])

    def column(self, i: int) -> Ids:
        return self.data[:, i]

    def sorted_column(self, i: int) -> tuple[Ids, Ids]:
        """``(order, keys)``: a stable argsort of column ``i`` and the sorted keys."""
        cached = self._sorted.get(i)
        if cached is None:
            col = self.data[:, i]
            order = np.argsort(col, kind="stable")
            cached = self._sorted[i] = (order, col[order])
        return cached

    def key_starts(self, i: int) -> Ids:
        """``starts[v]``: where id ``v`` begins in the sorted column ``i`` (length max id + 2),
        so a key lookup is two array gathers instead of two binary searches."""
        starts = self._starts.get(i)
        if starts is None:
            _, keys = self.sorted_column(i)
            top = int(keys[-1]) + 1 if len(keys) else 0
            starts = np.searchsorted(keys, np.arange(top + 1, dtype=np.int64), "left")
            starts = starts.astype(np.int64)
            self._starts[i] = starts
        return starts

    def sparse(self, i: int) -> bool:
        """Whether column ``i``'s ids spread over many more values than the table has rows,
        so that :meth:`key_starts` (one cell per id up to the largest) would be mostly empty:
        a table derived over a domain (say 1,000 charges among 14,000 interned terms) then
        costs 8 bytes a row, not 8 bytes an id.  Such columns are looked up by bisection."""
        _, keys = self.sorted_column(i)
        top = int(keys[-1]) + 1 if len(keys) else 0
        return top > _DENSE_FACTOR * len(keys) + _DENSE_SLACK

    def key_count(self, i: int, v: int) -> int:
        """Rows whose column ``i`` holds id ``v``: by the dense starts when the column has
        them, else by bisection.  A planner's estimate must not build dense starts: a table
        derived for one constant (``gteq(C, 0.5)``) would get one cell per interned id in
        its constant's column, which no lookup ever reads."""
        starts = self._starts.get(i)
        if starts is None:
            _, keys = self.sorted_column(i)
            lo, hi = np.searchsorted(keys, v, "left"), np.searchsorted(keys, v, "right")
            return int(hi - lo)
        return int(starts[v + 1] - starts[v]) if v >= 0 and v + 1 < len(starts) else 0

    def distinct(self, i: int) -> int:
        n = self._distinct.get(i)
        if n is None:
            n = self._distinct[i] = len(distinct_ids(self.data[:, i])) if len(self) else 0
        return n

    def select(self, constants: tuple[tuple[int, int], ...]) -> FactTable:
        """Rows whose column ``c`` holds id ``v`` for every ``(c, v)`` (cached, small LRU)."""
        if not constants:
            return self
        table = self._selections.get(constants)
        if table is not None:
            self._selections.move_to_end(constants)
            return table
        c0, v0 = constants[0]
        order, keys = self.sorted_column(c0)
        lo, hi = np.searchsorted(keys, v0, "left"), np.searchsorted(keys, v0, "right")
        rows = np.sort(order[lo:hi])
        data = self.data[rows]
        for c, v in constants[1:]:
            data = data[data[:, c] == v]
        table = FactTable.from_array(self.name, data)
        self._selections[constants] = table
        if len(self._selections) > 256:
            self._selections.popitem(last=False)
        return table

    def rows_matching(self, bound: tuple[tuple[int, int], ...]) -> list[int]:
        """Row numbers (Prolog order) whose columns hold the given ids.

        One sorted index per column (built once by a numpy argsort) answers the many small
        lookups of saturation; with several bound columns the narrowest key range is
        filtered by the others.
        """
        if not bound:
            return list(range(len(self)))
        best: tuple[int, int] | None = None
        for c, v in bound:
            starts = self.key_starts(c)
            if v < 0 or v + 1 >= len(starts):
                return []
            lo, hi = int(starts[v]), int(starts[v + 1])
            if hi == lo:
                return []
            if best is None or hi - lo < best[1] - best[0]:
                best, column = (lo, hi), c
        assert best is not None
        order, _ = self.sorted_column(column)
        rows = order[best[0] : best[1]]  # ascending: the argsort is stable
        for c, v in bound:
            if c != column:
                rows = rows[self.data[rows, c] == v]
        return rows.tolist()  # type: ignore[no-any-return]

    def nbytes(self) -> int:
        return int(self.data.nbytes)


__all__ = ["FactTable", "Interner", "Struct"]
