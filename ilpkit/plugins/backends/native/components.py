"""Independent parts of a clause body.

Body literals that share no variable, directly or through other literals, with the head form
components whose truth does not depend on the example: ``p(A) :- q(A,B), r(C,D), s(D)`` covers
an example iff ``q(A,B)`` holds for it and ``r(C,D), s(D)`` has a solution at all.  Evaluating
such a component once, instead of joining it into every example's rows, turns a cross product
into a yes/no question.  Only pure literals (facts, comparisons) are moved: for them answers do
not depend on evaluation order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ilpkit.prolog.terms import Term, Var, iter_vars


def split_independent(
    head: Term, body: Sequence[Term], pure: Callable[[Term], bool]
) -> tuple[list[Term], list[list[Term]]]:
    """``(connected, independent)``: the literals linked to the head, in body order, and the
    other components (each in body order).  With an impure literal outside the head's
    component nothing is split."""
    n = len(body)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[Var, int] = {}
    head_vars = set(iter_vars(head))
    linked_to_head: set[int] = set()
    for i, lit in enumerate(body):
        for v in iter_vars(lit):
            if v in head_vars:
                linked_to_head.add(i)
            j = owner.setdefault(v, i)
            if j != i:
                parent[find(i)] = find(j)
    head_roots = {find(i) for i in linked_to_head}
    connected = [lit for i, lit in enumerate(body) if find(i) in head_roots]
    groups: dict[int, list[Term]] = {}
    for i, lit in enumerate(body):
        root = find(i)
        if root not in head_roots:
            groups.setdefault(root, []).append(lit)
    independent = list(groups.values())
    if any(not pure(lit) for part in independent for lit in part):
        return list(body), []
    return connected, independent
