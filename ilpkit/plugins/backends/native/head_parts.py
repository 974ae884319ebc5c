"""A clause body's parts for the kernel: the literals linked by variables outside the head.

With the head bound, such parts are independent, and a part's truth depends only on the
values of its own head variables: the kernel decides it once per distinct tuple of those
values (:meth:`~ilpkit.plugins.backends.native.engine.NativeBackend._kernel_cover`).

A search asks about a refinement right after, or long after, its parent, with the parent's
coverage as ``among``; every part the refinement shares with its parent is then true of
every example asked about.  :class:`Lineage` keeps, for each coverage the kernel returned,
its clause's parts, so that :func:`refined_groups` splits only what the refinement added
(and the kernel runs only that).
"""

from __future__ import annotations

import weakref
from collections.abc import Container
from typing import Final, NamedTuple

from ilpkit.core.coverage import Coverage
from ilpkit.plugins.backends.native.memo import Generations
from ilpkit.prolog.terms import Term, Var, iter_vars


class Group(NamedTuple):
    """One part: a bit mask of its variables outside the head (:func:`_bits`), the head
    variables it reads (in first-occurrence order) and its literals (in body order)."""

    inner: int
    hv: list[Var]
    lits: list[Term]


_VAR_BITS: dict[Var, int] = {}
"""A bit for each variable met outside a head: parts are found by ``&`` and ``|`` on masks,
which cost no call of ``Var.__hash__``/``__eq__`` (Python methods) as sets of variables do."""
_MAX_BITS: Final = 1024
_EPOCH: list[int] = [0]
"""Bumped when :data:`_VAR_BITS` is cleared (past :data:`_MAX_BITS` variables: clauses
named afresh each time), so that no mask made with the old bits is used again."""


def _bits(variables: tuple[Var, ...]) -> int:
    mask = 0
    for v in variables:
        bit = _VAR_BITS.get(v)
        if bit is None:
            bit = _VAR_BITS[v] = 1 << len(_VAR_BITS)
        mask |= bit
    return mask


def _fresh_bits() -> None:
    """Called before a body is split (never during: its masks must share one numbering)."""
    if len(_VAR_BITS) > _MAX_BITS:
        _VAR_BITS.clear()
        _LITERAL_VARS.clear()
        _EPOCH[0] += 1


_LITERAL_VARS: Generations[int, tuple[Term, object, int, tuple[Var, ...]]] = Generations(10_000)
"""Each body literal's variables outside the head (as a mask) and in it (each once, in
order), by the literal's identity, for the head it was computed with: a search's clauses are
made of the same bottom-clause literal objects, under the same head, over and over.  (By
identity, not equality: equal literals of another seed's bottom clause would be compared
argument by argument.  Each entry holds its literal and head, so no other live object has
their ids.)"""


def _split_vars(
    lit: Term, head_vars: Container[Var], head: object
) -> tuple[Term, object, int, tuple[Var, ...]]:
    got = None if head is None else _LITERAL_VARS.get(id(lit))
    if got is None or got[1] is not head:
        own = dict.fromkeys(iter_vars(lit))
        got = (
            lit,
            head,
            _bits(tuple(v for v in own if v not in head_vars)),
            tuple(v for v in own if v in head_vars),
        )
        if head is not None:
            _LITERAL_VARS.put(id(lit), got)
    return got


def _join(groups: list[tuple[int, list[int]]], mask: int, i: int) -> list[tuple[int, list[int]]]:
    """``groups`` (masks and ascending member positions, in the order of their first
    members) with member ``i`` of variables ``mask`` added: merged with every group it
    shares a variable with (in the place of the first), or as a group of its own."""
    joined = [g for g in groups if g[0] & mask] if mask else []
    if not joined:
        groups.append((mask, [i]))
        return groups
    into = joined[0]
    members = into[1]
    unsorted = i < members[-1] or len(joined) > 1
    members.append(i)
    for other in joined:
        mask |= other[0]
        if other is not into:
            members.extend(other[1])
    if unsorted:
        members.sort()
    merged = (mask, members)
    return [
        merged if g is into else g for g in groups if g is into or all(g is not o for o in joined)
    ]


def head_groups(head_vars: Container[Var], body: list[Term], head: object = None) -> list[Group]:
    """The body split into parts that share no variable outside the head, in the order of
    their first literals.  ``head``: an object that stands for ``head_vars`` (the clause's
    head term), so that each literal's split of its variables is kept across clauses; None:
    not kept."""
    _fresh_bits()
    split = [_split_vars(lit, head_vars, head) for lit in body]
    if len(body) == 1:
        return [Group(split[0][2], list(split[0][3]), list(body))]
    groups: list[tuple[int, list[int]]] = []
    for i, s in enumerate(split):
        groups = _join(groups, s[2], i)
    return [
        _group(mask, [body[i] for i in members], [split[i] for i in members])
        for mask, members in groups
    ]


def _group(
    mask: int, lits: list[Term], splits: list[tuple[Term, object, int, tuple[Var, ...]]]
) -> Group:
    if len(splits) == 1:
        return Group(mask, list(splits[0][3]), lits)
    hv: list[Var] = []
    for s in splits:
        for v in s[3]:
            if v not in hv:
                hv.append(v)
    return Group(mask, hv, lits)


def head_components(
    head_vars: set[Var], body: list[Term], head: object = None
) -> list[tuple[list[Var], list[Term]]]:
    """:func:`head_groups` as ``(head variables, literals)`` pairs.

    Why: with the head bound, such parts are independent, and a part's truth depends only on
    the values of its own head variables -- so it is decided once per distinct tuple of those
    values, not once per example (in UW-CSE a literal about the professor ``B`` alone is
    asked once per professor, not once per student-professor pair).
    """
    return [(g.hv, g.lits) for g in head_groups(head_vars, body, head)]


class Split(NamedTuple):
    """A body's parts with the identities of its literals and the union of the parts'
    masks (what an added literal must miss to leave every part as it is)."""

    groups: list[Group]
    ids: frozenset[int]
    reach: int


def split_of(head_vars: Container[Var], body: list[Term], head: object) -> Split:
    """:func:`head_groups` as a :class:`Split`."""
    groups = head_groups(head_vars, body, head)
    reach = 0
    for group in groups:
        reach |= group.inner
    return Split(groups, frozenset(map(id, body)), reach)


def refined_groups(
    parent: Split,
    body: tuple[Term, ...] | list[Term],
    head_vars: Container[Var],
    head: object,
) -> tuple[Split, list[Group]] | None:
    """``(body's split, its groups that are not the parent's)`` when ``body`` holds each
    literal object of the parent's (under the same head) once; None otherwise.

    A parent's group that shares no variable outside the head with an added literal is a
    group of the refinement too; the others merge with the added literals they touch."""
    ids = [id(lit) for lit in body]
    child_ids = frozenset(ids)
    parent_ids = parent.ids
    if len(child_ids) != len(ids) or not parent_ids <= child_ids:
        return None
    if len(child_ids) == len(parent_ids):
        return parent, []
    if len(child_ids) == len(parent_ids) + 1:  # one literal added (most refinements)
        k = next(k for k, i in enumerate(ids) if i not in parent_ids)
        only = _split_vars(body[k], head_vars, head)
        if not only[2] & parent.reach:  # linked to no part of the parent's: a part alone
            group = Group(only[2], list(only[3]), [body[k]])
            return Split([*parent.groups, group], child_ids, parent.reach | only[2]), [group]
    added = [k for k, i in enumerate(ids) if i not in parent_ids]
    split = {k: _split_vars(body[k], head_vars, head) for k in added}
    fresh: list[tuple[int, list[int]]] = []
    for k in added:
        fresh = _join(fresh, split[k][2], k)
    reach = 0
    for mask, _ in fresh:
        reach |= mask
    kept: list[Group] = []
    position: dict[int, int] | None = None
    for group in parent.groups:
        if not group.inner & reach:
            kept.append(group)
            continue
        # a parent's part that an added literal links to: its literals join that group
        if position is None:
            position = {i: k for k, i in enumerate(ids)}
        for lit in group.lits:
            k = position[id(lit)]
            split[k] = _split_vars(lit, head_vars, head)
            fresh = _join(fresh, split[k][2], k)
    fresh.sort(key=lambda g: g[1][0])  # in the order of their first literals
    made = [
        _group(mask, [body[k] for k in members], [split[k] for k in members])
        for mask, members in fresh
    ]
    return Split([*kept, *made], child_ids, parent.reach | reach), made


_LINEAGE_SIZE: Final = 4_000
"""Coverages remembered (at most about twice as many): a search's open list holds the
parents whose refinements are still to be asked about (carcinogenesis' ``--learner aleph``:
99% of refinements found their parent's split with 4,000, 50% with 1,000)."""


class Lineage:
    """The split of each clause whose coverage the kernel returned, by the coverage object
    (held weakly: a coverage a search has dropped is forgotten with it)."""

    __slots__ = ("_made",)

    def __init__(self, size: int = _LINEAGE_SIZE) -> None:
        self._made: Generations[int, tuple[weakref.ref[Coverage], object, int, Split]] = (
            Generations(size)
        )

    def remember(self, coverage: Coverage, head: object, split: Split) -> None:
        self._made.put(id(coverage), (weakref.ref(coverage), head, _EPOCH[0], split))

    def of(self, coverage: Coverage | None, head: object) -> Split | None:
        """The split of the clause (under ``head``) whose coverage this is."""
        if coverage is None:
            return None
        got = self._made.get(id(coverage))
        if got is None or got[0]() is not coverage or got[1] is not head or got[2] != _EPOCH[0]:
            return None
        return got[3]

    def clear(self) -> None:
        self._made.clear()
