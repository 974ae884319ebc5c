"""Row-chunked evaluation in the set-at-a-time evaluator (``native/vectorised.py``).

The evaluator's contract is the SLD answer sequence: Prolog's order, Prolog's duplicates.
Splitting a conjunction's rows into chunks (depth-first over chunks) and unfolding a call
that one clause answers into its caller's conjunction must not change it.  The expected
sequences below are written by hand from SLD resolution of the programs (clauses top to
bottom, facts in file order, goals left to right), not from the code's output; each is
checked with the default chunk size and with tiny ones that put chunk boundaries everywhere,
including inside nested and recursive calls.
"""

from __future__ import annotations

import pytest

from ilpkit.core.task import Program
from ilpkit.plugins.backends.native.prolog.terms import _to_term
from ilpkit.plugins.backends.native.resolution import ResolutionEngine
from ilpkit.plugins.backends.native.vectorised import Evaluator, Unsupported
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause, Term, to_prolog

PROGRAM = """
e(a, b).
e(a, c).
e(b, d).
e(c, d).
e(d, a).
e(a, b).
p(X, Y) :- e(X, Z), e(Z, Y).
p(X, X) :- e(X, _).
q(X, W) :- p(X, Y), r(Y, W).
r(Y, W) :- e(Y, W).
r(Y, z) :- Y @> b.
v(a).
v(b).
v(c).
v(d).
v(b).
pick(1, [A]) :- v(A).
pick(N, [A, B|T]) :- N > 1, M is N - 1, pick(M, [B|T]), v(A), A @> B.
tri(L) :- pick(3, [A, B, C]), L = [A, B, C], A \\== d.
"""

CHUNKS = [None, 1, 2, 3, 5]
"""None: the default chunk size (nothing is split in these small programs)."""


@pytest.fixture(scope="module")
def engine() -> ResolutionEngine:
    prog = Program()
    for rt in PrologReader().read_text(PROGRAM, "chunked.pl"):
        prog.add_clause(Clause.from_term(rt.term), rt.location)
    return ResolutionEngine(prog)


def evaluator(engine: ResolutionEngine, chunk: int | None) -> Evaluator:
    ev = Evaluator(engine)
    if chunk is not None:
        ev.chunk_rows = chunk
    return ev


def text(t: object) -> str:
    term: Term = _to_term(t)
    return to_prolog(term)


def rows(ev: Evaluator, name: str, args: list[object]) -> list[tuple[str, ...]]:
    return [tuple(text(a) for a in answer) for answer in ev.answers(name, args)]


@pytest.mark.parametrize("chunk", CHUNKS)
def test_two_clauses_with_duplicates(engine: ResolutionEngine, chunk: int | None) -> None:
    ev = evaluator(engine, chunk)
    # p(a, Y): clause 1 walks e(a, Z) = b, c, b (the duplicate last fact), each to d;
    # clause 2 gives Y = a once per e(a, _) fact
    assert [y for _, y in rows(ev, "p", ["a", None])] == ["d", "d", "d", "a", "a", "a"]
    # p(X, Y): clause 1 over e/2 in fact order, then clause 2 over e/2 in fact order
    want = ["ad", "ad", "ba", "ca", "db", "dc", "db", "ad", "aa", "aa", "bb", "cc", "dd", "aa"]
    assert ["".join(r) for r in rows(ev, "p", [None, None])] == want


@pytest.mark.parametrize("chunk", CHUNKS)
def test_a_call_per_row_of_a_two_clause_call(engine: ResolutionEngine, chunk: int | None) -> None:
    # q(X, W) :- p(X, Y), r(Y, W): for each answer of p(X, Y) above, in order, the answers
    # of r(Y, W): e(Y, W) facts, then z when Y @> b
    per_p_answer = [  # p's answer (X, Y): the answers of r(Y, W), as XW
        "aa az",  # (a, d): r(d, W) = a (fact), z (d @> b)
        "aa az",  # (a, d)
        "bb bc bb",  # (b, a): r(a, W) = b, c, b (facts); a @> b fails
        "cb cc cb",  # (c, a)
        "dd",  # (d, b): r(b, W) = d; b @> b fails
        "dd dz",  # (d, c): r(c, W) = d, z
        "dd",  # (d, b)
        "aa az",  # (a, d)
        "ab ac ab",  # (a, a)
        "ab ac ab",  # (a, a)
        "bd",  # (b, b)
        "cd cz",  # (c, c)
        "da dz",  # (d, d)
        "ab ac ab",  # (a, a)
    ]
    want = [xw for group in per_p_answer for xw in group.split(" ")]
    assert len(want) == 30
    ev = evaluator(engine, chunk)
    assert ["".join(r) for r in rows(ev, "q", [None, None])] == want


@pytest.mark.parametrize("chunk", CHUNKS)
def test_recursive_unfolding(engine: ResolutionEngine, chunk: int | None) -> None:
    ev = evaluator(engine, chunk)
    # pick(2, L): pick(1, [B]) gives B = a, b, c, d, b (v/1 in order, b twice); for each,
    # v(A) with A @> B in v/1's order
    want2 = ["[b,a]", "[c,a]", "[d,a]", "[b,a]", "[c,b]", "[d,b]", "[d,c]", "[c,b]", "[d,b]"]
    assert [r[1] for r in rows(ev, "pick", [2, None])] == want2
    # pick(3, L): each pick(2) answer above extended by the larger v/1 values, in order
    want3 = ["[c,b,a]", "[d,b,a]", "[d,c,a]", "[c,b,a]", "[d,b,a]", "[d,c,b]", "[d,c,b]"]
    assert [r[1] for r in rows(ev, "pick", [3, None])] == want3
    # tri(L): pick(3) unfolded into tri's body, then the test A \== d
    assert [r[0] for r in rows(ev, "tri", [None])] == ["[c,b,a]", "[c,b,a]"]


@pytest.mark.parametrize("chunk", CHUNKS)
def test_batch_splits_inside_a_nested_call(engine: ResolutionEngine, chunk: int | None) -> None:
    # q(X, W) for X = d, a, d (three calls at once): the rows of the calls meet inside
    # p/2's branches and r/2's, where tiny chunk sizes split them
    ev = evaluator(engine, chunk)
    calls = ["d", "a", "d"]
    origin, cols = ev.batch("q", [None, None], {0: calls}, len(calls))
    got = [
        (int(o), "".join(text(ev.values.values[c[i]]) for c in cols))
        for i, o in enumerate(origin.tolist())
    ]
    # from the q(X, W) sequence above, the answers with X = d, then X = a, then X = d
    d = ["dd", "dd", "dz", "dd", "da", "dz"]
    a = ["aa", "az", "aa", "az", "aa", "az", "ab", "ac", "ab", "ab", "ac", "ab", "ab", "ac", "ab"]
    assert got == [(0, x) for x in d] + [(1, x) for x in a] + [(2, x) for x in d]


def test_tiny_chunks_really_split(engine: ResolutionEngine) -> None:
    # the chunked path is taken: with chunk_rows=1 the evaluator merges chunks
    ev = evaluator(engine, 1)
    calls = {"n": 0}
    chunks = ev._chunks

    def counting(*args: object) -> object:
        calls["n"] += 1
        return chunks(*args)  # type: ignore[arg-type]

    ev._chunks = counting  # type: ignore[method-assign,assignment]
    assert len(ev.answers("q", [None, None])) == 30
    assert calls["n"] > 0


def test_chunks_agree_on_the_answers_of_every_start(engine: ResolutionEngine) -> None:
    # every call pattern of the program, default against chunk sizes 1..4
    goals: list[tuple[str, list[object]]] = [
        ("p", [None, None]),
        ("q", [None, None]),
        ("q", ["c", None]),
        ("r", ["c", None]),
        ("pick", [1, None]),
        ("pick", [3, None]),
        ("pick", [4, None]),
        ("tri", [None]),
    ]
    whole = evaluator(engine, None)
    for chunk in (1, 2, 3, 4):
        ev = evaluator(engine, chunk)
        for name, args in goals:
            assert rows(ev, name, args) == rows(whole, name, args), (name, args, chunk)


@pytest.mark.parametrize("chunk", CHUNKS)
def test_the_row_limit_counts_unsplit_rows(engine: ResolutionEngine, chunk: int | None) -> None:
    # p(X, Y) has 14 answers (above): a 13-row limit refuses the call however it is split,
    # a 100-row limit does not (chunks never make a call look smaller than it is)
    ev = evaluator(engine, chunk)
    ev.max_rows = 13
    with pytest.raises(Unsupported):
        ev.answers("p", [None, None])
    ev.max_rows = 100
    assert len(ev.answers("p", [None, None])) == 14


def test_mutagenesis_ring_answers_in_chunks() -> None:
    # a real exhaustive search (mutagenesis' ring perception: every 6-subset of d1's
    # atoms): the same answer sequence with a chunk size that splits it hundreds of times
    from ilpkit.core import formats
    from tests.test_resolution import MUTAGENESIS

    task = formats.load_task(MUTAGENESIS)
    engine = ResolutionEngine(task.program, step_limit=20_000_000)
    whole = Evaluator(engine)
    small = Evaluator(engine)
    small.chunk_rows = 2_000
    for name in ("ring_size_6", "benzene", "hetero_aromatic_6_ring", "ring_size_5"):
        want = whole.answers(name, ["d1", None])
        assert small.answers(name, ["d1", None]) == want, name
    assert len(whole.answers("ring_size_6", ["d1", None])) == 6  # 3 rings, each twice
