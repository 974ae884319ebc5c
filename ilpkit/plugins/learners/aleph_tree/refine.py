"""Aleph's automatic refinement operator, as ``induce_tree`` uses it (``set(refine, auto)``).

A tree node is a clause ``head :- body`` (:class:`PathClause`): the head of the target with
one variable per ``+``/``-`` place, and the tests on the path from the root -- a test the
node's examples passed as its literals, a test they failed as ``not(Test)``.  A refinement
appends one literal of a body mode the determinations allow for the target, or, with
``lookahead`` L > 1, up to L literals one after another (every prefix is a refinement too,
each followed by its own extensions: depth first).

What a literal may hold (observed in Aleph 5's ``induce_tree`` traces, its ``aleph_orig.pl``
under SWI-Prolog 9):

* a ``+`` place takes a variable of the clause of the declared type (head variables, then
  outputs of earlier literals, in the order they appear);
* a ``-`` place takes such a variable as well, or a new one (existing variables first);
* a ``#`` place takes every constant of the type's facts (``covering(hair).``), in the order
  of the background file: the constants are *not* read from bottom clauses, and a type with
  no facts (``#nat`` in ``tree/animals`` has none) makes the mode unusable.

The enumeration order, which decides between splits of equal gain, is: determinations in
their order, each with its modes in ``modeb`` order; within a mode, constants vary slowest
(the last ``#`` place outermost), then inputs, then outputs (the last place outermost, the
first fastest).  A literal identical to one the clause has is skipped, as is one past
``clauselength`` (the head counts) or past ``language`` occurrences of its predicate.

Aleph 5 extends a clause only when it can type every body literal against a mode, so a node
whose path holds ``not((a, b))`` (a failed test of two literals, or one of a literal with no
``not(...)`` mode) is never split again; :attr:`PathClause.typed` records this and the
learner's ``extend_negated`` option chooses between that and extending every node (the
behaviour of Aleph 4's transcript in Aleph's ``examples/tree``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from ilpkit.core.bias import Mode, Place
from ilpkit.core.bottom import replace_paths
from ilpkit.core.task import Program
from ilpkit.prolog.terms import Clause, Struct, Term, Var, conjunction, is_ground

TypedVar = tuple[Var, str]
NEW: Final = None
"""In an output place's choices: a new variable."""


def var_name(k: int) -> str:
    """``A``, ``B``, ... ``Z``, ``A1``, ...: Aleph's way to print a clause's variables."""
    return chr(ord("A") + k % 26) + (str(k // 26) if k >= 26 else "")


@dataclass(frozen=True)
class PathClause:
    """A node's clause; ``typed`` lists the variables a later literal may use, in order."""

    head: Term
    body: tuple[Term, ...]
    typed: tuple[TypedVar, ...]
    n_vars: int
    extensible: bool = True
    """Every body literal is an instance of a mode (Aleph 5 refines only such clauses)."""

    def clause(self) -> Clause:
        return Clause(self.head, self.body)

    def passed(self, ext: Extension) -> PathClause:
        """The clause of the examples that satisfy ``ext`` (its literals appended)."""
        return PathClause(
            self.head,
            self.body + ext.literals,
            self.typed + ext.new_typed,
            self.n_vars + len({v for v, _ in ext.new_typed}),
            self.extensible,
        )

    def failed(self, ext: Extension, negated_modes: Sequence[Mode]) -> PathClause:
        """The clause of the examples that do not satisfy ``ext``: ``not(Test)`` appended."""
        test = ext.literals[0] if len(ext.literals) == 1 else conjunction(ext.literals)
        negation = Struct("not", (test,))
        typed_ok = any(instance_of(negation, m.template) for m in negated_modes)
        return PathClause(
            self.head,
            (*self.body, negation),
            self.typed,
            self.n_vars + len({v for v, _ in ext.new_typed}),
            self.extensible and typed_ok,
        )


@dataclass(frozen=True)
class Extension:
    """Literals appended to a clause and the typed variables they introduce."""

    literals: tuple[Term, ...]
    new_typed: tuple[TypedVar, ...]


def instance_of(term: Term, template: Term) -> bool:
    """``term`` has the shape of a mode template (``+t``/``-t``/``#t`` match any argument)."""
    if (
        isinstance(template, Struct)
        and template.name in ("+", "-", "#")
        and len(template.args) == 1
    ):
        return True
    if isinstance(template, Struct):
        return (
            isinstance(term, Struct)
            and term.name == template.name
            and len(term.args) == len(template.args)
            and all(instance_of(a, t) for a, t in zip(term.args, template.args, strict=True))
        )
    return term == template


def root_clause(head_mode: Mode) -> PathClause:
    """The root's clause: the head with a new variable at each ``+``/``-`` place."""
    subst: dict[tuple[int, ...], Term] = {}
    typed: list[TypedVar] = []
    for k, place in enumerate(head_mode.places):
        v = Var(var_name(k))
        subst[place.path] = v
        typed.append((v, place.type))
    return PathClause(replace_paths(head_mode.template, subst), (), tuple(typed), len(typed))


def predicate_of(term: Term) -> tuple[str, int]:
    if isinstance(term, Struct):
        return term.name, len(term.args)
    return str(term), 0


@dataclass(frozen=True)
class AutoRefiner:
    """Aleph's automatic refinements of a clause, in Aleph's order."""

    modes: tuple[Mode, ...]
    """Body modes the determinations allow, in determination order."""
    type_constants: Mapping[str, tuple[Term, ...]]
    clauselength: int
    lookahead: int = 1
    language: float = float("inf")

    def refinements(self, clause: PathClause) -> Iterator[Extension]:
        """Every extension of ``clause`` by 1 .. ``lookahead`` literals, depth first."""
        yield from self._extend(clause, Extension((), ()), self.lookahead)

    def _extend(self, clause: PathClause, so_far: Extension, depth: int) -> Iterator[Extension]:
        for ext in self._single(clause):
            both = Extension(so_far.literals + ext.literals, so_far.new_typed + ext.new_typed)
            yield both
            if depth > 1:
                yield from self._extend(clause.passed(ext), both, depth - 1)

    def _single(self, clause: PathClause) -> Iterator[Extension]:
        if 1 + len(clause.body) >= self.clauselength:
            return
        existing = {clause.head, *clause.body}
        used = [predicate_of(lit) for lit in clause.body]
        for mode in self.modes:
            if used.count(mode.indicator) >= self.language:
                continue
            consts = mode.constants()
            inputs = mode.inputs()
            outputs = mode.outputs()
            c_pools = [self.type_constants.get(p.type, ()) for p in consts]
            i_pools = [_vars_of(clause, p) for p in inputs]
            o_pools: list[list[Var | None]] = [[*_vars_of(clause, p), NEW] for p in outputs]
            if any(not pool for pool in (*c_pools, *i_pools)):
                continue
            places: list[Place] = [*consts[::-1], *inputs[::-1], *outputs[::-1]]
            pools: list[Sequence[Term | None]] = [*c_pools[::-1], *i_pools[::-1], *o_pools[::-1]]
            for choice in itertools.product(*pools):
                subst: dict[tuple[int, ...], Term] = {}
                fresh_places: list[Place] = []
                for place, value in zip(places, choice, strict=True):
                    if value is NEW:
                        fresh_places.append(place)
                    else:
                        subst[place.path] = value
                new_typed: list[TypedVar] = []
                for k, place in enumerate(sorted(fresh_places, key=lambda p: p.path)):
                    v = Var(var_name(clause.n_vars + k))
                    subst[place.path] = v
                    new_typed.append((v, place.type))
                literal = replace_paths(mode.template, subst)
                if literal in existing:
                    continue
                yield Extension((literal,), tuple(new_typed))


def _vars_of(clause: PathClause, place: Place) -> list[Var]:
    out: list[Var] = []
    for v, t in clause.typed:
        if t == place.type and v not in out:
            out.append(v)
    return out


def type_constants(program: Program, types: Iterable[str]) -> dict[str, tuple[Term, ...]]:
    """The constants of each type: the arguments of its ground ``type(C)`` facts, in file
    order (a type defined by rules contributes only its facts)."""
    out: dict[str, tuple[Term, ...]] = {}
    for t in types:
        rows: list[Term] = [args[0] for args in program.facts.get((t, 1), ())]
        for sc in program.clauses.get((t, 1), ()):
            if sc.clause.is_fact and isinstance(sc.clause.head, Struct):
                rows.append(sc.clause.head.args[0])
        seen: list[Term] = []
        for value in rows:
            if is_ground(value) and value not in seen:
                seen.append(value)
        out[t] = tuple(seen)
    return out


__all__ = [
    "AutoRefiner",
    "Extension",
    "PathClause",
    "conjunction",
    "instance_of",
    "root_clause",
    "type_constants",
    "var_name",
]
