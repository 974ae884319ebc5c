"""Noisy-OR parameters on the literal network, from weighted counts (dissertation 5.1.2).

A clause is the Boolean vector x over the network's nodes (x_N = 1: literal N is in it). For a
node N with non-head input variables v_1..v_M, S_j(N) being the parents that output v_j::

    P(N = t | parents) = prod_j (1 - prod_{R in S_j(N), x_R = 1} P(N = f | R = t))

with P(N = f | R = f) = 1, so a node none of whose parents supplies some input has
probability 0 of being true: every illegal clause has probability 0. A node with no non-head
input (a root) has a plain Bernoulli parameter P(N = t).

Estimation, "ratios of weighted counts" (5.1.2): each training clause c with weight w_c adds
w_c to the count of every node it contains and of every arc R -> N whose two ends it contains.
Then, with pseudo-count a and prior p0 (options; a = 0 gives the raw ratios)::

    P(N = t | R = t) = (w(R = t, N = t) + a p0) / (w(R = t) + a)
    P(N = t)         = (w(N = t) + a p0) / (w + a)            (roots; w = total weight)

The first ratio is the noisy-OR link probability estimated as if R were N's only active
parent -- the usual closed-form approximation; the exact maximum-likelihood fit of a noisy-OR
needs EM, which the dissertation does not use. Counts are additive, so clauses can be added
(weight > 0) and removed (the same weight, negated) as the set of good clauses changes.

The probability of a clause is the product of P(N = x_N | parents) over all nodes. Over a
bottom clause of n literals that joint probability is astronomically small, which would make
EXPLOIT vanish beside 1 - EXPLORED in W; ilpkit therefore uses its geometric mean per node,
P^(1/n), by default (``normalise="geometric"``; ``"joint"`` gives the raw product). Both keep
illegal clauses at exactly 0 and order the clauses of one bottom clause alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from ilpkit.core.distinct import distinct

if TYPE_CHECKING:
    import networkx as nx

FloatArray = npt.NDArray[np.float64]
Normalise = Literal["geometric", "joint"]

_P_MAX = 1.0 - 1e-12
"""Link and root probabilities are kept below 1 so that log(1 - p) stays finite."""


class NoisyOrNetwork:
    """One network's weighted counts over a literal graph, and clause probabilities."""

    def __init__(
        self,
        graph: nx.DiGraph,
        n: int,
        pseudo_count: float = 1.0,
        prior: float = 0.5,
        normalise: Normalise = "geometric",
    ) -> None:
        self.n = n
        self.pseudo_count = pseudo_count
        self.prior = prior
        self.normalise = normalise
        # one "argument group" per (node, needed variable); entries: (parent, group) pairs
        groups: list[int] = []  # node of each group
        entry_src: list[int] = []
        entry_group: list[int] = []
        roots = np.zeros(n, dtype=bool)
        for k in range(n):
            needs = graph.nodes[k]["needs"] if k in graph else ()
            if not needs:
                roots[k] = graph.nodes[k]["group"] >= 0
                continue
            for v in needs:
                g = len(groups)
                groups.append(k)
                for j in graph.predecessors(k):
                    if v in graph.edges[j, k]["vars"]:
                        entry_src.append(j)
                        entry_group.append(g)
        self.roots = roots
        self.group_node = np.asarray(groups, dtype=np.int64)
        self.entry_src = np.asarray(entry_src, dtype=np.int64)
        self.entry_group = np.asarray(entry_group, dtype=np.int64)
        self.entry_dst = self.group_node[self.entry_group]
        # Entries are in group order and groups in node order: per-group and per-node sums are
        # np.add.reduceat over contiguous runs (no dense matrix products; BLAS threads on a
        # shared machine made those slow).
        self.full_groups = distinct(self.entry_group)
        self.group_starts = np.searchsorted(self.entry_group, self.full_groups)
        self.group_nodes = distinct(self.group_node)
        self.node_starts = np.searchsorted(self.group_node, self.group_nodes)
        self.node_w = np.zeros(n)
        self.both_w = np.zeros(len(entry_src))
        self.total_w = 0.0
        self._log_q: FloatArray | None = None  # cached log P(N=f | R=t) per entry

    # -- counts ------------------------------------------------------------------------------
    def add(self, clauses: FloatArray, weights: Sequence[float] | FloatArray) -> None:
        """Add clauses (rows of 0/1 over nodes) with weights (negative weights remove)."""
        x = np.atleast_2d(np.asarray(clauses, dtype=np.float64))
        w = np.asarray(weights, dtype=np.float64).reshape(-1)
        self.node_w += w @ x
        self.both_w += w @ (x[:, self.entry_src] * x[:, self.entry_dst])
        self.total_w += float(w.sum())
        self._log_q = None

    # -- parameters --------------------------------------------------------------------------
    def link_probabilities(self) -> FloatArray:
        """P(N = t | R = t) for each (parent R, argument group of N) entry."""
        a, p0 = self.pseudo_count, self.prior
        parent_w = np.maximum(self.node_w[self.entry_src], 0.0)
        both = np.clip(self.both_w, 0.0, parent_w)
        denominator = parent_w + a
        p = np.divide(both + a * p0, denominator, out=np.zeros_like(both), where=denominator > 0)
        return np.clip(p, 0.0, _P_MAX)

    def root_probabilities(self) -> FloatArray:
        """P(N = t) of every node (meaningful for roots only)."""
        a, p0 = self.pseudo_count, self.prior
        total = max(self.total_w, 0.0)
        counts = np.clip(self.node_w, 0.0, total)
        if total + a <= 0:
            return np.zeros(self.n)
        return np.clip((counts + a * p0) / (total + a), 0.0, _P_MAX)

    def _log_q_entries(self) -> FloatArray:
        if self._log_q is None:
            self._log_q = np.log1p(-self.link_probabilities())
        return self._log_q

    # -- probabilities -----------------------------------------------------------------------
    def node_true(self, clauses: FloatArray) -> FloatArray:
        """P(N = t | parents as in the clause), clauses x nodes."""
        x = np.atleast_2d(np.asarray(clauses, dtype=np.float64))
        m = x.shape[0]
        # per argument group: sum of log P(N = f | R = t) over the parents R in the clause
        summed = np.zeros((m, len(self.group_node)))
        if len(self.entry_src):
            contrib = x[:, self.entry_src] * self._log_q_entries()
            summed[:, self.full_groups] = np.add.reduceat(contrib, self.group_starts, axis=1)
        arg_true = -np.expm1(summed)  # 1 - prod P(N = f | R); 0 with no active parent
        out = np.ones((m, self.n))
        if len(self.group_node):
            with np.errstate(divide="ignore"):
                log_arg = np.log(arg_true)
            per_node = np.add.reduceat(log_arg, self.node_starts, axis=1)
            out[:, self.group_nodes] = np.exp(per_node)  # exp(-inf) = 0: impossible
        roots = self.root_probabilities()
        out[:, self.roots] = roots[self.roots]
        return out

    def probability(self, clauses: FloatArray) -> FloatArray:
        """The clauses' probabilities: the joint, or its geometric mean per node."""
        x = np.atleast_2d(np.asarray(clauses, dtype=np.float64))
        p_true = self.node_true(x)
        p_own = np.where(x > 0, p_true, 1.0 - p_true)
        with np.errstate(divide="ignore"):
            log_joint = np.log(p_own).sum(axis=1)
        if self.normalise == "geometric" and self.n > 0:
            log_joint = log_joint / self.n
        out: FloatArray = np.exp(log_joint)
        return out


def clause_matrix(bodies: Sequence[Sequence[int]], n: int) -> FloatArray:
    """Rows of 0/1: row i has 1 at the literals of ``bodies[i]``."""
    x = np.zeros((len(bodies), n))
    for i, body in enumerate(bodies):
        x[i, list(body)] = 1.0
    return x
