"""The set-at-a-time numpy engine: binding tables joined literal by literal, for clauses
outside the compiled kernel's fragment: methods of
:class:`~ilpkit.plugins.backends.native.engine.NativeBackend`, kept here to keep modules small."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from ilpkit.core.coverage import Coverage
from ilpkit.core.distinct import distinct
from ilpkit.errors import DataError, ResourceLimitExceeded
from ilpkit.plugins.backends.native.engine_common import (
    _EMPTY,
    _UNIFY,
    COMPARISONS,
    COMPARISONS_2,
    _args,
    _indicator,
    _is_builtin,
    _match,
    _renaming,
)
from ilpkit.plugins.backends.native.joins import Bindings, join, join_counts, semi_join
from ilpkit.plugins.backends.native.prolog.errors import _resident_bytes
from ilpkit.plugins.backends.native.store import FactTable, Ids
from ilpkit.prolog.terms import (
    Clause,
    Struct,
    Term,
    Var,
    is_ground,
    iter_vars,
    substitute,
    term_vars,
    to_prolog,
)

if TYPE_CHECKING:
    from ilpkit.plugins.backends.native.engine import NativeBackend


def _cover(self: NativeBackend, clause: Clause, among: Coverage | None) -> Ids:
    """Covered example ids of ``clause`` (canonical): its parent's table (cached, or built
    and cached) semi-joined with the last literal -- the clause's own rows are never
    materialised, since most evaluated clauses are never refined further."""
    body = clause.body
    if not body:
        return self._head_table(clause.head, among).covered()
    found = self._cached_parent(clause)
    if found is None:
        parent = Clause(clause.head, body[:-1])  # a prefix of a canonical clause is canonical
        # A parent asked for twice (a search refining it) is worth building whole; a
        # one-off clause is cheaper evaluated projected.
        asked = self._parent_requests.pop(parent, 0) + 1
        self._parent_requests[parent] = asked
        if len(self._parent_requests) > 100_000:
            self._parent_requests.popitem(last=False)
        table = self._table(parent) if asked >= 2 else None
        if table is None:
            start = self._head_table(clause.head, among)
            return self._projected_cover(start, list(body))
        found = (table, body[-1])
    table, literal = found
    if among is not None:
        table = self._restricted(table, among)
    self._check_deadline(literal)
    return self._semi(table, literal)


def _restricted(self: NativeBackend, table: Bindings, among: Coverage) -> Bindings:
    """``table`` restricted to ``among``; the refinements of one parent share both, so
    the last restriction is remembered."""
    last = self._last_restriction
    if last is not None and last[0] is table and last[1] is among:
        return last[2]
    result = table.restrict(among.ids)
    self._last_restriction = (table, among, result)
    return result


def _cached_parent(self: NativeBackend, clause: Clause) -> tuple[Bindings, Term] | None:
    """A cached table of the clause without one literal, and that literal renamed into
    the table's variables: the last literal, or any pure one (order-independent)."""
    body = clause.body
    for j in range(len(body) - 1, -1, -1):
        last = j == len(body) - 1
        if not last and not self._pure(body[j]):
            continue
        rest = Clause(clause.head, body[:j] + body[j + 1 :])
        parent = rest if last else rest.canonical()
        table = self.cache.get(parent)
        if table is None:
            continue
        self.cache.move_to_end(parent)
        self.stats["cache_hits"] += 1
        if last:
            return table, body[j]
        mapping = _renaming(rest, parent)
        # variables only the dropped literal has must not collide with the parent's names
        for v in term_vars([body[j]]):
            if v not in mapping:
                mapping[v] = Var(f"_New{len(mapping)}")
        return table, substitute(body[j], mapping)
    return None


def _table(self: NativeBackend, clause: Clause) -> Bindings | None:
    """The full binding table of ``clause`` (canonical) over all examples, cached; None
    when a join on the way would exceed ``row_limit``."""
    table = self.cache.get(clause)
    if table is not None:
        self.cache.move_to_end(clause)
        self.stats["cache_hits"] += 1
        return table
    if not clause.body:
        table = self._head_table(clause.head, None)
    else:
        parent = self._table(Clause(clause.head, clause.body[:-1]))
        if parent is None:
            return None
        self._check_deadline(clause.body[-1])
        table = self._literal(parent, clause.body[-1], [])
        if table is None:
            return None
    self._remember(clause, table)
    return table


def _semi(self: NativeBackend, table: Bindings, lit: Term) -> Ids:
    """Example ids of the rows of ``table`` for which ``lit`` has a solution."""
    key = _indicator(lit)
    facts = self.facts.get(key)
    args = _args(lit)
    if facts is not None and all(type(a) is Var or is_ground(a) for a in args):
        parts = self._fact_parts(table, args)
        if parts is None:
            return _EMPTY
        constants, keys, _, equal_cols = parts
        self.stats["joins"] += 1
        return semi_join(
            table,
            facts.select(constants),
            keys,
            equal_cols,
            self.opts.row_limit,
            lambda: self._check_deadline(lit),
        )
    grown = self._literal(table, lit, [])
    if grown is None:
        return self._projected(table, [lit]).covered()
    return grown.covered()


def _projected(self: NativeBackend, table: Bindings, literals: list[Term]) -> Bindings:
    """Evaluate ``literals`` keeping only what later literals need, in chunks of rows."""
    for k, lit in enumerate(literals):
        if len(table) == 0:
            return table
        self._check_deadline(lit)
        rest = literals[k:]
        keep = {v for t in rest for v in iter_vars(t)}
        table = table.project(keep)
        grown = self._literal(table, lit, literals[k + 1 :])
        if grown is None and len(table) == 1:
            # one row cannot be split further: expand it whatever its size
            grown = self._literal(table, lit, literals[k + 1 :], force=True)
        if grown is None:
            return self._chunked(table, literals[k:])
        table = grown
    return table.project(set())


def _projected_cover(self: NativeBackend, table: Bindings, literals: list[Term]) -> Ids:
    """Covered ids, evaluating left to right with only the live variables kept (rows
    that differ only in dead variables merged), the last literal by a semi-join.  Runs of
    consecutive fact literals are reordered by estimated fan-out first."""
    literals = self._join_order(set(table.cols), literals)
    last = len(literals) - 1
    for k, lit in enumerate(literals):
        if len(table) == 0:
            return _EMPTY
        self._check_deadline(lit)
        keep = {v for t in literals[k:] for v in iter_vars(t)}
        if any(v not in keep for v in table.cols):
            table = table.project(keep)
        if k == last:
            return self._semi(table, lit)
        grown = self._literal(table, lit, literals[k + 1 :])
        if grown is None and len(table) == 1:
            grown = self._literal(table, lit, literals[k + 1 :], force=True)
        if grown is None:
            return self._chunked(table, literals[k:]).covered()
        table = grown
    return table.covered()


def _join_order(self: NativeBackend, bound: set[Var], literals: list[Term]) -> list[Term]:
    """Greedy join order within each run of consecutive fact literals: next the literal
    with the fewest expected matches per row given the variables bound so far.

    Fact literals are relations, so their order never changes the answers; any other
    literal keeps its place, and with it exactly the bindings Prolog would give it.
    """
    out: list[Term] = []
    bound = set(bound)
    run: list[Term] = []

    def flush() -> None:
        while run:
            best = min(run, key=lambda lit: self._fan_out(lit, bound))
            run.remove(best)
            out.append(best)
            bound.update(iter_vars(best))

    for lit in literals:
        key = _indicator(lit)
        if key in self.facts and all(type(a) is Var or is_ground(a) for a in _args(lit)):
            run.append(lit)
            continue
        flush()
        out.append(lit)
        bound.update(iter_vars(lit))
    flush()
    return out


def _fan_out(self: NativeBackend, lit: Term, bound: set[Var]) -> float:
    """Expected matching facts per binding row (a selectivity estimate)."""
    facts = self.facts[_indicator(lit)]
    constants = []
    keys = []
    for c, a in enumerate(_args(lit)):
        if type(a) is Var:
            if a in bound:
                keys.append(c)
        else:
            i = self.interner.lookup(a)
            if i is None:
                return 0.0
            constants.append((c, i))
    rel = facts.select(tuple(constants))
    if not keys or len(rel) == 0:
        return float(len(rel))
    return len(rel) / max(rel.distinct(c) for c in keys)


def _chunked(self: NativeBackend, table: Bindings, literals: list[Term]) -> Bindings:
    parts = []
    size = max(1, len(table) // 8)
    for start in range(0, len(table), size):
        self._check_deadline(literals[0] if literals else None)
        chunk = table.take(np.arange(start, min(start + size, len(table))))
        parts.append(self._projected(chunk, literals).ex)
    ex = distinct(np.concatenate(parts)) if parts else _EMPTY
    return Bindings(ex, {})


def _remember(self: NativeBackend, key: Clause, table: Bindings) -> None:
    limit = self.opts.cache_mb * 1e6
    size = table.nbytes
    if size > limit / 4:
        return
    self.cache[key] = table
    self.cache_bytes += size
    while self.cache_bytes > limit and self.cache:
        _, old = self.cache.popitem(last=False)
        self.cache_bytes -= old.nbytes


def _check_deadline(self: NativeBackend, lit: Term | None = None) -> None:
    """Raise :class:`ResourceLimitExceeded` once the clause is past ``timeout`` or has
    grown the process by more than ``memory_limit_mb``; called between literals, between
    chunks of long joins and between slices of the kernel's search."""
    where = "" if lit is None else f" at {to_prolog(lit)}"
    if self._deadline is not None and time.monotonic() > self._deadline:
        raise ResourceLimitExceeded(f"time limit of {self.options.timeout} s exceeded{where}")
    limit = self.opts.memory_limit_mb
    if limit is not None and self._rss0 is not None:
        rss = _resident_bytes()
        if rss is not None and rss - self._rss0 > limit * 1e6:
            raise ResourceLimitExceeded(
                f"memory limit of {limit:g} MB exceeded{where} (the clause grew the "
                f"process by {(rss - self._rss0) / 1e6:.0f} MB)"
            )


def _pure(self: NativeBackend, lit: Term) -> bool:
    """Literals whose answers do not depend on evaluation order (facts, comparisons)."""
    key = _indicator(lit)
    if key in self.facts:
        return True
    return key in {(op, 2) for op in COMPARISONS} or key in {("=", 2), ("\\=", 2)}


# -- head ---------------------------------------------------------------------------------
def _head_table(self: NativeBackend, head: Term, among: Coverage | None) -> Bindings:
    key = _indicator(head)
    entry = self.example_tables.get(key)
    if entry is None:
        return Bindings(_EMPTY, {v: _EMPTY for v in iter_vars(head)})
    ids, table = entry
    rows = np.arange(len(ids), dtype=np.int64)
    if among is not None:
        rows = rows[np.isin(ids, among.ids)]
    seed = Bindings(ids[rows], {})
    data = table.data[rows]
    return self._match_args(seed, _args(head), data, lambda r: r)


def _match_args(
    self: NativeBackend, table: Bindings, args: tuple[Term, ...], data: Ids, _: object
) -> Bindings:
    """Bind/filter ``table`` (one row per data row) against argument patterns."""
    mask = np.ones(len(table), dtype=bool)
    cols = dict(table.cols)
    for c, a in enumerate(args):
        column = data[:, c]
        if type(a) is Var:
            if a in cols:
                mask &= cols[a] == column
            else:
                cols[a] = column
        elif is_ground(a):
            i = self.interner.lookup(a)
            if i is None:
                mask[:] = False
            else:
                mask &= column == i
        else:  # a compound pattern with variables: match term by term
            terms = self.interner.terms
            sub_vals: dict[Var, list[int]] = {}
            for r, value in enumerate(column.tolist()):
                binding = _match(a, terms[value])
                if binding is None:
                    mask[r] = False
                    continue
                for v in term_vars([a]):
                    sub_vals.setdefault(v, []).append(
                        self.interner.id(binding[v]) if mask[r] else -1
                    )
            for v, vals in sub_vals.items():
                arr = np.full(len(table), -1, dtype=np.int64)
                ok = np.flatnonzero(mask)
                arr[ok] = np.array(vals, dtype=np.int64)[: len(ok)]
                if v in cols:
                    mask &= cols[v] == arr
                else:
                    cols[v] = arr
    out = Bindings(table.ex, cols)
    return out if mask.all() else out.take(mask)


# -- literals -------------------------------------------------------------------------------
def _literal(
    self: NativeBackend, table: Bindings, lit: Term, rest: list[Term], force: bool = False
) -> Bindings | None:
    """``table`` joined with ``lit``; None if the result would exceed ``row_limit``
    (unless ``force``)."""
    key = _indicator(lit)
    facts = self.facts.get(key)
    args = _args(lit)
    if facts is not None and all(type(a) is Var or is_ground(a) for a in args):
        return self._fact_literal(table, facts, args, force)
    if key in COMPARISONS_2 or key in _UNIFY:
        done = self._vector_builtin(table, lit)
        if done is not None:
            return done
    if key not in self.task.program.clauses and not _is_builtin(key) and facts is None:
        # undefined predicate: no solutions (mode predicates are treated as dynamic)
        return table.take(np.zeros(len(table), dtype=bool))
    return self._engine_literal(table, lit, force)


def _fact_parts(
    self: NativeBackend, table: Bindings, args: tuple[Term, ...]
) -> (
    tuple[
        tuple[tuple[int, int], ...],
        list[tuple[Var, int]],
        list[tuple[Var, int]],
        list[tuple[int, int]],
    ]
    | None
):
    """How a fact literal meets a table: constant columns, key columns (bound variables),
    new columns (unbound variables) and columns that must be equal; None if a constant
    of the literal occurs nowhere in the data (no fact can match)."""
    constants = []
    keys: list[tuple[Var, int]] = []
    new: list[tuple[Var, int]] = []
    equal_cols: list[tuple[int, int]] = []
    first_new: dict[Var, int] = {}
    for c, a in enumerate(args):
        if type(a) is Var:
            if a in table.cols:
                keys.append((a, c))
            elif a in first_new:
                equal_cols.append((first_new[a], c))
            else:
                first_new[a] = c
                new.append((a, c))
        else:
            i = self.interner.lookup(a)
            if i is None:
                return None
            constants.append((c, i))
    return tuple(constants), keys, new, equal_cols


def _fact_literal(
    self: NativeBackend,
    table: Bindings,
    facts: FactTable,
    args: tuple[Term, ...],
    force: bool = False,
) -> Bindings | None:
    parts = self._fact_parts(table, args)
    if parts is None:
        return table.take(np.zeros(len(table), dtype=bool))
    constants, keys, new, equal_cols = parts
    rel = facts.select(constants)
    self.stats["joins"] += 1
    counts = join_counts(table, rel, keys) if keys and not equal_cols else None
    total = counts[3] if counts else len(table) * len(rel)
    if total > self.opts.row_limit and new and not force:
        return None
    return join(table, rel, keys, new, equal_cols, counts=counts)


def _vector_builtin(self: NativeBackend, table: Bindings, lit: Term) -> Bindings | None:
    """Comparisons and (dis)unification over bound arguments, as array filters."""
    assert type(lit) is Struct
    name = lit.name
    left, right = lit.args
    lv = self._column(table, left)
    rv = self._column(table, right)
    if name in ("=", "=="):
        if lv is not None and rv is not None:
            return table.take(lv == rv)
        if name == "=" and type(left) is Var and lv is None and rv is not None:
            return Bindings(table.ex, {**table.cols, left: np.broadcast_to(rv, len(table)).copy()})
        if name == "=" and type(right) is Var and rv is None and lv is not None:
            return Bindings(table.ex, {**table.cols, right: np.broadcast_to(lv, len(table)).copy()})
        return None
    if name in ("\\=", "\\=="):
        if lv is not None and rv is not None:
            return table.take(lv != rv)
        return None
    if lv is None or rv is None:
        return None
    num = self.interner.numeric()
    a = num[lv]
    b = num[rv]
    if np.isnan(a).any() or np.isnan(b).any():
        return None  # non-numbers: let the resolution engine raise Prolog's error
    return table.take(COMPARISONS[name](a, b))


def _column(self: NativeBackend, table: Bindings, arg: Term) -> Ids | None:
    """Ids of ``arg`` per row (bound variable or ground term), or None when unbound."""
    if type(arg) is Var:
        return table.cols.get(arg)
    if is_ground(arg):
        i = self.interner.id(arg)
        return np.full(len(table), i, dtype=np.int64)
    return None


def _engine_literal(
    self: NativeBackend, table: Bindings, lit: Term, force: bool = False
) -> Bindings | None:
    """Answer ``lit`` with the resolution engine, once per distinct bound tuple.

    A negation (``\\+ G``, ``not(G)``) binds nothing: its variables that no earlier literal
    bound are local to it (``not((humidity(D, H), lteq(H, 70)))``), so it is a yes/no
    question and they are not asked for."""
    lit_vars = term_vars([lit])
    bound = [v for v in lit_vars if v in table.cols]
    free = [] if _is_negation(lit) else [v for v in lit_vars if v not in table.cols]
    if bound:
        stacked = np.stack([table.cols[v] for v in bound], axis=1)
        uniq, inverse = np.unique(stacked, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
    else:
        uniq = np.zeros((1, 0), dtype=np.int64)
        inverse = np.zeros(len(table), dtype=np.int64)
    terms = self.interner.terms
    answers: list[list[tuple[int, ...]]] = []
    for row in uniq.tolist():
        goal = substitute(lit, {v: terms[i] for v, i in zip(bound, row, strict=True)})
        answers.append(self._solve_memo(goal, free))
    counts = np.array([len(a) for a in answers], dtype=np.int64)[inverse]
    total = int(counts.sum())
    if total > self.opts.row_limit and free and not force:
        return None
    rows = np.repeat(np.arange(len(table), dtype=np.int64), counts)
    cols = {v: c[rows] for v, c in table.cols.items()}
    if free:
        flat = [ans for u in inverse.tolist() for ans in answers[u]]
        values = np.array(flat, dtype=np.int64).reshape(total, len(free))
        for k, v in enumerate(free):
            cols[v] = values[:, k]
    return Bindings(table.ex[rows], cols)


def _is_negation(lit: Term) -> bool:
    return type(lit) is Struct and lit.name in ("\\+", "not") and len(lit.args) == 1


def _solve_memo(self: NativeBackend, goal: Term, free: list[Var]) -> list[tuple[int, ...]]:
    key = Clause(goal).canonical().head
    hit = self.memo.get(key)
    if hit is not None:
        self.memo.move_to_end(key)
        return hit
    self.stats["engine_calls"] += 1
    out: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    for sol in self.resolution.solve(goal, None):  # type: ignore[attr-defined]
        binding = _match(goal, sol)
        if binding is None:
            continue
        values = []
        for v in free:
            t = binding[v]
            if not is_ground(t):
                raise DataError(
                    f"{to_prolog(goal)} has a non-ground answer ({to_prolog(sol)}); the "
                    "native backend needs ground answers -- use the swi backend"
                )
            values.append(self.interner.id(t))
        tup = tuple(values)
        if tup not in seen:  # duplicate answers add nothing to coverage
            seen.add(tup)
            out.append(tup)
    self.memo[key] = out
    if len(self.memo) > self.opts.memo_entries:
        self.memo.popitem(last=False)
    return out
