"""Tables that fit the terminal: a wide table loses its least needed columns, and says so.

Rich shrinks a table wider than the console by cutting every cell; a 12-column boosting
table at 80 columns becomes unreadable. :func:`fit_table` instead drops whole columns, in a
stated order, until the rest fits with the rule text wrapped, and adds a caption naming what
it left out (``--json`` shows everything).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


# Never dropped: what a row is about.
KEEP = frozenset({"#", "rule", "clause", "clauses", "feature"})
FOLD = frozenset({"rule", "clause", "clauses"})  # wrapped, never cut
# Dropped first, in this order; any other column goes after these, rightmost first.
DROP_FIRST: tuple[str, ...] = ("w.prec", "w.rec", "r", "weak", "h", "alpha")
RULE_MIN_WIDTH = 24


def _header(column: object) -> str:
    return str(getattr(column, "header", ""))


def fit_table(table: Any, console: Console, drop_first: Sequence[str] = DROP_FIRST) -> Any:
    """``table`` with columns removed until it fits ``console.width`` (rule text folds);
    anything but a :class:`Table` (a tree, a group of tables) is returned as it is."""
    from rich.measure import Measurement
    from rich.table import Table

    if not isinstance(table, Table):
        return table
    for column in table.columns:
        if _header(column) in FOLD:
            column.overflow = "fold"
            column.min_width = RULE_MIN_WIDTH
        else:
            column.no_wrap = True
    dropped: list[str] = []

    def too_wide() -> bool:
        wide = console.options.update_width(10_000)  # measure unclamped, then compare
        return Measurement.get(console, wide, table).minimum > console.width

    order = [h for h in drop_first] + [_header(c) for c in reversed(table.columns)]
    for header in order:
        if not too_wide():
            break
        if header in KEEP:
            continue
        index = next((i for i, c in enumerate(table.columns) if _header(c) == header), None)
        if index is None:
            continue
        del table.columns[index]
        dropped.append(header)
    if dropped:
        note = (
            f"not shown at {console.width} columns: {', '.join(dropped)} (widen it or use --json)"
        )
        table.caption = f"{table.caption}\n{note}" if table.caption else note
    return table
