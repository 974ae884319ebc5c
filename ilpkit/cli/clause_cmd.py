"""``ilpkit saturate`` and ``ilpkit coverage``: look at what a backend computes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ilpkit.cli.common import (
    BackendOpt,
    FormatOpt,
    PathArg,
    SetOpt,
    StemOpt,
    TrustOpt,
    load,
    open_backend,
    split_sets,
)
from ilpkit.errors import DataError
from ilpkit.experiment.data_format import DataFormat

if TYPE_CHECKING:
    from ilpkit.prolog.terms import Term


def _parse(text: str, what: str) -> Term:
    from ilpkit.prolog.reader import PrologReader

    # the reader names the place itself ("--clause:1:29: ..."): no second prefix
    return PrologReader(double_quotes="codes").read_term(text, name=what)


def saturate(
    path: PathArg,
    example: Annotated[
        str, typer.Option("--example", "-e", help="Seed atom, e.g. 'p(a,b)', or an example id.")
    ],
    depth: Annotated[
        int | None, typer.Option(help="Layers of new variables (Aleph's i); default from the data.")
    ] = None,
    fmt: FormatOpt = DataFormat.AUTO,
    stem: StemOpt = None,
    backend: BackendOpt = "native",
    sets: SetOpt = None,
    ground: Annotated[
        bool, typer.Option(help="Also print the ground (not variabilised) literals.")
    ] = False,
    graph: Annotated[
        Path | None,
        typer.Option(
            help="Also write the literal network (dissertation Table 5.2) to this .graphml "
            "or .dot file."
        ),
    ] = None,
    trust_data: TrustOpt = False,
) -> None:
    """Print the bottom clause of a seed example. ``--set KEY=VALUE`` overrides the data's
    Aleph settings (i, clauselength, ...) as for learn; ``--set backend.KEY=VALUE`` sets a
    backend option."""
    from ilpkit.core.literal_graph import check_graph_path, literal_network, write_graph
    from ilpkit.core.mismatch import check_seed
    from ilpkit.experiment.compose import with_settings  # the commands' own imports: not for --help

    if graph is not None:
        check_graph_path(graph)
    task = load(path, fmt, stem, trust_data=trust_data)
    options = split_sets(sets, ("", "backend"))
    task = with_settings(task, options.pop(""), where="--set")
    seed: Term | int
    if re.fullmatch(r"[+-]?\d+", example.strip()):
        seed = int(example)
        if not 0 <= seed < len(task.examples):
            raise DataError(
                f"--example {seed}: {task.name} has {len(task.examples)} examples "
                f"(ids 0..{len(task.examples) - 1})"
            )
    else:
        seed = _parse(example, "--example")
        warning = check_seed(task, seed)
        if warning:
            typer.secho(f"warning: {warning}", fg=typer.colors.YELLOW, err=True)
    with open_backend(backend, options["backend"], task, trust_data=trust_data) as engine:
        bottom = engine.saturate(seed, depth=depth)
    typer.echo(f"% {len(bottom)} literals, {bottom.n_vars} variables")
    if bottom.dropped:
        typer.echo(
            f"% {len(bottom.dropped)} goals dropped (over a resource limit): "
            + ", ".join(bottom.dropped[:5])
            + (" ..." if len(bottom.dropped) > 5 else "")
        )
    typer.echo(str(bottom))
    if ground:
        typer.echo(str(bottom.ground_clause()))
    if graph is not None:
        network = literal_network(bottom)
        write_graph(network, graph)
        typer.echo(
            f"% literal network: {network.number_of_nodes()} nodes, "
            f"{network.number_of_edges()} arcs -> {graph}"
        )


def coverage(
    path: PathArg,
    clause: Annotated[str, typer.Option("--clause", "-c", help="Clause, e.g. 'p(A,B) :- q(A,C)'.")],
    fmt: FormatOpt = DataFormat.AUTO,
    stem: StemOpt = None,
    backend: BackendOpt = "native",
    sets: SetOpt = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print JSON, with the covered example ids.")
    ] = False,
    trust_data: TrustOpt = False,
) -> None:
    """Print how many positive and negative examples a clause covers. ``--set KEY=VALUE``
    overrides the data's Aleph settings as for learn; ``--set backend.KEY=VALUE`` sets a
    backend option."""
    from rich.console import Console
    from rich.table import Table

    from ilpkit.core.mismatch import check_clause
    from ilpkit.experiment.compose import with_settings

    task = load(path, fmt, stem, trust_data=trust_data)
    options = split_sets(sets, ("", "backend"))
    task = with_settings(task, options.pop(""), where="--set")
    from ilpkit.prolog.terms import Clause

    parsed = Clause.from_term(_parse(clause, "--clause"))
    check_clause(task, parsed)
    with open_backend(backend, options["backend"], task, trust_data=trust_data) as engine:
        covered = engine.coverage(parsed)
    counts = covered.counts(task.examples)
    result = {
        "clause": str(parsed),
        "tp": counts.tp,
        "fp": counts.fp,
        "positives": counts.p,
        "negatives": counts.n,
        "precision": counts.precision,
        "recall": counts.recall,
    }
    if json_output:
        result["covered"] = covered.tolist()
        typer.echo(json.dumps(result, indent=2))
        return
    table = Table(title=str(parsed), show_header=True)
    for key in ("tp", "fp", "positives", "negatives", "precision", "recall"):
        table.add_column(key.upper() if len(key) == 2 else key)
    table.add_row(
        f"{counts.tp:g}",
        f"{counts.fp:g}",
        f"{counts.p:g}",
        f"{counts.n:g}",
        f"{counts.precision:.4f}",
        f"{counts.recall:.4f}",
    )
    Console(highlight=False, markup=False, emoji=False).print(table)
