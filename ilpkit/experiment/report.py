"""Reports of run directories: markdown tables, comparisons with t-tests, and plots.

``report.md`` gives the configuration, the macro averages (mean ± sample standard deviation
over units) and one row per unit.  :func:`compare_runs` puts several runs in one table and
tests each against the first with the K-fold paired t-test on the units they share (same
repeat and fold).  Plots need matplotlib (``pip install 'ilpkit[plots]'``); without it the
report says so instead of failing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ilpkit.core.metrics import (
    interpolated_precision,
    paired_t_test,
    pr_points_from_scores,
    roc_points,
)

if TYPE_CHECKING:
    from ilpkit.experiment.cv import UnitResult
    from ilpkit.experiment.runs import RunDirectory

SHOWN = ("aurpc", "aurpc_points", "auroc", "f1", "accuracy", "mce")


def _fmt(value: float) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.4f}"


def summary_cell(entry: dict[str, Any] | None) -> str:
    if not entry or entry.get("n", 0) == 0:
        return "-"
    if entry["n"] == 1:
        return f"{entry['mean']:.4f}"
    return f"{entry['mean']:.4f} ± {entry['std']:.4f}"


def _engine_text(engine: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in engine.items())


def empty_theories_note(results: dict[str, Any]) -> str | None:
    """The line naming a run's units whose theory is empty, or None."""
    from ilpkit.core.learner import EMPTY_THEORY

    empty = results.get("empty_theories") or []
    if not empty:
        return None
    shown = ", ".join(empty[:5]) + (" ..." if len(empty) > 5 else "")
    return f"{EMPTY_THEORY}; in {len(empty)} of {results['n_units']} units ({shown})"


def one_class_note(results: dict[str, Any]) -> str | None:
    """The line naming a run's units (with rules) that predicted one class for every test
    example, or None."""
    from ilpkit.core.degenerate import ONE_CLASS

    units = results.get("one_class") or []
    if not units:
        return None
    shown = ", ".join(units[:5]) + (" ..." if len(units) > 5 else "")
    return f"{ONE_CLASS}; in {len(units)} of {results['n_units']} units ({shown})"


def degenerate_notes(results: dict[str, Any]) -> list[str]:
    """The lines naming a run's degenerate units: empty theories, one class predicted for
    every test example, and what the learners recorded (TIcER at its floor, ...)."""
    notes = [n for n in (empty_theories_note(results), one_class_note(results)) if n]
    for note, units in (results.get("degenerate") or {}).items():
        shown = ", ".join(units[:5]) + (" ..." if len(units) > 5 else "")
        notes.append(f"{note}; in {len(units)} of {results['n_units']} units ({shown})")
    return notes


def write_report(run: RunDirectory, results: dict[str, Any]) -> Path:
    """Write ``report.md`` and the plots of one run; returns the report's path."""

    config = run.config()
    units = run.units()
    plots = write_plots(run.path / "plots", units)
    lines = [
        f"# ilpkit run: {config.learner.name} on {config.data.path.name}",
        "",
        f"- data: `{config.data.path}`"
        + (f" (stem {config.data.stem})" if config.data.stem else ""),
        f"- learner `{config.learner.name}`, search `{config.search.name}`, scorer "
        f"`{config.scorer.name}`, backend `{config.backend.name}`, seed {config.seed}",
        f"- folds: {'data' if config.cv.folds is None else config.cv.folds}"
        f", tune folds {config.cv.tune_folds}, repeats {config.cv.repeats}",
        f"- settings: {dict(config.settings) or 'as in the data'}",
        *[f"- engine: {_engine_text(e)}" for e in results.get("engines", [])],
        "",
        "## Summary (mean ± sample std over units)",
        "",
    ]
    for note in degenerate_notes(results):
        lines += [f"**Warning: {note}.**", ""]
    lines += [
        "| metric | value |",
        "| --- | --- |",
    ]
    summary = results["summary"]
    for name in SHOWN:
        if name in summary:
            lines.append(f"| {name} | {summary_cell(summary[name])} |")
    columns = ["aurpc", "auroc", "f1", "accuracy"]
    if any("mce" in u.metrics for u in units):
        columns.append("mce")
    heads = [
        {"aurpc": "AURPC", "auroc": "AUROC", "f1": "F1", "mce": "MCE"}.get(c, c) for c in columns
    ]
    lines += [
        "",
        "## Units",
        "",
        "| unit | fold | train | test | " + " | ".join(heads) + " | clauses | seconds |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in heads) + " | --- | --- |",
    ]
    for u in units:
        cells = [_fmt(u.metrics.get(k, math.nan)) for k in columns]
        lines.append(
            f"| {u.key} | {u.fold_name} | {u.n_train} | {u.n_test} | "
            + " | ".join(cells)
            + f" | {u.clauses_evaluated:,} | {u.seconds:.1f} |"
        )
    lines += ["", "## Plots", ""]
    if plots:
        lines += [f"![{p.stem}](plots/{p.name})" for p in plots if p.suffix == ".png"]
    else:
        lines.append(
            "matplotlib is not installed: `pip install 'ilpkit[plots]'` and rerun "
            "`ilpkit report RUN_DIR` to draw the curves."
        )
    path = run.path / "report.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# Comparing runs
# --------------------------------------------------------------------------------------------


def compare_runs(runs: Sequence[RunDirectory], metric: str = "aurpc") -> str:
    """A markdown table of several runs; each later run is t-tested against the first on
    the units both have (paired by repeat and fold)."""
    if not runs:
        raise ValueError("no runs to compare")
    base_units = {u.key: u for u in runs[0].units()}
    lines = [
        "| run | learner | " + " | ".join(SHOWN) + f" | t-test on {metric} vs first |",
        "| --- | --- | " + " | ".join("---" for _ in SHOWN) + " | --- |",
    ]
    for index, run in enumerate(runs):
        results = run.results()
        config = run.config()
        cells = [summary_cell(results["summary"].get(name)) for name in SHOWN]
        test = "-"
        if index > 0:
            test = _t_test_cell(base_units, {u.key: u for u in run.units()}, metric)
        lines.append(
            f"| {run.path} | {config.learner.name} | " + " | ".join(cells) + f" | {test} |"
        )
    return "\n".join(lines)


def _t_test_cell(base: dict[str, UnitResult], other: dict[str, UnitResult], metric: str) -> str:
    shared = sorted(set(base) & set(other))
    different = [k for k in shared if base[k].test_ids != other[k].test_ids]
    if different:
        return f"not paired: units {', '.join(different[:3])} test on different examples"
    pairs = [
        (base[k].metrics.get(metric, math.nan), other[k].metrics.get(metric, math.nan))
        for k in shared
    ]
    pairs = [(a, b) for a, b in pairs if not (math.isnan(a) or math.isnan(b))]
    if len(pairs) < 2:
        return f"needs >= 2 shared units (have {len(pairs)})"
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    if np.allclose(a, b):
        return f"identical on {len(pairs)} units"
    result = paired_t_test(b, a)
    return f"t = {result.t:.3f}, p = {result.p_value:.4f} ({len(pairs)} units)"


# --------------------------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------------------------


def write_plots(folder: Path, units: Sequence[UnitResult]) -> list[Path]:
    """PR curves (per unit and pooled), ROC curves, reliability diagrams (units whose scores
    are probabilities) and learning curves as PNG and SVG.

    Returns the files written; none when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    usable = [u for u in units if 0 < sum(u.labels) < len(u.labels)]

    def save(fig: Any, name: str) -> None:
        for ext in ("png", "svg"):
            path = folder / f"{name}.{ext}"
            fig.savefig(path, dpi=120, bbox_inches="tight")
            written.append(path)
        plt.close(fig)

    if usable:
        fig, ax = plt.subplots(figsize=(5, 4.5))
        for u in usable:
            _draw_pr(ax, np.array(u.scores), np.array(u.labels), u.key, alpha=0.5)
        pooled_scores = np.concatenate([np.array(u.scores) for u in usable])
        pooled_labels = np.concatenate([np.array(u.labels) for u in usable])
        _draw_pr(ax, pooled_scores, pooled_labels, "pooled", alpha=1.0, width=2.0)
        ax.set(
            xlabel="recall",
            ylabel="precision",
            xlim=(0, 1),
            ylim=(0, 1.02),
            title="Recall-precision (Davis-Goadrich interpolation)",
        )
        ax.legend(fontsize="small")
        save(fig, "pr_curves")

        fig, ax = plt.subplots(figsize=(5, 4.5))
        for u in usable:
            roc = roc_points(np.array(u.scores), np.array(u.labels))
            ax.plot(roc.fpr, roc.tpr, label=u.key, alpha=0.7)
        ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1)
        ax.set(xlabel="false positive rate", ylabel="true positive rate", title="ROC")
        ax.legend(fontsize="small")
        save(fig, "roc_curves")

    calibrated = [u for u in units if u.probabilities and u.labels]
    if calibrated:
        fig, ax = plt.subplots(figsize=(5, 4.5))
        for u in calibrated:
            _draw_reliability(ax, np.array(u.scores), np.array(u.labels), u.key, alpha=0.5)
        _draw_reliability(
            ax,
            np.concatenate([np.array(u.scores) for u in calibrated]),
            np.concatenate([np.array(u.labels) for u in calibrated]),
            "pooled",
            alpha=1.0,
            width=2.0,
        )
        ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1)
        ax.set(
            xlabel="predicted probability",
            ylabel="fraction positive",
            xlim=(0, 1),
            ylim=(0, 1.02),
            title="Reliability (calibration)",
        )
        ax.legend(fontsize="small")
        save(fig, "reliability")

    with_curve = [u for u in units if u.curve]
    if with_curve:
        fig, ax = plt.subplots(figsize=(5.5, 4))
        for u in with_curve:
            xs = [p["clauses"] for p in u.curve]
            ax.plot(xs, [p["aurpc"] for p in u.curve], marker="o", label=u.key, alpha=0.7)
        ax.set_xscale("log")
        budgets = sorted({p["clauses"] for u in with_curve for p in u.curve})
        budget_ticks(ax, budgets)
        ax.set(xlabel="clauses evaluated", ylabel="test AURPC", title="Learning curves")
        ax.legend(fontsize="small")
        save(fig, "learning_curves")
    return written


def budget_ticks(ax: Any, budgets: Sequence[float]) -> None:
    """Label a log x-axis at the curve's budgets only (1,000 not 10^3), slanted, without the
    minor labels that overlap them (2x10^2, 3x10^2, ...)."""
    from matplotlib.ticker import FixedLocator, NullFormatter, StrMethodFormatter

    ax.xaxis.set_major_locator(FixedLocator(sorted(budgets)))
    ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.tick_params(axis="x", labelrotation=45)


def plot_run_curves(runs: Sequence[RunDirectory], path: Path, metric: str = "aurpc") -> bool:
    """Mean learning curve of each run on one plot (the papers' Figures 4.5, 6.2): test
    ``metric`` against clauses evaluated, log x-axis.  False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    bands = len(runs) <= 3  # more std bands than that hide each other
    markers = "osD^vP*Xh<>"
    budgets: set[float] = set()
    for k, run in enumerate(runs):
        by_budget: dict[float, list[float]] = {}
        for unit in run.units():
            for point in unit.curve:
                value = point.get(metric, math.nan)
                if not math.isnan(value):
                    by_budget.setdefault(point["clauses"], []).append(value)
        if not by_budget:
            continue
        xs = sorted(by_budget)
        budgets.update(xs)
        means = np.array([np.mean(by_budget[x]) for x in xs])
        stds = np.array([np.std(by_budget[x]) for x in xs])
        learner = run.config().learner.name
        name = run.path.name
        label = name if learner in name else f"{learner} ({name})"
        ax.plot(xs, means, marker=markers[k % len(markers)], label=label)
        if bands:
            ax.fill_between(xs, means - stds, means + stds, alpha=0.15)
    ax.set_xscale("log")
    budget_ticks(ax, sorted(budgets))
    ax.set(
        xlabel="clauses evaluated",
        ylabel=f"test {metric} (mean{' ± std' if bands else ''} over units)",
        title="Learning curves",
    )
    ax.legend(fontsize="small")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return True


def _draw_pr(
    ax: Any, scores: Any, labels: Any, label: str, alpha: float, width: float = 1.0
) -> None:
    curve = pr_points_from_scores(scores, labels)
    recall = np.linspace(0.0, 1.0, 201)
    ax.plot(
        recall, interpolated_precision(curve, recall), label=label, alpha=alpha, linewidth=width
    )


def reliability_points(
    probs: Any, labels: Any, bins: int = 10
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Reliability diagram data: for each of ``bins`` equal-width probability bins holding
    examples, the mean predicted probability, the fraction of positives and the count."""
    p = np.asarray(probs, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    which = np.minimum((p * bins).astype(np.int64), bins - 1)
    count = np.bincount(which, minlength=bins).astype(np.float64)
    held = count > 0
    mean_p = np.bincount(which, weights=p, minlength=bins)[held] / count[held]
    frac = np.bincount(which, weights=y, minlength=bins)[held] / count[held]
    return mean_p, frac, count[held]


def _draw_reliability(
    ax: Any, probs: Any, labels: Any, label: str, alpha: float, width: float = 1.0
) -> None:
    mean_p, frac, _ = reliability_points(probs, labels)
    ax.plot(mean_p, frac, marker="o", label=label, alpha=alpha, linewidth=width)
