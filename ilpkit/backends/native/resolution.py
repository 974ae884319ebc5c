"""A small Prolog interpreter for the rule-defined predicates of a background program.

Why it exists: the native backend evaluates clause bodies set-at-a-time with numpy joins over
fact tables.  Background knowledge, however, is often real Prolog (mutagenesis' ``bk.pl`` uses
cut, ``not/1``, ``\\+``, ``name/2``, list recursion and arithmetic).  Such literals are answered
here, tuple-at-a-time, with the semantics SWI-Prolog gives them, so that swapping the backend
never changes a coverage set (DESIGN.md, promise 2).

Shape of the machine (why it is fast enough in pure Python, and never hits the recursion limit):

* Runtime terms are plain Python values: an atom is a ``str``, numbers are ``int``/``float``
  (distinct, as in Prolog), strings are :class:`~ilpkit.core.terms.Str`, a compound is a
  ``tuple`` ``(name, arg1, ..., argN)`` and a variable is a mutable :class:`Ref` cell.  Lists
  are ``('.', H, T)`` ending in ``'[]'``, as in :mod:`ilpkit.core.terms`.
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

import contextlib
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from functools import cmp_to_key
from typing import Any, Final, TypeAlias, TypeVar

from ilpkit.core.errors import DataError, IlpkitError, ResourceLimitExceeded
from ilpkit.core.reader import PrologReader
from ilpkit.core.task import Program
from ilpkit.core.terms import Clause, Const, Str, Struct, Term, Var, to_prolog

__all__ = [
    "BUILTINS",
    "PrologRuntimeError",
    "ResolutionEngine",
    "UnsupportedConstruct",
]

_HINT: Final = "use the swi backend (--backend swi)"
DEFAULT_MEMORY_LIMIT_MB: Final = 1024.0
"""How much one query may grow the process by default (MB)."""


class UnsupportedConstruct(DataError):
    """The background program uses something the native engine does not implement.

    Raised by :meth:`ResolutionEngine.check` at load time (with the clause's file:line), or at
    run time when such a construct is reached through a meta-call.  The message names the
    construct and suggests the SWI-Prolog backend.
    """


class PrologRuntimeError(IlpkitError):
    """A Prolog error while proving a goal (instantiation/type errors, unknown procedures).

    ``ball`` is the error as a term (ISO-shaped where possible), for callers that want to
    inspect it; the message says which goal failed and which clause called it.
    """

    def __init__(self, message: str, ball: Term | None = None) -> None:
        super().__init__(message)
        self.ball = ball


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
    lists do not recurse.
    """
    stack: list[RT] | None = None
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
                n = len(a)
                if n != len(b) or a[0] != b[0]:
                    return False
                if stack is None:
                    stack = []
                for i in range(n - 1, 0, -1):
                    stack.append(a[i])
                    stack.append(b[i])
            elif ta is not type(b) or a != b:
                return False
        if not stack:
            return True
        b = stack.pop()
        a = stack.pop()


def _occurs(v: Ref, t: RT) -> bool:
    stack = [t]
    while stack:
        x = _deref(stack.pop())
        if x is v:
            return True
        if type(x) is tuple:
            stack.extend(x[1:])
    return False


def _unify_oc(a: RT, b: RT, trail: list[Ref]) -> bool:
    """Unification with occurs check (``unify_with_occurs_check/2``)."""
    stack = [(a, b)]
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
    """Standard order of terms (SWI-Prolog): -1, 0 or 1."""
    stack = [(a, b)]
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
            stack.extend(zip(x[1:], y[1:], strict=True))
        elif type(x) is not type(y) or x != y:
            return False
    return True


# -- copying and conversion ---------------------------------------------------------------------


def _copy(t: RT, mapping: dict[int, Ref] | None = None) -> RT:
    """A fully dereferenced copy with fresh variables (``copy_term/2``, ``findall/3`` results)."""
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
    stack: list[list[Any]] = [[t, 1, [t[0]]]]
    while True:
        top = stack[-1]
        src, i, acc = top
        if i < len(src):
            top[1] = i + 1
            x = _deref(src[i])
            tx = type(x)
            if tx is tuple:
                stack.append([x, 1, [x[0]]])
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


def _to_term(t: RT, namer: _VarNamer | None = None) -> Term:
    """Runtime term (or template) -> :class:`Term` (iterative; variables named by ``namer``)."""
    if namer is None:
        namer = _VarNamer()
    t = _deref(t)
    tt = type(t)
    if tt is not tuple and tt is not _Tmpl:
        return namer.var(t) if tt is Ref or tt is _Slot else _const(t)
    stack: list[list[Any]] = [[t, 1, []]]
    while True:
        top = stack[-1]
        src, i, acc = top
        if i < len(src):
            top[1] = i + 1
            x = _deref(src[i])
            tx = type(x)
            if tx is tuple or tx is _Tmpl:
                stack.append([x, 1, []])
            elif tx is Ref or tx is _Slot:
                acc.append(namer.var(x))
            else:
                acc.append(_const(x))
            continue
        stack.pop()
        v = Struct(src[0], acc)
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
    """Items of a (possibly partial) list and its dereferenced tail."""
    items = []
    t = _deref(t)
    while type(t) is tuple and len(t) == 3 and t[0] == ".":
        items.append(t[1])
        t = _deref(t[2])
    return items, t


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _render(t: RT, limit: int = 300) -> str:
    """A term as Prolog text for messages (shortened when long)."""
    try:
        text = to_prolog(_to_term(t))
    except Exception:  # pragma: no cover - rendering must never hide the real error
        text = f"<a {type(t).__name__} too large to print>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------------------------
# Errors raised inside the machine
# --------------------------------------------------------------------------------------------


class _Throw(Exception):
    """A Prolog exception in flight: ``ball`` (a copied runtime term) and a message."""

    def __init__(self, ball: RT, message: str) -> None:
        super().__init__(message)
        self.ball = ball
        self.message = message


def _err(formal: RT, message: str) -> _Throw:
    return _Throw(("error", formal, Ref()), message)


def _inst_err() -> _Throw:
    return _err("instantiation_error", "instantiation error (an argument is unbound)")


def _type_err(kind: str, culprit: RT) -> _Throw:
    c = _copy(culprit)
    return _err(("type_error", kind, c), f"type error: expected {kind}, found {_render(c)}")


def _dom_err(domain: str, culprit: RT) -> _Throw:
    c = _copy(culprit)
    return _err(("domain_error", domain, c), f"domain error: expected {domain}, found {_render(c)}")


def _eval_err(what: str) -> _Throw:
    return _err(("evaluation_error", what), f"arithmetic evaluation error: {what}")


def _exist_err(name: str, arity: int) -> _Throw:
    return _err(
        ("existence_error", "procedure", ("/", name, arity)),
        f"unknown procedure {_pi(name, arity)}",
    )


class _OverLimit(Exception):
    """A built-in hit a limit of the query (``kind``: steps, time or memory); the machine
    turns it into :class:`ResourceLimitExceeded` naming the query and the calling clause."""

    def __init__(self, kind: str, what: str) -> None:
        super().__init__(what)
        self.kind = kind
        self.what = what


_FREE_CELLS: Final = 1024
"""Built-ins building up to this many list cells or characters cost one step; beyond it,
each cell counts as a step (so ``length(L, N)`` enumerating ever longer lists, or an atom
doubled in a loop, meets the step limit as a loop of calls would)."""
_MEM_QUICK: Final = 1 << 20
"""Allocations charged below this many bytes are summed; the resident size is read (about
half a microsecond) once the sum passes it, or for any single larger allocation."""
_CELL_BYTES: Final = 120
"""Bytes of one list cell holding a fresh variable or a small integer (tuple + item)."""

_statm: list[int] = []  # [pid, fd] of this process's /proc/self/statm


def _resident_bytes() -> int | None:
    """The process's resident set size in bytes, or None where it cannot be read cheaply
    (then only built-ins' own estimates bound a query's memory)."""
    import os

    pid = os.getpid()
    if not _statm or _statm[0] != pid:  # first call, or a forked child: reopen for itself
        if _statm:
            with contextlib.suppress(OSError):
                os.close(_statm[1])
            _statm.clear()
        try:
            fd = os.open("/proc/self/statm", os.O_RDONLY)
        except OSError:
            _statm.extend((pid, -1))
            return None
        _statm.extend((pid, fd))
    fd = _statm[1]
    if fd < 0:
        return None
    try:
        fields = os.pread(fd, 128, 0).split()
        return int(fields[1]) * _PAGE
    except (OSError, IndexError, ValueError):  # pragma: no cover - /proc changed under us
        return None


def _page_size() -> int:
    import os

    try:
        return int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 4096


_PAGE: Final = _page_size()


def _text_bytes(n: int) -> int:
    """Bytes of a Python string of ``n`` characters (up to four bytes each)."""
    return 64 + 4 * n


def _pi(name: str, arity: int) -> str:
    return f"{to_prolog(Const(name), 0)}/{arity}"


# --------------------------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------------------------


def _need_int(x: RT) -> int:
    if type(x) is not int:
        raise _type_err("integer", x)
    return x


def _fl(x: RT) -> float:
    try:
        return float(x)
    except OverflowError:
        raise _eval_err("float_overflow") from None


def _fchk(r: float) -> float:
    """SWI's default float flags: an infinite or NaN result is an error, not a value."""
    if r != r:
        raise _eval_err("undefined")
    if r in (math.inf, -math.inf):
        raise _eval_err("float_overflow")
    return r


def _add(x: RT, y: RT) -> RT:
    if type(x) is int and type(y) is int:
        return x + y
    return _fchk(_fl(x) + _fl(y))


def _sub(x: RT, y: RT) -> RT:
    if type(x) is int and type(y) is int:
        return x - y
    return _fchk(_fl(x) - _fl(y))


def _mul(x: RT, y: RT) -> RT:
    if type(x) is int and type(y) is int:
        if x.bit_length() + y.bit_length() > _MAX_INT_BITS:
            raise _big_int()
        return x * y
    return _fchk(_fl(x) * _fl(y))


def _div(x: RT, y: RT) -> RT:
    if type(x) is int and type(y) is int:
        if y == 0:
            raise _eval_err("zero_divisor")
        if x % y == 0:
            return x // y
        try:
            return x / y
        except OverflowError:
            raise _eval_err("float_overflow") from None
    fx, fy = _fl(x), _fl(y)
    if fy == 0.0:
        raise _eval_err("undefined" if fx == 0.0 or fx != fx else "zero_divisor")
    return _fchk(fx / fy)


def _intdiv(x: RT, y: RT) -> RT:
    x = _need_int(x)
    y = _need_int(y)
    if y == 0:
        raise _eval_err("zero_divisor")
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def _mod(x: RT, y: RT) -> RT:
    x = _need_int(x)
    y = _need_int(y)
    if y == 0:
        raise _eval_err("zero_divisor")
    return x % y


def _rem(x: RT, y: RT) -> RT:
    x = _need_int(x)
    y = _need_int(y)
    if y == 0:
        raise _eval_err("zero_divisor")
    return x - y * _intdiv(x, y)


def _min(x: RT, y: RT) -> RT:
    if y < x:
        return y
    if x < y:
        return x
    return y if type(y) is float else x


def _max(x: RT, y: RT) -> RT:
    if y > x:
        return y
    if x > y:
        return x
    return y if type(y) is float else x


def _pow(x: RT, y: RT) -> RT:
    """``**`` and ``^`` (SWI with prefer_rationals=false: the same on integers)."""
    if y == 0:
        return 1  # SWI: X ** 0 and X ** 0.0 are the integer 1, whatever X is
    if type(x) is int and (x == 1 or (x == 0 and y > 0)):
        return x  # SWI keeps integer 0 and 1 bases exact, even for float exponents
    if type(x) is int and type(y) is int:
        if y >= 0:
            if abs(x) > 1 and y * x.bit_length() > _MAX_INT_BITS:
                raise _big_int()
            return x**y
        if x == 1:
            return 1
        if x == -1:
            return 1 if y % 2 == 0 else -1
        if x == 0:
            raise _eval_err("zero_divisor")
        return _fchk(_fl(x) ** y)
    fx, fy = _fl(x), _fl(y)
    if fx == 0.0 and fy < 0:
        raise _eval_err("zero_divisor")
    try:
        return _fchk(math.pow(fx, fy))
    except OverflowError:
        raise _eval_err("float_overflow") from None
    except ValueError:
        raise _eval_err("undefined") from None


_MAX_INT_BITS: Final = 1 << 20
"""Integers beyond 1 Mbit (about 315,000 decimal digits) are refused with a resource
error: Python multiplies such numbers in a few milliseconds, but each doubling of the
size triples the time, so repeated squaring would otherwise escape the time limit inside one
``is/2``.  (SWI-Prolog's bound is its stack, 1 GB by default.)"""


def _big_int() -> _Throw:
    return _err(("resource_error", "memory"), "resource error: integer too large")


def _shift_r(x: RT, y: RT) -> RT:
    x = _need_int(x)
    return _shift_l(x, -_need_int(y))


def _shift_l(x: RT, y: RT) -> RT:
    """``x << y``; a negative count shifts the other way (as SWI does)."""
    x = _need_int(x)
    y = _need_int(y)
    if y < 0:
        return x >> -y
    if x and y + x.bit_length() > _MAX_INT_BITS:
        raise _big_int()
    return x << y


def _round(x: RT) -> RT:
    if type(x) is int:
        return x
    _finite(x)
    f = math.floor(x)
    diff = x - f
    if x >= 0:
        return f + 1 if diff >= 0.5 else f
    return f + 1 if diff > 0.5 else f


def _finite(x: float) -> None:
    if x != x or x in (math.inf, -math.inf):
        raise _eval_err("undefined")


def _to_int(fn: Callable[[float], int]) -> Callable[[RT], RT]:
    def go(x: RT) -> RT:
        if type(x) is int:
            return x
        _finite(x)
        return fn(x)

    return go


def _float_fn(fn: Callable[[float], float]) -> Callable[[RT], RT]:
    def go(x: RT) -> RT:
        try:
            return _fchk(fn(_fl(x)))
        except OverflowError:
            raise _eval_err("float_overflow") from None
        except (ValueError, ZeroDivisionError):
            raise _eval_err("undefined") from None

    return go


def _float_fn2(fn: Callable[[float, float], float]) -> Callable[[RT, RT], RT]:
    def go(x: RT, y: RT) -> RT:
        try:
            return _fchk(fn(_fl(x), _fl(y)))
        except (ValueError, ZeroDivisionError):
            raise _eval_err("undefined") from None

    return go


def _log(x: RT) -> RT:
    if x <= 0:  # log(0) is -inf: SWI reports an overflow
        raise _eval_err("float_overflow" if x == 0 else "undefined")
    return _float_fn(math.log)(x)


def _log2(x: RT) -> RT:
    if x <= 0:
        raise _eval_err("float_overflow" if x == 0 else "undefined")
    return _float_fn(math.log2)(x)


def _sqrt(x: RT) -> RT:
    if x < 0:
        raise _eval_err("undefined")
    return _float_fn(math.sqrt)(x)


def _sign(x: RT) -> RT:
    if type(x) is int:
        return (x > 0) - (x < 0)
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


def _msb(x: RT) -> RT:
    x = _need_int(x)
    if x <= 0:
        raise _type_err("positive_integer", x)
    return x.bit_length() - 1


def _neg(x: RT) -> RT:
    return -x


def _abs(x: RT) -> RT:
    return abs(x)


def _bitnot(x: RT) -> RT:
    return ~_need_int(x)


def _tofloat(x: RT) -> RT:
    return _fl(x)


def _float_int_part(x: RT) -> RT:
    if type(x) is int:
        return x
    return float(math.trunc(x)) if math.isfinite(x) else x


def _float_frac_part(x: RT) -> RT:
    if type(x) is int:
        return 0
    return x - math.trunc(x) if math.isfinite(x) else math.nan


def _gcd(x: RT, y: RT) -> RT:
    return math.gcd(_need_int(x), _need_int(y))


def _copysign(x: RT, y: RT) -> RT:
    r = math.copysign(_fl(x), _fl(y))
    return int(r) if type(x) is int else r  # SWI keeps an integer first argument


_BIN: Final[dict[str, Callable[[RT, RT], RT]]] = {
    "+": _add,
    "-": _sub,
    "*": _mul,
    "/": _div,
    "//": _intdiv,
    "mod": _mod,
    "rem": _rem,
    "min": _min,
    "max": _max,
    "**": _pow,
    "^": _pow,
    ">>": _shift_r,
    "<<": _shift_l,
    "/\\": lambda x, y: _need_int(x) & _need_int(y),
    "\\/": lambda x, y: _need_int(x) | _need_int(y),
    "xor": lambda x, y: _need_int(x) ^ _need_int(y),
    "atan": _float_fn2(math.atan2),
    "atan2": _float_fn2(math.atan2),
    "copysign": _copysign,
    "gcd": _gcd,
}

_UN: Final[dict[str, Callable[[RT], RT]]] = {
    "-": _neg,
    "+": lambda x: x,
    "abs": _abs,
    "sign": _sign,
    "sqrt": _sqrt,
    "exp": _float_fn(math.exp),
    "log": _log,
    "log2": _log2,
    "sin": _float_fn(math.sin),
    "cos": _float_fn(math.cos),
    "tan": _float_fn(math.tan),
    "asin": _float_fn(math.asin),
    "acos": _float_fn(math.acos),
    "atan": _float_fn(math.atan),
    "sinh": _float_fn(math.sinh),
    "cosh": _float_fn(math.cosh),
    "tanh": _float_fn(math.tanh),
    "asinh": _float_fn(math.asinh),
    "acosh": _float_fn(math.acosh),
    "atanh": _float_fn(math.atanh),
    "float": _tofloat,
    "integer": _round,
    "float_integer_part": _float_int_part,
    "float_fractional_part": _float_frac_part,
    "truncate": _to_int(math.trunc),
    "round": _round,
    "ceiling": _to_int(math.ceil),
    "floor": _to_int(math.floor),
    "msb": _msb,
    "\\": _bitnot,
}

_CONSTS: Final[dict[str, RT]] = {
    "pi": math.pi,
    "e": math.e,
    "inf": math.inf,
    "infinite": math.inf,
    "nan": math.nan,
    "epsilon": 2.220446049250313e-16,
    "max_tagged_integer": (1 << 60) - 1,
    "min_tagged_integer": -(1 << 60),
}

_REFUSED_FUNCS: Final = frozenset(
    {"random", "random_float", "cputime", "realtime", "rdiv", "rational", "rationalize"}
)
"""Arithmetic functions refused: non-deterministic, clock-dependent, or rational numbers."""


class _Apply:
    __slots__ = ("fn", "n")

    def __init__(self, fn: Callable[..., RT], n: int) -> None:
        self.fn = fn
        self.n = n


def _eval(t: RT) -> RT:
    """Evaluate an arithmetic expression, turning Python's arithmetic exceptions into
    Prolog evaluation errors (the functions check the common cases themselves)."""
    try:
        return _eval_unchecked(t)
    except OverflowError:
        raise _eval_err("float_overflow") from None
    except ZeroDivisionError:
        raise _eval_err("zero_divisor") from None
    except (ValueError, ArithmeticError):
        raise _eval_err("undefined") from None


def _eval_unchecked(t: RT) -> RT:
    """Evaluate an arithmetic expression (``is/2``); fast path for ``X op Y`` on numbers."""
    while type(t) is Ref:
        v = t.val
        if v is None:
            raise _inst_err()
        t = v
    tt = type(t)
    if tt is int or tt is float:
        return t
    if tt is tuple and len(t) == 3:
        x = _deref(t[1])
        y = _deref(t[2])
        tx, ty = type(x), type(y)
        if (tx is int or tx is float) and (ty is int or ty is float):
            fn = _BIN.get(t[0])
            if fn is not None:
                return fn(x, y)
    return _eval_slow(t)


def _eval_slow(t: RT) -> RT:
    work: list[RT] = [t]
    vals: list[RT] = []
    while work:
        x = work.pop()
        if type(x) is _Apply:
            n = x.n
            args = vals[-n:]
            del vals[-n:]
            args.reverse()
            vals.append(x.fn(*args))
            continue
        x = _deref(x)
        tx = type(x)
        if tx is int or tx is float:
            vals.append(x)
        elif tx is Ref:
            raise _inst_err()
        elif tx is tuple:
            name = x[0]
            n = len(x) - 1
            fn: Callable[..., RT] | None = None
            if n == 2:
                fn = _BIN.get(name)
                if name == "." and _deref(x[2]) == NIL:
                    item = _deref(x[1])  # "[X]" evaluates X; a one-char atom is its code
                    if type(item) is str and len(item) == 1:
                        vals.append(ord(item))
                    else:
                        work.append(item)
                    continue
            elif n == 1:
                fn = _UN.get(name)
            if fn is None:
                if name in _REFUSED_FUNCS:
                    raise _Throw(
                        ("error", ("ilpkit_unsupported", ("/", name, n)), Ref()),
                        f"arithmetic function {_pi(name, n)} is not supported by the native "
                        f"engine; {_HINT}",
                    )
                raise _err(
                    ("type_error", "evaluable", ("/", name, n)),
                    f"type error: {_pi(name, n)} is not an arithmetic function",
                )
            work.append(_Apply(fn, n))
            work.extend(x[1:])  # the last argument is evaluated first, as in SWI
        elif tx is str:
            c = _CONSTS.get(x)
            if c is None:
                if x in _REFUSED_FUNCS:
                    raise _Throw(
                        ("error", ("ilpkit_unsupported", ("/", x, 0)), Ref()),
                        f"arithmetic function {x}/0 is not supported by the native engine; {_HINT}",
                    )
                raise _err(
                    ("type_error", "evaluable", ("/", x, 0)),
                    f"type error: {_pi(x, 0)} is not an arithmetic function",
                )
            vals.append(c)
        elif tx is Str and len(x.value) == 1:
            vals.append(ord(x.value))
        else:
            raise _type_err("evaluable", x)
    return vals[0]


def _num_compare(op: str) -> Callable[[RT, RT], bool]:
    import operator

    fn: Callable[[Any, Any], bool] = {
        "<": operator.lt,
        ">": operator.gt,
        "=<": operator.le,
        ">=": operator.ge,
        "=:=": operator.eq,
        "=\\=": operator.ne,
    }[op]

    def compare(a: RT, b: RT) -> bool:
        return fn(_eval(a), _eval(b))

    return compare


# --------------------------------------------------------------------------------------------
# Text: number syntax and writing, atom/string conversions
# --------------------------------------------------------------------------------------------


def _fmt_float(x: float) -> str:
    """A float as SWI-Prolog writes it: shortest digits that read back, ``1.0e+15`` and
    ``1.0e-5`` where SWI switches to exponents (its ``format_float``, 'shortest' mode)."""
    if x != x:
        return "1.5NaN"
    if x in (math.inf, -math.inf):
        return "1.0Inf" if x > 0 else "-1.0Inf"
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    d = Decimal(repr(abs(x)))
    _s, digit_t, exp = d.as_tuple()
    assert isinstance(exp, int)
    digits = "".join(map(str, digit_t)).lstrip("0")
    if not digits:
        return sign + "0.0"
    stripped = digits.rstrip("0")
    exp += len(digits) - len(stripped)
    digits = stripped
    decpt = len(digits) + exp  # position of the decimal point relative to the digits
    if decpt <= 0:
        if decpt <= -4:
            mant = digits[0] + "." + (digits[1:] or "0")
            return f"{sign}{mant}e{decpt - 1}"
        return sign + "0." + "0" * (-decpt) + digits
    if len(digits) > decpt:
        return sign + digits[:decpt] + "." + digits[decpt:]
    if decpt > 15:
        mant = digits[0] + "." + (digits[1:] or "0")
        return f"{sign}{mant}e+{decpt - 1}"
    return sign + digits + "0" * (decpt - len(digits)) + ".0"


_NUMBER_RE: Final = re.compile(
    r"""(?P<sign>[+-]?)(?:
        0'(?P<char>\\.|''|[^\\])
      | 0x(?P<hex>[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*)
      | 0o(?P<oct>[0-7]+(?:_[0-7]+)*)
      | 0b(?P<bin>[01]+(?:_[01]+)*)
      | (?P<radix>\d+)'(?P<rdigits>[0-9a-zA-Z]+)
      | (?P<inf>\d+\.\d+Inf)
      | (?P<nan>\d+\.\d+NaN)
      | (?P<float>\d+(?:_\d+)*(?:\.\d+(?:[eE][+-]?\d+)?|[eE][+-]?\d+))
      | (?P<int>\d+(?:_\d+)*)
    )$""",
    re.VERBOSE,
)

_ESCAPES: Final = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "0": "\0",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "e": "\x1b",
    "s": " ",
}


_MAX_TEXT_DIGITS: Final = 4_000
"""Longest decimal text turned into an integer (Python refuses more than 4,300 digits)."""


def _parse_number(text: str, *, layout: bool = False) -> int | float | None:
    """Prolog number syntax (SWI): signs, ``1_000``, ``0x1F``, ``0'c``, ``1.0e10``, ``1e10``,
    ``1.0Inf``.  ``layout`` allows leading white space (``number_codes/2`` does)."""
    if layout:
        text = text.lstrip()
    m = _NUMBER_RE.match(text)
    if m is None:
        return None
    neg = m.group("sign") == "-"
    value: int | float
    if m.group("char") is not None:
        c = m.group("char")
        if c == "''":
            value = ord("'")
        elif c.startswith("\\"):
            if c[1] not in _ESCAPES:
                return None
            value = ord(_ESCAPES[c[1]])
        else:
            value = ord(c)
    elif m.group("hex") is not None:
        value = int(m.group("hex").replace("_", ""), 16)
    elif m.group("oct") is not None:
        value = int(m.group("oct").replace("_", ""), 8)
    elif m.group("bin") is not None:
        value = int(m.group("bin").replace("_", ""), 2)
    elif m.group("radix") is not None:
        radix = int(m.group("radix"))
        if not 2 <= radix <= 36:
            return None
        if len(m.group("rdigits")) > _MAX_TEXT_DIGITS:
            return None
        try:
            value = int(m.group("rdigits"), radix)
        except ValueError:
            return None
    elif m.group("inf") is not None:
        value = math.inf
    elif m.group("nan") is not None:
        value = math.nan
    elif m.group("float") is not None:
        try:
            value = float(m.group("float").replace("_", ""))
        except OverflowError:  # pragma: no cover - float() returns inf instead
            return None
    else:
        digits = m.group("int").replace("_", "")
        if len(digits) > _MAX_TEXT_DIGITS:
            raise _err(
                ("representation_error", "max_integer_text"),
                f"representation error: an integer of more than {_MAX_TEXT_DIGITS:,} digits "
                "cannot be read from text",
            )
        value = int(digits)
    return -value if neg else value


_MAX_TEXT_INT_BITS: Final = 13_000
"""Integers wider than this (about 3,900 decimal digits) are not turned into text: Python
refuses more than 4,300 digits, and the conversion is quadratic in the length."""


def _atomic_text(t: RT) -> str | None:
    """Text of an atomic term (None for anything else).  ``[]`` reads as ``"[]"``."""
    tt = type(t)
    if tt is str:
        return t  # type: ignore[no-any-return]
    if tt is int:
        if t.bit_length() > _MAX_TEXT_INT_BITS:
            raise _err(
                ("representation_error", "max_integer_text"),
                f"representation error: an integer of more than {_MAX_TEXT_DIGITS:,} digits "
                "cannot be written as text",
            )
        return str(t)
    if tt is float:
        return _fmt_float(t)
    if tt is Str:
        return t.value  # type: ignore[no-any-return]
    return None


def _text(t: RT, what: str = "text", *, lists: bool = True) -> str:
    """Text of atomic terms, code lists and char lists; raises instantiation/type errors."""
    t = _deref(t)
    if type(t) is Ref:
        raise _inst_err()
    s = _atomic_text(t)
    if s is not None:
        return s
    if lists and type(t) is tuple:
        items, tail = _list_items(t)
        if tail == NIL:
            out = []
            for x in items:
                x = _deref(x)
                if type(x) is int and 0 <= x <= 0x10FFFF:
                    out.append(chr(x))
                elif type(x) is str and len(x) == 1:
                    out.append(x)
                elif type(x) is Ref:
                    raise _inst_err()
                else:
                    raise _type_err(what, t)
            return "".join(out)
        if type(tail) is Ref:
            raise _inst_err()
    raise _type_err(what, t)


def _codes(s: str) -> RT:
    return _mklist([ord(c) for c in s])


def _chars(s: str) -> RT:
    return _mklist(list(s))


def _text_arg_unbound(t: RT) -> bool:
    """True when a text argument is a variable or a list with unbound parts (output mode)."""
    t = _deref(t)
    if type(t) is Ref:
        return True
    if type(t) is tuple:
        items, tail = _list_items(t)
        return type(tail) is Ref or any(type(_deref(x)) is Ref for x in items)
    return False


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


def _is_ground(t: RT) -> bool:
    stack = [t]
    while stack:
        x = _deref(stack.pop())
        if type(x) is Ref:
            return False
        if type(x) is tuple:
            stack.extend(x[1:])
    return True


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
    while stack:
        x = _deref(stack.pop())
        if type(x) is Ref:
            if id(x) not in seen:
                seen.add(id(x))
                out.append(x)
        elif type(x) is tuple:
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


# -- atoms and strings ---------------------------------------------------------------------------


def _atomic_or_inst(t: RT, what: str = "atomic") -> str:
    t = _deref(t)
    if type(t) is Ref:
        raise _inst_err()
    s = _atomic_text(t)
    if s is None:
        raise _type_err(what, t)
    return s


def _text_conv(to_list: Callable[[str], RT], what: str, out_string: bool = False) -> DetFn:
    """``atom_codes/2``-style conversions: atomic first argument, or build it from a list."""

    def fn(m: _Machine, a: list[RT]) -> bool:
        t = _deref(a[0])
        if type(t) is not Ref:
            text = _atomic_or_inst(t)
            n = len(text)
            m.charge(n, n * _CELL_BYTES, f"a list of {n:,} characters")
            return _unify(a[1], to_list(text), m.trail)
        s = _text(a[1], what)
        return _unify(t, Str(s) if out_string else s, m.trail)

    return fn


_DET[("atom_codes", 2)] = _text_conv(_codes, "list")
_DET[("atom_chars", 2)] = _text_conv(_chars, "list")
_DET[("string_codes", 2)] = _text_conv(_codes, "list", out_string=True)
_DET[("string_chars", 2)] = _text_conv(_chars, "list", out_string=True)


@_det("char_code", 2)
def _b_char_code(m: _Machine, a: list[RT]) -> bool:
    c = _deref(a[0])
    if type(c) is str:
        if len(c) != 1:
            raise _type_err("character", c)
        return _unify(a[1], ord(c), m.trail)
    if type(c) is not Ref:
        raise _type_err("character", c)
    n = _deref(a[1])
    if type(n) is Ref:
        raise _inst_err()
    if type(n) is not int or not 0 <= n <= 0x10FFFF:
        raise _type_err("character_code", n)
    return _unify(c, chr(n), m.trail)


def _length_of(what: str) -> DetFn:
    def fn(m: _Machine, a: list[RT]) -> bool:
        t = _deref(a[0])
        if type(t) is Ref:
            raise _inst_err()
        s = _text(t, what, lists=what == "string")
        n = _deref(a[1])
        if type(n) is not Ref and type(n) is not int:
            raise _type_err("integer", n)
        return _unify(n, len(s), m.trail)

    return fn


_DET[("atom_length", 2)] = _length_of("atomic")
_DET[("string_length", 2)] = _length_of("string")


def _number_conv(to_list: Callable[[str], RT]) -> DetFn:
    def fn(m: _Machine, a: list[RT]) -> bool:
        if not _text_arg_unbound(a[1]):
            s = _text(a[1], "list")
            v = _parse_number(s, layout=True)
            if v is None:
                raise _err(
                    ("syntax_error", "illegal_number"), f"syntax error: illegal number {s!r}"
                )
            return _unify(a[0], v, m.trail)
        n = _deref(a[0])
        if type(n) is Ref:
            raise _inst_err()
        if type(n) is not int and type(n) is not float:
            raise _type_err("number", n)
        return _unify(a[1], to_list(_atomic_text(n) or ""), m.trail)

    return fn


_DET[("number_codes", 2)] = _number_conv(_codes)
_DET[("number_chars", 2)] = _number_conv(_chars)


@_det("atom_number", 2)
def _b_atom_number(m: _Machine, a: list[RT]) -> bool:
    t = _deref(a[0])
    if type(t) is not Ref:
        s = _atomic_or_inst(t, "atom")
        v = _parse_number(s)
        return v is not None and _unify(a[1], v, m.trail)
    n = _deref(a[1])
    if type(n) is Ref:
        raise _inst_err()
    if type(n) is not int and type(n) is not float:
        raise _type_err("number", n)
    return _unify(t, _atomic_text(n), m.trail)


@_det("number_string", 2)
def _b_number_string(m: _Machine, a: list[RT]) -> bool:
    s = _deref(a[1])
    if type(s) is not Ref:
        v = _parse_number(_text(s, "string"), layout=True)
        if v is None:
            raise _err(("syntax_error", "illegal_number"), "syntax error: illegal number")
        return _unify(a[0], v, m.trail)
    n = _deref(a[0])
    if type(n) is Ref:
        raise _inst_err()
    if type(n) is not int and type(n) is not float:
        raise _type_err("number", n)
    return _unify(s, Str(_atomic_text(n) or ""), m.trail)


@_det("atom_string", 2)
def _b_atom_string(m: _Machine, a: list[RT]) -> bool:
    t = _deref(a[0])
    if type(t) is not Ref:
        return _unify(a[1], Str(_text(t)), m.trail)
    return _unify(t, _text(a[1]), m.trail)


@_det("string_to_atom", 2)
def _b_string_to_atom(m: _Machine, a: list[RT]) -> bool:
    s = _deref(a[0])
    if type(s) is not Ref:
        return _unify(a[1], _text(s), m.trail)
    return _unify(s, Str(_text(a[1])), m.trail)


@_det("string", 1)
def _b_string(m: _Machine, a: list[RT]) -> bool:
    return type(_deref(a[0])) is Str


@_det("string_code", 3)
def _b_string_code(m: _Machine, a: list[RT]) -> bool:
    i = _deref(a[0])
    if type(i) is Ref:
        raise _inst_err()
    if type(i) is not int:
        raise _type_err("integer", i)
    s = _text(a[1])
    return 1 <= i <= len(s) and _unify(a[2], ord(s[i - 1]), m.trail)


@_det("name", 2)
def _b_name(m: _Machine, a: list[RT]) -> bool:
    t = _deref(a[0])
    if type(t) is not Ref:
        return _unify(a[1], _codes(_atomic_or_inst(t)), m.trail)
    s = _text(a[1], "list")
    v = _parse_number(s)
    return _unify(t, s if v is None else v, m.trail)


def _charge_text(m: _Machine, n: int, pi: str) -> None:
    """Charge a built-in's text result of ``n`` characters (see :meth:`_Machine.charge`)."""
    m.charge(n, _text_bytes(n), f"{pi} would build a text of {n:,} characters")


def _case_conv(fn: Callable[[str], str], out_string: bool) -> DetFn:
    def go(m: _Machine, a: list[RT]) -> bool:
        s = fn(_text(a[0]))
        _charge_text(m, len(s), "a case conversion")
        return _unify(a[1], Str(s) if out_string else s, m.trail)

    return go


_DET[("upcase_atom", 2)] = _case_conv(str.upper, False)
_DET[("downcase_atom", 2)] = _case_conv(str.lower, False)
_DET[("string_upper", 2)] = _case_conv(str.upper, True)
_DET[("string_lower", 2)] = _case_conv(str.lower, True)


def _parse_text_term(text: str) -> RT:
    try:
        term = PrologReader(double_quotes="codes").read_term(text)
    except DataError as exc:
        raise _err(("syntax_error", "cannot_parse"), f"syntax error: {exc}") from None
    refs: dict[str, Ref] = {}

    def on_var(v: Var) -> Ref:
        r = refs.get(v.name)
        if r is None:
            r = refs[v.name] = Ref()
        return r

    return _from_term(term, on_var)


def _term_text(t: RT) -> str:
    try:
        return to_prolog(_to_term(t))
    except ValueError:  # an integer beyond Python's 4,300 digits of text
        raise _err(
            ("representation_error", "max_integer_text"),
            "representation error: an integer of more than 4,000 digits cannot be written as text",
        ) from None


def _term_conv(out_string: bool) -> DetFn:
    def fn(m: _Machine, a: list[RT]) -> bool:
        text = _deref(a[1])
        if type(text) is not Ref:
            return _unify(a[0], _parse_text_term(_text(text)), m.trail)
        s = _term_text(a[0])
        _charge_text(m, len(s), "term_to_atom/2")
        return _unify(text, Str(s) if out_string else s, m.trail)

    return fn


_DET[("term_to_atom", 2)] = _term_conv(False)
_DET[("term_string", 2)] = _term_conv(True)


@_det("atomic_list_concat", 2)
def _b_atomic_list_concat2(m: _Machine, a: list[RT]) -> bool:
    items, tail = _list_items(a[0])
    if type(tail) is Ref:
        raise _inst_err()
    if tail != NIL:
        raise _type_err("list", a[0])
    texts = [_atomic_or_inst(x) for x in items]
    _charge_text(m, sum(map(len, texts)), "atomic_list_concat/2")
    return _unify(a[1], "".join(texts), m.trail)


@_det("atomic_list_concat", 3)
def _b_atomic_list_concat3(m: _Machine, a: list[RT]) -> bool:
    sep = _atomic_or_inst(a[1])
    items, tail = _list_items(a[0])
    if tail == NIL and all(type(_deref(x)) is not Ref for x in items):
        texts = [_atomic_or_inst(x) for x in items]
        _charge_text(m, sum(map(len, texts)) + len(sep) * len(texts), "atomic_list_concat/3")
        return _unify(a[2], sep.join(texts), m.trail)
    if tail != NIL and type(tail) is not Ref:
        raise _type_err("list", a[0])
    full = _deref(a[2])
    if type(full) is Ref or not sep:
        raise _inst_err()
    parts: list[RT] = list(_atomic_or_inst(full).split(sep))
    m.charge(len(parts), len(parts) * _CELL_BYTES, f"a list of {len(parts):,} parts")
    return _unify(a[0], _mklist(parts), m.trail)


@_det("split_string", 4)
def _b_split_string(m: _Machine, a: list[RT]) -> bool:
    s = _text(a[0])
    seps = _text(a[1])
    pad = _text(a[2])
    m.charge(len(s), len(s) * _CELL_BYTES, f"split_string/4 of a text of {len(s):,} characters")
    if seps:
        parts = [""]
        for c in s:
            if c in seps:
                parts.append("")
            else:
                parts[-1] += c
    else:
        parts = [s]
    return _unify(a[3], _mklist([Str(p.strip(pad)) if pad else Str(p) for p in parts]), m.trail)


def _concat(out_string: bool) -> GenFn:
    def make(s: str) -> RT:
        return Str(s) if out_string else s

    def fn(m: _Machine, a: list[RT]) -> Iterator[None]:
        x = _deref(a[0])
        y = _deref(a[1])
        trail = m.trail
        if type(x) is not Ref and type(y) is not Ref:
            tx, ty = _text(x), _text(y)
            _charge_text(m, len(tx) + len(ty), "atom_concat/3")
            if _unify(a[2], make(tx + ty), trail):
                yield
            return
        z = _text(a[2])
        if type(x) is not Ref:
            tx = _text(x)
            if z.startswith(tx) and _unify(y, make(z[len(tx) :]), trail):
                yield
            return
        if type(y) is not Ref:
            ty = _text(y)
            if z.endswith(ty) and _unify(x, make(z[: len(z) - len(ty)]), trail):
                yield
            return
        for i in range(len(z) + 1):
            mark = len(trail)
            if _unify(x, make(z[:i]), trail) and _unify(y, make(z[i:]), trail):
                yield
            _undo(trail, mark)

    return fn


_GEN[("atom_concat", 3)] = _concat(False)
_GEN[("string_concat", 3)] = _concat(True)


def _sub_text(out_string: bool) -> GenFn:
    def fn(m: _Machine, a: list[RT]) -> Iterator[None]:
        s = _text(a[0])
        n = len(s)
        bv, lv, av, subv = (_deref(x) for x in a[1:])
        for v in (bv, lv, av):
            if type(v) is not Ref and type(v) is not int:
                raise _type_err("integer", v)
        trail = m.trail
        if type(subv) is not Ref:
            sub = _text(subv)
            k = len(sub)
            start = s.find(sub)
            while start >= 0:
                mark = len(trail)
                if (
                    _unify(bv, start, trail)
                    and _unify(lv, k, trail)
                    and _unify(av, n - start - k, trail)
                ):
                    yield
                _undo(trail, mark)
                start = s.find(sub, start + 1)
            return
        bs: Iterable[int] = [bv] if type(bv) is int else range(n + 1)
        for b in bs:
            if type(lv) is int:
                ls: Iterable[int] = [lv]
            elif type(av) is int:
                ls = [n - b - av]
            else:
                ls = range(n - b + 1)
            for ln in ls:
                if b < 0 or ln < 0 or b + ln > n:
                    continue
                mark = len(trail)
                if (
                    _unify(bv, b, trail)
                    and _unify(lv, ln, trail)
                    and _unify(av, n - b - ln, trail)
                    and _unify(subv, Str(s[b : b + ln]) if out_string else s[b : b + ln], trail)
                ):
                    yield
                _undo(trail, mark)

    return fn


_GEN[("sub_atom", 5)] = _sub_text(False)
_GEN[("sub_string", 5)] = _sub_text(True)


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
    while type(lst) is tuple and len(lst) == 3 and lst[0] == ".":
        mark = len(trail)
        if _unify(x, lst[1], trail):
            yield
        _undo(trail, mark)
        lst = _deref(lst[2])
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
    while type(lst) is tuple and len(lst) == 3 and lst[0] == ".":
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
            while k > 0 and type(lst) is tuple and len(lst) == 3 and lst[0] == ".":
                lst = _deref(lst[2])
                k -= 1
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


# --------------------------------------------------------------------------------------------
# Library predicates written in Prolog (SWI-Prolog's definitions, so solution order matches)
# --------------------------------------------------------------------------------------------

_LIBRARY_TEXT: Final = r"""
append([], L, L).
append([H|T], L, [H|R]) :- append(T, L, R).
append(ListOfLists, List) :- '$append_'(ListOfLists, List).
'$append_'([], []).
'$append_'([L|Ls], As) :- append(L, Ws, As), '$append_'(Ls, Ws).
select(X, [X|T], T).
select(X, [H|T], [H|R]) :- select(X, T, R).
selectchk(X, L, R) :- select(X, L, R), !.
select(X, Xs, Y, Ys) :- '$select4_'(Xs, X, Y, Ys).
'$select4_'([X|T], X, Y, [Y|T]).
'$select4_'([H|T], X, Y, [H|T2]) :- '$select4_'(T, X, Y, T2).
exclude(P, L, R) :- '$exclude_'(L, P, R).
'$exclude_'([], _, []).
'$exclude_'([H|T], P, R) :- ( call(P, H) -> R = R1 ; R = [H|R1] ), '$exclude_'(T, P, R1).
include(P, L, R) :- '$include_'(L, P, R).
'$include_'([], _, []).
'$include_'([H|T], P, R) :- ( call(P, H) -> R = [H|R1] ; R = R1 ), '$include_'(T, P, R1).
partition(P, L, I, E) :- '$partition_'(L, P, I, E).
'$partition_'([], _, [], []).
'$partition_'([H|T], P, I, E) :-
    ( call(P, H) -> I = [H|I1], E = E1 ; I = I1, E = [H|E1] ),
    '$partition_'(T, P, I1, E1).
subtract([], _, []) :- !.
subtract([E|T], D, R) :- memberchk(E, D), !, subtract(T, D, R).
subtract([H|T], D, [H|R]) :- subtract(T, D, R).
intersection([], _, []) :- !.
intersection([X|T], L, I) :-
    ( memberchk(X, L) -> I = [X|R], intersection(T, L, R) ; intersection(T, L, I) ).
union([], L, L) :- !.
union([H|T], L, R) :- memberchk(H, L), !, union(T, L, R).
union([H|T], L, [H|R]) :- union(T, L, R).
delete([], _, []).
delete([E|T], D, R) :- ( \+ E \= D -> delete(T, D, R) ; R = [E|R1], delete(T, D, R1) ).
maplist(G, L) :- '$maplist_'(L, G).
'$maplist_'([], _).
'$maplist_'([A|As], G) :- call(G, A), '$maplist_'(As, G).
maplist(G, L1, L2) :- '$maplist_'(L1, L2, G).
'$maplist_'([], [], _).
'$maplist_'([A|As], [B|Bs], G) :- call(G, A, B), '$maplist_'(As, Bs, G).
maplist(G, L1, L2, L3) :- '$maplist_'(L1, L2, L3, G).
'$maplist_'([], [], [], _).
'$maplist_'([A|As], [B|Bs], [C|Cs], G) :- call(G, A, B, C), '$maplist_'(As, Bs, Cs, G).
maplist(G, L1, L2, L3, L4) :- '$maplist_'(L1, L2, L3, L4, G).
'$maplist_'([], [], [], [], _).
'$maplist_'([A|As], [B|Bs], [C|Cs], [D|Ds], G) :-
    call(G, A, B, C, D), '$maplist_'(As, Bs, Cs, Ds, G).
maplist(G, L1, L2, L3, L4, L5) :- '$maplist_'(L1, L2, L3, L4, L5, G).
'$maplist_'([], [], [], [], [], _).
'$maplist_'([A|As], [B|Bs], [C|Cs], [D|Ds], [E|Es], G) :-
    call(G, A, B, C, D, E), '$maplist_'(As, Bs, Cs, Ds, Es, G).
foldl(G, L, V0, V) :- '$foldl_'(L, G, V0, V).
'$foldl_'([], _, V, V).
'$foldl_'([X|Xs], G, V0, V) :- call(G, X, V0, V1), '$foldl_'(Xs, G, V1, V).
foldl(G, L1, L2, V0, V) :- '$foldl_'(L1, L2, G, V0, V).
'$foldl_'([], [], _, V, V).
'$foldl_'([X|Xs], [Y|Ys], G, V0, V) :- call(G, X, Y, V0, V1), '$foldl_'(Xs, Ys, G, V1, V).
foldl(G, L1, L2, L3, V0, V) :- '$foldl_'(L1, L2, L3, G, V0, V).
'$foldl_'([], [], [], _, V, V).
'$foldl_'([X|Xs], [Y|Ys], [Z|Zs], G, V0, V) :-
    call(G, X, Y, Z, V0, V1), '$foldl_'(Xs, Ys, Zs, G, V1, V).
nextto(X, Y, [X,Y|_]).
nextto(X, Y, [_|Zs]) :- nextto(X, Y, Zs).
permutation(Xs, Ys) :-
    ( is_list(Xs) -> length(Xs, N), length(Ys, N)
    ; is_list(Ys) -> length(Ys, N), length(Xs, N)
    ; true ),
    '$perm'(Xs, Ys).
'$perm'([], []).
'$perm'(L, [H|T]) :- select(H, L, R), '$perm'(R, T).
last([X|Xs], L) :- '$last_'(Xs, X, L).
'$last_'([], L, L).
'$last_'([X|Xs], _, L) :- '$last_'(Xs, X, L).
reverse(Xs, Ys) :- '$reverse'(Xs, [], Ys, Ys).
'$reverse'([], Ys, Ys, []).
'$reverse'([X|Xs], Rs, Ys, [_|Bound]) :- '$reverse'(Xs, [X|Rs], Ys, Bound).
flatten(List, Flat) :- '$flatten'(List, [], Flat0), !, Flat = Flat0.
'$flatten'(Var, Tl, [Var|Tl]) :- var(Var), !.
'$flatten'([], Tl, Tl) :- !.
'$flatten'([Hd|Tl], Tail, List) :- !,
    '$flatten'(Hd, FlatHeadTail, List), '$flatten'(Tl, Tail, FlatHeadTail).
'$flatten'(NonList, Tl, [NonList|Tl]).
pairs_keys_values([], [], []).
pairs_keys_values([K-V|T], [K|Ks], [V|Vs]) :- pairs_keys_values(T, Ks, Vs).
pairs_keys([], []).
pairs_keys([K-_|T], [K|Ks]) :- pairs_keys(T, Ks).
pairs_values([], []).
pairs_values([_-V|T], [V|Vs]) :- pairs_values(T, Vs).
proper_length(L, N) :- is_list(L), length(L, N).
subsumes_term(G, S) :-
    \+ \+ ( term_variables(S, V1), unify_with_occurs_check(G, S),
            term_variables(V1, V2), V1 == V2 ).
predsort(P, L, Sorted) :-
    length(L, N), '$predsort'(P, N, L, _, Sorted1), !, Sorted = Sorted1.
'$predsort'(P, 2, [X1,X2|L], L, R) :- !, call(P, Delta, X1, X2), '$sort2'(Delta, X1, X2, R).
'$predsort'(_, 1, [X|L], L, [X]) :- !.
'$predsort'(_, 0, L, L, []) :- !.
'$predsort'(P, N, L1, L3, R) :-
    N1 is N // 2, plus(N1, N2, N),
    '$predsort'(P, N1, L1, L2, R1), '$predsort'(P, N2, L2, L3, R2),
    '$predmerge'(P, R1, R2, R).
'$sort2'(<, X1, X2, [X1,X2]).
'$sort2'(=, X1, _, [X1]).
'$sort2'(>, X1, X2, [X2,X1]).
'$predmerge'(_, [], R, R) :- !.
'$predmerge'(_, R, [], R) :- !.
'$predmerge'(P, [H1|T1], [H2|T2], Result) :-
    call(P, Delta, H1, H2), !, '$predmerge_'(Delta, P, H1, H2, T1, T2, Result).
'$predmerge_'(<, P, H1, H2, T1, T2, [H1|R]) :- '$predmerge'(P, T1, [H2|T2], R).
'$predmerge_'(=, P, H1, _, T1, T2, [H1|R]) :- '$predmerge'(P, T1, T2, R).
'$predmerge_'(>, P, H1, H2, T1, T2, [H2|R]) :- '$predmerge'(P, [H1|T1], T2, R).
"""

_LIBRARY_CACHE: dict[Key, list[Clause]] = {}


def _library_clauses() -> dict[Key, list[Clause]]:
    """The library's clauses by predicate (parsed once per process)."""
    if not _LIBRARY_CACHE:
        for rt in PrologReader().read_text(_LIBRARY_TEXT, "<ilpkit library>"):
            clause = Clause.from_term(rt.term)
            _LIBRARY_CACHE.setdefault(clause.indicator, []).append(clause)
    return _LIBRARY_CACHE


# Control constructs compiled inline (never looked up as predicates).
_CONTROL: Final = frozenset(
    {
        (",", 2),
        (";", 2),
        ("->", 2),
        ("*->", 2),
        ("\\+", 1),
        ("not", 1),
        ("!", 0),
        ("true", 0),
        ("fail", 0),
        ("false", 0),
        ("once", 1),
        ("ignore", 1),
        ("forall", 2),
        (":", 2),
    }
)


def _pis(text: str) -> frozenset[Key]:
    """Predicate indicators from ``"name/arity name/arity ..."`` text."""
    out = set()
    for item in text.split():
        name, _, arity = item.rpartition("/")
        out.add((name, int(arity)))
    return frozenset(out)


_OUTPUT_ONLY: Final = _pis(
    "write/1 write/2 writeln/1 writeln/2 print/1 print/2 writeq/1 writeq/2 write_canonical/1 "
    "write_canonical/2 write_term/2 write_term/3 print_message/2 format/1 format/2 nl/0 nl/1 "
    "tab/1 tab/2 flush_output/0 flush_output/1 portray_clause/1 put_char/1 debug/3"
)
"""Refused output predicates that ``allow`` may turn into silent no-ops (they cannot change
an answer)."""

_REFUSED_GROUPS: Final = {
    "output": " ".join(f"{n}/{a}" for n, a in sorted(_OUTPUT_ONLY)),
    "changes the database": (
        "assert/1 asserta/1 assertz/1 asserta/2 assertz/2 retract/1 retractall/1 abolish/1 "
        "abolish/2 erase/1 recorda/2 recorda/3 recordz/2 recordz/3 recorded/2 recorded/3 "
        "flag/3 setarg/3 nb_setarg/3 dynamic/1 discontiguous/1 op/3 set_prolog_flag/2 table/1"
    ),
    "global variables": "nb_setval/2 b_setval/2 nb_getval/2 b_getval/2",
    "input/output": (
        "format/3 read/1 read/2 read_term/2 read_term/3 open/3 open/4 close/1 close/2 see/1 "
        "seen/0 tell/1 told/0 append/1 get_char/1 get_char/2 peek_char/1 put_char/2 "
        "with_output_to/2 format_atom/3 sformat/2 sformat/3"
    ),
    "runs external code or loads files": (
        "shell/0 shell/1 shell/2 system/1 consult/1 ensure_loaded/1 use_module/1 use_module/2 "
        "load_files/2 halt/0 halt/1 abort/0 getenv/2 setenv/2 sleep/1 garbage_collect/0 "
        "statistics/2 get_time/1 time/1 call_with_time_limit/2 thread_create/3"
    ),
    "random numbers are not reproducible": (
        "random/1 random_between/3 random_member/2 random_permutation/2 random_select/3 "
        "set_random/1"
    ),
    "coroutining and constraints": "freeze/2 dif/2 when/2",
    "program introspection": "clause/2 predicate_property/2 current_op/3",
}

_REFUSED: Final[dict[Key, str]] = {
    key: why for why, text in _REFUSED_GROUPS.items() for key in sorted(_pis(text))
}
"""Constructs the native engine refuses, with the reason shown to the user."""

_META_ARGS: Final[dict[Key, tuple[tuple[int, int], ...]]] = {
    ("findall", 3): ((1, 0),),
    ("findall", 4): ((1, 0),),
    ("aggregate_all", 3): ((1, 0),),
    ("bagof", 3): ((1, 0),),
    ("setof", 3): ((1, 0),),
    ("catch", 3): ((0, 0), (2, 0)),
    ("^", 2): ((1, 0),),
    ("include", 3): ((0, 1),),
    ("exclude", 3): ((0, 1),),
    ("partition", 4): ((0, 1),),
    ("foldl", 4): ((0, 3),),
    ("foldl", 5): ((0, 4),),
    ("foldl", 6): ((0, 5),),
    ("predsort", 3): ((0, 3),),
    **{("call", n): ((0, n - 1),) for n in range(1, 9)},
    **{("maplist", n): ((0, n - 1),) for n in range(2, 7)},
}
"""Where meta-predicates take goals: (argument index, number of arguments they add)."""

_ARITH_PREDS: Final = frozenset(
    {("is", 2), ("<", 2), (">", 2), ("=<", 2), (">=", 2), ("=:=", 2), ("=\\=", 2)}
)

_SYSTEM: Final = frozenset(_DET) | frozenset(_GEN) | frozenset(_CTRL)
BUILTINS: Final[frozenset[Key]] = frozenset(
    _SYSTEM | _CONTROL | {k for k in _library_clauses() if not k[0].startswith("$")}
)
"""Every predicate the engine implements: control constructs, built-ins and library."""
SYSTEM_PREDICATES: Final[frozenset[Key]] = frozenset(
    {k for k in _SYSTEM if k not in _LIBRARY_NATIVE} | (_CONTROL - {("false", 0), (":", 2)})
)
"""Built-ins a program cannot redefine (SWI-Prolog's system predicates: a definition in the
data is refused at load, so every engine runs the same predicate).  Library predicates
(``append/3``, ``member/2``, ...) may be redefined, as with SWI's autoloader; ``false/0`` is
left out because Aleph's integrity constraints are written ``false :- Body``."""


# --------------------------------------------------------------------------------------------
# Compilation
# --------------------------------------------------------------------------------------------

(
    _I_CALL,
    _I_CUT,
    _I_FAIL,
    _I_ITE,
    _I_SOFT,
    _I_OR,
    _I_NOT,
    _I_CALLVAR,
    _I_CALL1,
    _I_COLLECT,
    _I_SOFTCUT,
    _I_CATCHEXIT,
) = range(12)

_CUT_SEQ: Final = ((_I_CUT,),)
_NAF_SEQ: Final = ((_I_CUT,), (_I_FAIL,))
_SOFTCUT_SEQ: Final = ((_I_SOFTCUT,),)
_COLLECT_SEQ: Final = ((_I_COLLECT,),)
_CATCHEXIT_SEQ: Final = ((_I_CATCHEXIT,),)

_CP_ALT, _CP_CLAUSES, _CP_FACTS, _CP_GEN, _CP_COLLECT, _CP_CATCH, _CP_DEAD = range(7)

_K_USER, _K_FACTS, _K_DET, _K_GEN, _K_CTRL, _K_UNDEF, _K_REFUSED, _K_FAIL, _K_TABLE = range(9)


class _Ctx:
    """Where compiled code came from (for error messages) and how it resolves names."""

    __slots__ = ("caller", "known", "lib", "location", "names")

    def __init__(
        self,
        caller: str,
        location: str | None,
        names: list[str] | None,
        lib: bool,
        known: dict[int, str] | None = None,
    ) -> None:
        self.caller = caller
        self.location = location
        self.names = names  # clause variable names by slot
        self.lib = lib
        self.known = known  # names of a query's variables by cell id

    def describe(self) -> str:
        where = f" at {self.location}" if self.location else ""
        return f"called from {self.caller}{where}"


class _CClause:
    """A compiled clause: head argument templates, body sequence, frame size, index key."""

    __slots__ = ("body", "head", "key", "nvars")

    def __init__(self, head: tuple[RT, ...], body: tuple[Any, ...], nvars: int, key: RT):
        self.head = head
        self.body = body
        self.nvars = nvars
        self.key = key


class _Pred:
    """A callable predicate: its kind and what the machine needs to run it."""

    __slots__ = (
        "clauses",
        "fidx",
        "fn",
        "index",
        "key",
        "kind",
        "lib",
        "rows",
        "tab",
        "varcl",
    )

    def __init__(self, key: Key, kind: int, fn: Any = None, lib: bool = False) -> None:
        self.key = key
        self.kind = kind
        self.fn = fn
        self.lib = lib
        self.clauses: tuple[_CClause, ...] | None = None
        self.index: dict[RT, tuple[_CClause, ...]] | None = None
        self.varcl: tuple[_CClause, ...] = ()
        self.rows: list[tuple[RT, ...]] | None = None
        self.fidx: list[dict[RT, list[tuple[RT, ...]]] | None] = []
        self.tab = kind == _K_USER and not lib  # answers may come from the engine's tables


def _first_arg_key(head: tuple[RT, ...]) -> RT:
    if not head:
        return None
    t = head[0]
    if type(t) is _Slot:
        return None
    if type(t) is _Tmpl or type(t) is tuple:
        return (t[0], len(t))
    return t


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
        "step_limit",
        "steps",
        "trail",
        "work",
    )

    def __init__(self, eng: ResolutionEngine, query: Callable[[], str]) -> None:
        self.eng = eng
        self.query = query  # the query as text, computed only for messages
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
            f"resolution steps{why}{self._where(instr)}; raise the step limit or look for "
            "infinite recursion"
        )

    def _over_time(self, instr: Any, what: str = "") -> ResourceLimitExceeded:
        why = f" ({what})" if what else ""
        return ResourceLimitExceeded(
            f"the query {self.query()} exceeded the time limit of "
            f"{self.eng.time_limit} s{why}{self._where(instr)}"
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
        """Yield once per solution of ``seq`` (bindings are in place while suspended)."""
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
                        yield
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
                    ball = exc.ball
                    if type(ball) is tuple and len(ball) == 3 and ball[0] == "error":
                        formal = _deref(ball[1])
                        if type(formal) is tuple and formal[0] == "resource_error":
                            raise ResourceLimitExceeded(
                                f"the query {self.query()} ran out of a resource: "
                                f"{exc.message}{self._goal_text(instr, args)}"
                            ) from None
                    raise PrologRuntimeError(
                        exc.message + self._goal_text(instr, args), _to_term(exc.ball)
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
            except MemoryError:
                self.steps = steps
                del cps[:], trail[:]
                cont = None
                raise self._over(_OverLimit("memory", "Python ran out of memory"), instr) from None


# --------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------


def _plain(t: RT) -> RT:
    """A ground term without :class:`Ref` cells (the spine of a list walked in a loop)."""
    t = _deref(t)
    if type(t) is not tuple:
        return t
    spine = []
    while type(t) is tuple:
        spine.append(t)
        t = _deref(t[-1])
    out = t
    for c in reversed(spine):
        out = (c[0], *(_plain(a) for a in c[1:-1]), out)
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
    :class:`~ilpkit.core.errors.ResourceLimitExceeded` naming the query and the calling clause,
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
    ) -> None:
        self.program = program
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
        vals: list[RT] = []
        for a in args:
            a = _deref(a)
            if type(a) is Ref:
                vals.append(None)
            elif _is_ground(a):
                vals.append(_plain(a))
            else:
                return None
        pattern = (pred.key, tuple(v is None for v in vals))
        if self._untabled.get(pattern, 0) >= _GIVE_UP:
            return None
        from ilpkit.backends.native import vectorised

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
                yield _to_term(rt, _VarNamer(dict(known)))
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
                out.append(tuple(_to_term(a, namer) for a in rt_args))
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
        return self._compile_goals([goal], self._dyn_ctx)

    def _compile_goals(self, goals: list[RT], ctx: _Ctx) -> tuple[Any, ...]:
        out: list[Any] = []
        stack = list(reversed(goals))
        while stack:
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
