"""A small Prolog interpreter for the rule-defined predicates of a background program.

Why it exists: the native backend evaluates clause bodies set-at-a-time with numpy joins over
fact tables.  Background knowledge, however, is often real Prolog (mutagenesis' ``bk.pl`` uses
cut, ``not/1``, ``\\+``, ``name/2``, list recursion and arithmetic).  Such literals are answered
here, tuple-at-a-time, with the semantics SWI-Prolog gives them, so that swapping the backend
never changes a coverage set (DESIGN.md, promise 2).

Shape of the machine (why it is fast enough in pure Python, and never hits the recursion limit):

* Runtime terms are plain Python values: an atom is a ``str``, numbers are ``int``/``float``
  (distinct, as in Prolog), strings are :class:`~ilpkit.prolog.terms.Str`, a compound is a
  ``tuple`` ``(name, arg1, ..., argN)`` and a variable is a mutable :class:`Ref` cell.  Lists
  are ``('.', H, T)`` ending in ``'[]'``, as in :mod:`ilpkit.prolog.terms`.
* Clauses are compiled once into *templates*: clause variables become frame slots
  (:class:`_Slot`), compounds holding variables become :class:`_Tmpl`, ground sub-terms are
  shared as they are.  Head unification matches templates against the call's arguments
  directly, so a call binds head variables without copying the clause.
* Bodies are compiled into instruction sequences.  The solver keeps an explicit continuation
  (a linked list of ``(sequence, position, frame, cut barrier, next)`` nodes) and an explicit
  choicepoint stack, so recursion depth costs heap, not Python stack: a 10,000-element
  ``length/2`` written in Prolog runs fine.  Bindings are undone from a trail.
* Cut is implemented with cut barriers (the choicepoint-stack height when the clause was
  called); ``->``, ``\\+``, ``call/N`` and ``findall/3`` make the barrier opaque as Prolog does.
* Facts of ``program.facts`` are callable.  Each fact predicate gets, lazily, a hash index per
  argument position as calls first bind that position (value -> rows, in fact order); a call
  scans the smallest bucket among its bound arguments, so ``bond(D, A, B, T)`` with ``D`` and
  ``A`` bound looks at A's few bonds, not at every bond of the drug.  Every bucket keeps fact
  order, so the answers and their order are those of a full scan.  Rule predicates get
  first-argument indexing over their clauses (which also avoids useless choicepoints).
* Steps: every call and every retry of a choicepoint counts one step, so a failure-driven
  infinite loop hits ``step_limit`` as surely as infinite recursion.  (SWI's inference count
  does not count retries; expect more steps here than ``statistics(inferences, _)`` shows.)

Where the pieces live (:mod:`ilpkit.plugins.backends.native.prolog`, one module per section):
runtime terms and unification (``terms``), errors and limits (``errors``), arithmetic (``arith``),
number and text syntax (``text``), the built-ins (``builtins_core``, ``builtins_text``,
``builtins_lists``, ``builtins_control``), the Prolog-defined library and the tables of
refused and system predicates (``library``), clause compilation (``compile``) and the solver
(``machine``).  This module is the engine over them; :mod:`.vectorised` imports only those
modules, so the import between the two runs one way (resolution -> vectorised).

Numbers follow SWI-Prolog's defaults (``prefer_rationals=false``, ``iso=false``): ``/`` of two
integers is an integer when exact and a float otherwise, ``**`` and ``^`` of integers are
integers for non-negative exponents, ``//`` truncates toward zero, ``1 =:= 1.0`` is true but
``1 == 1.0`` is false, and floats sort before equal integers in the standard order.  The
standard order is SWI's: ``Var < Number < String < [] < Atom < Compound`` and ``[]`` is the
reserved empty-list constant (``atom([])`` fails, as in SWI-Prolog 7+).

Known differences from SWI-Prolog, all documented choices:

* Lists use ``'.'/2`` (ilpkit's representation), so ``functor([a], N, A)`` gives ``N = '.'``
  where SWI-Prolog 7 says ``'[|]'``.  ``[]`` and ``'[]'`` are one term here; text built-ins
  read it as the two characters ``[]`` (SWI: ``atom_length([], 0)``).
* Text built-ins write floats as SWI does (shortest round-trip digits; ``1.0e+15`` from 16
  digits on, ``1.0e-5`` below 0.0001); ``term_to_atom/2`` uses ilpkit's writer, whose float
  and variable spelling may differ from SWI's ``writeq``.
* Side effects (assert/retract, I/O, shell, loading code, global variables, random numbers)
  are refused: :meth:`ResolutionEngine.check` reports them at load time with the source
  location, and a call reached dynamically raises :class:`UnsupportedConstruct`.
* ``catch/3`` and ``throw/1`` work; built-in errors carry ISO-shaped error terms
  (``error(type_error(T, Culprit), _)`` and so on) but messages are ilpkit's own.
* Rationals, coroutining (``freeze/2``, ``dif/2``), tabling, modules (a ``M:G`` goal simply
  calls ``G``) and attributed variables are not supported.
* A user definition of a system built-in (e.g. ``length/2``) is ignored, as SWI-Prolog does
  after reporting a permission error; library predicates (``append/3``, ``member/2``,
  ``maplist/3``, ...) are overridden by user definitions, as with SWI's autoloader, and
  library code keeps calling its own helpers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Final

from ilpkit.core.task import Program
from ilpkit.errors import DataError
from ilpkit.plugins.backends.native import vectorised
from ilpkit.plugins.backends.native.prolog.arith import _REFUSED_FUNCS
from ilpkit.plugins.backends.native.prolog.builtins_core import (
    _CTRL,
    _DET,
    _GEN,
    _LIBRARY_NATIVE,
    Key,
)
from ilpkit.plugins.backends.native.prolog.compile import (
    _I_CALL,
    _I_CALL1,
    _I_CALLVAR,
    _I_CUT,
    _I_FAIL,
    _I_ITE,
    _I_NOT,
    _I_OR,
    _I_SOFT,
    _K_CTRL,
    _K_DET,
    _K_FACTS,
    _K_FAIL,
    _K_GEN,
    _K_REFUSED,
    _K_UNDEF,
    _K_USER,
    _CClause,
    _Ctx,
    _first_arg_key,
    _Pred,
)
from ilpkit.plugins.backends.native.prolog.errors import (
    _HINT,
    DEFAULT_MEMORY_LIMIT_MB,
    PrologRuntimeError,
    UnsupportedConstruct,
    _inst_err,
    _pi,
    _Throw,
    _type_err,
)
from ilpkit.plugins.backends.native.prolog.library import (
    _ARITH_PREDS,
    _CONTROL,
    _META_ARGS,
    _OUTPUT_ONLY,
    _REFUSED,
    _SYSTEM,
    BUILTINS,
    SYSTEM_PREDICATES,
    _library_clauses,
)
from ilpkit.plugins.backends.native.prolog.machine import _Machine
from ilpkit.plugins.backends.native.prolog.terms import (
    _FAST,
    RT,
    Ref,
    _cyclic,
    _deref,
    _from_term,
    _is_ground,
    _render,
    _shorten,
    _Slot,
    _slot,
    _Tmpl,
    _VarNamer,
)
from ilpkit.prolog.terms import Clause, Const, Struct, Term, Var, to_prolog

__all__ = [
    "BUILTINS",
    "SYSTEM_PREDICATES",
    "PrologRuntimeError",
    "ResolutionEngine",
    "UnsupportedConstruct",
]

# --------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------


class _TooLarge(Exception):
    """A call argument beyond :data:`_PLAIN_NODES` compounds (huge, shared or cyclic)."""


_PLAIN_NODES: Final = 1 << 16
"""Compounds of the ground arguments of a call answered set-at-a-time: a larger argument
(a cyclic one has no end) is left to the machine, which handles cycles and limits."""


def _plain(t: RT, budget: list[int]) -> RT:
    """A ground term without :class:`Ref` cells (the spine of a list walked in a loop);
    :class:`_TooLarge` once ``budget[0]`` compounds are spent."""
    t = _deref(t)
    if type(t) is not tuple:
        return t
    spine = []
    while type(t) is tuple:
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooLarge
        spine.append(t)
        t = _deref(t[-1])
    out = t
    for c in reversed(spine):
        out = (c[0], *(_plain(a, budget) for a in c[1:-1]), out)
    return out


_GIVE_UP: Final = 20
"""Calls of one pattern outside the set-at-a-time fragment before it is no longer tried."""
_MAX_TABLES: Final = 200_000


class ResolutionEngine:
    """SLD resolution (depth-first, clause order, cut) over a :class:`Program`.

    ``step_limit`` bounds the resolution steps of one query (every call and every retry
    counts) and ``time_limit`` its wall-clock seconds, ``memory_limit_mb`` how much it may
    grow the process (built-ins check their results' sizes before building them, and the
    resident size is read every 2,048 steps); exceeding any raises
    :class:`~ilpkit.errors.ResourceLimitExceeded` naming the query and the calling clause,
    and the engine stays usable.  ``allow`` names refused constructs (``"format/2"`` or just
    ``"format"``) that :meth:`check` should let through: output predicates then succeed
    silently, anything else raises :class:`UnsupportedConstruct` if it is actually reached.
    """

    def __init__(
        self,
        program: Program,
        *,
        step_limit: int | None = 1_000_000,
        time_limit: float | None = None,
        allow: frozenset[str] | None = None,
        tabling: bool = True,
        memory_limit_mb: float | None = DEFAULT_MEMORY_LIMIT_MB,
        random_seed: int = 0,
    ) -> None:
        self.program = program
        self.random_seed = random_seed
        """Seed of ``aleph_random/1``'s stream, restarted at every query."""
        self.step_limit = step_limit
        self.time_limit = time_limit
        self.memory_limit: int | None = (
            None if memory_limit_mb is None else int(memory_limit_mb * 2**20)
        )
        """Bytes one query may grow the process by (see :meth:`_Machine.charge`)."""
        self.allow = frozenset(allow) if allow else frozenset()
        self.last_steps = 0
        """Resolution steps used by the most recent query (for benchmarks and reports)."""
        self._libsrc = _library_clauses()
        self._user: dict[Key, _Pred] = {}
        self._lib: dict[Key, _Pred] = {}
        self._shared: dict[Key, _Pred] = {}
        self._dyn_ctx = _Ctx("call/1", None, None, False)
        self.tabling = tabling
        """Answer calls of pure predicates set-at-a-time (:mod:`.vectorised`), once per call."""
        self._evaluator: Any = None
        self._tables: dict[Any, list[tuple[RT, ...]] | None] = {}
        self._untabled: dict[Any, int] = {}

    # -- tables ----------------------------------------------------------------------------------
    def _tabled(self, pred: _Pred, args: list[RT]) -> list[tuple[RT, ...]] | None:
        """The answers of a call, in Prolog order with Prolog's duplicates, computed
        set-at-a-time once per call (arguments ground or free variables); None when the
        call is outside the evaluator's fragment (the machine then resolves it)."""
        args = [_deref(a) for a in args]
        pattern = (pred.key, tuple(type(a) is Ref for a in args))
        if self._untabled.get(pattern, 0) >= _GIVE_UP:
            # before the arguments are walked: a recursion down a long list would walk
            # the rest of the list at every level (quadratic)
            return None
        vals: list[RT] = []
        budget = [_PLAIN_NODES]
        for a in args:
            if type(a) is Ref:
                vals.append(None)
            elif _is_ground(a):
                try:
                    vals.append(_plain(a, budget))
                except (_TooLarge, RecursionError):
                    return None
            else:
                return None
        key = (pred.key, tuple(None if v is None else vectorised._ikey(v) for v in vals))
        if key in self._tables:
            return self._tables[key]
        if self._evaluator is None:
            self._evaluator = vectorised.Evaluator(self)
        try:
            rows: list[tuple[RT, ...]] | None = self._evaluator.answers(pred.key[0], vals)
        except vectorised.Unsupported as exc:
            rows = None
            self._untabled[pattern] = _GIVE_UP if exc.static else self._untabled.get(pattern, 0) + 1
        except RecursionError:  # deeply nested terms: the machine copes, the evaluator not
            rows = None
            self._untabled[pattern] = self._untabled.get(pattern, 0) + 1
        if len(self._tables) >= _MAX_TABLES:
            self._tables.clear()
        self._tables[key] = rows
        return rows

    # -- public API ------------------------------------------------------------------------------
    def is_defined(self, name: str, arity: int) -> bool:
        """True when ``name/arity`` can be called: program, built-in or library predicate."""
        key = (name, arity)
        p = self.program
        return key in p.clauses or key in p.facts or key in BUILTINS or key in p.dynamic

    def solve(self, goal: Term, max_solutions: int | None = None) -> Iterator[Term]:
        """Yield ``goal`` instantiated by each solution, in Prolog order.

        Variables still unbound in an answer keep the goal's variable names (fresh ones are
        named ``_G1``, ``_G2``, ...).
        """
        if max_solutions is not None and max_solutions <= 0:
            return
        refs: dict[str, Ref] = {}
        rt = _from_term(goal, lambda v: refs.setdefault(v.name, Ref()))
        known = {id(r): name for name, r in refs.items()}
        machine = _Machine(self, lambda: _shorten(to_prolog(goal)))
        seq = self._compile_query(rt, known)
        count = 0
        try:
            for _ in machine.run(seq):
                yield machine.answer(rt, _VarNamer(dict(known)))
                count += 1
                if max_solutions is not None and count >= max_solutions:
                    break
        finally:
            self.last_steps = machine.steps

    def solutions(
        self,
        name: str,
        args: tuple[Term | None, ...],
        max_solutions: int | None = None,
    ) -> list[tuple[Term, ...]]:
        """Argument tuples of the solutions of ``name(args...)`` (None = a free variable).

        An argument left unbound by an answer comes back as a :class:`Var`; whether that is
        acceptable is the caller's decision.
        """
        refs: dict[str, Ref] = {}
        rt_args: list[RT] = [
            Ref() if a is None else _from_term(a, lambda v: refs.setdefault(v.name, Ref()))
            for a in args
        ]
        goal: RT = (name, *rt_args) if rt_args else name
        machine = _Machine(
            self,
            lambda: _shorten(
                to_prolog(Struct(name, [Var("_") if a is None else a for a in args]))
                if args
                else to_prolog(Const(name))
            ),
        )
        known = {id(r): n for n, r in refs.items()}
        seq = self._compile_query(goal, known)
        out: list[tuple[Term, ...]] = []
        if max_solutions is not None and max_solutions <= 0:
            return out
        try:
            for _ in machine.run(seq):
                namer = _VarNamer(dict(known))
                out.append(tuple(machine.answer(a, namer) for a in rt_args))
                if max_solutions is not None and len(out) >= max_solutions:
                    break
        finally:
            self.last_steps = machine.steps
        return out

    def check(self, predicates: Iterable[tuple[str, int]] | None = None) -> None:
        """Refuse, at load time, rules that the native engine cannot run faithfully.

        Walks the clauses reachable from ``predicates`` (all rule-defined predicates when
        None), through control constructs and meta-calls with known goals, and raises
        :class:`UnsupportedConstruct` for side effects (assert, I/O, shell, global variables,
        random numbers, ...) and non-callable goals, with the clause's file:line.  A call to
        an undefined predicate is not an error here: like Prolog, the engine raises
        :class:`PrologRuntimeError` if the call is ever made.
        """
        prog = self.program
        todo: list[Key] = (
            list(prog.clauses) if predicates is None else [(p[0], p[1]) for p in predicates]
        )
        if predicates is None and self._has_dcg():
            raise self._dcg_error(None)
        seen: set[Key] = set()
        while todo:
            key = todo.pop()
            if key in seen:
                continue
            seen.add(key)
            if key not in prog.clauses or self._is_system(key):
                continue
            for sc in prog.clauses[key]:
                self._check_clause(sc.clause, key, str(sc.location) if sc.location else None, todo)
            pred = self._pred(key, False)
            if pred.kind == _K_USER and pred.clauses is None:
                try:
                    self._compile_pred(pred)
                except _Throw as exc:  # pragma: no cover - _check_clause reports these first
                    raise UnsupportedConstruct(f"{_pi(*key)}: {exc.message}") from None

    # -- checking --------------------------------------------------------------------------------
    def _has_dcg(self) -> bool:
        key = ("-->", 2)
        return key in self.program.clauses or key in self.program.facts

    def _dcg_error(self, prefix: str | None) -> UnsupportedConstruct:
        """Grammar rules are read as ``-->/2`` clauses; nothing here translates them."""
        where = ""
        for sc in self.program.clauses.get(("-->", 2), []):
            if sc.location is not None:
                where = f"{sc.location}: "
                break
        return UnsupportedConstruct(
            f"{prefix or where}the program has grammar rules (-->), which the native Prolog "
            f"engine does not translate; {_HINT}"
        )

    def _allowed(self, key: Key) -> bool:
        return f"{key[0]}/{key[1]}" in self.allow or key[0] in self.allow

    @staticmethod
    def _is_system(key: Key) -> bool:
        return (key in _SYSTEM and key not in _LIBRARY_NATIVE) or key in _CONTROL

    def _check_clause(self, clause: Clause, key: Key, where: str | None, todo: list[Key]) -> None:
        prog = self.program
        stack: list[tuple[Term, int]] = [(g, 0) for g in reversed(clause.body)]

        def refuse(what: str, why: str) -> UnsupportedConstruct:
            loc = f"{where}: " if where else ""
            return UnsupportedConstruct(
                f"{loc}{what} is not supported by the native Prolog engine ({why}); it is "
                f"used by {_pi(*key)} in: {clause}  -- {_HINT}, or rewrite the rule without it"
            )

        while stack:
            g, extra = stack.pop()
            tg = type(g)
            if tg is Var:
                continue
            args: tuple[Term, ...]
            if isinstance(g, Const) and isinstance(g.value, str):
                name, args = g.value, ()
            elif isinstance(g, Struct):
                name, args = g.name, g.args
            else:
                if extra:
                    continue
                raise refuse(f"the goal {to_prolog(g)}", "it is not callable")
            k = (name, len(args) + extra)
            if k == (".", 2) and extra == 0:
                raise refuse(f"the goal {to_prolog(g)} (consult)", "loads files")
            if extra == 0:
                if k in _CONTROL:
                    sub = args[1:] if k == (":", 2) else args
                    stack.extend((a, 0) for a in reversed(sub))
                    continue
                if k in _ARITH_PREDS:
                    bad = _refused_function(args)
                    if bad is not None:
                        raise refuse(f"the arithmetic function {bad}", "not reproducible")
                for i, add in _META_ARGS.get(k, ()):
                    stack.append((args[i], add))
            if self._is_system(k):
                continue
            if k in prog.clauses:
                todo.append(k)
            elif k in prog.facts or k in self._libsrc or k in _LIBRARY_NATIVE:
                continue
            elif k in _REFUSED and not self._allowed(k):
                raise refuse(_pi(*k), _REFUSED[k])
            elif k not in prog.dynamic and self._has_dcg():
                raise self._dcg_error(f"{where}: {_pi(*k)} is undefined; " if where else None)

    # -- predicates ------------------------------------------------------------------------------
    def _pred(self, key: Key, lib: bool) -> _Pred:
        cache = self._lib if lib else self._user
        p = cache.get(key)
        if p is None:
            p = cache[key] = self._make_pred(key, lib)
        return p

    def _make_pred(self, key: Key, lib: bool) -> _Pred:
        if key in _SYSTEM and key not in _LIBRARY_NATIVE:
            return self._builtin(key)
        prog = self.program
        if not lib:
            if key in prog.clauses:
                return _Pred(key, _K_USER)
            if key in prog.facts:
                return _Pred(key, _K_FACTS)
        if key in self._libsrc:
            shared = self._shared.get(key)
            if shared is None:
                shared = self._shared[key] = _Pred(key, _K_USER, lib=True)
            return shared
        if key in _LIBRARY_NATIVE:
            return self._builtin(key)
        if lib:
            return self._pred(key, False)
        if key in _REFUSED:
            if self._allowed(key) and key in _OUTPUT_ONLY:
                return _Pred(key, _K_DET, lambda m, a: True)
            return _Pred(key, _K_REFUSED, _REFUSED[key])
        if key in prog.dynamic:
            return _Pred(key, _K_FAIL)
        return _Pred(key, _K_UNDEF)

    @staticmethod
    def _builtin(key: Key) -> _Pred:
        if key in _DET:
            return _Pred(key, _K_DET, _DET[key])
        if key in _GEN:
            return _Pred(key, _K_GEN, _GEN[key])
        return _Pred(key, _K_CTRL, _CTRL[key])

    def _load_rows(self, pred: _Pred) -> list[tuple[RT, ...]]:
        """Fact rows as runtime tuples (converted on first call of the predicate)."""
        rows: list[tuple[RT, ...]] = []
        fast = (Const,)
        for row in self.program.facts[pred.key]:
            if all(type(a) in fast for a in row):
                rows.append(tuple([a.value for a in row]))  # type: ignore[union-attr]
            else:
                rows.append(tuple(_from_term(a, _no_vars) for a in row))
        pred.rows = rows
        pred.fidx = [None] * pred.key[1]
        return rows

    @staticmethod
    def _fact_index(pred: _Pred, pos: int) -> dict[RT, list[tuple[RT, ...]]]:
        """Rows by the value of argument ``pos`` (built on the first call that binds it).

        The index maps straight to the rows (in fact order) rather than to row numbers: one
        indirection less on every call, same memory.
        """
        idx: dict[RT, list[tuple[RT, ...]]] = {}
        assert pred.rows is not None
        for row in pred.rows:
            v = row[pos]
            key = (v[0], len(v)) if type(v) is tuple else v
            bucket = idx.get(key)
            if bucket is None:
                idx[key] = [row]
            else:
                bucket.append(row)
        pred.fidx[pos] = idx
        return idx

    def _compile_pred(self, pred: _Pred) -> tuple[_CClause, ...]:
        key = pred.key
        if pred.lib:
            sources: list[tuple[Clause, str | None]] = [(c, None) for c in self._libsrc[key]]
        else:
            sources = [
                (sc.clause, str(sc.location) if sc.location else None)
                for sc in self.program.clauses[key]
            ]
        compiled = tuple(self._compile_clause(c, key, loc, pred.lib) for c, loc in sources)
        keys = [c.key for c in compiled]
        if len(compiled) > 1 and any(k is not None for k in keys):
            index: dict[RT, list[_CClause]] = {}
            for k in keys:
                if k is not None and k not in index:
                    index[k] = []
            for c in compiled:
                if c.key is None:
                    for bucket in index.values():
                        bucket.append(c)
                else:
                    index[c.key].append(c)
            pred.index = {k: tuple(v) for k, v in index.items()}
            pred.varcl = tuple(c for c in compiled if c.key is None)
        pred.clauses = compiled
        return compiled

    # -- compilation -----------------------------------------------------------------------------
    def _compile_clause(
        self, clause: Clause, key: Key, location: str | None, lib: bool
    ) -> _CClause:
        slots: dict[str, _Slot] = {}
        names: list[str] = []

        def on_var(v: Var) -> _Slot:
            s = slots.get(v.name)
            if s is None:
                s = slots[v.name] = _slot(len(names))
                names.append(v.name)
            return s

        head = clause.head
        head_t = tuple(_from_term(a, on_var) for a in head.args) if type(head) is Struct else ()
        body_t = [_from_term(g, on_var) for g in clause.body]
        ctx = _Ctx(_pi(*key), location, names, lib)
        try:
            seq = self._compile_goals(body_t, ctx)
        except _Throw as exc:
            where = f"{location}: " if location else ""
            raise UnsupportedConstruct(
                f"{where}{exc.message} in the body of {_pi(*key)}: {clause}"
            ) from None
        return _CClause(head_t, seq, len(names), _first_arg_key(head_t))

    def _compile_query(self, goal: RT, known: dict[int, str]) -> tuple[Any, ...]:
        try:
            return self._compile_goals([goal], _Ctx("the query", None, None, False, known))
        except _Throw as exc:
            raise PrologRuntimeError(f"{exc.message} in the query {_render(goal)}") from None

    def compile_dynamic(self, goal: RT) -> tuple[Any, ...]:
        """Compile a goal term met at run time (``call/N``, ``findall/3``, ...)."""
        goal = _deref(goal)
        if type(goal) is Ref:
            raise _inst_err()
        if type(goal) is tuple:
            key = (goal[0], len(goal) - 1)
            if key not in _CONTROL and key != ("call", 1):
                return ((_I_CALL, self._pred(key, False), goal[1:], goal, self._dyn_ctx),)
        try:
            return self._compile_goals([goal], self._dyn_ctx)
        except RecursionError:
            if _cyclic(goal):
                raise _cyclic_goal() from None
            raise

    def _compile_goals(self, goals: list[RT], ctx: _Ctx) -> tuple[Any, ...]:
        out: list[Any] = []
        stack = list(reversed(goals))
        n = 0
        while stack:
            n += 1
            if n % _FAST == 0 and any(_cyclic(g) for g in goals):  # (A, (B, ...)) forever
                raise _cyclic_goal()
            g = _deref(stack.pop())
            tg = type(g)
            if (tg is tuple or tg is _Tmpl) and len(g) == 3 and g[0] == ",":
                stack.append(g[2])
                stack.append(g[1])
                continue
            self._compile_goal(g, ctx, out)
        return tuple(out)

    def _compile_goal(self, g: RT, ctx: _Ctx, out: list[Any]) -> None:
        tg = type(g)
        if tg is _Slot or tg is Ref:
            out.append((_I_CALLVAR, g, ctx))
            return
        if tg is str:
            name: str = g
            args: tuple[RT, ...] = ()
        elif tg is tuple or tg is _Tmpl:
            name = g[0]
            args = tuple(g[1:])
        else:
            raise _type_err("callable", g)
        n = len(args)
        key = (name, n)

        def sub(x: RT) -> tuple[Any, ...]:
            return self._compile_goals([x], ctx)

        if key in _CONTROL:
            if name == "true":
                return
            if name in ("fail", "false"):
                out.append((_I_FAIL,))
            elif name == "!":
                out.append((_I_CUT,))
            elif name == ";":
                left = _deref(args[0])
                tl = type(left)
                if (tl is tuple or tl is _Tmpl) and len(left) == 3 and left[0] == "->":
                    out.append((_I_ITE, sub(left[1]), sub(left[2]), sub(args[1])))
                elif (tl is tuple or tl is _Tmpl) and len(left) == 3 and left[0] == "*->":
                    out.append((_I_SOFT, sub(left[1]), sub(left[2]), sub(args[1])))
                else:
                    out.append((_I_OR, sub(args[0]), sub(args[1])))
            elif name == "->":
                out.append((_I_ITE, sub(args[0]), sub(args[1]), None))
            elif name == "*->":
                out.append((_I_CALL1, sub(args[0])))
                out.extend(sub(args[1]))
            elif name in ("\\+", "not"):
                out.append((_I_NOT, sub(args[0])))
            elif name == "once":
                out.append((_I_ITE, sub(args[0]), (), None))
            elif name == "ignore":
                out.append((_I_ITE, sub(args[0]), (), ()))
            elif name == "forall":
                out.append((_I_NOT, (*sub(args[0]), (_I_NOT, sub(args[1])))))
            elif name == ":":
                out.extend(sub(args[1]))
            return
        if key == ("call", 1):
            target = _deref(args[0])
            if type(target) is not _Slot and type(target) is not Ref:
                try:
                    out.append((_I_CALL1, sub(target)))
                    return
                except _Throw:
                    pass  # not callable: raise when (if) it is called, as Prolog does
            out.append((_I_CALLVAR, target, ctx))
            return
        out.append((_I_CALL, self._pred(key, ctx.lib), args, g, ctx))


def _no_vars(v: Var) -> RT:  # pragma: no cover - fact rows are ground by construction
    raise DataError(f"fact rows must be ground, found variable {v.name}")


def _refused_function(args: Iterable[Term]) -> str | None:
    """The first refused arithmetic function in expressions (e.g. ``random/1``), if any."""
    stack = list(args)
    while stack:
        t = stack.pop()
        if type(t) is Struct:
            if t.name in _REFUSED_FUNCS:
                return _pi(t.name, len(t.args))
            stack.extend(t.args)
        elif type(t) is Const and t.value in _REFUSED_FUNCS:
            return _pi(str(t.value), 0)
    return None


def _cyclic_goal() -> _Throw:
    """SWI-Prolog's error for calling a cyclic goal (``G = (true, G), call(G)``)."""
    return _Throw(
        ("error", ("representation_error", "cyclic_term"), Ref()),
        "representation error: a cyclic term cannot be called as a goal",
    )
