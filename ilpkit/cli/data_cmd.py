"""``ilpkit data ...``: look at datasets before learning from them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer

from ilpkit.cli.common import FormatOpt, TrustOpt
from ilpkit.experiment.data_format import DataFormat

if TYPE_CHECKING:
    from rich.tree import Tree

app = typer.Typer(help="Inspect datasets.", no_args_is_help=True)

_MAX_ITEMS: Final = 25


@app.command("check")
def check(
    path: Annotated[
        str,
        typer.Argument(help="Dataset folder, file stem (data/train) or a bundled dataset name."),
    ],
    fmt: FormatOpt = DataFormat.AUTO,
    stem: Annotated[
        str | None,
        typer.Option(help="Which task to read from a folder holding several (e.g. advisedby)."),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    seed_example: Annotated[
        int | None,
        typer.Option(
            "--seed-example",
            help="Also saturate this example id (native backend) and warn when its bottom "
            "clause has more than --max-bottom literals.",
        ),
    ] = None,
    max_bottom: Annotated[
        int, typer.Option(help="Bottom clause size above which --seed-example warns.", min=1)
    ] = 1000,
    strict: Annotated[
        bool,
        typer.Option(
            help="Refuse a background or mode clause with a syntax error (default: skip it, "
            "warned)."
        ),
    ] = False,
    trust_data: TrustOpt = False,
) -> None:
    """Load a dataset and print its summary: examples, predicates, modes, settings, folds,
    the constructs backends refuse unless you trust the data, and modes that cannot work
    (as warnings)."""
    from rich.console import Console

    from ilpkit.core.formats import load_task  # loaders are heavy; load them only when used
    from ilpkit.core.safety import unsafe_constructs
    from ilpkit.core.task import Task
    from ilpkit.datasets import resolve_data_path

    # strict passed only when set: loaders substituted in tests take (path, format, stem)
    extra = {"strict": True} if strict else {}
    if trust_data:
        extra["trust_data"] = True
    task = load_task(resolve_data_path(path), format=str(fmt), stem=stem, **extra)
    summary = task.summary()
    if json_output:
        typer.echo(json.dumps(summary, indent=2, default=str))
    else:
        Console(highlight=False, markup=False, emoji=False).print(
            summary_tree(summary, title=str(path))
        )
    # Only a Task has a program to check (the CLI tests substitute summary-only loaders).
    unsafe = unsafe_constructs(task) if isinstance(task, Task) else []
    for item in unsafe[:_MAX_ITEMS]:
        typer.echo(f"warning: {item}", err=True)
    if unsafe:
        typer.echo(
            f"warning: backends refuse this data ({len(unsafe)} unsafe constructs) unless "
            "you pass --trust-data; see docs/security.md",
            err=True,
        )
    if isinstance(task, Task):
        _check_bias(task, seed_example, max_bottom)


def _check_bias(task: Any, seed_example: int | None, max_bottom: int) -> None:
    """Print the warnings of :mod:`ilpkit.core.bias_check` (and one seed's bottom size)."""
    from ilpkit.cli.common import open_backend
    from ilpkit.core import aleph_hooks
    from ilpkit.core.bias_check import (
        bias_warnings,
        bottom_size_warning,
        unsupported_features,
        unused_settings_warning,
    )
    from ilpkit.errors import ConfigError
    from ilpkit.experiment.compose import hook_honourers

    for item in bias_warnings(task):
        typer.echo(f"warning: {item}", err=True)
    unused = unused_settings_warning(task)
    if unused is not None:
        typer.echo(f"warning: {unused}", err=True)
    hooks = aleph_hooks.summary(task, honourers=hook_honourers())
    if hooks is not None:
        typer.echo(f"warning: {hooks}", err=True)
    refused = unsupported_features(task)  # abduction, induce_modes, ...: learn exits 2
    if refused is not None:
        typer.echo(f"warning: learn and cv refuse this data (exit 2):\n{refused}", err=True)
    if seed_example is None:
        return
    if not 0 <= seed_example < len(task.examples):
        raise ConfigError(
            f"--seed-example {seed_example}: expected an example id from 0 to "
            f"{len(task.examples) - 1}"
        )
    with open_backend("native", {}, task) as engine:
        warning = bottom_size_warning(engine, task, seed_example, max_bottom)
    if warning:
        typer.echo(f"warning: {warning}", err=True)


def summary_tree(summary: Mapping[str, Any], *, title: str) -> Tree:
    """A rich tree of a task summary: ``key: value`` leaves, a branch per mapping or list."""
    from rich.text import Text
    from rich.tree import Tree

    tree = Tree(Text(title, style="bold"))
    _add_items(tree, summary)
    return tree


def _add_items(node: Tree, mapping: Mapping[str, Any], top: bool = True) -> None:
    from rich.text import Text

    for key, value in mapping.items():
        # the summary's own field names read as words; data's names (has_car/2, fold_1) stay
        label = str(key).replace("_", " ") if top else str(key)
        if isinstance(value, Mapping) and value:
            _add_items(node.add(Text(f"{label} ({len(value)})", style="bold")), value, top=False)
        elif isinstance(value, (list, tuple)) and value:
            branch = node.add(Text(f"{label} ({len(value)})", style="bold"))
            for item in value[:_MAX_ITEMS]:
                branch.add(Text(_scalar(item)))
            if len(value) > _MAX_ITEMS:
                branch.add(Text(f"... {len(value) - _MAX_ITEMS} more (see --json)", style="dim"))
        else:
            leaf = Text(f"{label}: ", style="bold")
            leaf.append(_scalar(value))
            node.add(leaf)


def _scalar(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, (Mapping, list, tuple)) and not value:
        return "none"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)
