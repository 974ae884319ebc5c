"""The values, states and built-in tables of the set-at-a-time evaluator
(:mod:`~ilpkit.plugins.backends.native.vectorised`): kept apart to keep modules small."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cmp_to_key
from typing import Any, Final

import numpy as np
import numpy.typing as npt

Ids = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]
RT = Any  # a runtime term of the resolution engine (str, int, float, Str, tuple)

MAX_DEPTH: Final = 64
MAX_ROWS: Final = 20_000_000
CHUNK_ROWS: Final = 1 << 17
"""Rows of partial proofs the evaluator builds in one numpy step before it splits a
conjunction's rows into chunks (:meth:`~ilpkit.plugins.backends.native.vectorised.Evaluator._conj`):
an exhaustive search's tables (mutagenesis' 6-subsets of a drug's atoms joined with
``atm/5``: 4M rows x a dozen columns) then never exist at once.  Chosen by measurement
(``benchmarks/README.md``, "Demand-driven tables"): large enough that numpy's per-call
cost stays small, small enough that a step's arrays are a few tens of MB."""


class Unsupported(Exception):
    """The call is outside the fragment (``static``: whatever the argument values)."""

    def __init__(self, why: str, static: bool = True) -> None:
        super().__init__(why)
        self.static = static


class _TooMany(Exception):
    """A step would build more than the chunk size's rows (``rows`` of them): the innermost
    conjunction that can split its rows catches it and runs the rest chunk by chunk."""

    def __init__(self, rows: int) -> None:
        super().__init__(f"{rows} rows")
        self.rows = rows


class _V:
    """A variable of the symbolic evaluation (bound symbolically, to a column, or free)."""

    __slots__ = ("name", "void")

    def __init__(self, name: str, void: bool = False) -> None:
        self.name = name
        self.void = void  # occurs once in its clause: its values are never needed

    def __repr__(self) -> str:
        return f"_V({self.name})"


_RESOLVE_NODES: Final = 1 << 16
"""Compounds one resolved term may have (see :meth:`_State._resolve`)."""


def _has_var(t: RT) -> bool:
    if type(t) is _V:
        return True
    if type(t) is tuple:
        stack = [t]
        while stack:
            for a in stack.pop()[1:]:
                if type(a) is _V:
                    return True
                if type(a) is tuple:
                    stack.append(a)
    return False


def _vars(t: RT) -> list[_V]:
    """The variables of a (resolved) term, left to right."""
    if type(t) is _V:
        return [t]
    out: list[_V] = []
    if type(t) is tuple:
        stack = [t]
        while stack:
            for a in reversed(stack.pop()[1:]):
                if type(a) is _V:
                    out.append(a)
                elif type(a) is tuple:
                    stack.append(a)
    return out


def _ikey(v: RT) -> Any:
    """A dictionary key that tells apart what Prolog tells apart (1 vs 1.0, 0.0 vs -0.0)."""
    tv = type(v)
    if tv is tuple:
        parts = []
        while type(v) is tuple:  # the last argument (a list's tail) in a loop
            parts.append(("$c", v[0], len(v), *(_ikey(a) for a in v[1:-1])))
            v = v[-1]
        parts.append(_ikey(v))
        return tuple(parts)
    if tv is float:
        return (float, repr(v))
    return (tv, v)


class Values:
    """Ground runtime values <-> integer ids, with their standard-order ranks."""

    def __init__(self, compare: Callable[[RT, RT], int]) -> None:
        self.ids: dict[Any, int] = {}
        self.values: list[RT] = []
        self._compare = compare
        self._rank: Ids = np.zeros(0, dtype=np.int64)
        self._num: npt.NDArray[np.float64] = np.zeros(0)
        self._num_count = 0
        self._tests: dict[str, Mask] = {}

    def id(self, v: RT) -> int:
        k = _ikey(v)
        i = self.ids.get(k)
        if i is None:
            i = self.ids[k] = len(self.values)
            self.values.append(v)
        return i

    def lookup(self, v: RT) -> int | None:
        return self.ids.get(_ikey(v))

    def rank(self) -> Ids:
        """Position of every id in the standard order of terms."""
        if len(self._rank) != len(self.values):
            values = self.values
            compare = self._compare

            def cmp(a: int, b: int) -> int:
                return compare(values[a], values[b])

            order = sorted(range(len(values)), key=cmp_to_key(cmp))
            rank = np.empty(len(order), dtype=np.int64)
            rank[np.array(order, dtype=np.int64)] = np.arange(len(order), dtype=np.int64)
            self._rank = rank
        return self._rank

    def test(self, name: str) -> Mask:
        """Whether type test ``name`` (:data:`_TYPE_TESTS`) holds, per id."""
        mask = self._tests.get(name, np.zeros(0, dtype=bool))
        if len(mask) != len(self.values):
            fn = _TYPE_TESTS[name]
            extra = np.array([fn(v) for v in self.values[len(mask) :]], dtype=bool)
            mask = self._tests[name] = np.concatenate([mask, extra])
        return mask

    def numeric(self) -> npt.NDArray[np.float64]:
        """The float of every value: NaN for a non-number, and for an integer beyond 2**53
        (its float is not its value: a comparison would not be Prolog's, so ``_arith``
        leaves such calls to the machine).  Grown by doubling, not rebuilt: a search meets
        a new constant clause after clause."""
        n = len(self.values)
        have = self._num_count
        if have != n:
            if n > len(self._num):
                grown = np.zeros(max(n, 2 * len(self._num)), dtype=np.float64)
                grown[:have] = self._num[:have]
                self._num = grown
            self._num[have:n] = [_float(v) for v in self.values[have:n]]
            self._num_count = n
        return self._num[:n]


def _float(v: RT) -> float:
    if type(v) is float:
        return v
    if type(v) is int and abs(v) <= 2**53:
        return float(v)
    return math.nan


class _State:
    """Rows of bindings: ``cols`` (variable -> ids per row) and symbolic bindings ``sub``."""

    __slots__ = ("cols", "n", "sub")

    def __init__(self, n: int, cols: dict[_V, Ids], sub: dict[_V, RT]) -> None:
        self.n = n
        self.cols = cols
        self.sub = sub

    def copy(self) -> _State:
        return _State(self.n, dict(self.cols), dict(self.sub))

    def take(self, idx: Ids | Mask) -> None:
        cols = {v: c[idx] for v, c in self.cols.items()}
        self.cols = cols
        self.n = int(idx.sum()) if idx.dtype == np.bool_ else len(idx)

    def fail(self) -> None:
        self.take(np.zeros(0, dtype=np.int64))

    def walk(self, t: RT) -> RT:
        sub = self.sub
        while type(t) is _V:
            nxt = sub.get(t)
            if nxt is None:
                return t
            t = nxt
        return t

    def resolve(self, t: RT) -> RT:
        t = self.walk(t)
        if type(t) is tuple:
            return self._resolve(t, [_RESOLVE_NODES])
        return t

    def _resolve(self, t: tuple[Any, ...], budget: list[int]) -> RT:
        """``t`` with its bindings substituted; :class:`Unsupported` past ``budget[0]``
        compounds (a term built with sharing, ``f(T, T)`` nested, is exponential as a tree:
        the machine answers it instead)."""
        budget[0] -= 1
        if budget[0] < 0:
            raise Unsupported("a very large term", static=False)
        out = [t[0]]
        for a in t[1:]:
            a = self.walk(a)
            out.append(self._resolve(a, budget) if type(a) is tuple else a)
        return tuple(out)


def _compact(st: _State, outer: tuple[_V, ...], origin: _V) -> _State:
    """``st`` reduced to the bindings of ``outer`` and the ``origin`` column: a chunk's
    clause-local columns are dropped as soon as the chunk is done."""
    sub: dict[_V, RT] = {}
    keep: dict[_V, Ids] = {origin: st.cols[origin]}
    for v in outer:
        t = st.resolve(v)
        if t is not v:
            sub[v] = t
        for w in _vars(t):
            col = st.cols.get(w)
            if col is not None:
                keep[w] = col
    return _State(st.n, keep, sub)


_TYPE_TESTS: Final[dict[str, Callable[[RT], bool]]] = {
    "var": lambda v: False,  # a value in a column is bound
    "nonvar": lambda v: True,
    "number": lambda v: type(v) is int or type(v) is float,
    "integer": lambda v: type(v) is int,
    "float": lambda v: type(v) is float,
    "atom": lambda v: type(v) is str and v != "[]",
    "atomic": lambda v: type(v) is not tuple,
    "compound": lambda v: type(v) is tuple,
    "callable": lambda v: (type(v) is str and v != "[]") or type(v) is tuple,
}
"""Type tests on a bound value (runtime terms: see :mod:`.resolution`)."""
_BUILTINS: Final = frozenset(
    {("=", 2), ("==", 2), ("\\==", 2), ("@<", 2), ("@>", 2), ("@=<", 2), ("@>=", 2), ("<", 2),
     (">", 2), ("=<", 2), (">=", 2), ("=:=", 2), ("=\\=", 2), ("is", 2), ("fail", 0),
     ("false", 0), ("\\=", 2), *((name, 1) for name in _TYPE_TESTS)}
)  # fmt: skip
_ARITH: Final[dict[str, Callable[[Any, Any], Any]]] = {
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "=<": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "=:=": lambda a, b: a == b,
    "=\\=": lambda a, b: a != b,
}


def _filtered(st: _State, keep: Mask | bool) -> _State:
    if isinstance(keep, np.ndarray):
        if keep.all():
            return st
        out = st.copy()
        out.take(keep)
        return out
    if keep:
        return st
    out = st.copy()
    out.fail()
    return out
