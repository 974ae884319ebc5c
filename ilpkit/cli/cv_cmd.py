"""``ilpkit cv``, ``ilpkit run`` and ``ilpkit report``: experiments and their run directories."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ilpkit.cli.common import (
    CombinerOpt,
    FormatOpt,
    LearnerOpt,
    SetOpt,
    StemOpt,
    TrustOpt,
    limit_notes,
    print_bias_warnings,
    split_sets,
)
from ilpkit.cli.plain_progress import PlainLines, eta
from ilpkit.core.outpaths import check_output_dir
from ilpkit.errors import ConfigError
from ilpkit.experiment.data_format import DataFormat

if TYPE_CHECKING:
    from rich.progress import Progress

    from ilpkit.experiment.config import RunConfig

SECTIONS = ("", "data", "backend", "search", "scorer", "learner", "combiner", "executor")


class UnitProgress:
    """A rich bar over units, and one over the steps (seeds, theories, rounds) of the unit
    running in this process; each finished unit prints its fold, AURPC and clauses."""

    def __init__(self, enabled: bool, terminal: bool = True) -> None:
        from rich.console import Console

        self.console = Console(stderr=True, highlight=False, markup=False, emoji=False)
        self.enabled = enabled and terminal
        self.plain = PlainLines("cv") if enabled and not terminal else None
        """Outside a terminal: a line per finished unit and rate-limited step lines."""
        self._progress: Progress | None = None
        self._task: Any = None
        self._steps: Any = None
        self._started = time.monotonic()
        self._done_before = 0

    def __enter__(self) -> UnitProgress:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        if self.enabled:
            self._progress = Progress(
                TextColumn("{task.description:>14}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.console,
            )
            self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)

    def plan(self, total: int, done: int) -> None:
        self._started = time.monotonic()
        self._done_before = done
        if self._progress is not None:
            self._task = self._progress.add_task("units", total=total, completed=done)
        if done and self.enabled:
            self.console.print(f"resuming: {done} of {total} units already finished")
        if self.plain is not None:
            resumed = f" ({done} already finished)" if done else ""
            self.plain.line(f"{total} units{resumed}", force=True)

    def step(self, key: str, done: int, total: int, what: str) -> None:
        if self.plain is not None:
            self.plain.line(f"{key} {what} {done}/{total}")
        if self._progress is None:
            return
        label = f"{key} {what}"
        if self._steps is None:
            self._steps = self._progress.add_task(label, total=total, completed=done)
        self._progress.update(self._steps, description=label, total=total, completed=done)

    def unit(self, result: Any, finished: int, total: int) -> None:
        if self.plain is not None:
            aurpc = result.metrics.get("aurpc", float("nan"))
            left = eta(self._started, finished - self._done_before, total - finished)
            self.plain.line(
                f"unit {finished}/{total} {result.key} ({result.fold_name}): AURPC {aurpc:.4f}, "
                f"{result.clauses_evaluated:,} clauses, {result.seconds:.1f} s; {left}",
                force=True,
            )
        if self._progress is not None:
            self._progress.update(self._task, completed=finished)
            if self._steps is not None and finished == total:
                self._progress.remove_task(self._steps)
                self._steps = None
            elif self._steps is not None:
                self._progress.update(self._steps, completed=0)
            aurpc = result.metrics.get("aurpc", float("nan"))
            empty = ", the theory is empty" if result.n_rules == 0 else ""
            self._progress.console.print(
                f"{result.key} ({result.fold_name}): AURPC {aurpc:.4f}, "
                f"{result.clauses_evaluated:,} clauses, {result.seconds:.1f} s{empty}"
            )


def cv(
    path: Annotated[
        str | None,
        typer.Argument(help="Dataset folder, file stem or bundled dataset name."),
    ] = None,
    learner: LearnerOpt = "auto",
    search: Annotated[
        str | None,
        typer.Option(
            help="Search plugin (default: the learner's own, else the data's search setting)."
        ),
    ] = None,
    scorer: Annotated[
        str | None,
        typer.Option(help="Scorer plugin (default: the learner's own, else the data's evalfn)."),
    ] = None,
    combiner: CombinerOpt = None,
    backend: Annotated[str, typer.Option("--backend", "-b", help="Backend plugin.")] = "native",
    executor: Annotated[
        str, typer.Option(help="Executor plugin: local, processes or dask.")
    ] = "local",
    parallel: Annotated[
        str,
        typer.Option(
            help="What the executor's workers run: folds, members (Gleaner seeds, ensemble "
            "theories; folds one after another) or auto (members when the learner has them)."
        ),
    ] = "auto",
    folds: Annotated[
        int | None,
        typer.Option(help="Stratified folds drawn with the seed (default: the data's folds)."),
    ] = None,
    tune_folds: Annotated[int, typer.Option(help="Folds with the tune role per unit.")] = 0,
    repeats: Annotated[int, typer.Option(help="Repetitions with different seeds.")] = 1,
    pu_label_frequency: Annotated[
        float | None,
        typer.Option(
            help="PU data: keep each training positive labeled with this probability c; "
            "the other training examples become unlabeled (test folds keep true labels)."
        ),
    ] = None,
    pu_labelings: Annotated[
        int | None,
        typer.Option(help="PU labelings drawn (one per repeat; sets --repeats)."),
    ] = None,
    curve: Annotated[
        str | None,
        typer.Option(help="Learning-curve clause budgets, comma-separated (100,1000,10000)."),
    ] = None,
    sets: SetOpt = None,
    seed: Annotated[int, typer.Option(help="Seed of the whole experiment.")] = 0,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory to create.")
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            help="Continue the interrupted run in this directory (other options: "
            "as saved in its config.toml). Trust is not: a run made with --trust-data "
            "resumes only with --trust-data given again, else it is refused."
        ),
    ] = None,
    fmt: FormatOpt = DataFormat.AUTO,
    stem: StemOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no tables.")] = False,
    trust_data: TrustOpt = False,
    time_limit: Annotated[
        float | None,
        typer.Option(
            "--time-limit",
            help="Cut every search of the run after this many seconds (on worker processes "
            "and dask workers too): the units then finish at once with what they found, and "
            "results.json says so.",
        ),
    ] = None,
) -> None:
    """Cross-validate a learner: every fold (and repeat) is a unit of work; the run directory
    gets config.toml, per-unit results and models, results.json, report.md and plots.
    ``--set KEY=VALUE`` overrides Aleph settings; ``--set learner.KEY=VALUE`` (search.,
    scorer., combiner., backend., executor.) sets plugin options."""

    def from_options() -> RunConfig:
        return _config_from_options(
            path,
            learner=learner,
            search=search,
            scorer=scorer,
            combiner=combiner,
            backend=backend,
            executor=executor,
            folds=folds,
            tune_folds=tune_folds,
            repeats=repeats,
            curve=curve,
            sets=sets,
            seed=seed,
            fmt=fmt,
            stem=stem,
            parallel=parallel,
            pu_label_frequency=pu_label_frequency,
            pu_labelings=pu_labelings,
        )

    if resume is not None:
        from ilpkit.experiment.runs import (
            RunDirectory,
            check_recorded_trust,
            trusts_data,
            without_trust,
        )

        run_dir = RunDirectory(resume)
        recorded = run_dir.config()
        # trust comes from this command line, never from the run's config.toml
        config = from_options() if path is not None or sets else without_trust(recorded)
        trusted = trust_data or trusts_data(config)
        check_recorded_trust(recorded, run_dir.config_file, trusted=trusted)
        _run(config, resume, resume=True, quiet=quiet, trust_data=trust_data, limit=time_limit)
        return
    if path is None:
        raise ConfigError("give a dataset PATH (or --resume RUN_DIR)")
    if out is None:
        raise ConfigError("give the run directory to create with --out RUN_DIR")
    check_output_dir(out)  # before the data is read (run_experiment checks again)
    _run(from_options(), out, resume=False, quiet=quiet, trust_data=trust_data, limit=time_limit)


def run(
    config_file: Annotated[Path, typer.Argument(help="A TOML run configuration.")],
    sets: Annotated[
        list[str] | None,
        typer.Option("--set", help="Override any key: --set cv.folds=5, --set learner=theory."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory (default: output key).")
    ] = None,
    resume: Annotated[bool, typer.Option(help="Continue a run in the output directory.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
    trust_data: TrustOpt = False,
) -> None:
    """Run the experiment a TOML file describes (see `ilpkit cv` for what is written).

    A file cannot trust the data: one recording `trust_data = true` (a run's config.toml
    made with --trust-data) is refused unless --trust-data is given here."""
    from ilpkit.experiment.config import apply_overrides, load_config
    from ilpkit.experiment.runs import check_recorded_trust, trusts_data, without_trust

    recorded = load_config(config_file)
    config = without_trust(recorded)
    if sets:
        config = apply_overrides(config, sets)
    check_recorded_trust(recorded, config_file, trusted=trust_data or trusts_data(config))
    target = out or config.output
    if target is None:
        raise ConfigError(f"{config_file}: no output directory (set output or pass --out)")
    _run(config, target, resume=resume, quiet=quiet, trust_data=trust_data)


def report(
    runs: Annotated[list[Path], typer.Argument(help="Run directories (the first is the base).")],
    metric: Annotated[str, typer.Option(help="Metric of the paired t-tests.")] = "aurpc",
    plot: Annotated[
        Path | None,
        typer.Option(help="Also draw every run's mean learning curve into this PNG/SVG file."),
    ] = None,
) -> None:
    """Compare runs in one table; later runs are t-tested against the first on shared units.
    Also rewrites each run's report.md and plots."""
    from ilpkit.experiment.report import compare_runs, plot_run_curves, write_report
    from ilpkit.experiment.runlock import RunLock
    from ilpkit.experiment.runs import RunDirectory

    dirs = [RunDirectory(p) for p in runs]
    for d in dirs:
        results = d.results()  # first: no directory is made for a path that holds no run
        with RunLock(d.path):  # not while a run writes there
            write_report(d, results)
    if plot is not None:
        if not plot_run_curves(dirs, plot, metric=metric):
            raise ConfigError("--plot needs matplotlib: pip install 'ilpkit[plots]'")
        typer.echo(f"learning curves written to {plot}", err=True)
    typer.echo(compare_runs(dirs, metric=metric))


def _config_from_options(
    path: str | None,
    *,
    learner: str,
    search: str | None,
    scorer: str | None,
    backend: str,
    executor: str,
    folds: int | None,
    tune_folds: int,
    repeats: int,
    curve: str | None,
    sets: list[str] | None,
    seed: int,
    fmt: str,
    stem: str | None,
    parallel: str = "auto",
    pu_label_frequency: float | None = None,
    pu_labelings: int | None = None,
    combiner: str | None = None,
) -> RunConfig:
    from ilpkit.experiment.compose import run_config

    if path is None:
        raise ConfigError("give a dataset PATH")
    options = split_sets(sets, SECTIONS)
    budgets: list[int] = []
    if curve:
        try:
            budgets = [int(x) for x in curve.split(",") if x.strip()]
        except ValueError:
            raise ConfigError(f"--curve {curve!r}: expected integers like 100,1000") from None
    settings = options.pop("")
    return run_config(
        path,
        learner=learner,
        search=search,
        scorer=scorer,
        combiner=combiner,
        backend=backend,
        executor=executor,
        options=options,
        settings=settings,
        seed=seed,
        data_format=str(fmt),
        stem=stem,
        cv={
            "folds": folds,
            "tune_folds": tune_folds,
            "repeats": repeats,
            "curve": budgets,
            "parallel": parallel,
            "pu_label_frequency": pu_label_frequency,
            "pu_labelings": pu_labelings,
        },
    )


def _run(
    config: RunConfig,
    out: Path,
    *,
    resume: bool,
    quiet: bool,
    trust_data: bool = False,
    limit: float | None = None,
) -> None:
    from rich.console import Console

    from ilpkit.core.bias_check import reporting_bias
    from ilpkit.experiment.config import apply_overrides
    from ilpkit.experiment.report import degenerate_notes
    from ilpkit.experiment.runs import run_experiment

    if trust_data:  # kept in the run's config.toml; resuming needs --trust-data again
        config = apply_overrides(config, ["backend.trust_data=true"], where="--trust-data")
    from ilpkit.core.search import time_limit

    with (
        reporting_bias(print_bias_warnings),
        UnitProgress(not quiet, sys.stderr.isatty()) as progress,
        time_limit(limit) as cut,
    ):
        results = run_experiment(
            config,
            out,
            resume=resume,
            on_unit=progress.unit,
            on_plan=progress.plan,
            on_step=progress.step,
        )
    if cut is not None and cut.reached:
        _mark_time_limit(Path(out), cut.seconds)
    for note in degenerate_notes(results):
        typer.secho(f"warning: {note}", fg=typer.colors.YELLOW, err=True)
    if quiet:
        return
    from ilpkit.experiment.report import summary_cell

    console = Console(highlight=False, markup=False, emoji=False)
    summary = results["summary"]
    cells = ", ".join(f"{k} {summary_cell(v)}" for k, v in summary.items())
    console.print(f"{results['n_units']} units: {cells}")
    limits, dropped = results.get("limits_exceeded", 0), results.get("goals_dropped", 0)
    for note in limit_notes(limits, dropped, results=True):
        console.print(note)
    plots = Path(out) / "plots"
    shown = "plots/" if plots.is_dir() and any(plots.iterdir()) else "no plots: no matplotlib"
    console.print(f"run directory: {out} (report.md, results.json, {shown})")


def _mark_time_limit(out: Path, seconds: float) -> None:
    """Say in results.json, and on stderr, that searches were cut by ``--time-limit``."""
    note = (
        f"searches were cut after the time limit of {seconds:g} s: units that ran past it hold "
        "what their searches had found by then"
    )
    results_file = out / "results.json"
    if results_file.is_file():
        data = json.loads(results_file.read_text(encoding="utf-8"))
        data["time_limit_reached"] = note
        results_file.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    typer.secho(f"warning: {note}", fg=typer.colors.YELLOW, err=True)
