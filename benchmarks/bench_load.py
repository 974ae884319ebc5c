"""Loading large data: reading a task and loading it into the native backend.

Usage::

    python benchmarks/bench_load.py                          # 50k and 280k synthetic examples
    python benchmarks/bench_load.py --examples 50000 --repeat 3

Generates the synthetic information-extraction task (``ilpkit datasets synth``: about 18
background facts per example) in a temporary folder, then, in a fresh Python process per
size, times ``ilpkit.load_task`` (reading and routing every clause) and the native
backend's ``load`` (interning the facts into id columns), and reports facts/second and peak
RSS.  Prints a table and writes ``benchmarks/results/load.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

CHILD = """
import json, sys, time
sys.path.insert(0, "benchmarks")
from memory import peak_rss_mb
import ilpkit
from ilpkit.plugins.backends.native.engine import NativeBackend
t0 = time.perf_counter()
task = ilpkit.load_task(sys.argv[1])
t1 = time.perf_counter()
backend = NativeBackend()
backend.load(task)
t2 = time.perf_counter()
print(json.dumps({
    "facts": task.program.n_facts(),
    "examples": len(task.examples),
    "read_s": t1 - t0,
    "backend_s": t2 - t1,
    "peak_mb": peak_rss_mb(),
}))
"""


def measure(folder: Path, repeat: int) -> dict[str, Any]:
    best: dict[str, Any] | None = None
    for _ in range(repeat):
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(folder)],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
        run = json.loads(proc.stdout)
        if best is None or run["read_s"] + run["backend_s"] < best["read_s"] + best["backend_s"]:
            best = run
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, nargs="+", default=[50_000, 280_000])
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per size (best kept)")
    parser.add_argument("--json", type=Path, default=RESULTS / "load.json")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from ilpkit.datasets.synth import SynthParams, write

    rows = []
    for n in args.examples:
        with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
            write(SynthParams(examples=n, skew=150, noise=0.05, folds=5), Path(tmp))
            size_mb = sum(p.stat().st_size for p in Path(tmp).iterdir()) / 1e6
            row = {
                "examples_requested": n,
                "size_mb": round(size_mb, 1),
                **measure(Path(tmp), args.repeat),
            }
        rows.append(row)
    head = (
        f"{'examples':>9} {'facts':>10} {'MB':>6} {'read s':>7} {'native s':>8} "
        f"{'total s':>7} {'facts/s':>9} {'peak MB':>8}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        total = r["read_s"] + r["backend_s"]
        print(
            f"{r['examples']:9,d} {r['facts']:10,d} {r['size_mb']:6.1f} {r['read_s']:7.1f} "
            f"{r['backend_s']:8.1f} {total:7.1f} {r['facts'] / total:9,.0f} {r['peak_mb']:8.0f}"
        )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps(
            {"machine": platform.platform(), "python": platform.python_version(), "runs": rows},
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
