"""End to end: ``ilpkit learn`` against classic Aleph on the same files and settings.

For each data set the task is read by ilpkit and written once in Aleph's format
(``STEM.b/.f/.n``, ilpkit's own Aleph writer) into a scratch folder outside the repository;
both systems then learn from those very files with the same settings overrides
(``--set KEY=VALUE`` for ilpkit, ``set(Key, Value)`` after ``read_all/1`` for Aleph):

* Aleph: ``aleph_orig.pl`` of friguzzi/aleph (fetch it yourself; it is not part of ilpkit)
  under ``swipl``, ``read_all(STEM), induce``;
* ilpkit: ``python -m ilpkit learn STEM_DIR --stem STEM --set ...`` (search and scorer from
  the data's settings, as Aleph reads them).

Settings Aleph rejects (it prints ``[error] [set(K,V)]``) it nevertheless *keeps*: its
``check_setting`` reports the value and does not fail.  Aleph 5 knows no ``evalfn f``, the
UW-CSE file's setting, so its labels score ``-inf`` (its trace: ``[best label so far]
[[1,0,2,-1.0Inf]/0]``) and its theory stays empty; UW-CSE is therefore run with
``evalfn=coverage`` for both systems (its entry below), and any other refused ``evalfn``
makes ilpkit run ``coverage`` too (unless ``--as-written``) with the row's note saying so.
The fixed runtime overhead is measured the same way: ``python -c "import ilpkit.cli.main"``
and ``ilpkit learn trains`` (10 examples: interpreter, imports, compiled kernels, no data to
speak of).

Each run is a child of a fresh wrapper process, so its CPU seconds (user + system) and peak
resident memory (``ru_maxrss`` of the wrapper's children) are the run's own.  Training
accuracy is recomputed by ilpkit's native backend for both theories (Aleph's printed
confusion matrix is shown beside it).

    python benchmarks/bench_vs_aleph.py --aleph /work/aleph-run/aleph_orig.pl
    python benchmarks/bench_vs_aleph.py --aleph PATH --datasets webkb,carcinogenesis \\
        --set nodes=5000 --scratch /work/aleph-run

Prints a table; writes ``benchmarks/results/vs_aleph.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_coverage import SHARED  # noqa: E402
from ilpkit.core.formats import load_task  # noqa: E402
from ilpkit.core.task import Examples, Task  # noqa: E402
from ilpkit.datasets import bundled_path  # noqa: E402
from ilpkit.plugins.backends.native.engine import NativeBackend  # noqa: E402
from ilpkit.plugins.formats.aleph import AlephFormat  # noqa: E402
from ilpkit.prolog.reader import read_term  # noqa: E402
from ilpkit.prolog.terms import Clause, is_ground  # noqa: E402

# name: (path, stem, extra settings both systems get)
DATASETS: dict[str, tuple[Path, str | None, dict[str, str]]] = {
    # evalfn: the file's `f` is unknown to Aleph 5 (every label -inf); coverage is its default
    "uwcse": (
        SHARED / "uwcse" / "aleph_yap",
        "advisedby",
        {"nodes": "5000", "evalfn": "coverage"},
    ),
    "webkb": (SHARED / "webkb" / "prolog_ilpexp" / "train", None, {}),
    "carcinogenesis": (SHARED / "carcinogenesis" / "aleph_yap", "aleph", {}),
    "mutagenesis": (bundled_path("mutagenesis"), None, {}),
    # untuned (issue 32): data ilpkit was never tuned on, run with the files' own settings
    "alzheimers_amine": (SHARED / "alzheimers" / "aleph_yap", "aleph", {}),
    "pyrimidines": (SHARED / "pyrimidines_triazines" / "aleph_yap", "pyrimidines", {}),
}

# Data whose settings name a training and a test set (``train_pos``/``test_pos``): both
# systems learn from the training set alone, as the data's own settings say (the others'
# test sets, if any, are merged into one training set, as before).
TRAIN_FOLD_ONLY = {"pyrimidines"}

WRAP = r"""
import resource, subprocess, sys, json
try:
    p = subprocess.run(sys.argv[2:], capture_output=True, text=True, timeout=float(sys.argv[1]))
    rc, out, err = p.returncode, p.stdout, p.stderr
except subprocess.TimeoutExpired as exc:  # killed and reaped: its usage is counted below
    rc, out, err = -9, str(exc.stdout or ""), "timed out"
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": rc, "cpu": r.ru_utime + r.ru_stime,
                  "rss_mb": r.ru_maxrss / 1024, "out": out[-200000:], "err": err[-5000:]}))
"""

ALEPH_DRIVER = """
:- set_prolog_flag(verbose_load, silent).
:- style_check(-singleton).
:- style_check(-discontiguous).
:- consult('%(aleph)s').
:- read_all('%(stem)s').
%(sets)s
:- statistics(cputime, T0), induce, statistics(cputime, T1), T is T1 - T0,
   format("ALEPH-CPU ~w~n", [T]),
   forall(( '$aleph_global'(rules, rules(L)), member(N, L),
            '$aleph_global'(theory, theory(N, _, C, _, _)) ),
          ( numbervars(C, 0, _),
            write('ALEPH-RULE '), write_term(C, [quoted(true), numbervars(true)]), nl )).
"""


@dataclass
class Row:
    dataset: str
    system: str
    cpu_s: float
    peak_rss_mb: float
    clauses: int | None
    rules: int
    train_acc: float | None
    returncode: int
    note: str = ""
    facts: int = 0
    """Ground unit clauses in the theory: Aleph adds a seed it found no acceptable clause
    for as a fact (``rules`` counts the others); ilpkit sets such a seed aside."""
    rules_only_acc: float | None = None
    """Training accuracy of the theory without those facts."""
    same_theory: bool | None = None
    """(ilpkit's row) Whether its theory is Aleph's, rule for rule up to variable names and
    the order of body literals (:func:`canonical`); None if Aleph did not run."""
    theory: list[str] = field(default_factory=list)
    """The theory's rules, each in :func:`canonical` form, sorted."""


def measure(cmd: list[str], cwd: Path, timeout: float) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", WRAP, str(timeout), *cmd],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout + 60,
    )
    if proc.returncode != 0:
        return {"rc": -1, "cpu": 0.0, "rss_mb": 0.0, "out": "", "err": proc.stderr[-3000:]}
    return json.loads(proc.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def training_accuracy(task: Task, rules: list[Clause]) -> float:
    backend = NativeBackend()
    backend.load(task)
    covered: set[int] = set()
    for r in rules:
        covered |= set(backend.coverage(r).tolist())
    pos = set(task.examples.positives.tolist())
    n = len(task.examples)
    tp = len(covered & pos)
    tn = n - len(pos) - len(covered - pos)
    return (tp + tn) / n


def canonical(rule: Clause) -> str:
    """The rule's variant-normal form (:meth:`Clause.canonical`) under the body order that
    writes smallest (every order up to 7 literals; longer bodies sorted by their text): two
    rules are the same rule iff their canonical forms are equal (up to 7 literals)."""
    body = rule.body
    orders = itertools.permutations(body) if len(body) <= 7 else [sorted(body, key=str)]
    return min(str(Clause(rule.head, tuple(order)).canonical()) for order in orders)


def rejected_settings(aleph_out: str) -> list[str]:
    """The settings Aleph reported as illegal (``[error] [set(Key,Value)]``; it keeps them
    all the same)."""
    return sorted(set(re.findall(r"^\[error\] \[set\((\w+),", aleph_out, re.M)))


def run_dataset(
    name: str,
    aleph: Path,
    scratch: Path,
    sets: dict[str, str],
    timeout: float,
    systems: set[str],
    as_written: bool,
    ilpkit_only: dict[str, str] | None = None,
    learner: str = "theory",
) -> list[Row]:
    path, source_stem, own = DATASETS[name]
    task = load_task(path, stem=source_stem)
    folder = scratch / name
    folder.mkdir(parents=True, exist_ok=True)
    folds = task.examples.folds
    if name in TRAIN_FOLD_ONLY and "train" in task.fold_names:  # the data's own split
        keep = np.flatnonzero(folds == task.fold_names.index("train"))
        ex = task.examples
        task.examples = Examples(
            [ex.atoms[i] for i in keep],
            ex.labels[keep],
            ex.weights[keep],
            ex.folds[keep],
            [ex.locations[i] for i in keep],
        )
        folds = task.examples.folds
    if (folds >= 0).any():  # one training set: Aleph's read_all reads STEM.f/.n only
        folds = folds.copy()
        folds[:] = -1
        object.__setattr__(task.examples, "folds", folds)
    paths = AlephFormat().write(task, folder)
    stem = next(p.stem for p in paths if p.suffix == ".b")
    written = load_task(folder, stem=stem)
    settings = {**own, **sets}
    rows = []
    ilpkit_settings = dict(settings)
    note = ""
    if "aleph" in systems:
        aleph_row, out = run_aleph(name, aleph, folder, stem, written, settings, timeout)
        rows.append(aleph_row)
        refused = rejected_settings(out)
        if refused:
            aleph_row.note = "Aleph refused " + ", ".join(refused)
        if "evalfn" in refused and not as_written:
            ilpkit_settings["evalfn"] = "coverage"
            note = "evalfn=coverage, as Aleph ran"
    if ilpkit_only:
        ilpkit_settings.update(ilpkit_only)
        note = "; ".join(filter(None, [note, " ".join(f"{k}={v}" for k, v in ilpkit_only.items())]))
    if "ilpkit" in systems:
        if learner != "theory":
            note = "; ".join(filter(None, [note, f"--learner {learner}"]))
        row = run_ilpkit(name, folder, stem, written, ilpkit_settings, timeout, note, learner)
        if "aleph" in systems and rows[0].returncode == 0 and row.returncode == 0:
            row.same_theory = row.theory == rows[0].theory
        rows.append(row)
    return rows


def run_aleph(
    name: str,
    aleph: Path,
    folder: Path,
    stem: str,
    written: Task,
    settings: dict[str, str],
    timeout: float,
) -> tuple[Row, str]:
    driver = folder / "run_aleph.pl"
    lines = "\n".join(f":- set({k}, {v})." for k, v in settings.items())
    driver.write_text(ALEPH_DRIVER % {"aleph": aleph, "stem": stem, "sets": lines})
    res = measure(["swipl", "-q", str(driver), "-g", "halt"], folder, timeout)
    out = str(res["out"])
    (folder / "aleph.out").write_text(out + "\n--- stderr\n" + str(res["err"]))
    nodes = re.findall(r"\[total clauses constructed\] \[?(\d+)", out)
    aleph_rules = [
        Clause.from_term(read_term(m)) for m in re.findall(r"^ALEPH-RULE (.*)$", out, re.M)
    ]
    facts = [c for c in aleph_rules if not c.body and is_ground(c.head)]
    general = [c for c in aleph_rules if c not in facts]
    done = res["rc"] == 0
    return (
        Row(
            name,
            "aleph",
            float(res["cpu"]),  # type: ignore[arg-type]
            float(res["rss_mb"]),  # type: ignore[arg-type]
            int(nodes[-1]) if nodes else None,
            len(general),
            training_accuracy(written, aleph_rules) if done else None,
            int(res["rc"]),  # type: ignore[call-overload]
            facts=len(facts),
            rules_only_acc=training_accuracy(written, general) if done else None,
            theory=sorted(map(canonical, aleph_rules)),
        ),
        out,
    )


def run_ilpkit(
    name: str,
    folder: Path,
    stem: str,
    written: Task,
    settings: dict[str, str],
    timeout: float,
    note: str,
    learner: str = "theory",
) -> Row:
    model = folder / "model.json"
    model.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "ilpkit", "learn", str(folder), "--stem", stem, "-q"]
    cmd += ["--learner", learner]
    cmd += ["--out", str(model)]
    for k, v in settings.items():
        cmd += ["--set", f"{k}={v}"]
    res = measure(cmd, ROOT, timeout)
    rules: list[Clause] = []
    evaluated = None
    if res["rc"] == 0 and model.exists():
        m = json.loads(model.read_text())
        rules = [Clause.from_term(read_term(r["clause"])) for r in m["rules"]]
        evaluated = int(m["clauses_evaluated"])
    else:
        print(str(res["err"])[-2000:], file=sys.stderr)
    facts = [c for c in rules if not c.body and is_ground(c.head)]
    general = [c for c in rules if c not in facts]
    done = res["rc"] == 0
    return Row(
        name,
        "ilpkit",
        float(res["cpu"]),  # type: ignore[arg-type]
        float(res["rss_mb"]),  # type: ignore[arg-type]
        evaluated,
        len(general),
        training_accuracy(written, rules) if done else None,
        int(res["rc"]),  # type: ignore[call-overload]
        note,
        facts=len(facts),
        rules_only_acc=training_accuracy(written, general) if done and facts else None,
        theory=sorted(map(canonical, rules)),
    )


def runtime_overhead(timeout: float) -> list[Row]:
    """CPU and peak RSS of the CLI's imports and of learning the 10-example trains task."""
    rows = []
    runs = {
        "import cli": [sys.executable, "-c", "import ilpkit.cli.main"],
        "learn trains": [sys.executable, "-m", "ilpkit", "learn", "trains", "-q"],
    }
    for what, cmd in runs.items():
        res = measure(cmd, ROOT, timeout)
        rows.append(
            Row(
                "(runtime)",
                "ilpkit",
                float(res["cpu"]),  # type: ignore[arg-type]
                float(res["rss_mb"]),  # type: ignore[arg-type]
                None,
                0,
                None,
                int(res["rc"]),  # type: ignore[call-overload]
                what,
            )
        )
    return rows


def print_table(rows: list[Row]) -> None:
    head = (
        f"{'dataset':15} {'system':7} {'CPU s':>8} {'clauses':>9} {'rules':>5} "
        f"{'train acc':>9} {'facts':>5} {'acc w/o facts':>13} {'peak RSS MB':>11} "
        f"{'theory':>7}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        acc = f"{r.train_acc:9.3f}" if r.train_acc is not None else f"{'-':>9}"
        cl = f"{r.clauses:9,d}" if r.clauses is not None else f"{'-':>9}"
        flag = {0: "", -9: "  (timed out)"}.get(r.returncode, f"  (exit {r.returncode})")
        acc2 = f"{r.rules_only_acc:13.3f}" if r.rules_only_acc is not None else f"{'-':>13}"
        same = {None: "-", True: "same", False: "OTHER"}[r.same_theory]
        print(
            f"{r.dataset:15} {r.system:7} {r.cpu_s:8.1f} {cl} {r.rules:5d} {acc} "
            f"{r.facts:5d} {acc2} "
            f"{r.peak_rss_mb:11.0f} {same:>7}{flag}  {r.note}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aleph", required=True, help="path of Aleph's aleph_orig.pl")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--scratch", default="/tmp/ilpkit-vs-aleph")
    parser.add_argument("--set", action="append", default=[], help="KEY=VALUE for both")
    parser.add_argument(
        "--ilpkit-set",
        action="append",
        default=[],
        help="KEY=VALUE for ilpkit only (e.g. learner.seed_without_rule=fact: Aleph's facts)",
    )
    parser.add_argument(
        "--learner",
        default="theory",
        help="ilpkit's learner: theory (default) or aleph (Aleph's induce: seeds as facts)",
    )
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    parser.add_argument("--systems", default="aleph,ilpkit", help="which of aleph,ilpkit to run")
    parser.add_argument(
        "--as-written",
        action="store_true",
        help="ilpkit keeps an evalfn Aleph refused (default: coverage, Aleph's default)",
    )
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "vs_aleph.json"))
    args = parser.parse_args()
    sets = dict(s.split("=", 1) for s in args.set)
    own_sets = dict(s.split("=", 1) for s in args.ilpkit_set)
    systems = set(args.systems.split(","))
    load_before = os.getloadavg()
    rows: list[Row] = runtime_overhead(args.timeout)
    for name in args.datasets.split(","):
        got = run_dataset(
            name.strip(),
            Path(args.aleph),
            Path(args.scratch),
            sets,
            args.timeout,
            systems,
            args.as_written,
            own_sets,
            args.learner,
        )
        for r in got:
            print(f"... {r}", flush=True)
        rows += got
    load = {"before": load_before, "after": os.getloadavg()}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps({"load_average": load, "rows": [asdict(r) for r in rows]}, indent=2)
    )
    print_table(rows)
    print(f"load average (1, 5, 15 min) before {load_before}, after {load['after']}")


if __name__ == "__main__":
    main()
