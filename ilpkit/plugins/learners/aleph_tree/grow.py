"""Top-down recursive partitioning as Aleph's ``induce_tree`` does it (classification and
class-probability trees).

Each node holds a clause (:class:`~.refine.PathClause`) and the training examples that
reach it; its *cost* is the impurity of the class distribution of those examples' dependent
argument: entropy in bits (``evalfn entropy``) or the Gini index ``sum_c p_c (1 - p_c)``
(``evalfn gini``).  A split is a refinement ``Test`` of the node's clause: the examples the
refined clause covers go to the *passed* child (``Clause, Test``), the others to the *failed*
child (``Clause, not(Test)``).  Its worth is the expected cost reduction

    gain = cost(node) - (N_pass * cost(pass) + N_fail * cost(fail)) / N,

the counts being examples.  Refinements are tried in the refinement operator's order; one
whose children do not both hold at least ``minpos`` examples is skipped, a later one
replaces the best so far only with a strictly larger gain, and the scan stops at the first
split with two pure children.  A node is split when its cost is at least ``mingain`` and the
best gain is too; it stays a leaf otherwise.

Nodes are split depth first, the failed child before the passed one; the leaves end up in
the order Aleph lists its rules: a split puts its two children, passed first, in front of
the leaves found so far (:func:`grow`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from ilpkit.core.bias import Mode
from ilpkit.core.coverage import Coverage
from ilpkit.core.limits import coverage_many_within_limits
from ilpkit.plugins.learners.aleph_tree.refine import AutoRefiner, Extension, PathClause

IdArray = npt.NDArray[np.int64]
Impurity = Literal["entropy", "gini"]


def entropy(counts: Sequence[float] | npt.NDArray[np.float64]) -> float:
    """Entropy in bits of a class distribution given by counts: ``-sum_c p_c log2 p_c``."""
    c = np.asarray(counts, dtype=np.float64)
    total = float(c.sum())
    if total <= 0:
        return 0.0
    p = c[c > 0] / total
    return float(-(p * np.log2(p)).sum())


def gini(counts: Sequence[float] | npt.NDArray[np.float64]) -> float:
    """Gini index of a class distribution given by counts: ``sum_c p_c (1 - p_c)``."""
    c = np.asarray(counts, dtype=np.float64)
    total = float(c.sum())
    if total <= 0:
        return 0.0
    p = c / total
    return float((p * (1.0 - p)).sum())


IMPURITY: dict[str, Callable[[Sequence[float] | npt.NDArray[np.float64]], float]] = {
    "entropy": entropy,
    "gini": gini,
}


def cost_reduction(
    impurity: Impurity,
    node: Sequence[float] | npt.NDArray[np.float64],
    passed: Sequence[float] | npt.NDArray[np.float64],
) -> float:
    """Expected cost reduction of splitting class counts ``node`` into ``passed`` and the
    rest (Aleph prints it as ``[expected cost reduction]``)."""
    f = IMPURITY[impurity]
    node_a = np.asarray(node, dtype=np.float64)
    pass_a = np.asarray(passed, dtype=np.float64)
    fail_a = node_a - pass_a
    n, n_pass, n_fail = float(node_a.sum()), float(pass_a.sum()), float(fail_a.sum())
    return f(node_a) - (n_pass * f(pass_a) + n_fail * f(fail_a)) / n


@dataclass
class TreeNode:
    """A node: its clause, its examples, its cost; a split node has both children."""

    clause: PathClause
    ids: IdArray
    cost: float
    test: Extension | None = None
    gain: float = 0.0
    passed: TreeNode | None = None
    failed: TreeNode | None = None

    @property
    def is_leaf(self) -> bool:
        return self.test is None


@dataclass
class GrowStats:
    refinements_evaluated: int = 0
    nodes: int = 0
    splits: int = 0


@dataclass
class Grower:
    """Grows one tree; the backend answers coverage questions."""

    backend: object
    refiner: AutoRefiner
    classes: npt.NDArray[np.int64]
    """``classes[e]``: index of example ``e``'s class (its dependent argument)."""
    n_classes: int
    impurity: Impurity = "entropy"
    minpos: int = 1
    mingain: float = 0.05
    negated_modes: tuple[Mode, ...] = ()
    """``not(...)`` body modes: a failed single-literal test that matches one stays typed."""
    extend_negated: Literal["declared", "always"] = "declared"
    stats: GrowStats = field(default_factory=GrowStats)
    on_node: Callable[[int], None] | None = None

    def counts(self, ids: IdArray) -> npt.NDArray[np.float64]:
        return np.bincount(self.classes[ids], minlength=self.n_classes).astype(np.float64)

    def cost(self, ids: IdArray) -> float:
        return IMPURITY[self.impurity](self.counts(ids))

    def node(self, clause: PathClause, ids: IdArray) -> TreeNode:
        self.stats.nodes += 1
        if self.on_node is not None:
            self.on_node(self.stats.nodes)
        return TreeNode(clause, ids, self.cost(ids))

    def grow(self, root: PathClause, ids: IdArray) -> tuple[TreeNode, list[TreeNode]]:
        """The tree and its leaves in Aleph's rule order."""
        top = self.node(root, np.asarray(ids, dtype=np.int64))
        leaves: list[TreeNode] = [top]
        todo: list[TreeNode] = [top]
        while todo:
            here = todo.pop(0)
            if not self.split(here):
                continue
            assert here.passed is not None and here.failed is not None
            leaves.remove(here)
            leaves[0:0] = [here.passed, here.failed]
            todo[0:0] = [here.failed, here.passed]
        return top, leaves

    def split(self, node: TreeNode) -> bool:
        """Split ``node`` by its best test if that gains at least ``mingain``."""
        if node.cost < self.mingain:
            return False
        if not (node.clause.extensible or self.extend_negated == "always"):
            return False
        best = self.best_test(node)
        if best is None or best[1] < self.mingain:
            return False
        test, gain, covered = best
        node.test, node.gain = test, gain
        uncovered = np.setdiff1d(node.ids, covered, assume_unique=True)
        node.passed = self.node(node.clause.passed(test), covered)
        node.failed = self.node(node.clause.failed(test, self.negated_modes), uncovered)
        self.stats.splits += 1
        return True

    def best_test(self, node: TreeNode) -> tuple[Extension, float, IdArray] | None:
        tests = list(self.refiner.refinements(node.clause))
        if not tests:
            return None
        clauses = [node.clause.passed(t).clause() for t in tests]
        n = len(self.classes)
        coverages = coverage_many_within_limits(
            self.backend, clauses, Coverage(node.ids, n, trusted=True)
        )
        node_counts = self.counts(node.ids)
        total = float(len(node.ids))
        f = IMPURITY[self.impurity]
        best: tuple[Extension, float, IdArray] | None = None
        for test, cov in zip(tests, coverages, strict=True):
            self.stats.refinements_evaluated += 1
            covered = cov.ids
            n_pass = len(covered)
            n_fail = len(node.ids) - n_pass
            if n_pass < max(self.minpos, 1) or n_fail < max(self.minpos, 1):
                continue
            passed = self.counts(covered)
            failed = node_counts - passed
            leaf_cost = (n_pass * f(passed) + n_fail * f(failed)) / total
            gain = node.cost - leaf_cost
            if best is None or gain > best[1]:
                best = (test, gain, covered)
            if leaf_cost <= 0.0:
                break
        return best
