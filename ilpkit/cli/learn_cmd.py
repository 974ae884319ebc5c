"""``ilpkit learn``, ``ilpkit predict`` and ``ilpkit explain``."""

from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Final

import numpy as np
import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

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
from ilpkit.core.config import DataFormat
from ilpkit.core.errors import BiasError, ConfigError
from ilpkit.core.learner import LearnContext, Model, Rule, load_model, save_model
from ilpkit.core.outpaths import check_output_file
from ilpkit.core.search import Evaluated
from ilpkit.core.task import POS, Task

# Aleph's evalfn and search settings -> ilpkit's plugins, used when no --scorer/--search given.
EVALFN_SCORERS: Final = {
    "coverage": "coverage",
    "compression": "compression",
    "laplace": "laplace",
    "mestimate": "mestimate",
    "auto_m": "mestimate",
    "accuracy": "precision",  # Aleph's "accuracy" is P/(P+N) of the clause: precision
    "precision": "precision",
    "recall": "recall",
    "f": "f1",
    "wracc": "wracc",
}
SEARCH_PLUGINS: Final = {"bf": "bf", "heuristic": "topdown", "rls": "rrr", "ar": "topdown"}
SECTIONS: Final = ("", "backend", "search", "scorer", "learner", "executor")


def default_scorer(task: Task) -> str:
    evalfn = str(task.bias.settings["evalfn"])
    if evalfn not in EVALFN_SCORERS:
        raise ConfigError(
            f"the data sets evalfn={evalfn}, which ilpkit has no scorer for; pass --scorer NAME"
        )
    return EVALFN_SCORERS[evalfn]


def default_search(task: Task) -> str:
    search = str(task.bias.settings["search"])
    if search not in SEARCH_PLUGINS:
        raise ConfigError(
            f"the data sets search={search}, which ilpkit has no search for; pass --search NAME"
        )
    return SEARCH_PLUGINS[search]


class LiveProgress:
    """A rich status line: clauses evaluated, best score so far, rules kept."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.evaluated = 0
        self.best: float | None = None
        self.rules = 0
        self.steps = ""
        self._progress: Progress | None = None
        self._task_id: Any = None
        self._last = 0.0

    def __enter__(self) -> LiveProgress:
        if self.enabled:
            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._progress.__enter__()
            self._task_id = self._progress.add_task("starting", total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)

    def observe(self, e: Evaluated) -> None:
        self.evaluated += 1
        if self.best is None or e.score > self.best:
            self.best = e.score
        now = time.monotonic()
        if self._progress is not None and now - self._last > 0.1:
            self._last = now
            self._update()

    def rule(self, e: Evaluated) -> None:
        self.rules += 1
        self.best = None
        self._update()

    def step(self, done: int, total: int, what: str) -> None:
        self.steps = f"{what} {done}/{total}  "
        self._update()

    def _update(self) -> None:
        if self._progress is None:
            return
        best = "-" if self.best is None else f"{self.best:.4g}"
        self._progress.update(
            self._task_id,
            description=f"{self.steps}clauses evaluated {self.evaluated:,}  best score {best}  "
            f"rules {self.rules}",
        )


def learn(
    path: PathArg,
    learner: Annotated[str, typer.Option("--learner", "-l", help="Learner plugin.")] = "theory",
    search: Annotated[
        str | None,
        typer.Option("--search", help="Search plugin (default: from the data's search setting)."),
    ] = None,
    scorer: Annotated[
        str | None,
        typer.Option("--scorer", help="Scorer plugin (default: from the data's evalfn)."),
    ] = None,
    backend: BackendOpt = "native",
    sets: SetOpt = None,
    seed: Annotated[int, typer.Option(help="Random seed (same seed, same model).")] = 0,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the model (JSON).")] = None,
    fmt: FormatOpt = DataFormat.AUTO,
    stem: StemOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no tables.")] = False,
    trust_data: TrustOpt = False,
    executor: Annotated[
        str | None,
        typer.Option(
            help="Run the learner's independent units (Gleaner seeds, ensemble members) on "
            "this executor: processes or dask (default: in this process)."
        ),
    ] = None,
) -> None:
    """Learn a model. ``--set KEY=VALUE`` overrides the data's Aleph settings
    (clauselength, nodes, i, minpos, ...); ``--set learner.KEY=VALUE`` (and search., scorer.,
    backend., executor.) sets plugin options."""
    from ilpkit.core.plugins import get_plugin_manager

    if out is not None:
        check_output_file(out)  # before any work, not a traceback after it
    task = load(path, fmt, stem)
    options = split_sets(sets, SECTIONS)
    for key, value in options[""].items():
        try:
            task.bias.settings.set_value(key, value)
        except BiasError as exc:
            raise ConfigError(f"--set {key}={value}: {exc}") from None
    manager = get_plugin_manager()
    learner_obj = manager.make("learner", learner, options["learner"])
    search_name = search or learner_default(learner_obj, "search") or default_search(task)
    scorer_name = scorer or learner_default(learner_obj, "scorer") or default_scorer(task)
    scorer_obj = manager.make("scorer", scorer_name, options["scorer"])
    manager.validate_options("search", search_name, options["search"])
    started = time.perf_counter()
    with (
        open_backend(backend, options["backend"], task, trust_data=trust_data) as engine,
        LiveProgress(not quiet and sys.stderr.isatty()) as progress,
    ):
        ctx = LearnContext(
            backend=engine,
            make_search=lambda: manager.make("search", search_name, options["search"]),
            scorer=scorer_obj,
            settings=task.bias.settings,
            seed=seed,
            observers=[progress.observe],
            on_rule=progress.rule,
            on_progress=progress.step,
        )
        if executor is not None:
            ctx.executor = manager.make("executor", executor, options["executor"])
            ctx.recipe = _recipe(path, fmt, stem, options, backend, search_name, scorer_name,
                                 trust_data)  # fmt: skip
        try:
            model = learner_obj.fit(task, ctx)
        finally:
            if ctx.executor is not None:
                ctx.executor.close()
    elapsed = time.perf_counter() - started
    info = getattr(model, "info", None)
    if isinstance(info, dict):
        info.update(
            {
                "data": str(path),
                "backend": backend,
                "search": search_name,
                "scorer": scorer_name,
                "settings": {k: _plain(v) for k, v in task.bias.settings.items()},
            }
        )
    if out is not None:
        save_model(model, out)
    if quiet:
        return
    console = Console(highlight=False)
    print_rules(console, model.rules(), title=f"{learner} model of {path}")
    console.print(
        f"{len(model.rules())} rules, {model.clauses_evaluated:,} clauses evaluated, "
        f"{elapsed:.2f} s (learner {learner}, search {search_name}, scorer {scorer_name}, "
        f"backend {backend}, seed {seed})"
    )
    if out is not None:
        console.print(f"model written to {out}")


def learner_default(learner: Any, kind: str) -> str | None:
    """The search or scorer a learner's method prescribes (Gleaner: rrr with pr; boosting:
    hillclimb), if any; otherwise the data's own settings choose."""
    value = getattr(learner, f"default_{kind}", None)
    return value if isinstance(value, str) else None


def _recipe(
    path: str,
    fmt: DataFormat,
    stem: str | None,
    options: dict[str, dict[str, Any]],
    backend: str,
    search: str,
    scorer: str,
    trust_data: bool,
) -> Any:
    """How a worker process rebuilds this run's task and backend."""
    from ilpkit.core.config import RunConfig
    from ilpkit.datasets import resolve_data_path

    backend_options = {**options["backend"], **({"trust_data": True} if trust_data else {})}
    return RunConfig.model_validate(
        {
            "data": {
                "path": str(resolve_data_path(path).resolve()),
                "format": fmt.value,
                "stem": stem,
            },
            "backend": {"name": backend, "options": backend_options},
            "search": {"name": search, "options": options["search"]},
            "scorer": {"name": scorer, "options": options["scorer"]},
            "settings": options[""],
        }
    )


def _plain(value: object) -> object:
    if isinstance(value, float) and value == float("inf"):
        return "inf"
    return value if isinstance(value, (int, float, str, bool)) else str(value)


def print_rules(console: Console, rules: list[Rule], *, title: str) -> None:
    table = Table(title=title, show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("rule", overflow="fold")
    table.add_column("TP", justify="right")
    table.add_column("FP", justify="right")
    table.add_column("precision", justify="right")
    table.add_column("recall", justify="right")
    for i, r in enumerate(rules, 1):
        table.add_row(
            str(i), str(r.clause), f"{r.tp:g}", f"{r.fp:g}", f"{r.precision:.3f}", f"{r.recall:.3f}"
        )
    console.print(table)


def predict(
    model_path: Annotated[Path, typer.Argument(help="Model JSON written by `ilpkit learn`.")],
    path: PathArg,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write id,example,label,fold,score CSV.")
    ] = None,
    backend: BackendOpt = "native",
    sets: SetOpt = None,
    fmt: FormatOpt = DataFormat.AUTO,
    stem: StemOpt = None,
    trust_data: TrustOpt = False,
) -> None:
    """Score every example of a dataset with a saved model."""
    from ilpkit.core.metrics import auroc, aurpc, pr_points_from_scores

    if out is not None:
        check_output_file(out, example="scores.csv")
    model: Model = load_model(model_path)
    task = load(path, fmt, stem)
    options = split_sets(sets, ("backend",))
    with open_backend(backend, options["backend"], task, trust_data=trust_data) as engine:
        scores = model.score(engine)
    labels = task.examples.labels
    rows = [
        (i, str(atom), int(labels[i]), _fold(task, i), float(scores[i]))
        for i, atom in enumerate(task.examples.atoms)
    ]
    if out is not None:
        with open(out, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "example", "label", "fold", "score"])
            writer.writerows(rows)
    else:
        writer = csv.writer(sys.stdout)
        writer.writerow(["id", "example", "label", "fold", "score"])
        writer.writerows(rows)
    labelled = labels >= 0
    y = (labels[labelled] == POS).astype(np.int8)
    if 0 < y.sum() < len(y):
        s = scores[labelled]
        area = aurpc(pr_points_from_scores(s, y))
        typer.echo(
            f"{len(y)} labelled examples: AUROC {auroc(s, y):.4f}, AURPC {area:.4f}", err=True
        )


def _fold(task: Task, i: int) -> str:
    f = int(task.examples.folds[i])
    return task.fold_names[f] if f >= 0 else ""


def explain(
    model_path: Annotated[Path, typer.Argument(help="Model JSON written by `ilpkit learn`.")],
    path: Annotated[
        str | None,
        typer.Argument(help="Optional dataset: recompute each rule's counts on it."),
    ] = None,
    backend: BackendOpt = "native",
    fmt: FormatOpt = DataFormat.AUTO,
    stem: StemOpt = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    trust_data: TrustOpt = False,
) -> None:
    """Show a model's rules with their precision, recall and coverage counts."""
    from ilpkit.core.learner import rule_stats

    model = load_model(model_path)
    rules = model.rules()
    title = f"{model.learner} model {model_path} (training counts)"
    ensemble_table = getattr(model, "explain_table", None)
    if ensemble_table is not None and path is None and not json_output:
        # an ensemble that explains itself (boosting: weak hypotheses ordered by alpha)
        console = Console(highlight=False)
        console.print(ensemble_table(title))
        console.print(f"{model.clauses_evaluated:,} clauses evaluated in training")
        return
    if path is not None:
        task = load(path, fmt, stem)
        with open_backend(backend, {}, task, trust_data=trust_data) as engine:
            rules = rule_stats(task, engine, [r.clause for r in rules], task.examples.ids)
        title = f"{model.learner} model {model_path} on {path}"
    if json_output:
        typer.echo(json.dumps([r.to_json() for r in rules], indent=2))
        return
    console = Console(highlight=False)
    print_rules(console, rules, title=title)
    noun = "rule" if len(rules) == 1 else "rules"
    console.print(f"{len(rules)} {noun}; {model.clauses_evaluated:,} clauses evaluated in training")
