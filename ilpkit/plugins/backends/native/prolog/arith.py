"""Arithmetic of the Prolog machine (SWI-Prolog's defaults: see ``resolution``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from ilpkit.plugins.backends.native.prolog.errors import (
    _HINT,
    _err,
    _eval_err,
    _inst_err,
    _pi,
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
    _cyclic,
    _deref,
    _tick,
)
from ilpkit.prolog.terms import Str

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
    nodes = 0
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
            nodes += 1
            if nodes == _FAST and _cyclic(t):  # SWI-Prolog's error
                raise _type_err("expression", t)
            if nodes % _TICK == 0:  # a huge or cyclic expression: within the query's limits
                _tick(_TICK, _TICK * _NODE_BYTES, "evaluating a very large or cyclic expression")
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
