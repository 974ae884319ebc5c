"""Query plans for the compiled coverage kernel (:mod:`.kernels`).

A plan turns a clause into flat integer arrays: for each body literal, in the order it will be
proved, its kind, its relation and index, and for each argument whether it is a constant, a
variable bound earlier (a slot to check) or one bound here (a slot to fill).

Why reorder: fact literals and ground tests are relations, so in which order they are proved
changes no answer, only the work; the greedy order proves next the literal with the fewest
expected matches given the variables bound so far, and every test as soon as its variables are
bound.  A test is only moved when, in the clause's own order, its variables are bound where it
stands (otherwise Prolog's answer depends on the order -- ``X \\== a`` with ``X`` unbound -- and
the plan is refused).  Anything outside facts, arithmetic comparisons and ground
(dis)unification is refused too; the caller then uses the set-at-a-time engine.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from ilpkit.plugins.backends.native import kernels as K
from ilpkit.plugins.backends.native.store import FactTable, Ids, Interner
from ilpkit.plugins.backends.native.unfold import Definition
from ilpkit.prolog.terms import Const, Struct, Term, Var, is_ground, iter_vars

if TYPE_CHECKING:
    from ilpkit.plugins.backends.native.ask import Questions

_CMP_OPS: Final = {"<": K.LT, ">": K.GT, "=<": K.LE, ">=": K.GE, "=:=": K.EQN, "=\\=": K.NEN}
_TESTS: Final = frozenset({"=", "\\=", "==", "\\=="})


Derive = Callable[[Term, Mapping[Var, tuple[FactTable, int]]], FactTable | None]
Unfold = Callable[[tuple[str, int]], "Definition | None"]
Ask = Callable[[tuple[str, int]], int | None]


class Empty(Exception):
    """The clause can cover nothing (a constant of a fact literal occurs in no fact)."""


SLICE_STEPS: Final = 2_000_000
"""Candidate tests per kernel call between two checks of the time and memory limits (a few
milliseconds of work)."""


class Refused(Exception):
    """The clause is outside the kernel's fragment."""


@dataclass(frozen=True, slots=True, eq=False)
class Plan:
    """Flat arrays the kernel interprets (see :func:`.kernels.cover_rows`).

    Kept packed: the integer arrays end to end in one array, the float constants in
    another.  Why: the backend keeps thousands of plans (its body-part cache), and sixteen
    small arrays each cost a Python object, a data block and the buffer description the
    kernel's call leaves on it -- about 4 KB a plan against a few hundred bytes packed
    (issue 32: pyrimidines' peak memory)."""

    nslots: int
    ints: Ids
    floats: npt.NDArray[np.float64]
    ends: tuple[int, ...]
    """Where each integer array ends in ``ints``."""

    @classmethod
    def pack(cls, nslots: int, ints: Sequence[Sequence[int]], floats: Sequence[float]) -> Plan:
        """The plan of the kernel's integer arrays ``kind .. dep`` (all but the float
        constants, in argument order) and its float constants."""
        packed = np.fromiter(itertools.chain.from_iterable(ints), dtype=np.int64)
        ends = tuple(itertools.accumulate(len(a) for a in ints))
        return cls(nslots, packed, np.array(floats, dtype=np.float64), ends)

    @property
    def arrays(self) -> tuple[Any, ...]:
        """``kind .. dep`` in the kernel's argument order (views, made per call: kept, each
        would hold its buffer description again)."""
        out: list[Any] = []
        start = 0
        for end in self.ends:
            out.append(self.ints[start:end])
            start = end
        out.insert(_FLOATS, self.floats)
        return tuple(out)

    @property
    def n_lits(self) -> int:
        """How many literals the plan runs."""
        return self.ends[0]


_FLOATS: Final = 12
"""The position of the float constants (``afl``) among the kernel's plan arrays."""


class KernelStore:
    """The relations' data and indexes as the kernel reads them (:class:`.kernels.Segments`),
    registered once each.

    ``lasting`` are the tables that live as long as the task (its facts and examples).  The
    others -- tables derived for rule-defined literals, each version of a demand-driven
    table -- are counted in :attr:`transient_bytes` (their data and indexes, and the copies
    here), so that the backend can drop them all once they pass its budget: a search meets
    a new constant (``gteq(C, 0.42)``) clause after clause, and each is a table of its own."""

    def __init__(self, lasting: Iterable[FactTable] = ()) -> None:
        self.tabs = K.Segments()
        self.orders = K.Segments()
        self.starts = K.Segments()
        self._tab: dict[int, int] = {}
        self._idx: dict[tuple[int, int], int] = {}
        self._keep: list[FactTable] = []  # registered tables stay alive (ids are by identity)
        self._lasting = {id(t) for t in lasting}
        self.transient_bytes = 0

    def tab(self, table: FactTable) -> int:
        i = self._tab.get(id(table))
        if i is None:
            i = self._tab[id(table)] = self.tabs.append(table.data)
            self._keep.append(table)
            if id(table) not in self._lasting:
                self.transient_bytes += 2 * table.data.nbytes  # the table's and the copy
        return i

    def index(self, table: FactTable, col: int) -> int:
        key = (id(table), col)
        i = self._idx.get(key)
        if i is None:
            order, keys = table.sorted_column(col)
            i = self._idx[key] = self.orders.append(order)
            sparse = table.sparse(col)  # then no starts: the kernel bisects the order
            starts = np.zeros(0, dtype=np.int64) if sparse else table.key_starts(col)
            self.starts.append(starts)
            if id(table) not in self._lasting:
                self.transient_bytes += 2 * order.nbytes + keys.nbytes + 2 * starts.nbytes
        return i


def _args(t: Term) -> tuple[Term, ...]:
    return t.args if type(t) is Struct else ()


def _key(t: Term) -> tuple[str, int]:
    if type(t) is Struct:
        return (t.name, len(t.args))
    if type(t) is Const:
        return (str(t.value), 0)
    return ("", -1)


def _number(t: Term) -> float:
    if type(t) is Const and isinstance(t.value, (int, float)):
        if type(t.value) is int and abs(t.value) > 2**53:
            raise Refused("an integer beyond floats (the kernel compares floats)")
        return float(t.value)
    raise Refused("a comparison with a non-number or an expression")


def _estimate(
    table: FactTable, args: tuple[Term, ...], ids: list[int | None], bound: set[Var]
) -> tuple[float, int]:
    """Expected matches per call and the best key column (-1: scan)."""
    n = len(table)
    best = float(n)
    col = -1
    for c, a in enumerate(args):
        if type(a) is Var:
            if a in bound:
                d = table.distinct(c)
                est = n / d if d else 0.0
            else:
                continue
        else:
            v = ids[c]
            assert v is not None
            est = float(table.key_count(c, v))
        if est < best or col < 0:
            best, col = est, c
    return best, col


def build_plan(
    head_vars: list[Var],
    body: list[Term],
    relations: Mapping[tuple[str, int], FactTable],
    interner: Interner,
    store: KernelStore,
    derive: Derive | None = None,
    head_binders: Mapping[Var, tuple[FactTable, int]] | None = None,
    unfold: Unfold | None = None,
    ask: Ask | None = None,
) -> Plan:
    """The plan of ``body`` with ``head_vars`` bound (slots 0..h-1, in that order, filled from
    the rows the kernel is given); raises :class:`Refused` or :class:`Empty`.

    ``derive`` answers a literal of a rule-defined predicate as a table over the values its
    bound variables can take (see :meth:`.engine.NativeBackend._derived`); ``head_binders``
    gives each head variable the example-table column its values come from; ``unfold``
    gives the definition of a rule-defined predicate made only of tests of its arguments
    (:mod:`.unfold`), which the kernel answers itself where those arguments are bound;
    ``ask`` the number of a rule-defined predicate whose literal, with every argument bound
    where it stands and no table derived, the kernel may ask as a yes/no question
    (:mod:`.ask`)."""
    slots: dict[Var, int] = {v: i for i, v in enumerate(head_vars)}
    # classify the body; tests must have their variables bound where they stand
    bound_here = set(slots)
    first_binder: dict[Var, tuple[FactTable, int]] = dict(head_binders or {})
    items: list[tuple[str, Term, FactTable | None, list[int | None]]] = []
    definitions: dict[int, Definition] = {}
    for lit in body:
        key = _key(lit)
        args = _args(lit)
        table = relations.get(key)
        definition = unfold(key) if unfold is not None and table is None and args else None
        if definition is not None and all(
            a in bound_here if type(a) is Var else is_ground(a) for a in args
        ):
            if definition[-1]:  # else a clause without tests: true for any bound arguments
                definitions[id(lit)] = definition
                items.append(("tests", lit, None, []))
            continue
        if table is not None:
            ids: list[int | None] = []
            for a in args:
                if type(a) is Var:
                    ids.append(None)
                elif is_ground(a):
                    i = interner.lookup(a)
                    if i is None:
                        raise Empty
                    ids.append(i)
                else:
                    raise Refused("a compound argument with variables")
            items.append(("fact", lit, table, ids))
            for c, a in enumerate(args):
                if type(a) is Var:
                    bound_here.add(a)
                    first_binder.setdefault(a, (table, c))
            continue
        if (
            key[0] not in _CMP_OPS
            and key[0] not in _TESTS
            and derive is not None
            and all(v in first_binder for v in iter_vars(lit) if v in bound_here)
        ):
            derived = derive(lit, first_binder)
            if derived is not None:
                ids = [None if type(a) is Var else interner.lookup(a) for a in args]
                if any(i is None and type(a) is not Var for i, a in zip(ids, args, strict=True)):
                    raise Empty  # a constant no answer holds (so never interned)
                items.append(("fact", lit, derived, ids))
                for c, a in enumerate(args):
                    if type(a) is Var:
                        bound_here.add(a)
                        first_binder.setdefault(a, (derived, c))
                continue
        if (
            ask is not None
            and key[0] not in _CMP_OPS
            and key[0] not in _TESTS
            and args
            and all(a in bound_here if type(a) is Var else is_ground(a) for a in args)
        ):
            p = ask(key)
            if p is not None:
                items.append(("ask", lit, None, [p]))
                continue
        if key[1] != 2:
            raise Refused(f"{key[0]}/{key[1]}")
        left, right = args
        if key[0] in _CMP_OPS:
            for a in args:
                if type(a) is Var:
                    if a not in bound_here:
                        raise Refused("an unbound comparison")
                else:
                    _number(a)
            items.append(("cmp", lit, None, []))
            continue
        if key[0] not in _TESTS:
            raise Refused(f"{key[0]}/2")
        for a in args:
            if type(a) is not Var and not is_ground(a):
                raise Refused("unification with a compound term")
        unbound = [a for a in args if type(a) is Var and a not in bound_here]
        if key[0] == "=" and len(unbound) == 1 and left != right:
            items.append(("bind", lit, None, []))
            bound_here.update(unbound)
            continue
        if unbound:
            raise Refused("a test on an unbound variable")
        items.append(("test", lit, None, []))

    # greedy order
    bound = set(slots)
    order: list[tuple[str, Term, FactTable | None, list[int | None], int]] = []
    todo = list(items)
    while todo:
        pick = -1
        for j, (kind, lit, _, _) in enumerate(todo):
            if kind in ("cmp", "test", "tests", "ask") and all(v in bound for v in iter_vars(lit)):
                pick = j
                break
            if (
                kind == "bind"
                and sum(1 for a in _args(lit) if type(a) is Var and a not in bound) <= 1
            ):
                pick = j
                break
        col = -1
        if pick < 0:
            best = None
            for j, (kind, lit, table, ids) in enumerate(todo):
                if kind != "fact":
                    continue
                assert table is not None
                est, c = _estimate(table, _args(lit), ids, bound)
                if best is None or est < best:
                    best, pick, col = est, j, c
            if pick < 0:
                raise Refused("a test whose variables are never bound")
        kind, lit, table, ids = todo.pop(pick)
        order.append((kind, lit, table, ids, col))
        bound.update(iter_vars(lit))

    # encode
    n = len(order)
    kind_a = [0] * n
    tab_a = [0] * n
    arity_a = [0] * n
    keycol_a = [-1] * n
    keymode_a = [0] * n
    keyval_a = [0] * n
    idx_a = [0] * n
    a_start = [0] * n
    a_end = [0] * n
    cop_a = [0] * n
    amode: list[int] = []
    acol: list[int] = []
    aval: list[int] = []
    afl: list[float] = []
    binder: dict[Var, int] = {v: -1 for v in slots}
    reads: list[set[Var]] = []
    news: list[set[Var]] = []

    def slot(v: Var) -> int:
        s = slots.get(v)
        if s is None:
            s = slots[v] = len(slots)
        return s

    for k, (kind, lit, table, ids, col) in enumerate(order):
        args = _args(lit)
        a_start[k] = len(amode)
        r: set[Var] = set()
        new: set[Var] = set()
        if kind == "fact":
            assert table is not None
            kind_a[k] = K.FACT
            tab_a[k] = store.tab(table)
            arity_a[k] = table.arity
            if col >= 0:
                keycol_a[k] = col
                idx_a[k] = store.index(table, col)
                a = args[col]
                if type(a) is Var:
                    keymode_a[k] = K.CHECK
                    keyval_a[k] = slots[a]
                    r.add(a)
                else:
                    keymode_a[k] = K.CONST
                    v = ids[col]
                    assert v is not None
                    keyval_a[k] = v
            for c, a in enumerate(args):
                if c == col:
                    continue
                acol.append(c)
                afl.append(0.0)
                if type(a) is Var:
                    if a in binder:
                        amode.append(K.CHECK)
                        if a not in new:
                            r.add(a)
                    else:
                        amode.append(K.NEW)
                        binder[a] = k
                        new.add(a)
                    aval.append(slot(a))
                else:
                    v = ids[c]
                    assert v is not None
                    amode.append(K.CONST)
                    aval.append(v)
        elif kind == "ask":
            kind_a[k] = K.ASK
            p = ids[0]
            assert p is not None
            cop_a[k] = p
            for a in args:
                acol.append(0)
                afl.append(0.0)
                if type(a) is Var:
                    amode.append(K.CHECK)
                    aval.append(slots[a])
                    r.add(a)
                else:
                    amode.append(K.CONST)
                    aval.append(interner.id(a))
        elif kind == "tests":
            kind_a[k] = K.TESTS

            for tests in definitions[id(lit)]:
                for j, test in enumerate(tests):
                    for x in (test.left, test.right):
                        if x is test.right and test.op == K.T_TYPE:
                            assert type(x) is int
                            amode.append(K.CONST)  # the type bits the test accepts
                            aval.append(x)
                            continue
                        t = args[x] if type(x) is int else x
                        assert not isinstance(t, int)
                        if type(t) is Var:
                            amode.append(K.CHECK)
                            aval.append(slots[t])
                            r.add(t)
                        else:
                            amode.append(K.CONST)
                            aval.append(interner.id(t))
                    acol += [test.op, 1 if j == len(tests) - 1 else 0]
                    afl += [0.0, 0.0]
        else:
            left, right = args
            name = lit.name if type(lit) is Struct else ""
            if kind == "cmp":
                kind_a[k] = K.CMP
                cop_a[k] = _CMP_OPS[name]
                for a in (left, right):
                    acol.append(0)
                    if type(a) is Var:
                        amode.append(K.CHECK)
                        aval.append(slots[a])
                        afl.append(0.0)
                        r.add(a)
                    else:
                        amode.append(K.CONST)
                        aval.append(0)
                        afl.append(_number(a))
            else:
                pair = [left, right]
                if kind == "bind" and any(type(a) is Var and a not in binder for a in pair):
                    kind_a[k] = K.BIND
                    target = next(a for a in pair if type(a) is Var and a not in binder)
                    source = right if target == left else left
                    pair = [target, source]
                elif name in ("=", "=="):
                    kind_a[k] = K.EQ
                else:
                    kind_a[k] = K.NEQ
                for j, a in enumerate(pair):
                    acol.append(0)
                    afl.append(0.0)
                    if type(a) is Var:
                        if kind_a[k] == K.BIND and j == 0:
                            amode.append(K.NEW)
                            binder[a] = k
                            new.add(a)
                        else:
                            amode.append(K.CHECK)
                            r.add(a)
                        aval.append(slot(a))
                    else:
                        amode.append(K.CONST)
                        aval.append(interner.id(a))
        a_end[k] = len(amode)
        reads.append(r)
        news.append(new)

    once = [0] * n
    dep = [-1] * n
    later: set[Var] = set()
    for k in range(n - 1, -1, -1):
        once[k] = 1 if not (news[k] & later) else 0
        later |= reads[k]
        dep[k] = max((binder[v] for v in reads[k]), default=-1)
    ints = (
        kind_a, tab_a, arity_a, keycol_a, keymode_a, keyval_a, idx_a, a_start, a_end,
        amode, acol, aval, cop_a, once, dep,
    )  # fmt: skip
    return Plan.pack(len(slots), ints, afl)


class HeadIndex:
    """The example table of one head predicate as the kernel reads it: the data flattened,
    each column's values as dense ranks (memo keys), and example id -> row."""

    def __init__(self, ids: Ids, table: FactTable, n_examples: int) -> None:
        self.ids = ids
        self.table = table
        self.arity = table.arity
        self.data = K.as_ids(table.data)
        ranks = np.zeros(table.data.shape, dtype=np.int64)
        self.dims: list[int] = []
        for c in range(table.arity):
            uniq, inverse = np.unique(table.data[:, c], return_inverse=True)
            ranks[:, c] = inverse.reshape(-1)
            self.dims.append(max(1, len(uniq)))
        self.ranks = K.as_ids(ranks)
        self.row_of = np.full(n_examples, -1, dtype=np.int64)
        self.all_rows = np.arange(len(ids), dtype=np.int64)
        self.all_rows.setflags(write=False)
        self.row_of[ids] = self.all_rows
        self.identity = len(ids) == n_examples and bool(np.array_equal(ids, self.all_rows))
        """Whether row ``i`` is example ``i`` (one head predicate, examples in order: most
        tasks), so that example ids are rows as they are and no gather maps them."""
        self._row_keys: dict[tuple[int, ...], Ids] = {}
        self._layouts: dict[tuple[int, ...], tuple[Ids, Ids]] = {}

    def layout(self, cols: Sequence[int]) -> tuple[Ids, Ids]:
        """``(cols, strides)`` as arrays for the parts reading these head columns, shared
        by them all (at most 2**arity column tuples): the backend keeps thousands of parts,
        and arrays of their own would each cost an object and a buffer description."""
        key = tuple(cols)
        got = self._layouts.get(key)
        if got is None:
            got = self._layouts[key] = (np.array(key, dtype=np.int64), self.strides(key))
        return got

    def strides(self, cols: Sequence[int]) -> Ids:
        """The memo strides of a part reading these head columns (row-major over their
        distinct values)."""
        strides = np.zeros(len(cols), dtype=np.int64)
        size = 1
        for j in range(len(cols) - 1, -1, -1):
            strides[j] = size
            size *= self.dims[cols[j]]
        return strides

    def row_keys(self, cols: Sequence[int]) -> Ids:
        """Every row's memo position for a part reading these head columns, as the kernel
        computes it (ranks times strides): kept per column tuple (at most 2**arity), so a
        part whose answers are all known is read with two gathers (issue 32: that read
        is most of a search's coverage calls)."""
        key = tuple(cols)
        got = self._row_keys.get(key)
        if got is None:
            ranks = self.ranks.reshape(-1, self.arity)
            got = np.zeros(len(ranks), dtype=np.int64)
            for c, stride in zip(key, self.strides(key).tolist(), strict=True):
                got += ranks[:, c] * stride
            self._row_keys[key] = got
        return got


def run_plan(
    plan: Plan,
    head: HeadIndex,
    rows: Ids,
    hcol: Ids,
    strides: Ids,
    memo: Any,
    store: KernelStore,
    numeric: Any,
    types: Any,
    questions: Questions,
    budget: int,
    check: Callable[[], None] | None = None,
    slice_steps: int | None = None,
) -> tuple[Any, int, int]:
    """``(covered 0/1 per row -- or UNDECIDED: see ``questions`` --, status, steps)`` from
    the compiled kernel, run in slices of
    ``slice_steps`` (default :data:`SLICE_STEPS`) candidate tests with ``check()`` (which
    raises to stop: time and memory limits) called between slices."""
    kernel: Any = K.cover_rows
    slice_steps = SLICE_STEPS if slice_steps is None else slice_steps
    n_lits = max(plan.n_lits, 1)
    state = np.array([0, -1, 1, 0, 0], dtype=np.int64)
    covered = np.zeros(rows.shape[0], dtype=np.uint8)
    slots = np.zeros(max(plan.nslots, 1), dtype=np.int64)
    pos = np.zeros(n_lits, dtype=np.int64)
    hi = np.zeros(n_lits, dtype=np.int64)
    found = np.zeros(n_lits, dtype=np.uint8)
    total = 0
    while True:
        pause = max(1, min(slice_steps, budget - total + 1))
        covered, status, steps = kernel(
            head.data,
            head.arity,
            rows,
            hcol,
            head.ranks,
            strides,
            memo,
            plan.nslots,
            *plan.arrays,
            *store.tabs.arrays(),
            *store.orders.arrays(),
            *store.starts.arrays(),
            numeric,
            types,
            questions.keys,
            questions.vals,
            questions.want,
            budget - total,
            pause,
            state,
            covered,
            slots,
            pos,
            hi,
            found,
        )
        total += int(steps)
        questions.wanted = int(state[4])
        if status != K.PAUSED:
            return covered, int(status), total
        if total > budget:
            return covered, K.OVER_BUDGET, total
        if check is not None:
            check()


def distinct_tuples(columns: list[Ids]) -> tuple[Ids, Ids]:
    """``(values, inverse)``: the distinct rows of the given equal-length id columns as a
    C-ordered ``(k, len(columns))`` array flattened, and each row's index into them."""
    n = len(columns[0])
    if len(columns) == 1:
        uniq, inverse = np.unique(columns[0], return_inverse=True)
        return np.ascontiguousarray(uniq, dtype=np.int64), inverse.reshape(-1)
    key = columns[0].astype(np.int64, copy=True)
    span = int(key.max()) + 1 if n else 1
    packable = True
    for col in columns[1:]:
        width = int(col.max()) + 1 if n else 1
        if span * width >= 2**62:
            packable = False
            break
        key = key * width + col
        span *= width
    if packable:
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    else:
        stacked = np.stack(columns, axis=1)
        _, first, inverse = np.unique(stacked, axis=0, return_index=True, return_inverse=True)
    values = np.stack([c[first] for c in columns], axis=1)
    return np.ascontiguousarray(values, dtype=np.int64).reshape(-1), inverse.reshape(-1)
