"""Bottom clauses: the variabilised saturation of a seed example under the modes.

Saturation (Muggleton's bottom clause, Aleph's ``sat/1``; dissertation 2.2):

1. The seed is matched against the first ``modeh`` for its predicate.  Terms at ``+`` places
   are the initial *input terms* (depth 0); terms at ``-`` places get variables but are not
   inputs; ``#`` places stay constants.
2. For each layer ``L = 1 .. depth`` (Aleph's ``i``), for each body mode allowed for the
   target (declaration order), for each combination of input terms of the right types reached
   at depth ``< L`` (in the order they were reached; each combination is tried once per mode),
   the mode's goal is called with those inputs and free outputs/constants, and its first
   ``recall`` answers (Prolog order; ``*`` = all) are taken.  Each answer is a ground literal;
   one already in the bottom clause is skipped (the first mode to produce a literal owns it).
   With ``order="aleph"`` an answer is skipped only when it is there with the same ``#``
   places: modes ``p(+t,-v)`` and ``p(+t,#v)`` then both keep their literal, ``p(X,Y)`` and
   ``p(X,c)``, as Aleph's ``sat/1`` does (it keeps an atom once per mode, ``update_atoms/2``).
   The default order keeps the first mode's literal only (so ``p(X,c)`` is lost there; the
   learners' saved models on UW-CSE depend on it: benchmarks/README.md, session 12).
   Terms at the answer's ``-`` places that were not reached before become reached at depth L.
3. Variabilisation: the same term (at ``+`` or ``-`` places) gets the same variable
   everywhere; variables are numbered by first occurrence, head first.

The literal order -- layer, then mode order, then input-combination order, then answer
order -- is the order of this algorithm and is identical on every backend, because backends
only answer the goal calls (``Oracle.answers``) and Prolog answer order is fixed by the data.
``order="aleph"`` builds the same literals in the order Aleph 5's ``sat/1`` does (read off its
printed bottom clauses; the manual does not fix an order): within a layer the predicates come
in the order of their determinations (each predicate's modes in declaration order), and the
input combinations of a mode take, for each input place in turn, the terms reached exactly at
the previous layer there and any earlier term at the other places, newest term first. The
order decides which of equally good clauses a search meets first.

A goal call that exceeds a resource limit (a background predicate that loops behind a body
mode) contributes no literal: it is dropped, listed in :attr:`BottomClause.dropped`, and
saturation goes on with the next goal, as Aleph's depth-bounded proofs drop such a goal.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as with_fields
from typing import Literal, Protocol

from ilpkit.core.bias import Bias, Mode, Place
from ilpkit.core.timelimit import time_is_up
from ilpkit.errors import BiasError, ResourceLimitExceeded
from ilpkit.prolog.terms import (
    Clause,
    Const,
    Struct,
    Term,
    Var,
    canonical_var_name,
    indicator,
    to_prolog,
)


class Oracle(Protocol):
    """What saturation needs from a backend: the answers to one goal, in Prolog order."""

    def answers(self, goal: Term, max_answers: int | None) -> list[Term]:
        """Ground instances of ``goal`` (one per solution, Prolog order), at most
        ``max_answers`` of them (``None`` = all)."""
        ...


@dataclass(frozen=True, slots=True)
class BottomLiteral:
    """One body literal of a bottom clause."""

    term: Term  # variabilised
    ground: Term  # as produced by saturation
    mode: int  # index into the body modes used
    depth: int  # layer that produced it (1-based)
    inputs: tuple[int, ...]  # variable ids at '+' places (in place order)
    outputs: tuple[int, ...]  # variable ids at '-' places


@dataclass(frozen=True)
class BottomClause:
    """A saturated, variabilised seed: head, ordered body literals and their variable flow."""

    seed: Term
    head: Term
    literals: tuple[BottomLiteral, ...]
    head_inputs: frozenset[int]
    head_outputs: frozenset[int]
    n_vars: int
    modes: tuple[Mode, ...]
    suppliers: tuple[int, ...] = field(repr=False)
    """``suppliers[v]``: bitmask of the literal indices that output variable ``v``."""
    dropped: tuple[str, ...] = ()
    """Goals (as Prolog text) whose call exceeded a resource limit and gave no literal."""
    truncated: bool = False
    """``--time-limit`` (or a stop) cut saturation short: a partial bottom clause, which a
    memo must not keep for later searches."""

    def __len__(self) -> int:
        return len(self.literals)

    def clause(self, body: Sequence[int]) -> Clause:
        """The clause made of the head and the literals ``body`` (in bottom-clause order)."""
        return Clause(self.head, tuple(self.literals[i].term for i in sorted(body)))

    def ordered(self, path: Sequence[int]) -> Clause:
        """The clause made of the head and the literals ``path``, in that order."""
        return Clause(self.head, tuple(self.literals[i].term for i in path))

    def full_clause(self) -> Clause:
        return self.clause(range(len(self.literals)))

    def ground_clause(self) -> Clause:
        return Clause(self.seed, tuple(lit.ground for lit in self.literals))

    def dependency_graph(self) -> object:
        """The literal dependency DAG (networkx): an edge j -> k when literal j outputs a
        variable that literal k takes as input (j < k); node -1 is the head."""
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_node(-1)
        for k, lit in enumerate(self.literals):
            graph.add_node(k)
            for v in lit.inputs:
                if v in self.head_inputs:
                    graph.add_edge(-1, k, var=v)
                mask = self.suppliers[v] & ((1 << k) - 1)
                j = 0
                while mask:
                    if mask & 1:
                        graph.add_edge(j, k, var=v)
                    mask >>= 1
                    j += 1
        return graph

    def __str__(self) -> str:
        return str(self.full_clause())


def saturate(
    seed: Term,
    bias: Bias,
    oracle: Oracle,
    depth: int | None = None,
    order: Literal["modes", "aleph"] = "modes",
) -> BottomClause:
    """The bottom clause of ``seed`` (see the module docstring for the algorithm)."""
    depth = int(bias.settings["i"]) if depth is None else depth
    target = indicator(seed)
    head_mode = next((m for m in bias.modeh if m.indicator == target), None)
    if head_mode is None:
        heads = ", ".join(f"{m.name}/{m.arity}" for m in bias.modeh) or "none"
        raise BiasError(
            f"no modeh for {target[0]}/{target[1]} (seed {to_prolog(seed)}); modeh declared: "
            f"{heads}"
        )
    body_modes = tuple(bias.body_modes_for(target))
    state = _Saturation()
    head_values = _match_places(head_mode, seed)
    if head_values is None:
        raise BiasError(
            f"seed {to_prolog(seed)} does not match modeh {head_mode} (constants differ)"
        )
    for place, value in head_values:
        if place.io == "+":
            state.reach(value, place.type, 0)
    ground: list[tuple[Term, int, int]] = []  # (literal, mode index, layer)
    seen: set[tuple[Term, tuple[tuple[int, ...], ...]]] = set()  # (answer, its # places)
    tried: set[tuple[int, tuple[Term, ...]]] = set()
    dropped: list[str] = []
    schedule = _aleph_schedule(bias, target, body_modes) if order == "aleph" else None
    truncated = False
    for layer in range(1, depth + 1):
        for mi in schedule if schedule is not None else range(len(body_modes)):
            mode = body_modes[mi]
            inputs = mode.inputs()
            consts = () if schedule is None else tuple(p.path for p in mode.places if p.io == "#")
            if schedule is None:
                combos: Iterable[tuple[Term, ...]] = itertools.product(
                    *(state.available(p.type, layer) for p in inputs)
                )
            else:
                combos = state.newest_first(tuple(p.type for p in inputs), layer)
            for combo in combos:
                if time_is_up():  # --time-limit bounds saturation too: keep what was reached
                    truncated = True
                    break
                key = (mi, combo)
                if key in tried:
                    continue
                tried.add(key)
                goal = _goal(mode, dict(zip((p.path for p in inputs), combo, strict=True)))
                try:
                    answers = oracle.answers(goal, mode.recall)
                except ResourceLimitExceeded:
                    dropped.append(to_prolog(goal))
                    continue
                for answer in answers:
                    if (answer, consts) in seen:
                        continue
                    values = _match_places(mode, answer)
                    if values is None:  # the oracle returned something the mode cannot read
                        continue
                    seen.add((answer, consts))
                    ground.append((answer, mi, layer))
                    for place, value in values:
                        if place.io == "-":
                            state.reach(value, place.type, layer)
    bottom = _variabilise(seed, head_mode, head_values, ground, body_modes)
    if dropped or truncated:
        return with_fields(bottom, dropped=tuple(dropped), truncated=truncated)
    return bottom


class _Saturation:
    """Reached terms by type, with the layer at which each became available."""

    def __init__(self) -> None:
        self.by_type: dict[str, list[tuple[Term, int]]] = {}
        self.known: set[tuple[Term, str]] = set()

    def reach(self, value: Term, typ: str, layer: int) -> None:
        if (value, typ) in self.known:
            return
        self.known.add((value, typ))
        self.by_type.setdefault(typ, []).append((value, layer))

    def available(self, typ: str, layer: int) -> list[Term]:
        return [v for v, d in self.by_type.get(typ, ()) if d < layer]

    def newest_first(self, types: tuple[str, ...], layer: int) -> Iterator[tuple[Term, ...]]:
        """Aleph's input combinations at ``layer``: for each place ``i`` in turn, a term
        reached exactly at ``layer - 1`` at ``i`` (outermost) and terms reached before
        ``layer`` at the other places (in place order), newest first everywhere; combinations
        met again are left to the caller's ``tried`` set."""
        if not types:
            yield ()
            return
        for i in range(len(types)):
            pools = [
                [
                    v
                    for v, d in reversed(self.by_type.get(t, ()))
                    if (d == layer - 1 if j == i else d < layer)
                ]
                for j, t in enumerate(types)
            ]
            rest = pools[:i] + pools[i + 1 :]
            for first in pools[i]:
                for others in itertools.product(*rest):
                    yield (*others[:i], first, *others[i:])


def _aleph_schedule(bias: Bias, target: tuple[str, int], body_modes: tuple[Mode, ...]) -> list[int]:
    """Body-mode indices in Aleph's ``get_atoms`` order: predicates in the order of their
    determinations for ``target`` (a repeated one counts once), each predicate's modes in
    declaration order; with no determination, declaration order."""
    preds = list(dict.fromkeys(b for h, b in bias.determinations if h == target))
    if not preds:
        return list(range(len(body_modes)))
    return [mi for p in preds for mi, m in enumerate(body_modes) if m.indicator == p]


def _goal(mode: Mode, inputs: dict[tuple[int, ...], Term]) -> Term:
    """The mode's template with input places filled and other places as fresh variables."""
    counter = itertools.count()
    places = frozenset(p.path for p in mode.places)  # once per goal, not per subterm
    template = mode.template
    if type(template) is not Struct:
        return template
    return Struct(
        template.name,
        tuple(_fill(a, (i,), inputs, places, counter) for i, a in enumerate(template.args)),
    )


def _fill(
    t: Term,
    path: tuple[int, ...],
    inputs: dict[tuple[int, ...], Term],
    places: frozenset[tuple[int, ...]],
    counter: itertools.count[int],
) -> Term:
    """:func:`_goal` at one subterm.  (A module function: a nested recursive function is a
    reference cycle, left to the cyclic garbage collector once per goal.)"""
    if path in inputs:
        return inputs[path]
    if type(t) is Struct:
        if t.name in ("+", "-", "#") and len(t.args) == 1 and path in places:
            return Var(f"_S{next(counter)}")
        return Struct(
            t.name,
            tuple(_fill(a, (*path, i), inputs, places, counter) for i, a in enumerate(t.args)),
        )
    return t


def _is_place(mode: Mode, path: tuple[int, ...]) -> bool:
    return any(p.path == path for p in mode.places)


def _match_places(mode: Mode, atom: Term) -> list[tuple[Place, Term]] | None:
    """The subterms of ``atom`` at the mode's places; None if the shapes do not match."""
    if indicator(atom) != mode.indicator:
        return None
    out = []
    for place in mode.places:
        t = atom
        for i in place.path:
            if type(t) is not Struct or i >= len(t.args):
                return None
            t = t.args[i]
        out.append((place, t))
    if not _constants_match(mode.template, atom, frozenset(p.path for p in mode.places)):
        return None
    return out


def _constants_match(
    template: Term, atom: Term, places: frozenset[tuple[int, ...]], path: tuple[int, ...] = ()
) -> bool:
    """Whether ``atom`` has the template's constants outside the mode's ``places`` (paths)."""
    if path and path in places:
        return True
    if type(template) is Struct:
        if type(atom) is not Struct or atom.indicator != template.indicator:
            return False
        return all(
            _constants_match(ta, aa, places, (*path, i))
            for i, (ta, aa) in enumerate(zip(template.args, atom.args, strict=True))
        )
    return template == atom


def _variabilise(
    seed: Term,
    head_mode: Mode,
    head_values: list[tuple[Place, Term]],
    ground: list[tuple[Term, int, int]],
    body_modes: tuple[Mode, ...],
) -> BottomClause:
    var_of: dict[Term, int] = {}

    def var(value: Term) -> int:
        v = var_of.get(value)
        if v is None:
            v = var_of[value] = len(var_of)
        return v

    def replace(mode: Mode, atom: Term, values: list[tuple[Place, Term]]) -> Term:
        subst: dict[tuple[int, ...], Term] = {}
        for place, value in values:
            if place.io == "#":
                subst[place.path] = value
            else:
                subst[place.path] = Var(canonical_var_name(var(value)))
        return replace_paths(atom, subst)

    head = replace(head_mode, seed, head_values)
    head_inputs = frozenset(var(v) for p, v in head_values if p.io == "+")
    head_outputs = frozenset(var(v) for p, v in head_values if p.io == "-")
    literals = []
    for atom, mi, layer in ground:
        mode = body_modes[mi]
        values = _match_places(mode, atom)
        assert values is not None
        term = replace(mode, atom, values)
        ins = tuple(var(v) for p, v in values if p.io == "+")
        outs = tuple(var(v) for p, v in values if p.io == "-")
        literals.append(BottomLiteral(term, atom, mi, layer, ins, outs))
    n_vars = len(var_of)
    suppliers = [0] * n_vars
    for k, lit in enumerate(literals):
        for v in lit.outputs:
            suppliers[v] |= 1 << k
    return BottomClause(
        seed=seed,
        head=head,
        literals=tuple(literals),
        head_inputs=head_inputs,
        head_outputs=head_outputs,
        n_vars=n_vars,
        modes=body_modes,
        suppliers=tuple(suppliers),
    )


def replace_paths(
    term: Term, subst: dict[tuple[int, ...], Term], path: tuple[int, ...] = ()
) -> Term:
    """``term`` with the subterm at each path of ``subst`` (argument indices from the root,
    as a mode's places) replaced by its value."""
    if path in subst:
        return subst[path]
    if type(term) is Struct:
        return Struct(
            term.name, tuple(replace_paths(a, subst, (*path, i)) for i, a in enumerate(term.args))
        )
    return term


__all__ = ["BottomClause", "BottomLiteral", "Const", "Oracle", "saturate"]
