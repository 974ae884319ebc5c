"""How fast GNU Prolog and SWI-Prolog load a large fact file (issue 32: GNU Prolog took 46 CPU
s for noisy-wn18rr1's 86k facts, swipl 0.8 s).

Generates ``--facts`` facts ``rel(A, R, B)`` whose arguments are ``--atoms`` distinct atoms
(or integers with ``--atoms 0``), then times, per engine, in a fresh process:

* ``read`` and ``read+assert``: a plain Prolog loop that reads every term (and asserts it,
  what ilpkit's server does on load), CPU seconds from ``/usr/bin/time``;
* ``atoms first``: the same ``read+assert`` after one term that lists the atoms in
  descending order (what ilpkit's subprocess backend sends GNU Prolog before a load);
* ``ilpkit load``: the subprocess backend's ``load`` of the task (the engine's CPU seconds
  and the wall-clock seconds).

GNU Prolog 1.4.5 inserts every new identifier atom into its line editor's completion list,
sorted and walked from its start: quadratic in the data's order, constant per atom in
descending order.

    python benchmarks/bench_gprolog_load.py --facts 86000 --atoms 40000
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LOOP = """{load}(File, Assert) :- open(File, read, S), {loop}(S, Assert), close(S).
{loop}(S, Assert) :-
    read_term(S, T, []),
    (   T == end_of_file -> true
    ;   ( Assert == yes -> assertz(T) ; true ), {loop}(S, Assert)
    ).
:- initialization(({first}{load}('{file}', {mode}), write(done), nl, halt)).
"""

BACKEND_LOAD = """
import resource, sys, time
import ilpkit
from ilpkit.plugins.backends.prolog.subprocess_backend import SubprocessBackend, SubprocessOptions
task = ilpkit.load_task(sys.argv[2])
backend = SubprocessBackend(SubprocessOptions(engine=sys.argv[1], startup_timeout=3600))
start = time.perf_counter()
backend.load(task)
wall = time.perf_counter() - start
backend.close()
child = resource.getrusage(resource.RUSAGE_CHILDREN)
print(child.ru_utime + child.ru_stime, wall)
"""


def write_task(folder: Path, facts: Path, atoms: int) -> Path:
    """An Aleph task over ``facts``: 50 positive and 50 negative examples ``t/1``."""
    background = folder / "task.b"
    modes = (
        ":- modeh(1, t(+ent)).\n:- modeb(*, rel(+ent, #r, -ent)).\n:- determination(t/1, rel/3).\n"
    )
    background.write_text(modes + facts.read_text())
    name = (lambda i: f"e{i}") if atoms else str
    (folder / "task.f").write_text("".join(f"t({name(i)}).\n" for i in range(50)))
    (folder / "task.n").write_text("".join(f"t({name(i)}).\n" for i in range(50, 100)))
    return background


def backend_seconds(engine: str, background: Path) -> tuple[float, float]:
    proc = subprocess.run(
        [sys.executable, "-c", BACKEND_LOAD, engine, str(background)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"ilpkit load on {engine} failed:\n{proc.stderr}")
    cpu, wall = proc.stdout.split()
    return float(cpu), float(wall)


def write_facts(path: Path, facts: int, atoms: int, seed: int = 0) -> None:
    rng = random.Random(seed)

    def value() -> str:
        return f"e{rng.randrange(atoms)}" if atoms else str(rng.randrange(40_000))

    with path.open("w") as out:
        for _ in range(facts):
            out.write(f"rel({value()}, r{rng.randrange(11)}, {value()}).\n")


def cpu_seconds(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    timed = ["/usr/bin/time", "-f", "%U %S", *command]
    proc = subprocess.run(timed, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if "done" not in proc.stdout:
        raise SystemExit(f"{command[0]} failed:\n{proc.stdout}\n{proc.stderr}")
    user, system = proc.stderr.strip().splitlines()[-1].split()
    return float(user) + float(system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=86_000)
    parser.add_argument("--atoms", type=int, default=40_000, help="distinct atoms (0: integers)")
    args = parser.parse_args()
    engines = [e for e in ("swipl", "gprolog") if shutil.which(e)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        facts = folder / "facts.pl"
        write_facts(facts, args.facts, args.atoms)
        env = dict(os.environ, MAX_ATOM=str(max(65_536, 4 * args.atoms + 10_000)))
        atoms_term = folder / "atoms.pl"
        names = sorted({f"e{i}" for i in range(args.atoms)} | {f"r{i}" for i in range(11)})
        atoms_term.write_text(f"atoms([{','.join(reversed(names))}]).\n")
        background = write_task(folder, facts, args.atoms)
        print(f"{args.facts:,} facts, {args.atoms:,} distinct atoms; CPU s (user + system)\n")
        print("| engine | read | read+assert | atoms first | ilpkit load (CPU, wall) |")
        print("|---|---:|---:|---:|---:|")
        for engine in engines:
            row = []
            for mode, first in (
                ("no", ""),
                ("yes", ""),
                ("yes", f"bench_load('{atoms_term}', no), "),
            ):
                program = folder / f"{engine}_{mode}.pl"
                # GNU Prolog's own load/1 cannot be redefined: the loop has its own names
                program.write_text(
                    LOOP.format(
                        load="bench_load", loop="bench_loop", file=facts, mode=mode, first=first
                    )
                )
                command = (
                    ["gprolog", "--consult-file", str(program)]
                    if engine == "gprolog"
                    else ["swipl", str(program)]
                )
                row.append(cpu_seconds(command, folder, env))
            cpu, wall = backend_seconds(engine, background)
            print(
                f"| {engine} | {row[0]:.2f} | {row[1]:.2f} | {row[2]:.2f} | {cpu:.2f}, {wall:.2f} |"
            )


if __name__ == "__main__":
    main()
