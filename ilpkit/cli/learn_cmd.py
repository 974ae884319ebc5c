"""``ilpkit learn``, ``ilpkit predict`` and ``ilpkit explain``."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer

from ilpkit.cli.common import (
    BackendOpt,
    CombinerOpt,
    FormatOpt,
    LearnerOpt,
    PathArg,
    SetOpt,
    StemOpt,
    TrustOpt,
    limit_notes,
    print_bias_warnings,
    split_sets,
)
from ilpkit.cli.plain_progress import PlainLines, duration
from ilpkit.cli.tables import fit_table
from ilpkit.core.outpaths import check_output_file, write_output
from ilpkit.experiment.data_format import DataFormat

if TYPE_CHECKING:  # numpy and the core modules load when a command runs, not for --help
    from rich.progress import Progress

    from ilpkit.cli.text_table import Column
    from ilpkit.core.learner import Rule
    from ilpkit.core.search import Evaluated

SECTIONS: Final = ("", "data", "backend", "search", "scorer", "learner", "combiner", "executor")


class LiveProgress:
    """A rich status line: clauses evaluated out of the most the settings allow, rate, the
    time that budget would take at that rate, best score so far, rules kept."""

    def __init__(self, enabled: bool, terminal: bool = True) -> None:
        self.enabled = enabled and terminal
        self.plain = PlainLines("progress") if enabled and not terminal else None
        """Outside a terminal: a rate-limited line per update instead of the live line."""
        self.planned: int | None = None
        self.started = time.monotonic()
        self.evaluated = 0
        self.best: float | None = None
        self.rules = 0
        self.steps = ""
        self.step_done = 0
        self.step_total = 0
        self._progress: Progress | None = None
        self._task_id: Any = None
        self._last = 0.0

    def __enter__(self) -> LiveProgress:
        if self.enabled:  # rich is imported only to be shown (issue 32: -q runs' memory)
            from rich.console import Console
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=Console(stderr=True, markup=False, emoji=False),
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
        if (self._progress is not None or self.plain is not None) and now - self._last > 0.1:
            self._last = now
            self._update()

    def rule(self, e: Evaluated) -> None:
        self.rules += 1
        self.best = None
        self._update()

    def step(self, done: int, total: int, what: str) -> None:
        self.steps = f"{what} {done}/{total}  " if total else f"{what} {done}  "
        self.step_done, self.step_total = done, total
        self._update()

    def plan(self, planned: int, warning: str | None) -> None:
        """Before learning: the most clauses the settings allow, and a warning if huge."""
        self.planned = planned
        self.started = time.monotonic()
        if warning:
            typer.secho(f"warning: {warning}", fg=typer.colors.YELLOW, err=True)

    def describe(self) -> str:
        """``positives covered 12/113  clauses 5,643 of at most 56,500,000 (0.0%), 94/s,
        about 3 min left at this pace (at most 7.0 days)``: the time left at the pace of the
        learner's own steps, and the most the settings allow at this rate; only the steps
        (``trees 12/500``) while no search has reported a clause (R4F and static-rf report
        trees and rules, not searched clauses)."""
        elapsed = max(time.monotonic() - self.started, 1e-9)
        if self.evaluated == 0 and self.steps:
            pace = self.pace_left(elapsed)
            left = f", about {duration(pace)} left at this pace" if pace is not None else ""
            return self.steps.rstrip() + left
        best = "-" if self.best is None else f"{self.best:.4g}"
        done = f"clauses {self.evaluated:,}"
        rate = self.evaluated / elapsed
        if self.planned:
            share = 100.0 * self.evaluated / self.planned
            done += f" of at most {self.planned:,} ({share:.1f}%)"
        done += f", {rate:,.0f}/s"
        pace = self.pace_left(elapsed)
        if pace is not None:
            done += f", about {duration(pace)} left at this pace"
        if self.planned and rate > 0:
            most = duration(max(self.planned - self.evaluated, 0) / rate)
            done += f" (at most {most})" if pace is not None else f", at most {most} left"
        return f"{self.steps}{done}  best score {best}  rules {self.rules}"

    def pace_left(self, elapsed: float) -> float | None:
        """The time the learner's own steps (positives covered, seeds, rounds, trees) left
        would take at the pace of those done; None before the first, in the first two
        seconds (no pace yet) or without a total."""
        if self.step_total <= 0 or self.step_done <= 0 or self.step_done >= self.step_total:
            return None
        if elapsed < 2.0:
            return None
        return elapsed * (self.step_total - self.step_done) / self.step_done

    def _update(self) -> None:
        if self.plain is not None:
            self.plain.line(self.describe())
        if self._progress is None:
            return
        self._progress.update(self._task_id, description=self.describe())


def learn(
    path: PathArg,
    learner: LearnerOpt = "auto",
    search: Annotated[
        str | None,
        typer.Option(
            "--search",
            help="Search plugin (default: the learner's own, else the data's search setting).",
        ),
    ] = None,
    scorer: Annotated[
        str | None,
        typer.Option(
            "--scorer", help="Scorer plugin (default: the learner's own, else the data's evalfn)."
        ),
    ] = None,
    combiner: CombinerOpt = None,
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
    fold: Annotated[
        str | None,
        typer.Option(
            "--fold",
            help="Hold out this fold of the data (test, fold3, or a folder of alternative "
            "splits) and report the model on it; training uses the other folds. Default: the "
            "data's test fold, if any.",
        ),
    ] = None,
    time_limit: Annotated[
        float | None,
        typer.Option(
            "--time-limit",
            help="Stop searching and saturating after this many seconds and keep what was "
            "found (the model says it was stopped); searches on worker processes are not "
            "stopped. A first Ctrl-C (SIGTERM, SIGHUP) stops the same way, writes the model "
            "and exits 130 (143, 129).",
        ),
    ] = None,
) -> None:
    """Learn a model. ``--set KEY=VALUE`` overrides the data's Aleph settings
    (clauselength, nodes, i, minpos, ...); ``--set learner.KEY=VALUE`` (and search., scorer.,
    combiner., backend., executor.) sets plugin options."""
    from ilpkit.core.bias_check import reporting_bias
    from ilpkit.core.learner import Recorded
    from ilpkit.experiment.api import learn as learn_model

    if out is not None:
        check_output_file(out)  # before any work, not a traceback after it
    options = split_sets(sets, SECTIONS)
    settings = options.pop("")
    started = time.perf_counter()
    with (
        reporting_bias(print_bias_warnings),
        LiveProgress(not quiet, sys.stderr.isatty()) as progress,
        stop_softly() as interrupted,
    ):
        model = learn_model(
            path,
            learner=learner,
            search=search,
            scorer=scorer,
            combiner=combiner,
            backend=backend,
            executor=executor,
            settings=settings,
            options=options,
            seed=seed,
            data_format=str(fmt),
            stem=stem,
            trust_data=trust_data,
            out=out,
            observers=[progress.observe],
            on_rule=progress.rule,
            on_progress=progress.step,
            time_limit=time_limit,
            on_plan=progress.plan,
            fold=fold,
        )
    elapsed = time.perf_counter() - started
    if interrupted and isinstance(model, Recorded):
        model.info["interrupted"] = interrupted_note(interrupted[0])
        if out is not None:  # learn_model wrote it before it returned: again, marked
            from ilpkit.core.model_files import save_model

            save_model(model, out)
    try:
        used = model.learner if learner == "auto" else learner  # auto: the data's choice
        _report_learnt(model, path, used, search, scorer, backend, seed, out, elapsed, quiet)
    finally:
        if interrupted:
            kept = f"; written to {out}" if out is not None else " (not saved: no --out)"
            typer.echo(f"interrupted: {interrupted_note(interrupted[0])}{kept}", err=True)
    if interrupted:
        raise typer.Exit(128 + interrupted[0])  # 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP


INTERRUPTED: Final = (
    "stopped by Ctrl-C: the model holds the rules found by then (the search under way kept "
    "its best clause)"
)
"""What learn says (and records in the model's info) when the first Ctrl-C stopped it."""


def signal_name(signum: int) -> str:
    """``Ctrl-C`` for SIGINT, else the signal's name (``SIGTERM``, ``SIGHUP``)."""
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


def interrupted_note(signum: int) -> str:
    """What learn says (and records in the model's info) when signal ``signum`` stopped it:
    :data:`INTERRUPTED` for Ctrl-C, the same naming SIGTERM or SIGHUP."""
    return INTERRUPTED.replace("Ctrl-C", signal_name(signum), 1)


SOFT_SIGNALS: Final = tuple(
    getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)
)
"""The signals the first of which makes learn stop softly: Ctrl-C, and the SIGTERM that
batch schedulers (slurm at a job's time limit, ``kill``) and SIGHUP that a closed terminal
send."""


@contextmanager
def stop_softly() -> Iterator[list[int]]:
    """Within: the first Ctrl-C, SIGTERM or SIGHUP stops every search as at a time limit
    (each keeps its best clause) so that learn can write the model found so far, then exit
    128 + the signal's number (130, 143, 129); a second signal of any of these interrupts at
    once, as everywhere (:mod:`ilpkit.core.lifecycle`). Yields a list that holds the first
    signal's number once it came. Only in the main thread, and not for a signal that is
    ignored (Ctrl-C in a background job, SIGHUP under ``nohup``)."""
    from ilpkit.core.lifecycle import Terminated
    from ilpkit.core.timelimit import clear_stop, request_stop

    seen: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield seen
        return
    previous = {s: signal.getsignal(s) for s in SOFT_SIGNALS}
    handled = [s for s, h in previous.items() if h is not signal.SIG_IGN and h is not None]

    def restore() -> None:
        for s in handled:
            if signal.getsignal(s) is on_signal:
                signal.signal(s, previous[s])

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if seen:  # the second: as without this handler
            restore()
            before = previous[signum]
            if callable(before):
                before(signum, frame)  # lifecycle's: raises KeyboardInterrupt or Terminated
            elif before == signal.SIG_DFL and signum != signal.SIGINT:
                os.kill(os.getpid(), signum)  # the default action: end now
            raise KeyboardInterrupt if signum == signal.SIGINT else Terminated(signum)
        seen.append(signum)
        name = signal_name(signum)
        request_stop(name)
        on = "" if signum == signal.SIGINT else f" on {name}"
        again = "Ctrl-C again" if signum == signal.SIGINT else "a second signal"
        typer.echo(
            f"stopping{on}: the search under way keeps its best clause and the model found so "
            f"far is kept ({again} stops at once, losing it)",
            err=True,
        )

    for s in handled:
        signal.signal(s, on_signal)
    try:
        yield seen
    finally:
        clear_stop()
        restore()


def _report_learnt(
    model: Any,
    path: str,
    learner: str,
    search: str | None,
    scorer: str | None,
    backend: str,
    seed: int,
    out: Path | None,
    elapsed: float,
    quiet: bool,
) -> None:
    """What learn prints once the model is learnt: warnings, then (unless quiet) the rules
    and a summary."""
    from ilpkit.core.learner import Recorded

    stopped = isinstance(model, Recorded) and model.info.get("time_limit_reached")
    if stopped:
        typer.secho(f"warning: {stopped}", fg=typer.colors.YELLOW, err=True)
    data = model.to_json()
    warn_degenerate(model.rules(), data.get("info"), rounds="hypotheses" in data)
    if quiet:
        return
    from ilpkit.cli.text_table import terminal_width  # not for -q (nor for --help)

    used = model.info if isinstance(model, Recorded) else {}
    width = terminal_width()
    print_rules(model.rules(), title=f"{learner} model of {path}", width=width)
    print_evaluation(used.get("evaluation") or [], width=width)
    n_rules = len(model.rules())
    say(
        f"{n_rules} {'rule' if n_rules == 1 else 'rules'}, "
        f"{model.clauses_evaluated:,} clauses evaluated, "
        f"{elapsed:.2f} s (learner {learner}, search {used.get('search', search)}, "
        f"scorer {used.get('scorer', scorer)}, backend {backend}, seed {seed})",
        width,
    )
    for note in limit_notes(used.get("limits_exceeded", 0), used.get("goals_dropped", 0)):
        say(note, width)
    if out is not None:
        say(f"model written to {out}", width)


def print_rules(rules: list[Rule], *, title: str, width: int) -> None:
    """The rules with their training counts, precision and recall."""
    from ilpkit.cli.text_table import Column

    columns = [Column("#", right=True), Column("rule")]
    columns += [Column(name, right=True) for name in ("TP", "FP", "precision", "recall")]
    rows = [
        [str(i), str(r.clause), f"{r.tp:g}", f"{r.fp:g}", f"{r.precision:.3f}", f"{r.recall:.3f}"]
        for i, r in enumerate(rules, 1)
    ]
    _echo_table(title, columns, rows, width, boxed=True)


def print_evaluation(rows: list[dict[str, Any]], *, width: int) -> None:
    """The whole model's confusion matrix and figures per set of examples (training, test)."""
    from ilpkit.cli.text_table import Column

    if not rows:
        return
    names = ("TP", "FN", "FP", "TN", "acc.", "prec.", "recall", "F1", "AUROC", "AURPC")
    columns = [Column("examples (n)"), *(Column(name, right=True) for name in names)]

    def figure(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    cells = [
        [
            f"{row['on']} ({row['examples']})",
            *(str(row[k]) for k in ("tp", "fn", "fp", "tn")),
            *(figure(row[k]) for k in ("accuracy", "precision", "recall", "f1", "auroc", "aurpc")),
        ]
        for row in rows
    ]
    _echo_table("whole model", columns, cells, width, boxed=False)


def _echo_table(
    title: str, columns: list[Column], rows: list[list[str]], width: int, *, boxed: bool
) -> None:
    from ilpkit.cli.text_table import colour_wanted, render

    for line in render(title, columns, rows, width, boxed=boxed).lines(colour=colour_wanted()):
        typer.echo(line)


def say(text: str, width: int) -> None:
    """A line of the report, wrapped at spaces to the terminal's width."""
    from ilpkit.cli.text_table import wrap

    for line in wrap(text, width) or [""]:
        typer.echo(line)


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
    from ilpkit.experiment.api import predict as predict_scores

    if out is not None:
        check_output_file(out, example="scores.csv")
    options = split_sets(sets, ("backend",))
    result = predict_scores(
        model_path,
        path,
        backend=backend,
        backend_options=options["backend"],
        data_format=str(fmt),
        stem=stem,
        trust_data=trust_data,
    )
    rows = result.rows()
    if out is not None:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["id", "example", "label", "fold", "score"])
        writer.writerows(rows)
        write_output(out, buffer.getvalue(), what="the scores", suffix=".csv")
    else:
        writer = csv.writer(sys.stdout)
        writer.writerow(["id", "example", "label", "fold", "score"])
        writer.writerows(rows)
    for note in limit_notes(result.limits_exceeded, 0):
        typer.echo(note, err=True)
    for line in metric_lines(result):
        typer.echo(line, err=True)


def metric_lines(result: Any) -> list[str]:
    """predict's AUROC/AURPC lines: on the model's own training data, the examples it learnt
    from (in-sample) apart from those its learn run held out; elsewhere, all labelled ones."""

    def line(what: str, ids: Any = None) -> str | None:
        m = result.metrics(ids)
        if not m:
            return None
        return f"{int(m['n'])} {what}: AUROC {m['auroc']:.4f}, AURPC {m['aurpc']:.4f}"

    if result.trained is not None:
        lines = [line("labelled examples the model learnt from (in-sample)", result.trained)]
        if result.held_out is not None and len(result.held_out):
            lines.append(line("labelled examples its learn run held out", result.held_out))
        return [x for x in lines if x]
    whole = line("labelled examples")
    if whole is None:
        return []
    if not result.names_its_data:
        whole += (
            " (the model does not name the data it learnt from: if these include it, the "
            "figures are in-sample)"
        )
    return [whole]


def warn_degenerate(rules: list[Rule], info: Any = None, rounds: bool = True) -> None:
    """Name a degenerate model on stderr (learn, explain): an empty theory, rules that all
    cover every example, rules that repeat earlier ones (``rounds``: the rules are a
    sequence of rounds, as boosting's, not clauses kept by independent members, as
    Gleaner's seeds, which may well find the same clause), a model that predicts one class
    for every training example, and what the learner recorded in the model's ``info``
    (:mod:`ilpkit.core.degenerate`)."""
    from ilpkit.core.degenerate import (
        covers_everything_note,
        recorded_notes,
        repeated_rules_note,
    )
    from ilpkit.core.learner import EMPTY_THEORY

    everything = covers_everything_note(rules)
    notes = [EMPTY_THEORY] if not rules else []
    notes += [n for n in (everything, repeated_rules_note(rules) if rounds else None) if n]
    if rules and not everything:  # else the lines above already say every answer is one
        notes += [n for n in [_one_class_on_training(info)] if n]
    notes += recorded_notes(info)
    for note in notes:
        typer.secho(f"warning: {note}", fg=typer.colors.YELLOW, err=True)


def _one_class_on_training(info: Any) -> str | None:
    """The line for a model that predicts one class for every training example it learnt
    from (both classes among them), read from the whole model's counts learn records in
    ``info["evaluation"]``; None otherwise, or for a model without them (older files)."""
    from ilpkit.core.degenerate import one_class

    rows = info.get("evaluation") if isinstance(info, dict) else None
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict) or row.get("on") != "training":
            continue
        try:
            tp, fn, fp, tn = (int(row[k]) for k in ("tp", "fn", "fp", "tn"))
        except (KeyError, TypeError, ValueError):
            return None
        said = one_class(tp + fp, tp + fn + fp + tn) if tp + fn and fp + tn else None
        if said is None:
            return None
        other, count = ("negative", fp + tn) if said == "positive" else ("positive", tp + fn)
        return (
            f"the model predicts all {tp + fn + fp + tn:,} of its training examples {said}, "
            f"the {count:,} {other}{'' if count == 1 else 's'} too: it separates nothing on the "
            "examples it learnt from (its training accuracy and F1 only restate the class "
            "balance)"
        )
    return None


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
    from ilpkit.core.learner import SelfExplaining
    from ilpkit.core.model_files import load_model
    from ilpkit.experiment.api import explain as explain_rules

    model = load_model(model_path)
    data = model.to_json()
    warn_degenerate(model.rules(), data.get("info"), rounds="hypotheses" in data)
    title = f"{model.learner} model {model_path} (training counts)"
    if isinstance(model, SelfExplaining) and path is None and not json_output:
        # an ensemble that explains itself (boosting: weak hypotheses ordered by alpha)
        from rich.console import Console

        console = Console(highlight=False, markup=False, emoji=False)
        console.print(fit_table(model.explain_table(title), console))
        console.print(f"{model.clauses_evaluated:,} clauses evaluated in training")
        return
    rules = explain_rules(
        model, path, backend=backend, data_format=str(fmt), stem=stem, trust_data=trust_data
    )
    if path is not None:
        title = f"{model.learner} model {model_path} on {path}"
    if json_output:
        typer.echo(json.dumps([r.to_json() for r in rules], indent=2))
        return
    from ilpkit.cli.text_table import terminal_width

    width = terminal_width()
    print_rules(rules, title=title, width=width)
    noun = "rule" if len(rules) == 1 else "rules"
    say(f"{len(rules)} {noun}; {model.clauses_evaluated:,} clauses evaluated in training", width)
