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
from collections.abc import Iterator, Sequence
from typing import Literal

import numpy as np
from pydantic import Field, TypeAdapter, ValidationError, field_validator

from ilpkit.core.coverage import Coverage
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.safety import check_program
from ilpkit.core.task import Program, Task
from ilpkit.errors import ResourceLimitExceeded
from ilpkit.plugins.backends.base import Backend, BackendOptions, BackendStatus, describe_clause
from ilpkit.plugins.backends.native import ask, kernel_cover, kernels, table_cover
from ilpkit.plugins.backends.native.ask import Questions
from ilpkit.plugins.backends.native.components import split_independent
from ilpkit.plugins.backends.native.demand import DemandTable
from ilpkit.plugins.backends.native.derive import Deriver
from ilpkit.plugins.backends.native.engine_common import (
    _EMPTY,
    Part,
    _args,
    _indicator,
    _is_builtin,
    _match,
)
from ilpkit.plugins.backends.native.head_parts import Lineage, refined_groups, split_of
from ilpkit.plugins.backends.native.joins import Bindings
from ilpkit.plugins.backends.native.kernels import OK as KERNEL_OK
from ilpkit.plugins.backends.native.plan import HeadIndex, KernelStore
from ilpkit.plugins.backends.native.prolog.errors import _resident_bytes
from ilpkit.plugins.backends.native.store import FactTable, Ids, Interner
from ilpkit.plugins.backends.native.unfold import Definition
from ilpkit.prolog.terms import (
    Clause,
    Const,
    Struct,
    Term,
    Var,
    conjunction,
    is_ground,
    substitute,
)


class NativeOptions(BackendOptions):
    """Options of the native backend."""

    step_limit: int | None = Field(
        default=1_000_000,
        ge=1,
        description="Resolution steps allowed per query of a rule-defined predicate; None = "
        "unlimited. Lower than the Prolog engines' 10000000: native takes about 150,000 steps "
        "a second, so a loop (spin :- spin) stops in seconds, not minutes.",
    )
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
    kernel: bool | Literal["auto"] = Field(
        default="auto",
        description="Test clauses of facts and ground tests with the compiled first-solution "
        "kernel (built from C with the machine's compiler, else numba; ILPKIT_KERNEL=c|numba "
        "chooses): true, false (always the set-at-a-time engine) or auto (at once when the C "
        "kernel is built or a body mode names a rule-defined predicate, else once the "
        "set-at-a-time engine has spent kernel_after CPU seconds: building the C kernel or "
        "loading numba costs more than a small task's whole search).",
    )
    kernel_after: float = Field(
        default=0.5,
        ge=0,
        description="With kernel=auto: CPU seconds of set-at-a-time coverage after which the "
        "kernel takes over (about what building the C kernel once, or loading numba, costs).",
    )
    derive_tuples: int = Field(
        default=256,
        description="A rule-defined literal in a kernel clause is answered by the resolution "
        "engine once for every tuple of values its bound variables can take, when there are at "
        "most this many (0: never; more: derived set-at-a-time, see derive_rows).",
    )
    derived_mb: float = Field(
        default=4.0,
        ge=0,
        description="Memory for the tables derived for rule-defined literals of kernel "
        "clauses (MB, an estimate): past it they are dropped and derived again as needed.",
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

    @field_validator("kernel", mode="before")
    @classmethod
    def _kernel_value(cls, value: object) -> object:
        """One message for the three values (the union alone reports two); what a bool
        option accepts (1, "yes", ...) is still a bool."""
        if isinstance(value, str) and value.strip().lower() == "auto":
            return "auto"
        try:
            return TypeAdapter(bool).validate_python(value)
        except ValidationError:
            raise ValueError("expected true, false or auto") from None


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
        self._lineage = Lineage()
        self._parts_bytes = 0
        self._derived_tables: dict[object, FactTable | None] = {}
        self._slow_calls: dict[tuple[str, int], int] = {}  # tables given up, by predicate
        self._demands: dict[object, DemandTable | None] = {}
        self._patterns: dict[int, tuple[Term, list[tuple[int, Var]], list[tuple[int, Var]]]] = {}
        self._strict: set[int] = set()  # widened demand tables (answered in strict mode)
        self._leading: dict[tuple[str, int], list[tuple[int, ...] | None]] = {}
        self._domains: dict[tuple[int, int], Ids] = {}
        self._keep_alive: list[FactTable] = []
        self._definitions: dict[tuple[str, int], Definition | None] = {}
        self._unfold = True  # false: such literals get derived tables (tests, benchmarks)
        self.questions = Questions()
        self._ask = True  # false: no questions (.ask), as before them (tests, benchmarks)
        self._derived_limit = self.opts.derived_mb * 1e6
        self._kernel_calls = 0
        self._dropped_at = -kernel_cover._DROP_EVERY
        kernel = self.opts.kernel
        self._kernel_on: bool | None = kernel if isinstance(kernel, bool) else None
        self._engine_cpu = 0.0
        self._drawing: frozenset[tuple[str, int]] = frozenset()

    # -- loading ------------------------------------------------------------------------------
    def _load(self, task: Task) -> None:
        check_program(task, trust_data=self.options.trust_data, runs_directives=False)
        self.interner = Interner()
        self.cache.clear()
        self.cache_bytes = 0
        self.memo.clear()
        self._components = {}
        self._heads = {}
        self._parts.clear()
        self._lineage = Lineage()  # the notes on coverages made before are not this task's
        self._parts_bytes = 0
        self._derived_tables = {}
        self._slow_calls = {}
        self._demands = {}
        self._patterns = {}
        self._strict = set()
        self._leading = {}
        self._domains = {}
        self._keep_alive = []
        self._definitions = {}
        self.questions = Questions()
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
        self.kstore = self._new_store()
        self._derived_limit = self.opts.derived_mb * 1e6
        self._kernel_calls = 0
        self._dropped_at = -kernel_cover._DROP_EVERY
        self._resolution = None
        self._deriver = None
        if task.program.clauses:
            engine = self.resolution
            mode_preds = {m.indicator for m in (*task.bias.modeh, *task.bias.modeb)}
            engine.check(mode_preds & set(task.program.clauses))  # type: ignore[attr-defined]
        self._engine_cpu = 0.0
        self._kernel_on = self._kernel_choice(task)
        self._drawing = drawing_predicates(task.program)

    @classmethod
    def probe(cls) -> list[BackendStatus]:
        """Available; the variant names the compiled kernel this machine gets (``kernel=c``,
        or ``numba`` / ``python`` with the reason C is not used): loading it builds the C
        kernel if it is not built yet."""
        from ilpkit._version import __version__

        kernels._kernel()
        impl = kernels.KERNEL_IMPL
        why = "" if impl == "c" else f"no C kernel: {kernels.WHY_NOT_C}"
        return [BackendStatus(f"kernel={impl}", True, __version__, why)]

    def _kernel_choice(self, task: Task) -> bool | None:
        """Whether coverage uses the compiled kernel; None: not yet (``kernel=auto``).

        Why ``auto`` may wait: building the C kernel (once per machine, about 0.5 CPU s of the
        compiler) or importing numba and loading its kernel (every process: about 0.6 CPU s and
        130 MB) costs more than a small task's whole search, where the set-at-a-time engine
        answers a clause in 0.2-0.6 ms (trains: 38 clauses in a whole ``learn``). A C kernel
        already built loads in milliseconds, so it starts at once; so does any kernel where a
        rule-defined predicate is a body literal (its derived tables win at once:
        carcinogenesis, 58 ms a clause without them, 0.9 ms with). Both engines give the same
        answers.
        """
        if isinstance(self.opts.kernel, bool):
            return self.opts.kernel
        if any(m.indicator in task.program.clauses for m in task.bias.modeb):
            return True
        if kernels.ready():
            return True
        return None

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
            from ilpkit.plugins.backends.native.resolution import ResolutionEngine

            self._resolution = ResolutionEngine(
                _modes_dynamic(self.task),
                step_limit=self.options.step_limit,
                time_limit=self.options.timeout,
                tabling=self.opts.tabling,
                memory_limit_mb=self.opts.memory_limit_mb,
                random_seed=self.random_seed,
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
        if self._kernel_on is not None:
            return self._coverage_now(clause, among)
        start = time.process_time()
        try:
            return self._coverage_now(clause, among)
        finally:
            self._engine_cpu += time.process_time() - start
            if self._engine_cpu >= self.opts.kernel_after:
                self._kernel_on = True  # kernel=auto: the numpy engine has cost a kernel load

    def _coverage_now(self, clause: Clause, among: Coverage | None) -> Coverage:
        self.stats["evaluated"] += 1
        timeout = self.options.timeout
        now = time.monotonic()
        self._deadline = now + timeout if timeout else None
        if self.opts.memory_limit_mb is None:
            self._rss0 = None
        else:  # the baseline of the clause's growth (_resident_bytes reads /proc at most
            # every 20 ms: a search asks about cheap clauses by the thousand a second)
            self._rss0 = _resident_bytes()
        n = self.n_examples
        if self._drawing and _calls_any(clause.body, self._drawing):
            return self._cover_by_example(clause, among)
        if self._use_kernel:
            # The kernel first, on the clause as given: its answers are exact, it keeps its
            # own memo per body part (any variable names), and it never fills the numpy
            # engine's cache -- so the variant-normal form, the cache lookup and the split
            # below are only paid by clauses outside its fragment (most of a search's
            # clauses are inside: carcinogenesis 13% + 6% of a learn run's CPU).
            try:
                covered = self._kernel_cover(clause, among)
            except ResourceLimitExceeded as exc:
                raise ResourceLimitExceeded(f"{exc} (clause: {describe_clause(clause)})") from None
            if covered is not None:
                return covered
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
                return self._coverage_now(reduced, among)
            ids = self._cover(canon, among)
        except ResourceLimitExceeded as exc:
            raise ResourceLimitExceeded(f"{exc} (clause: {describe_clause(clause)})") from None
        return Coverage(ids, n, trusted=True)

    def _cover_by_example(self, clause: Clause, among: Coverage | None) -> Coverage:
        """Coverage of a clause whose body draws ``aleph_random/1`` numbers: one resolution
        query per example, so that each example's test starts the stream afresh, as in the
        Prolog engines (set-at-a-time evaluation would share one literal's draws between
        examples and restart them per literal)."""
        atoms = self.task.examples.atoms
        ids = range(self.n_examples) if among is None else among.ids.tolist()
        engine = self.resolution
        covered = []
        for i in ids:
            binding = _match(clause.head, atoms[i])
            if binding is None:
                continue
            goal = conjunction(substitute(lit, binding) for lit in clause.body)
            try:
                found = next(iter(engine.solve(goal, 1)), None)  # type: ignore[attr-defined]
            except ResourceLimitExceeded as exc:
                raise ResourceLimitExceeded(f"{exc} (clause: {describe_clause(clause)})") from None
            if found is not None:
                covered.append(i)
        return Coverage(np.array(covered, dtype=np.int64), self.n_examples, trusted=True)

    @property
    def _use_kernel(self) -> bool:
        # the kernel is loaded here, when first used (never while kernel=auto waits)
        return bool(self._kernel_on) and kernels.HAVE_COMPILED

    def _kernel_cover(self, clause: Clause, among: Coverage | None) -> Coverage | None:
        """Coverage by the compiled first-solution kernel; None when the clause is outside
        its fragment or over its step budget (the set-at-a-time engine then runs).

        The body is split into parts that share no variable outside the head; each part is
        decided once per distinct tuple of its head variables' values and the answers are
        kept (``_parts``).  When ``among`` is the coverage of a clause whose literals this
        one holds (a refinement asked about within its parent's coverage), the parts the two
        share are true of every example asked about: only the others run
        (:mod:`.head_parts`)."""
        head = clause.head
        key = _indicator(head)
        entry = self.example_tables.get(key)
        n = self.n_examples
        if entry is None:
            return Coverage(_EMPTY, n, trusted=True)
        self._bound_derived()
        hix = self._head_index(key)
        if among is None:
            rows = hix.all_rows
        elif hix.identity:
            rows = among.ids
        else:
            rows = hix.row_of[among.ids]
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
                    return Coverage(_EMPTY, n, trusted=True)
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
        body = clause.body
        lineage = self._lineage
        parent = lineage.parent(among, head, column)
        refined = None if parent is None else refined_groups(parent, body, column, head)
        if refined is None:
            split = split_of(column, list(body), head)
            todo = split.groups
        else:
            split, todo = refined
            self.stats["kernel_inherited"] = self.stats.get("kernel_inherited", 0) + 1
        parts: list[Part] = []
        rest: list[Term] = []  # parts outside the kernel's fragment, for the numpy engine
        for group in todo:
            part = self._part(key, hix, [column[v] for v in group.hv], group.hv, group.lits)
            if part is None:
                rest += group.lits
            elif part == "empty":
                return Coverage(_EMPTY, n, trusted=True)
            else:
                parts.append(part)
        if not parts and refined is None:
            return None
        parts.sort(key=lambda p: len(p.hcol))
        budget = self.opts.kernel_steps
        for part in parts:
            if len(rows) == 0:
                break
            if len(part.memo) and not part.demands:
                # Every row's answer already known (a part another clause shares): read
                # from the memo in one call, which costs less than a kernel call's
                # arguments.  The memo holds final answers only, so the kernel would
                # return the same.
                out = np.empty(len(rows), dtype=np.int64)
                k = kernels.known_rows(part.memo, part.row_keys, rows, out)
                if k >= 0:
                    rows = out[:k]
                    continue
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
            order = {id(lit): i for i, lit in enumerate(body)}
            rest.sort(key=lambda lit: order[id(lit)])
            left = Coverage(rows if hix.identity else hix.ids[rows], n, trusted=True)
            found = self._cover(Clause(head, rest).canonical(), left)
        else:
            found = rows if hix.identity else hix.ids[rows]
        lineage.keep(body, split)
        return Coverage(found, n, trusted=True, origin=lineage.note(head, body))

    # -- kernel cover (ilpkit/plugins/backends/native/kernel_cover.py) ----------
    _new_store = kernel_cover._new_store
    _bound_derived = kernel_cover._bound_derived
    _run_part = kernel_cover._run_part
    _refresh = kernel_cover._refresh
    _complete = kernel_cover._complete
    _part = kernel_cover._part
    _derived = kernel_cover._derived
    _unfolded = kernel_cover._unfolded
    _demand_for = kernel_cover._demand_for
    _demand = kernel_cover._demand
    _strict_rows = kernel_cover._strict_rows
    _answer_rows = kernel_cover._answer_rows
    _derive_table = kernel_cover._derive_table
    _domain = kernel_cover._domain
    _head_index = kernel_cover._head_index
    _satisfiable = kernel_cover._satisfiable

    # -- questions (ilpkit/plugins/backends/native/ask.py) ----------
    _run_asking = ask._run_asking
    _answer = ask._answer
    _question = ask._question

    # -- table cover (ilpkit/plugins/backends/native/table_cover.py) ----------
    _cover = table_cover._cover
    _restricted = table_cover._restricted
    _cached_parent = table_cover._cached_parent
    _table = table_cover._table
    _semi = table_cover._semi
    _projected = table_cover._projected
    _projected_cover = table_cover._projected_cover
    _join_order = table_cover._join_order
    _fan_out = table_cover._fan_out
    _chunked = table_cover._chunked
    _remember = table_cover._remember
    _check_deadline = table_cover._check_deadline
    _pure = table_cover._pure
    _head_table = table_cover._head_table
    _match_args = table_cover._match_args
    _literal = table_cover._literal
    _fact_parts = table_cover._fact_parts
    _fact_literal = table_cover._fact_literal
    _vector_builtin = table_cover._vector_builtin
    _column = table_cover._column
    _engine_literal = table_cover._engine_literal
    _solve_memo = table_cover._solve_memo

    # -- diagnostics ------------------------------------------------------------------------------
    def cache_info(self) -> dict[str, float]:
        return {
            "tables": len(self.cache),
            "bytes": self.cache_bytes,
            "limit_bytes": self.opts.cache_mb * 1e6,
            "memo_entries": len(self.memo),
            **{k: float(v) for k, v in self.stats.items()},
        }


SPEC = PluginSpec(
    kind="backend",
    name="native",
    factory=NativeBackend,
    options=NativeOptions,
    doc="Set-at-a-time numpy evaluator with a Prolog resolution engine for rules (default).",
)


def _called(body: Sequence[Term]) -> Iterator[tuple[str, int]]:
    """Every name/arity of a callable term in ``body``, nested ones included (the goals of
    ``\\+``, ``findall/3``, ...: a superset of the calls)."""
    stack = list(body)
    while stack:
        t = stack.pop()
        if type(t) is Struct:
            yield (t.name, len(t.args))
            stack.extend(t.args)
        elif type(t) is Const and isinstance(t.value, str):
            yield (t.value, 0)


def _calls_any(body: Sequence[Term], keys: frozenset[tuple[str, int]]) -> bool:
    return any(key in keys for key in _called(body))


def drawing_predicates(program: Program) -> frozenset[tuple[str, int]]:
    """The predicates whose calls may draw ``aleph_random/1`` numbers: ``aleph_random/1``
    itself (unless the program defines it) and every rule-defined predicate that may call
    one (any callable term of a body counts as a call: a superset is safe, it only sends
    more clauses to the slower per-example test)."""
    random = ("aleph_random", 1)
    if random in program.clauses or random in program.facts:
        return frozenset()
    callers: dict[tuple[str, int], set[tuple[str, int]]] = {}
    for key, clauses in program.clauses.items():
        for sc in clauses:
            for callee in _called(sc.clause.body):
                callers.setdefault(callee, set()).add(key)
    if random not in callers:
        return frozenset()
    out = {random}
    todo = [random]
    while todo:
        for caller in callers.get(todo.pop(), ()):
            if caller not in out:
                out.add(caller)
                todo.append(caller)
    return frozenset(out)


def _modes_dynamic(task: Task) -> Program:
    """``task``'s program with its mode predicates declared ``dynamic``: a call that
    resolution reaches of one the data does not define fails, as in every Prolog engine
    (whose server declares them so), instead of raising an unknown-procedure error (Aleph's
    ``false :- class(X, Y), ...`` on the target, asked by :mod:`ilpkit.core.aleph_hooks`)."""
    from dataclasses import replace

    program = task.program
    modes = {m.indicator for m in (*task.bias.modeh, *task.bias.modeb)}
    missing = modes - program.dynamic - program.clauses.keys() - program.facts.keys()
    return replace(program, dynamic=program.dynamic | missing) if missing else program
