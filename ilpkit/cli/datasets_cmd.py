"""``ilpkit datasets``: the small datasets shipped with ilpkit, and ``synth``, a generator of
large skewed ones."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ilpkit.datasets import BUNDLED, bundled_path
from ilpkit.errors import ConfigError

app = typer.Typer(help="Bundled datasets and the synthetic task generator.", no_args_is_help=True)


@app.command("list")
def list_() -> None:
    """List the bundled datasets."""
    from rich.console import Console
    from rich.table import Table

    table = Table("name", "description", "path")
    for name, doc in BUNDLED.items():
        table.add_row(name, doc, str(bundled_path(name)))
    Console(markup=False, emoji=False).print(table)


@app.command("path")
def path(name: Annotated[str, typer.Argument(help="Bundled dataset name.")]) -> None:
    """Print the folder of a bundled dataset (to pass to other commands)."""
    typer.echo(str(bundled_path(name)))


@app.command("synth")
def synth(
    out_dir: Annotated[Path, typer.Argument(help="Folder to create for the generated task.")],
    examples: Annotated[int, typer.Option(help="Examples (phrase pairs) in total.")] = 20_000,
    skew: Annotated[float, typer.Option(help="Negatives per positive.")] = 150.0,
    noise: Annotated[
        float, typer.Option(help="Label noise: share of positives no planted rule covers.")
    ] = 0.0,
    seed: Annotated[int, typer.Option(help="Seed: the same seed writes the same bytes.")] = 0,
    facts_scale: Annotated[
        float,
        typer.Option(help="Density of word annotations (1.0: about 18 facts per example)."),
    ] = 1.0,
    phrases: Annotated[float, typer.Option(help="Mean phrases per sentence.")] = 10.0,
    vocabulary: Annotated[int, typer.Option(help="Lemma vocabulary size.")] = 5_000,
    folds: Annotated[
        int, typer.Option(help="Write fs/f0..f{K-1} with whole sentences per fold (0: none).")
    ] = 0,
    overlap: Annotated[
        float,
        typer.Option(help="Chance that a planted pair also gets another rule's features."),
    ] = 0.0,
    stem: Annotated[str, typer.Option(help="File stem (stem.b, stem.f, stem.n).")] = "synth",
    force: Annotated[
        bool, typer.Option("--force", help="Write into an existing, non-empty OUT_DIR.")
    ] = False,
) -> None:
    """Generate a large, skewed information-extraction task with planted rules (Aleph layout).

    The .b header and synth.json list the planted rules and how many examples each covers,
    so a learner's output can be checked against them."""
    from rich.console import Console
    from rich.table import Table

    from ilpkit.datasets.synth import SynthParams, write

    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"{out_dir}: exists and is not a folder")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise ConfigError(f"{out_dir}: folder is not empty; choose another or pass --force")
    params = SynthParams(
        examples=examples,
        skew=skew,
        noise=noise,
        seed=seed,
        facts_scale=facts_scale,
        phrases=phrases,
        vocabulary=vocabulary,
        folds=folds,
        overlap=overlap,
        stem=stem,
    )
    params.check()
    console = Console(stderr=True, highlight=False, markup=False, emoji=False)
    console.print(f"generating {examples:,} examples (skew {skew:g}, noise {noise:g}) ...")
    summary = write(params, out_dir, progress=lambda msg: console.print(f"  {msg}"))
    console.print(
        f"wrote {out_dir}: {summary.positives:,} positives, {summary.negatives:,} negatives, "
        f"{summary.facts:,} background facts in {summary.seconds:.1f} s "
        f"({summary.facts / max(summary.seconds, 1e-9):,.0f} facts/s)"
    )
    table = Table("planted rule", "pos", "neg")
    for rule in [*summary.rules, summary.union]:
        table.add_row(rule.rule, f"{rule.positives:,}", f"{rule.negatives:,}")
    Console(markup=False, emoji=False).print(table)
