"""A clause body's parts for the kernel: the literals linked by variables outside the head.

With the head bound, such parts are independent, and a part's truth depends only on the
values of its own head variables: the kernel decides it once per distinct tuple of those
values (:meth:`~ilpkit.plugins.backends.native.engine.NativeBackend._kernel_cover`).

A search asks about a refinement right after, or long after, its parent, with the parent's
coverage as ``among``; every part the refinement shares with its parent is then true of
every example asked about.  The backend notes on each coverage it returns which clause it
is of (:class:`Lineage`), so that :func:`refined_groups` splits only what the refinement
added (and the kernel runs only that).
"""

from __future__ import annotations

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
which cost no call of ``Var.__hash__``/``__eq__`` (Python methods) as sets of variables do.
Never renumbered (a literal's mask is kept across clauses): variables past
:data:`_MAX_BITS` share one bit.  Two variables sharing a bit (that, or two threads
numbering at once) can only link parts that are independent -- they are then decided
together, which is as exact, only less split -- never leave linked ones apart."""
_MAX_BITS: Final = 1024
_SHARED_BIT: Final = 1 << _MAX_BITS


def _bits(variables: tuple[Var, ...]) -> int:
    mask = 0
    for v in variables:
        bit = _VAR_BITS.get(v)
        if bit is None:
            n = len(_VAR_BITS)
            bit = _VAR_BITS.setdefault(v, 1 << n) if n < _MAX_BITS else _SHARED_BIT
        mask |= bit
    return mask


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
    not kept.

    Why: with the head bound, such parts are independent, and a part's truth depends only on
    the values of its own head variables -- so it is decided once per distinct tuple of those
    values, not once per example (in UW-CSE a literal about the professor ``B`` alone is
    asked once per professor, not once per student-professor pair)."""
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


class Split(NamedTuple):
    """A body's parts with the identities of its literals, the union of the parts' masks
    (what an added literal must miss to leave every part as it is) and whether each
    literal object is in the body once (only then may refinements inherit the split)."""

    groups: list[Group]
    ids: tuple[int, ...]  # a tuple: these are kept by the thousand (a frozenset is 3x larger)
    reach: int
    distinct: bool = True


def split_of(head_vars: Container[Var], body: list[Term], head: object) -> Split:
    """:func:`head_groups` as a :class:`Split`."""
    groups = head_groups(head_vars, body, head)
    reach = 0
    for group in groups:
        reach |= group.inner
    ids = tuple(map(id, body))
    return Split(groups, ids, reach, len(set(ids)) == len(ids))


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
    ids = tuple(map(id, body))
    if not parent.distinct:
        return None
    theirs = parent.ids
    n = len(theirs)
    if len(ids) == n + 1 and ids[:n] == theirs and ids[n] not in theirs:
        # one literal added at the end (most refinements): tuple comparisons, no sets
        return _appended(parent, body, ids, head_vars, head)
    child_ids = frozenset(ids)
    if len(child_ids) != len(ids) or not child_ids.issuperset(theirs):
        return None
    if len(child_ids) == len(parent.ids):
        return parent, []
    if len(ids) == len(parent.ids) + 1:  # one literal added (most refinements)
        theirs = parent.ids
        k = next(k for k, i in enumerate(ids) if i not in theirs)
        only = _split_vars(body[k], head_vars, head)
        if not only[2] & parent.reach:  # linked to no part of the parent's: a part alone
            group = Group(only[2], list(only[3]), [body[k]])
            return Split([*parent.groups, group], ids, parent.reach | only[2]), [group]
    parent_ids = frozenset(parent.ids)
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
    return Split([*kept, *made], ids, parent.reach | reach), made


def _appended(
    parent: Split,
    body: tuple[Term, ...] | list[Term],
    ids: tuple[int, ...],
    head_vars: Container[Var],
    head: object,
) -> tuple[Split, list[Group]]:
    """:func:`refined_groups` of the parent's body with one literal added at its end: the
    parent's parts it shares no variable with stay, the others (in their order) merge
    with it into one part, which comes after the kept ones."""
    lit = body[-1]
    only = _split_vars(lit, head_vars, head)
    mask = only[2]
    if not mask & parent.reach:  # linked to no part of the parent's: a part alone
        group = Group(mask, list(only[3]), [lit])
        return Split([*parent.groups, group], ids, parent.reach | mask), [group]
    kept: list[Group] = []
    joined: list[Group] = []
    for g in parent.groups:
        (joined if g.inner & mask else kept).append(g)
    if len(joined) == 1:  # its literals come before the added one: still in body order
        into = joined[0]
        hv = list(into.hv)
        lits = [*into.lits, lit]
    else:
        position = {i: k for k, i in enumerate(ids)}
        lits = sorted((x for g in joined for x in g.lits), key=lambda x: position[id(x)])
        lits.append(lit)
        hv = []
        for x in lits[:-1]:
            for v in _split_vars(x, head_vars, head)[3]:
                if v not in hv:
                    hv.append(v)
    for v in only[3]:
        if v not in hv:
            hv.append(v)
    for g in joined:
        mask |= g.inner
    merged = Group(mask, hv, lits)
    return Split([*kept, merged], ids, parent.reach | only[2]), [merged]


_SPLITS_KEPT: Final = 256
"""Splits kept by body (about twice as many at most): a search asks about a clause's
refinements one after another when it expands the clause, so the parent's split is read
again and again soon after it is made or rebuilt."""


class Lineage:
    """Which clause each coverage the kernel returned was of (a note on the coverage,
    :attr:`Coverage.origin`: it lives as long as the search keeps the coverage, at the
    cost of one small tuple), and the recent bodies' splits.

    A new ``Lineage`` on every load of the backend: notes made before a load are not its."""

    __slots__ = ("_splits",)

    def __init__(self) -> None:
        self._splits: Generations[int, tuple[tuple[Term, ...], Split]] = Generations(_SPLITS_KEPT)

    def note(
        self, head: object, body: tuple[Term, ...]
    ) -> tuple[Lineage, object, tuple[Term, ...]]:
        """The origin to give the coverage of ``head :- body``."""
        return (self, head, body)

    def keep(self, body: tuple[Term, ...], split: Split) -> None:
        self._splits.put(id(body), (body, split))

    def parent(
        self, coverage: Coverage | None, head: object, head_vars: Container[Var]
    ) -> Split | None:
        """The split of the clause (under ``head``) whose coverage this is, if this
        lineage noted it: kept, or made again."""
        origin = None if coverage is None else coverage.origin
        if type(origin) is not tuple or origin[0] is not self or origin[1] is not head:
            return None
        body: tuple[Term, ...] = origin[2]
        got = self._splits.get(id(body))
        if got is not None and got[0] is body:
            kept: Split = got[1]
            return kept
        split = split_of(head_vars, list(body), head)
        self.keep(body, split)
        return split
