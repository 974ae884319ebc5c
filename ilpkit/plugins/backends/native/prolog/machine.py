"""The solver: explicit continuations, choicepoints, trail, cut barriers."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from ilpkit.core.aleph_library import RandomStream
from ilpkit.core.timelimit import stop_requested
from ilpkit.errors import ResourceLimitExceeded
from ilpkit.plugins.backends.native.prolog.builtins_core import Cont
from ilpkit.plugins.backends.native.prolog.compile import (
    _COLLECT_SEQ,
    _CP_ALT,
    _CP_CATCH,
    _CP_CLAUSES,
    _CP_COLLECT,
    _CP_DEAD,
    _CP_FACTS,
    _CP_GEN,
    _CUT_SEQ,
    _I_CALL,
    _I_CALL1,
    _I_CALLVAR,
    _I_CATCHEXIT,
    _I_COLLECT,
    _I_CUT,
    _I_FAIL,
    _I_ITE,
    _I_NOT,
    _I_OR,
    _I_SOFT,
    _I_SOFTCUT,
    _K_CTRL,
    _K_DET,
    _K_FACTS,
    _K_FAIL,
    _K_GEN,
    _K_TABLE,
    _K_UNDEF,
    _K_USER,
    _NAF_SEQ,
    _SOFTCUT_SEQ,
)
from ilpkit.plugins.backends.native.prolog.errors import (
    _FREE_CELLS,
    _HINT,
    _MEM_QUICK,
    PrologRuntimeError,
    UnsupportedConstruct,
    _exist_err,
    _inst_err,
    _OverLimit,
    _pi,
    _resident_bytes,
    _Throw,
)
from ilpkit.plugins.backends.native.prolog.terms import (
    _END,
    _GUARD,
    RT,
    Ref,
    _build,
    _copy,
    _CyclicTerm,
    _deref,
    _fact_plan,
    _match_row,
    _shorten,
    _Slot,
    _Tmpl,
    _to_term,
    _undo,
    _unify,
    _unify_head,
    _unify_row,
    _VarNamer,
)
from ilpkit.prolog.terms import Term, to_prolog

if TYPE_CHECKING:
    from ilpkit.plugins.backends.native.resolution import ResolutionEngine

# --------------------------------------------------------------------------------------------
# The machine
# --------------------------------------------------------------------------------------------


class _Machine:
    """State of one query: trail, choicepoints, step counter.  Runs compiled code.

    One machine per query, so an aborted query (an error, a resource limit) leaves nothing
    behind and the engine serves the next query normally.
    """

    __slots__ = (
        "cps",
        "deadline",
        "eng",
        "mem_base",
        "mem_limit",
        "mem_pending",
        "query",
        "random",
        "step_limit",
        "steps",
        "trail",
        "work",
    )

    def __init__(self, eng: ResolutionEngine, query: Callable[[], str]) -> None:
        self.eng = eng
        self.query = query  # the query as text, computed only for messages
        self.random: RandomStream | None = None
        """The query's ``aleph_random/1`` draws (started at the first)."""
        self.trail: list[Ref] = []
        self.cps: list[list[Any]] = []
        self.steps = 0
        self.step_limit = eng.step_limit
        self.deadline = time.monotonic() + eng.time_limit if eng.time_limit is not None else None
        self.mem_limit = eng.memory_limit
        """Bytes this query may grow the process by (None: unlimited)."""
        self.mem_base: int | None = None
        """Resident size when the query's memory was first measured (lazily: short queries
        never read it)."""
        self.mem_pending = 0
        """Bytes charged by built-ins since the resident size was last read."""
        self.work = 0
        """Steps charged by built-ins for work beyond a resolution step (long lists, texts)."""

    # -- helpers used by control built-ins -------------------------------------------------
    def collect(
        self,
        template: RT,
        goal: RT,
        results: list[RT],
        finish: Callable[[], bool | Iterator[None]],
        cont: Cont,
    ) -> Cont:
        """Run ``goal`` to exhaustion, copying ``template`` per solution into ``results``;
        then ``finish`` decides the outcome (True/False, or an iterator of solutions)."""
        seq = self.eng.compile_dynamic(goal)
        cps = self.cps
        h = len(cps)
        cps.append([_CP_COLLECT, len(self.trail), finish, cont, None, None])
        node = (_COLLECT_SEQ, 0, (template, results), 0, None)
        return (seq, 0, None, h + 1, node) if seq else node

    def _limits(self, steps: int, instr: Any) -> int:
        """Check the step, time and memory limits; return the step count of the next check."""
        limit = self.step_limit
        self.steps = steps
        work = self.work
        if limit is not None and steps + work > limit:
            raise self._over_steps(instr)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise self._over_time(instr)
        if stop_requested() is not None:  # learn's first Ctrl-C: this query too
            raise ResourceLimitExceeded(
                f"the query {self.query()} was stopped: {stop_requested()}{self._where(instr)}"
            )
        if self.mem_limit is not None and steps:
            over = self._memory_growth(0)
            if over is not None:
                raise self._over_memory(over, instr)
        nxt = steps + 2048
        if limit is not None and nxt + work > limit + 1:
            nxt = max(steps + 1, limit + 1 - work)
        return nxt

    def _over_steps(self, instr: Any, what: str = "") -> ResourceLimitExceeded:
        why = f" ({what})" if what else ""
        return ResourceLimitExceeded(
            f"the query {self.query()} exceeded the limit of {self.step_limit:,} "
            f"resolution steps{why}{self._where(instr)}; raise backend.step_limit (--set "
            "backend.step_limit=N) or look for infinite recursion"
        )

    def _over_time(self, instr: Any, what: str = "") -> ResourceLimitExceeded:
        why = f" ({what})" if what else ""
        return ResourceLimitExceeded(
            f"the query {self.query()} exceeded the time limit of "
            f"{self.eng.time_limit} s{why}{self._where(instr)}; raise backend.timeout"
        )

    def _over_memory(self, what: str, instr: Any) -> ResourceLimitExceeded:
        mb = (self.mem_limit or 0) / 2**20
        return ResourceLimitExceeded(
            f"the query {self.query()} exceeded the memory limit of {mb:,.0f} MB ({what})"
            f"{self._where(instr)}; raise the backend's memory_limit_mb or look for a "
            "runaway (an infinite list, a growing atom or integer, left recursion)"
        )

    def _memory_growth(self, extra: int) -> str | None:
        """Why the query is over its memory budget when it allocates ``extra`` more bytes
        (None when it is not): the resident size's growth since the query's first
        measurement, plus ``extra``, against ``mem_limit``."""
        limit = self.mem_limit
        if limit is None:
            return None
        if extra > limit:
            return f"a built-in would need about {extra / 2**20:,.0f} MB at once"
        rss = _resident_bytes()
        if rss is None:
            return None
        if self.mem_base is None:
            self.mem_base = rss
        grown = rss - self.mem_base + extra
        if grown > limit:
            return f"it grew the process by {grown / 2**20:,.0f} MB"
        return None

    def charge(self, cells: int, nbytes: int, what: str) -> None:
        """Account a built-in's work before it builds ``cells`` list cells (or characters,
        digits) taking about ``nbytes`` bytes: big results count one step per cell and
        against the memory budget, and the time limit is checked, so that no built-in loop
        escapes the query's limits.  Raises :class:`_OverLimit` (the machine names the call).
        """
        if cells > _FREE_CELLS:
            self.work += cells
            limit = self.step_limit
            if limit is not None and self.steps + self.work > limit:
                raise _OverLimit("steps", what)
        if self.deadline is not None and cells > _FREE_CELLS and time.monotonic() > self.deadline:
            raise _OverLimit("time", what)
        if self.mem_limit is None:
            return
        self.mem_pending += nbytes
        if nbytes > _MEM_QUICK or self.mem_pending > _MEM_QUICK:
            self.mem_pending = 0
            over = self._memory_growth(nbytes)
            if over is not None:
                raise _OverLimit("memory", f"{what}: {over}")

    def charge_term(self, nodes: int, nbytes: int, what: str) -> None:
        """The charge of a long loop over a term (``terms._tick``): a step per eight nodes
        visited, the bytes it keeps, and the time limit."""
        self.charge(nodes // 8, nbytes, what)

    def answer(self, t: RT, namer: _VarNamer) -> Term:
        """``t`` of an answer as a :class:`Term`: a cyclic one is beyond the native engine
        (a :class:`Term` is a tree), reported as a limit, as SWI-Prolog answers it."""
        try:
            return _to_term(t, namer)
        except _CyclicTerm as exc:
            raise ResourceLimitExceeded(
                f"the query {self.query()} has an answer the native engine cannot return "
                f"({exc.what}); {_HINT}"
            ) from None

    def tick(self, what: str) -> None:
        """The time-limit check of a long built-in loop that allocates nothing."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _OverLimit("time", what)

    def _over(self, exc: _OverLimit, instr: Any) -> ResourceLimitExceeded:
        if exc.kind == "steps":
            return self._over_steps(instr, exc.what)
        if exc.kind == "time":
            return self._over_time(instr, exc.what)
        return self._over_memory(exc.what, instr)

    @staticmethod
    def _where(instr: Any) -> str:
        if instr is not None and instr[0] == _I_CALL:
            return f" (while calling {_pi(*instr[1].key)}, {instr[4].describe()})"
        return ""

    def _goal_text(self, instr: Any, args: list[RT]) -> str:
        if instr is None:
            return ""
        op = instr[0]
        if op == _I_CALL:
            goal, ctx = instr[3], instr[4]
            if ctx.names is not None:
                text = to_prolog(_to_term(goal, _VarNamer(names=ctx.names)))
            else:
                text = _shorten(to_prolog(_to_term(goal, _VarNamer(dict(ctx.known or {})))))
            return f" in {text} ({ctx.describe()})"
        if op == _I_CALLVAR:
            ctx = instr[2]
            return f" in a call of a variable goal ({ctx.describe()})"
        return ""

    def _catch(self, ball: RT, cont: Cont) -> Cont | bool:
        """Find the innermost active ``catch/3`` whose catcher unifies with ``ball``.

        A catch frame is active while its goal runs, i.e. while its exit node is on the
        current continuation.  Returns the recovery continuation, or False.
        """
        if _is_limit_ball(ball):  # never caught by the data (issue 28)
            return False
        cps = self.cps
        trail = self.trail
        active: set[int] = set()
        node = cont
        while node is not None:
            active.add(id(node))
            node = node[4]
        for i in range(len(cps) - 1, -1, -1):
            cp = cps[i]
            if cp[0] != _CP_CATCH or id(cp[5]) not in active:
                continue
            _undo(trail, cp[1])
            mark = len(trail)
            if _unify(cp[2], ball, trail):
                del cps[i:]
                seq = self.eng.compile_dynamic(cp[3])
                return (seq, 0, None, len(cps), cp[4]) if seq else cp[4]
            _undo(trail, mark)
        return False

    # -- the solver loop -----------------------------------------------------------------------
    def run(self, seq: tuple[Any, ...]) -> Iterator[None]:
        """Yield once per solution of ``seq`` (bindings are in place while suspended).

        While it runs (not while suspended) long loops over terms charge this query
        (``terms._GUARD``); a nested or interleaved query restores the outer one's guard.
        """
        # What long loops over terms charge while this machine runs.  A local, not an
        # attribute: a bound method kept on the machine would make a reference cycle, and
        # every query's machine would wait for the cyclic garbage collector (issue 32).
        guard = self.charge_term
        outer = [_GUARD[0]]  # the guard to restore, as of the latest resumption
        _GUARD[0] = guard
        try:
            yield from self._run(seq, outer, guard)
        finally:
            if _GUARD[0] is guard:
                _GUARD[0] = outer[0]

    def _run(
        self, seq: tuple[Any, ...], outer: list[Any], guard: Callable[..., Any]
    ) -> Iterator[None]:
        eng = self.eng
        trail = self.trail
        cps = self.cps
        cont: Any = (seq, 0, None, 0, None) if seq else None
        fail = False
        steps = 0
        check_at = self._limits(0, None)
        instr: Any = None
        args: list[RT] = []
        after: Any = None
        while True:
            try:
                while True:
                    if fail:
                        # ---- backtrack to the newest choicepoint --------------------------
                        if not cps:
                            self.steps = steps
                            return
                        steps += 1
                        if steps >= check_at:
                            check_at = self._limits(steps, instr)
                        cp = cps[-1]
                        mark = cp[1]
                        if len(trail) > mark:
                            for r in trail[mark:]:
                                r.val = None
                            del trail[mark:]
                        k = cp[0]
                        if k == _CP_CLAUSES:
                            cands = cp[2]
                            i = cp[3]
                            cargs = cp[4]
                            n = len(cands)
                            p = len(cps) - 1
                            while i < n:
                                cl = cands[i]
                                i += 1
                                fr = [None] * cl.nvars
                                if _unify_head(cl.head, cargs, fr, trail):
                                    if i < n:
                                        cp[3] = i
                                    else:
                                        cps.pop()
                                    cont = (cl.body, 0, fr, p, cp[5]) if cl.body else cp[5]
                                    fail = False
                                    break
                                if len(trail) > mark:
                                    _undo(trail, mark)
                            else:
                                cps.pop()
                        elif k == _CP_FACTS:
                            cands = cp[2]
                            i = cp[3]
                            n = len(cands)
                            plan = cp[6]
                            if plan is None:
                                cargs = cp[4]
                                while i < n:
                                    row = cands[i]
                                    i += 1
                                    if _unify_row(cargs, row, trail):
                                        fail = False
                                        break
                                    if len(trail) > mark:
                                        _undo(trail, mark)
                            else:
                                checks, outs = plan
                                while i < n:
                                    row = cands[i]
                                    i += 1
                                    if _match_row(row, checks, outs, trail):
                                        fail = False
                                        break
                                    if len(trail) > mark:
                                        _undo(trail, mark)
                            if fail or i >= n:
                                cps.pop()
                            else:
                                cp[3] = i
                            if not fail:
                                cont = cp[5]
                        elif k == _CP_ALT:
                            cps.pop()
                            cont = cp[2]
                            fail = False
                        elif k == _CP_GEN:
                            instr = cp[4]
                            args = cp[5]
                            cont = cp[3]  # where an exception would be raised from
                            if next(cp[2], _END) is _END:
                                cps.pop()
                            else:
                                cont = cp[3]
                                fail = False
                        elif k == _CP_COLLECT:
                            cps.pop()
                            if cp[4] is not None:
                                instr = cp[4]
                                args = cp[5]
                            cont = cp[3]
                            outcome = cp[2]()
                            if outcome is True:
                                cont = cp[3]
                                fail = False
                            elif outcome is not False and next(outcome, _END) is not _END:
                                cps.append([_CP_GEN, mark, outcome, cp[3], instr, args])
                                cont = cp[3]
                                fail = False
                        else:  # _CP_CATCH and _CP_DEAD are transparent on backtracking
                            cps.pop()
                        continue
                    if cont is None:
                        self.steps = steps
                        _GUARD[0] = outer[0]
                        yield
                        outer[0] = _GUARD[0]
                        _GUARD[0] = guard
                        fail = True
                        continue
                    # ---- run the next instruction ----------------------------------------
                    cseq, pos, frame, cutb, nxt = cont
                    instr = cseq[pos]
                    pos += 1
                    cont = (cseq, pos, frame, cutb, nxt) if pos < len(cseq) else nxt
                    steps += 1
                    if steps >= check_at:
                        check_at = self._limits(steps, instr)
                    op = instr[0]
                    if op == _I_CALL:
                        pred = instr[1]
                        args = []
                        for t in instr[2]:
                            tt = type(t)
                            if tt is _Slot:
                                v = frame[t]
                                if v is None:
                                    v = frame[t] = Ref()
                                args.append(v)
                            elif tt is _Tmpl:
                                args.append(_build(t, frame))
                            else:
                                args.append(t)
                        kind = pred.kind
                        if pred.tab and eng.tabling:
                            trows = eng._tabled(pred, args)
                            if trows is not None:
                                rows = trows
                                kind = _K_TABLE
                        if kind == _K_USER:
                            cands = pred.clauses
                            if cands is None:
                                cands = eng._compile_pred(pred)
                            index = pred.index
                            if index is not None:
                                a0 = args[0]
                                while type(a0) is Ref:
                                    v = a0.val
                                    if v is None:
                                        break
                                    a0 = v
                                if type(a0) is not Ref:
                                    cands = index.get(
                                        (a0[0], len(a0)) if type(a0) is tuple else a0,
                                        pred.varcl,
                                    )
                            n = len(cands)
                            mark = len(trail)
                            h = len(cps)
                            i = 0
                            while i < n:
                                cl = cands[i]
                                i += 1
                                fr = [None] * cl.nvars
                                if _unify_head(cl.head, args, fr, trail):
                                    if i < n:
                                        cps.append([_CP_CLAUSES, mark, cands, i, args, cont])
                                    if cl.body:
                                        cont = (cl.body, 0, fr, h, cont)
                                    break
                                if len(trail) > mark:
                                    _undo(trail, mark)
                            else:
                                fail = True
                        elif kind in (_K_FACTS, _K_TABLE):
                            if kind == _K_FACTS:
                                rows = pred.rows
                                if rows is None:
                                    rows = eng._load_rows(pred)
                            plan = _fact_plan(args)
                            cands = rows
                            if plan is not None:
                                checks, outs = plan
                                # the smallest bucket among the bound arguments' indexes
                                for j, v in checks if kind == _K_FACTS else ():
                                    idx = pred.fidx[j]
                                    if idx is None:
                                        idx = eng._fact_index(pred, j)
                                    bucket = idx.get((v[0], len(v)) if type(v) is tuple else v, ())
                                    if len(bucket) < len(cands):
                                        cands = bucket
                                        if len(bucket) <= 1:
                                            break
                            n = len(cands)
                            mark = len(trail)
                            i = 0
                            if plan is None:
                                while i < n:
                                    row = cands[i]
                                    i += 1
                                    if _unify_row(args, row, trail):
                                        break
                                    if len(trail) > mark:
                                        _undo(trail, mark)
                                else:
                                    fail = True
                            else:
                                while i < n:
                                    row = cands[i]
                                    i += 1
                                    if _match_row(row, checks, outs, trail):
                                        break
                                    if len(trail) > mark:
                                        _undo(trail, mark)
                                else:
                                    fail = True
                            if not fail and i < n:
                                cps.append([_CP_FACTS, mark, cands, i, args, cont, plan])
                        elif kind == _K_DET:
                            if not pred.fn(self, args):
                                fail = True
                        elif kind == _K_GEN:
                            mark = len(trail)
                            gen = pred.fn(self, args)
                            if next(gen, _END) is _END:
                                _undo(trail, mark)
                                fail = True
                            else:
                                cps.append([_CP_GEN, mark, gen, cont, instr, args])
                        elif kind == _K_CTRL:
                            r = pred.fn(self, args, cont)
                            if r is False:
                                fail = True
                            else:
                                cont = r
                                if cps and cps[-1][0] == _CP_COLLECT and cps[-1][4] is None:
                                    cps[-1][4] = instr  # for messages from the final step
                                    cps[-1][5] = args
                        elif kind == _K_FAIL:
                            fail = True
                        elif kind == _K_UNDEF:
                            raise _exist_err(*pred.key)
                        else:
                            raise UnsupportedConstruct(
                                f"{_pi(*pred.key)} is not supported by the native Prolog "
                                f"engine ({pred.fn}){self._goal_text(instr, args)}; {_HINT}"
                            )
                    elif op == _I_CUT:
                        del cps[cutb:]
                        if cutb == 0:
                            trail.clear()  # nothing left to backtrack to
                    elif op == _I_FAIL:
                        fail = True
                    elif op == _I_ITE:
                        h = len(cps)
                        then = instr[2]
                        els = instr[3]
                        tcont = (then, 0, frame, cutb, cont) if then else cont
                        if els is not None:
                            cps.append(
                                [_CP_ALT, len(trail), (els, 0, frame, cutb, cont) if els else cont]
                            )
                            cond_b = h + 1
                        else:
                            cond_b = h
                        after = (_CUT_SEQ, 0, None, h, tcont)
                        cond = instr[1]
                        cont = (cond, 0, frame, cond_b, after) if cond else after
                    elif op == _I_NOT:
                        h = len(cps)
                        cps.append([_CP_ALT, len(trail), cont])
                        after = (_NAF_SEQ, 0, None, h, None)
                        g = instr[1]
                        cont = (g, 0, frame, h + 1, after) if g else after
                    elif op == _I_OR:
                        right = instr[2]
                        cps.append(
                            [_CP_ALT, len(trail), (right, 0, frame, cutb, cont) if right else cont]
                        )
                        left = instr[1]
                        if left:
                            cont = (left, 0, frame, cutb, cont)
                    elif op == _I_CALLVAR:
                        g = instr[1]
                        if type(g) is _Slot:
                            g = frame[g]
                            if g is None:
                                raise _inst_err()
                        gseq = eng.compile_dynamic(g)
                        if gseq:
                            cont = (gseq, 0, None, len(cps), cont)
                    elif op == _I_CALL1:
                        if instr[1]:
                            cont = (instr[1], 0, frame, len(cps), cont)
                    elif op == _I_COLLECT:
                        template, results = frame
                        results.append(_copy(template))
                        fail = True
                    elif op == _I_SOFT:
                        h = len(cps)
                        then = instr[2]
                        els = instr[3]
                        tcont = (then, 0, frame, cutb, cont) if then else cont
                        cps.append(
                            [_CP_ALT, len(trail), (els, 0, frame, cutb, cont) if els else cont]
                        )
                        after = (_SOFTCUT_SEQ, 0, None, h, tcont)
                        cond = instr[1]
                        cont = (cond, 0, frame, h + 1, after) if cond else after
                    elif op == _I_SOFTCUT:
                        if cutb < len(cps) and cps[cutb][0] == _CP_ALT:
                            cps[cutb] = [_CP_DEAD, cps[cutb][1]]
                    elif op == _I_CATCHEXIT:
                        if cps and cps[-1] is frame:
                            cps.pop()
                    else:  # pragma: no cover - compiler and machine disagree
                        raise AssertionError(f"unknown instruction {instr!r}")
            except _Throw as exc:
                handler = self._catch(exc.ball, cont)
                if handler is False:
                    self.steps = steps
                    if _is_limit_ball(exc.ball):
                        raise ResourceLimitExceeded(
                            f"the query {self.query()} ran out of a resource: "
                            f"{exc.message}{self._goal_text(instr, args)}"
                        ) from None
                    raise PrologRuntimeError(
                        exc.message + self._goal_text(instr, args),
                        _to_term(exc.ball, max_nodes=_BALL_NODES),
                    ) from None
                cont = handler
                fail = False
            except RecursionError:
                self.steps = steps
                raise PrologRuntimeError(
                    "term too deeply nested for the native engine" + self._goal_text(instr, args)
                ) from None
            except _OverLimit as exc:
                self.steps = steps
                raise self._over(exc, instr) from None
            except _CyclicTerm as exc:
                self.steps = steps
                raise ResourceLimitExceeded(
                    f"the query {self.query()} met a cyclic term where the native engine "
                    f"needs a tree ({exc.what}){self._where(instr)}; {_HINT}"
                ) from None
            except MemoryError:
                self.steps = steps
                del cps[:], trail[:]
                cont = None
                raise self._over(_OverLimit("memory", "Python ran out of memory"), instr) from None


_BALL_NODES: Final = 10_000
"""Compounds of an uncaught ball kept in :attr:`PrologRuntimeError.ball` (the rest is
``...``: a ball may be huge, shared or cyclic)."""

_LIMIT_ATOMS: Final = frozenset({"inference_limit_exceeded", "time_limit_exceeded", "$aborted"})


def _is_limit_ball(ball: RT) -> bool:
    """Whether ``ball`` stops a query for a limit, so no ``catch/3`` of the data catches it
    (issue 28): a resource error (the integer bound), ``ilpkit_limit(_)``, or the balls of
    SWI-Prolog's limits -- ``ilpkit_is_limit/1`` in ``ilpkit_server.pl``, so that every engine
    answers alike."""
    ball = _deref(ball)
    if type(ball) is str:
        return ball in _LIMIT_ATOMS
    if type(ball) is not tuple:
        return False
    if len(ball) == 3 and ball[0] == "error":
        formal = _deref(ball[1])
        return type(formal) is tuple and len(formal) == 2 and formal[0] == "resource_error"
    return len(ball) == 2 and ball[0] in ("ilpkit_limit", "time_limit_exceeded", "unwind")
