"""Gleaner at scale: UW-CSE on local vs worker processes, and the large synthetic task.

(a) ``uwcse``: Gleaner cross-validated on the bundled UW-CSE data (5 folds, 1 tune fold,
    ``--seeds`` x ``--clauses`` per unit, native backend, ``i`` lowered from the data's 5, whose
    bottom clauses run to thousands of literals) with ``--executor local`` and with
    ``processes`` (2 workers): wall time, AURPC per fold (over Gleaner's recall-precision
    points and of its ranking), the speed-up, and the ``aleph-ensemble`` control's AURPC
    against clauses evaluated.  The cv runner parallelises units (folds), so with 5 folds on
    2 workers its speed-up is at most 5/3; ``cv.parallel = members`` runs the folds one after
    another and ships each fold's seeds to the workers instead.
(b) ``synth``: the synthetic information-extraction task (``ilpkit datasets synth``; by
    default 280,000 examples at skew 150, about 5M background facts): generation speed, load
    time, peak memory, and one Gleaner unit (fold 0 of 5 sentence folds, 1 tune fold) with
    ``--synth-seeds`` x ``--synth-clauses``: clauses/s, AURPC, total time; ``--profile``
    profiles one seed's search with cProfile and prints the top functions.

    python benchmarks/bench_gleaner.py                   # both parts, full size (hours)
    python benchmarks/bench_gleaner.py --part uwcse
    python benchmarks/bench_gleaner.py --part synth --synth-examples 50000 --profile
    python benchmarks/bench_gleaner.py --quick           # minutes: small budgets

Prints a table per part and writes ``benchmarks/results/gleaner_<part>.json``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from memory import peak_rss_mb  # noqa: E402

import ilpkit  # noqa: E402
from ilpkit.experiment.config import RunConfig  # noqa: E402
from ilpkit.experiment.cv import (  # noqa: E402
    fold_task,
    plan,
    run_unit,
    splits,
)

RESULTS = ROOT / "benchmarks" / "results"


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# --------------------------------------------------------------------------------------------
# (a) UW-CSE
# --------------------------------------------------------------------------------------------


def cv_run(
    learner: str,
    executor: str,
    args: argparse.Namespace,
    options: dict[str, Any],
    search: str,
    scorer: str,
    settings: dict[str, Any],
    curve: list[int] | None = None,
    parallel: str = "auto",
) -> dict[str, Any]:
    out = Path(tempfile.mkdtemp(prefix="bench-gleaner-"))
    ex_opts = {"workers": 2} if executor == "processes" else {}
    load = load_average()
    start = time.perf_counter()
    results = ilpkit.cv(
        "uwcse",
        out=out / "run",
        learner=learner,
        search=search,
        scorer=scorer,
        executor=executor,
        parallel=parallel,
        tune_folds=1,
        settings=settings,
        options={"learner": options, "executor": ex_opts},
        curve=curve,
        seed=args.seed,
    )
    wall = time.perf_counter() - start
    shutil.rmtree(out, ignore_errors=True)
    units = results["units"]
    return {
        "learner": learner,
        "executor": executor if executor == "local" else f"{executor}/{parallel}",
        "options": options,
        "settings": settings,
        "wall_s": round(wall, 1),
        "load_before": load,
        "load_after": load_average(),
        "clauses_evaluated": sum(u["clauses_evaluated"] for u in units),
        "folds": [
            {
                "fold": u["fold_name"],
                "aurpc_points": u["metrics"].get("aurpc_points"),
                "aurpc": u["metrics"].get("aurpc"),
                "clauses": u["clauses_evaluated"],
                "seconds": round(u["seconds"], 1),
                "curve": u["curve"],
            }
            for u in units
        ],
        "summary": results["summary"],
    }


def part_uwcse(args: argparse.Namespace) -> dict[str, Any]:
    settings = {"i": args.i}
    gl = {"seeds": args.seeds, "clauses_per_seed": args.clauses, "clauselength": args.clauselength}
    per_unit = args.seeds * args.clauses
    curve = sorted({max(args.seeds, per_unit // d) for d in (20, 10, 5, 2, 1)})
    runs = []
    for executor, parallel in (("local", "auto"), ("processes", "folds"), ("processes", "members")):
        print(f"... uwcse gleaner, {executor}/{parallel}, load {load_average()}", flush=True)
        runs.append(cv_run("gleaner", executor, args, gl, "rrr", "pr", settings, curve, parallel))
    speedup = {
        "folds": round(runs[0]["wall_s"] / runs[1]["wall_s"], 2),
        "members": round(runs[0]["wall_s"] / runs[2]["wall_s"], 2),
    }
    identical = all(
        [f["aurpc"] for f in r["folds"]] == [f["aurpc"] for f in runs[0]["folds"]]
        for r in runs[1:3]
    )
    ens_settings = {
        "i": args.i,
        "nodes": args.ensemble_nodes,
        "clauselength": args.clauselength,
        "minpos": 2,
        "minacc": 0.1,
    }
    ens = {"theories": args.ensemble_theories}
    if not args.skip_ensemble:
        print(f"... uwcse aleph-ensemble, load {load_average()}", flush=True)
        runs.append(
            cv_run("aleph-ensemble", "processes", args, ens, "topdown", "laplace", ens_settings)
        )
    return {"runs": runs, "speedup": speedup, "identical": identical}


def print_uwcse(res: dict[str, Any]) -> None:
    head = (
        f"{'learner':15} {'executor':10} {'fold':5} {'AURPC pts':>9} {'AURPC rank':>10} "
        f"{'clauses':>9} {'s':>7}"
    )
    print(head)
    print("-" * len(head))
    for run in res["runs"]:
        for f in run["folds"]:
            pts = f["aurpc_points"]
            print(
                f"{run['learner']:15} {run['executor']:10} {f['fold']:5} "
                f"{(f'{pts:.3f}' if pts is not None else '-'):>9} {f['aurpc']:10.3f} "
                f"{f['clauses']:9,d} {f['seconds']:7.1f}"
            )
        s = run["summary"]
        pts = s.get("aurpc_points", {})
        print(
            f"{run['learner']:15} {run['executor']:10} {'mean':5} "
            f"{pts.get('mean', float('nan')):9.3f} {s['aurpc']['mean']:10.3f} "
            f"{run['clauses_evaluated']:9,d} wall {run['wall_s']:.1f} s, load "
            f"{run['load_before']} -> {run['load_after']}"
        )
    sp = res["speedup"]
    print(
        f"speed-up of 2 worker processes over local: folds as units {sp['folds']:.2f}x, "
        f"seeds as units {sp['members']:.2f}x; identical AURPCs: {res['identical']}"
    )


# --------------------------------------------------------------------------------------------
# (b) the synthetic task
# --------------------------------------------------------------------------------------------


def part_synth(args: argparse.Namespace) -> dict[str, Any]:
    from ilpkit.datasets.synth import SynthParams, write

    folder = Path(args.synth_dir or tempfile.mkdtemp(prefix="bench-synth-"))
    params = SynthParams(
        examples=args.synth_examples,
        skew=args.synth_skew,
        noise=args.synth_noise,
        facts_scale=args.facts_scale,
        seed=args.seed,
        folds=5,
    )
    print(f"... generating {params.examples:,} examples into {folder}", flush=True)
    start = time.perf_counter()
    summary = write(params, folder)
    gen_s = time.perf_counter() - start
    size_mb = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6
    # the rest runs in a fresh process, so that its peak memory is the learner's alone
    cmd = [sys.executable, __file__, "--synth-unit", str(folder), "--seed", str(args.seed),
           "--synth-seeds", str(args.synth_seeds),
           "--synth-clauses", str(args.synth_clauses)]  # fmt: skip
    if args.profile:
        cmd.append("--profile")
    print(f"... gleaner unit ({args.synth_seeds} x {args.synth_clauses}), load {load_average()}")
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        print(proc.stderr[-4000:], file=sys.stderr)
        raise SystemExit(proc.returncode)
    unit = json.loads(proc.stdout.strip().splitlines()[-1])
    if not args.synth_dir:
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "params": summary.params,
        "sentences": summary.sentences,
        "phrases": summary.phrases,
        "words": summary.words,
        "positives": summary.positives,
        "negatives": summary.negatives,
        "facts": summary.facts,
        "files_mb": round(size_mb, 1),
        "generate_s": round(gen_s, 2),
        "facts_per_s": round(summary.facts / gen_s),
        "rules": [r.__dict__ for r in summary.rules],
        **unit,
    }


def synth_unit(args: argparse.Namespace) -> None:
    """(In a fresh process) load the task, run fold 0 of Gleaner, print JSON on the last line."""
    config = RunConfig.model_validate(
        {
            "data": {"path": args.synth_unit},
            "learner": {
                "name": "gleaner",
                "options": {"seeds": args.synth_seeds, "clauses_per_seed": args.synth_clauses},
            },
            "search": "rrr",
            "scorer": "pr",
            "seed": args.seed,
            "cv": {"tune_folds": 1},
        }
    )
    from ilpkit.experiment.cv import _CACHE

    start = time.perf_counter()
    task = _CACHE.get_task(config)
    load_task_s = time.perf_counter() - start
    _CACHE.get_backend(config, task)
    load_s = time.perf_counter() - start
    load_rss = peak_rss_mb()
    out: dict[str, Any] = {
        "load_task_s": round(load_task_s, 1),
        "load_s": round(load_s, 1),
        "rss_after_load_mb": round(load_rss),
    }
    if args.profile:
        out["profile"] = profile_seed(config)
    unit = plan(task, config)[0]
    start = time.perf_counter()
    result = run_unit(unit)
    unit_s = time.perf_counter() - start
    out.update(
        {
            "fold": result.fold_name,
            "n_train": result.n_train,
            "n_tune": result.n_tune,
            "n_test": result.n_test,
            "unit_s": round(unit_s, 1),
            "clauses_evaluated": result.clauses_evaluated,
            "clauses_per_s": round(result.clauses_evaluated / unit_s, 1),
            "aurpc_points": result.metrics.get("aurpc_points"),
            "aurpc": result.metrics.get("aurpc"),
            "peak_rss_mb": round(peak_rss_mb()),
            "total_s": round(load_s + unit_s, 1),
        }
    )
    print(json.dumps(out))


def profile_seed(config: RunConfig) -> list[dict[str, Any]]:
    """cProfile of one seed's search (seed 0 of fold 0); the top functions by own time."""
    from ilpkit.core.learner import LearnContext
    from ilpkit.core.plugins import get_plugin_manager
    from ilpkit.experiment.cv import _CACHE, derive_seed
    from ilpkit.plugins.learners.gleaner import GleanerOptions, search_seed

    task = _CACHE.get_task(config)
    backend = _CACHE.get_backend(config, task)
    split = splits(fold_task(task, config, 0), config)[0]
    manager = get_plugin_manager()
    ctx = LearnContext(
        backend=backend,
        make_search=lambda: manager.make("search", "rrr", {}),
        scorer=manager.make("scorer", "pr", {}),
        settings=task.bias.settings,
        seed=derive_seed(config.seed, "profile"),
    )
    options = GleanerOptions(**config.learner.options)
    prof = cProfile.Profile()
    prof.enable()
    search_seed(task, ctx, options, 0, split.train, split.tune)
    prof.disable()
    stream = io.StringIO()
    stats = pstats.Stats(prof, stream=stream)
    total = sum(v[2] for v in stats.stats.values())  # type: ignore[attr-defined]
    rows = []
    for (file, line, func), (_cc, calls, tottime, cumtime, _) in sorted(
        stats.stats.items(),  # type: ignore[attr-defined]
        key=lambda kv: -kv[1][2],
    )[:15]:
        rows.append(
            {
                "function": f"{Path(file).name}:{line}({func})",
                "calls": calls,
                "own_s": round(tottime, 2),
                "cum_s": round(cumtime, 2),
                "own_share": round(tottime / total, 3) if total else 0.0,
            }
        )
    total_row = {"function": "(the whole seed)", "calls": 1, "own_s": round(total, 2),
                 "cum_s": round(total, 2), "own_share": 1.0}  # fmt: skip
    return [total_row, *rows]


def print_synth(res: dict[str, Any]) -> None:
    rows = [
        ("examples (pos / neg)", f"{res['positives']:,} / {res['negatives']:,}"),
        ("sentences / phrases / words",
         f"{res['sentences']:,} / {res['phrases']:,} / {res['words']:,}"),
        ("background facts", f"{res['facts']:,} ({res['files_mb']} MB of files)"),
        ("generate", f"{res['generate_s']} s ({res['facts_per_s']:,} facts/s)"),
        ("load (read / + native index)", f"{res['load_task_s']} s / {res['load_s']} s"),
        ("RSS after load", f"{res['rss_after_load_mb']} MB"),
        ("Gleaner unit", f"{res['unit_s']} s, {res['clauses_evaluated']:,} clauses"),
        ("clauses/s", f"{res['clauses_per_s']}"),
        ("train / tune / test", f"{res['n_train']:,} / {res['n_tune']:,} / {res['n_test']:,}"),
        ("AURPC points / ranking", f"{res['aurpc_points']:.3f} / {res['aurpc']:.3f}"),
        ("peak RSS", f"{res['peak_rss_mb']} MB"),
        ("total (load + unit)", f"{res['total_s']} s"),
    ]  # fmt: skip
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:{width}}  {v}")
    for row in res.get("profile", []):
        print(
            f"  {row['own_s']:8.2f} s own {row['cum_s']:8.2f} s cum {row['calls']:>9} calls  "
            f"{row['function']}"
        )


# --------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("uwcse", "synth", "all"), default="all")
    parser.add_argument("--quick", action="store_true", help="small budgets (minutes)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, default=50, help="uwcse: Gleaner seeds per unit")
    parser.add_argument("--clauses", type=int, default=1000, help="uwcse: clauses per seed")
    parser.add_argument("--i", type=int, default=2, help="uwcse: Aleph's i (the data says 5)")
    parser.add_argument(
        "--clauselength", type=int, default=5, help="uwcse: Gleaner's (its default 10 is slow)"
    )
    parser.add_argument("--ensemble-theories", type=int, default=10)
    parser.add_argument("--skip-ensemble", action="store_true", help="uwcse: Gleaner only")
    parser.add_argument("--ensemble-nodes", type=int, default=500)
    parser.add_argument("--synth-examples", type=int, default=280_000)
    parser.add_argument("--synth-skew", type=float, default=150.0)
    parser.add_argument("--synth-noise", type=float, default=0.05)
    parser.add_argument("--facts-scale", type=float, default=1.0)
    parser.add_argument("--synth-seeds", type=int, default=100)
    parser.add_argument("--synth-clauses", type=int, default=1000)
    parser.add_argument("--synth-dir", help="keep the generated task here")
    parser.add_argument("--profile", action="store_true", help="cProfile one synthetic seed")
    parser.add_argument("--synth-unit", help=argparse.SUPPRESS)
    parser.add_argument("--out", help="JSON file (default benchmarks/results/gleaner_<part>.json)")
    args = parser.parse_args()
    if args.synth_unit:
        synth_unit(args)
        return
    if args.quick:
        args.seeds, args.clauses = 5, 100
        args.ensemble_theories, args.ensemble_nodes = 3, 200
        args.synth_examples, args.synth_seeds, args.synth_clauses = 20_000, 10, 200
    meta = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "quick": args.quick,
    }
    parts = ("uwcse", "synth") if args.part == "all" else (args.part,)
    RESULTS.mkdir(parents=True, exist_ok=True)
    for part in parts:
        res = part_uwcse(args) if part == "uwcse" else part_synth(args)
        res = {"benchmark": f"gleaner_{part}", **meta, "args": vars(args), **res}
        path = Path(args.out) if args.out and len(parts) == 1 else RESULTS / f"gleaner_{part}.json"
        path.write_text(json.dumps(res, indent=2) + "\n")
        (print_uwcse if part == "uwcse" else print_synth)(res)
        print(f"wrote {path}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
