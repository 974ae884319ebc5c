"""``ilpkit plugins``: the registered plugins, by kind."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ilpkit.core.plugin_kinds import KINDS

if TYPE_CHECKING:
    from rich.table import Table

    from ilpkit.core.plugins import PluginManager


def get_plugin_manager() -> PluginManager:
    """The process's plugin manager, imported when a command runs (pluggy, pydantic and the
    entry points are not for ``--help``)."""
    from ilpkit.core.plugins import get_plugin_manager as manager

    return manager()


def plugins(
    json_output: Annotated[
        bool,
        typer.Option("--json", help="Print JSON: kind -> plugins, with each options schema."),
    ] = False,
) -> None:
    """List the registered plugins by kind: name, description and the package providing it."""
    from rich.console import Console

    manager = get_plugin_manager()
    if json_output:
        typer.echo(json.dumps(plugins_as_json(manager), indent=2))
        return
    Console(highlight=False, markup=False, emoji=False).print(plugins_table(manager))


def plugins_as_json(manager: PluginManager) -> dict[str, list[dict[str, Any]]]:
    """Every kind (empty ones too) -> its plugins' name, doc, source and options JSON schema."""
    return {
        kind: [
            {
                "name": spec.name,
                "doc": spec.doc,
                "source": spec.source,
                "options": spec.options.model_json_schema(),
            }
            for spec in manager.specs(kind)
        ]
        for kind in KINDS
    }


def plugins_table(manager: PluginManager) -> Table:
    """A rich table: one section per kind, one row per plugin."""
    from rich.table import Table

    table = Table(title="ilpkit plugins", title_justify="left", header_style="bold")
    table.add_column("kind", no_wrap=True)
    table.add_column("name", no_wrap=True)
    table.add_column("description", overflow="fold")
    table.add_column("package", no_wrap=True)
    for kind in KINDS:
        specs = manager.specs(kind)
        if not specs:
            table.add_row(kind, "-", "(none installed)", "", style="dim", end_section=True)
            continue
        for i, spec in enumerate(specs):
            last = i == len(specs) - 1
            table.add_row(
                kind if i == 0 else "", spec.name, spec.doc, spec.source, end_section=last
            )
    return table
