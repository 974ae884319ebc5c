"""``topdown`` and ``bf``: Aleph's top-down search from the most general clause.

Dissertation Table 2.3: keep an open list of evaluated clauses; repeatedly take the best
(``topdown``, Aleph's ``search=heuristic``) or the oldest (``bf``, breadth-first), and
evaluate its refinements -- each adds one legal literal of the bottom clause (coverage tested
on the parent's covered examples only).  The best acceptable clause seen is returned.

Pruning (a refinement covers a subset of its parent's examples): a clause covering fewer
than ``minpos`` positives is not expanded; a clause covering no negatives is not expanded
either (specialising it cannot raise its precision), and neither is a clause at
``clauselength``; with ``prune_by_bound`` (default, as Aleph), a clause is not expanded when
even a refinement keeping all its positives and no negatives could not beat the best clause
found -- valid for scorers that grow with TP and shrink with FP and length (all built-in
ones).  The same literal set reached in two orders is evaluated once.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.coverage import Counts
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.search import BudgetExhausted, Evaluated, SearchContext, sort_key


class TopDownOptions(BaseModel):
    """Options of the top-down searches."""

    model_config = ConfigDict(extra="forbid")

    openlist: int | None = Field(
        default=None, description="Keep at most this many clauses on the open list (beam)."
    )
    expand_zero_fp: bool = Field(
        default=False,
        description="Also refine clauses that cover no negatives (Aleph does not need to).",
    )
    prune_by_bound: bool = Field(
        default=True,
        description="Do not refine a clause whose best possible refinement (same positives, "
        "no negatives) cannot beat the best clause found (Aleph's pruning).",
    )


class TopDown:
    """Best-first (``order="best"``) or breadth-first (``order="fifo"``) top-down search."""

    def __init__(
        self, options: TopDownOptions | None = None, order: Literal["best", "fifo"] = "best"
    ):
        self.options = options if options is not None else TopDownOptions()
        self.order = order
        self.name = "topdown" if order == "best" else "bf"

    def run(self, ctx: SearchContext) -> Evaluated | None:
        best: Evaluated | None = None
        tie = itertools.count()
        open_list: list[tuple[tuple[float, int, int] | int, int, Evaluated]] = []
        visited: set[tuple[int, ...]] = set()
        try:
            root = ctx.evaluate(())
            visited.add(())
            if ctx.acceptable(root):
                best = root
            self._push(open_list, root, next(tie))
            while open_list:
                node = heapq.heappop(open_list)[2]
                if not self._expandable(node, ctx) or self._hopeless(node, best, ctx):
                    continue
                children = []
                for k in ctx.refiner.additions(node.body):
                    body = ctx.refiner.add(node.body, k)
                    if body in visited:
                        continue
                    visited.add(body)
                    children.append(body)
                ctx.prefetch(children, node)  # one backend call for the node, where cheaper
                for body in children:
                    child = ctx.evaluate(body, parent=node)
                    if ctx.acceptable(child) and ctx.better(child, best):
                        best = child
                    self._push(open_list, child, next(tie))
                self._trim(open_list)
        except BudgetExhausted:
            pass
        return best

    def _expandable(self, node: Evaluated, ctx: SearchContext) -> bool:
        if node.counts.tp < ctx.acceptance.minpos:
            return False
        if node.counts.fp == 0 and not self.options.expand_zero_fp and node.body:
            return False
        return ctx.refiner.can_grow(node.body)

    def _hopeless(self, node: Evaluated, best: Evaluated | None, ctx: SearchContext) -> bool:
        """Refinements cover subsets of ``node``'s examples and are longer, so for scorers
        that grow with TP and shrink with FP and length, none scores above ``node``'s TP
        with no FP at the next length -- if that cannot beat ``best``, skip the node."""
        if best is None or not self.options.prune_by_bound:
            return False
        c = node.counts
        bound = ctx.scorer.score(Counts(c.tp, 0.0, c.p, c.n), len(node.body) + 2)
        return bound <= best.score

    def _push(
        self,
        heap: list[tuple[tuple[float, int, int] | int, int, Evaluated]],
        e: Evaluated,
        order: int,
    ) -> None:
        key: tuple[float, int, int] | int = sort_key(e) if self.order == "best" else order
        heapq.heappush(heap, (key, order, e))

    def _trim(self, heap: list[tuple[tuple[float, int, int] | int, int, Evaluated]]) -> None:
        limit = self.options.openlist
        if limit is not None and len(heap) > limit:
            keep = heapq.nsmallest(limit, heap)
            heap[:] = keep
            heapq.heapify(heap)


def _best_first(options: TopDownOptions) -> TopDown:
    return TopDown(options, "best")


def _breadth_first(options: TopDownOptions) -> TopDown:
    return TopDown(options, "fifo")


SPECS = [
    PluginSpec(
        kind="search",
        name="topdown",
        factory=_best_first,
        options=TopDownOptions,
        doc="Aleph's heuristic best-first top-down search (open list, expand the best).",
    ),
    PluginSpec(
        kind="search",
        name="bf",
        factory=_breadth_first,
        options=TopDownOptions,
        doc="Breadth-first top-down search (Aleph's search=bf).",
    ),
]
