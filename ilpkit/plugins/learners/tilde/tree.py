"""First-order logical decision trees: nodes, routing of examples, JSON, rendering.

An internal node tests a conjunction added to its *query* (the tests of the left branches on
its path): examples for which ``head :- query, test`` succeeds go left, the others right.  The
variables a test introduces are visible only in its left subtree, since the right subtree's
query does not contain the test.  Reading the leaves left to right gives an ordered decision
list: an example belongs to the first leaf whose query it satisfies.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ilpkit.core.coverage import Coverage
from ilpkit.core.learner import parse_clause
from ilpkit.core.limits import coverage_within_limits
from ilpkit.prolog.terms import Clause, Term, to_prolog

IdArray = npt.NDArray[np.int64]


class CoverageBackend(Protocol):
    @property
    def n_examples(self) -> int: ...

    def coverage(self, clause: Clause, among: Coverage | None = None) -> Coverage: ...


@dataclass
class Node:
    """A leaf (``test`` empty) or an internal node with both children."""

    pos: float
    """Weighted count of the positive (labeled) class among the node's training examples."""
    neg: float
    """Weighted count of the other class (negatives, or unlabeled examples)."""
    test: tuple[Term, ...] = ()
    left: Node | None = None
    right: Node | None = None
    score: float = 0.0
    """The split score of ``test`` (0 at leaves)."""

    @property
    def is_leaf(self) -> bool:
        return self.left is None

    @property
    def total(self) -> float:
        return self.pos + self.neg

    def proportion(self) -> float:
        """The positive proportion of the node's training examples (0.5 when empty)."""
        return self.pos / self.total if self.total > 0 else 0.5

    def leaves(self) -> Iterator[Node]:
        if self.is_leaf:
            yield self
            return
        assert self.left is not None and self.right is not None
        yield from self.left.leaves()
        yield from self.right.leaves()

    def nodes(self) -> Iterator[Node]:
        yield self
        if not self.is_leaf:
            assert self.left is not None and self.right is not None
            yield from self.left.nodes()
            yield from self.right.nodes()

    def depth(self) -> int:
        if self.is_leaf:
            return 0
        assert self.left is not None and self.right is not None
        return 1 + max(self.left.depth(), self.right.depth())


@dataclass(frozen=True)
class Tree:
    """A tree and the head its queries share."""

    head: Term
    root: Node

    # -- routing --------------------------------------------------------------------------------
    def route(self, backend: CoverageBackend, ids: IdArray) -> Iterator[tuple[Node, IdArray]]:
        """Every node with the examples of ``ids`` that reach it (internal nodes too)."""
        n = backend.n_examples
        stack: list[tuple[Node, tuple[Term, ...], IdArray]] = [
            (self.root, (), np.asarray(ids, dtype=np.int64))
        ]
        while stack:
            node, body, here = stack.pop()
            yield node, here
            if node.is_leaf:
                continue
            assert node.left is not None and node.right is not None
            left_body = body + node.test
            if len(here):
                cov = coverage_within_limits(
                    backend, Clause(self.head, left_body), Coverage(here, n)
                )
                left_ids = cov.ids
                right_ids = np.setdiff1d(here, left_ids, assume_unique=True)
            else:
                left_ids = right_ids = here
            stack.append((node.right, body, right_ids))
            stack.append((node.left, left_body, left_ids))

    def leaf_proportions(self, backend: CoverageBackend, ids: IdArray) -> npt.NDArray[np.float64]:
        """For each example of ``ids``, the positive proportion of the leaf it reaches."""
        ids = np.asarray(ids, dtype=np.int64)
        out = np.zeros(len(ids), dtype=np.float64)
        position = {int(e): k for k, e in enumerate(ids)}
        for node, here in self.route(backend, ids):
            if node.is_leaf:
                out[[position[int(e)] for e in here]] = node.proportion()
        return out

    def decision_list(self) -> list[tuple[Clause, Node]]:
        """Each leaf with its query, in the order an example tries them."""
        out: list[tuple[Clause, Node]] = []

        def walk(node: Node, body: tuple[Term, ...]) -> None:
            if node.is_leaf:
                out.append((Clause(self.head, body), node))
                return
            assert node.left is not None and node.right is not None
            walk(node.left, body + node.test)
            walk(node.right, body)

        walk(self.root, ())
        return out

    # -- JSON -----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        def node_json(node: Node, body: tuple[Term, ...]) -> dict[str, Any]:
            data: dict[str, Any] = {"pos": node.pos, "neg": node.neg}
            if node.is_leaf:
                return data
            assert node.left is not None and node.right is not None
            data["clause"] = str(Clause(self.head, body + node.test))
            data["test_length"] = len(node.test)
            data["score"] = node.score
            data["left"] = node_json(node.left, body + node.test)
            data["right"] = node_json(node.right, body)
            return data

        return {"head": to_prolog(self.head), "root": node_json(self.root, ())}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tree:
        head = parse_clause(str(data["head"])).head

        def node_of(d: dict[str, Any]) -> Node:
            node = Node(float(d["pos"]), float(d["neg"]))
            if "clause" in d:
                clause = parse_clause(str(d["clause"]))
                k = int(d["test_length"])
                node.test = clause.body[len(clause.body) - k :]
                node.score = float(d.get("score", 0.0))
                node.left = node_of(d["left"])
                node.right = node_of(d["right"])
            return node

        root = node_of(data["root"])
        # The parsed clauses name their variables as written; re-read the head from the root's
        # clause so that the head's variables are the ones the tests use.
        if "clause" in data["root"]:
            head = parse_clause(str(data["root"]["clause"])).head
        return cls(head, root)

    # -- rendering ------------------------------------------------------------------------------
    def render(self, c: float = 1.0) -> str:
        """The tree as nested if/then/else, leaves with P(positive) and training counts."""
        lines: list[str] = [f"{to_prolog(self.head)}:"]

        def leaf_text(node: Node) -> str:
            p = min(1.0, node.proportion() / c)
            return f"P(pos) = {p:.3f}   [{node.pos:g} pos / {node.neg:g} other]"

        def walk(node: Node, indent: str) -> None:
            if node.is_leaf:
                lines.append(f"{indent}{leaf_text(node)}")
                return
            assert node.left is not None and node.right is not None
            test = ", ".join(to_prolog(t) for t in node.test)
            lines.append(f"{indent}if {test} then")
            walk(node.left, indent + "    ")
            lines.append(f"{indent}else")
            walk(node.right, indent + "    ")

        walk(self.root, "  ")
        return "\n".join(lines)

    def render_prolog(self, c: float = 1.0) -> str:
        """The ordered decision list as Prolog clauses with a cut (first matching leaf wins)."""
        lines = []
        for clause, node in self.decision_list():
            head = clause.head
            p = min(1.0, node.proportion() / c)
            text = to_prolog(head)
            body = ", ".join(to_prolog(t) for t in clause.body)
            guard = f"{body}, !" if body else "!"
            lines.append(f"prob({text}, {p:.6g}) :- {guard}.")
        return "\n".join(lines)
