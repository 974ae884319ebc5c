"""Demand-driven answer tables of rule-defined literals whose inputs are head variables.

Why: mutagenesis' ring predicates (``benzene(+drug, -ring)``, ...) are defined by a run of
precomputed ground facts *followed by* the rule that recomputes them by an exhaustive search
over 6-subsets of each drug's atoms.  Tabling every answer of every drug costs about a minute
of resolution; SWI-Prolog's first-solution loop instead stops at the facts for most examples.
Coverage is existential, so a literal can be decided the same way:

1. the literal's table starts as the *leading* ground facts of its predicate (the clauses
   before the first rule: Prolog reaches them before anything that could cut them away or
   raise, so each is an answer of the call whatever follows);
2. the kernel decides every example against that table; an example proved there is covered
   (a subset of the answers proves it: the clause is a conjunction, the answers only add
   ways to satisfy it);
3. only for the examples still undecided are the literal's complete answers computed, for
   their input tuples (values of the head columns the literal reads), and the kernel decides
   those examples again on the grown table, which then holds every answer of those inputs.

An example is thus reported uncovered only after it was tested against all answers of every
such literal for its inputs: the same coverage as the full table, computed only where needed.
The completed inputs are kept for the backend's lifetime, so later clauses reuse them.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ilpkit.plugins.backends.native.store import FactTable, Ids


class DemandTable:
    """The answers of one literal pattern known so far: the leading facts for every input,
    and all answers for the inputs in :attr:`done`.

    ``inputs`` pairs each input argument position of the literal with the head column (of the
    example table) whose value it takes."""

    def __init__(self, name: str, inputs: list[tuple[int, int]], facts: Ids) -> None:
        self.name = name
        self.inputs = inputs
        self.arity = facts.shape[1]
        self._facts = facts
        self._answers: dict[tuple[int, ...], Ids] = {}
        self.version = 0
        """Grows by one whenever :attr:`table` is replaced (plans built on the old one are
        stale)."""
        self.broken = False
        """A completion raised: the literal goes to the set-at-a-time engine from now on."""
        self.table = FactTable.from_array(name, facts)

    @property
    def done(self) -> set[tuple[int, ...]]:
        return set(self._answers)

    def missing(self, head_data: Ids) -> list[tuple[int, ...]]:
        """Input tuples of these example rows (``(n, head arity)`` ids) not completed yet, in
        order of first occurrence."""
        if len(head_data) == 0:
            return []
        cols = [h for _, h in self.inputs]
        tuples = dict.fromkeys(map(tuple, head_data[:, cols].tolist()))
        return [t for t in tuples if t not in self._answers]

    def add(self, answers: Iterable[tuple[tuple[int, ...], Ids]]) -> None:
        """Record all answers (rows of ids, full literal arity) of these input tuples and
        rebuild :attr:`table`: the leading facts of the other inputs, then these answers."""
        for key, rows in answers:
            self._answers[key] = rows.reshape(-1, self.arity)
        facts = self._facts
        if len(facts) and self._answers:
            pos = [p for p, _ in self.inputs]
            keep = np.array(
                [tuple(r) not in self._answers for r in facts[:, pos].tolist()], dtype=bool
            )
            facts = facts[keep]
        parts = [facts, *self._answers.values()]
        self.table = FactTable.from_array(self.name, np.concatenate(parts).astype(np.int64))
        self.version += 1

    def nbytes(self) -> int:
        return int(self._facts.nbytes + sum(a.nbytes for a in self._answers.values()))


def leading_facts(
    facts: Iterable[tuple[int, ...] | None], arity: int, constants: list[tuple[int, int]]
) -> Ids | None:
    """The rows of the ground facts before a predicate's first other clause that match
    ``constants`` ((argument position, id) pairs); ``facts`` gives, per clause in order, its
    interned arguments when it is a ground fact and None otherwise.  None when the first
    clause is not a ground fact (nothing to start from)."""
    rows: list[tuple[int, ...]] = []
    first = True
    for args in facts:
        if args is None:
            break
        first = False
        if all(args[p] == i for p, i in constants):
            rows.append(args)
    if first:
        return None
    return np.array(rows, dtype=np.int64).reshape(len(rows), arity)
