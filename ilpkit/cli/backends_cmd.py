"""``ilpkit backends``: every registered backend, whether it works here, and why not."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from ilpkit.core.plugins import PluginManager


def get_plugin_manager() -> PluginManager:
    """The process's plugin manager, imported when a command runs (pluggy, pydantic and the
    entry points are not for ``--help``)."""
    from ilpkit.core.plugins import get_plugin_manager as manager

    return manager()


def backends(
    json_output: Annotated[
        bool, typer.Option("--json", help="Print JSON instead of a table.")
    ] = False,
) -> None:
    """List the backends with availability and version (engines are started to check)."""
    from rich.console import Console
    from rich.table import Table

    rows = backend_statuses(get_plugin_manager())
    if json_output:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title="ilpkit backends", title_justify="left", header_style="bold")
    for column in ("backend", "variant", "available", "version", "reason"):
        table.add_column(column, overflow="fold")
    for r in rows:
        table.add_row(
            r["name"], r["variant"], "yes" if r["available"] else "no", r["version"], r["reason"]
        )
    Console(highlight=False, markup=False, emoji=False).print(table)


def backend_statuses(manager: PluginManager) -> list[dict[str, Any]]:
    """One row per backend variant: a backend class's ``probe()`` says what works; a factory
    without one is reported as unknown rather than started."""
    from ilpkit.plugins.backends.base import BackendStatus  # numpy, pydantic: only when run

    rows = []
    for spec in manager.specs("backend"):
        probe = getattr(spec.factory, "probe", None)
        statuses: list[BackendStatus]
        if probe is None:
            statuses = [BackendStatus("", False, "", "the plugin does not say (no probe())")]
        else:
            try:
                statuses = list(probe())
            except Exception as exc:  # a broken third-party probe must not hide the others
                statuses = [BackendStatus("", False, "", f"probe failed: {exc}")]
        for s in statuses:
            rows.append(
                {
                    "name": spec.name,
                    "variant": s.variant,
                    "available": s.available,
                    "version": s.version,
                    "reason": s.reason,
                }
            )
    return rows
