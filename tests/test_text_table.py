"""The tables learn and explain print without rich (:mod:`ilpkit.cli.text_table`): laid out
by hand on small cases, and line for line as rich drew them on generated ones."""

from __future__ import annotations

import io
import sys

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ilpkit.cli.text_table import Column, render

RULES = [Column("#", right=True), Column("rule"), Column("TP", right=True)]
RULES += [Column("precision", right=True), Column("recall", right=True)]


def test_a_rules_table_by_hand() -> None:
    """Width 40. Least widths: # 1, rule 24 (RULE_MIN_WIDTH), TP 2, precision 9, recall 6,
    and 3 a column and 1 of walls: 58. Without recall (the rightmost) 49, without precision
    37: that fits, the table is 37 wide; the title and the two caption lines (the note
    wrapped at 37: 32 and 34 characters) are centred in it, an odd space on the right."""
    drawn = render("t", RULES, [["1", "a(A) :- b(A,B), c(B).", "5", "1.000", "0.500"]], 40)
    assert drawn.lines(colour=False) == [
        " " * 18 + "t",
        "┏━━━┳" + "━" * 26 + "┳━━━━┓",
        "┃ # ┃ rule" + " " * 21 + "┃ TP ┃",
        "┡━━━╇" + "━" * 26 + "╇━━━━┩",
        "│ 1 │ a(A) :- b(A,B), c(B).    │  5 │",
        "└───┴" + "─" * 26 + "┴────┘",
        "  not shown at 40 columns: recall,",
        " precision (widen it or use --json)",
    ]


def test_the_rule_wraps_at_spaces_to_fit() -> None:
    """Width 46: recall and precision go as above (37 at least); the rule's 35 characters
    would make the table 48, so its column narrows by 2 to 33, and the rule breaks after
    ``s(C),`` (29 characters; with `` t(C).`` 35)."""
    rule = "p(A) :- q(A,B), r(B,C), s(C), t(C)."
    drawn = render("", RULES, [["1", rule, "2", "1.000", "1.000"]], 46)
    body = drawn.body
    assert body[3:5] == [
        "│ 1 │ p(A) :- q(A,B), r(B,C), s(C),     │  2 │",
        "│   │ t(C).                             │    │",
    ]
    assert all(len(line) == 46 for line in body)


def test_an_unboxed_table_by_hand() -> None:
    columns = [Column("examples (n)"), Column("TP", right=True), Column("acc.", right=True)]
    drawn = render("whole model", columns, [["training (10)", "5", "1.000"]], 80, boxed=False)
    assert drawn.lines(colour=False) == [  # 26 wide: 1+13+1, 1+2+1, 1+5+1
        "       whole model",
        " examples (n)   TP   acc. ",
        " training (10)   5  1.000 ",
    ]


def test_named_columns_go_first_and_the_rule_never() -> None:
    """Least widths 1+24+5+1+2 and 16 of walls: 49. At 40, ``h`` goes first (45), then
    ``alpha`` (37, fits): TP, the rightmost, stays."""
    columns = [Column("#"), Column("rule"), Column("alpha"), Column("h"), Column("TP")]
    drawn = render("", columns, [["1", " ".join(["xx"] * 10), "0.5", "1", "3"]], 40)
    assert drawn.caption and "h, alpha" in " ".join(drawn.caption)
    assert "TP" in drawn.body[1]


def test_colour_styles_title_header_and_caption_only() -> None:
    drawn = render("t", RULES, [["1", "a.", "1", "1.000", "1.000"]], 30)
    plain, coloured = drawn.lines(colour=False), drawn.lines(colour=True)
    assert len(plain) == len(coloured)
    assert coloured[2] != plain[2] and plain[2] in coloured[2]  # the header, bold
    assert coloured[3 : -len(drawn.caption)] == plain[3 : -len(drawn.caption)]


def _rich_lines(title: str, columns: list[Column], rows: list[list[str]], width: int) -> list[str]:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ilpkit.cli.tables import fit_table

    console = Console(file=io.StringIO(), width=width, highlight=False, color_system=None)
    table = Table(title=title)
    for column in columns:
        table.add_column(column.header, justify="right" if column.right else "left")
    for row in rows:  # as Text: rich read `:A:` in a rule as an emoji's name, a bug gone now
        table.add_row(*(Text(cell) for cell in row))
    console.print(fit_table(table, console))
    return [line.rstrip() for line in console.file.getvalue().splitlines()]  # type: ignore[attr-defined]


_words = st.text("abcdefgh(),:-AB", min_size=1, max_size=30)


@settings(max_examples=100, deadline=None)
@given(
    rules=st.lists(st.lists(_words, min_size=1, max_size=9).map(" ".join), min_size=1, max_size=4),
    width=st.integers(min_value=32, max_value=120),
)
def test_the_table_is_the_one_rich_drew(rules: list[str], width: int) -> None:
    """Rich (with :func:`fit_table`) was the reference these tables replace: the same
    columns dropped, the same widths, the rule text wrapped at the same places. Where at
    least ``#`` and the rule (24 columns, or its longest word) fit: below that rich crops
    the table's right edge, these tables keep it (the terminal wraps the line)."""
    longest = max(len(word) for rule in rules for word in rule.split())
    assume(1 + max(24, longest) + 7 <= width)  # the least table (#, rule) fits: see above
    rows = [[str(i), rule, str(i * 3), "1.000", "0.250"] for i, rule in enumerate(rules, 1)]
    ours = [line.rstrip() for line in render("model", RULES, rows, width).lines(colour=False)]
    assert ours == _rich_lines("model", RULES, rows, width)


def test_ascii_box_where_the_output_cannot_encode_box_drawing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rich fell back to an ASCII box on such a terminal; so do these tables (a latin-1
    terminal would otherwise get an encoding error instead of the model)."""

    class Latin1Out:
        encoding = "latin-1"

    monkeypatch.setattr(sys, "stdout", Latin1Out())
    drawn = render("t", RULES, [["1", "a(A) :- b(A).", "5", "1.000", "0.500"]], 80)
    text = "\n".join(drawn.lines(colour=False))
    text.encode("latin-1")  # raises if a box-drawing character is left
    assert drawn.body[0].startswith("+---+") and drawn.body[1].startswith("| # |")
