"""Control built-ins: meta-calls, all-solutions, exceptions."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ilpkit.plugins.backends.native.prolog.arith import _eval, _max, _min
from ilpkit.plugins.backends.native.prolog.builtins_core import (
    _CTRL,
    Cont,
    CtrlFn,
    _ctrl,
    _term_vars,
)
from ilpkit.plugins.backends.native.prolog.builtins_lists import _sorted, _sum
from ilpkit.plugins.backends.native.prolog.compile import _CATCHEXIT_SEQ, _CP_CATCH
from ilpkit.plugins.backends.native.prolog.errors import _dom_err, _inst_err, _type_err
from ilpkit.plugins.backends.native.prolog.terms import (
    _SORT_KEY,
    NIL,
    RT,
    Ref,
    _deref,
    _mklist,
    _undo,
    _unify,
    _variant,
)

if TYPE_CHECKING:
    from ilpkit.plugins.backends.native.prolog.machine import _Machine

# -- control: meta-calls, all-solutions, exceptions ------------------------------------------------


def _add_args(goal: RT, extra: list[RT]) -> RT:
    goal = _deref(goal)
    if not extra:
        return goal
    if type(goal) is str:
        return (goal, *extra)
    if type(goal) is tuple:
        return (*goal, *extra)
    if type(goal) is Ref:
        raise _inst_err()
    raise _type_err("callable", goal)


def _c_call(m: _Machine, a: list[RT], cont: Cont) -> Cont:
    seq = m.eng.compile_dynamic(_add_args(a[0], a[1:]))
    return (seq, 0, None, len(m.cps), cont) if seq else cont


for _n in range(1, 9):
    _CTRL[("call", _n)] = _c_call


@_ctrl("findall", 3)
def _c_findall(m: _Machine, a: list[RT], cont: Cont) -> Cont:
    results: list[RT] = []
    return m.collect(a[0], a[1], results, lambda: _unify(a[2], _mklist(results), m.trail), cont)


@_ctrl("findall", 4)
def _c_findall4(m: _Machine, a: list[RT], cont: Cont) -> Cont:
    results: list[RT] = []
    return m.collect(
        a[0], a[1], results, lambda: _unify(a[2], _mklist(results, a[3]), m.trail), cont
    )


@_ctrl("aggregate_all", 3, library=True)
def _c_aggregate_all(m: _Machine, a: list[RT], cont: Cont) -> Cont:
    """``aggregate_all/3`` with count, sum(E), max(E), min(E), max(E, W), min(E, W), bag(T),
    set(T), computed as SWI's library(aggregate) does (arithmetic for sum/max/min)."""
    spec = _deref(a[0])
    trail = m.trail
    results: list[RT] = []
    out = a[2]
    finish: Callable[[], bool]
    if spec == "count":
        return m.collect(NIL, a[1], results, lambda: _unify(out, len(results), trail), cont)
    if type(spec) is Ref:
        raise _inst_err()
    if type(spec) is not tuple or len(spec) not in (2, 3):
        raise _dom_err("aggregate_spec", spec)
    kind = spec[0]
    if len(spec) == 2 and kind == "count":
        template: RT = spec[1]

        def finish() -> bool:
            return _unify(out, len(results), trail)
    elif len(spec) == 2 and kind == "sum":
        template = spec[1]

        def finish() -> bool:
            return _unify(out, _sum(results), trail)
    elif len(spec) == 2 and kind in ("max", "min"):
        template = spec[1]
        pick = _max if kind == "max" else _min

        def finish() -> bool:
            if not results:
                return False
            best = _eval(results[0])
            for x in results[1:]:
                best = pick(best, _eval(x))
            return _unify(out, best, trail)
    elif len(spec) == 3 and kind in ("max", "min"):
        template = ("-", spec[1], spec[2])
        better: Callable[[RT, RT], bool] = (
            (lambda x, y: x > y) if kind == "max" else (lambda x, y: x < y)
        )

        def finish() -> bool:
            if not results:
                return False
            best_v = _eval(results[0][1])
            best_w = results[0][2]
            for r in results[1:]:
                v = _eval(r[1])
                if better(v, best_v):
                    best_v, best_w = v, r[2]
            return _unify(out, (kind, best_v, best_w), trail)
    elif len(spec) == 2 and kind in ("bag", "set"):
        template = spec[1]
        dedupe = kind == "set"

        def finish() -> bool:
            items = _sorted(results, True) if dedupe else results
            return _unify(out, _mklist(items), trail)
    else:
        raise _dom_err("aggregate_spec", spec)
    return m.collect(template, a[1], results, finish, cont)


def _strip_carets(goal: RT) -> tuple[RT, set[int]]:
    """``V^G`` -> G, with the variables of V (existentially quantified in bagof/setof)."""
    ex: set[int] = set()
    goal = _deref(goal)
    while type(goal) is tuple and len(goal) == 3 and goal[0] == "^":
        ex.update(id(v) for v in _term_vars(goal[1]))
        goal = _deref(goal[2])
    return goal, ex


def _bagof(is_set: bool) -> CtrlFn:
    def fn(m: _Machine, a: list[RT], cont: Cont) -> Cont:
        template, result = a[0], a[2]
        goal, ex = _strip_carets(a[1])
        ex.update(id(v) for v in _term_vars(template))
        witness = [v for v in _term_vars(goal) if id(v) not in ex]
        wit: RT = ("$w", *witness) if witness else NIL
        results: list[RT] = []
        trail = m.trail

        def groups() -> Iterator[None]:
            pairs = sorted(results, key=lambda p: _SORT_KEY(p[1]))
            i = 0
            while i < len(pairs):
                w = pairs[i][1]
                items = [pairs[i][2]]
                j = i + 1
                while j < len(pairs) and _variant(pairs[j][1], w):
                    items.append(pairs[j][2])
                    j += 1
                i = j
                mark = len(trail)
                if is_set:
                    items = _sorted(items, True)
                if _unify(wit, w, trail) and _unify(result, _mklist(items), trail):
                    yield
                _undo(trail, mark)

        def finish() -> bool | Iterator[None]:
            if not results:
                return False
            if not witness:
                items = [r[2] for r in results]
                if is_set:
                    items = _sorted(items, True)
                return _unify(result, _mklist(items), trail)
            return groups()

        return m.collect(("-", wit, template), goal, results, finish, cont)

    return fn


_CTRL[("bagof", 3)] = _bagof(False)
_CTRL[("setof", 3)] = _bagof(True)


@_ctrl("catch", 3)
def _c_catch(m: _Machine, a: list[RT], cont: Cont) -> Cont:
    seq = m.eng.compile_dynamic(a[0])
    cps = m.cps
    h = len(cps)
    cp = [_CP_CATCH, len(m.trail), a[1], a[2], cont]
    exit_node = (_CATCHEXIT_SEQ, 0, cp, h, cont)
    cp.append(exit_node)
    cps.append(cp)
    return (seq, 0, None, h + 1, exit_node) if seq else exit_node


@_ctrl("^", 2)
def _c_caret(m: _Machine, a: list[RT], cont: Cont) -> Cont:
    """``V^Goal`` outside bagof/setof calls Goal (as SWI does)."""
    seq = m.eng.compile_dynamic(a[1])
    return (seq, 0, None, len(m.cps), cont) if seq else cont
