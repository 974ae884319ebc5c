"""Long fuzz of the reader and every loader: only ilpkit's own errors may come out.

Each case takes a small, valid seed dataset (Aleph, BoostSRL, Popper) or run file (TOML),
mutates one of its files (byte and token deletions, insertions of Prolog-significant text,
duplications, splices of hostile snippets such as deep nesting, huge literals, surrogates)
and loads it.  An exception that is not an :class:`~ilpkit.errors.IlpkitError`, or a
case running longer than ``--case-seconds``, is a finding: the input is saved under
``--out`` and the table at the end counts findings by target and exception type.

    python benchmarks/fuzz_loaders.py --seconds 300            # about 5 minutes
    python benchmarks/fuzz_loaders.py --seconds 20 --target aleph

The short versions of these properties run in CI (tests/test_loader_fuzz.py,
tests/test_reader_fuzz.py); this script is for the long runs the issue asked for.
"""

from __future__ import annotations

import argparse
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ilpkit.errors import IlpkitError  # noqa: E402

ALEPH = {
    "t.b": """:- modeh(1, p(+a)).
:- modeb(*, q(+a, -b)).
:- modeb(1, r(+b, #c)).
:- determination(p/1, q/2).
:- determination(p/1, r/2).
:- set(i, 2), set(clauselength, 4), set(minacc, 0.5).
:- op(700, xfx, ===>).
:- dynamic s/1.
q(x1, y1). q(x2, y2). r(y1, c1). r(y2, 'c 2').
w(X) :- q(X, Y), \\+ r(Y, c1), (Y = y1 ; Y == y2) -> true ; fail.
n(N, M) :- M is N * 2 + 0x1F - 0'a, M >= 0.
""",
    "t.f": "p(x1).\np(x2).\n",
    "t.n": "p(x3).\n",
}
BOOSTSRL = {
    "train/train_bk.txt": """usePrologVariables: true.
mode: p(+a).
mode: q(+a, -b).
mode: r(+b, #c).
""",
    "train/train_facts.txt": "q(x1, y1).\nq(x2, y2).\nr(y1, c1).\nr(y2, c2).\n",
    "train/train_pos.txt": "p(x1).\np(x2).\n",
    "train/train_neg.txt": "p(x3).\n",
}
POPPER = {
    "bias.pl": """head_pred(p, 1).
body_pred(q, 2).
body_pred(r, 2).
type(p, (a,)).
type(q, (a, b)).
direction(q, (in, out)).
max_vars(4). max_body(3).
""",
    "bk.pl": "q(x1, y1).\nq(x2, y2).\nr(y1, c1).\n",
    "exs.pl": "pos(p(x1)).\npos(p(x2)).\nneg(p(x3)).\n",
}
TOML = {
    "run.toml": """seed = 3
[data]
path = "trains"
format = "aleph"
[learner]
name = "theory"
options = { max_rules = 3 }
[backend]
name = "native"
[backend.options]
step_limit = 100000
timeout = 5.0
[settings]
clauselength = 4
""",
}
SEEDS: dict[str, dict[str, str]] = {
    "aleph": ALEPH,
    "boostsrl": BOOSTSRL,
    "popper": POPPER,
    "toml": TOML,
}

SPECIALS = [
    *list("()[]{},|.'\"`%/*\\+-=<>:;!#$&?@^~0x_ \n\t"),
    ":-",
    "0'",
    "0x",
    "0b",
    "0o",
    "1.",
    "1.0e",
    "\\x",
    "\\u",
    "[]",
    "{}",
    "'[]'",
    "*",
    "=",
    "[[",
    '"""',
    "'''",
    "inf",
    "none",
    "nan",
    "-1",
    "1e999",
]
HOSTILE: list[Callable[[random.Random], str]] = [
    lambda r: "p(" + "+".join(["a"] * r.randint(150, 700)) + ").\n",
    lambda r: "p(" + "f(" * r.randint(150, 3000) + "a" + ")" * 3000 + ".\n",
    lambda r: "p(" + "[" * r.randint(150, 3000) + "]" * 3000 + ").\n",
    lambda r: "p(0x" + "f" * r.randint(3000, 6000) + ").\n",
    lambda r: "p(0b" + "1" * r.randint(10000, 20000) + ").\n",
    lambda r: "p(" + "9" * r.randint(4000, 5000) + ").\n",
    lambda r: "p('\\x" + r.choice(["d800", "dfff", "110000", "0"]) + "\\').\n",
    lambda r: "p(" + "1" * r.randint(300, 500) + ".0e" + "9" * r.randint(1, 5) + ").\n",
    lambda r: (
        ":- op("
        + r.choice(["1201", "-1", "700", "0", "a"])
        + ", "
        + r.choice(["xfx", "fy", "xf", "zz"])
        + ", "
        + r.choice(["','", "'|'", "[]", "===>", "[a,1]"])
        + ").\n"
    ),
    lambda r: (
        ":- modeb("
        + r.choice(["*", "0", "-1", "1.5", "a"])
        + ", "
        + r.choice(["[]", "'[]'", "[q(+a)]", "q(+a, -b)", "1", "X", "q(+1, -[])"])
        + ").\n"
    ),
    lambda r: (
        ":- set("
        + r.choice(["i", "nodes", "minacc", "noise", "clauselength"])
        + ", "
        + r.choice(["-1", "0", "2.5", "1000000000", "inf", "nan", "a", "[]"])
        + ").\n"
    ),
    lambda r: r.choice(["1.\n", "2.5.\n", '"s".\n', "X.\n", "[].\n", "pos(1).\n", "succ(a,b).\n"]),
    lambda r: "x = " + "[" * r.randint(90, 5000) + "]" * 5000 + "\n",
    lambda r: "x = " + "{a=" * r.randint(90, 2000) + "1" + "}" * 2000 + "\n",
]


def mutate(text: str, rng: random.Random) -> str:
    """A few random edits of ``text``."""
    for _ in range(rng.randint(1, 6)):
        i = rng.randint(0, len(text))
        j = min(len(text), i + rng.randint(0, 8))
        action = rng.random()
        if action < 0.3:
            text = text[:i] + text[j:]
        elif action < 0.6:
            if rng.random() < 0.7:
                piece = rng.choice(SPECIALS)
            else:  # a run of arbitrary characters, control and non-ASCII ones included
                piece = "".join(
                    chr(rng.choice([rng.randint(0, 0x7F), rng.randint(0x80, 0x2FFF)]))
                    for _ in range(rng.randint(1, 12))
                )
            text = text[:i] + piece + text[i:]
        elif action < 0.8:
            text = text[:j] + text[i:j] + text[j:]
        elif action < 0.95:
            line_start = text.rfind("\n", 0, i) + 1
            text = text[:line_start] + rng.choice(HOSTILE)(rng) + text[line_start:]
        else:
            text = text[:i] + "\udc80" * (rng.random() < 0.01) + text[i:]
    return text


def write_case(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8", "surrogatepass"))


def run_target(target: str, folder: Path) -> None:
    """Load the case; raises whatever the loader raises."""
    if target == "toml":
        from ilpkit.core.plugins import get_plugin_manager
        from ilpkit.experiment.config import load_config, resolve_plugins

        config = load_config(folder / "run.toml")
        resolve_plugins(config, get_plugin_manager())
        return
    from ilpkit.core.formats import load_task
    from ilpkit.core.safety import unsafe_constructs

    task = load_task(folder, format=target)
    task.summary()
    unsafe_constructs(task)  # what `ilpkit data check` and every backend run next


class Hang(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise Hang


def fuzz(
    target: str, seconds: float, case_seconds: float, rng: random.Random, out: Path
) -> tuple[int, Counter[str]]:
    """Run cases for ``target`` for ``seconds``; the number of cases and the findings."""
    findings: Counter[str] = Counter()
    seed = SEEDS[target]
    cases = 0
    end = time.monotonic() + seconds
    work = Path(tempfile.mkdtemp(prefix=f"fuzz-{target}-"))
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        while time.monotonic() < end:
            cases += 1
            files = dict(seed)
            name = rng.choice(sorted(files))
            files[name] = mutate(files[name], rng)
            case = work / str(cases)
            write_case(case, files)
            outcome: str | None = None
            signal.setitimer(signal.ITIMER_REAL, case_seconds)
            try:
                run_target(target, case)
            except IlpkitError:
                pass
            except Hang:
                outcome = "hang"
            except Exception as exc:  # a finding
                outcome = type(exc).__name__
                tb = traceback.format_exc(limit=-3)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if outcome is not None:
                findings[outcome] += 1
                dest = out / target / f"{outcome}-{findings[outcome]}"
                if findings[outcome] <= 5:  # keep a few examples of each kind
                    shutil.copytree(case, dest)
                    if outcome != "hang":
                        (dest / "TRACEBACK.txt").write_text(tb)
            shutil.rmtree(case, ignore_errors=True)
    finally:
        signal.signal(signal.SIGALRM, previous)
        shutil.rmtree(work, ignore_errors=True)
    return cases, findings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="total budget")
    parser.add_argument("--case-seconds", type=float, default=5.0, help="a hang after this")
    parser.add_argument("--target", choices=[*SEEDS, "all"], default="all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("fuzz-findings"))
    args = parser.parse_args(argv)
    targets = list(SEEDS) if args.target == "all" else [args.target]
    rng = random.Random(args.seed)
    rows = []
    cpu0 = time.process_time()
    for target in targets:
        cases, findings = fuzz(
            target, args.seconds / len(targets), args.case_seconds, rng, args.out
        )
        rows.append((target, cases, sum(findings.values()), dict(findings)))
    print(f"{'target':10} {'cases':>8} {'findings':>9}  kinds")
    for target, cases, n, kinds in rows:
        print(f"{target:10} {cases:8d} {n:9d}  {kinds or '-'}")
    print(f"CPU seconds: {time.process_time() - cpu0:.1f}; findings saved under {args.out}")
    return 1 if any(n for _, _, n, _ in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
