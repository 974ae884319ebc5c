"""Lazy evaluation: constants of a body literal computed from the examples, as Aleph's
``lazy_evaluate/1`` does (its way to learn thresholds and regression constants).

Aleph's manual describes the idea; ``aleph_orig.pl`` (checked on its ``numbers/line`` and
``numbers/ineq`` examples) fixes the details ilpkit follows:

* A predicate declared ``:- lazy_evaluate(Name/Arity).`` keeps the constants (``#`` places)
  its saturation answer put into the bottom clause only as a placeholder.
* Before the literal is tried in a clause, the clause that supplies its inputs is proved on
  the positives the search still counts (and, unless ``:- positive_only(Name/Arity).``, on
  the negatives); each distinct binding of the literal's ``+``/``-`` places is kept.
* The predicate is then called once with, at each ``+``/``-`` place, the two-element list
  ``[PositiveValues, NegativeValues]`` of that place's values over the kept bindings (most
  recent binding first, as Aleph lists them; ``[]`` for negatives under ``positive_only``)
  and free ``#`` places; its first answer gives the constants.  The literal with those
  constants replaces the placeholder; no answer drops it.  The user's definition tells the
  two calls apart (``lin_regress1/5`` of numbers/line checks ``nlist/1`` of its inputs).
* The new literal is then evaluated as any other: with numbers at its ``+`` places.

Aleph evaluates a lazy literal afresh at every search node that may add it, on that node's
cover; ilpkit evaluates it once per search (after saturation), on the examples covered by
the head and the bottom-clause literals that supply its inputs -- the same cover when the
literal's inputs come from the head (the lazy literals of Aleph's examples), a larger one
otherwise.  The calls go through the backend's ``answers`` (Prolog order on every engine).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ilpkit.core.bottom import BottomClause, BottomLiteral, replace_paths
from ilpkit.core.limits import note_dropped
from ilpkit.core.recursion import RecursiveCoverage, resolve, unify
from ilpkit.core.task import Task
from ilpkit.errors import ResourceLimitExceeded
from ilpkit.prolog.terms import Const, Struct, Term, Var, indicator, make_list

Key = tuple[str, int]


def declared(task: Task, directive: str) -> frozenset[Key]:
    """The predicates ``Name/Arity`` named by the task's ``:- directive(Name/Arity).``
    directives (a list or a conjunction of them too)."""
    out: set[Key] = set()
    for d in task.directives:
        t = d.term
        if type(t) is Struct and t.name == ":-" and len(t.args) == 1:
            t = t.args[0]
        if type(t) is Struct and t.name == directive and len(t.args) == 1:
            out.update(_indicators(t.args[0]))
    return frozenset(out)


def _indicators(t: Term) -> list[Key]:
    if type(t) is Struct and t.name in ("/",) and len(t.args) == 2:
        name, arity = t.args
        if (
            type(name) is Const
            and isinstance(name.value, str)
            and type(arity) is Const
            and type(arity.value) is int
        ):
            return [(name.value, arity.value)]
    if type(t) is Struct and t.name in (",", ".") and len(t.args) == 2:
        return _indicators(t.args[0]) + _indicators(t.args[1])
    return []


def lazy_bottom(
    bottom: BottomClause,
    backend: Any,
    atoms: Sequence[Term],
    positives: Sequence[int],
    negatives: Sequence[int],
    lazy: frozenset[Key],
    positive_only: frozenset[Key],
) -> BottomClause:
    """``bottom`` with each literal of a ``lazy`` predicate replaced by the literal whose
    constants the predicate computes from the bindings on ``positives`` and ``negatives``
    (example ids; see the module docstring), or dropped when it gives none."""
    if not lazy or not any(indicator(lit.term) in lazy for lit in bottom.literals):
        return bottom
    prover = RecursiveCoverage(backend, (), depth=0)
    literals: list[BottomLiteral] = []
    changed = False
    dropped = 0
    for k, lit in enumerate(bottom.literals):
        key = indicator(lit.term)
        if key not in lazy:
            literals.append(lit)
            continue
        changed = True
        pos_only = key in positive_only
        try:
            new = _evaluate(bottom, k, prover, atoms, positives, [] if pos_only else negatives)
        except ResourceLimitExceeded:
            new = None  # as saturation drops a goal over a limit
            dropped += 1
        if new is not None:
            literals.append(new)
    note_dropped(backend, dropped)
    if not changed:
        return bottom
    suppliers = [0] * bottom.n_vars
    for k, lit in enumerate(literals):
        for v in lit.outputs:
            suppliers[v] |= 1 << k
    return replace(bottom, literals=tuple(literals), suppliers=tuple(suppliers))


def _evaluate(
    bottom: BottomClause,
    k: int,
    prover: RecursiveCoverage,
    atoms: Sequence[Term],
    positives: Sequence[int],
    negatives: Sequence[int],
) -> BottomLiteral | None:
    """Literal ``k`` with its constants from the lazy call, or None when the call fails."""
    lit = bottom.literals[k]
    mode = bottom.modes[lit.mode]
    free = {p.path: Var(f"_Lazy{i}") for i, p in enumerate(mode.places) if p.io == "#"}
    open_lit = replace_paths(lit.term, dict(free))
    path = [bottom.literals[j].term for j in _support(bottom, k)]
    found = [
        _bindings(prover, bottom.head, path, open_lit, atoms, ids) for ids in (positives, negatives)
    ]
    call: dict[tuple[int, ...], Term] = dict(free)
    for p in mode.places:
        if p.io != "#":
            call[p.path] = make_list([make_list([_at(b, p.path) for b in f]) for f in found])
    got = prover.answers(replace_paths(lit.term, call), 1)
    if not got:
        return None  # no constants: Aleph drops the literal
    consts = {path: _at(got[0], path) for path in free}
    return replace(
        lit, term=replace_paths(lit.term, consts), ground=replace_paths(lit.ground, consts)
    )


def _support(bottom: BottomClause, k: int) -> list[int]:
    """The earlier literals that supply literal ``k``'s inputs not bound by the head, and
    theirs in turn (the first supplier of each variable), in bottom-clause order."""
    need = list(bottom.literals[k].inputs)
    chosen: set[int] = set()
    while need:
        v = need.pop()
        if v in bottom.head_inputs:
            continue
        mask = bottom.suppliers[v] & ((1 << k) - 1)
        if not mask:
            continue
        j = (mask & -mask).bit_length() - 1
        if j not in chosen:
            chosen.add(j)
            need.extend(bottom.literals[j].inputs)
    return sorted(chosen)


def _bindings(
    prover: RecursiveCoverage,
    head: Term,
    path: list[Term],
    open_lit: Term,
    atoms: Sequence[Term],
    ids: Sequence[int],
) -> list[Term]:
    """The distinct instances of ``open_lit`` over the proofs of ``head :- path`` on the
    examples ``ids`` (in id and answer order), most recent first as Aleph collects them."""
    seen: set[Term] = set()
    out: list[Term] = []
    for i in ids:
        s = unify(head, atoms[i], {})
        if s is None:
            continue
        for s1 in prover.solutions(path, s) if path else iter([s]):
            inst = resolve(open_lit, s1)
            if inst not in seen:
                seen.add(inst)
                out.append(inst)
    out.reverse()
    return out


def _at(t: Term, path: tuple[int, ...]) -> Term:
    for i in path:
        assert type(t) is Struct
        t = t.args[i]
    return t


__all__ = ["declared", "lazy_bottom"]
