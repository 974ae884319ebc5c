"""Runtime terms of the Prolog machine: cells, unification, standard order, conversion."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cmp_to_key
from typing import Any, Final, TypeAlias

from ilpkit.prolog.terms import Const, Str, Struct, Term, Var, to_prolog

# --------------------------------------------------------------------------------------------
# Runtime terms
# --------------------------------------------------------------------------------------------

RT: TypeAlias = Any
"""A runtime term: ``str`` atom, ``int``, ``float``, :class:`Str`, ``tuple`` compound or
:class:`Ref`.  (``Any`` because the tuple encoding cannot be expressed precisely.)"""


class Ref:
    """A logic variable cell; ``val`` is None while unbound."""

    __slots__ = ("val",)

    def __init__(self) -> None:
        self.val: RT = None

    def __repr__(self) -> str:
        return f"Ref({self.val!r})" if self.val is not None else f"_V{id(self) % 100000}"


class _Slot(int):
    """A clause variable in a template: the index of its cell in the clause's frame."""

    __slots__ = ()


class _Tmpl(tuple):  # type: ignore[type-arg]
    """A compound template that contains clause variables (rebuilt per call)."""

    __slots__ = ()


_SLOTS: list[_Slot] = [_Slot(i) for i in range(64)]


def _slot(i: int) -> _Slot:
    while len(_SLOTS) <= i:
        _SLOTS.append(_Slot(len(_SLOTS)))
    return _SLOTS[i]


NIL: Final = "[]"
_END: Final = object()

# -- loops over terms: cycles and the query's limits ------------------------------------------
#
# ``X = f(X)`` makes a cyclic term (a rational tree, as in SWI-Prolog: unification has no
# occurs check).  Every loop over a term's arguments below visits at most ``_FAST`` compound
# nodes in its plain form; past that it remembers what it has visited (tuple identities: a
# cycle always passes through a bound :class:`Ref`, tuples are immutable), so that it ends on
# cyclic and on shared (DAG) terms with SWI-Prolog's answer, and charges the running query
# every ``_TICK`` nodes, so that it ends within the query's step, time and memory limits.

_FAST: Final = 4096
"""Compound nodes a loop over a term visits before it starts remembering the visited ones."""
_TICK: Final = 1 << 14
"""Nodes between two charges of a long loop to the running query."""
_NODE_BYTES: Final = 96
"""About the bytes one visited node costs a careful loop (a set entry and its key)."""

_GUARD: list[Callable[[int, int, str], None] | None] = [None]
"""``_GUARD[0](nodes, nbytes, what)`` charges the running query's limits (set by the
machine while it runs a query; it raises the machine's limit exception)."""


def _tick(nodes: int, nbytes: int, what: str) -> None:
    """Charge a long loop over a term to the running query (if any)."""
    guard = _GUARD[0]
    if guard is not None:
        guard(nodes, nbytes, what)


class _CyclicTerm(Exception):
    """A cyclic term where the native engine needs a tree (text, an answer as a Term)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def _deref(t: RT) -> RT:
    while type(t) is Ref:
        v = t.val
        if v is None:
            return t
        t = v
    return t


def _build(t: RT, frame: list[RT]) -> RT:
    """Instantiate a compound template with the frame's cells (fresh cells for new variables).

    Callers handle slots and ground terms inline; this is only called for :class:`_Tmpl`.
    """
    out = []
    for a in t:
        ta = type(a)
        if ta is _Slot:
            v = frame[a]
            if v is None:
                v = frame[a] = Ref()
            out.append(v)
        elif ta is _Tmpl:
            out.append(_build(a, frame))
        else:
            out.append(a)
    return tuple(out)


def _undo(trail: list[Ref], mark: int) -> None:
    if len(trail) > mark:
        for r in trail[mark:]:
            r.val = None
        del trail[mark:]


def _unify(a: RT, b: RT, trail: list[Ref]) -> bool:
    """Prolog unification without occurs check; bindings are recorded on ``trail``.

    Iterative: the last argument (a list's tail) is processed last with a small stack, so long
    lists do not recurse.  Past ``_FAST`` compound pairs it goes on in
    :func:`_unify_careful`, which ends on cyclic terms.
    """
    stack: list[RT] | None = None
    n = 0
    while True:
        while type(a) is Ref:
            v = a.val
            if v is None:
                break
            a = v
        while type(b) is Ref:
            v = b.val
            if v is None:
                break
            b = v
        if a is not b:
            ta = type(a)
            if ta is Ref:
                a.val = b
                trail.append(a)
            elif type(b) is Ref:
                b.val = a
                trail.append(b)
            elif ta is tuple:
                if type(b) is not tuple:
                    return False
                n += 1
                if n > _FAST:
                    if stack is None:
                        stack = []
                    stack.append(a)
                    stack.append(b)
                    return _unify_careful(stack, trail)
                ln = len(a)
                if ln != len(b) or a[0] != b[0]:
                    return False
                if stack is None:
                    stack = []
                for i in range(ln - 1, 0, -1):
                    stack.append(a[i])
                    stack.append(b[i])
            elif ta is not type(b) or a != b:
                return False
        if not stack:
            return True
        b = stack.pop()
        a = stack.pop()


def _unify_careful(stack: list[RT], trail: list[Ref]) -> bool:
    """Unification of the pairs on ``stack`` (``a, b`` alternating) as rational trees: a pair
    of compounds met again is already being unified (SWI-Prolog's answer on cyclic terms)."""
    seen: set[int] = set()
    n = 0
    while stack:
        b = _deref(stack.pop())
        a = _deref(stack.pop())
        if a is b:
            continue
        ta = type(a)
        if ta is Ref:
            a.val = b
            trail.append(a)
        elif type(b) is Ref:
            b.val = a
            trail.append(b)
        elif ta is tuple:
            ln = len(a)
            if type(b) is not tuple or ln != len(b) or a[0] != b[0]:
                return False
            key = id(a) << 64 | id(b)
            if key in seen:
                continue
            seen.add(key)
            n += 1
            if n >= _TICK:
                _tick(n, n * _NODE_BYTES, "unifying very large or cyclic terms")
                n = 0
            for i in range(ln - 1, 0, -1):
                stack.append(a[i])
                stack.append(b[i])
        elif ta is not type(b) or a != b:
            return False
    return True


def _occurs(v: Ref, t: RT) -> bool:
    stack = [t]
    seen: set[int] = set()
    while stack:
        x = _deref(stack.pop())
        if x is v:
            return True
        if type(x) is tuple and id(x) not in seen:
            seen.add(id(x))
            if len(seen) % _TICK == 0:
                _tick(_TICK, _TICK * _NODE_BYTES, "the occurs check of a very large term")
            stack.extend(x[1:])
    return False


def _unify_oc(a: RT, b: RT, trail: list[Ref]) -> bool:
    """Unification with occurs check (``unify_with_occurs_check/2``); a pair of compounds met
    again is already being unified (terms made cyclic before the call)."""
    stack = [(a, b)]
    seen: set[int] = set()
    while stack:
        x, y = stack.pop()
        x = _deref(x)
        y = _deref(y)
        if x is y:
            continue
        if type(x) is Ref:
            if _occurs(x, y):
                return False
            x.val = y
            trail.append(x)
        elif type(y) is Ref:
            if _occurs(y, x):
                return False
            y.val = x
            trail.append(y)
        elif type(x) is tuple:
            if type(y) is not tuple or len(x) != len(y) or x[0] != y[0]:
                return False
            key = id(x) << 64 | id(y)
            if key in seen:
                continue
            seen.add(key)
            if len(seen) % _TICK == 0:
                _tick(_TICK, _TICK * _NODE_BYTES, "unifying very large or cyclic terms")
            stack.extend(zip(x[1:], y[1:], strict=True))
        elif type(x) is not type(y) or x != y:
            return False
    return True


def _unify_head(tmpls: tuple[RT, ...], args: Any, frame: list[RT], trail: list[Ref]) -> bool:
    """Unify a clause head (argument templates) with a call's arguments, filling ``frame``."""
    for t, a in zip(tmpls, args):  # noqa: B905 -- same arity by construction
        tt = type(t)
        if tt is _Slot:
            v = frame[t]
            if v is None:
                frame[t] = a
            elif not _unify(v, a, trail):
                return False
            continue
        while type(a) is Ref:
            v = a.val
            if v is None:
                break
            a = v
        if type(a) is Ref:
            a.val = _build(t, frame) if tt is _Tmpl else t
            trail.append(a)
        elif tt is _Tmpl:
            if type(a) is not tuple or len(a) != len(t) or a[0] != t[0]:
                return False
            # the functor names (element 0) are equal: zip over whole tuples, no slicing
            if not _unify_head(t, a, frame, trail):
                return False
        elif tt is tuple:
            if not _unify(t, a, trail):
                return False
        elif type(a) is not tt or a != t:
            return False
    return True


def _unify_row(args: list[RT], row: tuple[RT, ...], trail: list[Ref]) -> bool:
    """Unify call arguments with a ground fact row."""
    for a, v in zip(args, row):  # noqa: B905
        while type(a) is Ref:
            w = a.val
            if w is None:
                break
            a = w
        if type(a) is Ref:
            a.val = v
            trail.append(a)
        elif a is v:
            continue
        elif type(a) is tuple or type(v) is tuple:
            if not _unify(a, v, trail):
                return False
        elif type(a) is not type(v) or a != v:
            return False
    return True


def _fact_plan(args: list[RT]) -> tuple[list[tuple[int, RT]], list[tuple[int, Ref]]] | None:
    """Split a fact call's arguments into bound values to check and free variables to bind.

    Matching a ground row then needs no general unification.  None when the fast path does
    not apply (a variable occurs twice, or a bound argument is a non-ground compound).
    """
    checks: list[tuple[int, RT]] = []
    outs: list[tuple[int, Ref]] = []
    j = 0
    for a in args:
        while type(a) is Ref:
            v = a.val
            if v is None:
                break
            a = v
        if type(a) is Ref:
            for _, r in outs:
                if r is a:
                    return None
            outs.append((j, a))
        else:
            if type(a) is tuple and not _is_ground(a):
                return None
            checks.append((j, a))
        j += 1  # noqa: SIM113 - enumerate() is slower on this hot path
    return checks, outs


def _match_row(
    row: tuple[RT, ...], checks: list[tuple[int, RT]], outs: list[tuple[int, Ref]], trail: list[Ref]
) -> bool:
    """Match a ground fact row against a call planned by :func:`_fact_plan`."""
    for j, v in checks:
        r = row[j]
        if r is v:
            continue
        tr = type(r)
        if tr is not type(v):
            return False
        if tr is tuple:
            if not _unify(v, r, trail):
                return False
        elif r != v:
            return False
    for j, ref in outs:
        ref.val = row[j]
        trail.append(ref)
    return True


# -- standard order ---------------------------------------------------------------------------

_RANK_VAR, _RANK_NUM, _RANK_STR, _RANK_NIL, _RANK_ATOM, _RANK_COMPOUND = range(6)


def _rank(t: RT) -> int:
    tt = type(t)
    if tt is str:
        return _RANK_NIL if t == NIL else _RANK_ATOM
    if tt is tuple:
        return _RANK_COMPOUND
    if tt is int or tt is float:
        return _RANK_NUM
    if tt is Ref:
        return _RANK_VAR
    return _RANK_STR


def _compare(a: RT, b: RT) -> int:
    """Standard order of terms (SWI-Prolog): -1, 0 or 1.

    Past ``_FAST`` compound pairs, a pair met again counts as equal (it is being compared
    already): cyclic terms compare as SWI-Prolog compares them.
    """
    stack = [(a, b)]
    n = 0
    seen: set[int] | None = None
    while stack:
        x, y = stack.pop()
        x = _deref(x)
        y = _deref(y)
        if x is y:
            continue
        rx = _rank(x)
        ry = _rank(y)
        if rx != ry:
            return -1 if rx < ry else 1
        if rx == _RANK_COMPOUND:
            if len(x) != len(y):
                return -1 if len(x) < len(y) else 1
            if x[0] != y[0]:
                return -1 if x[0] < y[0] else 1
            n += 1
            if n > _FAST:
                if seen is None:
                    seen = set()
                key = id(x) << 64 | id(y)
                if key in seen:
                    continue
                seen.add(key)
                if n % _TICK == 0:
                    _tick(_TICK, _TICK * _NODE_BYTES, "comparing very large or cyclic terms")
            for i in range(len(x) - 1, 0, -1):
                stack.append((x[i], y[i]))
        elif rx == _RANK_NUM:
            if x != y:
                if x < y:
                    return -1
                if x > y:
                    return 1
                # NaN: order by text, as good as any total order
                return -1 if repr(x) < repr(y) else (1 if repr(x) > repr(y) else 0)
            if type(x) is not type(y):
                return -1 if type(x) is float else 1
        elif rx == _RANK_VAR:
            return -1 if id(x) < id(y) else 1
        elif rx == _RANK_STR:
            if x.value != y.value:
                return -1 if x.value < y.value else 1
        elif x != y:
            return -1 if x < y else 1
    return 0


_SORT_KEY: Final = cmp_to_key(_compare)


def _variant(a: RT, b: RT) -> bool:
    """True when ``a`` and ``b`` are equal up to a consistent renaming of variables."""
    m1: dict[int, Ref] = {}
    m2: dict[int, Ref] = {}
    stack = [(a, b)]
    n = 0
    seen: set[int] | None = None
    while stack:
        x, y = stack.pop()
        x = _deref(x)
        y = _deref(y)
        if type(x) is Ref or type(y) is Ref:
            if type(x) is not Ref or type(y) is not Ref:
                return False
            px = m1.setdefault(id(x), y)
            py = m2.setdefault(id(y), x)
            if px is not y or py is not x:
                return False
        elif type(x) is tuple:
            if type(y) is not tuple or len(x) != len(y) or x[0] != y[0]:
                return False
            n += 1
            if n > _FAST:
                if seen is None:
                    seen = set()
                key = id(x) << 64 | id(y)
                if key in seen:
                    continue
                seen.add(key)
                if n % _TICK == 0:
                    _tick(_TICK, _TICK * _NODE_BYTES, "comparing very large or cyclic terms")
            stack.extend(zip(x[1:], y[1:], strict=True))
        elif type(x) is not type(y) or x != y:
            return False
    return True


# -- copying and conversion ---------------------------------------------------------------------


def _copy(t: RT, mapping: dict[int, Ref] | None = None) -> RT:
    """A fully dereferenced copy with fresh variables (``copy_term/2``, ``findall/3`` results).

    Past ``_FAST`` compounds the copy keeps the sharing of the original (a subterm met again is
    copied once) and its cycles: a compound met again inside itself becomes a variable bound
    to its copy, as the original cycle passes through a bound variable.
    """
    t = _deref(t)
    tt = type(t)
    if tt is not tuple:
        if tt is Ref:
            if mapping is None:
                return Ref()
            r = mapping.get(id(t))
            if r is None:
                r = mapping[id(t)] = Ref()
            return r
        return t
    if mapping is None:
        mapping = {}
    # a frame: [source, next argument, copied arguments, a variable standing for the copy]
    stack: list[list[Any]] = [[t, 1, [t[0]], None]]
    n = 0
    active: dict[int, list[Any]] | None = None
    done: dict[int, RT] | None = None
    while True:
        top = stack[-1]
        src = top[0]
        i = top[1]
        acc = top[2]
        if i < len(src):
            top[1] = i + 1
            x = _deref(src[i])
            tx = type(x)
            if tx is tuple:
                n += 1
                if n > _FAST:
                    if active is None or done is None:
                        active = {}
                        done = {}
                    k = id(x)
                    frame = active.get(k)
                    if frame is not None:  # a cycle: a variable bound to the copy, later
                        if frame[3] is None:
                            frame[3] = Ref()
                        acc.append(frame[3])
                        continue
                    built = done.get(k)
                    if built is not None:  # shared: copied already
                        acc.append(built)
                        continue
                    if n % _TICK == 0:
                        _tick(_TICK, _TICK * 4 * _NODE_BYTES, "copying a very large or cyclic term")
                    frame = [x, 1, [x[0]], None]
                    active[k] = frame
                    stack.append(frame)
                else:
                    stack.append([x, 1, [x[0]], None])
            elif tx is Ref:
                r = mapping.get(id(x))
                if r is None:
                    r = mapping[id(x)] = Ref()
                acc.append(r)
            else:
                acc.append(x)
            continue
        stack.pop()
        v = tuple(acc)
        if top[3] is not None:
            top[3].val = v
        if active is not None and done is not None and active.pop(id(src), None) is not None:
            done[id(src)] = v
        if not stack:
            return v
        stack[-1][2].append(v)


_CONST_STR: dict[str, Const] = {}
_CONST_INT: dict[int, Const] = {}


def _const(v: RT) -> Term:
    if type(v) is str:
        c = _CONST_STR.get(v)
        if c is None:
            c = _CONST_STR[v] = Const(v)
        return c
    if type(v) is int:
        if -1000 <= v <= 100000:
            c = _CONST_INT.get(v)
            if c is None:
                c = _CONST_INT[v] = Const(v)
            return c
        return Const(v)
    if type(v) is float:
        return Const(v)
    if type(v) is Str:
        return v
    raise TypeError(f"not a runtime constant: {v!r}")


class _VarNamer:
    """Names unbound variables when runtime terms are turned back into :class:`Term`."""

    def __init__(self, known: dict[int, str] | None = None, names: list[str] | None = None):
        self.known = known if known is not None else {}
        self.names = names
        self.n = 0

    def var(self, t: RT) -> Var:
        if type(t) is _Slot:
            if self.names is not None and t < len(self.names):
                return Var(self.names[t])
            return Var(f"_S{int(t)}")
        name = self.known.get(id(t))
        if name is None:
            self.n += 1
            name = self.known[id(t)] = f"_G{self.n}"
        return Var(name)


def _to_term(t: RT, namer: _VarNamer | None = None, max_nodes: int | None = None) -> Term:
    """Runtime term (or template) -> :class:`Term` (iterative; variables named by ``namer``).

    A :class:`Term` is a tree: a cyclic term raises :class:`_CyclicTerm`, unless ``max_nodes``
    is given (text for messages): then compounds beyond that many are written ``...``.
    Shared subterms (past ``_FAST`` compounds) are converted once and shared.
    """
    if namer is None:
        namer = _VarNamer()
    t = _deref(t)
    tt = type(t)
    if tt is not tuple and tt is not _Tmpl:
        return namer.var(t) if tt is Ref or tt is _Slot else _const(t)
    stack: list[list[Any]] = [[t, 1, []]]
    n = 0
    active: set[int] | None = None
    done: dict[int, Term] | None = None
    while True:
        top = stack[-1]
        src, i, acc = top
        if i < len(src):
            top[1] = i + 1
            x = _deref(src[i])
            tx = type(x)
            if tx is tuple or tx is _Tmpl:
                n += 1
                if max_nodes is not None and n > max_nodes:
                    acc.append(_const("..."))
                elif n > _FAST:
                    if active is None or done is None:
                        active = set()
                        done = {}
                    k = id(x)
                    if k in active:
                        if max_nodes is None:
                            raise _CyclicTerm("a cyclic term cannot be written as a tree")
                        acc.append(_const("..."))
                        continue
                    built = done.get(k)
                    if built is not None:
                        acc.append(built)
                        continue
                    if n % _TICK == 0:
                        _tick(_TICK, _TICK * 4 * _NODE_BYTES, "writing a very large term")
                    active.add(k)
                    stack.append([x, 1, []])
                else:
                    stack.append([x, 1, []])
            elif tx is Ref or tx is _Slot:
                acc.append(namer.var(x))
            else:
                acc.append(_const(x))
            continue
        stack.pop()
        v = Struct(src[0], acc)
        if active is not None and done is not None and id(src) in active:
            active.discard(id(src))
            done[id(src)] = v
        if not stack:
            return v
        stack[-1][2].append(v)


_TEMPLATE_TYPES: Final = (_Slot, _Tmpl)


def _from_term(term: Term, on_var: Callable[[Var], RT]) -> RT:
    """:class:`Term` -> runtime term or template (iterative).

    ``on_var`` maps a variable to a :class:`_Slot` (compiling a clause: compounds holding slots
    become :class:`_Tmpl`) or to a :class:`Ref` (a query: every compound is a plain tuple).
    """
    tt = type(term)
    if tt is Const:
        return term.value  # type: ignore[union-attr]
    if tt is Var:
        return on_var(term)  # type: ignore[arg-type]
    if tt is Str:
        return term
    stack: list[list[Any]] = [[term, 0, [term.name], False]]  # type: ignore[union-attr]
    while True:
        top = stack[-1]
        src, i, acc, has_var = top
        args = src.args
        if i < len(args):
            top[1] = i + 1
            a = args[i]
            ta = type(a)
            if ta is Struct:
                stack.append([a, 0, [a.name], False])
            else:
                if ta is Const:
                    v = a.value
                elif ta is Var:
                    v = on_var(a)
                    if type(v) in _TEMPLATE_TYPES:
                        top[3] = True
                else:
                    v = a
                acc.append(v)
            continue
        stack.pop()
        built = _Tmpl(acc) if has_var else tuple(acc)
        if not stack:
            return built
        parent = stack[-1]
        parent[2].append(built)
        if has_var:
            parent[3] = True


def _mklist(items: Iterable[RT], tail: RT = NIL) -> RT:
    out = tail
    for x in reversed(list(items)):
        out = (".", x, out)
    return out


def _list_items(t: RT) -> tuple[list[RT], RT]:
    """Items of a (possibly partial) list and its dereferenced tail; for a cyclic list, the
    items met until the cycle was found and a cell of the cycle as the tail (not a list, as
    in SWI-Prolog)."""
    items = []
    t = _deref(t)
    mark = t  # Brent's cycle detection: the cell at the last power of two
    lap = 1
    while type(t) is tuple and len(t) == 3 and t[0] == ".":
        items.append(t[1])
        t = _deref(t[2])
        if t is mark:
            return items, t
        if len(items) == lap:
            mark = t
            lap *= 2
            if lap > _TICK:
                _tick(lap // 2, lap // 2 * 16, "walking a very long list")
    return items, t


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _render(t: RT, limit: int = 300) -> str:
    """A term as Prolog text for messages (shortened when long; never loops on a cycle)."""
    try:
        text = to_prolog(_to_term(t, max_nodes=limit))
    except Exception:  # pragma: no cover - rendering must never hide the real error
        text = f"<a {type(t).__name__} too large to print>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _cyclic(t: RT) -> bool:
    """Whether ``t`` is a cyclic term (a compound inside itself); shared subterms are
    visited once."""
    active: set[int] = set()
    done: set[int] = set()
    stack: list[tuple[RT, bool]] = [(t, False)]
    n = 0
    while stack:
        x, leaving = stack.pop()
        if leaving:
            active.discard(id(x))
            done.add(id(x))
            continue
        x = _deref(x)
        if type(x) is not tuple or id(x) in done:
            continue
        if id(x) in active:
            return True
        active.add(id(x))
        n += 1
        if n % _TICK == 0:
            _tick(_TICK, _TICK * _NODE_BYTES, "testing a very large term for cycles")
        stack.append((x, True))
        stack.extend((a, False) for a in x[1:])
    return False


def _is_ground(t: RT) -> bool:
    stack = [t]
    n = 0
    seen: set[int] | None = None
    while stack:
        x = _deref(stack.pop())
        if type(x) is Ref:
            return False
        if type(x) is tuple:
            n += 1
            if n > _FAST:
                if seen is None:
                    seen = set()
                if id(x) in seen:
                    continue
                seen.add(id(x))
                if n % _TICK == 0:
                    _tick(_TICK, _TICK * _NODE_BYTES, "testing a very large or cyclic term")
            stack.extend(x[1:])
    return True
