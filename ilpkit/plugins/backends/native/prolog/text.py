"""Number syntax, float writing and atom/string conversions of the Prolog machine."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Final

from ilpkit.plugins.backends.native.prolog.errors import _err, _inst_err, _type_err
from ilpkit.plugins.backends.native.prolog.terms import NIL, RT, Ref, _deref, _list_items, _mklist
from ilpkit.prolog.reader import _SIMPLE_ESCAPES
from ilpkit.prolog.terms import Str

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

_ESCAPES: Final = {**_SIMPLE_ESCAPES, "0": "\0"}
"""The reader's one-character escapes (one table for both), plus ``\\0``."""


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
