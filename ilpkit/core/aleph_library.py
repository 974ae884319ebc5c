"""Aleph's utility predicates that Aleph data calls, as safe built-ins of every backend.

Why: Aleph loads a task's background into the same Prolog as Aleph itself, so data written
for Aleph may call Aleph's own utilities (numbers/miline's ``em_regress/10`` calls
``aleph_random/1`` and ``aleph_delete/3``).  Without them such data is refused as calling
undefined predicates.  ilpkit provides four, each side-effect free (nothing but answers):

* ``aleph_random(-X)``: ``X`` is the next number of a uniform stream over ``[0, 1)``
  (a draw is made even when ``X`` is bound; the call then succeeds only if they are equal);
* ``aleph_delete(?X, ?List, ?Rest)``: ``Rest`` is ``List`` without one element that unifies
  with ``X``, each in turn on backtracking, first occurrence first (as ``select/3``);
* ``aleph_member(?X, ?List)``: ``X`` is an element of ``List``, on backtracking each in turn
  (as ``member/2``);
* ``aleph_append(?A, ?B, ?C)``: ``C`` is ``B`` followed by ``A`` -- the other way round
  from ``append/3``: ``aleph_append([1], [2], C)`` gives ``C = [2, 1]`` -- committed to the
  first way it finds: ``B = []`` as soon as ``A`` and ``C`` unify (``aleph_append(X, Y, [1, 2])``
  gives only ``X = [1, 2], Y = []``; ``aleph_append([2], Y, [1, 2])`` gives ``Y = [1]``).

Aleph's manual does not document them; their meaning here is the one observed by running
classic Aleph 5 (``aleph_orig.pl`` under SWI-Prolog 9.0.4) on these calls, and the
definitions are ilpkit's own.  A program that defines one of these names keeps its own
definition (as with a library predicate).

The random stream (the same numbers on every backend for the same seed):

* The generator is Wichmann and Hill's (Applied Statistics algorithm AS 183, 1982): three
  small linear congruential generators whose scaled sum, modulo 1, is the draw.  It needs only
  integers below 2**23 and three float divisions, so every engine (GNU Prolog's 60-bit
  integers included) computes exactly the same doubles as Python.
* Its state starts from the run's seed (:func:`initial_state`, a hash of the seed, so that
  nearby seeds give unrelated streams) afresh at every query an engine starts: each goal of
  a saturation or a lazy evaluation, and each example's test in a coverage query.  A query's
  answers therefore depend on the seed and the query only, never on which queries ran before
  it: the same on every backend, in every worker process, and after caching.  Within one
  query the draws follow Prolog's execution order and are not undone on backtracking.

Aleph draws from its Prolog's own generator, seeded once per session, so the numbers differ
from Aleph's; a theory built from them is the same up to those numbers (docs/security.md).
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ALEPH_LIBRARY",
    "LIST_PREDICATES",
    "RandomStream",
    "initial_state",
    "next_state",
]

Indicator = tuple[str, int]

ALEPH_LIBRARY: Final[frozenset[Indicator]] = frozenset(
    {("aleph_random", 1), ("aleph_delete", 3), ("aleph_member", 2), ("aleph_append", 3)}
)
"""The Aleph utilities every backend provides (data may call them without ``--trust-data``)."""

LIST_PREDICATES: Final = r"""
aleph_member(X, [X|_]).
aleph_member(X, [_|T]) :- aleph_member(X, T).
aleph_delete(X, [X|T], T).
aleph_delete(X, [H|T], [H|R]) :- aleph_delete(X, T, R).
aleph_append(A, [], A) :- !.
aleph_append(A, [H|T], [H|C]) :- aleph_append(A, T, C).
"""
"""Portable Prolog definitions of the three list utilities (every engine loads these)."""

_M: Final = (30269, 30307, 30323)
"""The moduli of AS 183's three generators."""
_A: Final = (171, 172, 170)
"""Their multipliers."""


def initial_state(seed: int) -> tuple[int, int, int]:
    """The generator state a query starts from under ``seed`` (any integer): three values,
    each in ``1 .. modulus - 1``, from a 64-bit mix of the seed (SplitMix64's finaliser)."""
    z = (seed + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    out = []
    for m in _M:
        z = (z + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        x = z
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 31
        out.append(x % (m - 1) + 1)
    return out[0], out[1], out[2]


def next_state(state: tuple[int, int, int]) -> tuple[float, tuple[int, int, int]]:
    """The draw that ``state`` gives and the state after it."""
    s1 = _A[0] * state[0] % _M[0]
    s2 = _A[1] * state[1] % _M[1]
    s3 = _A[2] * state[2] % _M[2]
    x = s1 / float(_M[0]) + s2 / float(_M[1]) + s3 / float(_M[2])
    return x - float(int(x)), (s1, s2, s3)


class RandomStream:
    """One query's draws: the stream of ``seed`` from its start."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = initial_state(seed)

    def draw(self) -> float:
        value, self.state = next_state(self.state)
        return value
