"""``topdown`` and ``bf``: Aleph's top-down search from the most general clause.

Dissertation Table 2.3: keep an open list of evaluated clauses; repeatedly take the next one
and evaluate its refinements -- each adds one legal literal of the bottom clause (coverage
tested on the parent's covered examples only).  The best acceptable clause seen is returned.

Which clause is next follows the Aleph manual's ``search`` setting (section "Search
strategies"): ``topdown`` (Aleph's ``search=heuristic``) takes the best-scored clause; ``bf``
(``search=bf``, Aleph's default) takes a shortest clause, and among clauses of that length
the best-scored one (then the one evaluated first) -- breadth-first by length, re-ordered by
evaluation within a length, not first-in first-out.

Pruning (a refinement covers a subset of its parent's examples): a clause covering fewer
than ``minpos`` positives is not expanded; a clause covering no negatives is not expanded
either (specialising it cannot raise its precision), and neither is a clause at
``clauselength``; with ``prune_by_bound`` (default, as Aleph), a clause is not expanded when
even a refinement keeping all its positives and no negatives could not beat the best clause
found -- valid for scorers that grow with TP and shrink with FP and length (all built-in
ones).  What "could not beat" means is Aleph's ``explore`` setting (manual, "explore"):
without it a clause whose bound is *no better* than the best is pruned (bound <= best); with
it only a clause *definitely worse* is pruned (bound < best), so refinements as good as the
best are still reached.  Before any clause is acceptable, a clause whose bound is below
Aleph's ``minscore`` is pruned: none of its refinements could be accepted.
The same literal set reached in two orders is evaluated once (operator ``sets``, the default;
``operator="aleph"`` is Aleph's own sequence operator: :mod:`ilpkit.plugins.search.
aleph_operator`). A context's ``incumbent`` (a clause held before the search, Aleph's seed
label) prunes and bounds acceptance as a best clause found does.  Memory: only clauses that
can still be expanded wait on the open list, and the context's memo of evaluated clauses is
off (the visited set already keeps a clause from being evaluated twice), so a search holds
the coverage of its open list, not of every clause it evaluated -- and a waiting clause's
coverage is packed as a bitset when that is smaller (one bit an example).
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import replace
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.coverage import Counts, Coverage
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.search import BudgetExhausted, Evaluated, SearchContext, sort_key
from ilpkit.plugins.search.aleph_operator import run_aleph_operator


class _Waiting:
    """A clause waiting on the open list with its coverage packed as a bitset (one bit an
    example instead of eight bytes a covered example); unpacked when it is expanded.

    A plain class: a slotted frozen dataclass is built twice, 3 ms of every run's start-up."""

    __slots__ = ("bits", "clause")

    def __init__(self, clause: Evaluated, bits: npt.NDArray[np.uint8]) -> None:
        self.clause = clause  # its coverage emptied
        self.bits = bits

    def unpack(self) -> Evaluated:
        size = self.clause.coverage.size
        ids = np.flatnonzero(np.unpackbits(self.bits, count=size)).astype(np.int64)
        return replace(self.clause, coverage=Coverage(ids, size, trusted=True))


PACK_FROM = 512
"""Covered examples from which a waiting clause's coverage is packed."""


def waiting(e: Evaluated) -> Evaluated | _Waiting:
    """``e`` as it waits on the open list: packed when it covers at least ``PACK_FROM``
    examples (4 KB of ids; smaller ones are not worth the packing's CPU) and the bitset is
    the smaller."""
    ids, size = e.coverage.ids, e.coverage.size
    if ids.size < PACK_FROM or ids.size * 64 <= size:
        return e
    mask = np.zeros(size, dtype=np.bool_)
    mask[ids] = True
    return _Waiting(replace(e, coverage=Coverage.empty(size)), np.packbits(mask))


_Entry = tuple[tuple[float, int, int] | tuple[int, float, int], int, Evaluated | _Waiting]
"""An open-list entry: the order key, a tie-breaking counter, the clause."""


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
    operator: Literal["sets", "aleph"] = Field(
        default="sets",
        description="How a clause is refined: 'sets' adds any literal of the bottom clause "
        "whose inputs it binds, each literal set evaluated once; 'aleph' is Aleph's own "
        "operator (a clause is a sequence: add the literals depending on its last one, then "
        "its later kept siblings' literals), which evaluates clauses in Aleph's order and "
        "counts them as Aleph does.",
    )


class TopDown:
    """Best-first (``order="best"``) or Aleph's breadth-first (``order="fifo"``: shortest
    clauses first, the best-scored first within a length) top-down search."""

    honours_aleph_hooks = True
    """It refines no clause Aleph's ``prune/1`` prunes and accepts none ``false/0`` or
    ``prune/1`` refuses (:mod:`ilpkit.core.aleph_hooks`)."""

    def __init__(
        self, options: TopDownOptions | None = None, order: Literal["best", "fifo"] = "best"
    ):
        self.options = options if options is not None else TopDownOptions()
        self.order = order
        self.name = "topdown" if order == "best" else "bf"

    def run(self, ctx: SearchContext) -> Evaluated | None:
        if self.options.operator == "aleph":
            return run_aleph_operator(self, ctx)
        best: Evaluated | None = None
        tie = itertools.count()
        open_list: list[_Entry] = []
        visited: set[tuple[int, ...]] = set()
        ctx.memo = False
        try:
            root = ctx.evaluate(())
            visited.add(())
            if ctx.acceptable(root) and root.score > ctx.incumbent:
                best = root
            self._push(open_list, root, next(tie))
            while open_list:
                item = heapq.heappop(open_list)[2]
                node = item.clause if isinstance(item, _Waiting) else item
                if not self._expandable(node, ctx) or self._hopeless(node, best, ctx):
                    continue
                if isinstance(item, _Waiting):
                    node = item.unpack()
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
                    beats = best is not None or child.score > ctx.incumbent
                    if beats and ctx.acceptable(child) and ctx.better(child, best):
                        best = child
                        if ctx.done(best):
                            return best
                    if self._expandable(child, ctx):
                        self._push(open_list, child, next(tie))
                self._trim(open_list)
        except BudgetExhausted:
            pass
        return best

    def _expandable(self, node: Evaluated, ctx: SearchContext) -> bool:
        if node.veto == "prune":  # Aleph's prune/1: its refinements are pruned too
            return False
        if node.counts.tp < ctx.acceptance.minpos:
            return False
        if node.counts.fp == 0 and not self.options.expand_zero_fp and node.body:
            return False
        return ctx.refiner.can_grow(node.body)

    def _hopeless(self, node: Evaluated, best: Evaluated | None, ctx: SearchContext) -> bool:
        """Refinements cover subsets of ``node``'s examples and are longer, so for scorers
        that grow with TP and shrink with FP and length, none scores above ``node``'s TP
        with no FP at the next length -- if that cannot beat ``best`` (or, before any clause
        is acceptable, cannot reach ``minscore`` or beat the context's ``incumbent``), skip
        the node."""
        if not self.options.prune_by_bound:
            return False
        minscore = ctx.acceptance.minscore
        if best is None and minscore == -math.inf and ctx.incumbent == -math.inf:
            return False
        c = node.counts
        bound = ctx.scorer.score(Counts(c.tp, 0.0, c.p, c.n), ctx.length(node.body) + 1)
        if best is None:
            if bound < minscore:
                return True
            if ctx.incumbent == -math.inf:
                return False
        floor = best.score if best is not None else ctx.incumbent
        return bound < floor if ctx.explore else bound <= floor

    def _push(
        self,
        heap: list[_Entry],
        e: Evaluated,
        order: int,
    ) -> None:
        key = sort_key(e) if self.order == "best" else bf_key(e)
        heapq.heappush(heap, (key, order, waiting(e)))

    def _trim(self, heap: list[_Entry]) -> None:
        limit = self.options.openlist
        if limit is not None and len(heap) > limit:
            keep = heapq.nsmallest(limit, heap)
            heap[:] = keep
            heapq.heapify(heap)


def bf_key(e: Evaluated) -> tuple[int, float, int]:
    """Aleph's ``bf`` order: fewer literals first, then score descending, then evaluation
    order (Aleph manual, ``search=bf``: shorter clauses first, re-ordered by evaluation
    within a length)."""
    return (len(e.body), -e.score, e.number)


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
