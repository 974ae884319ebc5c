"""Forests of binary trees over Boolean clause tests: the model shared by ``r4f`` and
``static-rf``.

Every internal node tests one clause (a random rule or a prefix of one): an example the clause
covers goes to the ``yes`` child, any other to ``no`` (R4F sec. 2: "fully self-contained
Boolean tests").  A leaf holds the class distribution of the training examples (bootstrap
weights included) that reached it.  The forest's probability of the positive class is the mean
over trees of the leaf distributions (R4F sec. 2, Breiman's random forests); ``predict`` says
positive when that mean is at least 0.5.  Two classes only, as in the paper.

The model is data: the distinct test clauses (Prolog text) with their training counts, and
each tree as flat arrays; scoring asks the backend for the coverage of all tests at once,
through their independent parts (``ilpkit.core.split_coverage``: a part shared by several
tests is asked once; a test with a part over the backend's resource limit covers nothing and
is counted on the backend, as searches count theirs).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.coverage import Coverage
from ilpkit.core.features import coverage_matrix
from ilpkit.core.learner import MODEL_FORMAT_VERSION, ClauseBackend, Rule, parse_clause
from ilpkit.core.split_coverage import SplitCoverage, backend_memo
from ilpkit.prolog.terms import Clause

LEAF = -1
"""``Tree.test`` value of a leaf."""


@dataclass
class Tree:
    """One binary tree as flat arrays; node 0 is the root."""

    test: list[int] = field(default_factory=list)  # index into the forest's tests, or LEAF
    yes: list[int] = field(default_factory=list)  # child for covered examples (-1 at a leaf)
    no: list[int] = field(default_factory=list)  # child for the others (-1 at a leaf)
    p_pos: list[float] = field(default_factory=list)  # positive share of the node's weight
    weight: list[float] = field(default_factory=list)  # training weight reaching the node

    def add(self, p_pos: float, weight: float) -> int:
        """A new leaf; returns its index."""
        self.test.append(LEAF)
        self.yes.append(-1)
        self.no.append(-1)
        self.p_pos.append(p_pos)
        self.weight.append(weight)
        return len(self.test) - 1

    def split(self, node: int, test: int, yes: int, no: int) -> None:
        self.test[node], self.yes[node], self.no[node] = test, yes, no

    def __len__(self) -> int:
        return len(self.test)

    @property
    def leaves(self) -> int:
        return sum(1 for t in self.test if t == LEAF)

    def depth(self, node: int = 0) -> int:
        if self.test[node] == LEAF:
            return 0
        return 1 + max(self.depth(self.yes[node]), self.depth(self.no[node]))

    def route(self, features: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        """The leaf each row of ``features`` (rows x tests) reaches."""
        test = np.asarray(self.test, dtype=np.int64)
        yes = np.asarray(self.yes, dtype=np.int64)
        no = np.asarray(self.no, dtype=np.int64)
        node = np.zeros(features.shape[0], dtype=np.int64)
        rows = np.arange(features.shape[0])
        active = test[node] != LEAF
        while np.any(active):
            r = rows[active]
            at = node[r]
            covered = features[r, test[at]]
            node[r] = np.where(covered, yes[at], no[at])
            active = test[node] != LEAF
        return node

    def to_json(self) -> dict[str, list[Any]]:
        return {
            "test": self.test,
            "yes": self.yes,
            "no": self.no,
            "p_pos": self.p_pos,
            "weight": self.weight,
        }

    @classmethod
    def from_json(cls, data: dict[str, list[Any]]) -> Tree:
        return cls(
            [int(v) for v in data["test"]],
            [int(v) for v in data["yes"]],
            [int(v) for v in data["no"]],
            [float(v) for v in data["p_pos"]],
            [float(v) for v in data["weight"]],
        )


@dataclass(frozen=True)
class ClauseTest:
    """A clause used as a test, with its (unweighted) training counts."""

    clause: Clause
    tp: float
    fp: float
    p: float

    def rule(self, uses: int) -> Rule:
        covered = self.tp + self.fp
        precision = self.tp / covered if covered else 0.0
        recall = self.tp / self.p if self.p else 0.0
        return Rule(self.clause, float(uses), self.tp, self.fp, precision, recall)


class ForestModel:
    """Trees over clause tests; probability = mean of the leaf distributions."""

    def __init__(
        self,
        learner: str,
        tests: list[ClauseTest],
        trees: list[Tree],
        *,
        target: str | None = None,
        clauses_evaluated: int = 0,
        options: dict[str, Any] | None = None,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.learner = learner
        self.tests = tests
        self.trees = trees
        self.target = target
        self.clauses_evaluated = clauses_evaluated
        self.options = dict(options or {})
        self.info = dict(info or {})
        self._last: tuple[tuple[int, int, bytes], npt.NDArray[np.bool_]] | None = None
        """The last feature matrix asked for: ``score``, ``predict`` and ``predict_proba`` on
        the same examples (as an evaluation does) ask the backend once, not three times."""

    # -- scoring -------------------------------------------------------------------------------
    def features(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None
    ) -> npt.NDArray[np.bool_]:
        """Which test covers which example of ``ids`` (default: all), one batch call."""
        n = backend.n_examples
        ids = np.arange(n, dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
        if not self.tests:
            return np.zeros((len(ids), 0), dtype=bool)
        key = (id(backend), int(n), ids.tobytes())
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        order = np.argsort(ids, kind="stable")
        sorted_ids = ids[order]
        unique, inverse = np.unique(sorted_ids, return_inverse=True)
        among = Coverage(unique, n, trusted=True)
        split = SplitCoverage(backend, among, backend_memo(backend))
        answers = split.coverage_many([t.clause for t in self.tests])
        empty = Coverage.empty(n)
        matrix = coverage_matrix([a if a is not None else empty for a in answers], unique)
        out = np.empty((len(ids), len(self.tests)), dtype=bool)
        out[order] = np.asarray(matrix, dtype=bool)[inverse]
        out.setflags(write=False)
        self._last = (key, out)
        return out

    def proba_from_features(self, features: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        """Mean over trees of the positive share of the leaf each row reaches."""
        if not self.trees:
            return np.zeros(features.shape[0], dtype=np.float64)
        total = np.zeros(features.shape[0], dtype=np.float64)
        for tree in self.trees:
            total += np.asarray(tree.p_pos, dtype=np.float64)[tree.route(features)]
        return total / len(self.trees)

    def predict_proba(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        return self.proba_from_features(self.features(backend, ids))

    def score(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        return self.predict_proba(backend, ids)

    def predict(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.bool_]:
        return self.predict_proba(backend, ids) >= 0.5

    # -- explanation ---------------------------------------------------------------------------
    def uses(self) -> Counter[int]:
        """How many internal nodes of the forest test each test index."""
        return Counter(t for tree in self.trees for t in tree.test if t != LEAF)

    def rules(self) -> list[Rule]:
        """The tests, most used first (``weight`` = number of nodes testing it)."""
        uses = self.uses()
        order = sorted(range(len(self.tests)), key=lambda i: (-uses[i], i))
        return [self.tests[i].rule(uses[i]) for i in order]

    def tree_lines(self, index: int = 0, max_depth: int = 4) -> list[str]:
        """Tree ``index`` as indented text (deeper nodes elided)."""
        tree = self.trees[index]
        lines: list[str] = []

        def walk(node: int, depth: int, prefix: str) -> None:
            pad = "  " * depth
            if tree.test[node] == LEAF:
                p_pos, weight = tree.p_pos[node], tree.weight[node]
                lines.append(f"{pad}{prefix}leaf P(pos)={p_pos:.3f} (weight {weight:g})")
                return
            if depth >= max_depth:
                lines.append(f"{pad}{prefix}... (subtree of weight {tree.weight[node]:g})")
                return
            lines.append(f"{pad}{prefix}test {self.tests[tree.test[node]].clause}")
            walk(tree.yes[node], depth + 1, "yes: ")
            walk(tree.no[node], depth + 1, "no:  ")

        walk(0, 0, "")
        return lines

    def explain_table(self, title: str, top: int = 10) -> Any:
        """The most used rules, then the first tree (``ilpkit explain``)."""
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        table = Table(title=title)
        for name in ("#", "nodes", "rule", "TP", "FP", "precision", "recall"):
            table.add_column(name, justify="left" if name == "rule" else "right")
        for i, r in enumerate(self.rules()[:top], 1):
            table.add_row(
                str(i),
                f"{r.weight:g}",
                str(r.clause),
                f"{r.tp:g}",
                f"{r.fp:g}",
                f"{r.precision:.3f}",
                f"{r.recall:.3f}",
            )
        sizes = [len(t) for t in self.trees]
        summary = (
            f"{len(self.trees)} trees, {len(self.tests)} distinct tests, "
            f"{np.mean(sizes) if sizes else 0:.1f} nodes per tree on average"
        )
        info = self.info
        if "rules_generated" in info:
            summary += (
                f"; {info['rules_generated']:,} rules generated "
                f"({info.get('trivial_rules', 0):,} trivial), "
                f"{info.get('rules_per_second', 0.0):.1f} rules per CPU second"
            )
        if info.get("rules_over_limit"):
            summary += (
                f"; {info['rules_over_limit']:,} rules dropped because a part exceeded the "
                "backend's resource limit"
            )
        if info.get("goals_dropped"):
            summary += (
                f"; the seeds' bottom clauses lack {info['goals_dropped']:,} saturation goals "
                "over the backend's resource limit (another engine may keep them and grow "
                "another forest)"
            )
        if "n_plus_s" in info:
            summary += f"; the paper's estimate n + s = {info['n_plus_s']:.0f} rules"
        parts: list[Any] = [table, Text(summary)]
        if self.trees:
            parts.append(Text("tree 1:\n" + "\n".join(self.tree_lines(0))))
        return Group(*parts)

    # -- JSON ----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": MODEL_FORMAT_VERSION,
            "learner": self.learner,
            "target": self.target,
            "clauses_evaluated": self.clauses_evaluated,
            "options": self.options,
            "tests": [[str(t.clause), t.tp, t.fp, t.p] for t in self.tests],
            "trees": [t.to_json() for t in self.trees],
            "rules": [r.to_json() for r in self.rules()],
            "info": self.info,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ForestModel:
        return cls(
            str(data["learner"]),
            [
                ClauseTest(parse_clause(str(c)), float(tp), float(fp), float(p))
                for c, tp, fp, p in data["tests"]
            ],
            [Tree.from_json(t) for t in data["trees"]],
            target=data.get("target"),
            clauses_evaluated=int(data.get("clauses_evaluated", 0)),
            options=data.get("options", {}),
            info=data.get("info", {}),
        )


__all__ = ["LEAF", "ClauseTest", "ForestModel", "Tree"]
