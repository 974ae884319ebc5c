"""Built-ins on lists."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ilpkit.plugins.backends.native.prolog.arith import _add, _eval, _max, _min
from ilpkit.plugins.backends.native.prolog.builtins_core import (
    _DET,
    _GEN,
    _LIBRARY_NATIVE,
    DetFn,
    GenFn,
    _det,
    _gen,
)
from ilpkit.plugins.backends.native.prolog.errors import (
    _CELL_BYTES,
    _FREE_CELLS,
    _dom_err,
    _inst_err,
    _type_err,
)
from ilpkit.plugins.backends.native.prolog.terms import (
    _SORT_KEY,
    _TICK,
    NIL,
    RT,
    Ref,
    _compare,
    _deref,
    _list_items,
    _mklist,
    _undo,
    _unify,
)

if TYPE_CHECKING:
    from ilpkit.plugins.backends.native.prolog.machine import _Machine

# -- lists -----------------------------------------------------------------------------------------


def _proper_items(t: RT) -> list[RT]:
    """Items of a proper list; instantiation error for a partial list, type error otherwise."""
    items, tail = _list_items(t)
    if tail == NIL:
        return items
    if type(tail) is Ref:
        raise _inst_err()
    raise _type_err("list", t)


@_gen("member", 2, library=True)
def _b_member(m: _Machine, a: list[RT]) -> Iterator[None]:
    x = a[0]
    trail = m.trail
    lst = _deref(a[1])
    k = 0
    while type(lst) is tuple and len(lst) == 3 and lst[0] == ".":
        mark = len(trail)
        if _unify(x, lst[1], trail):
            yield
        _undo(trail, mark)
        lst = _deref(lst[2])
        k += 1
        if k == _FREE_CELLS:  # a step per cell, as SWI-Prolog's member/2 (a cyclic list)
            m.charge(k + 1, 0, "member/2 walked a list of many cells")
            k = 0
    if type(lst) is Ref:  # a partial list: member/2 extends it, without end (as SWI)
        k = 0
        while True:
            mark = len(trail)
            m.charge(k, k * _CELL_BYTES, f"member/2 would build a list of {k:,} cells")
            cells: list[RT] = [Ref() for _ in range(k)]
            if _unify(lst, _mklist([*cells, x], Ref()), trail):
                yield
            _undo(trail, mark)
            k += 1


@_det("memberchk", 2, library=True)
def _b_memberchk(m: _Machine, a: list[RT]) -> bool:
    x = _deref(a[0])
    trail = m.trail
    lst = _deref(a[1])
    tx = type(x)
    atomic = tx is not Ref and tx is not tuple
    seen = 0  # Brent's cycle detection: a cyclic list is a type error, as in SWI-Prolog
    cell = lst
    lap = 1
    while type(lst) is tuple and len(lst) == 3 and lst[0] == ".":
        seen += 1
        if seen == lap:
            cell = lst
            lap *= 2
            if lap > _TICK:
                m.tick("memberchk/2")
        elif lst is cell:
            raise _type_err("list", a[1])
        e = lst[1]
        if atomic:  # fast path: no general unification against atomic items
            while type(e) is Ref:
                v = e.val
                if v is None:
                    break
                e = v
            if e is x or (type(e) is tx and e == x):
                return True
            if type(e) is Ref:
                e.val = x
                trail.append(e)
                return True
        else:
            mark = len(trail)
            if _unify(x, e, trail):
                return True
            _undo(trail, mark)
        lst = _deref(lst[2])
    if type(lst) is Ref:
        return _unify(lst, (".", x, Ref()), trail)
    return False


@_gen("length", 2)
def _b_length(m: _Machine, a: list[RT]) -> Iterator[None]:
    items, tail = _list_items(a[0])
    n = _deref(a[1])
    trail = m.trail
    if type(n) is not Ref and type(n) is not int:
        raise _type_err("integer", n)
    if tail == NIL:
        if _unify(n, len(items), trail):
            yield
        return
    if type(tail) is not Ref:
        raise _type_err("list", a[0])
    if type(n) is int:
        if n < 0:
            raise _dom_err("not_less_than_zero", n)
        k = n - len(items)
        if k >= 0:
            m.charge(k, k * _CELL_BYTES, f"length/2 would build a list of {k:,} cells")
            if _unify(tail, _mklist([Ref() for _ in range(k)]), trail):
                yield
        return
    k = 0
    while True:
        mark = len(trail)
        m.charge(k, k * _CELL_BYTES, f"length/2 would build a list of {k:,} cells")
        if _unify(tail, _mklist([Ref() for _ in range(k)]), trail) and _unify(
            n, len(items) + k, trail
        ):
            yield
        _undo(trail, mark)
        k += 1


def _nth(base: int) -> GenFn:
    def fn(m: _Machine, a: list[RT]) -> Iterator[None]:
        i = _deref(a[0])
        trail = m.trail
        if type(i) is int:
            k = i - base
            if k < 0:
                return
            lst = _deref(a[1])
            walked = 0
            while k > 0 and type(lst) is tuple and len(lst) == 3 and lst[0] == ".":
                lst = _deref(lst[2])
                k -= 1
                walked += 1
                if walked == _TICK:  # a long (or cyclic) list: within the query's limits
                    m.charge(walked, 0, f"nth{base}/3 walked a list of many cells")
                    walked = 0
            if type(lst) is tuple and len(lst) == 3 and lst[0] == "." and k == 0:
                if _unify(a[2], lst[1], trail):
                    yield
            elif type(lst) is Ref:
                m.charge(k, k * _CELL_BYTES, f"nth/3 would build a list of {k:,} cells")
                cells: list[RT] = [Ref() for _ in range(k)]
                if _unify(lst, _mklist([*cells, a[2]], Ref()), trail):
                    yield
            return
        if type(i) is not Ref:
            raise _type_err("integer", i)
        items, _tail = _list_items(a[1])
        for idx, x in enumerate(items):
            mark = len(trail)
            if _unify(a[2], x, trail) and _unify(i, idx + base, trail):
                yield
            _undo(trail, mark)

    return fn


_GEN[("nth0", 3)] = _nth(0)
_GEN[("nth1", 3)] = _nth(1)
_LIBRARY_NATIVE.update({("nth0", 3), ("nth1", 3)})


def _sorted(items: list[RT], dedupe: bool, reverse: bool = False, key: int = 0) -> list[RT]:
    if key:
        keyed = []
        for x in items:
            d = _deref(x)
            if type(d) is Ref:
                raise _inst_err()
            if type(d) is not tuple or len(d) <= key:
                raise _type_err("compound", d)
            keyed.append((d[key], x))
        keyed.sort(key=lambda p: _SORT_KEY(p[0]), reverse=reverse)
        out_pairs: list[tuple[RT, RT]] = []
        for p in keyed:
            if dedupe and out_pairs and _compare(out_pairs[-1][0], p[0]) == 0:
                continue
            out_pairs.append(p)
        return [p[1] for p in out_pairs]
    out = sorted(items, key=_SORT_KEY, reverse=reverse)
    if dedupe and out:
        kept = [out[0]]
        for x in out[1:]:
            if _compare(kept[-1], x) != 0:
                kept.append(x)
        out = kept
    return out


@_det("msort", 2)
def _b_msort(m: _Machine, a: list[RT]) -> bool:
    return _unify(a[1], _mklist(_sorted(_proper_items(a[0]), False)), m.trail)


@_det("sort", 2)
def _b_sort(m: _Machine, a: list[RT]) -> bool:
    return _unify(a[1], _mklist(_sorted(_proper_items(a[0]), True)), m.trail)


@_det("sort", 4)
def _b_sort4(m: _Machine, a: list[RT]) -> bool:
    key = _deref(a[0])
    order = _deref(a[1])
    if type(key) is Ref or type(order) is Ref:
        raise _inst_err()
    if type(key) is not int or key < 0:
        raise _type_err("nonneg", key)
    if order not in ("@<", "@>", "@=<", "@>="):
        raise _dom_err("order", order)
    items = _proper_items(a[2])
    out = _sorted(items, order in ("@<", "@>"), reverse=order in ("@>", "@>="), key=key)
    return _unify(a[3], _mklist(out), m.trail)


@_det("keysort", 2)
def _b_keysort(m: _Machine, a: list[RT]) -> bool:
    pairs = []
    for x in _proper_items(a[0]):
        d = _deref(x)
        if type(d) is Ref:
            raise _inst_err()
        if type(d) is not tuple or len(d) != 3 or d[0] != "-":
            raise _type_err("pair", d)
        pairs.append(d)
    pairs.sort(key=lambda p: _SORT_KEY(p[1]))
    return _unify(a[1], _mklist(pairs), m.trail)


def _sum(items: list[RT]) -> RT:
    total: RT = 0
    for x in items:
        total = _add(total, _eval(x))
    return total


@_det("sum_list", 2, library=True)
def _b_sum_list(m: _Machine, a: list[RT]) -> bool:
    return _unify(a[1], _sum(_proper_items(a[0])), m.trail)


_DET[("sumlist", 2)] = _b_sum_list
_LIBRARY_NATIVE.add(("sumlist", 2))


def _extreme_list(pick: Callable[[RT, RT], RT]) -> DetFn:
    def fn(m: _Machine, a: list[RT]) -> bool:
        items = _proper_items(a[0])
        if not items:
            return False
        if len(items) == 1:
            return _unify(a[1], items[0], m.trail)
        best = _eval(items[0])
        for x in items[1:]:
            best = pick(best, _eval(x))
        return _unify(a[1], best, m.trail)

    return fn


_DET[("max_list", 2)] = _extreme_list(_max)
_DET[("min_list", 2)] = _extreme_list(_min)


def _extreme_member(want: int) -> DetFn:
    def fn(m: _Machine, a: list[RT]) -> bool:
        items = _proper_items(a[1])
        if not items:
            return False
        best = items[0]
        for x in items[1:]:
            if _compare(x, best) == want:
                best = x
        return _unify(a[0], best, m.trail)

    return fn


_DET[("max_member", 2)] = _extreme_member(1)
_DET[("min_member", 2)] = _extreme_member(-1)


@_det("list_to_set", 2, library=True)
def _b_list_to_set(m: _Machine, a: list[RT]) -> bool:
    """Drop later duplicates (under ``==``), keeping first occurrences in order (SWI 7+)."""
    items = _proper_items(a[0])
    # a stable sort keeps equal items in list order, so each run starts at a first occurrence
    order = sorted(range(len(items)), key=lambda i: _SORT_KEY(items[i]))
    keep = [False] * len(items)
    head = -1
    for i in order:
        if head < 0 or _compare(items[head], items[i]) != 0:
            keep[i] = True
            head = i
    return _unify(a[1], _mklist([x for i, x in enumerate(items) if keep[i]]), m.trail)


@_det("numlist", 3, library=True)
def _b_numlist(m: _Machine, a: list[RT]) -> bool:
    lo = _deref(a[0])
    hi = _deref(a[1])
    if type(lo) is Ref or type(hi) is Ref:
        raise _inst_err()
    if type(lo) is not int:
        raise _type_err("integer", lo)
    if type(hi) is not int:
        raise _type_err("integer", hi)
    if lo > hi:
        return False
    n = hi - lo + 1
    m.charge(n, n * _CELL_BYTES, f"numlist/3 would build a list of {n:,} integers")
    return _unify(a[2], _mklist(range(lo, hi + 1)), m.trail)


for _k in (("max_list", 2), ("min_list", 2), ("max_member", 2), ("min_member", 2)):
    _LIBRARY_NATIVE.add(_k)
