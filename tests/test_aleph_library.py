"""Aleph's utilities as built-ins of every backend (issue 30): ``aleph_random/1``,
``aleph_delete/3``, ``aleph_member/2``, ``aleph_append/3`` (:mod:`ilpkit.core.aleph_library`).

The list utilities are checked against answers worked out by hand (the meanings classic
Aleph 5 shows); the random stream against :class:`RandomStream` computed in Python, which must
give the very same doubles on the native backend and on every Prolog engine installed (each
run in a child process of its own, as one SWI-Prolog library per process).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ilpkit.core.aleph_library import ALEPH_LIBRARY, RandomStream, initial_state, next_state
from ilpkit.core.formats import load_task
from ilpkit.core.safety import check_program
from ilpkit.errors import UnsafeProgramError
from tests.test_recursion import engine, learned, make_backend  # noqa: F401 (the fixture)
from tests.test_swi_backend import in_child

BACKGROUND = """\
:- modeh(1, t(+int)).
:- modeb(1, uses(+int)).
:- determination(t/1, uses/1).

uses(X) :- del(X, [1, 2, 3], _), mem(X, [1, 2]), app([X], [], _), draws(_, _, _), again(_).
del(X, L, R) :- aleph_delete(X, L, R).
mem(X, L) :- aleph_member(X, L).
app(A, B, C) :- aleph_append(A, B, C).
draws(A, B, C) :- aleph_random(A), aleph_random(B), aleph_random(C).
again(X) :- aleph_member(_, [a, b]), aleph_random(X).
"""

QUERIES = [
    "del(2, [1,2,3], L)",
    "del(X, [1,2,1], L)",
    "del(4, [1,2,3], L)",
    "mem(X, [a,b,a])",
    "app([1], [2], C)",
    "app(X, Y, [1,2])",
    "app([2], Y, [1,2])",
]


def write_task(folder: Path) -> str:
    (folder / "t.b").write_text(BACKGROUND, encoding="utf-8")
    (folder / "t.f").write_text("t(1).\nt(2).\nt(3).\nt(4).\n", encoding="utf-8")
    (folder / "t.n").write_text("", encoding="utf-8")
    return str(folder / "t.b")


def probe(engine: str, path: str, seed: int) -> dict[str, Any]:  # noqa: F811
    """Answers of the list queries (as text), the draws of ``draws/3`` twice and of
    ``again/1``, and the coverage of a clause drawing twice per example (in a child)."""
    from ilpkit.core.formats import load_task
    from ilpkit.prolog.terms import Clause, Const, to_prolog
    from tests.reference_prover import term

    task = load_task(path)
    backend = make_backend(engine)
    backend.random_seed = seed
    backend.load(task)
    try:
        lists = [[to_prolog(a) for a in backend.answers(term(q), None)] for q in QUERIES]
        draws = [
            [[a.value for a in ans.args if type(a) is Const] for ans in backend.answers(g, None)]
            for g in (term("draws(A, B, C)"), term("draws(A, B, C)"), term("again(X)"))
        ]
        covered = [
            backend.coverage(Clause.from_term(term(text))).tolist()
            for text in (
                "t(X) :- aleph_random(A), aleph_random(B), B * 4 < X",
                # the same test inside a negation (the draws are a nested goal's)
                "t(X) :- \\+ (aleph_random(A), aleph_random(B), B * 4 >= X)",
            )
        ]
    finally:
        backend.close()
    return {"lists": lists, "draws": draws, "covered": covered}


def test_the_generator_is_as_ilpkit_documents_it() -> None:
    # AS 183 by hand from the state (1, 2, 3): (171, 344, 510), and the draw is the
    # fractional part of 171/30269 + 344/30307 + 510/30323
    value, state = next_state((1, 2, 3))
    assert state == (171, 344, 510)
    assert value == 171 / 30269.0 + 344 / 30307.0 + 510 / 30323.0
    # every state is in range, seeds far apart or negative included, and nearby seeds differ
    for seed in (0, 1, -1, 2**70):
        s = initial_state(seed)
        assert all(1 <= v < m for v, m in zip(s, (30269, 30307, 30323), strict=True))
    assert initial_state(0) != initial_state(1)
    stream = RandomStream(5)
    draws = [stream.draw() for _ in range(1000)]
    assert all(0.0 <= d < 1.0 for d in draws)
    assert 0.45 < sum(draws) / len(draws) < 0.55


def test_the_builtins_agree_on_every_engine(engine: str, tmp_path: Path) -> None:  # noqa: F811
    path = write_task(tmp_path)
    got = in_child(engine, probe, engine=engine, path=path, seed=0)
    assert got["lists"] == [
        ["del(2,[1,2,3],[1,3])"],
        ["del(1,[1,2,1],[2,1])", "del(2,[1,2,1],[1,1])", "del(1,[1,2,1],[1,2])"],
        [],
        ["mem(a,[a,b,a])", "mem(b,[a,b,a])", "mem(a,[a,b,a])"],
        ["app([1],[2],[2,1])"],  # aleph_append(A, B, C): C is B then A
        ["app([1,2],[],[1,2])"],  # one answer: B = [] as soon as A and C unify
        ["app([2],[1],[1,2])"],
    ]
    stream = RandomStream(0)
    d1, d2, d3 = stream.draw(), stream.draw(), stream.draw()
    # every query starts the stream afresh: draws/3 twice gives the same three numbers;
    # again/1's second answer is the second draw (not undone on backtracking)
    assert got["draws"] == [[[d1, d2, d3]], [[d1, d2, d3]], [[d1], [d2]]]
    # each example's test is a query of its own: B is the second draw for every example,
    # 0.1998 under seed 0, and B * 4 < X holds for X = 1, 2, 3, 4 (d1 = 0.5198 would
    # give 3 and 4 only)
    assert round(d2, 4) == 0.1998
    assert got["covered"] == [[0, 1, 2, 3], [0, 1, 2, 3]]


def test_the_stream_follows_the_seed(engine: str, tmp_path: Path) -> None:  # noqa: F811
    path = write_task(tmp_path)
    got = in_child(engine, probe, engine=engine, path=path, seed=2)
    stream = RandomStream(2)
    d1, d2, d3 = stream.draw(), stream.draw(), stream.draw()
    assert got["draws"][0] == [[d1, d2, d3]]
    # seed 2: the second draw is 0.6727, and B * 4 < X holds for X = 3, 4 only
    assert round(d2, 4) == 0.6727
    assert got["covered"] == [[2, 3], [2, 3]]


# --------------------------------------------------------------------------------------------
# the safety check
# --------------------------------------------------------------------------------------------


def test_the_safety_check_accepts_them_without_trust(tmp_path: Path) -> None:
    task = load_task(write_task(tmp_path))
    check_program(task)  # no UnsafeProgramError
    assert {("aleph_random", 1), ("aleph_delete", 3)} <= ALEPH_LIBRARY


def test_the_safety_check_still_refuses_shell_and_random(tmp_path: Path) -> None:
    (tmp_path / "t.b").write_text(
        BACKGROUND + "uses(X) :- shell(X).\nuses(X) :- random(X).\n", encoding="utf-8"
    )
    (tmp_path / "t.f").write_text("t(1).\n", encoding="utf-8")
    task = load_task(tmp_path / "t.b")
    with pytest.raises(UnsafeProgramError) as caught:
        check_program(task)
    text = str(caught.value)
    assert "shell/1" in text and "random/1" in text
    assert "aleph_" not in text


def test_module_qualified_they_are_refused(tmp_path: Path) -> None:
    # only the program's module has them: lists:aleph_member/2 would be an existence error
    # in SWI-Prolog, and the native engine would answer it
    (tmp_path / "t.b").write_text(
        BACKGROUND + "uses(X) :- lists:aleph_member(X, [1]).\n", encoding="utf-8"
    )
    (tmp_path / "t.f").write_text("t(1).\n", encoding="utf-8")
    with pytest.raises(UnsafeProgramError, match="module-qualified"):
        check_program(load_task(tmp_path / "t.b"))


def test_a_program_of_its_own_keeps_its_definition(tmp_path: Path) -> None:
    # a program defining aleph_random/1 itself (as an old copy of Aleph's library might)
    # is answered by its own clause on the native engine
    from ilpkit.plugins.backends.native.engine import NativeBackend
    from tests.reference_prover import term

    (tmp_path / "t.b").write_text(BACKGROUND + "aleph_random(0.25).\n", encoding="utf-8")
    (tmp_path / "t.f").write_text("t(1).\n", encoding="utf-8")
    backend = NativeBackend()
    backend.load(load_task(tmp_path / "t.b"))
    got = backend.answers(term("draws(A, B, C)"), None)
    assert [str(a) for a in got] == ["draws(0.25,0.25,0.25)"]


# --------------------------------------------------------------------------------------------
# learning with them: a lazily evaluated constant drawn from the run's seed
# --------------------------------------------------------------------------------------------

PICK = """\
:- modeh(1, p(+int)).
:- modeb(1, above(+int, #int)).
:- determination(p/1, above/2).
:- lazy_evaluate(above/2).

% a test at search time; the lazy call: a threshold drawn among the positives' values;
% saturation's placeholder
above(X, T) :- number(X), number(T), !, X >= T.
above([Ps, _], T) :- !, length(Ps, L), aleph_random(R), I is floor(R * L), nth0(I, Ps, T).
above(X, X).
"""


def learned_with_seed(engine: str, path: str, seed: int) -> list[str]:  # noqa: F811
    import ilpkit
    from tests.test_recursion import BRIDGES

    backend = "native" if engine == "native" else "swi" if engine in BRIDGES else "subprocess"
    options: dict[str, dict[str, Any]] = {}
    if engine in BRIDGES:
        options["backend"] = {"bridge": engine}
    elif backend == "subprocess":
        options["backend"] = {"engine": engine}
    model = ilpkit.learn(path, learner="aleph", backend=backend, options=options, seed=seed)
    return [str(r.clause) for r in model.rules()]


@pytest.mark.parametrize(
    ("seed", "theory"),
    [
        # seed 0: the first draw is 0.5198; the lazy call above([[9,5,7],[3,1]], T) (most
        # recent positive first) takes index floor(0.5198 * 3) = 1: T = 5, which covers the
        # three positives and no negative
        (0, ["p(A) :- above(A,5)."]),
        # seed 7: 0.8813 gives index 2: T = 7 covers 7 and 9 (seed p(7)); the next search
        # (seed p(5), a query of its own: the same first draw) has [[5],[3,1]]: index 0,
        # T = 5, a clause covering only its seed, which (as in Aleph's induce) does not beat
        # the seed itself: the fact p(5)
        pytest.param(7, ["p(A) :- above(A,7).", "p(5)."], marks=pytest.mark.heavy),
    ],
)
def test_a_lazy_constant_drawn_from_the_run_seed(
    engine: str,  # noqa: F811
    tmp_path: Path,
    seed: int,
    theory: list[str],
) -> None:
    (tmp_path / "k.b").write_text(PICK, encoding="utf-8")
    (tmp_path / "k.f").write_text("p(7).\np(5).\np(9).\n", encoding="utf-8")
    (tmp_path / "k.n").write_text("p(1).\np(3).\n", encoding="utf-8")
    got = in_child(engine, learned_with_seed, engine=engine, path=str(tmp_path / "k.b"), seed=seed)
    assert got == theory


# --------------------------------------------------------------------------------------------
# Aleph's own numbers/miline, when an Aleph checkout is at hand (never shipped with ilpkit)
# --------------------------------------------------------------------------------------------

ALEPH_EXAMPLES = Path(os.environ.get("ILPKIT_ALEPH_EXAMPLES", "/tmp/aleph/prolog/examples"))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_numbers_miline_learns_alephs_theory(seed: int) -> None:
    miline = ALEPH_EXAMPLES / "numbers" / "miline.b"
    if not miline.exists():
        pytest.skip(f"no Aleph checkout at {ALEPH_EXAMPLES} (set ILPKIT_ALEPH_EXAMPLES)")
    import ilpkit

    model = ilpkit.learn(str(miline), learner="aleph", seed=seed)
    # Aleph's [theory]: the lazily evaluated line C = 2 * B + 0 (error 0.0) and two facts
    assert [str(r.clause) for r in model.rules()] == [
        "p(A,B,C) :- lin_regress1(A,C,B,2,0,0.0).",
        "p(b1,1,3).",
        "p(b1,1,4).",
    ]
