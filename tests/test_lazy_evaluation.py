"""Lazy evaluation (issue 30): constants computed from the examples' bindings, as Aleph's
``lazy_evaluate/1`` and ``positive_only/1`` do.

Each expected theory is worked out by hand from :mod:`ilpkit.core.lazy` (the predicate is
called with ``[PositiveValues, NegativeValues]`` at its ``+`` places, most recent binding
first, and its first answer gives the ``#`` constants) and must be the same on the native
backend and on every Prolog engine installed (each run in a child process of its own).
"""

from __future__ import annotations

from pathlib import Path

from tests.test_recursion import engine, learned  # noqa: F401 (the engine fixture)
from tests.test_swi_backend import in_child

THRESHOLD = """\
:- modeh(1, p(+int)).
:- modeb(1, above(+int, #int)).
:- determination(p/1, above/2).
:- lazy_evaluate(above/2).
{extra}
% a test at search time, the lazy call (lists of values), and saturation's placeholder
above(X, T) :- number(X), number(T), !, X >= T.
above([_, Ns], T) :- !, biggest(Ns, M), T is M + 1.
above(X, X).

biggest([X], X) :- !.
biggest([X|Xs], M) :- biggest(Xs, M0), (X > M0 -> M = X ; M = M0).
"""

SLOPE = """\
:- mode(1, q(+x, +y)).
:- mode(1, slope(+y, +x, #number)).
:- determination(q/2, slope/3).
:- lazy_evaluate(slope/3).
:- positive_only(slope/3).

slope(Y, X, M) :- number(X), number(Y), number(M), !, Y =:= M * X.
slope([[Y|_], []], [[X|_], []], M) :- !, M is Y // X.
slope(Y, _, Y).
"""


def write(folder: Path, stem: str, bias: str, pos: list[str], neg: list[str]) -> str:
    (folder / f"{stem}.b").write_text(bias, encoding="utf-8")
    (folder / f"{stem}.f").write_text("".join(f"{a}.\n" for a in pos), encoding="utf-8")
    (folder / f"{stem}.n").write_text("".join(f"{a}.\n" for a in neg), encoding="utf-8")
    return str(folder / f"{stem}.b")


def test_a_threshold_from_the_negatives(engine: str, tmp_path: Path) -> None:  # noqa: F811
    # Seed p(7): saturation's placeholder is above(A,7) (the third clause), which would
    # cover 7 and 9 only. Lazily, above([[9,5,7],[3,1]], T) (positives and negatives, most
    # recent first) gives T = max(3,1) + 1 = 4: p(A) :- above(A,4) covers 7, 5, 9 and
    # neither negative (1, 3): one rule.
    path = write(
        tmp_path, "t", THRESHOLD.format(extra=""), ["p(7)", "p(5)", "p(9)"], ["p(1)", "p(3)"]
    )
    got = in_child(engine, learned, engine=engine, path=path)
    assert got == ["p(A) :- above(A,4)."]


def test_positive_only_leaves_the_negatives_out(engine: str, tmp_path: Path) -> None:  # noqa: F811
    # With positive_only the negatives' list is []: biggest([]) fails, the lazy call has no
    # answer and the literal is dropped, so no clause beats a seed: the three facts, in
    # seed order.
    bias = THRESHOLD.format(extra=":- positive_only(above/2).")
    path = write(tmp_path, "t", bias, ["p(7)", "p(5)", "p(9)"], ["p(1)", "p(3)"])
    got = in_child(engine, learned, engine=engine, path=path)
    assert got == ["p(7).", "p(5).", "p(9)."]


def test_a_slope_from_the_most_recent_positive(engine: str, tmp_path: Path) -> None:  # noqa: F811
    # Seed q(2,6): placeholder slope(B,A,6) covers no positive (6 =:= 6*2 fails), only the
    # negative q(1,6). Lazily the
    # positives' bindings, most recent first, are y = [12,9,6], x = [4,3,2]: M = 12 // 4 = 3.
    # slope(B,A,3) holds for q(2,6), q(3,9), q(4,12) and not for the negatives q(1,6),
    # q(2,7): one rule.
    path = write(tmp_path, "s", SLOPE, ["q(2,6)", "q(3,9)", "q(4,12)"], ["q(1,6)", "q(2,7)"])
    got = in_child(engine, learned, engine=engine, path=path)
    assert got == ["q(A,B) :- slope(B,A,3)."]


def test_data_check_lists_the_lazy_directives_as_read_by_aleph(tmp_path: Path) -> None:
    from ilpkit import load_task

    bias = THRESHOLD.format(extra=":- positive_only(above/2).\n:- foo(bar).")
    task = load_task(write(tmp_path, "t", bias, ["p(7)"], ["p(1)"]))
    summary = task.summary()
    assert [d.split(": ", 1)[1] for d in summary["directives_read_by_learner_aleph"]] == [
        ":-lazy_evaluate(above/2)",
        ":-positive_only(above/2)",
    ]
    assert [d.split(": ", 1)[1] for d in summary["uninterpreted_directives"]] == [":-foo(bar)"]
