"""Coverage throughput: the native backend against a plain SWI-Prolog loop.

For each dataset a fixed, seeded list of clauses is built: random legal clauses of 2..6
literals (counting the head) from the bottom clauses of random positive seeds, plus the
refinement chains of a greedy hill climb (TP - FP) from the same bottom clauses.  The native
backend evaluates them all (fresh backend, so parent reuse only helps within the list, as it
would in a search); SWI-Prolog evaluates the same clauses on the same data in one process with
``aggregate_all(count, (ex(E), \\+ \\+ (E = Head, Body)))`` per clause -- the way Aleph tests
coverage -- timed inside Prolog.  Covered counts are compared, so the benchmark doubles as an
agreement check.

    python benchmarks/bench_coverage.py                 # all datasets found
    python benchmarks/bench_coverage.py --datasets uwcse,mutagenesis --clauses 300
    python benchmarks/bench_coverage.py --workload crossprod   # cross-product clauses
    python benchmarks/bench_coverage.py --datasets uwcse,mutagenesis \
        --backends native,swi-janus,swi-pyswip,subprocess-swipl,subprocess-gprolog

Prints a table and writes ``benchmarks/results/coverage.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Collection
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ilpkit.core.formats import load_task  # noqa: E402
from ilpkit.core.refine import Refiner  # noqa: E402
from ilpkit.core.task import Task  # noqa: E402
from ilpkit.datasets import bundled_path  # noqa: E402
from ilpkit.errors import IlpkitError  # noqa: E402
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions  # noqa: E402
from ilpkit.plugins.backends.native.kernels import warm_up  # noqa: E402
from ilpkit.prolog.terms import Clause, clause_to_prolog, to_prolog  # noqa: E402


def _shared_data() -> Path:
    """``../shared/data`` from the repository, or from a worktree two levels down."""
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "data").is_dir():
            return base / "shared" / "data"
    return ROOT.parent / "shared" / "data"


SHARED = _shared_data()

DATASETS: dict[str, tuple[Path, str | None, str]] = {
    # name: (path, stem, kind)
    "trains": (bundled_path("trains"), None, "facts"),
    "uwcse": (bundled_path("uwcse"), None, "facts"),
    "imdb1": (SHARED / "imdb" / "prolog_ilpexp", "imdb1", "facts"),
    "imdb2": (SHARED / "imdb" / "prolog_ilpexp" / "imdb2", None, "facts"),
    "imdb3": (SHARED / "imdb" / "prolog_ilpexp" / "imdb3", None, "facts"),
    "webkb": (SHARED / "webkb" / "boostsrl_srlearn" / "webkb", None, "facts"),
    "cora": (SHARED / "cora" / "boostsrl_srlearn" / "cora", None, "facts"),
    "mutagenesis": (bundled_path("mutagenesis"), None, "rules"),
    "carcinogenesis": (SHARED / "carcinogenesis" / "aleph_yap", None, "rules"),
    "triazines": (SHARED / "pyrimidines_triazines" / "prolog_ilpexp" / "triazines", None, "rules"),
}


@dataclass
class Result:
    dataset: str
    kind: str
    examples: int
    facts: int
    clauses: int
    load_s: float
    load_peak_mb: float
    native_s: float
    numpy_s: float | None
    jit_s: float
    native_clauses_per_s: float
    native_ex_clauses_per_s: float
    cache_mb: float
    prolog_s: float | None
    prolog_clauses_per_s: float | None
    ratio: float | None
    agree: int | None
    disagree: int | None


# Body modes left out per dataset (none: mutagenesis' ring-perception rules, exhaustive graph
# searches of 1.5M-10M inferences per drug in SWI-Prolog, are answered set-at-a-time by the
# native engine).
DROP_MODES: dict[str, set[str]] = {}

# ``--table``: predicates SWI-Prolog tables (``:- table p/n``) when given, per dataset.
TABLE: dict[str, set[str]] = {
    "mutagenesis": {
        "benzene", "carbon_5_aromatic_ring", "carbon_6_ring", "hetero_aromatic_6_ring",
        "hetero_aromatic_5_ring", "ring_size_6", "ring_size_5", "anthracene", "phenanthrene",
        "ball3",
    },
}  # fmt: skip


def make_clauses(task: Task, backend: NativeBackend, n: int, seed: int) -> list[Clause]:
    """Random legal clauses (2..6 literals with the head) and hill-climbing chains."""
    rng = random.Random(seed)
    positives = task.examples.positives.tolist()
    depth = min(int(task.bias.settings["i"]), 2)
    clauses: list[Clause] = []
    seen: set[Clause] = set()
    attempts = 0
    while len(clauses) < n and attempts < n * 3:
        attempts += 1
        ex = rng.choice(positives)
        bottom = backend.saturate(ex, depth=depth)
        if len(bottom) == 0:
            continue
        refiner = Refiner(bottom, clauselength=6)
        for _ in range(8):
            drawn = refiner.random_clause(rng.randint(1, 5), rng)
            cl = bottom.clause(drawn)
            if drawn and cl.canonical() not in seen:
                seen.add(cl.canonical())
                clauses.append(cl)
        # a short greedy chain: add the literal that maximises TP - FP
        body: tuple[int, ...] = ()
        for _ in range(4):
            options = refiner.additions(body)[:40]
            if not options:
                break
            best = None
            for k in options:
                cand = refiner.add(body, k)
                cl = bottom.clause(cand)
                c = backend.coverage(cl).counts(task.examples)
                score = c.tp - c.fp
                if best is None or score > best[0]:
                    best = (score, cand)
            assert best is not None
            body = best[1]
            cl = bottom.clause(body)
            if cl.canonical() not in seen:
                seen.add(cl.canonical())
                clauses.append(cl)
    return clauses[:n]


def time_native(
    task: Task, clauses: list[Clause], kernel: bool = True
) -> tuple[float, list[int], float]:
    """CPU seconds of a fresh native backend on ``clauses`` (the kernel warmed up first)."""
    backend = NativeBackend(NativeOptions(kernel=kernel))
    backend.load(task)
    start = time.process_time()
    covered = []
    LAST_NATIVE_CPU.clear()
    for c in clauses:
        t = time.process_time()
        covered.append(len(backend.coverage(c)))
        LAST_NATIVE_CPU.append(time.process_time() - t)
    elapsed = time.process_time() - start
    return elapsed, covered, backend.cache_bytes / 1e6


PROLOG_DRIVER = r"""
:- style_check(-singleton).
:- style_check(-discontiguous).
run :-
    statistics(cputime, T0),
    forall(cl(I, H, B),
           ( statistics(cputime, C0),
             catch(call_with_time_limit(%(limit)s,
                     aggregate_all(count, (ex(E), \+ \+ (E = H, call(B))), N)), _, N = -1),
             statistics(cputime, C1),
             C is C1 - C0,
             assertz(result(I, N, C)) )),
    statistics(cputime, T1),
    T is T1 - T0,
    format("time ~w~n", [T]),
    forall(result(I, N, C), format("~w ~w ~w~n", [I, N, C])).
"""


def time_prolog(
    task: Task,
    clauses: list[Clause],
    limit: float,
    table: Collection[str] = (),
) -> tuple[float, list[int]] | None:
    swipl = shutil.which("swipl")
    if swipl is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        with open(d / "bk.pl", "w", encoding="utf-8") as out:
            out.write(":- style_check(-singleton).\n:- style_check(-discontiguous).\n")
            preds = {m.indicator for m in task.bias.modeb} | set(task.program.predicates())
            for name, arity in sorted(preds):
                if name in table:
                    out.write(f":- table({to_prolog_ind(name, arity)}).\n")
                else:
                    out.write(f":- dynamic({to_prolog_ind(name, arity)}).\n")
            for clause in task.program.iter_clauses():
                out.write(clause_to_prolog(clause) + "\n")
        with open(d / "ex.pl", "w", encoding="utf-8") as out:
            for atom in task.examples.atoms:
                out.write(f"ex({to_prolog(atom, 999)}).\n")
            for i, cl in enumerate(clauses):
                body = ", ".join(to_prolog(b, 999) for b in cl.body) or "true"
                out.write(f"cl({i}, {to_prolog(cl.head, 999)}, ({body})).\n")
        (d / "driver.pl").write_text(PROLOG_DRIVER % {"limit": limit}, encoding="utf-8")
        cmd = [
            swipl,
            "-q",
            "--traditional",
            "-g",
            "consult(bk), consult(ex), consult(driver), run",
            "-t",
            "halt",
        ]
        proc = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=7200)
        if proc.returncode != 0:
            print(proc.stderr[-2000:], file=sys.stderr)
            return None
        lines = proc.stdout.splitlines()
        elapsed = float(next(ln for ln in lines if ln.startswith("time "))[5:])
        rows = [ln.split() for ln in lines if not ln.startswith("time")]
        counts = {int(r[0]): int(r[1]) for r in rows}
        LAST_PROLOG_CPU[:] = [0.0] * len(clauses)
        for r in rows:
            LAST_PROLOG_CPU[int(r[0])] = float(r[2])
        return elapsed, [counts[i] for i in range(len(clauses))]


LAST_PROLOG_CPU: list[float] = []
"""Per-clause CPU seconds of the last :func:`time_prolog` run (the limit is wall-clock, so a
clause stopped by it costs whatever CPU it got in that time: compare on finished clauses)."""
LAST_NATIVE_CPU: list[float] = []
"""Per-clause CPU seconds of the last :func:`time_native` run."""


# -- named workload: clauses whose literals share one variable (issue 20 item 4) --------------


def crossprod_workload(seed: int = 0) -> list[tuple[str, Task, list[Clause]]]:
    """Clauses that set-at-a-time evaluation once turned into cross products.

    ``pt``: synthetic ``p/3``, ``t/3`` (seeded; 300 examples, 3,000 facts each, 40 shared
    ``C`` values) with issue 20's ``h(A) :- p(A,B,C), p(U,V,C), t(N,C,E), t(M,C,O)`` and
    variants that fail late (a test over variables of different literals).  ``atm``:
    mutagenesis (bundled) with ``atm(A,B,c,T,_), atm(A,G,c,T,_), atm(A,H,h,3,_),
    bond(A,B,G,_)``-shaped clauses for its commonest carbon types."""
    from ilpkit.core.bias import Bias
    from ilpkit.core.task import NEG, POS, ExampleBuilder, Program
    from ilpkit.prolog.terms import Const, Struct, Var

    rng = random.Random(seed)
    prog = Program()
    for i in range(3000):
        a = f"a{rng.randrange(300)}"
        prog.add_fact(Struct("p", (Const(a), Const(f"b{i}"), Const(rng.randrange(40)))))
        prog.add_fact(
            Struct("t", (Const(f"n{i}"), Const(rng.randrange(40)), Const(rng.randrange(1000))))
        )
    builder = ExampleBuilder()
    for i in range(300):
        builder.add(Struct("h", (Const(f"a{i}"),)), POS if i % 2 == 0 else NEG)
    pt_task = Task(name="pt", format="bench", program=prog, examples=builder.build(), bias=Bias())
    A, B, C, U, V, N, E, M, O2 = (Var(x) for x in "ABCUVNEMO")
    p1, p2 = Struct("p", (A, B, C)), Struct("p", (U, V, C))
    t1, t2 = Struct("t", (N, C, E)), Struct("t", (M, C, O2))
    head = Struct("h", (A,))
    pt = [
        Clause(head, (p1, p2, t1, t2)),
        Clause(head, (p1, p2, t1, t2, Struct(">", (E, Const(990))))),
        Clause(head, (p1, p2, t1, t2, Struct(">", (E, O2)), Struct(">", (O2, Const(995))))),
        Clause(head, (p1, p2, t1, t2, Struct("==", (E, Const(-1))))),
    ]
    mut = load_task(bundled_path("mutagenesis"))
    types: dict[int, int] = {}
    for row in mut.program.facts.get(("atm", 5), []):
        if row[2] == Const("c"):
            types[row[3].value] = types.get(row[3].value, 0) + 1  # type: ignore[union-attr]
    common = sorted(types, key=lambda k: -types[k])[:6]
    D, B2, G, H, X, Y, Z, T = (Var(x) for x in ("A", "B", "G", "H", "X", "Y", "Z", "T"))
    mhead = Struct("active", (D,))
    atm_clauses = []
    for ty in common:
        lits = (
            Struct("atm", (D, B2, Const("c"), Const(ty), X)),
            Struct("atm", (D, G, Const("c"), Const(ty), Y)),
            Struct("atm", (D, H, Const("h"), Const(3), Z)),
        )
        atm_clauses.append(Clause(mhead, (*lits, Struct("bond", (D, B2, G, T)))))
        atm_clauses.append(Clause(mhead, (*lits, Struct("bond", (D, B2, H, Const(7))))))
    return [("pt", pt_task, pt), ("atm", mut, atm_clauses)]


def run_crossprod(limit: float) -> list[dict[str, object]]:
    """Per clause: native CPU s (fresh backend, kernel warmed up) and the plain SWI loop's."""
    warm_up()
    rows: list[dict[str, object]] = []
    for name, task, clauses in crossprod_workload():
        spare = NativeBackend()  # loads the compiled kernel untimed
        spare.load(task)
        spare.coverage(clauses[0])
        for i, cl in enumerate(clauses):
            backend = NativeBackend()
            backend.load(task)
            start = time.process_time()
            count = len(backend.coverage(cl))
            native_s = time.process_time() - start
            pro = time_prolog(task, [cl], limit)
            rows.append(
                {
                    "workload": name,
                    "clause": i,
                    "text": clause_to_prolog(cl),
                    "native_s": native_s,
                    "swipl_s": pro[0] if pro else None,
                    "native": count,
                    "swipl": pro[1][0] if pro else None,
                }
            )
            r = rows[-1]
            print(
                f"{name:4} {i:2d} native {native_s:7.3f} s  swipl "
                f"{'-' if pro is None else f'{pro[0]:7.3f}'} s  counts {count} / "
                f"{'-' if pro is None else pro[1][0]}  {r['text']}",
                flush=True,
            )
    return rows


# -- other backends (--backends): each in a child process of its own (one libswipl a process) --

BACKEND_CHILD = r"""
import pickle, sys, time
sys.path.insert(0, sys.argv[1])
from benchmarks.bench_coverage import load_for_backend
from ilpkit.plugins.backends.native.engine import NativeBackend
name, engine, clauses = pickle.load(open(sys.argv[2], "rb"))
task = load_for_backend(name)
if engine == "native":
    backend = NativeBackend()
elif engine.startswith("swi-"):
    from ilpkit.plugins.backends.prolog.swi_backend import SwiBackend, SwiOptions
    backend = SwiBackend(SwiOptions(bridge=engine[4:]))
else:
    from ilpkit.plugins.backends.prolog.subprocess_backend import (
        SubprocessBackend,
        SubprocessOptions,
    )
    backend = SubprocessBackend(SubprocessOptions(engine=engine[11:]))
t0 = time.perf_counter()
backend.load(task)
load = time.perf_counter() - t0
c0, t0 = time.process_time(), time.perf_counter()
single = [len(backend.coverage(c)) for c in clauses]
single_cpu, single_wall = time.process_time() - c0, time.perf_counter() - t0
backend.close()
backend.load(task)  # fresh: no cache carried over from the single pass
c0, t0 = time.process_time(), time.perf_counter()
batch = [len(c) for c in backend.coverage_many(clauses)]
batch_cpu, batch_wall = time.process_time() - c0, time.perf_counter() - t0
print("RESULT", load, single_cpu, single_wall, batch_cpu, batch_wall, int(single == batch), *single)
"""


def load_for_backend(name: str) -> Task:
    path, stem, _ = DATASETS[name]
    task = load_task(path, stem=stem)
    drop = DROP_MODES.get(name, set())
    task.bias.modeb = [m for m in task.bias.modeb if m.name not in drop]
    return task


def time_backends(
    name: str, clauses: list[Clause], backends: list[str], plain: tuple[float, list[int]] | None
) -> list[dict[str, object]]:
    """Per-clause time of each backend (CPU of the Python process, which runs in-process
    SWI-Prolog too; wall for subprocess engines) against the plain swipl loop."""
    import pickle

    rows: list[dict[str, object]] = []
    for engine in backends:
        env = dict(os.environ)
        if engine != "swi-janus":
            env.pop("SWI_HOME_DIR", None)
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "clauses.pkl"
            data.write_bytes(pickle.dumps((name, engine, clauses)))
            proc = subprocess.run(
                [sys.executable, "-c", BACKEND_CHILD, str(ROOT), str(data)],
                capture_output=True, text=True, env=env, timeout=7200,
            )  # fmt: skip
        line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")), None)
        if line is None:
            print(f"skip {engine} on {name}: {proc.stderr.strip()[-500:]}", file=sys.stderr)
            continue
        fields = line.split()[1:]
        load, s_cpu, s_wall, b_cpu, b_wall = (float(x) for x in fields[:5])
        counts = [int(x) for x in fields[6:]]
        remote = engine.startswith("subprocess")
        single, batch = (s_wall, b_wall) if remote else (s_cpu, b_cpu)
        n = len(clauses)
        rows.append({
            "dataset": name, "backend": engine, "clauses": n, "load_s": load,
            "single_ms_per_clause": 1000 * single / n, "batch_ms_per_clause": 1000 * batch / n,
            "plain_ms_per_clause": 1000 * plain[0] / n if plain else None,
            "single_vs_plain": single / plain[0] if plain and plain[0] else None,
            "batch_vs_plain": batch / plain[0] if plain and plain[0] else None,
            "agree_with_plain": (
                sum(a == b for a, b in zip(counts, plain[1], strict=True)) if plain else None
            ),
            "measured": "wall" if remote else "cpu",
        })  # fmt: skip
        print(f"... {name} {engine}: {rows[-1]}", flush=True)
    return rows


def print_backends(rows: list[dict[str, object]]) -> None:
    head = (
        f"{'dataset':12} {'backend':19} {'load s':>7} {'plain ms':>9} {'single ms':>9} "
        f"{'x plain':>7} {'batch ms':>9} {'x plain':>7} {'agree':>9}"
    )
    print(head)
    print("-" * len(head))

    def num(r: dict[str, object], key: str, fmt: str) -> str:
        value = r[key]
        return format(value, fmt) if isinstance(value, float) else "-"

    for r in rows:
        print(
            f"{r['dataset']!s:12} {r['backend']!s:19} {num(r, 'load_s', '7.2f')} "
            f"{num(r, 'plain_ms_per_clause', '9.2f')} {num(r, 'single_ms_per_clause', '9.2f')} "
            f"{num(r, 'single_vs_plain', '7.2f')} {num(r, 'batch_ms_per_clause', '9.2f')} "
            f"{num(r, 'batch_vs_plain', '7.2f')} {r['agree_with_plain']!s:>9}"
        )


def to_prolog_ind(name: str, arity: int) -> str:
    from ilpkit.prolog.terms import quote_atom

    return f"{quote_atom(name)}/{arity}"


def run(
    name: str,
    n_clauses: int,
    seed: int,
    prolog: bool,
    limit: float,
    table: bool = False,
    numpy_too: bool = True,
) -> Result | None:
    path, stem, kind = DATASETS[name]
    if not path.exists():
        print(f"skip {name}: {path} not found", file=sys.stderr)
        return None
    tracemalloc.start()
    t0 = time.perf_counter()
    task = load_task(path, stem=stem)
    drop = DROP_MODES.get(name, set())
    task.bias.modeb = [m for m in task.bias.modeb if m.name not in drop]
    backend = NativeBackend()
    backend.load(task)
    load_s = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    clauses = make_clauses(task, backend, n_clauses, seed)
    jit_s = warm_up()
    native_s, native_counts, cache_mb = time_native(task, clauses)
    native_cpu = list(LAST_NATIVE_CPU)
    numpy_s = None
    if numpy_too:
        numpy_s, numpy_counts, _ = time_native(task, clauses, kernel=False)
        if numpy_counts != native_counts:
            print(f"!! {name}: kernel and numpy engine disagree", file=sys.stderr)
    tabled = TABLE.get(name, set()) if table else set()
    pro = time_prolog(task, clauses, limit, tabled) if prolog else None
    agree = disagree = None
    if pro is not None:
        pairs = [(a, b) for a, b in zip(native_counts, pro[1], strict=True) if b >= 0]
        agree = sum(1 for a, b in pairs if a == b)
        disagree = len(pairs) - agree
        done = [i for i, b in enumerate(pro[1]) if b >= 0]
        if len(done) < len(clauses) and len(LAST_PROLOG_CPU) == len(clauses):
            sw = sum(LAST_PROLOG_CPU[i] for i in done)
            nat = sum(native_cpu[i] for i in done)
            print(
                f"... {name}: on the {len(done)} clauses swipl finished: swipl {sw:.2f} CPU s, "
                f"native {nat:.2f} CPU s, x swipl {sw / nat if nat else float('inf'):.2f}",
                flush=True,
            )
    n_ex = len(task.examples)
    return Result(
        dataset=name,
        kind=kind,
        examples=n_ex,
        facts=task.program.n_facts(),
        clauses=len(clauses),
        load_s=load_s,
        load_peak_mb=peak / 1e6,
        native_s=native_s,
        numpy_s=numpy_s,
        jit_s=jit_s,
        native_clauses_per_s=len(clauses) / native_s if native_s else float("inf"),
        native_ex_clauses_per_s=len(clauses) * n_ex / native_s if native_s else float("inf"),
        cache_mb=cache_mb,
        prolog_s=pro[0] if pro else None,
        prolog_clauses_per_s=len(clauses) / pro[0] if pro and pro[0] else None,
        ratio=(pro[0] / native_s) if pro and native_s else None,
        agree=agree,
        disagree=disagree,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--clauses", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-prolog", action="store_true")
    parser.add_argument(
        "--no-numpy", action="store_true", help="skip the set-at-a-time engine (kernel off)"
    )
    parser.add_argument("--limit", type=float, default=60.0, help="SWI seconds per clause")
    parser.add_argument(
        "--table",
        action="store_true",
        help="let SWI-Prolog table the predicates listed in TABLE (mutagenesis' rings)",
    )
    parser.add_argument(
        "--workload",
        default="",
        help="crossprod: issue 20's cross-product clauses, per clause against the SWI loop",
    )
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "coverage.json"))
    parser.add_argument(
        "--backends",
        default="",
        help="also time these backends per clause against the plain swipl loop, each in its "
        "own process: native,swi-janus,swi-pyswip,subprocess-swipl,subprocess-gprolog",
    )
    args = parser.parse_args()
    if args.workload == "crossprod":
        rows_c = run_crossprod(args.limit)
        out = Path(args.out).with_name("coverage_crossprod.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rows_c, indent=2))
        return
    if args.backends:
        rows: list[dict[str, object]] = []
        for name in args.datasets.split(","):
            task = load_for_backend(name.strip())
            native = NativeBackend()
            native.load(task)
            clauses = make_clauses(task, native, args.clauses, args.seed)
            plain = time_prolog(task, clauses, args.limit)
            rows += time_backends(name.strip(), clauses, args.backends.split(","), plain)
        out = Path(args.out).with_name("coverage_backends.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rows, indent=2))
        print_backends(rows)
        return
    results = []
    for name in args.datasets.split(","):
        try:
            r = run(
                name.strip(),
                args.clauses,
                args.seed,
                not args.no_prolog,
                args.limit,
                args.table,
                not args.no_numpy,
            )
        except IlpkitError as exc:
            print(f"skip {name}: {exc}", file=sys.stderr)
            continue
        if r is not None:
            results.append(r)
            print_row(r)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps([asdict(r) for r in results], indent=2))
    print_table(results)


def print_row(r: Result) -> None:
    print(
        f"... {r.dataset}: {r.clauses} clauses, native {r.native_s:.2f} CPU s, "
        f"prolog {r.prolog_s if r.prolog_s is None else round(r.prolog_s, 2)} CPU s",
        flush=True,
    )


def print_table(results: list[Result]) -> None:
    """CPU seconds for the same clauses: the plain SWI loop, the kernel, the numpy engine."""
    head = (
        f"{'dataset':15} {'kind':6} {'examples':>9} {'clauses':>7} {'swipl s':>8} "
        f"{'native s':>8} {'x swipl':>8} {'numpy s':>8} {'x swipl':>8} {'jit s':>6} "
        f"{'agree':>9}"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        swi = f"{r.prolog_s:8.2f}" if r.prolog_s is not None else f"{'-':>8}"
        ratio = f"{r.ratio:8.1f}" if r.ratio else f"{'-':>8}"
        num = f"{r.numpy_s:8.2f}" if r.numpy_s is not None else f"{'-':>8}"
        nratio = (
            f"{r.prolog_s / r.numpy_s:8.1f}"
            if r.prolog_s is not None and r.numpy_s
            else f"{'-':>8}"
        )
        agree = f"{r.agree}/{(r.agree or 0) + (r.disagree or 0)}" if r.agree is not None else "-"
        print(
            f"{r.dataset:15} {r.kind:6} {r.examples:9d} {r.clauses:7d} {swi} "
            f"{r.native_s:8.2f} {ratio} {num} {nratio} {r.jit_s:6.2f} {agree:>9}"
        )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
