"""Search overhead of the Prolog backends: ilpkit's coverage CPU inside a search against a
plain SWI-Prolog loop running exactly the same coverage tests (issue 14, item 4).

For each backend the README's UW-CSE learn command runs in a fresh Python process, every
coverage question the search asks is recorded (the clause, the examples it is asked about,
the covered ids), and the CPU time of those questions is summed: the Python process's CPU
(``time.process_time``, which includes an in-process SWI-Prolog) and, for the subprocess
backend, the engine's CPU (``/proc/PID/stat``; the engine's CPU during saturation is left
out).  The whole run's CPU adds every child process's (``RUSAGE_CHILDREN``: the engine, and
the bridge check a swi backend runs in a child once).  Then the same SWI-Prolog version
consults the same exported data and replays the questions in a plain loop: per clause,
``\\+ \\+ Body`` per candidate example after the head is unified with it, under the same
inference limit, timed with ``statistics(cputime)`` (the faster of a meta-call of the body
and the body asserted once as a clause); the covered counts are checked against what ilpkit
answered.  The learned rules are compared
with the native backend's.

    python benchmarks/bench_search_overhead.py
    python benchmarks/bench_search_overhead.py --backends swi-janus,subprocess-swipl

``ILPKIT_SWIPL_JANUS_HOME`` must name the SWI-Prolog home janus-swi was built against; the
plain loop for janus runs that SWI-Prolog's ``swipl`` (``--janus-swipl``).  Prints a table and
writes ``benchmarks/results/search_overhead.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CODE = Path(os.environ.get("ILPKIT_BENCH_CODE", ROOT))
"""The ilpkit tree measured (``--code``: e.g. an export of main, for before/after)."""
sys.path.insert(0, str(CODE))

LEARN_SETTINGS: dict[str, Any] = {
    "i": 2,
    "nodes": 500,
    "clauselength": 4,
    "minpos": 2,
    "minacc": 0.05,
}
"""The README's command: ``ilpkit learn uwcse --search topdown --scorer laplace --set i=2
--set nodes=500 --set clauselength=4 --set minpos=2 --set minacc=0.05
--set learner.max_rules=5``."""
COMMAND = (
    "ilpkit learn uwcse --search topdown --scorer laplace --set i=2 --set nodes=500 "
    "--set clauselength=4 --set minpos=2 --set minacc=0.05 --set learner.max_rules=5 "
    "--backend {backend}"
)

BACKENDS: dict[str, tuple[str, dict[str, Any]]] = {
    "native": ("native", {}),
    "swi-janus": ("swi", {"bridge": "janus"}),
    "swi-pyswip": ("swi", {"bridge": "pyswip"}),
    "subprocess-swipl": ("subprocess", {"engine": "swipl"}),
}

PLAIN_LOOP = r"""
% The plain loop: argv = [Program, Questions, Steps].  q(K, Head, Body, Among, Count):
% Among is all or a list of Lo-Hi id runs, Count what ilpkit answered.
:- initialization(main, main).

main :-
    current_prolog_flag(argv, [Program, Questions, StepsText|_]),
    atom_number(StepsText, Steps),
    load_files(Program, [silent(true)]),
    forall(( '$ilpkit_mode_predicate'(N, A), \+ current_predicate(N/A) ), dynamic(N/A)),
    setup_call_cleanup(open(Questions, read, S), read_all(S), close(S)),
    garbage_collect,
    run(meta, Steps, TMeta, BadMeta),
    run(compiled, Steps, TComp, BadComp),
    format("~w ~w ~w ~w~n", [TMeta, BadMeta, TComp, BadComp]).

read_all(S) :-
    read_term(S, T, []),
    (   T == end_of_file
    ->  true
    ;   assertz(T),
        read_all(S)
    ).

run(How, Steps, T, Bad) :-
    nb_setval(bad, 0),
    statistics(cputime, T0),
    forall(q(_, H, B, Among, Count), one(How, H, B, Among, Steps, Count)),
    statistics(cputime, T1),
    T is T1 - T0,
    nb_getval(bad, Bad).

% meta: call/1 of the body per example; compiled: the body asserted once as a clause.
one(meta, H, B, Among, Steps, Count) :-
    aggregate_all(count, covered(H, B, Among, Steps), C),
    check(C, Count).
one(compiled, H, B, Among, Steps, Count) :-
    term_variables(H, Vs), G =.. [v|Vs],
    assertz(('$body'(G) :- B)),
    aggregate_all(count, covered(H, '$body'(G), Among, Steps), C),
    retractall('$body'(_)),
    check(C, Count).

covered(H, B, all, Steps) :-
    '$ilpkit_example'(_, H),
    \+ \+ call_with_inference_limit(B, Steps, _).
covered(H, B, Runs, Steps) :-
    Runs \== all,
    member(Lo-Hi, Runs), between(Lo, Hi, Id),
    '$ilpkit_example'(Id, H),
    \+ \+ call_with_inference_limit(B, Steps, _).

check(C, C) :- !.
check(_, _) :- nb_getval(bad, B), B1 is B + 1, nb_setval(bad, B1).
"""


def _child_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) of process ``pid`` so far (Linux), 0 when unknown."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_one(name: str, workdir: Path) -> dict[str, Any]:
    """Learn with backend ``name`` in this process, recording every coverage question."""
    from ilpkit.core.coverage import Coverage
    from ilpkit.experiment.api import learn
    from ilpkit.plugins.backends.base import Backend
    from ilpkit.plugins.backends.prolog.export import export_program
    from ilpkit.plugins.backends.prolog.subprocess_backend import _intervals
    from ilpkit.prolog.terms import Clause, Struct, conjunction, to_prolog

    kind, options = BACKENDS[name]
    from ilpkit import load_task as load_named

    task = load_named("uwcse")
    questions: list[str] = []
    engines: list[Backend] = []
    cpu = {"coverage": 0.0, "engine_answers": 0.0, "calls": 0.0, "recording": 0.0}

    def pid() -> int | None:
        return getattr(engines[-1], "pid", None) if engines else None

    def record(clause: Clause, among: Coverage | None, got: Coverage) -> None:
        c = clause.canonical()
        term = Struct("c", (c.head, conjunction(c.body)))
        questions.append(
            f"q({len(questions)},{to_prolog(term.args[0], 999)},{to_prolog(term.args[1], 999)},"
            f"{_intervals(among)},{len(got)}).\n"
        )

    original_load = Backend.load
    original_coverage = Backend.coverage
    original_many = Backend.coverage_many
    original_answers = getattr(type_of(kind), "answers")  # noqa: B009 (a class from a name)

    def load(self: Backend, t: Any) -> None:
        original_load(self, t)
        engines.append(self)

    def coverage(self: Backend, clause: Clause, among: Coverage | None = None) -> Coverage:
        c0, e0 = time.process_time(), _child_cpu(pid())
        got = original_coverage(self, clause, among)
        cpu["coverage"] += time.process_time() - c0 + _child_cpu(pid()) - e0
        cpu["calls"] += 1
        r0 = time.process_time()
        record(clause, among, got)
        cpu["recording"] += time.process_time() - r0
        return got

    def coverage_many(
        self: Backend, clauses: Sequence[Clause], among: Coverage | None = None
    ) -> list[Coverage]:
        c0, e0 = time.process_time(), _child_cpu(pid())
        got = original_many(self, clauses, among)
        cpu["coverage"] += time.process_time() - c0 + _child_cpu(pid()) - e0
        cpu["calls"] += 1
        r0 = time.process_time()
        for clause, cov in zip(clauses, got, strict=True):
            record(clause, among, cov)
        cpu["recording"] += time.process_time() - r0
        return got

    def answers(self: Backend, goal: Any, max_answers: int | None) -> Any:
        e0 = _child_cpu(pid())
        out = original_answers(self, goal, max_answers)
        cpu["engine_answers"] += _child_cpu(pid()) - e0
        return out

    patch(Backend, "load", load)
    patch(Backend, "coverage", coverage)
    patch(Backend, "coverage_many", coverage_many)
    patch(type_of(kind), "answers", answers)
    patch(type_of(kind), "coverage", coverage, only_if_own=True)
    patch(type_of(kind), "coverage_many", coverage_many, only_if_own=True)

    settings = dict(LEARN_SETTINGS)
    t0 = time.process_time()
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    model = learn(
        task,
        search="topdown",
        scorer="laplace",
        backend=kind,
        settings=settings,
        options={"learner": {"max_rules": 5}, "backend": options},
    )
    total = time.process_time() - t0
    for b in engines:
        b.close()  # the engine is reaped: its CPU is in RUSAGE_CHILDREN
    children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    engine_total = (children1.ru_utime - children0.ru_utime) + (
        children1.ru_stime - children0.ru_stime
    )
    rules = [str(r.clause) for r in model.rules()]
    program = workdir / "program.pl"
    program.write_text(export_program(task).text, encoding="utf-8")
    qfile = workdir / f"questions-{name}.pl"
    qfile.write_text("".join(questions), encoding="utf-8")
    version = getattr(engines[-1], "version", "") if engines else ""
    return {
        "backend": name,
        "questions": len(questions),
        "calls": int(cpu["calls"]),
        "coverage_cpu": cpu["coverage"],
        "total_cpu": total - cpu["recording"] + engine_total,
        "engine_cpu": engine_total,
        "rules": rules,
        "version": version,
        "program": str(program),
        "questions_file": str(qfile),
        "clauses_evaluated": model.clauses_evaluated,
    }


def type_of(kind: str) -> type:
    if kind == "swi":
        from ilpkit.plugins.backends.prolog.swi_backend import SwiBackend

        return SwiBackend
    if kind == "subprocess":
        from ilpkit.plugins.backends.prolog.subprocess_backend import SubprocessBackend

        return SubprocessBackend
    from ilpkit.plugins.backends.native.engine import NativeBackend

    return NativeBackend


def patch(cls: type, name: str, fn: Callable[..., Any], *, only_if_own: bool = False) -> None:
    if only_if_own and name not in vars(cls):
        return
    setattr(cls, name, fn)


def plain_loop(swipl: str, program: str, questions: str, steps: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as d:
        loop = Path(d) / "loop.pl"
        loop.write_text(PLAIN_LOOP, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "SWI_HOME_DIR"}
        out = subprocess.run(
            [swipl, str(loop), "--", program, questions, str(steps)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
    if out.returncode != 0:
        raise SystemExit(f"plain loop failed: {out.stderr[-2000:]}")
    meta, bad_meta, compiled, bad_compiled = out.stdout.split()[-4:]
    return {
        "meta": float(meta),
        "compiled": float(compiled),
        "mismatches": float(max(int(bad_meta), int(bad_compiled))),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backends", default="native,swi-janus,swi-pyswip,subprocess-swipl")
    p.add_argument("--one", help=argparse.SUPPRESS)
    p.add_argument("--workdir", help=argparse.SUPPRESS)
    p.add_argument("--steps", type=int, default=10_000_000, help="the backends' step_limit")
    p.add_argument(
        "--janus-swipl",
        default=str(Path.home() / ".cache/ilpkit/swipl-9.2.9/bin/swipl"),
        help="swipl of the SWI-Prolog janus-swi runs (the plain loop of swi-janus)",
    )
    p.add_argument("--json", default=str(ROOT / "benchmarks/results/search_overhead.json"))
    p.add_argument(
        "--code",
        default=str(CODE),
        help="the ilpkit source tree to measure (default: this one), e.g. an export of "
        "another commit: git archive main ilpkit | tar -x -C /tmp/base",
    )
    args = p.parse_args()
    if args.one:
        result = run_one(args.one, Path(args.workdir))
        print("RESULT " + json.dumps(result))
        return
    names = [n.strip() for n in args.backends.split(",") if n.strip()]
    rows = []
    with tempfile.TemporaryDirectory(prefix="ilpkit-overhead-") as d:
        for name in names:
            proc = subprocess.run(
                [sys.executable, __file__, "--one", name, "--workdir", d],
                capture_output=True,
                text=True,
                check=False,
                cwd=args.code,
                env={**os.environ, "ILPKIT_BENCH_CODE": args.code},
            )
            line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
            if not line:
                print(f"{name}: failed\n{proc.stderr[-3000:]}", file=sys.stderr)
                continue
            r = json.loads(line[0][7:])
            if name != "native":
                swipl = args.janus_swipl if name == "swi-janus" else "swipl"
                r["plain"] = plain_loop(swipl, r["program"], r["questions_file"], args.steps)
            rows.append(r)
            print(f"{name}: done ({r['questions']} questions)", file=sys.stderr)
    native = next((r for r in rows if r["backend"] == "native"), None)
    load = os.getloadavg()
    print(
        f"\nUW-CSE, the README's learn command, ilpkit from {args.code}; "
        f"load average {load[0]:.2f} (1 min)\n"
    )
    print(
        "| backend | calls | clauses | ilpkit coverage CPU s | whole run CPU s "
        "| plain loop CPU s | ratio | counts differ | rules = native |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "plain" in r:
            base = min(r["plain"]["meta"], r["plain"]["compiled"])
            plain = f"{base:.2f}"
            ratio = f"{r['coverage_cpu'] / base:.2f}x" if base > 0 else "-"
            bad = str(int(r["plain"]["mismatches"]))
        else:
            plain = ratio = bad = "-"
        same = "-" if native is None or r is native else str(r["rules"] == native["rules"])
        print(
            f"| {r['backend']} | {r['calls']:,} | {r['questions']:,} | {r['coverage_cpu']:.2f} "
            f"| {r['total_cpu']:.2f} | {plain} | {ratio} | {bad} | {same} |"
        )
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    for r in rows:
        r.pop("program", None)
        r.pop("questions_file", None)
    Path(args.json).write_text(
        json.dumps({"load_average": load, "rows": rows}, indent=2), encoding="utf-8"
    )


if __name__ == "__main__":
    main()
