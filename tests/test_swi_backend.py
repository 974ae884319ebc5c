"""The ``swi`` backend (SWI-Prolog in process) equals native, through both bridges.

A process can hold one libswipl, so nothing here starts SWI-Prolog in the test process:
each check runs in a child (:func:`in_child`) with the environment of its bridge -- pyswip
with Debian's ``swipl`` on PATH and no ``SWI_HOME_DIR``, janus with
``ILPKIT_SWIPL_JANUS_HOME`` as the user set it (else the backend derives the home) -- and
returns plain data (covered ids, literals as text, error types and messages) that the
parent compares with the native backend.  A bridge that does not start is skipped, or
failed when ``ILPKIT_REQUIRE_BACKENDS`` lists its name (``janus``, ``pyswip``).

Covered: coverage (with and without ``among``, batch and single) and bottom clauses equal
native on trains, UW-CSE and mutagenesis (without the ring-perception modes); answers keep
Prolog order and duplicates; the inference and time limits stop ``loop :- loop`` and the
backend stays usable; thrown exceptions and unknown procedures name the data; two
instances in one process keep their data apart; ``close()`` wipes the module; a second
bridge in the same process and a wrong SWI-Prolog home are refused with a clear message.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ilpkit.core.coverage import Coverage
from ilpkit.core.task import Task
from ilpkit.plugins.backends.native.engine import NativeBackend
from ilpkit.plugins.backends.prolog.swi_backend import SwiBackend, SwiOptions, preflight
from ilpkit.prolog.terms import Clause, clause_to_prolog, to_prolog
from tests.reference_prover import load_bundled, make_task, require_backends, term
from tests.test_subprocess_backend import (
    LOOP_RULES,
    RING_PERCEPTION,
    TERMS_TASK_FACTS,
    loop_task,
    random_clauses,
    task_with_rules,
)

ROOT = Path(__file__).resolve().parents[1]
BRIDGES = ["janus", "pyswip"]
RESULT = "ILPKIT-RESULT "


# --------------------------------------------------------------------------------------------
# running a bridge in a child process
# --------------------------------------------------------------------------------------------


def bridge_env(bridge: str) -> dict[str, str]:
    """The environment of a child that uses ``bridge`` (never ``SWI_HOME_DIR``)."""
    env = {k: v for k, v in os.environ.items() if k != "SWI_HOME_DIR"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if bridge == "pyswip":
        env.pop("LIBSWIPL_PATH", None)
        env["PATH"] = os.pathsep.join(["/usr/bin", env.get("PATH", "")])
    return env


def bridge_available(bridge: str) -> None:
    """Skip (or fail, when required) unless ``bridge`` starts in a child process."""
    check = preflight(bridge)  # type: ignore[arg-type]
    if not check.ok:
        if require_backends(bridge):
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {bridge} but: {check.reason}")
        pytest.skip(f"{bridge}: {check.reason}")


@pytest.fixture(params=BRIDGES)
def bridge(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    bridge_available(name)
    return name


def in_child(env_of: str, function: Callable[..., Any], timeout: float = 600, **kwargs: Any) -> Any:
    """``function(**kwargs)`` (a module-level function) run in a child with the environment
    of bridge ``env_of``; returns its JSON-able result."""
    module = "tests." + function.__module__.rsplit(".", 1)[-1]  # as pytest may name it bare
    spec = json.dumps({"module": module, "name": function.__name__, "kwargs": kwargs})
    proc = subprocess.run(
        [sys.executable, "-c", "from tests.test_swi_backend import child_main; child_main()"],
        input=spec,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=bridge_env(env_of),
        timeout=timeout,
    )
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT):
            return json.loads(line[len(RESULT) :])
    raise AssertionError(f"child failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")


def child_main() -> None:
    """Entry point of :func:`in_child`'s process."""
    spec = json.loads(sys.stdin.read())
    function = getattr(importlib.import_module(spec["module"]), spec["name"])
    result = function(**spec["kwargs"])
    sys.stdout.write(RESULT + json.dumps(result) + "\n")
    sys.stdout.flush()


def swi(task: Task, bridge: str, **options: Any) -> SwiBackend:
    backend = SwiBackend(SwiOptions(bridge=bridge, **options))
    backend.load(task)
    return backend


def outcome(call: Callable[[], Any]) -> Any:
    """The result of ``call()`` as plain data, or ``[error type, message]``."""
    try:
        value = call()
    except Exception as exc:
        return ["raised", type(exc).__name__, str(exc)]
    if isinstance(value, Coverage):
        return value.tolist()
    if isinstance(value, list):
        return [v.tolist() if isinstance(v, Coverage) else to_prolog(v) for v in value]
    return value


# --------------------------------------------------------------------------------------------
# agreement with native on the bundled data
# --------------------------------------------------------------------------------------------


def bundled(name: str) -> Task:
    task = load_bundled(name)
    if name == "mutagenesis":
        task.bias.modeb = [m for m in task.bias.modeb if m.name not in RING_PERCEPTION]
    return task


def child_agreement(
    bridge: str, dataset: str, clauses: list[str], among: list[int] | None, seeds: list[int]
) -> dict[str, Any]:
    task = bundled(dataset)
    parsed = [Clause.from_term(term(c)) for c in clauses]
    cov = None if among is None else Coverage(among, len(task.examples))
    backend = swi(task, bridge)
    return {
        "bridge": backend.bridge_name,
        "batch": [c.tolist() for c in backend.coverage_many(parsed, cov)],
        "single": [backend.coverage(c, cov).tolist() for c in parsed[:20]],
        "bottoms": [repr(backend.saturate(s, depth=2)) for s in seeds],
    }


def check_agreement(
    dataset: str, bridge: str, n: int, seed: int, among_size: int | None = None
) -> None:
    task = bundled(dataset)
    nat = NativeBackend()
    nat.load(task)
    clauses, seeds = random_clauses(task, nat, n, seed)
    among = None
    if among_size is not None:
        size = len(task.examples)
        among = sorted(random.Random(seed).sample(range(size), min(among_size, size)))
    cov = None if among is None else Coverage(among, len(task.examples))
    got = in_child(
        bridge,
        child_agreement,
        bridge=bridge,
        dataset=dataset,
        clauses=[clause_to_prolog(c) for c in clauses],
        among=among,
        seeds=seeds[:4],
    )
    assert got["bridge"] == bridge
    expected = [c.tolist() for c in nat.coverage_many(clauses, cov)]
    assert got["batch"] == expected
    assert got["single"] == expected[:20]
    assert got["bottoms"] == [repr(nat.saturate(s, depth=2)) for s in seeds[:4]]
    assert len({tuple(e) for e in expected}) > 5  # not trivially equal


def test_trains_agrees_with_native(bridge: str) -> None:
    check_agreement("trains", bridge, 300, seed=1)


def test_uwcse_agrees_with_native(bridge: str) -> None:
    check_agreement("uwcse", bridge, 200, seed=2, among_size=300)
    check_agreement("uwcse", bridge, 40, seed=3)


def test_mutagenesis_agrees_with_native(bridge: str) -> None:
    check_agreement("mutagenesis", bridge, 200, seed=4)


# --------------------------------------------------------------------------------------------
# answers, undefined predicates, among
# --------------------------------------------------------------------------------------------


def answers_task() -> Task:
    return make_task(TERMS_TASK_FACTS, ["t(a)"], [], ["modeh(1, t(+k))", "modeb(*, p(-k))"])


def child_answers(bridge: str) -> dict[str, Any]:
    backend = swi(answers_task(), bridge)
    undefined = swi(
        make_task(["p(a, b)"], ["t(a)"], ["t(b)"], ["modeh(1, t(+k))", "modeb(*, q(+k, -k))"]),
        bridge,
    )
    return {
        "p": [outcome(lambda n=n: backend.answers(term("p(X)"), n)) for n in (None, 1, 2, 5, 100)],
        "dup": outcome(lambda: backend.answers(term("p(a)"), None)),
        "zero": outcome(lambda: backend.answers(term("p(X)"), 0)),
        "nowhere": outcome(lambda: backend.answers(term("nowhere(X)"), None)),
        "q": outcome(lambda: undefined.answers(term("q(a, X)"), None)),
        "cover": [
            outcome(lambda t=t: undefined.coverage(Clause.from_term(term(t))))
            for t in ["t(A) :- q(A, B)", "t(A) :- nowhere(A)", "t(A) :- p(A, B)", "t(A)"]
        ],
    }


def test_answers_and_undefined_predicates_equal_native(bridge: str) -> None:
    got = in_child(bridge, child_answers, bridge=bridge)
    nat = NativeBackend()
    nat.load(answers_task())
    want = [[to_prolog(a) for a in nat.answers(term("p(X)"), n)] for n in (None, 1, 2, 5, 100)]
    assert got["p"] == want
    assert len(got["p"][0]) == len(TERMS_TASK_FACTS)
    assert got["dup"] == ["p(a)", "p(a)"]
    assert got["zero"] == [] and got["nowhere"] == [] and got["q"] == []
    assert got["cover"] == [[], [], [0], [0, 1]]


def child_among(bridge: str) -> list[Any]:
    facts = [f"p(e{i}, x)" for i in range(0, 40, 3)]
    task = make_task(facts, [f"t(e{i})" for i in range(20)], [f"t(e{i})" for i in range(20, 40)])
    backend = swi(task, bridge)
    clause = Clause.from_term(term("t(A) :- p(A, x)"))
    rng = random.Random(0)
    out: list[Any] = [backend.coverage(clause).tolist()]
    for _ in range(10):
        ids = sorted(rng.sample(range(40), rng.randint(0, 40)))
        among = Coverage(ids, 40)
        batch = backend.coverage_many([clause, clause], among)
        out.append([ids, backend.coverage(clause, among).tolist(), [c.tolist() for c in batch]])
    out.append([backend.covers(clause, 3), backend.covers(clause, 4)])
    out.append(outcome(lambda: backend.coverage(clause, Coverage([1], 41))))
    return out


def test_among_restricts(bridge: str) -> None:
    got = in_child(bridge, child_among, bridge=bridge)
    full = set(range(0, 40, 3))
    assert set(got[0]) == full
    for ids, single, batch in got[1:11]:
        assert single == sorted(full & set(ids)) and batch == [single, single]
    assert got[11] == [True, False]
    assert got[12][:2] == ["raised", "DataError"]


# --------------------------------------------------------------------------------------------
# limits and errors
# --------------------------------------------------------------------------------------------


def child_limits(bridge: str) -> dict[str, Any]:
    loop = Clause.from_term(term("t(A) :- loop(A)"))
    ok = Clause.from_term(term("t(A) :- ok(A)"))
    spin = Clause.from_term(term("t(A) :- spin(A)"))
    steps = swi(loop_task(), bridge, step_limit=100_000)
    timed = swi(loop_task(), bridge, step_limit=None, timeout=0.5)
    import time

    start = time.monotonic()
    spun = outcome(lambda: timed.coverage(spin))
    return {
        "loop": outcome(lambda: steps.coverage(loop)),
        "ok": outcome(lambda: steps.coverage(ok)),
        "batch": outcome(lambda: steps.coverage_many([ok, loop, ok])),
        "ok2": outcome(lambda: steps.coverage(ok)),
        "answers": outcome(lambda: steps.answers(term("loop(a)"), 1)),
        "p": outcome(lambda: steps.answers(term("p(X, Y)"), None)),
        "spin": spun,
        "spin_seconds": time.monotonic() - start,
        "timed_ok": outcome(lambda: timed.coverage(ok)),
    }


def test_limits_stop_loops_and_the_backend_stays_usable(bridge: str) -> None:
    got = in_child(bridge, child_limits, bridge=bridge)
    assert got["loop"][:2] == ["raised", "ResourceLimitExceeded"]
    assert "inference limit" in got["loop"][2] and "t(A) :- loop(A)" in got["loop"][2]
    assert got["ok"] == got["ok2"] == got["timed_ok"] == [0, 1]
    assert got["batch"][:2] == ["raised", "ResourceLimitExceeded"] and "loop" in got["batch"][2]
    assert got["answers"][:2] == ["raised", "ResourceLimitExceeded"]
    assert got["p"] == ["p(a,b)", "p(c,d)"]
    assert got["spin"][:2] == ["raised", "ResourceLimitExceeded"]
    assert "time limit" in got["spin"][2] and got["spin_seconds"] < 8


def child_errors(bridge: str) -> dict[str, Any]:
    from ilpkit.errors import SourceLocation
    from ilpkit.prolog.terms import Const

    rules = [*LOOP_RULES, "r(X) :- missing_helper(X)"]
    backend = swi(task_with_rules(rules, ["p(a, b)"], ["t(a)"], ["t(b)"]), bridge)
    bad = task_with_rules(["ok(X) :- p(X, _)"], ["p(a, b)"], ["t(a)"], [])
    bad.program.add_clause(Clause(term("bad(X)"), [Const(1)]), SourceLocation("bk.pl", 7, 1))
    return {
        "missing": outcome(lambda: backend.coverage(Clause.from_term(term("t(A) :- r(A)")))),
        "thrown": outcome(lambda: backend.coverage(Clause.from_term(term("t(A) :- boom(A)")))),
        "arith": outcome(lambda: backend.coverage(Clause.from_term(term("t(A) :- X is A + 1")))),
        "ok": outcome(lambda: backend.coverage(Clause.from_term(term("t(A) :- ok(A)")))),
        "load": outcome(lambda: swi(bad, bridge)),
    }


def test_engine_errors_name_the_data(bridge: str) -> None:
    got = in_child(bridge, child_errors, bridge=bridge)
    _, name, text = got["missing"]
    assert name == "PrologEngineError" and "missing_helper/1" in text and "bk.pl:5" in text
    assert "ilpkit_task_" not in text  # the module is an implementation detail
    _, name, text = got["thrown"]
    assert name == "PrologEngineError" and "my_error(a)" in text and "bk.pl:3" in text
    assert got["arith"][1] == "PrologEngineError" and "t(A) :- X is A+1" in got["arith"][2]
    assert got["ok"] == [0]
    _, name, text = got["load"]
    assert name == "PrologEngineError" and "bk.pl:7" in text and "callable" in text


# --------------------------------------------------------------------------------------------
# several instances, close(), one libswipl per process, a wrong home
# --------------------------------------------------------------------------------------------


def child_instances(bridge: str) -> dict[str, Any]:
    from ilpkit.plugins.backends.prolog.swi_backend import start_bridge

    clause = Clause.from_term(term("t(A) :- p(A, B)"))
    first = swi(make_task(["p(a, x)", "p(b, y)"], ["t(a)", "t(b)"], ["t(c)"]), bridge)
    second = swi(make_task(["p(c, z)"], ["t(a)", "t(b)"], ["t(c)"]), bridge)
    out: dict[str, Any] = {
        "modules": [first.module, second.module],
        "first": first.coverage(clause).tolist(),
        "second": second.coverage(clause).tolist(),
        "answers": [to_prolog(a) for a in second.answers(term("p(X, Y)"), None)],
    }
    module = first.module
    first.close()
    first.close()  # twice is fine
    probe = start_bridge(SwiOptions(bridge=bridge))
    out["gone"] = True
    try:  # the module's predicates are gone (calling one raises an existence error)
        probe.run(f"catch({module}:'$ilpkit_example'(_, _), _, fail)")
        out["gone"] = False
    except RuntimeError:
        pass
    out["closed"] = outcome(lambda: first.coverage(clause))
    out["second_after"] = second.coverage(clause).tolist()
    first.load(make_task(["p(b, x)"], ["t(a)", "t(b)"], []))  # reload after close
    out["reloaded"] = [first.module, first.coverage(clause).tolist()]
    other = "pyswip" if bridge == "janus" else "janus"
    out["other"] = outcome(lambda: swi(loop_task(), other))
    out["auto"] = swi(loop_task(), "auto").bridge_name
    return out


def test_instances_are_separate_and_close_wipes_the_module(bridge: str) -> None:
    got = in_child(bridge, child_instances, bridge=bridge)
    assert got["modules"][0] != got["modules"][1]
    assert got["first"] == [0, 1] and got["second"] == [2]
    assert got["answers"] == ["p(c,z)"]
    assert got["gone"]
    assert got["closed"][:2] == ["raised", "IlpkitError"] and "no task" in got["closed"][2]
    assert got["second_after"] == [2]
    assert got["reloaded"][0] not in got["modules"] and got["reloaded"][1] == [1]
    _, name, text = got["other"]
    assert name == "BackendUnavailable" and f"already runs SWI-Prolog through {bridge}" in text
    assert got["auto"] == bridge


def child_wrong_home(bridge: str) -> Any:
    return outcome(
        lambda: swi(loop_task(), "janus", janus_home="/usr/lib/swi-prolog").coverage(
            Clause.from_term(term("t(A) :- ok(A)"))
        )
    )


def test_a_wrong_janus_home_is_explained_not_fatal() -> None:
    bridge_available("janus")
    if not Path("/usr/lib/swi-prolog/boot.prc").exists():
        pytest.skip("needs Debian's SWI-Prolog 9.0 home as the wrong home")
    got = in_child("janus", child_wrong_home, bridge="janus")
    _, name, text = got
    assert name == "BackendUnavailable"
    assert "incompatible VM-signature" in text and "ILPKIT_SWIPL_JANUS_HOME" in text


def test_probe_reports_both_bridges() -> None:
    statuses = {s.variant: s for s in SwiBackend.probe()}
    assert set(statuses) == {"bridge=janus", "bridge=pyswip"}
    for name in BRIDGES:
        s = statuses[f"bridge={name}"]
        if require_backends(name):
            assert s.available, s.reason
        if s.available:
            assert s.version and not s.reason
        else:
            assert s.reason
    assert "janus_swi" not in sys.modules and "pyswip.prolog" not in sys.modules
