"""The tables ``learn`` and ``explain`` print (a model's rules, the whole model's figures),
drawn as text without rich.

Why: importing rich to draw two small tables was a tenth of ``ilpkit learn trains``
(137 M of 1,412 M instructions), a run whose learning takes 18 M. The tables look as rich
drew them (a heavy-headed box, or no box), and fit the terminal the same way as
:func:`ilpkit.cli.tables.fit_table`: whole columns are dropped, in the order of
:data:`~ilpkit.cli.tables.DROP_FIRST` then from the right, until the rest fits with the rule
text wrapped, and a caption names what was left out.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ilpkit.cli.tables import DROP_FIRST, FOLD, KEEP, RULE_MIN_WIDTH

HEAVY_HEAD: Final = ("┏━┳┓", "┃┃┃", "┡━╇┩", "│││", "└─┴┘")
"""Top, header, header rule, row, bottom: left, line (or inner wall), joint, right."""
ASCII_HEAD: Final = ("+-++", "|||", "|-+|", "|||", "+-++")
"""The same box where the output cannot encode box drawing (as rich fell back)."""


@dataclass(frozen=True)
class Column:
    header: str
    right: bool = False
    """Right-justified (the numbers)."""


@dataclass(frozen=True)
class Drawn:
    """A table drawn: its title, its lines (the header's index ``header``) and the caption
    that names the columns left out."""

    title: str
    body: list[str]
    header: int
    caption: list[str]

    def lines(self, *, colour: bool) -> list[str]:
        """With ``colour``, the title in italics, the header bold and the caption dim, as
        rich shows them (echo drops the codes when the output is not a terminal)."""
        if not colour:
            return [self.title, *self.body, *self.caption]
        import typer

        body = list(self.body)
        body[self.header] = typer.style(body[self.header], bold=True)
        return [
            typer.style(self.title, italic=True),
            *body,
            *(typer.style(line, dim=True) for line in self.caption),
        ]


def render(
    title: str,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    width: int,
    *,
    boxed: bool = True,
    drop_first: Sequence[str] = DROP_FIRST,
) -> Drawn:
    """The table in at most ``width`` columns when dropping columns and wrapping rule text
    can make it so (a row's other cells are never cut)."""
    keep, dropped = _fitting(columns, rows, width, boxed, drop_first)
    shown = [columns[i] for i in keep]
    cells = [[row[i] for i in keep] for row in rows]
    widths = _widths(shown, cells, width, boxed)
    body = _boxed(shown, cells, widths) if boxed else _unboxed(shown, cells, widths)
    table_width = max(len(line) for line in body)
    caption = []
    if dropped:
        note = f"not shown at {width} columns: {', '.join(dropped)} (widen it or use --json)"
        caption = [_center(part, table_width) for part in wrap(note, table_width)]
    return Drawn(_center(title, table_width), body, 1 if boxed else 0, caption)


def terminal_width() -> int:
    """``COLUMNS``, else the width of the terminal the output goes to, else 80 (a pipe, a
    file, a test's captured output), as rich measured it."""
    import sys

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = sys.stdout
    try:
        if stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        pass
    return 80


def box_drawing() -> bool:
    """Whether standard output's encoding has the box-drawing characters."""
    import sys

    try:
        "┏━╭─│".encode(getattr(sys.stdout, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def wrap(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` (``first`` and ``rest`` indent them), broken
    at spaces only where it can be (``--an-option``, ``side-effect-free`` stay whole); a
    word longer than a line is cut. No lines for no text."""
    return textwrap.wrap(
        text, width, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
    )


def colour_wanted() -> bool:
    """Colour unless ``NO_COLOR`` is set (https://no-color.org)."""
    return not os.environ.get("NO_COLOR")


def _natural(column: Column, cells: Sequence[Sequence[str]], index: int) -> int:
    return max([len(column.header), *(len(row[index]) for row in cells)])


def _minimum(column: Column, cells: Sequence[Sequence[str]], index: int) -> int:
    """A rule column folds down to :data:`RULE_MIN_WIDTH`, or its longest word (a word is
    not cut while a column can be dropped instead); any other keeps its width."""
    if column.header in FOLD:
        words = [len(word) for row in cells for word in row[index].split()]
        return max([RULE_MIN_WIDTH, len(column.header), *words])
    return _natural(column, cells, index)


def _overhead(count: int, boxed: bool) -> int:
    """Walls and padding: ``│ a │ b │`` takes 3 per column and 1; unboxed, `` a  b `` 2."""
    return 3 * count + 1 if boxed else 2 * count


def _fitting(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    width: int,
    boxed: bool,
    drop_first: Sequence[str],
) -> tuple[list[int], list[str]]:
    keep = list(range(len(columns)))
    dropped: list[str] = []

    def too_wide() -> bool:
        least = sum(_minimum(columns[i], rows, i) for i in keep)
        return least + _overhead(len(keep), boxed) > width

    order = [*drop_first, *(c.header for c in reversed(columns))]
    for header in order:
        if not too_wide():
            break
        if header in KEEP:
            continue
        index = next((i for i in keep if columns[i].header == header), None)
        if index is None:
            continue
        keep.remove(index)
        dropped.append(header)
    return keep, dropped


def _widths(
    columns: Sequence[Column], cells: Sequence[Sequence[str]], width: int, boxed: bool
) -> list[int]:
    """Every column as wide as its widest cell; a rule column at least
    :data:`RULE_MIN_WIDTH`, and narrowed (not below that) to fit ``width``."""
    widths = [_natural(c, cells, i) for i, c in enumerate(columns)]
    for i, column in enumerate(columns):
        if column.header in FOLD:
            widths[i] = max(widths[i], RULE_MIN_WIDTH)
    spare = width - sum(widths) - _overhead(len(columns), boxed)
    for i, column in enumerate(columns):
        if spare >= 0:
            break
        if column.header in FOLD:
            narrower = max(_minimum(column, cells, i), widths[i] + spare)
            spare += widths[i] - narrower
            widths[i] = narrower
    return widths


def _row_lines(
    columns: Sequence[Column], row: Sequence[str], widths: Sequence[int]
) -> list[list[str]]:
    """A row as lines of cells, its rule text wrapped to its column."""
    parts = [
        (wrap(cell, w) or [""]) if column.header in FOLD else [cell]
        for column, cell, w in zip(columns, row, widths, strict=True)
    ]
    height = max(len(p) for p in parts)
    lines = []
    for k in range(height):
        line = []
        for column, part, w in zip(columns, parts, widths, strict=True):
            text = part[k] if k < len(part) else ""
            line.append(text.rjust(w) if column.right else text.ljust(w))
        lines.append(line)
    return lines


def _boxed(
    columns: Sequence[Column], cells: Sequence[Sequence[str]], widths: Sequence[int]
) -> list[str]:
    top, head, rule, body, bottom = HEAVY_HEAD if box_drawing() else ASCII_HEAD

    def border(chars: str) -> str:
        left, line, joint, right = tuple(chars)
        return left + joint.join(line * (w + 2) for w in widths) + right

    def cells_line(chars: str, texts: Sequence[str]) -> str:
        wall = chars[0]
        return wall + wall.join(f" {t} " for t in texts) + wall

    headers = [
        c.header.rjust(w) if c.right else c.header.ljust(w)
        for c, w in zip(columns, widths, strict=True)
    ]
    out = [border(top), cells_line(head, headers), border(rule)]
    for row in cells:
        out += [cells_line(body, line) for line in _row_lines(columns, row, widths)]
    out.append(border(bottom))
    return out


def _unboxed(
    columns: Sequence[Column], cells: Sequence[Sequence[str]], widths: Sequence[int]
) -> list[str]:
    headers = [
        c.header.rjust(w) if c.right else c.header.ljust(w)
        for c, w in zip(columns, widths, strict=True)
    ]
    out = ["".join(f" {h} " for h in headers)]
    for row in cells:
        out += ["".join(f" {t} " for t in line) for line in _row_lines(columns, row, widths)]
    return out


def _center(text: str, width: int) -> str:
    """``text`` centred in ``width``, an odd space on the right (as rich centres)."""
    return " " * max(0, (width - len(text)) // 2) + text
