"""Gleaner at the published budget on one UW-CSE fold (issue 14, "Done when" item 3).

Goadrich et al. ran Gleaner with 50 seeds x 25,000 clauses per seed on each UW-CSE fold.
This runs exactly one unit of ``ilpkit cv uwcse --learner gleaner --tune-folds 1`` (the bundled
data's 5 folds; fold ``--fold`` is the test fold, one of the others tunes) with its 50 seeds
shipped to ``--workers`` worker processes (``--executor processes``, seeds as units), once per
budget in ``--clauses`` (default 1,000 and 25,000 clauses per seed), and prints:

- wall seconds of the unit (the target: at most 600 on the 2-core machine), and CPU seconds
  of this process plus its workers (``RUSAGE_CHILDREN`` after the pool has exited);
- clauses evaluated in all, and per CPU second;
- the test fold's AURPC (over Gleaner's recall-precision points, and of its ranking);
- the machine's load average before and after (the machine is shared: CPU seconds are the
  comparable figure, wall seconds say whether the target is met under that load).

    python benchmarks/bench_gleaner_budget.py                       # 1,000 and 25,000
    python benchmarks/bench_gleaner_budget.py --clauses 25000 --seeds 50 --workers 2

Writes ``benchmarks/results/gleaner_budget.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ilpkit.core.formats import load_task  # noqa: E402
from ilpkit.datasets import resolve_data_path  # noqa: E402
from ilpkit.experiment.compose import resolve, run_config  # noqa: E402
from ilpkit.experiment.cv import plan, run_unit  # noqa: E402
from ilpkit.plugins.executors.processes import (  # noqa: E402
    ProcessesExecutor,
    ProcessesOptions,
)

RESULTS = ROOT / "benchmarks" / "results"


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def one_budget(args: argparse.Namespace, clauses: int) -> dict[str, Any]:
    data = resolve_data_path("uwcse")
    config = run_config(
        data,
        learner="gleaner",
        options={"learner": {"seeds": args.seeds, "clauses_per_seed": clauses}},
        seed=args.seed,
        cv={"tune_folds": 1, "parallel": "members"},
        where="bench",
    )
    task = load_task(data)
    config = resolve(config, task, where="bench")
    unit = plan(task, config)[args.fold]
    load = [round(x, 2) for x in os.getloadavg()]
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    with ProcessesExecutor(ProcessesOptions(workers=args.workers)) as pool:
        result = run_unit(unit, members=pool)
    wall = time.perf_counter() - wall0
    cpu = cpu_seconds() - cpu0  # the workers have exited: their CPU is in RUSAGE_CHILDREN
    metrics = result.metrics
    return {
        "clauses_per_seed": clauses,
        "seeds": args.seeds,
        "fold": result.fold_name,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "clauses_evaluated": result.clauses_evaluated,
        "clauses_per_cpu_s": round(result.clauses_evaluated / cpu) if cpu else None,
        "aurpc_points": metrics.get("aurpc_points"),
        "aurpc": metrics.get("aurpc"),
        "load_before": load,
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clauses", type=int, nargs="+", default=[1000, 25000])
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fold", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(RESULTS / "gleaner_budget.json"))
    args = parser.parse_args()
    rows = []
    for clauses in args.clauses:
        print(f"... {args.seeds} seeds x {clauses:,} clauses, fold {args.fold}", flush=True)
        rows.append(one_budget(args, clauses))
    head = (
        f"{'seeds x clauses':>17} {'fold':>5} {'wall s':>7} {'CPU s':>7} {'clauses':>10} "
        f"{'/CPU s':>7} {'AURPC pts':>9} {'AURPC rank':>10}  load"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        pts = r["aurpc_points"]
        print(
            f"{r['seeds']:>5} x {r['clauses_per_seed']:>9,} {r['fold']:>5} {r['wall_s']:7.1f} "
            f"{r['cpu_s']:7.1f} {r['clauses_evaluated']:10,} {r['clauses_per_cpu_s'] or 0:7,} "
            f"{(f'{pts:.3f}' if pts is not None else '-'):>9} {r['aurpc']:10.3f}  "
            f"{r['load_before']} -> {r['load_after']}"
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"rows": rows}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
