"""``forest``: a random forest over the pool's clauses as Boolean features (static-rf's).

scikit-learn's ``RandomForestClassifier`` (bootstrap, ``max_features`` candidates per split,
Gini) learns on the training coverage matrix, and its trees are copied into ilpkit's own
trees (``static-rf``'s :func:`~ilpkit.plugins.learners.static_rf.trees_from_sklearn`), so the
combination is JSON data; the score is the forest's probability of the positive class.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.combiner import ClausePool
from ilpkit.core.plugins import PluginSpec
from ilpkit.plugins.learners.forest import Tree


class ForestCombinerOptions(BaseModel):
    """The forest's size and split sampling (static-rf's defaults)."""

    model_config = ConfigDict(extra="forbid")

    trees: int = Field(default=500, ge=1, description="Trees of the random forest.")
    max_features: str | float = Field(
        default="sqrt",
        description="Features tried per split (scikit-learn's max_features: sqrt, log2, or a "
        "fraction).",
    )


class ForestCombination:
    def __init__(self, trees: list[Tree], features: list[int], n_clauses: int) -> None:
        self.trees = trees
        self.features = features
        self.n_clauses = n_clauses

    def predict_proba(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        if not self.trees:
            return np.zeros(matrix.shape[0], dtype=np.float64)
        tests = matrix[:, self.features] if self.features else np.zeros((matrix.shape[0], 0), bool)
        total = np.zeros(matrix.shape[0], dtype=np.float64)
        for tree in self.trees:
            total += np.asarray(tree.p_pos, dtype=np.float64)[tree.route(tests)]
        return total / len(self.trees)

    def score(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        return self.predict_proba(matrix)

    def predict(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        return np.asarray(self.predict_proba(matrix) >= 0.5, dtype=bool)

    def clause_weights(self) -> npt.NDArray[np.float64]:
        """How many tree nodes test each clause."""
        out = np.zeros(self.n_clauses, dtype=np.float64)
        for tree in self.trees:
            for t in tree.test:
                if t >= 0:
                    out[self.features[t]] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "features": self.features,
            "n_clauses": self.n_clauses,
            "trees": [t.to_json() for t in self.trees],
        }


class ForestCombiner:
    name = "forest"

    def __init__(self, options: ForestCombinerOptions | None = None) -> None:
        self.options = options if options is not None else ForestCombinerOptions()

    def fit(self, pool: ClausePool, *, seed: int = 0) -> ForestCombination:
        from sklearn.ensemble import RandomForestClassifier

        from ilpkit.plugins.learners.static_rf import trees_from_sklearn

        k = len(pool.clauses)
        y = pool.fit_labels
        if k == 0 or len(np.unique(y)) < 2:  # nothing to split on: the training positive rate
            leaf = Tree()
            leaf.add(float(y.mean()) if len(y) else 0.0, float(len(y)))
            return ForestCombination([leaf], [], k)
        forest = RandomForestClassifier(
            n_estimators=self.options.trees,
            max_features=self.options.max_features,
            random_state=random.Random(repr(("combiner-forest", seed))).getrandbits(31),
            n_jobs=1,
        )
        forest.fit(pool.fit_matrix, y)
        trees, features = trees_from_sklearn(forest, list(forest.classes_).index(True))
        return ForestCombination(trees, features, k)

    def combination_from_json(self, data: dict[str, Any]) -> ForestCombination:
        return ForestCombination(
            [Tree.from_json(t) for t in data["trees"]],
            [int(f) for f in data["features"]],
            int(data["n_clauses"]),
        )


SPEC = PluginSpec(
    kind="combiner",
    name="forest",
    factory=ForestCombiner,
    options=ForestCombinerOptions,
    doc="A random forest over the clauses as Boolean features (static-rf's baseline).",
)
