"""Set-at-a-time evaluation of pure rule-defined predicates (the resolution engine's tables).

Why: some background programs search exhaustively by generate-and-test -- mutagenesis' ring
perception enumerates every 6-subset of a drug's atoms (``atoms/4``) and tests each for a ring
(``ring6/4``): 1.5M-10M inferences per drug in SWI-Prolog, 100 times slower in the
tuple-at-a-time engine of :mod:`ilpkit.plugins.backends.native.resolution`.  The same search runs
here breadth-first over numpy arrays: every goal maps a table of bindings (one row per
partial proof, in Prolog order) to the next table, so one numpy operation does the work of
thousands of resolution steps.

What it computes, exactly: the answers of a call ``p(A1, ..., An)`` in Prolog's order, with
Prolog's duplicates -- the sequence SLD resolution would produce -- so that serving them to
the resolution engine as if they were facts changes nothing but speed.  Order is kept because
every operation keeps it: a call's clauses become branches whose rows are merged by a stable
sort on the row they came from, and a join with facts lists, for each row, the matching facts
in fact order.

Memory: since each goal maps a row to its answers in row order, a conjunction whose tables
grow past :data:`~.vectorised_values.CHUNK_ROWS` rows runs its remaining goals chunk by chunk
(depth first) and concatenates the results, and a call that one clause answers is unfolded
into its caller's conjunction so that chunks run on through the caller's later goals
(:meth:`Evaluator._run`).

The fragment: clauses whose bodies use conjunction, calls of other such predicates (unfolded
at evaluation time, so recursion on a known integer -- ``atoms(D, 6, ...)`` -- unrolls), fact
predicates, ``true``/``fail``, ``=/2``, ``==/2``, ``\\==/2``, the standard-order comparisons,
arithmetic comparisons, ``is/2`` on known numbers, ``memberchk/2`` and ``member/2`` on lists of
known length.  A test is only evaluated when its arguments are bound at that point for every
row (so it means what it means in Prolog: no instantiation errors, no order-dependent
behaviour on variables).  Anything else -- cut, negation, if-then-else, type tests, other
built-ins, unbound arguments in a test, answers that are not ground, deep unfolding, very
large tables -- raises :class:`Unsupported`, and the caller runs the resolution engine
instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ilpkit.plugins.backends.native import vectorised_tests
from ilpkit.plugins.backends.native.key_index import KeyIndex
from ilpkit.plugins.backends.native.prolog.arith import _eval
from ilpkit.plugins.backends.native.prolog.builtins_core import _CTRL, _DET, _GEN
from ilpkit.plugins.backends.native.prolog.compile import _K_FACTS, _K_USER
from ilpkit.plugins.backends.native.prolog.library import _CONTROL
from ilpkit.plugins.backends.native.prolog.terms import _compare, _from_term
from ilpkit.plugins.backends.native.vectorised_values import (
    _BUILTINS,
    _V,
    CHUNK_ROWS,
    MAX_DEPTH,
    RT,
    Ids,
    Mask,
    Values,
    _compact,
    _has_var,
    _State,
    _TooMany,
    _vars,
)
from ilpkit.plugins.backends.native.vectorised_values import (
    MAX_ROWS as MAX_ROWS,
)
from ilpkit.plugins.backends.native.vectorised_values import (
    Unsupported as Unsupported,
)
from ilpkit.plugins.backends.native.vectorised_values import (
    _ikey as _ikey,
)
from ilpkit.prolog.terms import Clause, is_ground, iter_vars


class Evaluator:
    """Answers calls of pure rule-defined predicates set-at-a-time (see the module doc), for
    the predicates of ``engine`` (a :class:`~ilpkit.plugins.backends.native.resolution.
    ResolutionEngine`, whose name resolution -- user, library, built-in -- it follows)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self._eval = _eval
        self.values = Values(_compare)
        self._kinds: dict[tuple[str, int], str] = {}
        self._relations: dict[Any, Ids] = {}
        self._selected: dict[Any, Ids] = {}
        self._sorted: dict[Any, KeyIndex] = {}
        self._groups: dict[tuple[str, int], list[Any]] = {}
        self._counter = 0
        self._singles: dict[tuple[tuple[str, int], int], tuple[Clause, frozenset[str]]] = {}
        """Each program clause's variables that occur once (by predicate and position, with
        the clause it was computed for): :meth:`_rename` runs for every call of a rule."""
        self._apart: dict[tuple[int, str, int], tuple[int, ...] | None] = {}
        """Each value taken apart against ``name/arity`` (:func:`.vectorised_tests.
        _decompose`): its arguments' ids, or None when it is not such a term."""
        self.strict = False
        self.max_rows = MAX_ROWS
        """Largest table of partial proofs before a call is refused (:class:`Unsupported`),
        as if no table were split into chunks (a chunk's rows count as many times as the
        chunk goes into the rows it was split from: :attr:`_scale`)."""
        self.chunk_rows = CHUNK_ROWS
        """Rows per chunk of a conjunction evaluated chunk by chunk (see :meth:`_conj`)."""
        self._unlimited = 0
        self._scale = 1.0
        self.fact_source: Callable[[tuple[str, int]], Ids | None] | None = None
        """Where a fact predicate's rows come from as value ids, when not from the engine."""
        """Whether an unbound variable may stand for a value the caller binds: then a test
        whose answer depends on it (``var/1``, ``memberchk/2`` binding it) is refused."""

    def kind(self, key: tuple[str, int]) -> str:
        """How the engine runs ``key``: user, facts, memberchk, member, builtin or other."""
        k = self._kinds.get(key)
        if k is None:
            pred = self.engine._pred(key, False) if key not in _CONTROL else None
            if pred is None:
                k = "other"
            elif pred.kind == _K_USER and not pred.lib:
                k = "user"
            elif pred.kind == _K_FACTS:
                k = "facts"
            elif pred.fn is not None and pred.fn is _DET.get(("memberchk", 2)):
                k = "memberchk"
            elif pred.fn is not None and pred.fn is _GEN.get(("member", 2)):
                k = "member"
            elif (
                key in _BUILTINS
                and pred.fn is not None
                and (pred.fn is _DET.get(key) or pred.fn is _CTRL.get(key))
            ):
                k = "builtin"
            else:
                k = "other"
            self._kinds[key] = k
        return k

    # -- public -----------------------------------------------------------------------------
    def answers(self, name: str, args: Sequence[RT | None]) -> list[tuple[RT, ...]]:
        """Argument tuples of the answers of ``name(args)`` in Prolog order (None = a free
        variable; other arguments must be ground).  Raises :class:`Unsupported`."""
        free = {i: _V(f"A{i}") for i, a in enumerate(args) if a is None}
        goal_args = tuple(free[i] if a is None else a for i, a in enumerate(args))
        st = self._top((name, len(args)), goal_args, _State(1, {}, {}))
        out_terms = [st.resolve(a) for a in goal_args]
        if st.n == 0:
            return []
        vals = self.values.values
        cols = {v: c.tolist() for v, c in st.cols.items()}
        return [tuple(_answer_term(t, r, cols, vals) for t in out_terms) for r in range(st.n)]

    def batch(
        self, name: str, args: Sequence[RT | None], bound: Mapping[int, list[RT] | Ids], n: int
    ) -> tuple[Ids, list[Ids]]:
        """Answers of ``name(args)`` for ``n`` calls at once: argument ``i`` in ``bound`` takes
        ``bound[i][r]`` in call ``r``; other arguments are ground (as given) or None (free).
        Returns, per answer (calls in order, each call's answers in Prolog order), the call it
        answers and the id (:attr:`values`) of every argument.  Raises :class:`Unsupported`.
        A ``bound[i]`` given as an array holds value ids already (no conversion).

        Why: a rule-defined literal is tabled over its active domain in one set-at-a-time
        pass (the native backend's derived tables) instead of one call per value."""
        cols: dict[_V, Ids] = {}
        goal_args: list[RT] = []
        ident = self.values.id
        for i, a in enumerate(args):
            if i in bound:
                v = _V(f"A{i}")
                given = bound[i]
                if isinstance(given, np.ndarray):
                    cols[v] = given.astype(np.int64, copy=False)
                else:
                    cols[v] = np.array([ident(x) for x in given], dtype=np.int64)
                goal_args.append(v)
            elif a is None:
                goal_args.append(_V(f"A{i}"))
            else:
                goal_args.append(a)
        origin = _V("origin")
        cols[origin] = np.arange(n, dtype=np.int64)
        st = self._top((name, len(args)), tuple(goal_args), _State(n, cols, {}))
        if st.n == 0:  # no answers: free arguments may never have met a column
            empty = np.zeros(0, dtype=np.int64)
            return empty, [empty for _ in goal_args]
        out = [self._column(st.resolve(a), st, "an answer is not ground") for a in goal_args]
        return st.cols[origin], out

    def _column(self, t: RT, st: _State, unbound: str) -> Ids:
        """The ids of ``t`` (resolved) in each row of ``st``: a variable's column, a
        structure materialised, a constant repeated; :class:`Unsupported` (``unbound``)
        for a variable no column holds."""
        if type(t) is _V:
            col = st.cols.get(t)
            if col is None:
                raise Unsupported(unbound, static=False)
            return col
        if _has_var(t):
            return self._materialise(t, st)
        return np.full(st.n, self.values.id(t), dtype=np.int64)

    # -- goals ------------------------------------------------------------------------------
    def _fresh(self, name: str) -> _V:
        self._counter += 1
        return _V(f"{name}_{self._counter}")

    def _top(self, key: tuple[str, int], args: tuple[RT, ...], st: _State) -> _State:
        """The call ``key(args)`` on the rows of ``st`` (as a conjunction: chunked, unfolded)."""
        if self.kind(key) == "user":
            return self._conj([(key[0], *args)], st, 0)
        try:
            return self._call(key, args, st, 0)
        except _TooMany as exc:
            if st.n >= 2:
                return self._chunks(st, args, lambda part: self._call(key, args, part, 0), exc.rows)
        self._unlimited += 1
        try:
            return self._call(key, args, st, 0)
        finally:
            self._unlimited -= 1

    def _conj(self, goals: Sequence[RT], st: _State, depth: int) -> _State:
        """The goals in turn on the rows of ``st``, depth-first over chunks of rows (the
        goals' variables bound as they bind them)."""
        return self._run([(g, depth) for g in reversed(goals)], st, goals)

    def _run(self, stack: list[tuple[RT, int]], st: _State, outer: Sequence[RT]) -> _State:
        """Run the goals of ``stack`` (last = first to run, with its unfolding depth) on the
        rows of ``st``; ``outer`` holds every variable the caller may read afterwards.

        Why chunks: every goal maps each row to its answers in row order, so running the
        remaining goals on consecutive row ranges and concatenating the results gives the
        same rows in the same order (duplicates too) as running them on all rows -- with
        only one chunk's tables alive at a time.  The rows are split before a goal when
        there are more than :attr:`chunk_rows` of them, or when a step of the goal would
        build more (:class:`_TooMany`, caught by the innermost conjunction with two rows or
        more; with one row there is nothing to split and the step runs whole).  A call
        that only one clause can answer is unfolded in place (its body goals pushed on
        the stack), so that chunks run through the caller's later goals too: an exhaustive
        search's partial proofs then never all exist at once, only those that survive to
        the end of the conjunction."""
        stack = list(stack)
        while stack:
            if st.n == 0:
                return st
            if st.n > self.chunk_rows:
                return self._run_chunks(stack, st, outer, st.n)
            g, depth = stack[-1]
            try:
                nxt, body = self._step(g, st, depth)
            except _TooMany as exc:
                if st.n >= 2:
                    return self._run_chunks(stack, st, outer, exc.rows)
                self._unlimited += 1
                try:
                    nxt, body = self._step(g, st, depth)
                finally:
                    self._unlimited -= 1
            stack.pop()
            stack.extend(reversed(body))
            st = nxt
            if st.n * self._scale > self.max_rows:
                raise Unsupported(f"more than {self.max_rows} rows", static=False)
        return st

    def _run_chunks(
        self, stack: list[tuple[RT, int]], st: _State, outer: Sequence[RT], rows: int
    ) -> _State:
        def rest(part: _State) -> _State:
            return self._run(stack, part, outer)

        return self._chunks(st, outer, rest, rows)

    def _step(self, g: RT, st: _State, depth: int) -> tuple[_State, list[tuple[RT, int]]]:
        """One goal: the new rows, and the goals it unfolds to (to run next, in order)."""
        g = st.walk(g)
        if type(g) is tuple and len(g) == 3 and g[0] == ",":
            return st, [(g[1], depth), (g[2], depth)]
        if type(g) is tuple and self.kind((g[0], len(g) - 1)) == "user":
            out = self._enter((g[0], len(g) - 1), g[1:], st, depth, True)
            if type(out) is tuple:
                return out[0], [(b, depth + 1) for b in out[1]]
            assert isinstance(out, _State)
            return out, []
        return self._goal(g, st, depth), []

    def _chunks(
        self, st: _State, terms: Sequence[RT], rest: Callable[[_State], _State], rows: int
    ) -> _State:
        """``rest`` (which runs the goals ``terms``) on consecutive row ranges of ``st``,
        sized so that about :attr:`chunk_rows` rows result from ``rows`` rows built at once,
        and the results concatenated in row order (see :meth:`_run`).  Each chunk keeps
        only the bindings of the variables the goals share with the caller until the
        chunks are merged like a call's branches (:meth:`_merge`)."""
        scale = self._scale
        if rows * scale > self.max_rows:
            raise Unsupported(f"more than {self.max_rows} rows", static=False)
        pieces = max(2, -(-rows // self.chunk_rows))
        size = max(1, -(-st.n // pieces))
        origin = self._fresh("origin")
        shared: dict[_V, None] = {}
        for t in terms:
            for v in _vars(st.resolve(t)):
                if v not in st.cols and not v.void:
                    shared[v] = None
        outer = tuple(shared)
        branches: list[_State] = []
        for start in range(0, st.n, size):
            stop = min(st.n, start + size)
            part = _State(
                stop - start, {v: c[start:stop] for v, c in st.cols.items()}, dict(st.sub)
            )
            part.cols[origin] = np.arange(start, stop, dtype=np.int64)
            self._scale = scale * st.n / part.n
            try:
                b = rest(part)
            finally:
                self._scale = scale
            if b.n:
                branches.append(_compact(b, outer, origin))
        if not branches:
            out = st.copy()
            out.fail()
            return out
        out = self._merge(st, origin, outer, branches)
        if out.n * scale > self.max_rows:
            raise Unsupported(f"more than {self.max_rows} rows", static=False)
        return out

    def _goal(self, g: RT, st: _State, depth: int) -> _State:
        g = st.walk(g)
        if type(g) is _V:
            raise Unsupported("a variable as a goal")
        if type(g) is tuple:
            name, args = g[0], g[1:]
        elif type(g) is str:
            name, args = g, ()
        else:
            raise Unsupported("a number as a goal")
        key = (name, len(args))
        if key == (",", 2):
            return self._conj(args, st, depth)
        if key == ("true", 0):
            return st
        kind = self.kind(key)
        if kind == "user" or kind == "facts":
            return self._call(key, args, st, depth)
        if kind == "memberchk":
            return self._memberchk(args[0], args[1], st)
        if kind == "member":
            return self._member(args[0], args[1], st)
        if kind == "builtin":
            return self._builtin(name, args, st)
        raise Unsupported(f"{name}/{len(args)}")

    # -- calls --------------------------------------------------------------------------------
    def _call(self, key: tuple[str, int], args: tuple[RT, ...], st: _State, depth: int) -> _State:
        out = self._enter(key, args, st, depth, False)
        assert isinstance(out, _State)
        return out

    def _enter(
        self, key: tuple[str, int], args: tuple[RT, ...], st: _State, depth: int, unfold: bool
    ) -> _State | tuple[_State, list[RT]]:
        """The rows of ``st`` joined with the answers of ``key(args)``: each clause is a
        branch, merged by row.  With ``unfold``, when only one rule's head matches (and no
        fact), that rule's state after head unification and its body instead."""
        if depth > MAX_DEPTH:
            raise Unsupported("unfolding too deep", static=False)
        if self.kind(key) == "facts":
            return self._join(self._relation(("facts", key)), args, st)
        prepared: list[tuple[_State, list[RT] | None]] = []
        origin = self._fresh("origin")
        base = st.copy()
        base.cols[origin] = np.arange(st.n, dtype=np.int64)
        for group in self._clause_groups(key):
            if group[0] == "rows":
                b = self._join(group[1], args, base)
                if b.n:
                    prepared.append((b, None))
                continue
            b = base.copy()
            head, body = self._rename(key, group[1])
            ok = all(self._unify(x, y, b) for x, y in zip(head, args, strict=True))
            if ok and b.n:
                prepared.append((b, body))
        if unfold and len(prepared) == 1 and prepared[0][1] is not None:
            del prepared[0][0].cols[origin]
            return prepared[0][0], prepared[0][1]
        branches: list[_State] = []
        for b, goals in prepared:
            if goals is not None:
                b = self._conj(goals, b, depth + 1)
            if b.n:
                branches.append(b)
        if not branches:
            out = st.copy()
            out.fail()
            return out
        if len(branches) == 1:
            del branches[0].cols[origin]
            return branches[0]
        return self._merge(st, origin, args, branches)

    def _general(
        self,
        terms: list[RT],
        st: _State,
        branches: list[_State],
        new_vars: list[_V],
        new_cols: list[list[Ids]],
    ) -> RT:
        """The most specific term of :meth:`_merge`'s branches' ``terms``: what they share,
        and a new column (``new_vars``, ``new_cols``) where they differ.  (A method, not a
        nested function: a recursive closure is a reference cycle, left to the cyclic
        garbage collector, and this runs for every merged call -- issue 32.)"""
        first = terms[0]
        if all(type(t) is tuple for t in terms) and all(
            t[0] == first[0] and len(t) == len(first) for t in terms
        ):
            parts = (
                self._general([t[i] for t in terms], st, branches, new_vars, new_cols)
                for i in range(1, len(first))
            )
            return tuple([first[0], *parts])
        if (
            type(first) is not _V
            and type(first) is not tuple
            and all(type(t) is type(first) and _ikey(t) == _ikey(first) for t in terms)
        ):
            return first
        if type(first) is _V and all(t is first for t in terms):
            if first in st.cols:
                return first  # a column of the caller: carried along by the parent rows
            if all(first not in b.cols for b in branches):
                return first  # left free by every branch
        unbound = "a branch leaves an argument unbound"
        cols = [self._column(t, b, unbound) for t, b in zip(terms, branches, strict=True)]
        v = self._fresh("merged")
        new_vars.append(v)
        new_cols.append(cols)
        return v

    def _merge(
        self, st: _State, origin: _V, args: tuple[RT, ...], branches: list[_State]
    ) -> _State:
        """One table from the branches of a call, rows ordered by (parent row, branch)."""
        new_cols: list[list[Ids]] = []
        new_vars: list[_V] = []

        template = self._general(
            [tuple(["$args", *(b.resolve(a) for a in args)]) for b in branches],
            st, branches, new_vars, new_cols,
        )  # fmt: skip
        parent = np.concatenate([b.cols[origin] for b in branches])
        if len(parent) < 2 or bool((parent[1:] >= parent[:-1]).all()):
            order = None  # in row order already (chunks, or one branch per row)
            rows = parent
        else:
            order = np.argsort(parent, kind="stable")
            rows = parent[order]
        out = _State(len(parent), {v: c[rows] for v, c in st.cols.items()}, dict(st.sub))
        for v, cols in zip(new_vars, new_cols, strict=True):
            merged = np.concatenate(cols)
            out.cols[v] = merged if order is None else merged[order]
        for a, t in zip(args, template[1:], strict=True):
            if not self._unify(a, t, out):
                raise Unsupported("merged branches do not unify with the call", static=False)
        return out

    def _materialise(self, t: RT, st: _State) -> Ids:
        """Ids of a structure whose variables are all columns, one per row."""
        vals = self.values.values
        cols: dict[_V, list[int]] = {}
        ident = self.values.id
        return np.array(
            [ident(_row_term(t, r, cols, st.cols, vals)) for r in range(st.n)], dtype=np.int64
        )

    def _clause_groups(self, key: tuple[str, int]) -> list[Any]:
        """A predicate's clauses: runs of ground facts as id arrays, rules one by one."""
        groups = self._groups.get(key)
        if groups is None:
            groups = []
            run: list[tuple[RT, ...]] = []
            for i, sc in enumerate(self.engine.program.clauses[key]):
                clause = sc.clause
                if not clause.body and is_ground(clause.head):
                    run.append(self._rename(key, i)[0])
                    continue
                if run:
                    groups.append(("rows", self._rows_array(run)))
                    run = []
                groups.append(("rule", i))
            if run:
                groups.append(("rows", self._rows_array(run)))
            self._groups[key] = groups
        return groups

    def _rename(self, key: tuple[str, int], i: int) -> tuple[tuple[RT, ...], list[RT]]:
        names: dict[str, _V] = {}
        clause = self.engine.program.clauses[key][i].clause
        known = self._singles.get((key, i))
        if known is None or known[0] is not clause:
            counts = Counter(v.name for t in (clause.head, *clause.body) for v in iter_vars(t))
            known = (clause, frozenset(n for n, c in counts.items() if c == 1))
            self._singles[key, i] = known
        singles = known[1]

        def fresh(n: str) -> _V:
            v = names.get(n)
            if v is None:
                self._counter += 1
                v = names[n] = _V(f"{n}_{self._counter}", n in singles)
            return v

        from_term = _from_term
        head = clause.head
        args = tuple(from_term(a, lambda v: fresh(v.name)) for a in getattr(head, "args", ()))
        return args, [from_term(g, lambda v: fresh(v.name)) for g in clause.body]

    def _rows_array(self, rows: Sequence[tuple[RT, ...]]) -> Ids:
        ident = self.values.id
        arity = len(rows[0]) if rows else 0
        data = np.array([[ident(v) for v in row] for row in rows], dtype=np.int64)
        return data.reshape(len(rows), arity)

    def _relation(self, key: Any) -> Ids:
        rel = self._relations.get(key)
        if rel is None and self.fact_source is not None:
            rel = self.fact_source(key[1])
            if rel is not None:
                self._relations[key] = rel
        if rel is None:
            pred = self.engine._pred(key[1], False)
            rows = pred.rows if pred.rows is not None else self.engine._load_rows(pred)
            rel = self._relations[key] = self._rows_array(rows)
            if rel.shape[1] != key[1][1]:
                rel = self._relations[key] = rel.reshape(0, key[1][1])
        return rel

    def _index(
        self, ckey: tuple[object, ...], sub_rel: Ids, cols: tuple[int, ...], cacheable: bool
    ) -> KeyIndex:
        """The index of ``sub_rel`` (the rows of a relation selected by ``ckey``) on its bound
        columns ``cols``, cached when ``cacheable`` (the rows depend on ``ckey`` alone)."""
        if not cacheable:
            return KeyIndex(sub_rel, cols)
        skey = (*ckey, cols)
        idx = self._sorted.get(skey)
        if idx is None:
            idx = self._sorted[skey] = KeyIndex(sub_rel, cols)
            if len(self._sorted) > 10_000:
                self._sorted.clear()
        return idx

    def _join(self, rel: Ids, args: tuple[RT, ...], st: _State) -> _State:
        """``st`` joined with the rows of ``rel`` that match ``args``: for each row of ``st``
        in order, the matching rows in their order."""
        consts: list[tuple[int, int]] = []
        keys: list[tuple[int, _V]] = []
        new: dict[_V, int] = {}
        same: list[tuple[int, int]] = []
        for j, a in enumerate(args):
            a = st.resolve(a)
            if type(a) is _V:
                if a in st.cols:
                    keys.append((j, a))
                elif a in new:
                    same.append((new[a], j))
                else:
                    new[a] = j
            elif _has_var(a):
                raise Unsupported("a compound argument with variables in a fact call")
            else:
                i = self.values.lookup(a)
                if i is None:
                    out = st.copy()
                    out.fail()
                    return out
                consts.append((j, i))
        ckey = (id(rel), tuple(consts))
        sel = self._selected.get(ckey)
        if sel is None:
            mask = np.ones(len(rel), dtype=bool)
            for j, i in consts:
                mask &= rel[:, j] == i
            sel = np.flatnonzero(mask)
            if len(self._selected) > 10_000:
                self._selected.clear()
            self._selected[ckey] = sel
        sub_rel = rel[sel]
        cacheable = not same
        for j, k in same:
            sub_rel = sub_rel[sub_rel[:, j] == sub_rel[:, k]]
        n = st.n
        if keys:
            idx = self._index(ckey, sub_rel, tuple(j for j, _ in keys), cacheable)
            lo, hi = idx.bounds([st.cols[v] for _, v in keys[: len(idx.cols)]])
            counts = hi - lo
            total = int(counts.sum())
            if total > self.chunk_rows and not self._unlimited:
                raise _TooMany(total)
            parent = np.repeat(np.arange(n, dtype=np.int64), counts)
            starts = np.cumsum(counts) - counts
            pos = np.arange(total, dtype=np.int64) - np.repeat(starts - lo, counts)
            ridx = idx.order[pos]
            rest = keys[len(idx.cols) :]  # key columns the index leaves to the filter below
        else:
            m = len(sub_rel)
            if n * m > self.chunk_rows and not self._unlimited:
                raise _TooMany(n * m)
            if n * m * self._scale > self.max_rows:
                raise Unsupported(f"more than {self.max_rows} rows", static=False)
            parent = np.repeat(np.arange(n, dtype=np.int64), m)
            ridx = np.tile(np.arange(m, dtype=np.int64), n)
            rest = []
        out = st.copy()
        out.take(parent)
        keep: Mask | None = None
        for j, v in rest:
            eq = out.cols[v] == sub_rel[ridx, j]
            keep = eq if keep is None else keep & eq
        for v, j in new.items():
            if not v.void:
                out.cols[v] = sub_rel[ridx, j]
        if keep is not None:
            out.take(keep)
        return out

    # -- unification and tests (ilpkit/plugins/backends/native/vectorised_tests.py) ----------------
    _builtin = vectorised_tests._builtin
    _unify = vectorised_tests._unify
    _decompose = vectorised_tests._decompose
    _leaf = vectorised_tests._leaf
    _identical = vectorised_tests._identical
    _order = vectorised_tests._order
    _arith = vectorised_tests._arith
    _type_test = vectorised_tests._type_test
    _list = vectorised_tests._list
    _memberchk = vectorised_tests._memberchk
    _member = vectorised_tests._member


def _answer_term(t: RT, r: int, cols: dict[_V, list[int]], vals: list[Any]) -> RT:
    """Row ``r``'s value of ``t`` (:meth:`Evaluator.answers`): every variable a column."""
    if type(t) is _V:
        col = cols.get(t)
        if col is None:
            raise Unsupported("an answer is not ground", static=False)
        return vals[col[r]]
    if type(t) is tuple:
        return tuple([t[0], *(_answer_term(a, r, cols, vals) for a in t[1:])])
    return t


def _row_term(
    x: RT, r: int, cols: dict[_V, list[int]], state_cols: dict[_V, Ids], vals: list[Any]
) -> RT:
    """Row ``r``'s value of ``x`` (:meth:`Evaluator._materialise`), each column read into
    ``cols`` as a list once."""
    if type(x) is _V:
        col = cols.get(x)
        if col is None:
            c = state_cols.get(x)
            if c is None:
                raise Unsupported("a branch leaves an argument unbound", static=False)
            col = cols[x] = c.tolist()
        return vals[col[r]]
    if type(x) is tuple:
        return tuple([x[0], *(_row_term(a, r, cols, state_cols, vals) for a in x[1:])])
    return x
