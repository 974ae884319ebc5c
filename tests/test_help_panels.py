"""``--help`` laid out by :mod:`ilpkit.cli.help_panels`: boxes that close, rows that wrap
inside them, click's trailers kept whole, and plain text where colour or boxes cannot go."""

from __future__ import annotations

import re
import sys
from typing import Annotated

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ilpkit.cli import help_panels
from ilpkit.cli.errors import _plain_help
from ilpkit.cli.main import app

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _tool() -> typer.Typer:
    """A two-parameter command: one short option, one whose name outgrows its column."""
    tool = typer.Typer(rich_markup_mode=None, add_completion=False)

    @tool.command()
    def go(
        path: Annotated[str, typer.Argument(help="Where the data is.")],
        depth: Annotated[int, typer.Option(help="How deep to go.")] = 3,
        a_very_long_option_name_that_outgrows_its_column: Annotated[
            str, typer.Option(help="Said on the line below its name.")
        ] = "x",
    ) -> None:
        """Go somewhere.

        Lines of a docstring
        are joined.

        \b
        kept
          as written
        """

    return tool


def _help(tool: typer.Typer, width: int) -> str:
    command = typer.main.get_command(tool)
    _plain_help(command)  # as the ilpkit group does: plain metavars, these panels
    ctx = command.make_context("tool", [], resilient_parsing=True, terminal_width=width)
    return ANSI.sub("", command.get_help(ctx))


def _boxes(text: str) -> list[str]:
    return [line for line in text.splitlines() if line[:1] and line[0] in "╭│╰"]


def test_a_command_help_by_hand() -> None:
    """The layout at 60 columns, written out by hand: the names' column is as wide as the
    widest name that fits a third of the 56 columns inside the box (18), the help wraps in
    the 36 beside it, a longer name stands alone with its help below."""
    text = _help(_tool(), 60)
    assert text.splitlines() == [
        "",
        " Usage: tool [OPTIONS] PATH",
        "",
        " Go somewhere.",
        "",
        " Lines of a docstring are joined.",
        "",
        " kept",
        "   as written",
        "",
        "╭─ Arguments ──────────────────────────────────────────────╮",
        "│ PATH  Where the data is. [required]                      │",
        "╰──────────────────────────────────────────────────────────╯",
        "╭─ Options ────────────────────────────────────────────────╮",
        "│ --depth INTEGER     How deep to go. [default: 3]         │",
        "│ --a-very-long-option-name-that-outgrows-its-column TEXT  │",
        "│                     Said on the line below its name.     │",
        "│                     [default: x]                         │",
        "│ --help              Show this message and exit.          │",
        "╰──────────────────────────────────────────────────────────╯",
    ]


@settings(max_examples=40, deadline=None)
@given(width=st.integers(min_value=1, max_value=220))
def test_every_box_line_is_the_width_asked_for(width: int) -> None:
    """Whatever the terminal's width (at least 40 columns are used), each line of a panel
    is exactly that wide and nothing of a row's text is lost in the wrapping."""
    expected = max(help_panels.MIN_WIDTH, width)
    runner = CliRunner()
    text = ANSI.sub("", runner.invoke(app, ["learn", "--help"], terminal_width=width).output)
    boxes = _boxes(text)
    assert boxes and all(len(line) == expected for line in boxes), width
    inside = " ".join(" ".join(line.strip("│").split()) for line in boxes)
    for words in (
        "Backend plugin name. [default: native]",
        "Show this message and exit.",
        "outside the data folder. Never taken from a run's config.toml",
    ):
        assert words in inside


def test_trailer_stays_whole_on_a_line_of_its_own_when_it_does_not_fit() -> None:
    assert help_panels._wrapped_help("abc def  [default: auto]", 16) == [
        "abc def",
        "[default: auto]",
    ]
    assert help_panels._wrapped_help("abc  [default: 1]", 20) == ["abc [default: 1]"]
    assert help_panels._wrapped_help("[required]", 20) == ["[required]"]


def test_epilog_lines_keep_their_breaks_and_wrap_under_themselves() -> None:
    epilog = "kind name:\n  option (default 1) one two three four five six"
    # 23 columns (one for the margin): "   option (default 1) one" would be 25
    assert help_panels._epilog_lines(epilog, 24) == [
        " kind name:",
        "   option (default 1)",
        "     one two three four",
        "     five six",
    ]


def test_colour_on_a_terminal_and_none_under_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    command = typer.main.get_command(_tool())
    _plain_help(command)
    ctx = command.make_context("tool", [], resilient_parsing=True, terminal_width=60)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[" in help_panels.render_help(command, ctx)  # echo drops it in a pipe
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in help_panels.render_help(command, ctx)


def test_ascii_boxes_where_the_output_cannot_encode_box_drawing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Latin1Out:
        encoding = "latin-1"

    monkeypatch.setattr(sys, "stdout", Latin1Out())
    text = _help(_tool(), 60)
    assert "╭" not in text and "│" not in text
    assert "+- Options " in text and "| --depth INTEGER" in text


def test_the_root_help_lists_every_command_once_with_its_first_sentence() -> None:
    text = ANSI.sub("", CliRunner().invoke(app, ["--help"], terminal_width=120).output)
    rows: dict[str, str] = {}
    for line in _boxes(text):
        cells = line.strip("│ ").split(None, 1)
        if len(cells) == 2 and not cells[0].startswith("-") and line.startswith("│ "):
            rows.setdefault(cells[0], cells[1])
    assert rows["learn"] == "Learn a model."
    assert rows["data"] == "Inspect datasets."
    assert text.count(" learn ") == 1


def test_a_group_of_a_plain_click_command_uses_its_help_paragraph(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A subcommand without a short help is listed with its help's first paragraph, whole
    and on joined lines (typer's help broke ``data check``'s lines mid-sentence)."""
    text = ANSI.sub("", CliRunner().invoke(app, ["data", "--help"], terminal_width=200).output)
    (row,) = [line for line in text.splitlines() if line.startswith("│ check")]
    assert "folds, the constructs backends refuse unless you trust the data, and modes" in row
