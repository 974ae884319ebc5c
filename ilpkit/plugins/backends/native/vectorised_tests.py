"""Unification and the built-in tests of the set-at-a-time evaluator: methods of
:class:`~ilpkit.plugins.backends.native.vectorised.Evaluator`, kept here to keep modules small.

Each maps a table of bindings (one row per partial proof) to the rows that pass, with a
test on a column applied to every row at once; anything whose meaning would depend on a
variable still unbound raises :class:`~.vectorised_values.Unsupported`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ilpkit.plugins.backends.native.vectorised_values import (
    _ARITH,
    _TYPE_TESTS,
    _V,
    RT,
    Ids,
    Mask,
    Unsupported,
    _filtered,
    _has_var,
    _ikey,
    _State,
)

if TYPE_CHECKING:
    from ilpkit.plugins.backends.native.vectorised import Evaluator


def _builtin(self: Evaluator, name: str, args: tuple[RT, ...], st: _State) -> _State:
    if name in ("fail", "false") and not args:
        st.fail()
        return st
    if len(args) == 1 and name in _TYPE_TESTS:
        return self._type_test(name, st.resolve(args[0]), st)
    if len(args) != 2:
        raise Unsupported(f"{name}/{len(args)}")
    a, b = args
    if name == "=":
        st = st.copy()
        if not self._unify(a, b, st):
            st.fail()
        return st
    if name == "\\=":
        x, y = st.walk(a), st.walk(b)
        for t in (x, y):
            if type(t) is _V and t not in st.cols:
                # X \= T with X unbound: X = T would succeed, so it fails
                if self.strict or t.void:
                    raise Unsupported("\\=/2 on a variable the caller may bind", static=False)
                st = st.copy()
                st.fail()
                return st
    if name in ("==", "\\==", "\\="):
        # \\= of two terms bound for every row (else _leaf refuses) is \\== on them
        same = self._identical(st.resolve(a), st.resolve(b), st)
        if name != "==":
            same = ~same if isinstance(same, np.ndarray) else not same
        return _filtered(st, same)
    if name in ("@<", "@>", "@=<", "@>="):
        return self._order(name, st.resolve(a), st.resolve(b), st)
    if name in ("<", ">", "=<", ">=", "=:=", "=\\="):
        return self._arith(name, st.resolve(a), st.resolve(b), st)
    if name == "is":
        expr = st.resolve(b)
        if _has_var(expr):
            raise Unsupported("is/2 on values known only at run time")
        try:
            value = self._eval(expr)
        except Exception as exc:  # an evaluation error: let the engine raise it
            raise Unsupported(f"is/2 raises {exc}", static=False) from None
        st = st.copy()
        if not self._unify(a, value, st):
            st.fail()
        return st
    raise Unsupported(f"{name}/2")


def _occurs(v: _V, t: RT, st: _State) -> bool:
    """Whether ``v`` occurs in ``t`` under ``st``'s bindings (kept acyclic: binding ``v`` to
    such a ``t`` would make a cyclic term, which the evaluator leaves to the machine)."""
    stack = [t]
    n = 0
    while stack:
        x = st.walk(stack.pop())
        if x is v:
            return True
        if type(x) is tuple:
            n += 1
            if n > _OCCURS_NODES:  # shared subterms, unfolded
                raise Unsupported("a very large term", static=False)
            stack.extend(x[1:])
    return False


_OCCURS_NODES = 1 << 16


def _unify(self: Evaluator, a: RT, b: RT, st: _State) -> bool:
    """Unify in ``st`` (bindings recorded, rows filtered); False if no row can match."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        x = st.walk(x)
        y = st.walk(y)
        if x is y:
            continue
        tx, ty = type(x), type(y)
        if tx is _V and x not in st.cols:
            if ty is tuple and _occurs(x, y, st):
                raise Unsupported("a cyclic term", static=False)  # the machine's: rational trees
            st.sub[x] = y
            continue
        if ty is _V and y not in st.cols:
            if tx is tuple and _occurs(y, x, st):
                raise Unsupported("a cyclic term", static=False)
            st.sub[y] = x
            continue
        if tx is _V or ty is _V:
            col, other = (x, y) if tx is _V else (y, x)
            other = st.resolve(other)
            if type(other) is _V:
                st.take(st.cols[col] == st.cols[other])
            elif type(other) is tuple and _has_var(other):
                # a column of ground values against f(X, ...): the rows holding an f/n
                # term, X bound to a column of its arguments (``element(H, [H|_])``)
                subs = self._decompose(st, col, other[0], len(other) - 1)
                if st.n == 0:
                    return False
                for sub, arg in zip(subs, other[1:], strict=True):
                    stack.append((sub, arg))
                continue
            elif _has_var(other):
                raise Unsupported("unifying a run-time value with a partial structure")
            else:
                i = self.values.lookup(other)
                if i is None:
                    st.fail()
                    return False
                st.take(st.cols[col] == i)
            if st.n == 0:
                return False
            continue
        if tx is tuple and ty is tuple:
            if len(x) != len(y) or x[0] != y[0]:
                st.fail()
                return False
            stack.extend(zip(x[1:], y[1:], strict=True))
            continue
        if tx is not ty or _ikey(x) != _ikey(y):
            st.fail()
            return False
    return True


def _decompose(self: Evaluator, st: _State, col: _V, name: str, arity: int) -> list[_V]:
    """Keep the rows whose value of ``col`` is a ``name/arity`` compound; fresh variables
    bound to columns of its arguments (each distinct value taken apart once)."""
    ids = st.cols[col]
    uniq, inverse = np.unique(ids, return_inverse=True)
    inverse = inverse.reshape(-1)
    values = self.values.values
    ident = self.values.id
    known = self._apart
    parts = np.zeros((len(uniq), arity), dtype=np.int64)
    fits = np.zeros(len(uniq), dtype=bool)
    for j, u in enumerate(uniq.tolist()):
        key = (u, name, arity)
        got = known.get(key, False)
        if got is False:
            v = values[u]
            fit = type(v) is tuple and v[0] == name and len(v) == arity + 1
            got = known[key] = tuple(ident(a) for a in v[1:]) if fit else None
        if got is not None:
            fits[j] = True
            parts[j] = got
    keep = fits[inverse]
    rows = parts[inverse[keep]]
    st.take(keep)
    subs = []
    for m in range(arity):
        sub = self._fresh("arg")
        st.cols[sub] = np.ascontiguousarray(rows[:, m])
        subs.append(sub)
    return subs


def _leaf(self: Evaluator, t: RT, st: _State) -> Ids | int:
    """Ids of a value per row (a column) or one id (a ground constant)."""
    if type(t) is _V:
        col = st.cols.get(t)
        if col is None:
            raise Unsupported("a test on an unbound variable")
        return col
    if _has_var(t):
        raise Unsupported("a test on a partial structure")
    return self.values.id(t)


def _identical(self: Evaluator, a: RT, b: RT, st: _State) -> Mask | bool:
    if type(a) is tuple and type(b) is tuple:
        if len(a) != len(b) or a[0] != b[0]:
            return False
        result: Mask | bool = True
        for x, y in zip(a[1:], b[1:], strict=True):
            r = self._identical(x, y, st)
            if r is False:
                return False
            result = r if result is True else (result & r)
        return result
    la = self._leaf(a, st)
    lb = self._leaf(b, st)
    if isinstance(la, int) and isinstance(lb, int):
        return la == lb
    return np.asarray(la == lb)


def _order(self: Evaluator, op: str, a: RT, b: RT, st: _State) -> _State:
    la = self._leaf(a, st)
    lb = self._leaf(b, st)
    rank = self.values.rank()
    ra = rank[la]
    rb = rank[lb]
    cmp = {"@<": np.less, "@>": np.greater, "@=<": np.less_equal, "@>=": np.greater_equal}
    return _filtered(st, cmp[op](ra, rb))


def _arith(self: Evaluator, op: str, a: RT, b: RT, st: _State) -> _State:
    if not _has_var(a) and not _has_var(b):
        try:
            ok = bool(_ARITH[op](self._eval(a), self._eval(b)))
        except Exception as exc:
            raise Unsupported(f"{op} raises {exc}", static=False) from None
        return _filtered(st, ok)
    num = self.values.numeric()
    sides = []
    for t in (a, b):
        if type(t) is _V:
            vals = num[self._leaf(t, st)]
            if np.isnan(vals).any():
                raise Unsupported("arithmetic on a non-number", static=False)
            sides.append(vals)
        elif _has_var(t):
            raise Unsupported("arithmetic on run-time expressions")
        else:
            try:
                value = self._eval(t)
                sides.append(float(value))
            except Exception as exc:
                raise Unsupported(f"{op} raises {exc}", static=False) from None
            if type(value) is int and abs(value) > 2**53:  # its float is not its value
                raise Unsupported("an integer beyond floats", static=False)
    return _filtered(st, np.asarray(_ARITH[op](sides[0], sides[1])))


def _type_test(self: Evaluator, name: str, t: RT, st: _State) -> _State:
    """``var/1``, ``nonvar/1``, ``number/1``, ... on a term: per row on a column, once on
    a structure or constant.  An unbound variable is var (refused when :attr:`strict`)."""
    if type(t) is _V and t not in st.cols:
        if self.strict or t.void:  # a void variable may be bound, its values not kept
            raise Unsupported(f"{name}/1 on a variable the caller may bind", static=False)
        return _filtered(st, name == "var")
    if type(t) is _V:
        return _filtered(st, self.values.test(name)[st.cols[t]])
    if type(t) is tuple:
        return _filtered(st, name in ("nonvar", "compound", "callable"))
    return _filtered(st, _TYPE_TESTS[name](t))


def _list(self: Evaluator, t: RT, st: _State) -> list[RT]:
    items = []
    t = st.walk(t)
    while type(t) is tuple and len(t) == 3 and t[0] == ".":
        items.append(t[1])
        t = st.walk(t[2])
    if t != "[]" or type(t) is not str:
        raise Unsupported("a list of unknown length")
    return items


def _memberchk(self: Evaluator, x: RT, lst: RT, st: _State) -> _State:
    items = self._list(lst, st)
    x = st.walk(x)
    if type(x) is _V and x not in st.cols:
        if self.strict:
            raise Unsupported("memberchk/2 binding a variable the caller may bind")
        st = st.copy()
        if not items:
            st.fail()
        else:
            st.sub[x] = items[0]
        return st
    lx = self._leaf(st.resolve(x), st)
    mask: Mask | bool = False
    for item in items:
        eq = lx == self._leaf(st.resolve(item), st)
        mask = eq if mask is False else (mask | eq)
    return _filtered(st, mask)


def _member(self: Evaluator, x: RT, lst: RT, st: _State) -> _State:
    items = self._list(lst, st)
    origin = self._fresh("origin")
    base = st.copy()
    base.cols[origin] = np.arange(st.n, dtype=np.int64)
    branches = []
    for item in items:
        b = base.copy()
        if self._unify(x, item, b) and b.n:
            branches.append(b)
    if not branches:
        out = st.copy()
        out.fail()
        return out
    if len(branches) == 1:
        return branches[0]
    return self._merge(st, origin, (x, lst), branches)
