"""A small TOML writer for the values a run configuration holds.

Writes a mapping of strings to: ``str``, ``int``, ``float`` (including ``inf``/``nan``),
``bool``, lists of those (and of mappings, as inline tables), and nested mappings (as
``[tables]``; an empty one as ``key = {}``). ``tomllib.loads(dumps(d)) == d`` for every such
``d``. There is no TOML null: a ``None`` anywhere is a :class:`ValueError` naming its key.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Final

_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+\Z")
_ESCAPES: Final[Mapping[str, str]] = {
    "\\": "\\\\",
    '"': '\\"',
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def dumps(data: Mapping[str, Any]) -> str:
    """``data`` as a TOML document."""
    lines: list[str] = []
    _write_table(data, (), lines)
    return "\n".join(lines).lstrip("\n") + "\n" if lines else ""


def _write_table(table: Mapping[str, Any], path: tuple[str, ...], lines: list[str]) -> None:
    subtables = []
    for key, value in table.items():
        if isinstance(value, Mapping) and value:
            subtables.append((key, value))
        else:
            lines.append(f"{format_key(key)} = {format_value(value, (*path, key))}")
    for key, value in subtables:
        sub = (*path, key)
        lines.append("")
        lines.append("[" + ".".join(format_key(k) for k in sub) + "]")
        _write_table(value, sub, lines)


def format_key(key: str) -> str:
    """A bare key when TOML allows one, else a quoted key."""
    if not isinstance(key, str):
        raise ValueError(f"TOML keys must be strings, got {key!r}")
    return key if _BARE_KEY.match(key) else format_string(key)


def format_string(text: str) -> str:
    """A TOML basic string (double quotes, escapes for control characters)."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch < " " or ch == "\x7f":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def format_value(value: Any, path: tuple[str, ...] = ()) -> str:
    """One TOML value written inline; ``path`` names it in errors."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return format_string(value)
    if isinstance(value, Mapping):
        items = (f"{format_key(k)} = {format_value(v, (*path, k))}" for k, v in value.items())
        return "{" + ", ".join(items) + "}" if value else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v, path) for v in value) + "]"
    where = ".".join(path) or "value"
    if value is None:
        raise ValueError(f"{where}: TOML has no null value; leave the key out instead")
    raise ValueError(f"{where}: cannot write {type(value).__name__} {value!r} as TOML")
