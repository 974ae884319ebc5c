"""Built-ins on atoms and strings."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from ilpkit.errors import DataError
from ilpkit.plugins.backends.native.prolog.builtins_core import _DET, _GEN, DetFn, GenFn, _det
from ilpkit.plugins.backends.native.prolog.errors import (
    _CELL_BYTES,
    _err,
    _inst_err,
    _text_bytes,
    _type_err,
)
from ilpkit.plugins.backends.native.prolog.terms import (
    NIL,
    RT,
    Ref,
    _deref,
    _from_term,
    _list_items,
    _mklist,
    _to_term,
    _undo,
    _unify,
)
from ilpkit.plugins.backends.native.prolog.text import (
    _atomic_text,
    _chars,
    _codes,
    _parse_number,
    _text,
    _text_arg_unbound,
)
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Str, Var, to_prolog

if TYPE_CHECKING:
    from ilpkit.plugins.backends.native.prolog.machine import _Machine

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
