"""Top-down induction of a first-order logical decision tree (Blockeel & De Raedt 1998).

At each node: generate the refinements of the node's query (``refine.Refiner``), ask the
backend which of the node's examples each refined query covers (one ``coverage_many`` call
per node, restricted to the node's examples), score every binary split and take the best
(ties: fewer literals, then generation order); stop when the node is pure, has fewer than
``2 * min_leaf`` examples, is at ``max_depth``, or no split both leaves ``min_leaf`` examples
on each side and improves the score.

Positive-unlabeled data: ``c`` (the label frequency) turns the labeled/unlabeled counts of a
set inside the split score into estimated class counts ``P = L / c, N = T - P`` when
``count_adjust`` is set (the count-based PU variant); otherwise the tree is grown on the raw
counts and only the leaves' probabilities are divided by ``c``.  Each of the three sets of a
split (the node, its left child, its right child) gets its counts from its own L and T, with
P clipped to T ("the true number of positive examples P in a subset cannot exceed the total
number of examples in that subset T", ticer-pu-relational sec. 3): the right child is not the
node minus the left child, whose clipped counts need not add up (issue 31: a node of 8
labeled and 2 unlabeled at c = 0.5 is P = 10, N = 0; a left child of 2 unlabeled is P = 0,
N = 2; the difference, P = 10, N = -2, gave entropies and gains below 0).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ilpkit.core.bias import Mode
from ilpkit.core.bottom import BottomClause
from ilpkit.core.coverage import Coverage
from ilpkit.core.limits import coverage_many_within_limits
from ilpkit.plugins.learners.tilde import splits
from ilpkit.plugins.learners.tilde.refine import ConstantPool, Query, Refiner, head_query
from ilpkit.plugins.learners.tilde.tree import Node, Tree
from ilpkit.prolog.terms import Clause, Term

IdArray = npt.NDArray[np.int64]


def pu_counts(labeled: float, total: float, c: float) -> tuple[float, float]:
    """Estimated class counts of a set of ``total`` examples, ``labeled`` of them labeled:
    ``P = L / c`` clipped into ``[0, T]``, ``N = T - P`` (ticer-pu-relational sec. 2-3)."""
    p = min(max(labeled / c, 0.0), total)
    return p, total - p


@dataclass(frozen=True)
class InduceOptions:
    split_score: splits.SplitScore = "gain"
    min_leaf: int = 2
    max_depth: int = 8
    lookahead: bool = False
    max_refinements: int = 2000
    max_constants: int = 20
    constant_sample: int = 20
    c: float = 1.0
    count_adjust: bool = False


@dataclass
class InduceStats:
    refinements_evaluated: int = 0
    refinements_dropped: int = 0
    saturations: int = 0
    nodes: int = 0


@dataclass
class Inducer:
    """Grows one tree; the backend answers coverage and saturation questions."""

    backend: object
    head_mode: Mode
    body_modes: tuple[Mode, ...]
    positive: npt.NDArray[np.bool_]
    """``positive[e]``: example ``e`` is of the positive (labeled) class."""
    weights: npt.NDArray[np.float64]
    options: InduceOptions
    rng: random.Random
    depth: int = 2
    """Saturation depth (Aleph's ``i``) of the bottom clauses constants are read from."""
    stats: InduceStats = field(default_factory=InduceStats)
    _bottoms: dict[int, BottomClause | None] = field(default_factory=dict)
    on_node: Callable[[int], None] | None = None

    def grow(self, ids: Sequence[int] | IdArray) -> Tree:
        ids = np.asarray(ids, dtype=np.int64)
        query = head_query(self.head_mode)
        root = self._node(query, ids, 0)
        return Tree(query.head, root)

    # -- counts ---------------------------------------------------------------------------------
    def counts(self, ids: IdArray) -> tuple[float, float]:
        w = self.weights[ids]
        pos = float(w[self.positive[ids]].sum())
        return pos, float(w.sum()) - pos

    def _adjusted(self, pos: float, neg: float) -> tuple[float, float]:
        if not self.options.count_adjust or self.options.c >= 1.0:
            return pos, neg
        return pu_counts(pos, pos + neg, self.options.c)

    # -- growing --------------------------------------------------------------------------------
    def _node(self, query: Query, ids: IdArray, depth: int) -> Node:
        pos, neg = self.counts(ids)
        node = Node(pos, neg)
        self.stats.nodes += 1
        if self.on_node is not None:
            self.on_node(self.stats.nodes)
        opts = self.options
        if depth >= opts.max_depth or pos == 0 or neg == 0 or len(ids) < 2 * opts.min_leaf:
            return node
        best = self._best_split(query, ids, pos, neg)
        if best is None:
            return node
        test, new_query, left_ids, value = best
        right_ids = np.setdiff1d(ids, left_ids, assume_unique=True)
        node.test = test
        node.score = value
        node.left = self._node(new_query, left_ids, depth + 1)
        node.right = self._node(query, right_ids, depth + 1)
        return node

    def _best_split(
        self, query: Query, ids: IdArray, pos: float, neg: float
    ) -> tuple[tuple[Term, ...], Query, IdArray, float] | None:
        refiner = Refiner(
            self.body_modes,
            self._constants(ids),
            max_constants=self.options.max_constants,
            lookahead=self.options.lookahead,
        )
        candidates = list(refiner.refinements(query))
        limit = self.options.max_refinements
        if len(candidates) > limit:
            self.stats.refinements_dropped += len(candidates) - limit
            keep = sorted(self.rng.sample(range(len(candidates)), limit))
            candidates = [candidates[k] for k in keep]
        if not candidates:
            return None
        queries = [query.extended(r) for r in candidates]
        n = len(self.positive)
        coverages = coverage_many_within_limits(
            self.backend,
            [q.clause() for q in queries],
            Coverage(ids, n, trusted=True),
        )
        self.stats.refinements_evaluated += len(candidates)
        kind = self.options.split_score
        p_pos, p_neg = self._adjusted(pos, neg)
        best: tuple[float, int, int] | None = None  # (score, -length, -index)
        best_k = -1
        for k, cov in enumerate(coverages):
            left = cov.ids
            if len(left) < self.options.min_leaf or len(ids) - len(left) < self.options.min_leaf:
                continue
            left_pos, left_neg = self.counts(left)
            l_pos, l_neg = self._adjusted(left_pos, left_neg)
            right = self._adjusted(pos - left_pos, neg - left_neg)
            value = splits.score(kind, p_pos, p_neg, l_pos, l_neg, right=right)
            if not splits.improves(kind, value, p_pos, p_neg):
                continue
            key = (value, -len(candidates[k].literals), -k)
            if best is None or key > best:
                best, best_k = key, k
        if best is None:
            return None
        return (
            candidates[best_k].literals,
            queries[best_k],
            coverages[best_k].ids,
            best[0],
        )

    # -- constants from saturation --------------------------------------------------------------
    def _constants(self, ids: IdArray) -> ConstantPool:
        pool = ConstantPool(self.body_modes)
        if not any(m.constants() for m in self.body_modes):
            return pool
        sample = [int(e) for e in ids]
        if len(sample) > self.options.constant_sample:
            sample = sorted(self.rng.sample(sample, self.options.constant_sample))
        for e in sample:
            bottom = self._bottom(e)
            if bottom is not None:
                pool.add(bottom)
        return pool

    def _bottom(self, example: int) -> BottomClause | None:
        if example not in self._bottoms:
            self.stats.saturations += 1
            self._bottoms[example] = self.backend.saturate(  # type: ignore[attr-defined]
                example, depth=self.depth
            )
        return self._bottoms[example]


def leaf_clauses(tree: Tree) -> list[Clause]:
    return [clause for clause, _ in tree.decision_list()]
