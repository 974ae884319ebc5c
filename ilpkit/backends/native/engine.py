"""The native backend: set-at-a-time clause evaluation over interned fact tables.

How a clause ``h :- b1, ..., bn`` is evaluated (DESIGN.md, "Native engine shape"):

1. The head is matched against the example table of its predicate (restricted to ``among``):
   one binding row per example, a column per head variable.
2. Each body literal, left to right, transforms the binding table:
   a literal over a fact table is a join (index lookup on the most selective bound column,
   equality filters on the others, new columns for its unbound variables); a comparison or
   unification with bound arguments is a vectorised filter; anything else (rule-defined
   predicates, control constructs) is answered by the tuple-at-a-time resolution engine, once
   per distinct tuple of bound values (memoised).
3. The covered examples are the distinct example ids left in the table.

Refinements reuse their parent's work: every full binding table is kept in an LRU cache keyed
by the clause's canonical form (bounded in bytes), and a clause whose parent (the clause
without its last literal -- or, when only fact and comparison literals are involved, without
any one literal) is cached is evaluated by one more join on the parent's rows, restricted to
``among``.  A table that would exceed ``row_limit`` rows is evaluated in projected mode
instead: columns no later literal needs are dropped, duplicate rows merged, and the expansion
processed in chunks; such tables are not cached.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
import numpy.typing as npt
from pydantic import Field

from ilpkit.backends.base import Backend, BackendOptions, describe_clause
from ilpkit.backends.native.components import split_independent
from ilpkit.backends.native.demand import DemandTable, leading_facts
from ilpkit.backends.native.derive import Deriver
from ilpkit.backends.native.joins import Bindings, join, join_counts, semi_join
from ilpkit.backends.native.kernels import HAVE_NUMBA
from ilpkit.backends.native.kernels import OK as KERNEL_OK
from ilpkit.backends.native.plan import (
    Empty,
    HeadIndex,
    KernelStore,
    Plan,
    Refused,
    build_plan,
    head_components,
    run_plan,
)
from ilpkit.backends.native.prolog.errors import _resident_bytes
from ilpkit.backends.native.store import FactTable, Ids, Interner
from ilpkit.backends.native.vectorised import MAX_ROWS
from ilpkit.core.coverage import Coverage
from ilpkit.core.errors import DataError, IlpkitError, ResourceLimitExceeded
from ilpkit.core.safety import check_program
from ilpkit.core.task import Task
from ilpkit.core.terms import (
    Clause,
    Const,
    Struct,
    Term,
    Var,
    is_ground,
    iter_vars,
    substitute,
    term_vars,
    to_prolog,
)

COMPARISONS: Final = {
    "<": np.less,
    ">": np.greater,
    "=<": np.less_equal,
    ">=": np.greater_equal,
    "=:=": np.equal,
    "=\\=": np.not_equal,
}
_EMPTY: Final = np.zeros(0, dtype=np.int64)


@dataclass
class Part:
    """One body part as the kernel runs it, with its answers so far per tuple of head values
    (``memo``) and the demand-driven tables its plan joins (rebuilt when one grows)."""

    plan: Plan
    hcol: Ids
    strides: Ids
    memo: npt.NDArray[np.uint8]
    demands: list[DemandTable]
    versions: list[int]
    hv: list[Var]
    lits: list[Term]
    binders: dict[Var, tuple[FactTable, int]]


_BROKEN: Final = -1  # a kernel status: a demand-driven table's completion raised
_MEMO_LIMIT: Final = 1 << 22  # largest per-part answer array (entries, one byte each)
_PARTS_LIMIT: Final = 200_000


class NativeOptions(BackendOptions):
    """Options of the native backend."""

    cache_mb: float = Field(
        default=512.0, ge=0, description="Memory for cached binding tables of parent clauses (MB)."
    )
    row_limit: int = Field(
        default=5_000_000,
        ge=1,
        description="Largest binding table kept whole; larger ones are evaluated in chunks.",
    )
    tabling: bool = Field(
        default=True,
        description="Answer calls of pure rule-defined predicates set-at-a-time as tables "
        "(exact, in Prolog's order); false: always tuple-at-a-time.",
    )
    memo_entries: int = Field(
        default=200_000, ge=0, description="Memoised answers of rule-defined literals (entries)."
    )
    memory_limit_mb: float | None = Field(
        default=1024.0,
        gt=0,
        description="Memory one query of a rule-defined predicate may take (MB): built-ins "
        "check their results' sizes (lists, atoms, integers) against it and the process's "
        "growth is checked as the query runs; None = unlimited.",
    )
    kernel: bool = Field(
        default=True,
        description="Test clauses of facts and ground tests with the compiled first-solution "
        "kernel (needs numba; false: always the set-at-a-time engine).",
    )
    derive_tuples: int = Field(
        default=256,
        description="A rule-defined literal in a kernel clause is answered by the resolution "
        "engine once for every tuple of values its bound variables can take, when there are at "
        "most this many (0: never; more: derived set-at-a-time, see derive_rows).",
    )
    demand: bool = Field(
        default=True,
        description="Such a literal whose inputs are head variables, over a predicate that "
        "starts with ground facts, is decided on those facts first; complete answers are "
        "computed only for the inputs of examples they leave undecided (false: for every "
        "input at once).",
    )
    derive_rows: int = Field(
        default=2_000_000,
        ge=0,
        description="A rule-defined literal in a kernel clause is materialised (the whole "
        "relation, when its rules allow it) or tabled over every tuple of values its bound "
        "variables can take, set-at-a-time, when that takes at most this many calls and rows "
        "(0: never).",
    )
    kernel_steps: int = Field(
        default=50_000_000,
        description="Candidate facts the kernel may try per clause before handing the clause "
        "to the set-at-a-time engine.",
    )


class NativeBackend(Backend):
    """Coverage and saturation without Prolog (the default backend)."""

    name = "native"

    def __init__(self, options: NativeOptions | None = None) -> None:
        super().__init__(options if options is not None else NativeOptions())
        self.opts: NativeOptions = self.options  # type: ignore[assignment]
        self.interner = Interner()
        self.facts: dict[tuple[str, int], FactTable] = {}
        self.example_tables: dict[tuple[str, int], tuple[Ids, FactTable]] = {}
        self.cache: OrderedDict[Clause, Bindings] = OrderedDict()
        self.cache_bytes = 0
        self.memo: OrderedDict[Term, list[tuple[int, ...]]] = OrderedDict()
        self.stats = {"evaluated": 0, "cache_hits": 0, "joins": 0, "engine_calls": 0}
        self._resolution: object | None = None
        self._deriver: Deriver | None = None
        self._deadline: float | None = None
        self._rss0: int | None = None
        self._components: dict[Clause, bool] = {}
        self._last_restriction: tuple[Bindings, Coverage, Bindings] | None = None
        self._parent_requests: OrderedDict[Clause, int] = OrderedDict()
        self.kstore = KernelStore()
        self._heads: dict[tuple[str, int], HeadIndex] = {}
        self._parts: OrderedDict[object, Part] = OrderedDict()
        self._parts_bytes = 0
        self._derived_tables: dict[object, FactTable | None] = {}
        self._slow_calls: set[tuple[str, int]] = set()
        self._demands: dict[object, DemandTable | None] = {}
        self._patterns: dict[int, tuple[Term, list[tuple[int, Var]], list[tuple[int, Var]]]] = {}
        self._strict: set[int] = set()  # widened demand tables (answered in strict mode)
        self._leading: dict[tuple[str, int], list[tuple[int, ...] | None]] = {}
        self._domains: dict[tuple[int, int], Ids] = {}
        self._keep_alive: list[FactTable] = []

    # -- loading ------------------------------------------------------------------------------
    def _load(self, task: Task) -> None:
        check_program(task, trust_data=self.options.trust_data, runs_directives=False)
        self.interner = Interner()
        self.cache.clear()
        self.cache_bytes = 0
        self.memo.clear()
        self._components = {}
        self.kstore = KernelStore()
        self._heads = {}
        self._parts.clear()
        self._parts_bytes = 0
        self._derived_tables = {}
        self._slow_calls = set()
        self._demands = {}
        self._patterns = {}
        self._strict = set()
        self._leading = {}
        self._domains = {}
        self._keep_alive = []
        self.facts = {
            key: FactTable(key[0], key[1], rows, self.interner)
            for key, rows in task.program.facts.items()
        }
        by_pred: dict[tuple[str, int], list[int]] = {}
        for i, atom in enumerate(task.examples.atoms):
            key = (atom.name, len(atom.args)) if type(atom) is Struct else (str(atom), 0)
            by_pred.setdefault(key, []).append(i)
        self.example_tables = {}
        for key, ids in by_pred.items():
            rows = [
                a.args if type(a) is Struct else () for a in (task.examples.atoms[i] for i in ids)
            ]
            self.example_tables[key] = (
                np.array(ids, dtype=np.int64),
                FactTable(key[0], key[1], rows, self.interner),
            )
        self._resolution = None
        self._deriver = None
        if task.program.clauses:
            engine = self.resolution
            mode_preds = {m.indicator for m in (*task.bias.modeh, *task.bias.modeb)}
            engine.check(mode_preds & set(task.program.clauses))  # type: ignore[attr-defined]

    @property
    def deriver(self) -> Deriver:
        """Derived tables of rule-defined literals (built on first use)."""
        if self._deriver is None:
            self._deriver = Deriver(
                self.resolution, self.interner, self.facts, self.opts.derive_rows
            )
        return self._deriver

    @property
    def resolution(self) -> object:
        """The tuple-at-a-time engine for rule-defined predicates (built on first use)."""
        if self._resolution is None:
            from ilpkit.backends.native.resolution import ResolutionEngine

            self._resolution = ResolutionEngine(
                self.task.program,
                step_limit=self.options.step_limit,
                time_limit=self.options.timeout,
                tabling=self.opts.tabling,
                memory_limit_mb=self.opts.memory_limit_mb,
            )
        return self._resolution

    def close(self) -> None:
        self.cache.clear()
        self.memo.clear()
        self.cache_bytes = 0

    # -- saturation -----------------------------------------------------------------------------
    def answers(self, goal: Term, max_answers: int | None) -> list[Term]:
        key = _indicator(goal)
        table = self.facts.get(key)
        if table is not None and all(type(a) is Var or is_ground(a) for a in _args(goal)):
            return self._fact_answers(goal, table, max_answers)
        if table is not None:  # compound arguments with variables, e.g. has(t1, car(X, Y))
            return self._pattern_answers(goal, table, max_answers)
        if key in self.task.program.clauses or _is_builtin(key):
            out = []
            for sol in self.resolution.solve(goal, max_answers):  # type: ignore[attr-defined]
                out.append(sol)
            return out
        return []

    def _pattern_answers(self, goal: Term, table: FactTable, limit: int | None) -> list[Term]:
        """Facts (in order) matching a goal whose compound arguments hold variables."""
        terms = self.interner.terms
        out: list[Term] = []
        for row in table.data.tolist():
            fact = Struct(table.name, tuple(terms[x] for x in row))
            if _match(goal, fact) is not None:
                out.append(fact)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def _fact_answers(self, goal: Term, table: FactTable, limit: int | None) -> list[Term]:
        args = _args(goal)
        bound = []
        first: dict[Var, int] = {}
        same: list[tuple[int, int]] = []
        for c, a in enumerate(args):
            if type(a) is Var:
                if a in first:
                    same.append((first[a], c))
                else:
                    first[a] = c
            else:
                i = self.interner.lookup(a)
                if i is None:
                    return []
                bound.append((c, i))
        out: list[Term] = []
        terms = self.interner.terms
        name = table.name
        for r in table.rows_matching(tuple(bound)):
            row = table.data[r]
            if any(row[a] != row[b] for a, b in same):
                continue
            out.append(Struct(name, tuple(terms[int(x)] for x in row)))
            if limit is not None and len(out) >= limit:
                break
        return out

    # -- coverage -------------------------------------------------------------------------------
    def coverage_many(
        self, clauses: Sequence[Clause], among: Coverage | None = None
    ) -> list[Coverage]:
        """Coverage of each clause; clauses that share a parent reuse its cached table."""
        self._check_among(among)
        return [self._coverage(c, among) for c in clauses]

    def _coverage(self, clause: Clause, among: Coverage | None) -> Coverage:
        self.stats["evaluated"] += 1
        timeout = self.options.timeout
        self._deadline = time.monotonic() + timeout if timeout else None
        self._rss0 = _resident_bytes() if self.opts.memory_limit_mb is not None else None
        n = self.n_examples
        if self._use_kernel:
            # The kernel first, on the clause as given: its answers are exact, it keeps its
            # own memo per body part (any variable names), and it never fills the numpy
            # engine's cache -- so the variant-normal form, the cache lookup and the split
            # below are only paid by clauses outside its fragment (most of a search's
            # clauses are inside: carcinogenesis 13% + 6% of a learn run's CPU).
            try:
                ids = self._kernel_cover(clause, among)
            except ResourceLimitExceeded as exc:
                raise ResourceLimitExceeded(f"{exc} (clause: {describe_clause(clause)})") from None
            if ids is not None:
                return Coverage(ids, n, trusted=True)
        canon = clause.canonical()
        cached = self.cache.get(canon)
        if cached is not None:
            self.cache.move_to_end(canon)
            self.stats["cache_hits"] += 1
            table = cached if among is None else cached.restrict(among.ids)
            return Coverage(table.covered(), n, trusted=True)
        try:
            connected, independent = split_independent(canon.head, canon.body, self._pure)
            if independent:
                # parts not linked to the head: one yes/no question each
                if not all(self._satisfiable(part) for part in independent):
                    return Coverage.empty(n)
                reduced = Clause(canon.head, connected).canonical()
                return self._coverage(reduced, among)
            ids = self._cover(canon, among)
        except ResourceLimitExceeded as exc:
            raise ResourceLimitExceeded(f"{exc} (clause: {describe_clause(clause)})") from None
        return Coverage(ids, n, trusted=True)

    @property
    def _use_kernel(self) -> bool:
        return self.opts.kernel and HAVE_NUMBA

    def _kernel_cover(self, clause: Clause, among: Coverage | None) -> Ids | None:
        """Covered ids by the compiled first-solution kernel; None when the clause is
        outside its fragment or over its step budget (the set-at-a-time engine then runs).

        The body is split into parts that share no variable outside the head; each part is
        decided once per distinct tuple of its head variables' values and the answers are
        kept (``_parts``), so the parts a refinement shares with its parent cost nothing."""
        head = clause.head
        key = _indicator(head)
        entry = self.example_tables.get(key)
        if entry is None:
            return _EMPTY
        hix = self._head_index(key)
        rows = np.arange(len(hix.ids), dtype=np.int64) if among is None else hix.row_of[among.ids]
        if among is not None:
            rows = rows[rows >= 0]
        column: dict[Var, int] = {}
        checks: list[tuple[int, int]] = []  # head columns that must be equal
        constants: list[tuple[int, int]] = []  # (id, column)
        for c, a in enumerate(_args(head)):
            if type(a) is Var:
                if a in column:
                    checks.append((column[a], c))
                else:
                    column[a] = c
            elif is_ground(a):
                i = self.interner.lookup(a)
                if i is None:
                    return _EMPTY
                constants.append((i, c))
            else:
                return None
        if checks or constants:
            data = entry[1].data[rows]
            mask = np.ones(len(rows), dtype=bool)
            for c0, c in checks:
                mask &= data[:, c0] == data[:, c]
            for i, c in constants:
                mask &= data[:, c] == i
            rows = rows[mask]
        parts: list[Part] = []
        rest: list[Term] = []  # parts outside the kernel's fragment, for the numpy engine
        for hv, lits in head_components(set(column), list(clause.body)):
            part = self._part(key, hix, [column[v] for v in hv], hv, lits)
            if part is None:
                rest += lits
            elif part == "empty":
                return _EMPTY
            else:
                parts.append(part)
        if not parts:
            return None
        parts.sort(key=lambda p: len(p.hcol))
        budget = self.opts.kernel_steps
        for part in parts:
            if len(rows) == 0:
                break
            try:
                covered, status, steps = self._run_part(key, hix, part, rows, budget)
            except BaseException:
                part.memo[:] = 0  # answers of inputs not yet completed may be in it
                raise
            if status != KERNEL_OK:
                part.memo[:] = 0
                return None
            budget -= steps
            rows = rows[covered.view(bool)]
        self.stats["kernel"] = self.stats.get("kernel", 0) + 1
        if rest and len(rows):
            # Only examples every pure part admits reach the others, so each literal there
            # is called exactly where Prolog would reach it as well.
            order = {id(lit): i for i, lit in enumerate(clause.body)}
            rest.sort(key=lambda lit: order[id(lit)])
            left = Coverage(hix.ids[rows], self.n_examples, trusted=True)
            return self._cover(Clause(head, rest).canonical(), left)
        return hix.ids[rows]

    def _run_part(
        self, key: tuple[str, int], hix: HeadIndex, part: Part, rows: Ids, budget: int
    ) -> tuple[npt.NDArray[np.uint8], int, int]:
        """``(covered, status, steps)`` of one part on ``rows``.  With demand-driven tables
        (:mod:`.demand`), the rows the tables known so far leave undecided get their inputs'
        complete answers and are decided again, so every answer is final."""
        numeric = self.interner.numeric()
        self._refresh(part)
        covered, status, steps = run_plan(
            part.plan, hix, rows, part.hcol, part.strides, part.memo, self.kstore, numeric,
            budget, self._check_deadline,
        )  # fmt: skip
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
            keys = np.zeros(len(undecided), dtype=np.int64)
            arity = hix.arity
            for j, c in enumerate(part.hcol.tolist()):
                keys += hix.ranks[undecided * arity + c] * part.strides[j]
            part.memo[keys] = 0
        again, status, more = run_plan(
            part.plan, hix, undecided, part.hcol, part.strides, part.memo, self.kstore,
            numeric, budget - steps, self._check_deadline,
        )  # fmt: skip
        covered[open_] = again
        return covered, status, steps + more

    def _refresh(self, part: Part) -> None:
        """Rebuild the plan of a part when one of its demand-driven tables has grown."""
        if all(d.version == v for d, v in zip(part.demands, part.versions, strict=True)):
            return
        tables = {id(d): d for d in part.demands}
        part.plan = build_plan(
            part.hv, part.lits, self.facts, self.interner, self.kstore,
            lambda lit, fb: self._derived(lit, fb, part.binders, None, tables),
            part.binders,
        )  # fmt: skip
        part.versions = [d.version for d in part.demands]

    def _complete(self, demand: DemandTable, need: list[tuple[int, ...]]) -> None:
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
        self,
        key: tuple[str, int],
        hix: HeadIndex,
        cols: list[int],
        hv: list[Var],
        lits: list[Term],
    ) -> Part | Literal["empty"] | None:
        """The plan of one body part and its answers so far per tuple of head values
        (cached; None when outside the kernel's fragment)."""
        ident = _part_key(key, hv, cols, lits)
        got = self._parts.get(ident)
        if got is not None:
            self._parts.move_to_end(ident)
            return None if any(d.broken for d in got.demands) else got
        binders = {v: (hix.table, c) for v, c in zip(hv, cols, strict=True)}
        used: list[DemandTable] = []
        try:
            plan = build_plan(
                hv, lits, self.facts, self.interner, self.kstore,
                lambda lit, fb: self._derived(lit, fb, binders, used),
                binders,
            )  # fmt: skip
        except Empty:
            return "empty"
        except Refused:
            return None
        strides = np.zeros(len(cols), dtype=np.int64)
        size = 1
        for j in range(len(cols) - 1, -1, -1):
            strides[j] = size
            size *= hix.dims[cols[j]]
        memo = np.zeros(size if size <= _MEMO_LIMIT else 0, dtype=np.uint8)
        part = Part(
            plan, np.array(cols, dtype=np.int64), strides, memo, used,
            [d.version for d in used], hv, lits, binders,
        )  # fmt: skip
        self._parts[ident] = part
        self._parts_bytes += memo.nbytes
        while self._parts and (
            len(self._parts) > _PARTS_LIMIT or self._parts_bytes > self.opts.cache_mb * 1e6 / 4
        ):
            _, old = self._parts.popitem(last=False)
            self._parts_bytes -= old.memo.nbytes
        return part

    def _derived(
        self,
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
        if size <= self.opts.derive_tuples:
            table = self._derive_table(lit, inputs, outputs, domains)
        elif args and self.opts.derive_rows:
            deriver = self.deriver
            pattern = [None if type(a) is Var else a for a in args]
            table = deriver.general(name, pattern)
            if table is None and inputs:
                table = deriver.over_domain(
                    name, pattern, [(c, d) for (c, _), d in zip(inputs, domains, strict=True)]
                )
            if (
                table is None
                and inputs
                and size <= _CALL_BY_CALL * self.opts.derive_tuples
                and key not in self._slow_calls
            ):
                # outside the set-at-a-time fragment (carcinogenesis' connected/2 recurses
                # down ring lists): still one call per tuple, once, rather than the numpy
                # engine once per clause -- while that is cheap: a predicate whose table
                # takes over _CALL_BY_CALL_CPU seconds (mutagenesis' ring perception, 50%
                # slower learning) is left to the numpy engine, which calls only the
                # tuples a clause reaches
                table = self._derive_table(lit, inputs, outputs, domains, _CALL_BY_CALL_CPU)
                if table is None:
                    self._slow_calls.add(key)
        self._derived_tables[ident] = table
        if table is not None:
            self._keep_alive.append(table)
        return table

    def _demand_for(
        self,
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
        self,
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
        self,
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
        self,
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
        self,
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

    def _domain(self, binder: tuple[FactTable, int]) -> Ids:
        table, col = binder
        key = (id(table), col)
        got = self._domains.get(key)
        if got is None:
            got = self._domains[key] = np.unique(table.data[:, col])
        return got

    def _head_index(self, key: tuple[str, int]) -> HeadIndex:
        hix = self._heads.get(key)
        if hix is None:
            ids, table = self.example_tables[key]
            hix = self._heads[key] = HeadIndex(ids, table, self.n_examples)
        return hix

    def _satisfiable(self, literals: list[Term]) -> bool:
        """Whether a conjunction not linked to the head has a solution (memoised)."""
        key = Clause(Const("$component"), literals).canonical()
        known = self._components.get(key)
        if known is None:
            seed = Bindings(np.zeros(1, dtype=np.int64), {})
            known = len(self._projected(seed, list(key.body))) > 0
            self._components[key] = known
        return known

    def _cover(self, clause: Clause, among: Coverage | None) -> Ids:
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

    def _restricted(self, table: Bindings, among: Coverage) -> Bindings:
        """``table`` restricted to ``among``; the refinements of one parent share both, so
        the last restriction is remembered."""
        last = self._last_restriction
        if last is not None and last[0] is table and last[1] is among:
            return last[2]
        result = table.restrict(among.ids)
        self._last_restriction = (table, among, result)
        return result

    def _cached_parent(self, clause: Clause) -> tuple[Bindings, Term] | None:
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

    def _table(self, clause: Clause) -> Bindings | None:
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

    def _semi(self, table: Bindings, lit: Term) -> Ids:
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

    def _projected(self, table: Bindings, literals: list[Term]) -> Bindings:
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

    def _projected_cover(self, table: Bindings, literals: list[Term]) -> Ids:
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

    def _join_order(self, bound: set[Var], literals: list[Term]) -> list[Term]:
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

    def _fan_out(self, lit: Term, bound: set[Var]) -> float:
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

    def _chunked(self, table: Bindings, literals: list[Term]) -> Bindings:
        parts = []
        size = max(1, len(table) // 8)
        for start in range(0, len(table), size):
            self._check_deadline(literals[0] if literals else None)
            chunk = table.take(np.arange(start, min(start + size, len(table))))
            parts.append(self._projected(chunk, literals).ex)
        ex = np.unique(np.concatenate(parts)) if parts else _EMPTY
        return Bindings(ex, {})

    def _remember(self, key: Clause, table: Bindings) -> None:
        limit = self.opts.cache_mb * 1e6
        size = table.nbytes
        if size > limit / 4:
            return
        self.cache[key] = table
        self.cache_bytes += size
        while self.cache_bytes > limit and self.cache:
            _, old = self.cache.popitem(last=False)
            self.cache_bytes -= old.nbytes

    def _check_deadline(self, lit: Term | None = None) -> None:
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

    def _pure(self, lit: Term) -> bool:
        """Literals whose answers do not depend on evaluation order (facts, comparisons)."""
        key = _indicator(lit)
        if key in self.facts:
            return True
        return key in {(op, 2) for op in COMPARISONS} or key in {("=", 2), ("\\=", 2)}

    # -- head ---------------------------------------------------------------------------------
    def _head_table(self, head: Term, among: Coverage | None) -> Bindings:
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
        self, table: Bindings, args: tuple[Term, ...], data: Ids, _: object
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
        self, table: Bindings, lit: Term, rest: list[Term], force: bool = False
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
        self, table: Bindings, args: tuple[Term, ...]
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
        self, table: Bindings, facts: FactTable, args: tuple[Term, ...], force: bool = False
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

    def _vector_builtin(self, table: Bindings, lit: Term) -> Bindings | None:
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
                return Bindings(
                    table.ex, {**table.cols, left: np.broadcast_to(rv, len(table)).copy()}
                )
            if name == "=" and type(right) is Var and rv is None and lv is not None:
                return Bindings(
                    table.ex, {**table.cols, right: np.broadcast_to(lv, len(table)).copy()}
                )
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

    def _column(self, table: Bindings, arg: Term) -> Ids | None:
        """Ids of ``arg`` per row (bound variable or ground term), or None when unbound."""
        if type(arg) is Var:
            return table.cols.get(arg)
        if is_ground(arg):
            i = self.interner.id(arg)
            return np.full(len(table), i, dtype=np.int64)
        return None

    def _engine_literal(self, table: Bindings, lit: Term, force: bool = False) -> Bindings | None:
        """Answer ``lit`` with the resolution engine, once per distinct bound tuple."""
        lit_vars = term_vars([lit])
        bound = [v for v in lit_vars if v in table.cols]
        free = [v for v in lit_vars if v not in table.cols]
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

    def _solve_memo(self, goal: Term, free: list[Var]) -> list[tuple[int, ...]]:
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

    # -- diagnostics ------------------------------------------------------------------------------
    def cache_info(self) -> dict[str, float]:
        return {
            "tables": len(self.cache),
            "bytes": self.cache_bytes,
            "limit_bytes": self.opts.cache_mb * 1e6,
            "memo_entries": len(self.memo),
            **{k: float(v) for k, v in self.stats.items()},
        }


COMPARISONS_2: Final = frozenset((op, 2) for op in COMPARISONS)
_UNIFY: Final = frozenset({("=", 2), ("\\=", 2), ("==", 2), ("\\==", 2)})


_CALL_BY_CALL: Final = 16
"""A rule-defined literal the set-at-a-time evaluator refuses is still tabled call by call
over its domain when that has at most this many times ``derive_tuples`` tuples..."""
_CALL_BY_CALL_CPU: Final = 0.2
"""... and takes at most this many CPU seconds (else its predicate is never tried so again)."""


def _part_key(
    key: tuple[str, int], hv: list[Var], cols: list[int], lits: list[Term]
) -> tuple[object, ...]:
    """The memo key of a body part: the same for two parts that are variants reading the
    same head columns.  The head variable at column ``c`` is ``-1 - c``, the others are
    numbered by first occurrence (counting the head variables first).  Literals whose
    arguments are all variables or atomic (bottom-clause literals) are spelled as flat
    tuples, several times cheaper than renaming them (the key is built for every clause a
    search evaluates); others are renamed terms."""
    names: dict[Var, int] = {v: -1 - c for v, c in zip(hv, cols, strict=True)}
    out: list[object] = [key]
    for lit in lits:
        args = lit.args if type(lit) is Struct else ()
        if any(type(a) is Struct for a in args):
            for v in iter_vars(lit):
                if v not in names:
                    names[v] = len(names)
            out.append(substitute(lit, {v: Var(f"_{i}") for v, i in names.items()}))
            continue
        out.append(lit.name if type(lit) is Struct else lit)
        out.append(len(args))
        for a in args:
            if type(a) is Var:
                i = names.get(a)
                if i is None:
                    i = names[a] = len(names)
                out.append(i)
            else:
                out.append(a)
    return tuple(out)


def _indicator(term: Term) -> tuple[str, int]:
    if type(term) is Struct:
        return (term.name, len(term.args))
    if type(term) is Const:
        return (str(term.value), 0)
    return ("", -1)


def _args(term: Term) -> tuple[Term, ...]:
    return term.args if type(term) is Struct else ()


def _is_builtin(key: tuple[str, int]) -> bool:
    from ilpkit.backends.native.resolution import BUILTINS

    return key in BUILTINS


def _match(pattern: Term, instance: Term) -> dict[Var, Term] | None:
    """One-way matching: the substitution making ``pattern`` equal to ``instance``."""
    out: dict[Var, Term] = {}
    stack = [(pattern, instance)]
    while stack:
        p, t = stack.pop()
        if type(p) is Var:
            prev = out.get(p)
            if prev is None:
                out[p] = t
            elif prev != t:
                return None
        elif type(p) is Struct:
            if type(t) is not Struct or t.name != p.name or len(t.args) != len(p.args):
                return None
            stack.extend(zip(p.args, t.args, strict=True))
        elif p != t:
            return None
    return out


def _renaming(clause: Clause, canonical: Clause) -> dict[Var, Term]:
    """Variables of ``clause`` -> their names in its canonical form."""
    binding = _match(clause.to_term(), canonical.to_term())
    assert binding is not None
    return dict(binding)
