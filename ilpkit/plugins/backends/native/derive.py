"""Rule-defined literals as fact tables, so that the compiled kernel answers them by joins.

Why: a clause such as ``active(D) :- atm(D, A, c, 22, C), gteq(C, 0.2)`` over a background
program that defines ``gteq/2`` by rules would otherwise send every distinct ``C`` to the
tuple-at-a-time resolution engine, once per clause.  Here such a literal is turned, once per
task, into a table the kernel joins like a fact table, in one of two ways (both evaluated
set-at-a-time by :class:`~ilpkit.plugins.backends.native.vectorised.Evaluator`, whose answers are
SLD resolution's):

1. **Materialised** (:meth:`Deriver.general`): the call with every variable free -- the
   predicate's whole relation for the literal's constants, bottom-up over the fact tables
   (``symbond(D, A, B, 1)``: both orientations of every bond of type 1).  This needs the
   predicate to be *mode-independent*: the evaluator runs in strict mode, where any test
   whose outcome could change if a free variable were bound (``var/1``, ``number/1`` or an
   arithmetic comparison on it, ``memberchk/2`` binding it) refuses the call.  What is left
   is pure positive Horn clauses over facts, plus tests on values bound inside the
   derivation, for which the answers of a more instantiated call are exactly the instances
   of the general answers (the lifting lemma of SLD resolution), so joining the table is
   the same coverage as calling the predicate.
2. **Tabled over the active domain** (:meth:`Deriver.over_domain`): the predicate is called
   once for every tuple of values its bound variables can take -- each variable's values are
   the distinct values of the column that first binds it -- all in one set-at-a-time pass
   (``gteq(C, 0.2)`` for every charge ``C`` in ``atm/5``).  Exact, because every call the
   clause can make is one of these calls.

Either table is kept for the backend's lifetime (per literal pattern); ``None`` means the
literal is outside the evaluator's fragment or over ``row_limit`` rows, and the clause goes to
the set-at-a-time engine.  (The backend uses these only for domains larger than its
``derive_tuples``: smaller ones are answered call by call by the resolution engine, whose
tables share subgoals between related predicates.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ilpkit.core.distinct import distinct
from ilpkit.errors import IlpkitError
from ilpkit.plugins.backends.native.prolog.terms import _from_term, _to_term
from ilpkit.plugins.backends.native.store import FactTable, Ids, Interner
from ilpkit.prolog.terms import Term, Var

_CHUNK: Final = 100_000
"""Calls per set-at-a-time pass when tabling over the active domain."""


def _no_vars(v: Var) -> Any:  # pragma: no cover - interned terms are ground
    raise ValueError(f"unexpected variable {v}")


class Deriver:
    """Derived tables of rule-defined literals (see the module doc) for one loaded task."""

    def __init__(
        self,
        engine: Any,
        interner: Interner,
        facts: Mapping[tuple[str, int], FactTable],
        row_limit: int,
    ) -> None:
        # imported here: the evaluator (with the Prolog built-ins it follows) is needed only
        # once a rule-defined literal is derived, not by a task of facts (issue 32)
        from ilpkit.plugins.backends.native.vectorised import Evaluator, Unsupported

        self._unsupported = Unsupported
        self.evaluator = Evaluator(engine)
        self.evaluator.fact_source = self._fact_rows
        self.interner = interner
        self.facts = facts
        self.row_limit = row_limit
        self.evaluator.max_rows = max(row_limit, 1)
        self._general: dict[object, FactTable | None] = {}
        self._map = np.zeros(0, dtype=np.int64)
        self._vid = np.zeros(0, dtype=np.int64)
        self.stats = {"materialised": 0, "tabled": 0, "refused": 0}

    # -- public ---------------------------------------------------------------------------------
    def general(self, name: str, args: Sequence[Term | None]) -> FactTable | None:
        """The relation of ``name(args)`` with every None argument free (materialised), or
        None when the predicate is not mode-independent or the relation is too large."""
        ident = (name, tuple(args))
        if ident in self._general:
            return self._general[ident]
        rt_args = [None if a is None else _from_term(a, _no_vars) for a in args]
        ev = self.evaluator
        ev.strict = True
        try:
            table = self._table(name, rt_args, {}, 1)
        finally:
            ev.strict = False
        self._general[ident] = table
        self.stats["materialised" if table is not None else "refused"] += 1
        return table

    def over_domain(
        self, name: str, args: Sequence[Term | None], inputs: list[tuple[int, Ids]]
    ) -> FactTable | None:
        """``name(args)`` called for every tuple of the domains ``inputs`` (argument position,
        interned values) with the other None arguments free; None when outside the fragment
        or over ``row_limit`` calls or rows."""
        sizes = [len(d) for _, d in inputs]
        total = int(np.prod(sizes)) if sizes else 1
        if total > self.row_limit:
            return None
        grids = np.meshgrid(*(d for _, d in inputs), indexing="ij") if inputs else []
        columns = [g.reshape(-1) for g in grids]
        rt_args = [None if a is None else _from_term(a, _no_vars) for a in args]
        parts: list[Ids] = []
        size = min(total, _CHUNK)
        start = 0
        while start < total:
            stop = min(total, start + size)
            bound: dict[int, list[Any] | Ids] = {
                pos: self._value_ids(col[start:stop])
                for (pos, _), col in zip(inputs, columns, strict=True)
            }
            try:
                got = self._rows(name, rt_args, bound, stop - start)
            except self._unsupported as exc:
                if exc.static or size == 1:
                    self.stats["refused"] += 1
                    return None
                size = max(1, size // 4)  # too many partial proofs at once: smaller passes
                continue
            parts.append(got)
            if sum(len(p) for p in parts) > self.row_limit:
                self.stats["refused"] += 1
                return None
            start = stop
        self.stats["tabled"] += 1
        data = np.concatenate(parts) if parts else np.zeros((0, len(args)), dtype=np.int64)
        return FactTable.from_array(name, _distinct_rows(data))

    def each(self, name: str, calls: Ids) -> npt.NDArray[np.bool_] | None:
        """Which of the calls ``name(row)`` succeed, one call per row of ``calls`` (interned
        ids, every argument bound), set-at-a-time; None when outside the fragment (the
        caller then asks the resolution engine call by call)."""
        n, arity = calls.shape
        bound: dict[int, list[Any] | Ids] = {
            pos: self._value_ids(calls[:, pos]) for pos in range(arity)
        }
        try:
            got = self._rows(name, [None] * arity, bound, n)
        except self._unsupported:
            return None
        yes = set(map(tuple, got.tolist()))
        return np.array([row in yes for row in map(tuple, calls.tolist())], dtype=bool)

    # -- internals ----------------------------------------------------------------------------
    def _table(
        self, name: str, args: list[Any], bound: dict[int, list[Any] | Ids], n: int
    ) -> FactTable | None:
        try:
            rows = self._rows(name, args, bound, n)
        except self._unsupported:
            return None
        if len(rows) > self.row_limit:
            return None
        return FactTable.from_array(name, _distinct_rows(rows))

    def _rows(self, name: str, args: list[Any], bound: dict[int, list[Any] | Ids], n: int) -> Ids:
        """Interned answer rows of ``n`` calls; raises :class:`.vectorised.Unsupported`
        (also for an error or a nesting too deep, which the tuple-at-a-time engine reports
        or copes with)."""
        try:
            _, cols = self.evaluator.batch(name, args, bound, n)
        except (IlpkitError, RecursionError) as exc:
            raise self._unsupported(str(exc)) from None
        if not cols:
            return np.zeros((0, 0), dtype=np.int64)
        mapping = self._mapping(np.concatenate(cols))
        return np.stack([mapping[c] for c in cols], axis=1)

    def _fact_rows(self, key: tuple[str, int]) -> Ids | None:
        """A fact table's rows as evaluator value ids, converting each distinct value once
        (not every cell) and recording the correspondence for :meth:`_mapping`."""
        table = self.facts.get(key)
        if table is None:
            return None
        data = table.data
        if data.size == 0:
            return data.copy()
        uniq, inverse = np.unique(data, return_inverse=True)
        vids = self._value_ids(uniq)
        return vids[inverse.reshape(-1)].reshape(data.shape).astype(np.int64)

    def _value_ids(self, ids: Ids) -> Ids:
        """Interner ids -> evaluator value ids, each interned term converted once for the
        task (tabling over a domain asks for the same domain with every new constant:
        carcinogenesis' ``gteq(C, K)`` for each ``K`` over all 1,102 charges), recording
        the correspondence for :meth:`_mapping` too."""
        ids = np.asarray(ids, dtype=np.int64)
        n = len(self.interner.terms)
        if len(self._vid) < n:
            pad = np.full(n - len(self._vid), -1, dtype=np.int64)
            self._vid = np.concatenate([self._vid, pad])
        missing = distinct(ids[self._vid[ids] < 0])
        if len(missing):
            terms = self.interner.terms
            ident = self.evaluator.values.id
            vids = np.array(
                [ident(_from_term(terms[i], _no_vars)) for i in missing.tolist()], dtype=np.int64
            )
            self._vid[missing] = vids
            mapping = self._mapping()  # extends the map to the new value ids
            mapping[vids] = missing
        return self._vid[ids]

    def _mapping(self, needed: Ids | None = None) -> Ids:
        """Evaluator value id -> interner id (-1: not converted yet), extended as the
        evaluator meets new values; the ``needed`` ids are converted."""
        n = len(self.evaluator.values.values)
        if len(self._map) < n:
            pad = np.full(n - len(self._map), -1, dtype=np.int64)
            self._map = np.concatenate([self._map, pad])
        if needed is not None and len(needed):
            ids = distinct(needed)
            missing = ids[self._map[ids] < 0]
            values = self.evaluator.values.values
            intern = self.interner.id
            for k in missing.tolist():
                self._map[k] = intern(_to_term(values[k]))
        return self._map


def _distinct_rows(data: Ids) -> Ids:
    """Rows without repeats (first occurrences, in order): coverage needs one proof each."""
    if len(data) < 2:
        return data
    _, first = np.unique(data, axis=0, return_index=True)
    return data[np.sort(first)]
