"""The ``subprocess`` backend (SWI-Prolog, GNU Prolog, YAP as a child process) equals native.

For each engine on PATH (skipped otherwise, failed instead when its name is listed in
``ILPKIT_REQUIRE_BACKENDS``): coverage of random legal clauses, with and without ``among``,
and bottom clauses are identical to the native backend's on trains, UW-CSE and mutagenesis;
answers keep Prolog order and duplicates and round-trip floats, quoted atoms and lists; an
infinite loop is stopped by the limits and the backend stays usable; a killed engine is
restarted; engine errors name the data file and line; no engine outlives its backend.
"""

from __future__ import annotations

import gc
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

from ilpkit.core.coverage import Coverage
from ilpkit.core.refine import Refiner
from ilpkit.core.task import Task
from ilpkit.errors import DataError, IlpkitError, ResourceLimitExceeded, SourceLocation
from ilpkit.plugins.backends.native.engine import NativeBackend
from ilpkit.plugins.backends.prolog.profiles import PROFILES
from ilpkit.plugins.backends.prolog.subprocess_backend import (
    PrologEngineError,
    SubprocessBackend,
    SubprocessOptions,
)
from ilpkit.prolog.terms import Clause, Const, Struct, Var
from tests.reference_prover import load_bundled, make_task, require_backends, term
from tests.skips import engine_missing

ENGINES = ["swipl", "gprolog", "yap"]
RING_PERCEPTION = {
    "benzene", "carbon_5_aromatic_ring", "carbon_6_ring", "hetero_aromatic_6_ring",
    "hetero_aromatic_5_ring", "ring_size_6", "ring_size_5", "anthracene", "phenanthrene",
    "ball3",
}  # fmt: skip


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    if shutil.which(PROFILES[name].executable) is None:
        if require_backends(name):
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {name} but it is not on PATH")
        pytest.skip(engine_missing(name))
    return name


def backend_for(task: Task, engine: str, **options: object) -> SubprocessBackend:
    backend = SubprocessBackend(SubprocessOptions(engine=engine, **options))  # type: ignore[arg-type]
    backend.load(task)
    return backend


def native(task: Task) -> NativeBackend:
    backend = NativeBackend()
    backend.load(task)
    return backend


def task_with_rules(rules: list[str], facts: list[str], pos: list[str], neg: list[str]) -> Task:
    """A hand-made task whose rules have locations ``bk.pl:<n>`` (n = 1-based rule index)."""
    task = make_task(facts, pos, neg, ["modeh(1, t(+k))", "modeb(*, p(+k, -k))"])
    for n, text in enumerate(rules, 1):
        task.program.add_clause(Clause.from_term(term(text)), SourceLocation("bk.pl", n, 1))
    return task


# --------------------------------------------------------------------------------------------
# agreement with the native backend on the bundled data
# --------------------------------------------------------------------------------------------


def random_clauses(
    task: Task, nat: NativeBackend, n: int, seed: int, depth: int = 2
) -> tuple[list[Clause], list[int]]:
    """``n`` random legal clauses from bottom clauses of random positive seeds."""
    rng = random.Random(seed)
    positives = [int(i) for i in task.examples.positives]
    clauses: list[Clause] = []
    seeds: list[int] = []
    while len(clauses) < n:
        seeds.append(rng.choice(positives))
        bottom = nat.saturate(seeds[-1], depth=depth)
        refiner = Refiner(bottom, None)
        for _ in range(min(25, n - len(clauses))):
            clauses.append(bottom.clause(refiner.random_clause(rng.randint(1, 5), rng)))
    return clauses, seeds


def check_agreement(
    task: Task, engine: str, n: int, seed: int, among_size: int | None = None
) -> None:
    if engine == "gprolog":
        n = max(20, n // 5)  # first-argument indexing only: slow on these joins
    nat = native(task)
    clauses, seeds = random_clauses(task, nat, n, seed)
    backend = backend_for(task, engine)
    try:
        for s in seeds[:4]:
            mine, theirs = backend.saturate(s, depth=2), nat.saturate(s, depth=2)
            assert mine.literals == theirs.literals and mine.head == theirs.head
        among = None
        if among_size is not None:
            size = len(task.examples)
            ids = sorted(random.Random(seed).sample(range(size), min(among_size, size)))
            among = Coverage(ids, size)
        expected = [c.tolist() for c in nat.coverage_many(clauses, among)]
        assert [c.tolist() for c in backend.coverage_many(clauses, among)] == expected
        assert [backend.coverage(c, among).tolist() for c in clauses[:20]] == expected[:20]
        assert len({tuple(e) for e in expected}) > 5  # not trivially equal
    finally:
        backend.close()


def test_trains_agrees_with_native(engine: str) -> None:
    check_agreement(load_bundled("trains"), engine, 300, seed=1)


def test_uwcse_agrees_with_native(engine: str) -> None:
    # 2,824 examples: the bulk restricted by 'among' (as refinements are), a few on all
    task = load_bundled("uwcse")
    check_agreement(task, engine, 200, seed=2, among_size=300)
    check_agreement(task, engine, 20, seed=3)


def test_mutagenesis_agrees_with_native(engine: str) -> None:
    # rules in bk.pl (gteq/lteq with cut and not/1, nitro, methyl), member/2, the undefined
    # mode predicate connected/2
    task = load_bundled("mutagenesis")
    task.bias.modeb = [m for m in task.bias.modeb if m.name not in RING_PERCEPTION]
    check_agreement(task, engine, 200, seed=4)


# --------------------------------------------------------------------------------------------
# answers, terms, among
# --------------------------------------------------------------------------------------------

TERMS_TASK_FACTS = [
    "p(a)", "p(a)", "p(b)", "p('hello world')", "p('don''t')", "p(-1)", "p(0.1)", "p(-0.117)",
    "p(1.0e20)", "p(1.5e-7)", "p([x, y])", "p([])", "p({a, b})", "p(f(-(1)))", "p(- a)",
    "p('A')", "p(3.0)", "p(1)", "p('\\n')",
]  # fmt: skip


def test_answers_round_trip_and_keep_order(engine: str) -> None:
    task = make_task(TERMS_TASK_FACTS, ["t(a)"], [], ["modeh(1, t(+k))", "modeb(*, p(-k))"])
    backend = backend_for(task, engine)
    nat = native(task)
    try:
        for limit in (None, 1, 2, 5, 100):
            got = backend.answers(term("p(X)"), limit)
            assert got == nat.answers(term("p(X)"), limit)
        assert len(backend.answers(term("p(X)"), None)) == len(TERMS_TASK_FACTS)
        assert backend.answers(term("p(a)"), None) == [term("p(a)")] * 2  # duplicates kept
        assert backend.answers(term("p(X)"), 0) == []
        # a predicate defined nowhere has no answers (native's rule), not an existence error
        assert (
            backend.answers(term("nowhere(X)"), None) == [] == nat.answers(term("nowhere(X)"), None)
        )
    finally:
        backend.close()


def test_undefined_mode_predicate_fails_and_undefined_literal_covers_nothing(engine: str) -> None:
    task = make_task(["p(a, b)"], ["t(a)"], ["t(b)"], ["modeh(1, t(+k))", "modeb(*, q(+k, -k))"])
    backend = backend_for(task, engine)
    nat = native(task)
    try:
        assert backend.answers(term("q(a, X)"), None) == [] == nat.answers(term("q(a, X)"), None)
        for text in ["t(A) :- q(A, B)", "t(A) :- nowhere(A)", "t(A) :- p(A, B)", "t(A)"]:
            clause = Clause.from_term(term(text))
            assert backend.coverage(clause).tolist() == nat.coverage(clause).tolist()
    finally:
        backend.close()


def test_a_rule_calling_a_list_library_predicate_works(engine: str) -> None:
    """mutagenesis' ring6/4 calls memberchk/2, which the program does not define.  On YAP
    8.0.2 the clause left a placeholder for memberchk/2 that looked defined, so the library
    wrapper was not added and every ring goal raised an existence error."""
    rules = ["in(X) :- p(X, L), memberchk(X, L)", "last_of(X, Y) :- p(X, L), last(L, Y)"]
    facts = ["p(a, [b, a])", "p(b, [c])", "p(c, [c, d])"]
    task = task_with_rules(rules, facts, ["t(a)"], ["t(b)"])
    backend = backend_for(task, engine)
    nat = native(task)
    try:
        for goal in ["in(X)", "last_of(X, Y)", "memberchk(c, [a, c])"]:
            got = backend.answers(term(goal), None)
            assert got == nat.answers(term(goal), None)
        assert [str(a) for a in backend.answers(term("in(X)"), None)] == ["in(a)", "in(c)"]
    finally:
        backend.close()


def test_among_restricts(engine: str) -> None:
    facts = [f"p(e{i}, x)" for i in range(0, 40, 3)]
    task = make_task(facts, [f"t(e{i})" for i in range(20)], [f"t(e{i})" for i in range(20, 40)])
    backend = backend_for(task, engine)
    clause = Clause.from_term(term("t(A) :- p(A, x)"))
    full = set(range(0, 40, 3))
    try:
        assert set(backend.coverage(clause).tolist()) == full
        rng = random.Random(0)
        for _ in range(10):
            ids = sorted(rng.sample(range(40), rng.randint(0, 40)))
            among = Coverage(ids, 40)
            assert set(backend.coverage(clause, among).tolist()) == full & set(ids)
            assert [c.tolist() for c in backend.coverage_many([clause, clause], among)] == [
                sorted(full & set(ids))
            ] * 2
        assert backend.covers(clause, 3) and not backend.covers(clause, 4)
        with pytest.raises(DataError):
            backend.coverage(clause, Coverage([1], 41))
    finally:
        backend.close()


# --------------------------------------------------------------------------------------------
# limits, crashes, errors
# --------------------------------------------------------------------------------------------

LOOP_RULES = [
    "loop(X) :- loop(X)",
    "ok(X) :- p(X, _)",
    "boom(X) :- throw(my_error(X))",
    "spin(X) :- repeat, fail",
]


def loop_task() -> Task:
    return task_with_rules(LOOP_RULES, ["p(a, b)", "p(c, d)"], ["t(a)", "t(c)"], ["t(b)"])


def test_infinite_loop_hits_the_limit_and_the_backend_stays_usable(engine: str) -> None:
    loop = Clause.from_term(term("t(A) :- loop(A)"))
    ok = Clause.from_term(term("t(A) :- ok(A)"))
    # the inference limit (or, without one, the guard; gprolog's interpreted recursion runs
    # out of stack first, which is a resource limit too) ...
    backend = backend_for(loop_task(), engine, step_limit=100_000, guard_seconds=1.0)
    try:
        with pytest.raises(ResourceLimitExceeded, match="loop"):
            backend.coverage(loop)
        assert backend.pid is not None
        assert backend.coverage(ok).tolist() == [0, 1]
        with pytest.raises(ResourceLimitExceeded):
            backend.coverage_many([ok, loop, ok])
        assert backend.coverage(ok).tolist() == [0, 1]
        with pytest.raises(ResourceLimitExceeded):
            backend.answers(term("loop(a)"), 1)
        assert backend.answers(term("p(X, Y)"), None) == [term("p(a, b)"), term("p(c, d)")]
    finally:
        backend.close()
    # ... and the time limit (a failure-driven loop runs in constant memory everywhere)
    backend = backend_for(loop_task(), engine, step_limit=None, timeout=0.5)
    try:
        start = time.monotonic()
        with pytest.raises(ResourceLimitExceeded, match="time limit"):
            backend.coverage(Clause.from_term(term("t(A) :- spin(A)")))
        assert time.monotonic() - start < 8
        assert backend.coverage(ok).tolist() == [0, 1]
    finally:
        backend.close()


def test_killed_engine_is_restarted(engine: str) -> None:
    ok = Clause.from_term(term("t(A) :- ok(A)"))
    loop = Clause.from_term(term("t(A) :- spin(A)"))
    backend = backend_for(loop_task(), engine, step_limit=None, timeout=None, guard_seconds=None)
    try:
        # killed while idle: the next query restarts it
        pid = backend.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
        assert backend.coverage(ok).tolist() == [0, 1]
        assert backend.pid != pid
        # killed while answering: that query fails clearly, the next one works
        pid = backend.pid
        assert pid is not None
        threading.Timer(0.5, os.kill, (pid, signal.SIGKILL)).start()
        with pytest.raises(IlpkitError, match="crashed"):
            backend.coverage(loop)
        assert backend.coverage(ok).tolist() == [0, 1]
    finally:
        backend.close()


def test_engine_errors_name_the_data(engine: str) -> None:
    rules = [*LOOP_RULES, "r(X) :- missing_helper(X)"]
    task = task_with_rules(rules, ["p(a, b)"], ["t(a)"], ["t(b)"])
    backend = backend_for(task, engine)
    try:
        with pytest.raises(PrologEngineError, match=r"missing_helper.*bk\.pl:5"):
            backend.coverage(Clause.from_term(term("t(A) :- r(A)")))
        with pytest.raises(PrologEngineError, match="my_error"):
            backend.coverage(Clause.from_term(term("t(A) :- boom(A)")))
        assert backend.coverage(Clause.from_term(term("t(A) :- ok(A)"))).tolist() == [0]
    finally:
        backend.close()
    # a clause the engine refuses to load (a number as a goal): file and line of the data
    task = task_with_rules(["ok(X) :- p(X, _)"], ["p(a, b)"], ["t(a)"], [])
    task.program.add_clause(Clause(term("bad(X)"), [Const(1)]), SourceLocation("bk.pl", 7, 1))
    with pytest.raises(PrologEngineError, match=r"bk\.pl:7"):
        backend_for(task, engine)


# --------------------------------------------------------------------------------------------
# processes
# --------------------------------------------------------------------------------------------


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as f:  # a zombie is gone for our purposes
        return f.read().split()[2] == "Z"


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.05)
    return False


def test_no_orphans(engine: str) -> None:
    task = loop_task()
    with backend_for(task, engine) as backend:
        pid = backend.pid
        assert pid is not None and not gone(pid)
    assert wait_gone(pid)
    # garbage-collected without close()
    backend = backend_for(task, engine)
    pid = backend.pid
    assert pid is not None
    del backend
    gc.collect()
    assert wait_gone(pid)
    # the interpreter exits without close()
    script = (
        "from tests.test_subprocess_backend import backend_for, loop_task\n"
        f"b = backend_for(loop_task(), {engine!r})\n"
        "print(b.pid, flush=True)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert wait_gone(int(out.stdout.split()[0]))


def test_engine_restarted_past_its_memory_limit(engine: str) -> None:
    # YAP 8.0.2 leaks memory on every term it reads: its profile restarts it past 1 GB
    import dataclasses

    from ilpkit.plugins.backends.prolog.profiles import RSS_CHECK_EVERY

    backend = backend_for(loop_task(), engine)
    backend.profile = dataclasses.replace(backend.profile, restart_rss_mb=1)
    ok = Clause.from_term(term("t(A) :- ok(A)"))
    try:
        first = backend.pid
        for _ in range(RSS_CHECK_EVERY + 1):
            assert backend.coverage(ok).tolist() == [0, 1]
        assert backend.restarts == 1 and backend.pid != first
    finally:
        backend.close()


def test_reload_replaces_the_engine(engine: str) -> None:
    backend = backend_for(loop_task(), engine)
    try:
        first = backend.pid
        other = make_task(["p(z, z)"], ["t(z)"], ["t(a)"])
        backend.load(other)
        assert first is not None and wait_gone(first)
        clause = Clause(Struct("t", (Var("A"),)), [Struct("p", (Var("A"), Var("B")))])
        assert backend.coverage(clause).tolist() == [0]
    finally:
        backend.close()


def test_probe_reports_every_engine() -> None:
    statuses = {s.variant: s for s in SubprocessBackend.probe()}
    assert set(statuses) == {f"engine={e}" for e in ENGINES}
    for e in ENGINES:
        s = statuses[f"engine={e}"]
        installed = shutil.which(PROFILES[e].executable) is not None
        if installed or require_backends(e):
            assert s.available, s.reason
            assert s.version
        else:
            assert not s.available and "not found" in s.reason


def test_cli_backends_lists_every_backend() -> None:
    from typer.testing import CliRunner

    from ilpkit.cli.main import app

    result = CliRunner().invoke(app, ["backends", "--json"])
    assert result.exit_code == 0, result.output
    rows = {(r["name"], r["variant"]): r for r in json.loads(result.output)}
    from ilpkit.plugins.backends.native import kernels

    native = rows[("native", f"kernel={kernels.KERNEL_IMPL}")]  # the kernel this machine gets
    assert native["available"] and (native["reason"] == "") == (kernels.KERNEL_IMPL == "c")
    for e in ENGINES:
        row = rows[("subprocess", f"engine={e}")]
        assert row["available"] == (shutil.which(PROFILES[e].executable) is not None)
