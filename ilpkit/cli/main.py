"""The ``ilpkit`` command: the typer ``app`` and the registration of each command group.

Commands live in one module per group (``plugins_cmd``, ``data_cmd``, ...); this module only
wires them up. Errors are handled once, by :class:`ilpkit.cli.errors.IlpkitGroup`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from ilpkit._version import __version__
from ilpkit.cli import (
    backends_cmd,
    clause_cmd,
    cv_cmd,
    data_cmd,
    datasets_cmd,
    learn_cmd,
    plugins_cmd,
)
from ilpkit.cli.errors import IlpkitGroup
from ilpkit.cli.plugin_help import PluginOptionsCommand

app = typer.Typer(
    name="ilpkit",
    cls=IlpkitGroup,
    help="Learn ensembles of first-order rules (ILP) from relational data.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"ilpkit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Show the version and exit.", callback=_show_version, is_eager=True
        ),
    ] = False,
) -> None:
    """Learn ensembles of first-order rules (ILP) from relational data."""


def _short(command: Callable[..., Any]) -> str:
    """A command's first sentence on one line, for the command list of ``ilpkit --help``
    (its docstring's line breaks would otherwise break the list's lines mid-sentence)."""
    text = " ".join((command.__doc__ or "").split())
    head, dot, _ = text.partition(". ")
    return head + ("." if dot else "")


for _name, _listing in (("plugins", plugins_cmd.plugins), ("backends", backends_cmd.backends)):
    app.command(_name, short_help=_short(_listing))(_listing)
app.add_typer(data_cmd.app, name="data")
app.add_typer(datasets_cmd.app, name="datasets")
for _name, _command, _cls in (
    ("saturate", clause_cmd.saturate, None),
    ("coverage", clause_cmd.coverage, None),
    ("learn", learn_cmd.learn, PluginOptionsCommand),
    ("predict", learn_cmd.predict, None),
    ("explain", learn_cmd.explain, None),
    ("cv", cv_cmd.cv, PluginOptionsCommand),
    ("run", cv_cmd.run, None),
    ("report", cv_cmd.report, None),
):
    app.command(_name, cls=_cls, short_help=_short(_command))(_command)


def main() -> None:
    """Run the ``ilpkit`` command (the script and ``python -m ilpkit`` go through
    :func:`ilpkit.cli.entry.main`, which also handles a Ctrl-C during these imports)."""
    app()
