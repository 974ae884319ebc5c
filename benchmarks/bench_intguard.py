"""What the integer bound costs SWI-Prolog 9.0 (ilpkit/plugins/backends/prolog/intguard.py).

Mutagenesis' background does its arithmetic in the ring-perception recursion (``N1 > 1, N2
is N1 - 1``) and in ``gteq/2``, ``lteq/2``: the clauses below (random legal clauses and greedy
chains from bottom clauses, as in bench_coverage.py, written once to a file) are covered by
one engine with the data's arithmetic bounded (``ilpkit_bounded_is/2``) or, with ``--off``,
as plain ``is/2`` and comparisons (the exporter's rewrite turned off in this process).

    python benchmarks/bench_intguard.py --make FILE --clauses 200   # the clause list
    python benchmarks/bench_intguard.py --clauses-file FILE --engine swipl [--off]
    python benchmarks/bench_intguard.py --synthetic --engine pyswip [--off]  # arithmetic-bound

Prints the engine's CPU seconds over the coverage loop (the subprocess engine's from /proc,
pyswip's from this process), the covered counts' checksum and, with pyswip, the inferences
(each arithmetic goal on numbers costs one more when bounded); pair runs with and without
``--off`` (farm-bench --vs) to time the whole process too.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ilpkit.core.formats import load_task  # noqa: E402
from ilpkit.core.task import Task  # noqa: E402
from ilpkit.datasets import bundled_path  # noqa: E402
from ilpkit.plugins.backends.prolog import intguard  # noqa: E402
from ilpkit.prolog.terms import Clause, clause_to_prolog  # noqa: E402


def _child_cpu(pid: int) -> float:
    """User + system seconds of process ``pid`` (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _inferences() -> int:
    """SWI-Prolog's inference count in this process (pyswip)."""
    from pyswip import Prolog

    return int(next(iter(Prolog.query("statistics(inferences, I)")))["I"])


def make(path: Path, n: int, seed: int) -> None:
    from benchmarks.bench_coverage import make_clauses
    from ilpkit.plugins.backends.native.engine import NativeBackend

    task = load_task(bundled_path("mutagenesis"))
    native = NativeBackend()
    native.load(task)
    random.seed(seed)
    clauses = make_clauses(task, native, n, seed)
    path.write_text("".join(clause_to_prolog(c) + "\n" for c in clauses), encoding="utf-8")
    print(f"{len(clauses)} clauses written to {path}")


def synthetic() -> tuple[Task, list[Clause]]:
    """Arithmetic-bound coverage: 300 examples, each summing 1..(1000 + i) by recursion (three
    arithmetic goals a step, about a million a clause), 20 clauses differing in a threshold."""
    from tests.reference_prover import make_task, term

    n = 300
    task = make_task(
        [f"num({i}, {1000 + i})" for i in range(n)],
        [f"t({i})" for i in range(0, n, 2)],
        [f"t({i})" for i in range(1, n, 2)],
        ["modeh(1, t(+k))", "modeb(1, num(+k, -n))", "modeb(1, tri(+n, -n))"],
    )
    for text in ("tri(0, 0)", "tri(N, S) :- N > 0, M is N - 1, tri(M, S0), S is S0 + N"):
        task.program.add_clause(Clause.from_term(term(text)))
    clauses = [
        Clause.from_term(term(f"t(A) :- num(A, N), tri(N, S), S > {500_000 + 2_000 * k}"))
        for k in range(20)
    ]
    return task, clauses


def run(path: Path | None, engine: str, off: bool, timeout: float) -> None:
    from ilpkit.prolog.reader import PrologReader

    if off:
        intguard.rewrite_clause = lambda clause: clause  # type: ignore[assignment]
    if path is None:
        task, clauses = synthetic()
    else:
        task = load_task(bundled_path("mutagenesis"))
        reader = PrologReader()
        clauses = [
            Clause.from_term(reader.read_term(line, name=str(path)))
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
    backend: object
    if engine == "swipl":
        from ilpkit.plugins.backends.prolog.subprocess_backend import (
            SubprocessBackend,
            SubprocessOptions,
        )

        backend = SubprocessBackend(SubprocessOptions(engine="swipl", timeout=timeout))
    else:
        from ilpkit.plugins.backends.prolog.swi_backend import SwiBackend, SwiOptions

        backend = SwiBackend(SwiOptions(bridge="pyswip", timeout=timeout))
    backend.load(task)  # type: ignore[attr-defined]
    pid = getattr(backend, "pid", None)
    inferences0 = _inferences() if engine == "pyswip" else 0
    cpu0 = _child_cpu(pid) if pid else time.process_time()
    wall0 = time.perf_counter()
    counts = []
    for clause in clauses:
        try:
            counts.append(len(backend.coverage(clause)))  # type: ignore[attr-defined]
        except Exception as exc:  # a limit: part of the workload's answer
            counts.append(-1)
            print("error:", type(exc).__name__, str(exc)[:120], file=sys.stderr)
    cpu = (_child_cpu(pid) if pid else time.process_time()) - cpu0
    wall = time.perf_counter() - wall0
    inferences = _inferences() - inferences0 if engine == "pyswip" else 0
    digest = hashlib.sha256(repr(counts).encode()).hexdigest()[:12]
    mode = "off" if off else "bounded"
    print(
        f"{engine} {mode}: {len(clauses)} clauses, engine cpu {cpu:.2f} s, wall {wall:.2f} s, "
        f"covered {sum(c for c in counts if c > 0)} (sha {digest})"
        + (f", {inferences:,} inferences" if inferences else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--make", type=Path)
    parser.add_argument("--clauses", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--clauses-file", type=Path)
    parser.add_argument("--synthetic", action="store_true", help="the arithmetic-bound task")
    parser.add_argument("--engine", choices=("swipl", "pyswip"), default="swipl")
    parser.add_argument("--off", action="store_true", help="plain is/2 (no bound)")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    if args.make:
        make(args.make, args.clauses, args.seed)
    elif args.clauses_file or args.synthetic:
        run(None if args.synthetic else args.clauses_file, args.engine, args.off, args.timeout)
    else:
        parser.error("give --make FILE, --clauses-file FILE or --synthetic")


if __name__ == "__main__":
    main()
