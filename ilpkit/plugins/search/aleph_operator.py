"""Aleph's own refinement operator for the top-down searches (``operator="aleph"``).

Aleph 5 with its default ``refineop`` does not refine a clause by every legal literal of the
bottom clause. A clause is a *sequence* of bottom-clause literals, and a node taken from the
open list is refined by

1. the literals that depend on its last literal (take one of its outputs as an input), in
   bottom-clause order, whose inputs the clause binds; then
2. the last literals of its *later siblings*: the clauses made after it in the same
   expansion of its parent that were kept as nodes (those not already added under 1).

A clause is kept as a node -- expanded later, and a sibling of the clauses made after it --
only when it may still lead to a better clause: it covers ``minpos`` positives, its bound
(its positives, no negatives, one more literal) beats the best clause before it (what
"beats" means follows ``explore``, as for the ``sets`` operator; a clause that becomes the
best is kept as a sibling, though the open list then drops it), and it is shorter than
``clauselength``. Every clause made counts against ``nodes``, kept or not; a literal set
reached by two sequences is evaluated twice; a clause becomes the best only by scoring
strictly above it (the first of equally good clauses stays); and an ``=`` literal adds
nothing to a clause's length -- for ``clauselength``, the breadth-first order and scores
that count literals (Aleph's ``get_pclause`` gives ``=`` length 0). So each literal set is built in
Aleph's order, and the evaluation order, node counts and ties are Aleph's. Read off Aleph's
trace (``set(verbosity,1)``): the manual says only that the search ranges over subsets of the
bottom clause, which ``operator="sets"`` (each set once, by whichever order reaches it
first) also does. A clause lists its literals in the order they were added: a literal may
depend on a literal that comes later in the bottom clause (one that outputs a term already
reached earlier), which that order binds first.
"""

from __future__ import annotations

import heapq
import itertools
import math
from typing import TYPE_CHECKING

from ilpkit.core.coverage import Counts
from ilpkit.core.search import BudgetExhausted, Evaluated, SearchContext
from ilpkit.prolog.terms import indicator

if TYPE_CHECKING:
    from ilpkit.plugins.search.topdown import TopDown, _Waiting


class _Node:
    """A kept clause: its evaluation (packed while it waits), its literals in the order they
    were added, and the kept clauses of the expansion that made it (its siblings).

    A plain class (compared by identity): a dataclass costs every run's start-up."""

    __slots__ = ("at", "bound", "item", "kin", "path")

    def __init__(
        self,
        item: Evaluated | _Waiting | None,
        path: tuple[int, ...],
        bound: frozenset[int],
        kin: list[_Node],
        at: int = 0,
    ) -> None:
        self.item = item
        self.path = path
        self.bound = bound
        self.kin = kin
        self.at = at

    @property
    def last(self) -> int:
        return self.path[-1] if self.path else -1


class _Dependents:
    """``of(l)``: the literals taking an output of literal ``l`` as an input (``l = -1``: the
    head, whose outputs are its input variables), in bottom-clause order."""

    def __init__(self, ctx: SearchContext) -> None:
        lits = ctx.bottom.literals
        self.inputs = [frozenset(lit.inputs) for lit in lits]
        self.outputs = [frozenset(lit.outputs) for lit in lits]
        self.head = frozenset(ctx.bottom.head_inputs)
        self._cache: dict[int, tuple[list[int], frozenset[int]]] = {}

    def of(self, lit: int) -> tuple[list[int], frozenset[int]]:
        got = self._cache.get(lit)
        if got is None:
            made = self.head if lit < 0 else self.outputs[lit]
            ks = [k for k, ins in enumerate(self.inputs) if ins & made or (lit < 0 and not ins)]
            got = self._cache[lit] = (ks, frozenset(ks))
        return got


def run_aleph_operator(search: TopDown, ctx: SearchContext) -> Evaluated | None:
    """The search of :class:`~ilpkit.plugins.search.topdown.TopDown` with Aleph's operator."""
    from ilpkit.plugins.search.topdown import _Waiting, waiting

    deps = _Dependents(ctx)
    ctx.free = frozenset(
        k for k, lit in enumerate(ctx.bottom.literals) if indicator(lit.term) == ("=", 2)
    )
    best: Evaluated | None = None
    tie = itertools.count()
    heap: list[tuple[tuple[float, int, int] | tuple[int, float, int], int, _Node]] = []
    ctx.memo = False

    def beats(e: Evaluated) -> bool:
        floor = best.score if best is not None else ctx.incumbent
        return ctx.acceptable(e) and e.score > floor and labelled(e, floor)

    def labelled(e: Evaluated, floor: float) -> bool:
        # Aleph's pos_ok: without explore, a clause whose bound (its positives, no
        # negatives, one more literal) does not beat the best gets no label at all, so it
        # cannot become the best either -- though, for a score charging length per
        # positive (posonly), its own score may (posonly/animals: habitat(A,water))
        if ctx.explore or not search.options.prune_by_bound or floor == -math.inf:
            return True
        c = e.counts
        return ctx.scorer.score(Counts(c.tp, 0.0, c.p, c.n), ctx.length(e.body) + 1) > floor

    def keep(e: Evaluated) -> bool:
        return (
            e.veto != "prune"  # Aleph's prune/1: neither a node nor a sibling
            and e.counts.tp >= ctx.acceptance.minpos
            and ctx.length(e.body) < ctx.clauselength
            and not search._hopeless(e, best, ctx)
        )

    def push(node: _Node, e: Evaluated) -> None:
        size = ctx.length(e.body)
        key = (-e.score, size, e.number) if search.order == "best" else (size, -e.score, e.number)
        heapq.heappush(heap, (key, next(tie), node))

    # Each node's ``kin`` holds the node itself: a reference cycle per family, broken when
    # the search ends so that refcounting frees them (left to the cyclic garbage collector,
    # they made its full collections the cost of a search -- issue 32).
    families: list[list[_Node]] = []
    try:
        root = ctx.evaluate(())
        kept = keep(root)
        if beats(root):
            best = root
        if kept:
            top = _Node(waiting(root), (), deps.head, [])
            top.kin.append(top)
            families.append(top.kin)
            push(top, root)
        while heap:
            node = heapq.heappop(heap)[2]
            item = node.item
            assert item is not None
            e = item.unpack() if isinstance(item, _Waiting) else item
            node.item = None  # only its last literal is needed from now on (as a sibling)
            # Aleph prunes its open list after an expansion that found a new best; the
            # most general clause, made best before any expansion, is still expanded
            if node.path and search._hopeless(e, best, ctx):
                continue
            own, own_set = deps.of(node.last)
            taken = set(node.path)
            grow = [k for k in own if k not in taken and deps.inputs[k] <= node.bound]
            grow += [s.last for s in node.kin[node.at + 1 :] if s.last not in own_set]
            bodies = [tuple(sorted((*node.path, k))) for k in grow]
            fits = [ctx.length(b) <= ctx.clauselength for b in bodies]
            grow = [k for k, ok in zip(grow, fits, strict=True) if ok]
            bodies = [b for b, ok in zip(bodies, fits, strict=True) if ok]
            # listed in bottom-clause order where that order binds every input (the same
            # clause, whatever the sequence, for the backend's caches), else as added
            listed = [
                body if ctx.refiner.supplied_all(body) else (*node.path, k)
                for k, body in zip(grow, bodies, strict=True)
            ]
            ctx.prefetch(bodies, e, listed)
            made: list[_Node] = []
            families.append(made)
            for k, body, order in zip(grow, bodies, listed, strict=True):
                child = ctx.evaluate(body, parent=e, order=order)
                kept = keep(child)  # against the best before it, as Aleph's pos_ok
                if beats(child):
                    best = child
                    if ctx.done(best):
                        return best  # Aleph checks before each clause (discontinue_search)
                if kept:
                    path = (*node.path, k)
                    kid = _Node(waiting(child), path, node.bound | deps.outputs[k], made)
                    kid.at = len(made)
                    made.append(kid)
                    push(kid, child)
            search._trim(heap)  # type: ignore[arg-type]
    except BudgetExhausted:
        pass
    finally:
        for family in families:
            family.clear()
    return best
