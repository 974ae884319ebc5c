"""Coverage of many rules through their independent parts, each part asked once.

Coverage binds the head of ``h :- B`` to a ground example, so body literals that share no
variable other than the head's fall into independent *parts* (connected components of the
"shares a non-head variable" graph): ``h :- B`` covers ``e`` iff every part ``h :- B_i``
covers ``e`` (the parts have no variable in common once the head is bound, so a solution of
each combines into one of ``B``).  Asking the parts instead of the clause

* turns a cross product into separate questions: ``active(A) :- atm(A,B,c,22,C),
  ring_size_6(A,D), ring_size_5(A,E)`` makes Prolog re-run the failing ``ring_size_5`` for
  every atom and every six-ring of a molecule; asked apart, each literal runs once per
  molecule (on Mutagenesis with every mode, SWI-Prolog exceeded its 10M-inference limit on
  that clause; its parts take a few seconds in all);
* lets many random rules share work: the part ``active(A) :- ring_size_6(A,D)`` recurs in many
  of R4F's random rules and is asked once per :class:`SplitCoverage` (per fold).

Coverage is the clause's own whenever both finish (the literals of a part keep their order).
Only limits differ: a part is evaluated on every example, also where an earlier literal of
the whole clause would have failed first, so a part can exceed a backend's resource limit
where the clause would not.  A part over the limit (``ResourceLimitExceeded``) is remembered
as such and counted on the backend (:func:`ilpkit.core.limits.note_limit`); every clause
containing it gets ``None`` -- no crash, and the same expensive part is not asked again.
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ilpkit.core.coverage import Coverage
from ilpkit.core.limits import note_limit
from ilpkit.errors import IlpkitError, ResourceLimitExceeded
from ilpkit.prolog.terms import Clause, Term, Var, iter_vars


def independent_parts(clause: Clause) -> list[list[int]]:
    """Body positions of each part of ``clause`` (literals linked by a shared non-head
    variable), in body order; a literal with no non-head variable is a part of its own."""
    return linked_groups(set(iter_vars(clause.head)), clause.body)


def linked_groups(head_vars: set[Var] | frozenset[Var], body: Sequence[Term]) -> list[list[int]]:
    """Positions of ``body`` grouped by shared variables outside ``head_vars`` (union-find),
    each group ascending, groups in the order of their first literal.  (The native kernel's
    per-head-variable parts, :mod:`ilpkit.plugins.backends.native.head_parts`, are the same
    grouping, found with bit masks of the variables it keeps per literal.)"""
    parent = list(range(len(body)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[Var, int] = {}
    for i, literal in enumerate(body):
        for v in iter_vars(literal):
            if v in head_vars:
                continue
            first = owner.setdefault(v, i)
            if first == i:  # the variable's first literal, or a repeat within it
                continue
            a, b = find(i), find(first)
            if a != b:
                parent[max(a, b)] = min(a, b)
    parts: dict[int, list[int]] = {}
    for i in range(len(body)):
        parts.setdefault(find(i), []).append(i)
    return list(parts.values())


def part_clauses(clause: Clause) -> list[Clause]:
    """The clauses ``head :- part`` of ``clause`` (canonical), one per independent part."""
    return [
        Clause(clause.head, tuple(clause.body[i] for i in part)).canonical()
        for part in independent_parts(clause)
    ]


@dataclass
class BackendMemo:
    """Fold-independent work kept on one loaded backend across learner runs: the parts'
    coverage of *all* examples and, for random-rule generators, bottom clauses.  A cross
    validation reuses one backend for every fold, so each is computed once per run, not once
    per fold; the results are the same either way (only CPU time moves to the first fold)."""

    task: Any
    parts: dict[str, Coverage | None] = field(default_factory=dict)
    bottoms: dict[Hashable, Any] = field(default_factory=dict)


_MEMOS: weakref.WeakKeyDictionary[Any, BackendMemo] = weakref.WeakKeyDictionary()


def backend_memo(backend: Any) -> BackendMemo | None:
    """The memo of ``backend`` for the task it has loaded (a new one after ``load``); None
    for a backend that cannot carry one (no loaded ``task``, not weakly referable)."""
    try:
        task = backend.task
    except (AttributeError, IlpkitError):
        return None
    try:
        memo = _MEMOS.get(backend)
        if memo is None or memo.task is not task:
            memo = _MEMOS[backend] = BackendMemo(task)
    except TypeError:
        return None
    return memo


class SplitCoverage:
    """Coverage of clauses among fixed examples, through their parts, each part asked once.

    ``coverage_many`` asks all parts not seen before in one ``backend.coverage_many`` call;
    if that call exceeds a resource limit, the new parts are asked one at a time to find the
    culprit(s), which are remembered as over the limit.  With ``shared`` (a
    :class:`BackendMemo`), parts are asked on all examples and kept in the memo, so later
    folds (and scoring the test fold) reuse them; otherwise only on ``among``, for this object.
    """

    def __init__(self, backend: Any, among: Coverage, shared: BackendMemo | None = None) -> None:
        self.backend = backend
        self.among = among
        self._shared = shared is not None
        self._known: dict[str, Coverage | None] = shared.parts if shared is not None else {}
        self._ask_among: Coverage | None = None if shared is not None else among
        self.asked = 0  # parts whose coverage the backend computed (or tried to)
        self.reused = 0  # parts answered from what was asked before (here or in the memo)
        self.over_limit = 0  # parts that exceeded the backend's resource limit

    def coverage_many(self, clauses: Sequence[Clause]) -> list[Coverage | None]:
        """Coverage of each clause among ``among``; ``None`` where a part exceeded a limit."""
        split = [part_clauses(c) for c in clauses]
        new: dict[str, Clause] = {}
        for parts in split:
            for part in parts:
                text = str(part)
                if text in self._known or text in new:
                    self.reused += 1
                else:
                    new[text] = part
        if new:
            self._ask(new)
        out: list[Coverage | None] = []
        for parts in split:
            result: Coverage | None = self.among  # an empty body covers every example among
            for part in parts:
                got = self._known[str(part)]
                if got is None:
                    result = None
                    break
                assert result is not None
                result = result & got
            out.append(result)
        return out

    def _ask(self, new: dict[str, Clause]) -> None:
        texts, parts = list(new), list(new.values())
        self.asked += len(parts)
        among = self._ask_among
        try:
            answers: list[Coverage | None] = list(self.backend.coverage_many(parts, among))
        except ResourceLimitExceeded:
            answers = []
            for part in parts:
                try:
                    answers.append(self.backend.coverage(part, among))
                except ResourceLimitExceeded as exc:
                    note_limit(self.backend, str(exc))
                    self.over_limit += 1
                    answers.append(None)
        self._known.update(zip(texts, answers, strict=True))


__all__ = ["BackendMemo", "SplitCoverage", "backend_memo", "independent_parts", "part_clauses"]
