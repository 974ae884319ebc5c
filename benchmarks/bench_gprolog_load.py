"""How fast GNU Prolog and SWI-Prolog read and assert a large fact file (issue 32: GNU Prolog
took 46 CPU s for noisy-wn18rr1's 86k facts, swipl 0.8 s).

Generates ``--facts`` facts ``rel(A, R, B)`` whose arguments are ``--atoms`` distinct atoms
(or integers with ``--atoms 0``), then times, per engine, a plain Prolog loop that reads every
term (``read``) or reads and asserts it (``read+assert``, what ilpkit's server does on load),
in a fresh process, CPU seconds from ``/usr/bin/time``.  The point of the table: on GNU
Prolog 1.4.5 the cost is in creating atoms (a file of 100 distinct atoms reads in a tenth of a
second), so no change to how ilpkit feeds the engine brings it within 3x of swipl.

    python benchmarks/bench_gprolog_load.py --facts 86000 --atoms 40000
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

LOOP = """{load}(File, Assert) :- open(File, read, S), {loop}(S, Assert), close(S).
{loop}(S, Assert) :-
    read_term(S, T, []),
    (   T == end_of_file -> true
    ;   ( Assert == yes -> assertz(T) ; true ), {loop}(S, Assert)
    ).
:- initialization(({load}('{file}', {mode}), write(done), nl, halt)).
"""


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
        print(f"{args.facts:,} facts, {args.atoms:,} distinct atoms; CPU s (user + system)\n")
        print("| engine | read | read+assert |")
        print("|---|---:|---:|")
        for engine in engines:
            row = []
            for mode in ("no", "yes"):
                program = folder / f"{engine}_{mode}.pl"
                # GNU Prolog's own load/1 cannot be redefined: the loop has its own names
                program.write_text(
                    LOOP.format(load="bench_load", loop="bench_loop", file=facts, mode=mode)
                )
                command = (
                    ["gprolog", "--consult-file", str(program)]
                    if engine == "gprolog"
                    else ["swipl", str(program)]
                )
                row.append(cpu_seconds(command, folder, env))
            print(f"| {engine} | {row[0]:.2f} | {row[1]:.2f} |")


if __name__ == "__main__":
    main()
