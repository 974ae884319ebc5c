"""Directed RRR (dissertation ch. 5): Figure 5.3's comparison and the model's cost.

Two modes, both printing a table (see docs/directed-rrr.md for the runs they read):

    python benchmarks/bench_directed_rrr.py compare RUN_RRR RUN_DIRECTED
        per-fold AURPC (Gleaner's recall-precision points) of two `ilpkit cv` runs at each
        learning-curve budget, their means and the K-fold paired t-test (dissertation 2.1).

    python benchmarks/bench_directed_rrr.py plot RUN_RRR RUN_DIRECTED OUT.png
        mean (± sd over folds) test AURPC against clauses per seed, ranking and PR points.

    python benchmarks/bench_directed_rrr.py cost DATA [--seeds S] [--clauses N]
        CPU seconds per evaluated clause of Gleaner's stage 1 with rrr and with directed-rrr,
        and the part of directed-rrr's spent in its Bayesian networks (updates and weights).
"""

from __future__ import annotations

import argparse
import json
import resource
from pathlib import Path
from typing import Any

import numpy as np

from ilpkit.core.metrics import paired_t_test


def _units(run: Path) -> dict[str, dict[str, Any]]:
    """The run's units: from results.json, or the finished units/*.json of a partial run."""
    results = run / "results.json"
    if results.exists():
        units = json.loads(results.read_text())["units"]
    else:
        units = [json.loads(p.read_text()) for p in sorted((run / "units").glob("*.json"))]
    return {u["key"]: u for u in units}


def compare(run_a: Path, run_b: Path, metric: str) -> None:
    a, b = _units(run_a), _units(run_b)
    keys = sorted(set(a) & set(b))
    if len(keys) < 2:
        raise SystemExit(f"need at least 2 common folds, got {len(keys)}")
    budgets = [int(p["clauses"]) for p in a[keys[0]].get("curve", [])]
    rows: list[tuple[str, list[float], list[float]]] = []
    for i, budget in enumerate(budgets):
        rows.append(
            (
                f"{budget:,}",
                [float(a[k]["curve"][i][metric]) for k in keys],
                [float(b[k]["curve"][i][metric]) for k in keys],
            )
        )
    rows.append(
        (
            "final",
            [float(a[k]["metrics"][metric]) for k in keys],
            [float(b[k]["metrics"][metric]) for k in keys],
        )
    )
    print(f"{metric}: {run_a.name} (A) vs {run_b.name} (B), folds {', '.join(keys)}")
    print(
        f"{'clauses':>10} {'A mean +- sd':>16} {'B mean +- sd':>16} {'B - A':>8} {'t':>7}"
        f" {'p':>7}  per fold B - A"
    )
    for label, xs, ys in rows:
        t = paired_t_test(ys, xs)
        diffs = " ".join(f"{y - x:+.3f}" for x, y in zip(xs, ys, strict=True))
        print(
            f"{label:>10} {_mean_sd(xs):>16} {_mean_sd(ys):>16}"
            f" {np.mean(ys) - np.mean(xs):+8.4f} {t.t:7.2f} {t.p_value:7.3f}  {diffs}"
        )
    for name, units in ((run_a.name, a), (run_b.name, b)):
        cpu = [
            float(units[k].get("cpu_seconds", units[k].get("seconds", float("nan")))) for k in keys
        ]
        print(f"{name}: unit wall seconds {' '.join(f'{c:.0f}' for c in cpu)} (sum {sum(cpu):.0f})")


def _mean_sd(xs: list[float]) -> str:
    return f"{np.mean(xs):.4f} +- {np.std(xs, ddof=1):.4f}"


def plot(run_a: Path, run_b: Path, out: Path) -> None:
    """Figure 5.3's axes: mean test AURPC over folds against clauses evaluated per seed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    keys = sorted(set(_units(run_a)) & set(_units(run_b)))  # folds both runs finished
    for run, marker in ((run_a, "o"), (run_b, "s")):
        units = _units(run)
        for ax, metric, title in (
            (axes[0], "aurpc", "ranking AURPC"),
            (axes[1], "aurpc_points", "AURPC of the PR points"),
        ):
            per_budget: dict[int, list[float]] = {}
            for k in keys:
                for point in units[k].get("curve", []):
                    per_budget.setdefault(int(point["clauses"]), []).append(float(point[metric]))
            xs = sorted(per_budget)
            means = np.array([np.mean(per_budget[x]) for x in xs])
            sds = np.array([np.std(per_budget[x], ddof=1) for x in xs])
            per_seed = [x / _seeds(run) for x in xs]
            ax.errorbar(per_seed, means, yerr=sds, marker=marker, capsize=3, label=run.name)
            ax.set(xlabel="clauses evaluated per seed", ylabel=f"test {title}", title=title)
            ax.set_xscale("log")
            ax.set_xticks(per_seed, [f"{x:,.0f}" for x in per_seed])
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.legend(fontsize="small")
    fig.suptitle(f"Gleaner: rrr vs directed-rrr, mean +- sd over {len(keys)} folds")
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {out}")


def _seeds(run: Path) -> int:
    """learner.seeds from the run's config.toml (Gleaner's default otherwise)."""
    import tomllib

    config = tomllib.loads((run / "config.toml").read_text())
    found = _find(config, "seeds")
    if found is None:
        from ilpkit.plugins.learners.gleaner import GleanerOptions

        return int(GleanerOptions().seeds)
    return int(found)


def _find(tree: Any, key: str) -> Any:
    if isinstance(tree, dict):
        if key in tree and isinstance(tree[key], int):
            return tree[key]
        for value in tree.values():
            hit = _find(value, key)
            if hit is not None:
                return hit
    return None


def cost(data: str, seeds: int, clauses: int) -> None:
    import ilpkit
    from ilpkit.core.learner import LearnContext
    from ilpkit.core.plugins import get_plugin_manager
    from ilpkit.plugins.learners.gleaner import GleanerOptions, search_seed

    task = ilpkit.load_task(data)
    manager = get_plugin_manager()
    backend = manager.make("backend", "native", {})
    backend.load(task)
    train = np.arange(len(task.examples), dtype=np.int64)
    options = GleanerOptions(seeds=seeds, clauses_per_seed=clauses, min_tune_pos=0)
    print(f"{data}: {seeds} seeds x {clauses} clauses, CPU seconds (getrusage)")
    print(f"{'search':>14} {'clauses':>8} {'CPU s':>8} {'ms/clause':>10} {'model ms/clause':>16}")
    for name in ("rrr", "directed-rrr"):
        made: list[Any] = []

        def make(name: str = name, made: list[Any] = made) -> Any:
            search = manager.make("search", name, {})
            made.append(search)
            return search

        ctx = LearnContext(
            backend=backend,
            make_search=make,
            scorer=manager.make("scorer", "pr", {}),
            settings=task.bias.settings,
            seed=0,
        )
        start = _cpu()
        evaluated = sum(
            search_seed(task, ctx, options, k, train, train).evaluated for k in range(seeds)
        )
        spent = _cpu() - start
        model = sum(s.model.seconds for s in made if getattr(s, "model", None) is not None)
        model_ms = f"{1000 * model / evaluated:16.3f}" if name == "directed-rrr" else f"{'-':>16}"
        print(f"{name:>14} {evaluated:8d} {spent:8.1f} {1000 * spent / evaluated:10.3f} {model_ms}")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    c = sub.add_parser("compare")
    c.add_argument("run_a", type=Path)
    c.add_argument("run_b", type=Path)
    c.add_argument("--metric", default="aurpc_points")
    g = sub.add_parser("plot")
    g.add_argument("run_a", type=Path)
    g.add_argument("run_b", type=Path)
    g.add_argument("out", type=Path)
    k = sub.add_parser("cost")
    k.add_argument("data")
    k.add_argument("--seeds", type=int, default=5)
    k.add_argument("--clauses", type=int, default=1000)
    args = parser.parse_args()
    if args.mode == "compare":
        compare(args.run_a, args.run_b, args.metric)
    elif args.mode == "plot":
        plot(args.run_a, args.run_b, args.out)
    else:
        cost(args.data, args.seeds, args.clauses)


if __name__ == "__main__":
    main()
