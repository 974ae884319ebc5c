"""Body parts the compiled kernel runs, and the tables of rule-defined literals they join
(derived once per task, or demand-driven per input tuple): methods of
:class:`~ilpkit.plugins.backends.native.engine.NativeBackend`, kept here to keep modules small."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, Literal

import numpy as np
import numpy.typing as npt

from ilpkit.core.distinct import distinct
from ilpkit.errors import IlpkitError
from ilpkit.plugins.backends.native.demand import DemandTable, leading_facts
from ilpkit.plugins.backends.native.engine_common import (
    _BROKEN,
    _CALL_BY_CALL,
    _CALL_BY_CALL_CPU,
    _CALL_BY_CALL_STRIKES,
    _MEMO_LIMIT,
    _PARTS_LIMIT,
    Part,
    _args,
    _indicator,
    _part_key,
)
from ilpkit.plugins.backends.native.joins import Bindings
from ilpkit.plugins.backends.native.kernels import OK as KERNEL_OK
from ilpkit.plugins.backends.native.memo import Generations
from ilpkit.plugins.backends.native.plan import (
    Empty,
    HeadIndex,
    KernelStore,
    Refused,
    build_plan,
)
from ilpkit.plugins.backends.native.store import TYPE_TESTS, FactTable, Ids
from ilpkit.plugins.backends.native.unfold import Definition, definition_of
from ilpkit.prolog.terms import (
    Clause,
    Const,
    Struct,
    Term,
    Var,
    is_ground,
    substitute,
)

if TYPE_CHECKING:
    from ilpkit.plugins.backends.native.engine import NativeBackend


_IDENTS: Generations[tuple[object, ...], tuple[tuple[Term, ...], tuple[object, ...]]] = Generations(
    2_000
)
"""The memo key (:func:`_part_key`) of each body part as written, by the identity of its
head variables and literals: a search evaluates the same parts -- the same bottom-clause
literal objects -- in clause after clause, and looking them up costs less than renaming
them again.  Each entry holds those objects, so no other live object has their ids.  At
most about 4,000 entries (each ~0.5 KB): 100,000 took pyrimidines' run 50 MB higher for no
CPU gained (issue 32)."""


def _new_store(self: NativeBackend) -> KernelStore:
    """An empty kernel store in which the task's facts and examples are lasting tables."""
    return KernelStore([*self.facts.values(), *(t for _, t in self.example_tables.values())])


_DROP_EVERY: Final = 100
"""Fewest kernel calls between two drops of the derived tables: when one clause alone needs
more than the budget, the budget doubles instead of every call deriving its tables anew."""


def _bound_derived(self: NativeBackend) -> None:
    """Drop every table derived for the kernel once they pass ``derived_mb``, with all that
    refers to them (the store, the body parts and their answers, the domains by table
    identity); the demand-driven tables stay (keyed by examples' tables, which last)."""
    self._kernel_calls += 1
    if self.kstore.transient_bytes <= self._derived_limit:
        return
    if self._kernel_calls - self._dropped_at < _DROP_EVERY:
        self._derived_limit *= 2
        return
    self._dropped_at = self._kernel_calls
    self.kstore = self._new_store()
    self._parts.clear()
    self._parts_bytes = 0
    self._derived_tables = {}
    self._keep_alive = []
    self._domains = {}
    self.stats["derived_drops"] = self.stats.get("derived_drops", 0) + 1


def _run_part(
    self: NativeBackend, key: tuple[str, int], hix: HeadIndex, part: Part, rows: Ids, budget: int
) -> tuple[npt.NDArray[np.uint8], int, int]:
    """``(covered, status, steps)`` of one part on ``rows``.  With demand-driven tables
    (:mod:`.demand`), the rows the tables known so far leave undecided get their inputs'
    complete answers and are decided again, so every answer is final."""
    self._refresh(part)
    if len(part.memo) and len(rows):
        # Every row's answer already known (the parts a refinement shares with its parent):
        # read them here, which costs less than the kernel call's argument passing.  The
        # memo holds final answers only (see below), so the kernel would return the same.
        known = part.memo[_memo_keys(hix, part, rows)]
        if known.all():
            return (known == 1).view(np.uint8), KERNEL_OK, 0
    covered, status, steps = self._run_asking(hix, part, rows, budget)
    if status != KERNEL_OK or not part.demands:
        return covered, status, steps
    open_ = np.flatnonzero(covered == 0)
    if len(open_) == 0:
        return covered, status, steps
    undecided = rows[open_]
    data = hix.table.data[undecided]
    grew = False
    for demand in part.demands:
        need = demand.missing(data)
        if need:
            self._complete(demand, need)
            if demand.broken:
                return covered, _BROKEN, steps
            grew = True
    if not grew:
        return covered, status, steps
    self._refresh(part)
    if len(part.memo):
        part.memo[_memo_keys(hix, part, undecided)] = 0
    again, status, more = self._run_asking(hix, part, undecided, budget - steps)
    covered[open_] = again
    return covered, status, steps + more


def _memo_keys(hix: HeadIndex, part: Part, rows: Ids) -> Ids:
    """The positions in ``part.memo`` of these example rows (as the kernel computes them:
    the ranks of the part's head columns times its strides)."""
    keys: Ids = part.row_keys[rows]
    return keys


_NO_KEYS: Final = np.zeros(0, dtype=np.int64)


def _refresh(self: NativeBackend, part: Part) -> None:
    """Rebuild the plan of a part when one of its demand-driven tables has grown."""
    if all(d.version == v for d, v in zip(part.demands, part.versions, strict=True)):
        return
    tables = {id(d): d for d in part.demands}
    part.plan = build_plan(
        part.hv, part.lits, self.facts, self.interner, self.kstore,
        lambda lit, fb: self._derived(lit, fb, part.binders, None, tables),
        part.binders, self._unfolded, self._question,
    )  # fmt: skip
    part.versions = [d.version for d in part.demands]


def _complete(self: NativeBackend, demand: DemandTable, need: list[tuple[int, ...]]) -> None:
    """Add all answers of ``demand``'s literal for the input tuples ``need``; marks it
    broken when a call errs (the clause then goes to the set-at-a-time engine, which
    reports or handles the error as before)."""
    lit, inputs, outputs = self._patterns[id(demand)]
    found: list[tuple[tuple[int, ...], Ids]] = []
    if id(demand) in self._strict:
        got = self._strict_rows(lit, inputs, outputs, need)
        if got is None:
            demand.broken = True
            return
        self.stats["demand_inputs"] = self.stats.get("demand_inputs", 0) + len(need)
        demand.add(got)
        return
    try:
        for combo in need:
            rows = self._answer_rows(lit, inputs, outputs, combo)
            found.append((combo, np.array(rows, dtype=np.int64).reshape(-1, demand.arity)))
    except (IlpkitError, RecursionError):
        demand.broken = True
        return
    self.stats["demand_inputs"] = self.stats.get("demand_inputs", 0) + len(need)
    demand.add(found)


def _part(
    self: NativeBackend,
    key: tuple[str, int],
    hix: HeadIndex,
    cols: list[int],
    hv: list[Var],
    lits: list[Term],
) -> Part | Literal["empty"] | None:
    """The plan of one body part and its answers so far per tuple of head values
    (cached; None when outside the kernel's fragment)."""
    raw = (key, *map(id, hv), *cols, -1, *map(id, lits))  # hv and cols have one length
    named = _IDENTS.get(raw)
    if named is None:
        named = ((*hv, *lits), _part_key(key, hv, cols, lits))
        _IDENTS.put(raw, named)
    ident = named[1]
    got = self._parts.get(ident)
    if got is not None:
        self._parts.move_to_end(ident)
        return None if got.demands and any(d.broken for d in got.demands) else got
    binders = {v: (hix.table, c) for v, c in zip(hv, cols, strict=True)}
    used: list[DemandTable] = []
    try:
        plan = build_plan(
            hv, lits, self.facts, self.interner, self.kstore,
            lambda lit, fb: self._derived(lit, fb, binders, used),
            binders, self._unfolded, self._question,
        )  # fmt: skip
    except Empty:
        return "empty"
    except Refused:
        return None
    hcol, strides = hix.layout(cols)
    size = 1
    for c in cols:
        size *= hix.dims[c]
    memo = np.zeros(size if size <= _MEMO_LIMIT else 0, dtype=np.uint8)
    part = Part(
        plan, hcol, strides, memo, used,
        [d.version for d in used], hv, lits, binders,
        hix.row_keys(cols) if len(memo) else _NO_KEYS,
    )  # fmt: skip
    self._parts[ident] = part
    self._parts_bytes += memo.nbytes
    while self._parts and (
        len(self._parts) > _PARTS_LIMIT or self._parts_bytes > self.opts.cache_mb * 1e6 / 4
    ):
        _, old = self._parts.popitem(last=False)
        self._parts_bytes -= old.memo.nbytes
    return part


_BINARY_TESTS: Final = ("<", ">", "=<", ">=", "=:=", "=\\=", "=", "==", "\\=", "\\==")
"""The binary built-ins a test-only definition may use (:mod:`.unfold`)."""


def _unfolded(self: NativeBackend, key: tuple[str, int]) -> Definition | None:
    """The definition of a rule-defined predicate made only of tests of its arguments
    (:mod:`.unfold`; kept per task), or None."""
    if key in self._definitions:
        return self._definitions[key]
    program = self.task.program
    clauses = program.clauses.get(key)
    definition = None
    if self._unfold and clauses is not None and key not in program.dynamic:
        ours = {*program.clauses, *program.facts}
        definition = definition_of(
            [sc.clause for sc in clauses],
            builtins_free=not any((name, 1) in ours for name in TYPE_TESTS)
            and not any((name, 2) in ours for name in _BINARY_TESTS),
        )
    self._definitions[key] = definition
    return definition


def _derived(
    self: NativeBackend,
    lit: Term,
    binders: Mapping[Var, tuple[FactTable, int]],
    head: Mapping[Var, tuple[FactTable, int]] | None = None,
    used: list[DemandTable] | None = None,
    known: Mapping[int, DemandTable] | None = None,
) -> FactTable | None:
    """A rule-defined literal as a fact table over its active domain: its answers for
    every tuple of values its bound variables can take (each variable's values: the
    distinct values of the column that first binds it), when there are at most
    ``derive_tuples`` such tuples; None otherwise, or when a call errs.

    When every bound variable is a head variable of the part (``head``: their binders)
    and the predicate starts with ground facts, the table is demand-driven
    (:mod:`.demand`): those facts now, complete answers per input when an example needs
    them; the :class:`DemandTable` is appended to ``used``.  (``known``: the demand
    tables of a plan being rebuilt, whose current tables are returned.)

    Why: the kernel then proves the literal by index lookups; each call is answered once
    (memoised) for the whole search, instead of once per distinct binding per clause."""
    key = _indicator(lit)
    if key not in self.task.program.clauses or not (
        self.opts.derive_tuples or self.opts.derive_rows
    ):
        return None
    args = _args(lit)
    inputs: list[tuple[int, Var]] = []
    outputs: list[tuple[int, Var]] = []
    seen: set[Var] = set()
    sig: list[object] = [key]
    for c, a in enumerate(args):
        if type(a) is Var:
            if a in seen:
                return None
            seen.add(a)
            b = binders.get(a)
            if b is None:
                outputs.append((c, a))
                sig.append(None)
            else:
                inputs.append((c, a))
                sig.append((id(b[0]), b[1]))
        elif is_ground(a):
            sig.append(a)
        else:
            return None
    ident = tuple(sig)
    domains = [self._domain(binders[v]) for _, v in inputs]
    size = 1
    for d in domains:
        size *= len(d)
    demand = self._demand_for(ident, lit, key, inputs, outputs, binders, head)
    if demand is not None:
        if known is not None:
            current = known.get(id(demand))
            if current is not None:
                return current.table
        if not demand.broken:
            if used is not None and all(d is not demand for d in used):
                used.append(demand)
            return demand.table
    if ident in self._derived_tables:
        return self._derived_tables[ident]
    name = lit.name if type(lit) is Struct else str(lit)
    table: FactTable | None = None
    # A small domain goes to the resolution engine call by call: its tables share the
    # subgoals of related predicates (mutagenesis' ring predicates all search rings of
    # the same drug).  A large one is derived set-at-a-time.
    # Every argument bound: the kernel asks the engine only about the values it reaches
    # (:mod:`.ask`) rather than about every tuple of the domains.
    asking = not outputs and self._question(key) is not None
    if size <= self.opts.derive_tuples:
        if not asking:
            table = self._derive_table(lit, inputs, outputs, domains)
    elif args and self.opts.derive_rows:
        deriver = self.deriver
        pattern = [None if type(a) is Var else a for a in args]
        table = deriver.general(name, pattern)
        if table is None and inputs and not asking:
            table = deriver.over_domain(
                name, pattern, [(c, d) for (c, _), d in zip(inputs, domains, strict=True)]
            )
        if (
            table is None
            and inputs
            and not asking
            and size <= _CALL_BY_CALL * self.opts.derive_tuples
            and self._slow_calls.get(key, 0) < _CALL_BY_CALL_STRIKES
        ):
            # outside the set-at-a-time fragment (carcinogenesis' connected/2 recurses
            # down ring lists): still one call per tuple, once, rather than the numpy
            # engine once per clause -- while that is cheap: a predicate whose tables
            # took over _CALL_BY_CALL_CPU seconds _CALL_BY_CALL_STRIKES times
            # (mutagenesis' ring perception, 50% slower learning) is left to the numpy
            # engine, which calls only the tuples a clause reaches
            table = self._derive_table(lit, inputs, outputs, domains, _CALL_BY_CALL_CPU)
            if table is None:
                self._slow_calls[key] = self._slow_calls.get(key, 0) + 1
    self._derived_tables[ident] = table
    if table is not None:
        self._keep_alive.append(table)
    return table


def _demand_for(
    self: NativeBackend,
    ident: tuple[object, ...],
    lit: Term,
    key: tuple[str, int],
    inputs: list[tuple[int, Var]],
    outputs: list[tuple[int, Var]],
    binders: Mapping[Var, tuple[FactTable, int]],
    head: Mapping[Var, tuple[FactTable, int]] | None,
) -> DemandTable | None:
    """The demand-driven table for this literal, if it qualifies: its bound variables
    include head variables, whose tuples of values number at most ``derive_tuples``.

    When other bound variables are inputs too (``ring_size_6(A, B)`` with ``B`` bound by
    ``benzene(A, B)``), the table is that of the call with those free (*widened*), which
    the kernel then joins on them.  That is exact only when a bound call's answers are
    the instances of the free call's (true of pure Horn clauses, not of cut or of a test
    on a variable the caller binds), so a widened table's answers come from the
    set-at-a-time evaluator in strict mode, which refuses any call where that could fail
    (:meth:`.derive.Deriver.general`); a refusal marks the table broken."""
    if head is None or not self.opts.demand or not inputs:
        return None
    own = [(c, v) for c, v in inputs if v in head]
    if not own:
        return None
    size = 1
    for _, v in own:
        size *= len(self._domain(binders[v]))
    if size > self.opts.derive_tuples:
        return None
    if len(own) == len(inputs):
        return self._demand(ident, lit, key, inputs, outputs, binders)
    others = {c for c, v in inputs if v not in head}
    wide = ("strict", *(None if i - 1 in others else x for i, x in enumerate(ident)))
    free = sorted([*outputs, *((c, v) for c, v in inputs if c in others)], key=lambda p: p[0])
    return self._demand(wide, lit, key, own, free, binders, strict=True)


def _demand(
    self: NativeBackend,
    ident: object,
    lit: Term,
    key: tuple[str, int],
    inputs: list[tuple[int, Var]],
    outputs: list[tuple[int, Var]],
    binders: Mapping[Var, tuple[FactTable, int]],
    strict: bool = False,
) -> DemandTable | None:
    """The demand-driven table of this literal pattern (kept for the backend's
    lifetime), or None when its predicate does not start with ground facts."""
    if ident in self._demands:
        return self._demands[ident]
    leading = self._leading.get(key)
    if leading is None:
        leading = []
        for sc in self.task.program.clauses[key]:
            cl = sc.clause
            if cl.body or not is_ground(cl.head):
                leading.append(None)
                break
            leading.append(tuple(self.interner.id(a) for a in _args(cl.head)))
        self._leading[key] = leading
    args = _args(lit)
    constants = [(c, self.interner.id(a)) for c, a in enumerate(args) if type(a) is not Var]
    facts = leading_facts(leading, len(args), constants)
    demand: DemandTable | None = None
    if facts is not None:
        name = lit.name if type(lit) is Struct else str(lit)
        demand = DemandTable(name, [(c, binders[v][1]) for c, v in inputs], facts)
        self._patterns[id(demand)] = (lit, inputs, outputs)
        if strict:
            self._strict.add(id(demand))
    self._demands[ident] = demand
    return demand


def _strict_rows(
    self: NativeBackend,
    lit: Term,
    inputs: list[tuple[int, Var]],
    outputs: list[tuple[int, Var]],
    need: list[tuple[int, ...]],
) -> list[tuple[tuple[int, ...], Ids]] | None:
    """All answers of ``lit`` with its inputs bound to each tuple of ``need`` and its
    other variables free, by the strict set-at-a-time evaluator (None when it refuses)."""
    args = _args(lit)
    name = lit.name if type(lit) is Struct else str(lit)
    pattern = [None if type(a) is Var else a for a in args]
    deriver = self.deriver
    ev = deriver.evaluator
    limit = ev.max_rows
    # partial proofs as many as the resolution engine's own tables allow for the free
    # call (the answers themselves stay bounded by derive_rows); one input tuple per
    # pass, so the peak is that of one call (an exhaustive search's tables can be large)
    from ilpkit.plugins.backends.native.vectorised import MAX_ROWS  # loaded with the deriver anyway

    ev.strict, ev.max_rows = True, max(limit, MAX_ROWS)
    parts: list[Ids] = []
    try:
        for t in need:
            columns = [(c, np.array([t[k]], dtype=np.int64)) for k, (c, _) in enumerate(inputs)]
            table = deriver.over_domain(name, pattern, columns)
            if table is None:
                return None
            parts.append(table.data.reshape(-1, len(args)))
    finally:
        ev.strict, ev.max_rows = False, limit
    data = np.concatenate(parts) if parts else np.zeros((0, len(args)), dtype=np.int64)
    pos = [c for c, _ in inputs]
    groups: dict[tuple[int, ...], list[int]] = {t: [] for t in need}
    for r, t in enumerate(map(tuple, data[:, pos].tolist())):
        rows = groups.get(t)
        if rows is not None:
            rows.append(r)
    return [(t, data[np.array(rs, dtype=np.int64)]) for t, rs in groups.items()]


def _answer_rows(
    self: NativeBackend,
    lit: Term,
    inputs: list[tuple[int, Var]],
    outputs: list[tuple[int, Var]],
    combo: tuple[int, ...],
) -> list[list[int]]:
    """Interned rows of all answers of ``lit`` with its inputs bound to ``combo``."""
    terms = self.interner.terms
    base = [-1 if type(a) is Var else self.interner.id(a) for a in _args(lit)]
    goal = substitute(lit, {v: terms[i] for (_, v), i in zip(inputs, combo, strict=True)})
    rows: list[list[int]] = []
    for ans in self._solve_memo(goal, [v for _, v in outputs]):
        row = list(base)
        for (c, _), i in zip(inputs, combo, strict=True):
            row[c] = i
        for (c, _), i in zip(outputs, ans, strict=True):
            row[c] = i
        rows.append(row)
    return rows


def _derive_table(
    self: NativeBackend,
    lit: Term,
    inputs: list[tuple[int, Var]],
    outputs: list[tuple[int, Var]],
    domains: list[Ids],
    cpu_budget: float | None = None,
) -> FactTable | None:
    """The literal's answers for every tuple of ``domains``, call by call (memoised);
    None when a call errs or the calls take more than ``cpu_budget`` CPU seconds."""
    import itertools

    arity = len(_args(lit))
    rows: list[list[int]] = []
    start = time.process_time()
    try:
        for combo in itertools.product(*(d.tolist() for d in domains)):
            if cpu_budget is not None and time.process_time() - start > cpu_budget:
                return None
            rows += self._answer_rows(lit, inputs, outputs, combo)
    except (IlpkitError, RecursionError):
        return None
    data = np.array(rows, dtype=np.int64).reshape(len(rows), arity)
    name = lit.name if type(lit) is Struct else str(lit)
    return FactTable.from_array(name, data)


def _domain(self: NativeBackend, binder: tuple[FactTable, int]) -> Ids:
    table, col = binder
    key = (id(table), col)
    got = self._domains.get(key)
    if got is None:
        got = self._domains[key] = distinct(table.data[:, col])
    return got


def _head_index(self: NativeBackend, key: tuple[str, int]) -> HeadIndex:
    hix = self._heads.get(key)
    if hix is None:
        ids, table = self.example_tables[key]
        hix = self._heads[key] = HeadIndex(ids, table, self.n_examples)
    return hix


def _satisfiable(self: NativeBackend, literals: list[Term]) -> bool:
    """Whether a conjunction not linked to the head has a solution (memoised)."""
    key = Clause(Const("$component"), literals).canonical()
    known = self._components.get(key)
    if known is None:
        seed = Bindings(np.zeros(1, dtype=np.int64), {})
        known = len(self._projected(seed, list(key.body))) > 0
        self._components[key] = known
    return known
