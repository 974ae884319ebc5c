"""``--help`` laid out in boxed panels (Arguments, Options, Commands), without rich.

Why: typer draws its help with rich, and importing rich with the Markdown support typer loads
along with it (markdown-it) was 0.2 of the 0.3 CPU s of ``ilpkit --help``. Click already
computes every row (names, metavars, ``[default: X]``, ``[required]``); this module only
lays the rows out, in the panels typer's help had. Colours are ANSI styles that click's
``echo`` drops when the output is not a terminal (and that ``NO_COLOR`` turns off); the
boxes fall back to ASCII when the output's encoding has no box-drawing characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Final

from ilpkit.cli.text_table import box_drawing, colour_wanted, terminal_width, wrap

MIN_WIDTH: Final = 40
"""Narrower terminals still get 40 columns: wrapping to fewer makes help unreadable."""

_TRAILER: Final = re.compile(r"\s*(\[(?:default: .*?|required|env var: .*?)\])$")
"""Click ends a row's help with these; they go on the last line, or a line of their own."""

_UNICODE_BOX: Final = "╭─╮│╰╯"
_ASCII_BOX: Final = "+-+|++"


def render_help(command: Any, ctx: Any) -> str:
    """The whole help of ``command`` as text: usage, its help text, the panels, the epilog."""
    width = _width(ctx)
    style = _styler(ctx)
    box = _UNICODE_BOX if box_drawing() else _ASCII_BOX
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    out = ["", f" {style('Usage:', 'usage')} {usage}", ""]
    if command.help:
        out += [*_paragraphs(command.help, width), ""]
    for title, rows in _parameter_panels(command, ctx):
        out += _panel(title, rows, width, style, box)
    for title, rows in _command_panels(command, ctx):
        out += _panel(title, rows, width, style, box)
    epilog = command.epilog
    if epilog:
        out += ["", *_epilog_lines(epilog, width)]
    return "\n".join(out) + "\n"


def _width(ctx: Any) -> int:
    """The context's terminal width (``CliRunner(terminal_width=...)``), else the output's
    (:func:`~ilpkit.cli.text_table.terminal_width`), capped by ``max_content_width``."""
    width = ctx.terminal_width or terminal_width()
    if ctx.max_content_width:
        width = min(width, ctx.max_content_width)
    return max(MIN_WIDTH, width)


_STYLES: Final[dict[str, dict[str, Any]]] = {
    "usage": {"fg": "yellow", "bold": True},
    "name": {"fg": "cyan", "bold": True},
    "trailer": {"dim": True},
    "required": {"fg": "red", "dim": True},
    "border": {"dim": True},
}


def _styler(ctx: Any) -> Callable[[str, str], str]:
    """``style(text, role)``: ANSI-styled text, or the text itself under ``NO_COLOR``."""
    import typer

    if not colour_wanted() and ctx.color is not True:
        return lambda text, role: text
    return lambda text, role: typer.style(text, **_STYLES[role])


def _paragraphs(text: str, width: int) -> list[str]:
    """A help text re-wrapped paragraph by paragraph (a docstring's line breaks are not the
    terminal's); a paragraph that starts with ``\\b`` keeps its lines, as in click."""
    lines: list[str] = []
    for number, paragraph in enumerate(re.split(r"\n\s*\n", text.strip())):
        if number:
            lines.append("")
        if paragraph.startswith("\b"):
            lines += [f" {line}" for line in paragraph.splitlines()[1:]]
            continue
        lines += wrap(" ".join(paragraph.split()), width - 2, " ", " ") or [""]
    return lines


def _parameter_panels(command: Any, ctx: Any) -> list[tuple[str, list[tuple[str, str]]]]:
    """The rows (names and metavar, help) of every shown parameter, by panel: Arguments,
    Options, or the panel a parameter names (typer's ``rich_help_panel``)."""
    panels: dict[str, list[tuple[str, str]]] = {}
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is None:
            continue
        default = "Arguments" if param.param_type_name == "argument" else "Options"
        panel = getattr(param, "rich_help_panel", None) or default
        panels.setdefault(panel, []).append(record)
    return _in_order(panels, ("Arguments", "Options"))


def _command_panels(command: Any, ctx: Any) -> list[tuple[str, list[tuple[str, str]]]]:
    """A group's subcommands (name, short help: its ``short_help`` or its help's first
    paragraph, whole), by panel."""
    summaries = getattr(command, "command_summaries", None)
    if summaries is not None:  # a group that lists its commands without building them
        return [("Commands", summaries(ctx))]
    panels: dict[str, list[tuple[str, str]]] = {}
    list_commands = getattr(command, "list_commands", None)
    if list_commands is None:
        return []
    for name in list_commands(ctx):
        sub = command.get_command(ctx, name)
        if sub is None or sub.hidden:
            continue
        text = sub.short_help or re.split(r"\n\s*\n", (sub.help or "").strip())[0]
        panel = getattr(sub, "rich_help_panel", None) or "Commands"
        panels.setdefault(panel, []).append((name, " ".join(text.split())))
    return _in_order(panels, ("Commands",))


def _in_order(
    panels: dict[str, list[tuple[str, str]]], first: Iterable[str]
) -> list[tuple[str, list[tuple[str, str]]]]:
    ordered = [name for name in first if name in panels]
    ordered += [name for name in panels if name not in ordered]
    return [(name, panels[name]) for name in ordered]


def _panel(
    title: str,
    rows: list[tuple[str, str]],
    width: int,
    style: Callable[[str, str], str],
    box: str,
) -> list[str]:
    """``rows`` in a box ``width`` wide: names in a column as wide as the widest (at most a
    third of the box), help wrapped beside them; a longer name gets its help on the next
    line."""
    top_left, horizontal, top_right, vertical, bottom_left, bottom_right = tuple(box)
    inner = width - 4
    names_width = min(max(len(name) for name, _ in rows), inner // 3)
    help_width = inner - names_width - 2
    head = f"{top_left}{horizontal} {title} "
    lines = [style(head + horizontal * (width - len(head) - 1) + top_right, "border")]
    side = style(vertical, "border")
    for name, help_text in rows:
        body = _wrapped_help(help_text, help_width)
        if len(name) > names_width:
            cells = [(name, ""), *(("", line) for line in body)]
        else:
            cells = [(name if index == 0 else "", line) for index, line in enumerate(body or [""])]
        for left, right in cells:
            named = style(left, "name") if left else ""
            if len(left) > names_width:  # a name too wide for its column: a line of its own
                plain, styled = left, named
            else:
                plain = left.ljust(names_width) + "  " + right
                gap = " " * (names_width - len(left) + 2)
                styled = named + gap + _style_trailer(right, style)
            padding = " " * max(0, inner - len(plain))
            lines.append(f"{side} {styled}{padding} {side}")
    lines.append(style(bottom_left + horizontal * (width - 2) + bottom_right, "border"))
    return lines


def _wrapped_help(text: str, width: int) -> list[str]:
    """A row's help wrapped to ``width``; click's ``[default: X]``/``[required]`` ends the
    last line when it fits there, else stands on a line of its own."""
    text = " ".join(text.split())
    trailer = ""
    found = _TRAILER.search(text)
    if found:
        trailer, text = found.group(1), text[: found.start()]
    lines = wrap(text, width)
    if trailer:
        if lines and len(lines[-1]) + 1 + len(trailer) <= width:
            lines[-1] += " " + trailer
        else:
            lines += wrap(trailer, width)
    return lines


def _style_trailer(line: str, style: Callable[[str, str], str]) -> str:
    found = _TRAILER.search(line)
    if not found:
        return line
    role = "required" if found.group(1) == "[required]" else "trailer"
    return line[: found.start(1)] + style(found.group(1), role)


def _epilog_lines(epilog: str, width: int) -> list[str]:
    """An epilog keeps its line breaks (the plugin listing is one option a line); a long
    line wraps under itself, indented two more than it is."""
    lines: list[str] = []
    for line in epilog.strip("\n").splitlines():
        indent = " " * (len(line) - len(line.lstrip()) + 1)
        lines += wrap(line.strip(), width - 1, indent, indent + "  ") or [""]
    return lines
