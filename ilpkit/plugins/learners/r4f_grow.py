"""R4F's Algorithm 1: every tree of the forest grown at once from one stream of rules.

The grower sees each random rule once, as the coverage masks of its prefixes on the training
examples (one row per prefix ``h :- l1..lk``).  Per rule (Anderson and Pfahringer, Alg. 1):

1. while fewer than ``n_trees`` roots exist, one new root starts, on a bootstrap sample of the
   training examples (bagged roots), and sees this rule first (staggered starts);
2. every open leaf computes the information gain of each prefix on its own (weighted)
   examples; among the prefixes that *split* it (both sides non-empty) the best one (ties: the
   shortest prefix) replaces the leaf's remembered best if its gain is strictly higher (ties:
   the earlier rule stays);
3. a root splits on the first rule that has a splitting prefix (roots ignore MRC); any other
   leaf counts the rules it has seen and after ``mrc`` of them splits on its remembered best,
   or, if no rule split it, closes as a leaf with its class distribution.

Children of a split start with the next rule.  A node whose examples are all of one class is a
leaf at once.  The evaluation of all open leaves on a rule is one vectorised pass
(``np.bincount`` over the concatenated leaf memberships), never a Python loop per example.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ilpkit.plugins.learners.forest import Tree

FloatArray = npt.NDArray[np.float64]


def entropy(pos: FloatArray, neg: FloatArray) -> FloatArray:
    """Binary entropy (bits) of weighted class counts, elementwise; 0 for an empty node."""
    pos = np.asarray(pos, dtype=np.float64)
    neg = np.asarray(neg, dtype=np.float64)
    total = pos + neg
    out = np.zeros(np.broadcast(pos, neg).shape, dtype=np.float64)
    for part in (pos, neg):
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(total > 0, part / np.where(total > 0, total, 1.0), 0.0)
            out -= np.where(q > 0, q * np.log2(np.where(q > 0, q, 1.0)), 0.0)
    return out


def information_gain(
    pos: FloatArray, neg: FloatArray, yes_pos: FloatArray, yes_neg: FloatArray
) -> FloatArray:
    """IG = H(node) - |yes|/|node| H(yes) - |no|/|node| H(no) (Quinlan), elementwise."""
    pos = np.asarray(pos, dtype=np.float64)
    neg = np.asarray(neg, dtype=np.float64)
    yes_pos = np.asarray(yes_pos, dtype=np.float64)
    yes_neg = np.asarray(yes_neg, dtype=np.float64)
    total = pos + neg
    yes = yes_pos + yes_neg
    no_pos, no_neg = pos - yes_pos, neg - yes_neg
    safe = np.where(total > 0, total, 1.0)
    return (
        entropy(pos, neg)
        - yes / safe * entropy(yes_pos, yes_neg)
        - (total - yes) / safe * entropy(no_pos, no_neg)
    )


@dataclass
class OpenLeaf:
    """A node waiting for rules: its examples and what it has seen so far."""

    tree: int
    node: int
    members: npt.NDArray[np.int64]  # training positions with weight > 0
    weights: FloatArray  # their bootstrap weights
    pos: float
    neg: float
    is_root: bool
    seen: int = 0  # rules seen (MRC count)
    best_gain: float = -1.0
    best_key: tuple[Hashable, int] | None = None  # (rule key, prefix index) of the best split
    best_mask: npt.NDArray[np.bool_] | None = None


@dataclass
class Split:
    """A decision the grower took: which node of which tree split on which prefix, when."""

    rule: int  # 1-based number of the rule being processed
    tree: int
    node: int
    key: tuple[Hashable, int] | None  # (rule key, prefix index); None: closed as a leaf


@dataclass
class ForestGrower:
    """The state of Algorithm 1 (see the module docstring); feed it rules with :meth:`feed`."""

    y: npt.NDArray[np.bool_]  # class of each training position (True = positive)
    n_trees: int
    mrc: int
    bootstrap: Callable[[int], FloatArray]  # tree index -> weight of each training position
    trees: list[Tree] = field(default_factory=list)
    open: list[OpenLeaf] = field(default_factory=list)
    log: list[Split] = field(default_factory=list)
    rules_seen: int = 0
    started_at: list[int] = field(default_factory=list)  # rule number that started tree i
    finished_at: dict[int, int] = field(default_factory=dict)  # rule number that closed tree i
    on_test: Callable[[tuple[Hashable, int], npt.NDArray[np.bool_]], int] | None = None
    """Called with (key, mask) when a node splits; returns the test index to store."""
    _tests: dict[tuple[Hashable, int], int] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return len(self.trees) >= self.n_trees and not self.open

    def test_index(self, key: tuple[Hashable, int], mask: npt.NDArray[np.bool_]) -> int:
        if self.on_test is not None:
            return self.on_test(key, mask)
        if key not in self._tests:
            self._tests[key] = len(self._tests)
        return self._tests[key]

    # -- nodes ---------------------------------------------------------------------------------
    def _node(
        self,
        tree: int,
        members: npt.NDArray[np.int64],
        weights: FloatArray,
        is_root: bool,
        opened: list[OpenLeaf],
    ) -> int:
        """Add a node to ``tree``; open it unless it is pure."""
        y = self.y[members]
        pos = float(weights[y].sum())
        neg = float(weights[~y].sum())
        total = pos + neg
        node = self.trees[tree].add(pos / total if total > 0 else 0.0, total)
        if pos > 0 and neg > 0:
            opened.append(OpenLeaf(tree, node, members, weights, pos, neg, is_root))
        return node

    def _start_tree(self, opened: list[OpenLeaf]) -> None:
        i = len(self.trees)
        self.trees.append(Tree())
        self.started_at.append(self.rules_seen)
        w = np.asarray(self.bootstrap(i), dtype=np.float64)
        members = np.flatnonzero(w > 0).astype(np.int64)
        self._node(i, members, w[members], True, opened)

    def _split(self, leaf: OpenLeaf, opened: list[OpenLeaf]) -> None:
        assert leaf.best_mask is not None and leaf.best_key is not None
        covered = leaf.best_mask[leaf.members]
        tree = self.trees[leaf.tree]
        yes = self._node(leaf.tree, leaf.members[covered], leaf.weights[covered], False, opened)
        no = self._node(leaf.tree, leaf.members[~covered], leaf.weights[~covered], False, opened)
        tree.split(leaf.node, self.test_index(leaf.best_key, leaf.best_mask), yes, no)
        self.log.append(Split(self.rules_seen, leaf.tree, leaf.node, leaf.best_key))

    # -- one rule ------------------------------------------------------------------------------
    def feed(self, key: Hashable, masks: npt.NDArray[np.bool_]) -> None:
        """Process one rule: ``masks[k]`` = which training positions prefix k+1 covers."""
        masks = np.atleast_2d(np.asarray(masks, dtype=bool))
        self.rules_seen += 1
        opened: list[OpenLeaf] = []
        if len(self.trees) < self.n_trees:
            self._start_tree(opened)
            self.open.extend(opened)
            opened = []
        if self.open:
            gains, splits = self._evaluate(masks)
            still_open: list[OpenLeaf] = []
            for j, leaf in enumerate(self.open):
                leaf.seen += 1
                ok = splits[:, j]
                if np.any(ok):
                    k = int(np.argmax(np.where(ok, gains[:, j], -np.inf)))
                    if gains[k, j] > leaf.best_gain:
                        leaf.best_gain = float(gains[k, j])
                        leaf.best_key = (key, k)
                        leaf.best_mask = masks[k]
                if leaf.is_root and leaf.best_key is not None:
                    self._split(leaf, opened)
                elif not leaf.is_root and leaf.seen >= self.mrc:
                    if leaf.best_key is None:
                        self.log.append(Split(self.rules_seen, leaf.tree, leaf.node, None))
                    else:
                        self._split(leaf, opened)
                else:
                    still_open.append(leaf)
            self.open = still_open
        self.open.extend(opened)
        self._note_finished()

    def close_all(self) -> None:
        """Close every open leaf as a leaf (a rule budget ran out)."""
        for leaf in self.open:
            self.log.append(Split(self.rules_seen, leaf.tree, leaf.node, None))
        self.open = []
        self._note_finished()

    def _note_finished(self) -> None:
        growing = {leaf.tree for leaf in self.open}
        for i in range(len(self.trees)):
            if i not in growing and i not in self.finished_at:
                self.finished_at[i] = self.rules_seen

    def _evaluate(self, masks: npt.NDArray[np.bool_]) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
        """Gains and "splits" flags, prefixes x open leaves, in one vectorised pass."""
        leaves = self.open
        sizes = [len(leaf.members) for leaf in leaves]
        members = np.concatenate([leaf.members for leaf in leaves])
        weights = np.concatenate([leaf.weights for leaf in leaves])
        which = np.repeat(np.arange(len(leaves)), sizes)
        positive = self.y[members]
        pos = np.array([leaf.pos for leaf in leaves])
        neg = np.array([leaf.neg for leaf in leaves])
        count = len(leaves)
        covered = masks[:, members]  # prefixes x memberships
        yes_pos: FloatArray = np.stack(
            [np.bincount(which, weights * (c & positive), minlength=count) for c in covered]
        ).astype(np.float64)
        yes_neg: FloatArray = np.stack(
            [np.bincount(which, weights * (c & ~positive), minlength=count) for c in covered]
        ).astype(np.float64)
        yes = yes_pos + yes_neg
        splits = (yes > 0) & (yes < (pos + neg)[None, :])
        gains = information_gain(pos[None, :], neg[None, :], yes_pos, yes_neg)
        return gains, splits


__all__ = ["ForestGrower", "OpenLeaf", "Split", "entropy", "information_gain"]
