"""Coverage of the clauses classic Aleph itself evaluates, one call per clause: the native
backend against a plain SWI-Prolog loop (issue 32, "cheap clauses").

    python benchmarks/bench_captured.py capture --aleph PATH/aleph_orig.pl [--datasets ...]
    python benchmarks/bench_captured.py time [--datasets ...] [--limit 10]

``capture`` writes each data set in Aleph's format (as ``bench_vs_aleph.py`` does, into
``--scratch``, outside the repository), runs Aleph's ``induce`` under ``swipl`` with a
``prune/1`` that records every clause Aleph asks it about and fails (so nothing is pruned:
Aleph asks ``prune/1`` of each clause before it evaluates it), and keeps the distinct
clauses in order in ``SCRATCH/NAME/captured.pl``.  Aleph is not part of ilpkit: fetch it
(friguzzi/aleph) yourself.  ``time`` evaluates those clauses on the whole example set:
a fresh native backend, one ``coverage`` call per clause (the kernel loaded first, not
timed), and ``bench_coverage.py``'s plain SWI-Prolog loop (``aggregate_all(count, (ex(E),
\\+ \\+ (E = Head, Body)))`` per clause, timed inside Prolog); covered counts compared.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_coverage import LAST_PROLOG_CPU, time_prolog  # noqa: E402
from benchmarks.bench_vs_aleph import DATASETS  # noqa: E402
from ilpkit.core.formats import load_task  # noqa: E402
from ilpkit.core.task import Task  # noqa: E402
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions  # noqa: E402
from ilpkit.plugins.backends.native.kernels import warm_up  # noqa: E402
from ilpkit.plugins.formats.aleph import AlephFormat  # noqa: E402
from ilpkit.prolog.reader import read_term  # noqa: E402
from ilpkit.prolog.terms import Clause  # noqa: E402

CAPTURE_DRIVER = """
:- set_prolog_flag(verbose_load, silent).
:- style_check(-singleton).
:- style_check(-discontiguous).
:- consult('%(aleph)s').
:- read_all('%(stem)s').
%(sets)s
:- open('captured.raw', write, S), nb_setval(captured, S).
prune(C) :-
    \\+ \\+ ( nb_getval(captured, S), numbervars(C, 0, _),
             write_term(S, C, [quoted(true), numbervars(true)]), write(S, '.'), nl(S) ),
    fail.
:- set(prune_defs, true).  %% read_all/1 looked for prune/1 before it was defined
:- induce, nb_getval(captured, S), close(S).
"""


def task_files(name: str, scratch: Path) -> tuple[Path, str, Task, dict[str, str]]:
    """The data set written in Aleph's format (one training set), its stem and task."""
    path, source_stem, own = DATASETS[name]
    task = load_task(path, stem=source_stem)
    folder = scratch / name
    folder.mkdir(parents=True, exist_ok=True)
    folds = task.examples.folds
    if (folds >= 0).any():
        folds = folds.copy()
        folds[:] = -1
        object.__setattr__(task.examples, "folds", folds)
    paths = AlephFormat().write(task, folder)
    stem = next(p.stem for p in paths if p.suffix == ".b")
    return folder, stem, load_task(folder, stem=stem), own


def capture(name: str, aleph: Path, scratch: Path, timeout: float) -> int:
    folder, stem, _, own = task_files(name, scratch)
    sets = "\n".join(f":- set({k}, {v})." for k, v in own.items())
    (folder / "capture.pl").write_text(
        CAPTURE_DRIVER % {"aleph": aleph, "stem": stem, "sets": sets}
    )
    subprocess.run(["swipl", "-q", "capture.pl", "-g", "halt"], cwd=folder, check=True,
                   capture_output=True, timeout=timeout)  # fmt: skip
    seen: dict[str, None] = {}
    for line in (folder / "captured.raw").read_text().splitlines():
        seen.setdefault(line, None)
    (folder / "captured.pl").write_text("\n".join(seen) + "\n")
    return len(seen)


def timing(name: str, scratch: Path, limit: float) -> None:
    folder, _, task, _ = task_files(name, scratch)
    lines = (folder / "captured.pl").read_text().splitlines()
    clauses = [Clause.from_term(read_term(line)) for line in lines if line.strip()]
    warm_up()
    backend = NativeBackend(NativeOptions(kernel=True))
    backend.load(task)
    start = time.process_time()
    native = [len(backend.coverage(c)) for c in clauses]
    native_s = time.process_time() - start
    pro = time_prolog(task, clauses, limit)
    if pro is None:
        print(f"{name}: swipl failed")
        return
    done = [i for i, n in enumerate(pro[1]) if n >= 0]
    swipl_s = sum(LAST_PROLOG_CPU[i] for i in done)
    agree = sum(1 for i in done if pro[1][i] == native[i])
    print(f"| {name} | {len(task.examples):,} | {len(clauses):,} | {swipl_s:.2f} | "
          f"{native_s:.2f} | {native_s / len(clauses) * 1e3:.3f} | "
          f"{swipl_s / native_s:.1f} | {agree}/{len(done)} |", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("mode", choices=["capture", "time"])
    parser.add_argument("--aleph", type=Path, help="Aleph's aleph_orig.pl (capture)")
    parser.add_argument("--datasets", default="webkb,carcinogenesis,uwcse")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/ilpkit-captured"))
    parser.add_argument("--limit", type=float, default=10.0, help="SWI seconds per clause")
    parser.add_argument("--timeout", type=float, default=3600.0)
    args = parser.parse_args()
    if args.mode == "time":
        print("| data | examples | clauses | swipl CPU s | native CPU s | native ms/call | "
              "x swipl | agree |\n|---|---:|---:|---:|---:|---:|---:|---|")  # fmt: skip
    for name in args.datasets.split(","):
        if args.mode == "capture":
            if args.aleph is None:
                raise SystemExit("capture needs --aleph PATH/aleph_orig.pl")
            n = capture(name, args.aleph.resolve(), args.scratch, args.timeout)
            print(f"{name}: {n:,} distinct clauses", flush=True)
        else:
            timing(name, args.scratch, args.limit)


if __name__ == "__main__":
    main()
