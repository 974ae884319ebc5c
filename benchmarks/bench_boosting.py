"""PRankBoost and RankBoost against each other and Gleaner (dissertation ch. 6, Table 6.2).

Cross-validates, on each data set, RankBoost, the five PRankBoost weak learners and Gleaner
with ``ilpkit cv`` (native backend), then prints Table 6.2's layout -- AURPC and AUROC mean ±
std per learner -- with paired t-tests of PRankBoost.Clause against RankBoost, the test
AURPC against clauses evaluated (the learning curves of Figures 6.2/6.4), and draws the
curves of all learners into ``RUN_ROOT/<data>-curves.png``.

    python benchmarks/bench_boosting.py --root runs/boosting               # all data sets
    python benchmarks/bench_boosting.py --root runs/boosting --data uwcse --rounds 30
    python benchmarks/bench_boosting.py --root runs/boosting --summarize   # tables only

Run directories are ``RUN_ROOT/<data>-<learner>``; finished ones are reused (delete one to
rerun it), an interrupted one is continued with ``ilpkit cv --resume``.  ``--repeats R`` runs
every fold R times with new learner seeds (the dissertation's 10, sec. 6.4), ``--executor
processes --workers 2`` runs the units on worker processes.

Data sets: ``uwcse`` (bundled Aleph UW-CSE, its 5 folds), ``syn20`` (20,000
synthetic IE examples at 1:150, 5 sentence folds; generated into RUN_ROOT), ``boostsrl``
(UW-CSE from srlearn, 5 folds, 1:468), ``imdb2`` (ilp-experiments IMDB, 5 stratified folds,
1:30).  Settings shared by all learners: i=2, clauselength 5, nodes 300 per weak learner;
Gleaner: 50 seeds x 200 clauses, its own clauselength option at 5 too, 1 tune fold (the
boosters train on 4 folds, Gleaner on 3; on ``boostsrl``, whose folders are fixed train/test
splits, Gleaner tunes on its training set).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
CURVE = "250,500,1000,2000,4000,8000"
LEARNERS: dict[str, list[str]] = {
    "rankboost": ["--learner", "rankboost"],
    "pb-clause": ["--learner", "prankboost"],
    **{
        f"pb-{w}": ["--learner", "prankboost", "--set", f"learner.weak={w}"]
        for w in ("path", "mix1", "mix2", "mix3")
    },
    "gleaner": ["--learner", "gleaner", "--tune-folds", "1", "--set", "learner.seeds=50",
                "--set", "learner.clauses_per_seed=200", "--set", "learner.clauselength=5",
                "--set", "search.rrr_cutoff=1000"],
}  # fmt: skip
BOOSTERS = [k for k in LEARNERS if k != "gleaner"]


def data_args(name: str, root: Path) -> list[str]:
    if name == "uwcse":
        return ["uwcse"]
    if name == "syn20":
        folder = root / "syn20"
        if not (folder / "synth.b").is_file():
            subprocess.run(
                [sys.executable, "-m", "ilpkit", "datasets", "synth", str(folder),
                 "--examples", "20000", "--folds", "5", "--noise", "0.05"],
                check=True, cwd=ROOT, capture_output=True,
            )  # fmt: skip
        return [str(folder)]
    if name == "boostsrl":
        return [str(SHARED / "uwcse" / "boostsrl_srlearn" / "uwcse")]
    if name == "imdb2":
        return [str(SHARED / "imdb" / "prolog_ilpexp" / "imdb2"), "--folds", "5"]
    raise SystemExit(f"unknown data set {name!r}")


def run(
    name: str,
    learner: str,
    root: Path,
    rounds: int,
    repeats: int = 1,
    executor: str = "local",
    workers: int | None = None,
) -> Path:
    out = root / f"{name}-{learner}"
    if (out / "results.json").is_file():
        return out
    if out.exists():  # an interrupted run: continue it with the options saved in its config
        print(f"... {name} {learner} (resuming {out})", flush=True)
        subprocess.run([sys.executable, "-m", "ilpkit", "cv", "--resume", str(out), "-q"],
                       check=True, cwd=ROOT)  # fmt: skip
        return out
    extra = [] if learner == "gleaner" else ["--set", f"learner.rounds={rounds}"]
    if repeats > 1:
        extra += ["--repeats", str(repeats)]
    if executor != "local":
        extra += ["--executor", executor]
        if workers is not None:
            extra += ["--set", f"executor.workers={workers}"]
    how = LEARNERS[learner]
    if name == "boostsrl" and learner == "gleaner":  # fixed train/test folders: no tune fold
        how = [a if a != "1" or how[i - 1] != "--tune-folds" else "0" for i, a in enumerate(how)]
    command = [
        sys.executable, "-m", "ilpkit", "cv", *data_args(name, root), *how,
        *extra, "--set", "i=2", "--set", "clauselength=5", "--set", "nodes=300",
        "--curve", CURVE, "-q", "--out", str(out),
    ]  # fmt: skip
    print(f"... {name} {learner}", flush=True)
    subprocess.run(command, check=True, cwd=ROOT)
    return out


def load(out: Path) -> dict[str, Any]:
    results: dict[str, Any] = json.loads((out / "results.json").read_text())
    return results


def paired(a: dict[str, Any], b: dict[str, Any], metric: str) -> str:
    from ilpkit.core.metrics import paired_t_test

    x = {u["key"]: u["metrics"].get(metric, math.nan) for u in a["units"]}
    y = {u["key"]: u["metrics"].get(metric, math.nan) for u in b["units"]}
    keys = [k for k in sorted(set(x) & set(y)) if not (math.isnan(x[k]) or math.isnan(y[k]))]
    if len(keys) < 2:
        return "-"
    r = paired_t_test(np.array([y[k] for k in keys]), np.array([x[k] for k in keys]))
    return f"t={r.t:+.2f} p={r.p_value:.3f}"


def cell(results: dict[str, Any], metric: str) -> str:
    s = results["summary"].get(metric)
    return "-" if s is None else f"{s['mean']:.3f} ± {s['std']:.3f}"


def summarize(name: str, root: Path) -> None:
    runs = {
        k: root / f"{name}-{k}"
        for k in LEARNERS
        if (root / f"{name}-{k}" / "results.json").is_file()
    }
    if not runs:
        return
    res = {k: load(p) for k, p in runs.items()}
    print(f"\n## {name}\n")
    print("| learner | AURPC | AURPC (PR points) | AUROC | clauses/unit | s/unit |")
    print("| --- | --- | --- | --- | --- | --- |")
    for k, r in res.items():
        units = r["units"]
        clauses = np.mean([u["clauses_evaluated"] for u in units])
        seconds = np.mean([u["seconds"] for u in units])
        print(
            f"| {k} | {cell(r, 'aurpc')} | {cell(r, 'aurpc_points')} | {cell(r, 'auroc')} "
            f"| {clauses:,.0f} | {seconds:.1f} |"
        )
    if "rankboost" in res and "pb-clause" in res:
        a, b = res["rankboost"], res["pb-clause"]
        print(
            f"\nPRankBoost.Clause vs RankBoost, paired t-test over folds: AURPC "
            f"{paired(a, b, 'aurpc')}, AUROC {paired(a, b, 'auroc')}"
        )
    budgets = CURVE.split(",")
    print("\nmean test AURPC at clauses evaluated per unit:\n")
    print("| learner | " + " | ".join(budgets) + " |")
    print("| --- |" + " --- |" * len(budgets))
    for k, r in res.items():
        by: dict[float, list[float]] = {}
        for u in r["units"]:
            for p in u["curve"]:
                by.setdefault(p["clauses"], []).append(p["aurpc"])
        row = [f"{np.nanmean(by[float(b)]):.3f}" if float(b) in by else "-" for b in budgets]
        print(f"| {k} | " + " | ".join(row) + " |")
    from ilpkit.experiment.report import plot_run_curves
    from ilpkit.experiment.runs import RunDirectory

    plot = root / f"{name}-curves.png"
    if plot_run_curves([RunDirectory(p) for p in runs.values()], plot):
        print(f"\n(learning curves: {plot})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="folder of the run directories")
    parser.add_argument("--data", nargs="+", default=["uwcse", "syn20", "boostsrl", "imdb2"])
    parser.add_argument("--learners", nargs="+", default=list(LEARNERS), choices=list(LEARNERS))
    parser.add_argument("--rounds", type=int, default=100, help="weak learners T")
    parser.add_argument("--summarize", action="store_true", help="only print the tables")
    parser.add_argument(
        "--repeats", type=int, default=1, help="runs of every fold with new learner seeds"
    )
    parser.add_argument("--executor", default="local", help="local, processes or dask")
    parser.add_argument("--workers", type=int, default=None, help="the executor's workers")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    args.root.mkdir(parents=True, exist_ok=True)
    for name in args.data:
        if not args.summarize:
            for learner in args.learners:
                run(name, learner, args.root, args.rounds, args.repeats, args.executor,
                    args.workers)  # fmt: skip
        summarize(name, args.root)


if __name__ == "__main__":
    main()
