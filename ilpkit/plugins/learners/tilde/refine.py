"""TILDE's refinement operator: conjunctions extended by one mode-legal literal (or two).

A node of a first-order decision tree holds a *query*: the head of the target with one
variable per argument, and the conjunction of the tests on the path's left branches.  A
refinement adds a literal of a body mode whose ``+`` places take variables of the query of
the declared type (the head's arguments, or outputs of earlier literals), whose ``-`` places
get new variables, and whose ``#`` places get constants.

Constants come from the data, through the same saturation the rule learners use: the
constants found at a ``#`` place in the bottom clauses of the node's examples (a seeded sample
of at most ``constant_sample`` of them), most frequent first, at most ``max_constants`` per
place.  With ``lookahead`` a literal that introduces variables is also tried together with
each literal that takes one of them as input (TILDE's lookahead), since such a literal alone
often does not split the examples at all.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ilpkit.core.bias import Mode, Place, place_term
from ilpkit.core.bottom import BottomClause, replace_paths
from ilpkit.errors import BiasError
from ilpkit.prolog.terms import Clause, Term, Var, to_prolog

LiteralKey = tuple[int, tuple[str, ...], tuple[Term, ...]]
"""(mode index, input variable names, constants): identifies a literal up to its outputs."""


@dataclass(frozen=True)
class Query:
    """The conjunction at a node: ``head :- body`` with typed variables."""

    head: Term
    body: tuple[Term, ...]
    var_types: tuple[tuple[str, str], ...]
    """(variable name, type) of every variable a later literal may take as input."""
    keys: frozenset[LiteralKey] = frozenset()

    @property
    def n_vars(self) -> int:
        return len(self.var_types)

    def clause(self) -> Clause:
        return Clause(self.head, self.body)

    def extended(self, refinement: Refinement) -> Query:
        return Query(
            self.head,
            self.body + refinement.literals,
            self.var_types + refinement.new_vars,
            self.keys | refinement.keys,
        )


@dataclass(frozen=True)
class Refinement:
    """One or two literals added to a query, with the variables they introduce."""

    literals: tuple[Term, ...]
    new_vars: tuple[tuple[str, str], ...]
    keys: frozenset[LiteralKey]

    def __str__(self) -> str:
        return ", ".join(to_prolog(lit) for lit in self.literals)


def head_query(head_mode: Mode) -> Query:
    """The root query: the target's template with a variable ``V<i>`` at each place."""
    subst: dict[tuple[int, ...], Term] = {}
    var_types: list[tuple[str, str]] = []
    for i, place in enumerate(head_mode.places):
        name = f"V{i}"
        subst[place.path] = Var(name)
        var_types.append((name, place.type))
    return Query(replace_paths(head_mode.template, subst), (), tuple(var_types))


class ConstantPool:
    """Constants seen at each ``#`` place of each body mode, counted over bottom clauses."""

    def __init__(self, modes: Sequence[Mode]) -> None:
        self.modes = tuple(modes)
        self._counts: dict[tuple[int, tuple[int, ...]], Counter[Term]] = {}

    def add(self, bottom: BottomClause) -> None:
        if tuple(bottom.modes) != self.modes:
            raise BiasError("bottom clause built with other body modes than the tree's")
        for lit in bottom.literals:
            mode = self.modes[lit.mode]
            for place in mode.constants():
                value = place_term(lit.ground, place.path)
                self._counts.setdefault((lit.mode, place.path), Counter())[value] += 1

    def constants(self, mode_index: int, place: Place, limit: int) -> list[Term]:
        counts = self._counts.get((mode_index, place.path))
        if not counts:
            return []
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], to_prolog(kv[0])))
        return [value for value, _ in ranked[:limit]]


@dataclass(frozen=True)
class Refiner:
    """Generates the refinements of a query (in a fixed, deterministic order)."""

    modes: tuple[Mode, ...]
    pool: ConstantPool
    max_constants: int = 20
    lookahead: bool = False

    def refinements(self, query: Query) -> Iterator[Refinement]:
        for first in self._single(query, ()):
            yield first
            if self.lookahead and first.new_vars:
                extended = query.extended(first)
                must_use = tuple(name for name, _ in first.new_vars)
                for second in self._single(extended, must_use):
                    yield Refinement(
                        first.literals + second.literals,
                        first.new_vars + second.new_vars,
                        first.keys | second.keys,
                    )

    def _single(self, query: Query, must_use: tuple[str, ...]) -> Iterator[Refinement]:
        for mi, mode in enumerate(self.modes):
            inputs = mode.inputs()
            pools = [[name for name, t in query.var_types if t == p.type] for p in inputs]
            if any(not pool for pool in pools):
                continue
            constant_places = mode.constants()
            constant_pools = [
                self.pool.constants(mi, p, self.max_constants) for p in constant_places
            ]
            if any(not pool for pool in constant_pools):
                continue
            for combo in itertools.product(*pools):
                if must_use and not set(combo) & set(must_use):
                    continue
                for consts in itertools.product(*constant_pools):
                    key: LiteralKey = (mi, combo, consts)
                    if key in query.keys:
                        continue
                    yield self._literal(query, mi, mode, combo, consts, key)

    def _literal(
        self,
        query: Query,
        mi: int,
        mode: Mode,
        combo: tuple[str, ...],
        consts: tuple[Term, ...],
        key: LiteralKey,
    ) -> Refinement:
        subst: dict[tuple[int, ...], Term] = {}
        for place, name in zip(mode.inputs(), combo, strict=True):
            subst[place.path] = Var(name)
        for place, value in zip(mode.constants(), consts, strict=True):
            subst[place.path] = value
        new_vars: list[tuple[str, str]] = []
        for place in mode.outputs():
            name = f"V{query.n_vars + len(new_vars)}"
            subst[place.path] = Var(name)
            new_vars.append((name, place.type))
        literal = replace_paths(mode.template, subst)
        return Refinement((literal,), tuple(new_vars), frozenset({key}))


__all__ = ["ConstantPool", "Query", "Refinement", "Refiner", "head_query"]
