"""Built-in registry and the built-ins for unification, comparison, types, arithmetic and terms."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from ilpkit.core.aleph_library import RandomStream
from ilpkit.plugins.backends.native.prolog.arith import _eval, _num_compare
from ilpkit.plugins.backends.native.prolog.errors import (
    _CELL_BYTES,
    _dom_err,
    _inst_err,
    _Throw,
    _type_err,
)
from ilpkit.plugins.backends.native.prolog.terms import (
    _FAST,
    _NODE_BYTES,
    _TICK,
    NIL,
    RT,
    Ref,
    _compare,
    _copy,
    _deref,
    _is_ground,
    _list_items,
    _mklist,
    _render,
    _tick,
    _undo,
    _unify,
    _unify_oc,
)

if TYPE_CHECKING:
    from ilpkit.plugins.backends.native.prolog.machine import _Machine

# --------------------------------------------------------------------------------------------
# Built-in predicates
# --------------------------------------------------------------------------------------------

Key: TypeAlias = tuple[str, int]
Cont: TypeAlias = Any  # None (proved) or a node (seq, pos, frame, cut barrier, next)
DetFn: TypeAlias = Callable[["_Machine", list[RT]], bool]
GenFn: TypeAlias = Callable[["_Machine", list[RT]], Iterator[None]]
CtrlFn: TypeAlias = Callable[["_Machine", list[RT], Cont], Cont]

_DET: dict[Key, DetFn] = {}
_GEN: dict[Key, GenFn] = {}
_CTRL: dict[Key, CtrlFn] = {}
_LIBRARY_NATIVE: set[Key] = set()
"""Native built-ins that SWI-Prolog defines in a library: a user definition overrides them."""


_F = TypeVar("_F")


def _register(table: dict[Key, _F], name: str, arity: int, library: bool) -> Callable[[_F], _F]:
    """A decorator filing a built-in implementation under ``name/arity`` in ``table``."""

    def deco(fn: _F) -> _F:
        table[(name, arity)] = fn
        if library:
            _LIBRARY_NATIVE.add((name, arity))
        return fn

    return deco


def _det(name: str, arity: int, library: bool = False) -> Callable[[DetFn], DetFn]:
    return _register(_DET, name, arity, library)


def _gen(name: str, arity: int, library: bool = False) -> Callable[[GenFn], GenFn]:
    return _register(_GEN, name, arity, library)


def _ctrl(name: str, arity: int, library: bool = False) -> Callable[[CtrlFn], CtrlFn]:
    return _register(_CTRL, name, arity, library)


# -- unification and comparison -----------------------------------------------------------------


@_det("=", 2)
def _b_unify(m: _Machine, a: list[RT]) -> bool:
    return _unify(a[0], a[1], m.trail)


@_det("\\=", 2)
def _b_not_unify(m: _Machine, a: list[RT]) -> bool:
    trail = m.trail
    mark = len(trail)
    ok = _unify(a[0], a[1], trail)
    _undo(trail, mark)
    return not ok


@_det("unify_with_occurs_check", 2)
def _b_unify_oc(m: _Machine, a: list[RT]) -> bool:
    return _unify_oc(a[0], a[1], m.trail)


def _cmp_pred(test: Callable[[int], bool]) -> DetFn:
    """A standard-order test; atoms of the same kind (the common case) skip ``_compare``."""

    def fn(m: _Machine, a: list[RT]) -> bool:
        x = a[0]
        while type(x) is Ref:
            v = x.val
            if v is None:
                break
            x = v
        y = a[1]
        while type(y) is Ref:
            v = y.val
            if v is None:
                break
            y = v
        tx = type(x)
        if tx is type(y) and (tx is int or (tx is str and x != NIL and y != NIL)):
            return test(-1 if x < y else (1 if x > y else 0))
        return test(_compare(x, y))

    return fn


def _identical(m: _Machine, a: list[RT]) -> bool:
    x = _deref(a[0])
    y = _deref(a[1])
    if x is y:
        return True
    tx = type(x)
    if tx is not type(y):
        return False
    if tx is tuple:
        return _compare(x, y) == 0
    return tx is not Ref and bool(x == y)


_DET[("==", 2)] = _identical
_DET[("\\==", 2)] = lambda m, a: not _identical(m, a)
_DET[("@<", 2)] = _cmp_pred(lambda c: c < 0)
_DET[("@>", 2)] = _cmp_pred(lambda c: c > 0)
_DET[("@=<", 2)] = _cmp_pred(lambda c: c <= 0)
_DET[("@>=", 2)] = _cmp_pred(lambda c: c >= 0)


@_det("compare", 3)
def _b_compare(m: _Machine, a: list[RT]) -> bool:
    o = _deref(a[0])
    if type(o) is not Ref:
        if type(o) is not str:
            raise _type_err("atom", o)
        if o not in ("<", "=", ">"):
            raise _dom_err("order", o)
    c = _compare(a[1], a[2])
    return _unify(o, "<" if c < 0 else ("=" if c == 0 else ">"), m.trail)


@_det("?=", 2)
def _b_can_compare(m: _Machine, a: list[RT]) -> bool:
    if _compare(a[0], a[1]) == 0:
        return True
    trail = m.trail
    mark = len(trail)
    ok = _unify(a[0], a[1], trail)
    _undo(trail, mark)
    return not ok


# -- type checks ----------------------------------------------------------------------------------


def _type_check(test: Callable[[RT], bool]) -> DetFn:
    def fn(m: _Machine, a: list[RT]) -> bool:
        return test(_deref(a[0]))

    return fn


def _is_proper_list(t: RT) -> bool:
    return bool(_list_items(t)[1] == NIL)


_DET[("var", 1)] = _type_check(lambda t: type(t) is Ref)
_DET[("nonvar", 1)] = _type_check(lambda t: type(t) is not Ref)
_DET[("atom", 1)] = _type_check(lambda t: type(t) is str and t != NIL)
_DET[("number", 1)] = _type_check(lambda t: type(t) is int or type(t) is float)
_DET[("integer", 1)] = _type_check(lambda t: type(t) is int)
_DET[("float", 1)] = _type_check(lambda t: type(t) is float)
_DET[("atomic", 1)] = _type_check(lambda t: type(t) is not Ref and type(t) is not tuple)
_DET[("compound", 1)] = _type_check(lambda t: type(t) is tuple)
_DET[("callable", 1)] = _type_check(lambda t: (type(t) is str and t != NIL) or type(t) is tuple)
_DET[("is_list", 1)] = _type_check(_is_proper_list)
_DET[("ground", 1)] = _type_check(_is_ground)
_DET[("blob", 2)] = lambda m, a: False  # no blobs in data


# -- arithmetic --------------------------------------------------------------------------------


@_det("is", 2)
def _b_is(m: _Machine, a: list[RT]) -> bool:
    return _unify(a[0], _eval(a[1]), m.trail)


for _op in ("<", ">", "=<", ">=", "=:=", "=\\="):
    _DET[(_op, 2)] = (lambda cmp: lambda m, a: cmp(a[0], a[1]))(_num_compare(_op))


def _int_or_var(t: RT) -> RT:
    t = _deref(t)
    if type(t) is not Ref and type(t) is not int:
        raise _type_err("integer", t)
    return t


@_det("succ", 2)
def _b_succ(m: _Machine, a: list[RT]) -> bool:
    x = _int_or_var(a[0])
    y = _int_or_var(a[1])
    if type(x) is int:
        if x < 0:
            raise _type_err("not_less_than_zero", x)
        return _unify(y, x + 1, m.trail)
    if type(y) is int:
        if y < 0:
            raise _type_err("not_less_than_zero", y)
        return y > 0 and _unify(x, y - 1, m.trail)
    raise _inst_err()


@_det("plus", 3)
def _b_plus(m: _Machine, a: list[RT]) -> bool:
    x, y, z = (_int_or_var(t) for t in a)
    if type(x) is int and type(y) is int:
        return _unify(z, x + y, m.trail)
    if type(x) is int and type(z) is int:
        return _unify(y, z - x, m.trail)
    if type(y) is int and type(z) is int:
        return _unify(x, z - y, m.trail)
    raise _inst_err()


@_gen("between", 3)
def _b_between(m: _Machine, a: list[RT]) -> Iterator[None]:
    lo = _deref(a[0])
    hi = _deref(a[1])
    x = _deref(a[2])
    if type(lo) is Ref or type(hi) is Ref:
        raise _inst_err()
    if type(lo) is not int:
        raise _type_err("integer", lo)
    if hi in ("inf", "infinite"):
        hi = math.inf
    elif type(hi) is not int:
        raise _type_err("integer", hi)
    if type(x) is int:
        if lo <= x <= hi:
            yield
        return
    if type(x) is not Ref:
        raise _type_err("integer", x)
    trail = m.trail
    i = lo
    while i <= hi:
        x.val = i
        trail.append(x)
        yield
        i += 1


@_det("aleph_random", 1, library=True)
def _b_aleph_random(m: _Machine, a: list[RT]) -> bool:
    """Aleph's ``aleph_random/1``: the next draw of the query's stream, which starts from
    the engine's seed at every query (:mod:`ilpkit.core.aleph_library`)."""
    stream = m.random
    if stream is None:
        stream = m.random = RandomStream(m.eng.random_seed)
    return _unify(a[0], stream.draw(), m.trail)


# -- terms -------------------------------------------------------------------------------------


@_det("functor", 3)
def _b_functor(m: _Machine, a: list[RT]) -> bool:
    t = _deref(a[0])
    trail = m.trail
    if type(t) is tuple:
        return _unify(a[1], t[0], trail) and _unify(a[2], len(t) - 1, trail)
    if type(t) is not Ref:
        return _unify(a[1], t, trail) and _unify(a[2], 0, trail)
    name = _deref(a[1])
    n = _deref(a[2])
    if type(name) is Ref or type(n) is Ref:
        raise _inst_err()
    if type(n) is not int:
        raise _type_err("integer", n)
    if n == 0:
        if type(name) is tuple:
            raise _type_err("atomic", name)
        return _unify(t, name, trail)
    if n < 0:
        raise _dom_err("not_less_than_zero", n)
    if type(name) is not str:
        raise _type_err("atomic" if type(name) is tuple else "atom", name)
    m.charge(n, n * _CELL_BYTES, f"functor/3 would build a term of {n:,} arguments")
    return _unify(t, (name, *[Ref() for _ in range(n)]), trail)


@_gen("arg", 3)
def _b_arg(m: _Machine, a: list[RT]) -> Iterator[None]:
    n = _deref(a[0])
    t = _deref(a[1])
    if type(t) is Ref:
        raise _inst_err()
    if type(t) is not tuple:
        raise _type_err("compound", t)
    trail = m.trail
    if type(n) is int:
        if 1 <= n < len(t) and _unify(a[2], t[n], trail):
            yield
        return
    if type(n) is not Ref:
        raise _type_err("integer", n)
    for i in range(1, len(t)):
        mark = len(trail)
        if _unify(n, i, trail) and _unify(a[2], t[i], trail):
            yield
        _undo(trail, mark)


@_det("=..", 2)
def _b_univ(m: _Machine, a: list[RT]) -> bool:
    t = _deref(a[0])
    trail = m.trail
    if type(t) is tuple:
        return _unify(a[1], _mklist(t), trail)
    if type(t) is not Ref:
        return _unify(a[1], (".", t, NIL), trail)
    items, tail = _list_items(a[1])
    if type(tail) is Ref:
        raise _inst_err()
    if tail != NIL:
        raise _type_err("list", a[1])
    if not items:
        raise _dom_err("non_empty_list", NIL)
    head = _deref(items[0])
    if type(head) is Ref:
        raise _inst_err()
    if len(items) == 1:
        if type(head) is tuple:
            raise _type_err("atomic", head)
        return _unify(t, head, trail)
    if type(head) is not str:
        raise _type_err("atom", head)
    return _unify(t, (head, *items[1:]), trail)


@_det("copy_term", 2)
def _b_copy_term(m: _Machine, a: list[RT]) -> bool:
    return _unify(a[1], _copy(a[0]), m.trail)


def _term_vars(t: RT) -> list[Ref]:
    seen: set[int] = set()
    out: list[Ref] = []
    stack = [t]
    n = 0
    while stack:
        x = _deref(stack.pop())
        if type(x) is Ref:
            if id(x) not in seen:
                seen.add(id(x))
                out.append(x)
        elif type(x) is tuple:
            n += 1
            if n > _FAST:  # a compound met again adds no variable: cyclic terms end
                if id(x) in seen:
                    continue
                seen.add(id(x))
                if n % _TICK == 0:
                    _tick(_TICK, _TICK * _NODE_BYTES, "term_variables/2 of a very large term")
            stack.extend(reversed(x[1:]))
    return out


@_det("term_variables", 2)
def _b_term_variables(m: _Machine, a: list[RT]) -> bool:
    return _unify(a[1], _mklist(_term_vars(a[0])), m.trail)


@_det("throw", 1)
def _b_throw(m: _Machine, a: list[RT]) -> bool:
    ball = _deref(a[0])
    if type(ball) is Ref:
        raise _inst_err()
    ball = _copy(ball)
    raise _Throw(ball, f"unhandled exception: {_render(ball)}")
