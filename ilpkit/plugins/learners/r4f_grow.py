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
    """A node waiting for rules: its examples and the best split it has seen."""

    tree: int
    node: int
    members: npt.NDArray[np.int64]  # training positions with weight > 0
    weights: FloatArray  # their bootstrap weights
    pos: float
    neg: float
    is_root: bool
    best_key: tuple[Hashable, int] | None = None  # (rule key, prefix index) of the best split
    best_mask: npt.NDArray[np.bool_] | None = None


@dataclass
class Split:
    """A decision the grower took: which node of which tree split on which prefix, when."""

    rule: int  # 1-based number of the rule being processed
    tree: int
    node: int
    key: tuple[Hashable, int] | None  # (rule key, prefix index); None: closed as a leaf


@dataclass(frozen=True)
class _Memberships:
    """Every open leaf's (position, weight) pairs in one array, with the leaf of each."""

    members: npt.NDArray[np.int64]
    which: npt.NDArray[np.int64]  # index into ``open`` of each membership
    pos_w: FloatArray  # weight if the position is positive, else 0
    neg_w: FloatArray
    pos: FloatArray  # per leaf
    neg: FloatArray


@dataclass
class ForestGrower:
    """The state of Algorithm 1 (see the module docstring); feed it rules with :meth:`feed`.

    Per open leaf (``open[j]``), the rule count, best gain and root flag live in arrays aligned
    with ``open``, so that a rule costs a few whole-array operations plus Python work only
    for the leaves that improve, split or close.
    """

    y: npt.NDArray[np.bool_]  # class of each training position (True = positive)
    n_trees: int
    mrc: int
    bootstrap: Callable[[int], FloatArray]  # tree index -> weight of each training position
    trees: list[Tree] = field(default_factory=list)
    open: list[OpenLeaf] = field(default_factory=list)
    log: list[Split] = field(default_factory=list)
    rules_seen: int = 0
    started_at: list[int] = field(default_factory=list)  # rule number that started tree i
    finished_at: dict[int, int] = field(default_factory=dict)  # rule that closed tree i's last
    on_test: Callable[[tuple[Hashable, int], npt.NDArray[np.bool_]], int] | None = None
    """Called with (key, mask) when a node splits; returns the test index to store."""
    _tests: dict[tuple[Hashable, int], int] = field(default_factory=dict)
    _seen: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    _best_gain: FloatArray = field(default_factory=lambda: np.zeros(0, dtype=np.float64))
    _is_root: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    _open_count: dict[int, int] = field(default_factory=dict)
    _flat: _Memberships | None = None  # the open leaves' memberships, concatenated (cached)

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

    def _add_open(self, leaves: list[OpenLeaf]) -> None:
        if not leaves:
            return
        self.open.extend(leaves)
        self._seen = np.concatenate([self._seen, np.zeros(len(leaves), dtype=np.int64)])
        self._best_gain = np.concatenate([self._best_gain, np.full(len(leaves), -np.inf)])
        self._is_root = np.concatenate([self._is_root, [leaf.is_root for leaf in leaves]])
        for leaf in leaves:
            self._open_count[leaf.tree] = self._open_count.get(leaf.tree, 0) + 1
        self._flat = None

    def _start_tree(self) -> int:
        i = len(self.trees)
        self.trees.append(Tree())
        self.started_at.append(self.rules_seen)
        w = np.asarray(self.bootstrap(i), dtype=np.float64)
        members = np.flatnonzero(w > 0).astype(np.int64)
        opened: list[OpenLeaf] = []
        self._node(i, members, w[members], True, opened)
        self._add_open(opened)
        return i

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
        touched: set[int] = set()
        if len(self.trees) < self.n_trees:
            touched.add(self._start_tree())
        if self.open:
            gains, splits = self._evaluate(masks)
            masked = np.where(splits, gains, -np.inf)
            k = np.argmax(masked, axis=0)  # ties: the shortest prefix
            g = masked[k, np.arange(len(self.open))]
            improve = np.isfinite(g) & (g > self._best_gain)  # ties: the earlier rule stays
            for j in np.flatnonzero(improve):
                leaf = self.open[j]
                leaf.best_key = (key, int(k[j]))
                leaf.best_mask = masks[k[j]]
            self._best_gain = np.where(improve, g, self._best_gain)
            self._seen += 1
            has_best = np.isfinite(self._best_gain)
            act = np.where(self._is_root, has_best, self._seen >= self.mrc)
            if np.any(act):
                opened: list[OpenLeaf] = []
                for j in np.flatnonzero(act):
                    leaf = self.open[j]
                    touched.add(leaf.tree)
                    self._open_count[leaf.tree] -= 1
                    if leaf.best_key is None:
                        self.log.append(Split(self.rules_seen, leaf.tree, leaf.node, None))
                    else:
                        self._split(leaf, opened)
                keep = ~act
                self.open = [leaf for leaf, kept in zip(self.open, keep, strict=True) if kept]
                self._seen = self._seen[keep]
                self._best_gain = self._best_gain[keep]
                self._is_root = self._is_root[keep]
                self._flat = None
                self._add_open(opened)
        self._note_finished(touched)

    def close_all(self) -> None:
        """Close every open leaf as a leaf (a rule budget ran out)."""
        touched = set()
        for leaf in self.open:
            self.log.append(Split(self.rules_seen, leaf.tree, leaf.node, None))
            self._open_count[leaf.tree] -= 1
            touched.add(leaf.tree)
        self.open = []
        self._seen = self._seen[:0]
        self._best_gain = self._best_gain[:0]
        self._is_root = self._is_root[:0]
        self._flat = None
        self._note_finished(touched)

    def _note_finished(self, touched: set[int]) -> None:
        for i in touched:
            if self._open_count.get(i, 0) == 0 and i not in self.finished_at:
                self.finished_at[i] = self.rules_seen

    def _evaluate(self, masks: npt.NDArray[np.bool_]) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
        """Gains and "splits" flags, prefixes x open leaves, in one vectorised pass."""
        leaves = self.open
        count = len(leaves)
        if self._flat is None:
            sizes = [len(leaf.members) for leaf in leaves]
            members = np.concatenate([leaf.members for leaf in leaves])
            which = np.repeat(np.arange(count), sizes)
            positive = self.y[members]
            weights = np.concatenate([leaf.weights for leaf in leaves])
            self._flat = _Memberships(
                members,
                which,
                np.where(positive, weights, 0.0),
                np.where(positive, 0.0, weights),
                np.array([leaf.pos for leaf in leaves]),
                np.array([leaf.neg for leaf in leaves]),
            )
        flat = self._flat
        pos, neg = flat.pos, flat.neg
        covered = masks[:, flat.members]  # prefixes x memberships
        yes_pos: FloatArray = np.stack(
            [np.bincount(flat.which, flat.pos_w * c, minlength=count) for c in covered]
        ).astype(np.float64)
        yes_neg: FloatArray = np.stack(
            [np.bincount(flat.which, flat.neg_w * c, minlength=count) for c in covered]
        ).astype(np.float64)
        yes = yes_pos + yes_neg
        splits = (yes > 0) & (yes < (pos + neg)[None, :])
        gains = information_gain(pos[None, :], neg[None, :], yes_pos, yes_neg)
        return gains, splits


__all__ = ["ForestGrower", "OpenLeaf", "Split", "entropy", "information_gain"]
