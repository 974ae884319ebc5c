"""What one ``step_limit`` unit is worth on each engine (docs/backends.md, "step_limit across
engines").

For each program below, finds by bisection the smallest ``step_limit`` under which the
clause covers its example, on every backend that counts steps, and prints a table of steps
per unit of work.  Not a timing: counts only.  Run from the repository root:

    python benchmarks/step_limit_mapping.py
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ilpkit.core.formats import load_task
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.errors import ResourceLimitExceeded
from ilpkit.prolog.reader import read_term
from ilpkit.prolog.terms import Clause

N = 1000
PROGRAMS = {
    # one recursive call per unit: a test, an arithmetic step and the call
    "arithmetic recursion": (
        "count(0) :- !.\ncount(N) :- N > 0, M is N - 1, count(M).\n",
        "count(+t)",
        f"p({N})",
        "p(N) :- count(N)",
    ),
    # one step along a chain of facts per unit
    "chain of facts": (
        "".join(f"e({i}, {i + 1}).\n" for i in range(N))
        + "reach(X, X).\nreach(X, Z) :- e(X, Y), reach(Y, Z).\n",
        "reach(+t, #t)",
        "p(0)",
        f"p(X) :- reach(X, {N})",
    ),
}


def smallest_limit(backend: str, options: dict[str, object], folder: Path, text: str) -> int:
    task = load_task(folder)
    clause = Clause.from_term(read_term(text))
    lo, hi = 1, 100 * N
    while lo < hi:
        mid = (lo + hi) // 2
        engine = get_plugin_manager().make("backend", backend, {**options, "step_limit": mid})
        engine.load(task)
        try:
            ok = engine.coverage(clause).tolist() == [0]
        except ResourceLimitExceeded:
            ok = False
        finally:
            engine.close()
        lo, hi = (lo, mid) if ok else (mid + 1, hi)
    return lo


def main() -> None:
    engines: list[tuple[str, str, dict[str, object]]] = [("native", "native", {})]
    if shutil.which("swipl"):
        engines.append(("subprocess swipl", "subprocess", {"engine": "swipl"}))
    print(f"| program ({N} units) | " + " | ".join(e[0] for e in engines) + " |")
    print("|---|" + "---|" * len(engines))
    for name, (bk, mode, example, clause) in PROGRAMS.items():
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            pred = mode.split("(")[0]
            (folder / "d.b").write_text(
                f":- modeh(1, p(+t)).\n:- modeb(1, {mode}).\n"
                f":- determination(p/1, {pred}/{mode.count(',') + 1}).\n{bk}"
            )
            (folder / "d.f").write_text(f"{example}.\n")
            cells = []
            for _, backend, options in engines:
                steps = smallest_limit(backend, options, folder, clause)
                cells.append(f"{steps} ({steps / N:.2f} per unit)")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
