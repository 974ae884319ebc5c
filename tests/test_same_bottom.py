"""The same bottom clause on every engine (issue 20 item 5): one numeric convention
(SWI-Prolog's, docs/backends.md "Numbers"), GNU Prolog's atom table sized to the data, and a
data file defining a built-in refused with its file and line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ilpkit.core.formats import load_task
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.datasets import BUNDLED, bundled_path
from ilpkit.errors import DataError
from ilpkit.plugins.backends.prolog.arithmetic import rewrite_clause
from ilpkit.plugins.backends.prolog.profiles import atom_table_size
from ilpkit.plugins.backends.prolog.subprocess_backend import PrologEngineError
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause, to_prolog

ROOT = Path(__file__).resolve().parents[1]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


ENGINES: list[tuple[str, str, dict[str, object]]] = [
    ("native", "native", {}),
    ("janus", "swi", {"bridge": "janus"}),
    ("swipl", "subprocess", {"engine": "swipl"}),
    ("gprolog", "subprocess", {"engine": "gprolog"}),
]
"""(id, backend, options): native, swi (janus), subprocess swipl and gprolog."""


def _available(backend: str, options: dict[str, object]) -> bool:
    """Whether the engine runs here (asked when a test needs it, not at collection)."""
    if backend == "swi":
        from ilpkit.plugins.backends.prolog.swi_backend import preflight

        return preflight("janus").ok
    engine = options.get("engine")
    return engine is None or shutil.which(str(engine)) is not None


def _need(backend: str, options: dict[str, object]) -> None:
    if not _available(backend, options):
        pytest.skip(f"{backend} {options} is not available here")


def _engines(*, heavy: bool = False) -> list[object]:
    """The engines as parameters; ``heavy``: mark the Prolog ones heavy (5 s each)."""
    out: list[object] = []
    for i, b, o in ENGINES:
        marks = [pytest.mark.heavy] if heavy and b != "native" else []
        out.append(pytest.param((b, o), id=i, marks=marks))
    return out


def bottoms(data: str, backend: str, options: dict[str, object], seeds: int) -> list[str]:
    """Bottom clauses of the first ``seeds`` positive examples (run in a child process:
    janus loads SWI-Prolog once per process)."""
    task = load_task(data)
    engine = get_plugin_manager().make("backend", backend, options)
    engine.load(task)
    try:
        ids = [i for i, label in enumerate(task.examples.labels) if label == 1][:seeds]
        return [str(engine.saturate(i)) for i in ids]
    finally:
        engine.close()


def _in_child(data: str, backend: str, options: dict[str, object], seeds: int) -> list[str]:
    spec = json.dumps([data, backend, options, seeds])
    code = (
        "import json, sys; from tests.test_same_bottom import bottoms; "
        "print('RESULT ' + json.dumps(bottoms(*json.loads(sys.stdin.read()))))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        input=spec,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=1200,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result: list[str] = json.loads(line[len("RESULT ") :])
            return result
    raise AssertionError(f"child failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")


ARITHMETIC = """:- modeh(1, p(+t)).
:- modeb(*, v(+t, #n)).
:- modeb(*, w(+t, -n)).
:- modeb(*, big(+n)).
:- determination(p/1, v/2).
:- determination(p/1, w/2).
:- determination(p/1, big/1).
:- set(i, 2).
raw(a, 3.75).
raw(a, 30).
v(X, D) :- raw(X, R), D is truncate(R*10)/10.
v(X, D) :- raw(X, R), R > 10, D is R / 10.
v(X, D) :- raw(X, R), integer(R), D is 2 ** 3 + R // 30 - 1.
v(X, D) :- raw(X, R), float(R), D is round(2.5) + 0 * R.
v(a, D) :- D is max(1, 1.0).
v(a, D) :- D is min(2, 2.0).
v(a, D) :- D is integer(2.5).
v(a, D) :- D is 2 ^ -1.
v(a, D) :- D is copysign(2, -0.0).
v(a, D) :- X = 6 / 3, D is X.
v(a, D) :- findall(Y, (member(Z, [4, 5]), Y is Z * 2 / 2), L), sum_list(L, D).
w(a, 6).
big(X) :- X / 2 =:= 3.
big(X) :- round(X / 4) =:= 2.
"""

# SWI-Prolog's results (its default flags iso=false, prefer_rationals=false), by clause of v/2:
# truncate(3.75*10)/10 = 37/10 = 3.7 (inexact: a float); truncate(30*10)/10 = 300/10 = 30
# (exact: an integer; GNU Prolog: type error, truncate takes floats); 30/10 = 3 (GNU: 3.0);
# 2**3 + 30//30 - 1 = 8 (GNU: 8.0); round(2.5) + 0*3.75 = 3 + 0.0 = 3.0 (GNU rounds to 2);
# max(1, 1.0) = 1.0 and min(2, 2.0) = 2.0 (equal: the float); integer(2.5) = 3 (a duplicate
# of v(A,3)); 2^ -1 = 0.5; copysign(2, -0.0) = -2; X = 6/3, X evaluated = 2; 4*2/2 + 5*2/2 =
# 4 + 5 = 9. big(6): 6/2 =:= 3 holds.
EXPECTED = (
    "p(A) :- v(A,3.7), v(A,30), v(A,3), v(A,8), v(A,3.0), v(A,1.0), v(A,2.0), v(A,0.5), "
    "v(A,-2), v(A,2), v(A,9), w(A,B), big(B)."
)


@pytest.mark.parametrize("backend", _engines(heavy=True))
def test_arithmetic_gives_swi_numbers_in_the_bottom_clause_on_every_engine(
    tmp_path: Path, backend: tuple[str, dict[str, object]]
) -> None:
    _write(tmp_path / "d.b", ARITHMETIC)
    _write(tmp_path / "d.f", "p(a).\n")
    _write(tmp_path / "d.n", "p(b).\n")
    name, options = backend
    _need(name, options)
    assert _in_child(str(tmp_path / "d.b"), name, options, 1) == [EXPECTED]


def test_only_arithmetic_that_may_differ_is_rewritten() -> None:
    def rewritten(text: str) -> str:
        term = PrologReader().read_term(text)
        return to_prolog(rewrite_clause(Clause.from_term(term)).to_term())

    assert rewritten("v(X, D) :- D is X + 1, D > 2.") == "v(X,D) :- D is X+1,D > 2"
    assert rewritten("v(X, D) :- D is X / 2.") == "v(X,D) :- ilpkit_is(D,X/2)"
    assert rewritten("v(X, D) :- D is X.") == "v(X,D) :- ilpkit_is(D,X)"
    assert rewritten("v(X) :- \\+ round(X) < 2.") == "v(X) :- \\+ilpkit_compare(<,round(X),2)"
    assert rewritten("v(L, S) :- findall(Y, (member(Z, L), Y is Z ** 2), S).") == (
        "v(L,S) :- findall(Y,(member(Z,L),ilpkit_is(Y,Z**2)),S)"
    )


# the bottom clauses of the first positive examples of every bundled dataset
SEEDS = 3


@pytest.mark.heavy
@pytest.mark.parametrize("dataset", sorted(BUNDLED))
def test_bundled_datasets_give_the_same_bottom_clauses_on_every_engine(dataset: str) -> None:
    data = str(bundled_path(dataset))
    reference = _in_child(data, "native", {}, SEEDS)
    assert len(reference) == SEEDS
    for what, name, options in ENGINES[1:]:
        if _available(name, options):  # a missing engine is left out
            assert _in_child(data, name, options, SEEDS) == reference, (dataset, what)


@pytest.mark.heavy
@pytest.mark.skipif(shutil.which("gprolog") is None, reason="gprolog not on PATH")
def test_gprolog_atom_table_is_sized_to_the_data(tmp_path: Path) -> None:
    # 32,000 atoms beside GNU Prolog's own 1,771 overflow its default table of 32,768
    facts = "".join(f"q(x, c{i}).\n" for i in range(32000))
    bias = ":- modeh(1, p(+t)).\n:- modeb(*, q(+t, #c)).\n:- determination(p/1, q/2).\n"
    _write(tmp_path / "d.b", bias + facts + "q(a, c7).\n")
    _write(tmp_path / "d.f", "p(a).\n")
    _write(tmp_path / "d.n", "p(b).\n")
    assert atom_table_size((tmp_path / "d.b").read_text()) == 131072  # 2 * 32,006 + 65,536
    task = load_task(tmp_path)
    engine = get_plugin_manager().make("backend", "subprocess", {"engine": "gprolog"})
    engine.load(task)
    try:
        assert str(engine.saturate(0)) == "p(A) :- q(A,c7)."
    finally:
        engine.close()


CLASH = """:- modeh(1, p(+t)).
:- modeb(1, q(+t)).
:- determination(p/1, q/1).
q(X) :- r(X).
r(a).
"""


def test_a_data_file_defining_a_builtin_is_refused_with_file_and_line(tmp_path: Path) -> None:
    _write(tmp_path / "d.b", CLASH + "succ(0, 1).\n")
    _write(tmp_path / "d.f", "p(a).\n")
    _write(tmp_path / "d.n", "p(b).\n")
    # refused when the data is read, so the same on every engine (GNU Prolog crashed on it)
    with pytest.raises(DataError, match=r"d\.b:6:1: this clause defines succ/2, a built-in"):
        load_task(tmp_path)


@pytest.mark.skipif(shutil.which("gprolog") is None, reason="gprolog not on PATH")
def test_a_fact_clashing_with_an_engines_own_builtin_names_its_file_and_line(
    tmp_path: Path,
) -> None:
    # list/1 is a GNU Prolog built-in only: the engine refuses the facts, named by line
    _write(tmp_path / "d.b", CLASH + "list(a).\nlist(b).\n")
    _write(tmp_path / "d.f", "p(a).\n")
    _write(tmp_path / "d.n", "p(b).\n")
    task = load_task(tmp_path)
    engine = get_plugin_manager().make("backend", "subprocess", {"engine": "gprolog"})
    with pytest.raises(PrologEngineError) as caught:
        engine.load(task)
    engine.close()
    message = str(caught.value)
    assert f"{tmp_path / 'd.b'}:6:1 (fact 1 of list/1)" in message
    assert f"{tmp_path / 'd.b'}:7:1 (fact 2 of list/1)" in message
