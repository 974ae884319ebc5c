"""CPU cost of composing a cross-validation run: ``ilpkit cv`` with a tiny clause budget, so
reading the data dominates (the task is read once since ilpkit.experiment.compose; it was read
three times: by the CLI to pick defaults, by the run, and by the first unit).

    python benchmarks/bench_cv_startup.py [--data PATH] [TREE ...]

Each TREE is an ilpkit source tree (default: this one) run as ``python -m ilpkit`` from that
folder; the table gives the child process's user+system CPU seconds, best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def cpu_seconds(tree: Path, data: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(
            [sys.executable, "-m", "ilpkit", "cv", data, "-l", "theory", "--search", "topdown",
             "--scorer", "laplace", "--set", "nodes=5", "--set", "learner.max_rules=1",
             "--folds", "2", "-q", "-o", str(Path(tmp) / "run")],
            cwd=tree, check=True, capture_output=True,
        )  # fmt: skip
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        shutil.rmtree(Path(tmp) / "run", ignore_errors=True)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, default=[HERE])
    parser.add_argument("--data", default="uwcse", help="dataset path or bundled name")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    print(f"| tree | data | cv CPU s (best of {args.repeat}) |")
    print("| --- | --- | ---: |")
    for tree in args.trees:
        best = min(cpu_seconds(tree, args.data) for _ in range(args.repeat))
        print(f"| {tree} | {args.data} | {best:.2f} |")


if __name__ == "__main__":
    main()
