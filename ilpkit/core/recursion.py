"""Recursive clauses: the target predicate in a clause body, as Aleph allows it.

When a determination lets the target predicate appear in the body of its own clauses
(``:- determination(mem/2, mem/2).``), Aleph (``aleph_orig.pl``, checked on its
``recursion/mem`` example) answers a body call of the target differently in its two stages,
and so does ilpkit:

* **Saturation** answers a call of the target from the training positives other than the
  seed (the first one that matches, as Aleph's cut does) and, when none matches, from the
  theory's clauses accepted so far: the bottom clause of ``mem(1,[0,1])`` holds
  ``mem(0,[0,1])`` and ``mem(1,[1])`` because those are other examples
  (:class:`ExampleOracle`).  Every other goal goes to the backend.
* **Coverage** proves a recursive call with the clause under evaluation itself plus the
  clauses of the theory accepted so far -- never with the examples, which would make every
  recursive clause trivially right (:class:`RecursiveCoverage`).  A model's recursive rule
  is scored the same way, with the whole theory (:func:`theory_coverage`).

The proof of a recursive clause runs here, in Python: its non-target literals are asked of
the backend one goal at a time (``answers``, the call saturation makes, Prolog order on
every engine), so the coverage is identical on the native backend and on every Prolog
engine.  The recursion is bounded by Aleph's ``depth`` setting (default 10), read here as
the number of nested calls of the target in one proof: a branch that would go deeper fails,
as Aleph's depth-bounded proof fails it (Aleph counts every call, ilpkit only the target's;
a background goal keeps the backend's own ``step_limit`` and ``timeout``).  The price is one
backend question per distinct goal (memoised), so a large recursive task is slow on a Prolog
backend; non-recursive clauses never come here.  Clause bodies are read as conjunctions of
plain goals, without cuts (a goal with a control construct goes to the backend whole).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ilpkit.core.bias import Bias
from ilpkit.core.coverage import Coverage
from ilpkit.prolog.terms import Clause, Const, Str, Struct, Term, Var, substitute

Subst = dict[Var, Term]

_MEMO_LIMIT = 200_000


def recursive_bias(bias: Bias, target: tuple[str, int]) -> bool:
    """Whether the determinations (or, without any, the body modes) allow ``target`` in the
    body of its own clauses."""
    return any(m.indicator == target for m in bias.body_modes_for(target))


def calls_head(clause: Clause) -> bool:
    """Whether ``clause`` calls its own head predicate in its body (a recursive clause)."""
    key = clause.indicator
    return any(_key(g) == key for g in clause.body)


def _key(goal: Term) -> tuple[str, int] | None:
    if type(goal) is Struct:
        return (goal.name, len(goal.args))
    if type(goal) is Const and isinstance(goal.value, str):
        return (goal.value, 0)
    return None


def _walk(t: Term, s: Subst) -> Term:
    while type(t) is Var and t in s:
        t = s[t]
    return t


def resolve(t: Term, s: Subst) -> Term:
    """``t`` with every bound variable replaced by its value (all the way down)."""
    t = _walk(t, s)
    if type(t) is Struct:
        return Struct(t.name, tuple(resolve(a, s) for a in t.args))
    return t


def unify(a: Term, b: Term, s: Subst) -> Subst | None:
    """``s`` extended so that ``a`` and ``b`` are equal (a new dict), or None; no occurs
    check, as Prolog."""
    out = dict(s)
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        x, y = _walk(x, out), _walk(y, out)
        if x is y or (type(x) is not Var and type(y) is not Var and x == y and _atomic(x)):
            continue
        if type(x) is Var:
            if x != y:
                out[x] = y
            continue
        if type(y) is Var:
            out[y] = x
            continue
        if type(x) is Struct and type(y) is Struct:
            if x.name != y.name or len(x.args) != len(y.args):
                return None
            stack.extend(zip(x.args, y.args, strict=True))
            continue
        return None
    return out


def _atomic(t: Term) -> bool:
    return type(t) in (Const, Str)


class ExampleOracle:
    """Saturation's oracle for a recursive target: a call of the target is answered by the
    first training positive other than the seed that matches it (Aleph's saturation-stage
    clause for the target, which cuts); when none does, by the clauses of ``theory``
    accepted so far (Aleph asserts them into the background), at most ``depth`` nested
    calls deep. Every other goal goes to ``backend``."""

    def __init__(
        self,
        backend: Any,
        target: tuple[str, int],
        positives: Sequence[Term],
        seed: Term,
        theory: Sequence[Clause] = (),
        depth: int = 10,
    ) -> None:
        self.backend = backend
        self.target = target
        seen_seed = False
        others = []
        for atom in positives:
            if atom == seed and not seen_seed:
                seen_seed = True  # the seed itself (once: a duplicate example still answers)
                continue
            others.append(atom)
        self.others = others
        self.theory = [c for c in theory if c.indicator == target]
        self.depth = depth

    def answers(self, goal: Term, max_answers: int | None) -> list[Term]:
        if _key(goal) != self.target:
            out: list[Term] = self.backend.answers(goal, max_answers)
            return out
        if max_answers is not None and max_answers <= 0:
            return []
        for atom in self.others:
            s = unify(goal, atom, {})
            if s is not None:
                return [resolve(goal, s)]
        if not self.theory:
            return []
        prover = RecursiveCoverage(self.backend, self.theory, depth=self.depth)
        found: list[Term] = []
        for s in prover._solve((goal,), 0, {}, self.depth, self.theory, self.target):
            found.append(resolve(goal, s))
            if max_answers is not None and len(found) >= max_answers:
                break
        return found


class RecursiveCoverage:
    """A backend whose coverage proves calls of the target predicate with the clause under
    evaluation and ``theory`` (at most ``depth`` nested calls); clauses that do not call
    their head predicate go to ``backend`` unchanged.  Everything else is ``backend``'s."""

    def __init__(self, backend: Any, theory: Sequence[Clause] = (), depth: int | None = None):
        self.__dict__["_inner"] = backend
        self.__dict__["theory"] = list(theory)
        if depth is None:
            depth = int(backend.task.bias.settings["depth"])
        self.__dict__["depth"] = depth
        self.__dict__["_memo"] = {}
        self.__dict__["_fresh"] = itertools.count()

    # everything not defined here (n_examples, task, answers, saturate, limits counters...)
    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("theory", "depth"):
            self.__dict__[name] = value
        else:  # the limit counters of :mod:`ilpkit.core.limits` belong to the backend
            setattr(self._inner, name, value)

    @property
    def prefers_batches(self) -> bool:
        return bool(getattr(self._inner, "prefers_batches", False))

    def coverage(self, clause: Clause, among: Coverage | None = None) -> Coverage:
        if not calls_head(clause):
            out: Coverage = self._inner.coverage(clause, among)
            return out
        return self._prove_all(clause, among)

    def coverage_many(
        self, clauses: Sequence[Clause], among: Coverage | None = None
    ) -> list[Coverage]:
        plain = [i for i, c in enumerate(clauses) if not calls_head(c)]
        out: list[Coverage | None] = [None] * len(clauses)
        if plain:
            got = self._inner.coverage_many([clauses[i] for i in plain], among)
            for i, cov in zip(plain, got, strict=True):
                out[i] = cov
        for i, c in enumerate(clauses):
            if out[i] is None:
                out[i] = self._prove_all(c, among)
        return [c for c in out if c is not None]

    def solutions(self, goals: Sequence[Term], s: Subst) -> Iterator[Subst]:
        """The answers of the conjunction ``goals`` under ``s`` (Prolog order), each goal asked
        of the backend (a call of a recursive target too: no theory is involved here)."""
        return self._solve(tuple(goals), 0, s, 0, [], ("", -1))

    # -- the proof -------------------------------------------------------------------------------
    def _prove_all(self, clause: Clause, among: Coverage | None) -> Coverage:
        n = int(self._inner.n_examples)
        atoms = self._inner.task.examples.atoms
        ids = np.arange(n, dtype=np.int64) if among is None else among.ids
        program = [clause, *(c for c in self.theory if c != clause)]
        key = clause.indicator
        covered = []
        for i in ids.tolist():
            atom = atoms[i]
            if _key(atom) != key:
                continue
            if self._proves(clause, atom, program):
                covered.append(i)
        return Coverage(np.array(covered, dtype=np.int64), n, trusted=True)

    def _proves(self, clause: Clause, atom: Term, program: list[Clause]) -> bool:
        head, body = self._rename(clause)
        s = unify(head, atom, {})
        if s is None:
            return False
        target = clause.indicator
        return next(self._solve(body, 0, s, self.depth, program, target), None) is not None

    def _rename(self, clause: Clause) -> tuple[Term, tuple[Term, ...]]:
        """The clause with fresh variables (a new copy for every use, as Prolog)."""
        tag = next(self._fresh)
        mapping = {v: Var(f"{v.name}__{tag}") for v in clause.variables()}
        return substitute(clause.head, mapping), tuple(substitute(g, mapping) for g in clause.body)

    def _solve(
        self,
        goals: tuple[Term, ...],
        k: int,
        s: Subst,
        depth: int,
        program: list[Clause],
        target: tuple[str, int],
    ) -> Iterator[Subst]:
        if k == len(goals):
            yield s
            return
        goal = resolve(goals[k], s)
        if _key(goal) == target:
            if depth <= 0:
                return  # deeper than Aleph's depth: this branch fails
            for c in program:
                head, body = self._rename(c)
                s1 = unify(head, goal, s)
                if s1 is None:
                    continue
                for s2 in self._solve(body, 0, s1, depth - 1, program, target):
                    yield from self._solve(goals, k + 1, s2, depth, program, target)
            return
        for answer in self._answers(goal):
            s1 = unify(goal, answer, s)
            if s1 is not None:
                yield from self._solve(goals, k + 1, s1, depth, program, target)

    def _answers(self, goal: Term) -> list[Term]:
        """The backend's answers to ``goal`` (variables renamed apart), memoised by the goal's
        variant form."""
        names: dict[Var, Term] = {}
        for v in _vars(goal):
            if v not in names:
                names[v] = Var(f"_M{len(names)}")
        canon = substitute(goal, names) if names else goal
        memo = self._memo
        got = memo.get(canon)
        if got is None:
            got = list(self._inner.answers(canon, None))
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            memo[canon] = got
        back: dict[Var, Term] = {c: v for v, c in names.items()}  # type: ignore[misc]
        tag = next(self._fresh)
        out = []
        for a in got:
            rename: dict[Var, Term] = {}
            for v in _vars(a):
                if v not in rename:
                    rename[v] = back.get(v, Var(f"_A{tag}_{v.name}"))
            out.append(substitute(a, rename) if rename else a)
        return out


def _vars(t: Term) -> Iterator[Var]:
    stack = [t]
    while stack:
        x = stack.pop()
        if type(x) is Var:
            yield x
        elif type(x) is Struct:
            stack.extend(reversed(x.args))


def theory_backend(backend: Any, clauses: Sequence[Clause]) -> Any:
    """``backend`` itself, or -- when some clause calls its own head predicate -- a
    :class:`RecursiveCoverage` over it with ``clauses`` as the theory (a model's rules are
    scored together: a recursive rule's calls are proved by the whole theory)."""
    if any(calls_head(c) for c in clauses):
        return RecursiveCoverage(backend, clauses)
    return backend


__all__ = [
    "ExampleOracle",
    "RecursiveCoverage",
    "calls_head",
    "recursive_bias",
    "resolve",
    "theory_backend",
    "unify",
]
