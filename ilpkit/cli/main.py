"""The ``ilpkit`` command: the typer ``app`` and the registration of each command group.

Commands live in one module per group (``plugins_cmd``, ``data_cmd``, ...); this module only
wires them up. Errors are handled once, by :class:`ilpkit.cli.errors.IlpkitGroup`.
"""

from __future__ import annotations

from typing import Annotated

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


app.command("plugins")(plugins_cmd.plugins)
app.command("backends")(backends_cmd.backends)
app.add_typer(data_cmd.app, name="data")
app.add_typer(datasets_cmd.app, name="datasets")
app.command("saturate")(clause_cmd.saturate)
app.command("coverage")(clause_cmd.coverage)
app.command("learn", cls=PluginOptionsCommand)(learn_cmd.learn)
app.command("predict")(learn_cmd.predict)
app.command("explain")(learn_cmd.explain)
app.command("cv", cls=PluginOptionsCommand)(cv_cmd.cv)
app.command("run")(cv_cmd.run)
app.command("report")(cv_cmd.report)


def main() -> None:
    """Run the ``ilpkit`` command (the script and ``python -m ilpkit`` go through
    :func:`ilpkit.cli.entry.main`, which also handles a Ctrl-C during these imports)."""
    app()
