"""The floor under every command (issue 32): CPU seconds and peak RSS of whole ``ilpkit``
processes that do little work -- ``--version``, ``--help``, ``learn trains`` (with its
tables, and ``-q`` without) and ``data check trains`` -- so start-up (imports, plugin
registration, numba) is what they cost.

    python benchmarks/bench_floor.py [--repeat N] [TREE ...]
    python benchmarks/bench_floor.py --instructions [TREE ...]

Each TREE is an ilpkit source tree (default: this one) run as ``python -m ilpkit`` from that
folder (a ``git worktree`` of an older commit compares before and after). Each command runs
``--repeat`` times in a fresh process; the table gives the median user+system CPU seconds and
the median peak RSS (the child's own ``ru_maxrss`` from ``wait4``), and the modules among
networkx, scikit-learn, scipy and numba the command imported (``-X importtime`` of one more
run).

``--instructions`` counts instead the instructions each command executes (valgrind's
cachegrind, ``apt-get install valgrind``), and those of the floor that numpy, pydantic and
typer set (importing them, nothing else): unlike CPU seconds, the count is the same from
run to run (hash seed fixed, one BLAS thread) whatever speed the machine runs at, so a change
of 1% shows in one run. It counts instructions, not time: memory stalls are not in it.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
HEAVY = ("networkx", "sklearn", "scipy", "numba")
COMMANDS: dict[str, list[str]] = {
    "--version": ["--version"],
    "--help": ["--help"],
    "learn trains": ["learn", "trains"],
    "learn trains -q": ["learn", "trains", "-q"],
    "data check trains": ["data", "check", "trains"],
}


def run_once(tree: Path, args: list[str], *, importtime: bool = False) -> tuple[float, int, str]:
    """``(CPU s, peak RSS in bytes, stderr)`` of one ``python -m ilpkit ARGS`` in ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    flags = ["-X", "importtime"] if importtime else []
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(
            [sys.executable, *flags, "-m", "ilpkit", *args],
            cwd=tree, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    if child.returncode not in (0,):
        raise SystemExit(f"{tree}: ilpkit {' '.join(args)} exited {child.returncode}:\n{text}")
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * scale, text


FLOOR = "import numpy; from pydantic import BaseModel, TypeAdapter; import typer.main"
"""What every command imports before ilpkit does anything (the yardstick of issue 32)."""


def instructions(tree: Path, argv: list[str]) -> int:
    """Instructions executed by ``python ARGV`` in ``tree`` (cachegrind's ``I refs``)."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1")
    grind = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    warm = [sys.executable, *argv]  # once without valgrind: bytecode caches written, not counted
    subprocess.run(warm, cwd=tree, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    done = subprocess.run(
        [*grind, sys.executable, *argv],
        cwd=tree, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
    )  # fmt: skip
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"{tree}: valgrind {' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def print_instructions(trees: list[Path]) -> None:
    print("| tree | command | instructions (millions) | x the floor |")
    print("| --- | --- | ---: | ---: |")
    for tree in trees:
        tree = tree.resolve()
        floor = instructions(tree, ["-c", FLOOR])
        print(f'| {tree} | floor: `python -c "{FLOOR}"` | {floor / 1e6:.1f} | 1.00 |')
        for label, argv in COMMANDS.items():
            count = instructions(tree, ["-m", "ilpkit", *argv])
            print(f"| {tree} | `ilpkit {label}` | {count / 1e6:.1f} | {count / floor:.2f} |",
                  flush=True)  # fmt: skip


def heavy_imports(importtime: str) -> list[str]:
    """The top-level modules among :data:`HEAVY` named in ``-X importtime`` output."""
    found = set()
    for line in importtime.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name in HEAVY:
                found.add(name)
    return sorted(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, default=[HERE])
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (median kept)")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (valgrind) instead"
    )
    args = parser.parse_args()
    if args.instructions:
        print_instructions(args.trees)
        return
    print(f"| tree | command | CPU s (median of {args.repeat}) | peak RSS MB | heavy imports |")
    print("| --- | --- | ---: | ---: | --- |")
    for tree in args.trees:
        tree = tree.resolve()
        for label, argv in COMMANDS.items():
            runs = [run_once(tree, argv) for _ in range(args.repeat)]
            cpu = statistics.median(r[0] for r in runs)
            rss = statistics.median(r[1] for r in runs) / 2**20
            heavy = heavy_imports(run_once(tree, argv, importtime=True)[2])
            print(f"| {tree} | `ilpkit {label}` | {cpu:.2f} | {rss:.0f} | "
                  f"{', '.join(heavy) or '-'} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
