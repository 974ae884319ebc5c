"""The standard operator table (ISO plus the SWI-Prolog declarations found in data files).

Reading and writing share this table, so rendered text always reads back as the same term.
"""

from __future__ import annotations

from typing import Final

SYMBOL_CHARS: Final = frozenset("+-*/\\^<>=~:.?@#&$")

# name -> (priority, type)
INFIX_OPS: Final[dict[str, tuple[int, str]]] = {
    ":-": (1200, "xfx"),
    "-->": (1200, "xfx"),
    ";": (1100, "xfy"),
    "|": (1100, "xfy"),
    "->": (1050, "xfy"),
    "*->": (1050, "xfy"),
    ",": (1000, "xfy"),
    ":=": (990, "xfx"),
    "=": (700, "xfx"),
    "\\=": (700, "xfx"),
    "==": (700, "xfx"),
    "\\==": (700, "xfx"),
    "@<": (700, "xfx"),
    "@>": (700, "xfx"),
    "@=<": (700, "xfx"),
    "@>=": (700, "xfx"),
    "=..": (700, "xfx"),
    "is": (700, "xfx"),
    "=:=": (700, "xfx"),
    "=\\=": (700, "xfx"),
    "<": (700, "xfx"),
    ">": (700, "xfx"),
    "=<": (700, "xfx"),
    ">=": (700, "xfx"),
    ">:<": (700, "xfx"),
    ":<": (700, "xfx"),
    "as": (700, "xfx"),
    ":": (600, "xfy"),
    "+": (500, "yfx"),
    "-": (500, "yfx"),
    "/\\": (500, "yfx"),
    "\\/": (500, "yfx"),
    "xor": (500, "yfx"),
    "*": (400, "yfx"),
    "/": (400, "yfx"),
    "//": (400, "yfx"),
    "rem": (400, "yfx"),
    "mod": (400, "yfx"),
    "div": (400, "yfx"),
    "rdiv": (400, "yfx"),
    "divmod": (400, "yfx"),
    "<<": (400, "yfx"),
    ">>": (400, "yfx"),
    "**": (200, "xfx"),
    "^": (200, "xfy"),
}
# ":" (module qualification) is 600 xfy in SWI-Prolog: lists:append(X), and a:b+c is a:(b+c).

PREFIX_OPS: Final[dict[str, tuple[int, str]]] = {
    ":-": (1200, "fx"),
    "?-": (1200, "fx"),
    "dynamic": (1150, "fx"),
    "discontiguous": (1150, "fx"),
    "initialization": (1150, "fx"),
    "meta_predicate": (1150, "fx"),
    "module_transparent": (1150, "fx"),
    "multifile": (1150, "fx"),
    "public": (1150, "fx"),
    "thread_local": (1150, "fx"),
    "table": (1150, "fx"),
    "\\+": (900, "fy"),
    "-": (200, "fy"),
    "+": (200, "fy"),
    "\\": (200, "fy"),
    "$": (1, "fx"),
    # Aleph declares '#' (constant places in modes) as a prefix operator; data files rely on it.
    "#": (500, "fy"),
}


def _arg_max(priority: int, kind: str) -> int:
    return priority if kind == "y" else priority - 1


def infix(name: str) -> tuple[int, int, int] | None:
    """``(priority, left max, right max)`` of an infix operator, or None."""
    spec = INFIX_OPS.get(name)
    if spec is None:
        return None
    p, t = spec
    return p, _arg_max(p, t[0]), _arg_max(p, t[2])


def prefix(name: str) -> tuple[int, int] | None:
    """``(priority, argument max)`` of a prefix operator, or None."""
    spec = PREFIX_OPS.get(name)
    if spec is None:
        return None
    p, t = spec
    return p, _arg_max(p, t[1])


def is_operator(name: str) -> bool:
    return name in INFIX_OPS or name in PREFIX_OPS
