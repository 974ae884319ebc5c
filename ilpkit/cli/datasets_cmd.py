"""``ilpkit datasets``: the small datasets shipped with ilpkit."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ilpkit.datasets import BUNDLED, bundled_path

app = typer.Typer(help="Bundled datasets.", no_args_is_help=True)


@app.command("list")
def list_() -> None:
    """List the bundled datasets."""
    table = Table("name", "description", "path")
    for name, doc in BUNDLED.items():
        table.add_row(name, doc, str(bundled_path(name)))
    Console().print(table)


@app.command("path")
def path(name: Annotated[str, typer.Argument(help="Bundled dataset name.")]) -> None:
    """Print the folder of a bundled dataset (to pass to other commands)."""
    typer.echo(str(bundled_path(name)))
