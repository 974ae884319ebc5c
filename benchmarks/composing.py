"""The table of docs/composing.md: published methods and new learner x combiner compositions,
cross-validated on UW-CSE and Carcinogenesis with the same folds and one clause budget per
composition family; AURPC and AUROC (mean ± sample sd over folds, from each run's
results.json) and the CPU seconds of each ``ilpkit cv`` command.

    python benchmarks/composing.py                          # every row (~15 CPU minutes)
    python benchmarks/composing.py --jobs 2                 # two commands at a time
    python benchmarks/composing.py --datasets uwcse --rows gleaner,gleaner+svm
    python benchmarks/composing.py --print-only             # the table of the runs already made
    python benchmarks/composing.py --commands               # the commands, nothing run
    python benchmarks/composing.py --datasets uwcse --budget 50,1000 \
        --rows gleaner,gleanersrl,gleaner+svm,gleaner+logistic,gleaner+forest \
        --out /tmp/ilpkit-composing-50x1000                # the gleaner family at 5x the budget

To measure one commit while the working tree changes under you, run it on a snapshot:
``git archive HEAD | tar -x -C /tmp/ilpkit-head`` and ``PYTHONPATH=/tmp/ilpkit-head python
benchmarks/composing.py`` (the commands run as ``python -m ilpkit`` in the run folders).

Each row is one ``ilpkit cv`` command run in a child process (executor ``local``, so all its
work is in that process); its CPU seconds are the child's user + system time (``os.wait4``),
loading the data included.  Run directories go under ``--out`` (default
``/tmp/ilpkit-composing/DATASET/ROW``): a row whose run directory has a ``results.json`` is
not run again, and an interrupted one is continued with ``ilpkit cv --resume`` (its CPU
seconds then add up over the invocations and the table marks them ``(resumed)``).
Carcinogenesis is read from ``--shared`` (``/work/shared/data`` by default; it is not part of
the repository).  Results: the table on stdout and ``OUT/table.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ILPKIT = [sys.executable, "-m", "ilpkit"]
"""The ilpkit this Python imports (``PYTHONPATH=SNAPSHOT`` measures a clean snapshot)."""


@dataclass(frozen=True)
class Dataset:
    key: str
    label: str
    path: str  # a bundled name, or a path under --shared ("{shared}/...")
    split: list[str]  # folds and roles, the same for every row
    settings: list[str]  # Aleph settings, the same for every row
    clauselength: int  # the longest clause of Gleaner's and the pool's searches


DATASETS = {
    "uwcse": Dataset(
        "uwcse",
        "UW-CSE (advisedby; 113+ / 2,711-; its 5 area folds)",
        "uwcse",
        ["--tune-folds", "1", "--seed", "0"],
        ["--set", "i=2"],
        5,
    ),
    "carcinogenesis": Dataset(
        "carcinogenesis",
        "Carcinogenesis (Aleph layout; 162+ / 136-; 5 stratified folds)",
        "{shared}/carcinogenesis/aleph_yap",
        ["--folds", "5", "--tune-folds", "1", "--seed", "0"],
        [],
        4,
    ),
}


SEEDS = [20, 500]
"""Seeds and clauses per seed of the gleaner and pool families (``--budget``)."""


def family_args(family: str, ds: Dataset) -> list[str]:
    """The learner, search and budget every row of one composition family shares."""
    cl = str(ds.clauselength)
    seeds, per_seed = SEEDS
    if family == "gleaner":  # Gleaner's stage 1: 20 seeds x 500 clauses, rrr + pr
        return ["--set", f"learner.seeds={seeds}", "--set", f"learner.clauses_per_seed={per_seed}",
                "--set", f"learner.clauselength={cl}"]  # fmt: skip
    if family == "pool":  # the generic pool: the same searches, 5 best clauses kept per seed
        return ["--search", "rrr", "--scorer", "pr", "--set", f"learner.seeds={seeds}",
                "--set", f"learner.clauses_per_seed={per_seed}",
                "--set", f"learner.clauselength={cl}", "--set", "learner.keep=5"]  # fmt: skip
    if family == "aleph":  # Aleph's covering: topdown + laplace, 200 nodes per search
        return ["--search", "topdown", "--scorer", "laplace", "--set", "nodes=200",
                "--set", "minpos=2", "--set", "minacc=0.1", "--set", "clauselength=4"]  # fmt: skip
    if family == "static-rf":  # 1,000 random rules
        return ["--set", "learner.rules=1000"]
    raise ValueError(family)


@dataclass(frozen=True)
class Row:
    name: str
    family: str
    learner: str
    combiner: str | None
    published: str  # the method it reproduces ("" for a new composition)
    extra: tuple[str, ...] = ()

    def argv(self, ds: Dataset, shared: str, out: Path) -> list[str]:
        args = ["cv", ds.path.format(shared=shared), "--learner", self.learner]
        if self.combiner:
            args += ["--combiner", self.combiner]
        args += family_args(self.family, ds) + list(self.extra) + ds.settings + ds.split
        return [*args, "--out", str(out), "-q"]


ENSEMBLE = ("--set", "learner.theories=10", "--set", "learner.clauses_per_theory=1000")
ROWS = [
    Row("gleaner", "gleaner", "gleaner", None, "Gleaner (L of K per recall bin)"),
    Row(
        "gleanersrl",
        "gleaner",
        "gleanersrl",
        None,
        "GleanerSRL (SVM + isotonic)",
        ("--set", "learner.kernel=boolean-dot"),
    ),
    Row("gleaner+svm", "gleaner", "gleaner", "svm", ""),
    Row("gleaner+rankboost", "gleaner", "gleaner", "rankboost", ""),
    Row("gleaner+logistic", "gleaner", "gleaner", "logistic", ""),
    Row("gleaner+forest", "gleaner", "gleaner", "forest", ""),
    Row("pool+vote", "pool", "pool", None, "", ()),
    Row("pool+rankboost", "pool", "pool", "rankboost", ""),
    Row("pool+logistic", "pool", "pool", "logistic", ""),
    Row("pool+svm", "pool", "pool", "svm", ""),
    Row(
        "aleph-ensemble",
        "aleph",
        "aleph-ensemble",
        None,
        "Aleph random-seeds ensemble (K of N)",
        ENSEMBLE,
    ),
    Row("aleph-ensemble+gleaner", "aleph", "aleph-ensemble", "gleaner", "", ENSEMBLE),
    Row("aleph-ensemble+logistic", "aleph", "aleph-ensemble", "logistic", "", ENSEMBLE),
    Row("aleph-ensemble+svm", "aleph", "aleph-ensemble", "svm", "", ENSEMBLE),
    Row("single-theory", "aleph", "single-theory", None, "one theory, rules weighted (ranked)"),
    Row("static-rf", "static-rf", "static-rf", None, "static propositionalisation + forest"),
    Row("static-rf+logistic", "static-rf", "static-rf", "logistic", ""),
]


def command_text(argv: list[str]) -> str:
    return "ilpkit " + " ".join(shlex.quote(a) for a in argv if a != "-q")


def run_row(argv: list[str], run: Path, cpu_file: Path) -> None:
    """Run (or resume) one cv command and add its CPU seconds to ``cpu_file``."""
    resumed = run.exists()
    if resumed:
        argv = ["cv", "--resume", str(run), "-q"]
    proc = subprocess.Popen(
        [*ILPKIT, *argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=run.parent
    )
    assert proc.stdout is not None
    output = proc.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    before = json.loads(cpu_file.read_text()) if cpu_file.exists() else {"cpu": 0.0, "runs": 0}
    record = {
        "cpu": before["cpu"] + usage.ru_utime + usage.ru_stime,
        "runs": before["runs"] + 1,
        "resumed": resumed or before["runs"] > 0,
        "exit": proc.returncode,
        "error": None if proc.returncode == 0 else output.strip().splitlines()[-1][:200],
    }
    cpu_file.write_text(json.dumps(record))
    if proc.returncode != 0:
        print(f"FAILED ({proc.returncode}): {command_text(argv)}\n{output}", file=sys.stderr)


def pool_size(run: Path) -> str:
    """The combined models' pool sizes over the folds (min-max), or "-" without a combiner."""
    sizes = []
    for path in sorted((run / "models").glob("*.json")):
        size = json.loads(path.read_text()).get("info", {}).get("pool_clauses")
        if size is not None:
            sizes.append(int(size))
    if not sizes:
        return "-"
    return str(min(sizes)) if min(sizes) == max(sizes) else f"{min(sizes)}-{max(sizes)}"


def summary(run: Path, cpu_file: Path) -> dict[str, Any] | None:
    results = run / "results.json"
    if not results.exists():
        if cpu_file.exists() and json.loads(cpu_file.read_text()).get("error"):
            return {"error": json.loads(cpu_file.read_text())["error"]}
        return None
    data = json.loads(results.read_text())
    s = data["summary"]
    units = data["units"]
    cpu = json.loads(cpu_file.read_text()) if cpu_file.exists() else {}
    return {
        "aurpc": (s["aurpc"]["mean"], s["aurpc"]["std"], s["aurpc"]["n"]),
        "auroc": (s["auroc"]["mean"], s["auroc"]["std"], s["auroc"]["n"]),
        "aurpc_points": None
        if "aurpc_points" not in s
        else (s["aurpc_points"]["mean"], s["aurpc_points"]["std"], s["aurpc_points"]["n"]),
        "clauses": sum(u["clauses_evaluated"] for u in units) / max(len(units), 1),
        "cpu": cpu.get("cpu"),
        "resumed": cpu.get("resumed", False),
        "folds": {u["key"]: u["metrics"].get("aurpc") for u in units},
        "pool": pool_size(run),
    }


REFERENCE = {"gleaner": "gleaner", "pool": "gleaner", "aleph": "aleph-ensemble",
             "static-rf": "static-rf"}  # fmt: skip
"""The row each row's AURPC is t-tested against: its family's published method (the pool
runs Gleaner's searches at Gleaner's budget)."""


def t_test(s: dict[str, Any], ref: dict[str, Any] | None) -> str:
    """Two-sided K-fold paired t-test of the row's per-fold AURPC against the reference's."""
    from ilpkit.core.metrics import paired_t_test

    if ref is None or "error" in ref:
        return "-"
    keys = [k for k in s["folds"] if s["folds"][k] is not None and ref["folds"].get(k) is not None]
    if len(keys) < 2:
        return "-"
    t = paired_t_test([s["folds"][k] for k in keys], [ref["folds"][k] for k in keys])
    return f"{t.t:+.2f} ({t.p_value:.2f})"


def fmt(pair: tuple[float, float, int] | None) -> str:
    if pair is None or pair[0] is None or math.isnan(pair[0]):
        return "-"
    return f"{pair[0]:.3f} ± {pair[1]:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/ilpkit-composing"))
    parser.add_argument("--shared", default="/work/shared/data")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--rows", default="", help="Row names (default: all).")
    parser.add_argument("--jobs", type=int, default=1, help="Commands run at a time.")
    parser.add_argument(
        "--budget",
        default="20,500",
        help="SEEDS,CLAUSES_PER_SEED of the gleaner and pool families (use another --out).",
    )
    parser.add_argument("--print-only", action="store_true")
    parser.add_argument("--commands", action="store_true", help="Print the commands only.")
    args = parser.parse_args()
    SEEDS[:] = [int(x) for x in args.budget.split(",")]
    wanted = set(args.rows.split(",")) - {""}
    rows = [r for r in ROWS if not wanted or r.name in wanted]
    if wanted - {r.name for r in ROWS}:
        parser.error(f"unknown rows: {sorted(wanted - {r.name for r in ROWS})}")
    datasets = [DATASETS[d] for d in args.datasets.split(",")]

    plan = []
    for ds in datasets:
        for row in rows:
            run = args.out / ds.key / row.name
            plan.append((ds, row, run, args.out / ds.key / f"{row.name}.cpu.json"))
    if args.commands:
        for ds, row, run, _ in plan:
            print(f"# {ds.key} {row.name}\n{command_text(row.argv(ds, args.shared, run))}")
        return

    if not args.print_only:
        todo = [p for p in plan if not (p[2] / "results.json").exists()]
        lock = threading.Lock()

        def worker() -> None:
            while True:
                with lock:
                    if not todo:
                        return
                    ds, row, run, cpu_file = todo.pop(0)
                run.parent.mkdir(parents=True, exist_ok=True)
                print(f"running {ds.key} {row.name}", file=sys.stderr, flush=True)
                run_row(row.argv(ds, args.shared, run), run, cpu_file)

        threads = [threading.Thread(target=worker) for _ in range(max(args.jobs, 1))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    table = []
    for ds in datasets:
        print(f"\n{ds.label}\n")
        print("| family | composition | reproduces | AURPC | t (p) vs | AURPC (own PR points) "
              "| AUROC | clauses / fold | pool | CPU s |")  # fmt: skip
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        done = {r.name: summary(run, cpu) for d, r, run, cpu in plan if d is ds}
        for d, row, run, cpu_file in plan:
            if d is not ds:
                continue
            s = summary(run, cpu_file)
            table.append({"dataset": ds.key, "row": row.name, "family": row.family,
                          "command": command_text(row.argv(ds, args.shared, run)),
                          "result": s})  # fmt: skip
            if s is None or "error" in s:
                why = "not run" if s is None else f"fails: {s['error']}"
                print(
                    f"| {row.family} | {row.name} | {row.published or 'new'} | {why} | | | | | | |"
                )
                continue
            cpu = "-" if s["cpu"] is None else f"{s['cpu']:.1f}"
            if s["resumed"]:
                cpu += " (resumed)"
            reference = REFERENCE[row.family]
            versus = "-" if reference == row.name else t_test(s, done.get(reference))
            if versus != "-":
                versus += f" {reference}"
            print(f"| {row.family} | {row.name} | {row.published or 'new'} | {fmt(s['aurpc'])} "
                  f"| {versus} | {fmt(s['aurpc_points'])} | {fmt(s['auroc'])} "
                  f"| {s['clauses']:,.0f} | {s['pool']} | {cpu} |")  # fmt: skip
    if not args.commands:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "table.json").write_text(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
