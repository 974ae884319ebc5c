"""Yes/no questions: rule-defined literals whose arguments are all bound where they stand,
answered by the resolution engine only for the bindings the kernel actually reaches.

Why: carcinogenesis' ``connected(R1, R2) :- R1 \\= R2, element(A, R1), element(A, R2)``
over the rings two literals bind (``ketone(D, R1), ester(D, R2), connected(R2, R1)``) is
outside the set-at-a-time evaluator (it walks lists), and the pairs of rings number too many
to table over their domains; such clauses went to the set-at-a-time engine, which joins every
pair of rings of every drug and asks the resolution engine about each distinct pair: 3.6 CPU
s for the 61 such clauses Aleph evaluates, where SWI-Prolog stops at each drug's first
connected pair (13 ms).  In the kernel such a literal is an ``ASK`` (:data:`.kernels.ASK`):
its answer for the bound values is looked up here; a question not answered yet counts as a
failure and leaves its example undecided (unless another proof covers it); the backend then
answers the questions the kernel wrote down and runs those examples again.  An example is
thus reported uncovered only once every question its search asked had its answer -- the
first-solution search SLD resolution makes, asking only what it reaches.  The answers are
kept for the backend's lifetime (up to :data:`MAX_ANSWERS`), so later clauses reuse them.

A question is the call with those arguments, all of its answers computed (as a derived
table would), so an error raised anywhere in it hands the clause to the set-at-a-time
engine as before (and the predicate is asked no more).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from ilpkit.errors import IlpkitError
from ilpkit.plugins.backends.native import kernels as K
from ilpkit.plugins.backends.native.engine_common import _BROKEN, Part
from ilpkit.plugins.backends.native.plan import HeadIndex, run_plan
from ilpkit.plugins.backends.native.store import Ids
from ilpkit.prolog.terms import Struct

if TYPE_CHECKING:
    from ilpkit.plugins.backends.native.engine import NativeBackend

MAX_ANSWERS: Final = 1_000_000
"""Answers kept; past it they are all dropped and asked again as needed."""
WANT: Final = 1 << 14
"""Room for the questions one kernel call writes down (ids); more are asked next round."""


class Questions:
    """The answers known so far, as the kernel reads them: ``keys`` (:data:`.kernels.
    ASK_WIDTH` ids per cell: the predicate's number, then the arguments) and ``vals``
    (:data:`.kernels.UNKNOWN` for an empty cell, else ``YES`` or ``NO``), with linear
    probing from the hash the kernel computes (:func:`cell`)."""

    def __init__(self) -> None:
        self.predicates: dict[tuple[str, int], int] = {}
        self.names: list[tuple[str, int]] = []
        self.broken: set[int] = set()
        """Predicates one of whose questions raised: asked no more."""
        self.answers: dict[tuple[int, ...], int] = {}
        self.want = np.zeros(WANT, dtype=np.int64)
        self.wanted = 0
        """Entries the last kernel call wrote in :attr:`want`."""
        self._clear(64)

    def _clear(self, cap: int) -> None:
        self.keys = np.zeros(cap * K.ASK_WIDTH, dtype=np.int64)
        self.vals = np.zeros(cap, dtype=np.int64)

    def number(self, key: tuple[str, int]) -> int | None:
        """The number of predicate ``key`` in questions; None when it may not be asked."""
        if not 0 < key[1] < K.ASK_WIDTH:
            return None
        p = self.predicates.get(key)
        if p is None:
            p = self.predicates[key] = len(self.names)
            self.names.append(key)
        return None if p in self.broken else p

    def add(self, p: int, args: tuple[int, ...], yes: bool) -> None:
        """Record the answer of predicate ``p`` on ``args`` (interned ids)."""
        if len(self.answers) >= MAX_ANSWERS:
            self.answers.clear()
            self._clear(64)
        key = (p, *args)
        self.answers[key] = K.YES if yes else K.NO
        if 2 * len(self.answers) > len(self.vals):
            self._clear(4 * len(self.vals))
            for old, answer in self.answers.items():
                self._put(old, answer)
        else:
            self._put(key, self.answers[key])

    def _put(self, key: tuple[int, ...], answer: int) -> None:
        cap = len(self.vals)
        h = cell(key, cap)
        while self.vals[h] != K.UNKNOWN:
            h = (h + 1) % cap
        self.keys[h * K.ASK_WIDTH : h * K.ASK_WIDTH + len(key)] = key
        self.vals[h] = answer

    def asked(self, kind: Ids, cop: Ids, a_start: Ids, a_end: Ids) -> list[tuple[int, ...]]:
        """The distinct questions (predicate number, argument ids...) not answered yet that
        the last kernel call wrote down, given its plan's arrays."""
        out: dict[tuple[int, ...], None] = {}
        want = self.want[: self.wanted].tolist()
        i = 0
        while i < len(want):
            k = want[i]
            assert kind[k] == K.ASK
            n = int(a_end[k] - a_start[k])
            key = (int(cop[k]), *want[i + 1 : i + 1 + n])
            if key not in self.answers:
                out[key] = None
            i += 1 + n
        return list(out)


def cell(key: tuple[int, ...], cap: int) -> int:
    """Where the kernel starts looking for a question (as it computes it)."""
    h = key[0]
    for v in key[1:]:
        h = (h * K.ASK_PRIME + v) % cap
    return h


# -- methods of NativeBackend (kept here: the questions' whole story in one module) --------


def _run_asking(
    self: NativeBackend, hix: HeadIndex, part: Part, rows: Ids, budget: int
) -> tuple[npt.NDArray[np.uint8], int, int]:
    """The kernel on ``rows``; while it leaves examples undecided on questions not answered
    yet (:mod:`.ask`), answer those and run those examples again, so every answer is final.
    ``_BROKEN`` when a question raised (or none could be written down)."""
    q = self.questions
    covered, status, steps = run_plan(
        part.plan, hix, rows, part.hcol, part.strides, part.memo, self.kstore,
        self.interner.numeric(), self.interner.types(), q, budget, self._check_deadline,
    )  # fmt: skip
    while status == K.OK:
        open_ = np.flatnonzero(covered == K.UNDECIDED)
        if len(open_) == 0:
            break
        kind, cop, a_start, a_end = (part.plan.arrays[i] for i in (0, 13, 7, 8))
        asked = q.asked(kind, cop, a_start, a_end)
        if not asked or not self._answer(asked):
            return covered, _BROKEN, steps
        again, status, more = run_plan(
            part.plan, hix, rows[open_], part.hcol, part.strides, part.memo, self.kstore,
            self.interner.numeric(), self.interner.types(), q, budget - steps,
            self._check_deadline,
        )  # fmt: skip
        covered[open_] = again
        steps += more
    return covered, status, steps


def _answer(self: NativeBackend, asked: list[tuple[int, ...]]) -> bool:
    """Answer these questions (predicate number, argument ids): all of one predicate at
    once by the set-at-a-time evaluator when its fragment allows, else each by the
    resolution engine (all answers of the call, memoised with the set-at-a-time engine's);
    False when one raises (its predicate is asked no more)."""
    q = self.questions
    terms = self.interner.terms
    by_predicate: dict[int, list[tuple[int, ...]]] = {}
    for question in asked:
        by_predicate.setdefault(question[0], []).append(question[1:])
    for p, calls in by_predicate.items():
        name, _ = q.names[p]
        yes = None
        if self.opts.derive_rows and len(calls) > 1:
            yes = self.deriver.each(name, np.array(calls, dtype=np.int64))
        if yes is not None:
            for call, answer in zip(calls, yes.tolist(), strict=True):
                q.add(p, call, answer)
            continue
        for call in calls:
            goal = Struct(name, tuple(terms[i] for i in call))
            try:
                answer = bool(self._solve_memo(goal, []))
            except (IlpkitError, RecursionError):
                q.broken.add(p)
                return False
            q.add(p, call, answer)
    self.stats["questions"] = self.stats.get("questions", 0) + len(asked)
    return True


def _question(self: NativeBackend, key: tuple[str, int]) -> int | None:
    """The number of a rule-defined predicate the kernel may ask about (:mod:`.ask`)."""
    program = self.task.program
    if not self._ask or key not in program.clauses or key in program.dynamic:
        return None
    return self.questions.number(key)
