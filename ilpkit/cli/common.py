"""Options and helpers shared by the commands that read data and evaluate clauses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from ilpkit.datasets import resolve_data_path
from ilpkit.errors import ConfigError

if TYPE_CHECKING:
    from ilpkit.core.task import Task  # numpy: not for --help

PathArg = Annotated[
    str,
    typer.Argument(
        help="Dataset folder, file stem (data/train) or the name of a bundled dataset "
        "(see `ilpkit datasets list`)."
    ),
]
FormatOpt = Annotated[
    str,
    typer.Option(
        "--format",
        "-f",
        help="Dataset format: auto (detect it from the files), aleph, boostsrl, popper or an "
        "installed format plugin.",
    ),
]
StemOpt = Annotated[
    str | None,
    typer.Option(help="Which task to read from a folder holding several (e.g. advisedby)."),
]
BackendOpt = Annotated[str, typer.Option("--backend", "-b", help="Backend plugin name.")]
LearnerOpt = Annotated[
    str,
    typer.Option(
        "--learner",
        "-l",
        help="Learner plugin (default: aleph-tree when the data asks for Aleph's trees: "
        "evalfn entropy or gini, or tree_type and dependent set; else theory).",
    ),
]
CombinerOpt = Annotated[
    str | None,
    typer.Option(
        "--combiner",
        help="Combiner plugin for a pool learner's clauses (gleaner, aleph-ensemble, "
        "single-theory, static-rf, pool): vote, weighted, gleaner, rankboost, svm, forest, "
        "logistic (default: the learner's own combination).",
    ),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="KEY=VALUE option; backend.KEY sets a backend option (repeatable).",
    ),
]
TrustOpt = Annotated[
    bool,
    typer.Option(
        "--trust-data",
        help="Trust the data files: let Prolog engines run their directives and built-ins "
        "outside the side-effect-free allow-list (arbitrary code; see docs/security.md), and "
        "read the files they name (includes, train_pos/test_pos settings, links) outside the "
        "data folder. Never taken from a run's config.toml: give it again to resume.",
    ),
]


def load(path: str, fmt: str, stem: str | None, *, trust_data: bool = False) -> Task:
    from ilpkit.core.formats import load_task

    extra = {"trust_data": True} if trust_data else {}  # loaders swapped in by tests
    return load_task(resolve_data_path(path), format=str(fmt), stem=stem, **extra)


def split_sets(items: list[str] | None, sections: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """``--set`` items grouped by section: ``backend.step_limit=5`` goes to ``backend``,
    a plain ``KEY=VALUE`` to ``""`` (when ``""`` is one of ``sections``)."""
    from ilpkit.experiment.config import parse_value  # pydantic: not for --help

    out: dict[str, dict[str, Any]] = {s: {} for s in sections}
    for item in items or []:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE, e.g. --set backend.timeout=5")
        head, _, rest = key.partition(".")
        if rest and head in out:
            out[head][rest] = parse_value(text.strip())
        elif not rest and "" in out:
            out[""][key] = parse_value(text.strip())
        else:
            known = ", ".join(f"{s}.KEY" if s else "KEY" for s in sections)
            raise ConfigError(f"--set {item!r}: expected {known}")
    return out


def open_backend(
    name: str, options: dict[str, Any], task: Task, *, trust_data: bool = False
) -> Any:
    """Build backend ``name`` with validated options and load ``task`` into it
    (``trust_data`` is ``--trust-data``: the backend then skips the data safety check)."""
    from ilpkit.experiment.compose import open_named_backend

    return open_named_backend(name, options, task, trust_data=trust_data)


def print_bias_warnings(warnings: list[str]) -> None:
    """Print :func:`ilpkit.core.bias_check.bias_warnings` to stderr (learn/cv, at the start)."""
    for item in warnings:
        typer.echo(f"warning: {item}", err=True)


def limit_notes(limits: int, dropped: int, *, results: bool = False) -> list[str]:
    """What a run's resource limits did (issue 20): clauses skipped, saturation goals dropped;
    ``results``: name the results.json fields too (cv)."""
    notes = []
    if limits:
        field = "; results.json limits_exceeded" if results else ""
        notes.append(
            f"{limits:,} {'clause' if limits == 1 else 'clauses'} exceeded a resource limit and "
            f"{'was' if limits == 1 else 'were'} scored as covering nothing (see "
            f"backend.step_limit / backend.timeout{field})"
        )
    if dropped:
        field = " (results.json goals_dropped)" if results else ""
        notes.append(
            f"{dropped:,} saturation {'goal' if dropped == 1 else 'goals'} over a resource limit "
            f"dropped from bottom clauses{field}"
        )
    return notes
