"""Recursive clauses (issue 30): the target predicate in a clause body, as Aleph learns them.

A tiny list-membership task; every expected set below is worked out by hand from the
definitions in :mod:`ilpkit.core.recursion` (saturation answers a target call from the other
positives; coverage proves it with the clause itself plus the theory, at most ``depth``
nested calls), and must come out the same on every engine (native, swipl, gprolog, janus,
pyswip), each run in a child process of its own.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ilpkit.plugins.backends.prolog.profiles import PROFILES
from tests.reference_prover import require_backends
from tests.test_swi_backend import bridge_available, in_child

ENGINES = ["native", "swipl", "gprolog", "janus", "pyswip"]
BRIDGES = ("janus", "pyswip")

BIAS = """\
:- mode(*, mem(+any, +list)).
:- mode(1, ((+list) = ([-any|-list]))).
:- set(i, 3).
:- set(noise, 0).
:- determination(mem/2, mem/2).
:- determination(mem/2, '='/2).
"""
POS = ["mem(a,[a])", "mem(b,[b])", "mem(b,[a,b])", "mem(c,[a,b,c])", "mem(b,[b,c])"]
NEG = ["mem(c,[a,b])", "mem(a,[])", "mem(d,[a,b,c])"]

BASE = "mem(A,B) :- B = [A|C]"
STEP = "mem(A,B) :- B = [C|D], mem(A,D)"
LOOP = "mem(A,B) :- mem(A,B)"


def write_task(folder: Path) -> str:
    (folder / "mem.b").write_text(BIAS, encoding="utf-8")
    (folder / "mem.f").write_text("".join(f"{a}.\n" for a in POS), encoding="utf-8")
    (folder / "mem.n").write_text("".join(f"{a}.\n" for a in NEG), encoding="utf-8")
    return str(folder / "mem.b")


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    if name in BRIDGES:
        bridge_available(name)
    elif name != "native" and shutil.which(PROFILES[name].executable) is None:
        if require_backends(name):
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {name} but it is not on PATH")
        pytest.skip(f"{name} is not on PATH")
    return name


def make_backend(engine: str) -> Any:
    if engine == "native":
        from ilpkit.plugins.backends.native.engine import NativeBackend

        return NativeBackend()
    if engine in BRIDGES:
        from ilpkit.plugins.backends.prolog.swi_backend import SwiBackend, SwiOptions

        return SwiBackend(SwiOptions(bridge=engine))
    from ilpkit.plugins.backends.prolog.subprocess_backend import (
        SubprocessBackend,
        SubprocessOptions,
    )

    return SubprocessBackend(SubprocessOptions(engine=engine))


def covered_atoms(
    engine: str, path: str, cases: list[tuple[str, list[str], int]]
) -> list[list[str]]:
    """For each (clause, theory, depth): the examples the clause covers, as text (in a
    child: one SWI-Prolog library per process)."""
    from ilpkit import load_task
    from ilpkit.core.recursion import RecursiveCoverage
    from ilpkit.prolog.terms import Clause, to_prolog
    from tests.reference_prover import term

    task = load_task(path)
    backend = make_backend(engine)
    backend.load(task)
    out = []
    try:
        for clause, theory, depth in cases:
            rec = RecursiveCoverage(
                backend, [Clause.from_term(term(t)) for t in theory], depth=depth
            )
            got = rec.coverage(Clause.from_term(term(clause)))
            out.append(sorted(to_prolog(task.examples.atoms[i]) for i in got.tolist()))
    finally:
        backend.close()
    return out


def learned(engine: str, path: str) -> list[str]:
    """The clauses ``--learner aleph`` learns (in a child)."""
    import ilpkit

    backend = "native" if engine == "native" else "swi" if engine in BRIDGES else "subprocess"
    options: dict[str, dict[str, Any]] = {}
    if engine in BRIDGES:
        options["backend"] = {"bridge": engine}
    elif backend == "subprocess":
        options["backend"] = {"engine": engine}
    model = ilpkit.learn(path, learner="aleph", backend=backend, options=options)
    return [str(r.clause) for r in model.rules()]


def test_recursive_coverage_is_the_same_on_every_engine(engine: str, tmp_path: Path) -> None:
    path = write_task(tmp_path)
    cases = [
        # STEP with BASE as the theory, depth 10: the second element on is found by calling
        # mem on the tail; mem(b,[a,b]) -> mem(b,[b]) (BASE); mem(c,[a,b,c]) -> mem(c,[b,c])
        # -> mem(c,[c]) (BASE). mem(a,[a]) -> mem(a,[]) fails (no clause takes []), as
        # mem(b,[b,c]) -> mem(b,[c]) -> mem(b,[]) does; no negative: mem(c,[a,b]) ends at
        # mem(c,[]), mem(a,[]) has no head/tail, d is no member of [a,b,c].
        (STEP, [BASE], 10),
        # no theory: every chain ends at mem(_,[]), which nothing proves
        (STEP, [], 10),
        # depth 1: one nested call of mem; mem(c,[a,b,c]) needs two (mem(c,[b,c]), then
        # BASE for mem(c,[c])), so only mem(b,[a,b]) is left
        (STEP, [BASE], 1),
        # left recursion: with no theory every branch meets the depth bound and fails (the
        # proof ends); with BASE, the examples whose member heads the list
        (LOOP, [], 10),
        (LOOP, [BASE], 10),
    ]
    got = in_child(engine, covered_atoms, engine=engine, path=path, cases=cases)
    assert got == [
        ["mem(b,[a,b])", "mem(c,[a,b,c])"],
        [],
        ["mem(b,[a,b])"],
        [],
        ["mem(a,[a])", "mem(b,[b,c])", "mem(b,[b])"],
    ]


def test_aleph_learns_the_recursive_definition_on_every_engine(engine: str, tmp_path: Path) -> None:
    # Seed mem(a,[a]): its bottom clause is BASE (mem(a,[]) is no other example), which
    # covers the three positives whose member heads the list and no negative. Seed
    # mem(b,[a,b]): BASE no longer helps; STEP covers both positives left (worked out in the
    # coverage test) and no negative, so it is kept: the theory is BASE and STEP.
    path = write_task(tmp_path)
    got = in_child(engine, learned, engine=engine, path=path)
    assert got == ["mem(A,B) :- B = [A|C].", "mem(A,B) :- B = [C|D], mem(A,D)."]


def test_saturation_answers_the_target_from_the_other_positives(tmp_path: Path) -> None:
    from ilpkit import load_task
    from ilpkit.core.bottom import saturate
    from ilpkit.core.recursion import ExampleOracle
    from ilpkit.core.task import POS as POS_LABEL
    from ilpkit.plugins.backends.native.engine import NativeBackend

    task = load_task(write_task(tmp_path))
    backend = NativeBackend()
    backend.load(task)
    seed = next(a for a in task.examples.atoms if str(a) == "mem(b,[a,b])")
    labels = task.examples.labels
    positives = [a for a, y in zip(task.examples.atoms, labels, strict=True) if y == POS_LABEL]
    oracle = ExampleOracle(backend, ("mem", 2), positives, seed)
    bottom = saturate(seed, task.bias, oracle, 3, "aleph")
    # Layer 1: [a,b] = [C|D] gives C = a, D = [b]. Layer 2: of mem(b,[a,b]) (the seed:
    # never its own answer), mem(a,[a,b]), mem(b,[b]), mem(a,[b]) only mem(b,[b]) is
    # another positive; [b] = [b|E] gives E = []. Layer 3: nothing takes [] apart.
    assert {str(lit.term) for lit in bottom.literals} == {"B = [C|D]", "mem(A,D)", "D = [A|E]"}
    # the backend alone knows no mem/2: no recursive literal
    plain = backend.saturate(seed, depth=3, order="aleph")
    assert {str(lit.term) for lit in plain.literals} == {"B = [C|D]", "D = [A|E]"}


def test_depth_is_a_used_setting_of_recursive_tasks(tmp_path: Path) -> None:
    from ilpkit import load_task
    from ilpkit.core.bias_check import unused_settings, unused_settings_warning

    (tmp_path / "mem.b").write_text(BIAS + ":- set(depth, 5).\n", encoding="utf-8")
    (tmp_path / "mem.f").write_text("".join(f"{a}.\n" for a in POS), encoding="utf-8")
    (tmp_path / "mem.n").write_text("".join(f"{a}.\n" for a in NEG), encoding="utf-8")
    task = load_task(str(tmp_path / "mem.b"))
    # the aleph learner bounds its recursive proofs by it; theory (no recursion) does not
    assert unused_settings(task) == []
    assert unused_settings_warning(task, "aleph") is None
    assert unused_settings(task, recursion=False) == ["depth"]
    said = unused_settings_warning(task, "theory")
    assert said is not None and "depth" in said
    # without the determination mem/2 -> mem/2, nothing is recursive
    task.bias.determinations = [d for d in task.bias.determinations if d[1] != ("mem", 2)]
    assert unused_settings(task) == ["depth"]


def test_saturation_falls_back_on_the_theory(tmp_path: Path) -> None:
    from ilpkit import load_task
    from ilpkit.core.bottom import saturate
    from ilpkit.core.recursion import ExampleOracle
    from ilpkit.plugins.backends.native.engine import NativeBackend
    from ilpkit.prolog.terms import Clause
    from tests.reference_prover import term

    task = load_task(write_task(tmp_path))
    backend = NativeBackend()
    backend.load(task)
    seed = next(a for a in task.examples.atoms if str(a) == "mem(c,[a,b,c])")
    positives = [a for a in task.examples.atoms if str(a) in POS]

    def mem_literals(theory: list[str]) -> set[str]:
        oracle = ExampleOracle(
            backend, ("mem", 2), positives, seed, [Clause.from_term(term(t)) for t in theory]
        )
        bottom = saturate(seed, task.bias, oracle, 3, "aleph")
        return {str(lit.ground) for lit in bottom.literals if str(lit.ground).startswith("mem")}

    # [a,b,c] = [C|D] gives a and [b,c] (layer 1), [b,c] = [b|[c]] gives b and [c] (layer 2).
    # Of the mem calls over those terms only mem(b,[b,c]) is another positive; with BASE as
    # the theory, the calls no example answers are asked of it too: mem(a,[a,b,c]) and
    # mem(c,[c]) hold (the seed mem(c,[a,b,c]) is never its own answer, and BASE fails it).
    assert mem_literals([]) == {"mem(b,[b,c])"}
    assert mem_literals([BASE]) == {"mem(a,[a,b,c])", "mem(b,[b,c])", "mem(c,[c])"}
