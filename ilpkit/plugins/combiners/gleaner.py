"""``gleaner``: Gleaner's stage 2 over any pool: "at least L of K" theories per member.

Each member of the pool (a Gleaner recall bin, an ensemble theory, ...) with its K clauses
gives the theories "at least L of the K match", L = 1..K, measured on the tune examples (the
training examples without a tune set).  For each target recall bin the theory with the best
tune precision is chosen (``combine="bins"``), or every theory on the upper convex hull of
the tune recall-precision points (``combine="hull"``); the score of an example is how many
clauses of the member with the largest tune AURPC match it, and ``predict`` uses the chosen
theory with the best tune F1 (or accuracy, or the tune recall closest to a target: option
``predict``).  The functions are Gleaner's own (:mod:`ilpkit.plugins.learners.gleaner`): on
Gleaner's bins this combiner is Gleaner.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.combiner import ClausePool
from ilpkit.core.degenerate import GLEANER_COVERS_ALL
from ilpkit.core.plugins import PluginSpec
from ilpkit.plugins.learners.gleaner import Choice, PredictRule, stage2


class GleanerCombinerOptions(BaseModel):
    """Gleaner's stage-2 choices."""

    model_config = ConfigDict(extra="forbid")

    bins: int = Field(default=20, ge=1, description="Target recall bins B (width 1/B).")
    combine: Literal["bins", "hull"] = Field(
        default="bins",
        description="Best tune precision per target recall bin, or the upper convex hull.",
    )
    predict: PredictRule = Field(
        default="f1",
        description="Which chosen theory predict uses: the best tune F1, the best tune "
        "accuracy, or the tune recall closest to predict_recall.",
    )
    predict_recall: float = Field(
        default=0.5, ge=0.0, le=1.0, description="The target tune recall of predict=recall."
    )


def member_counts(
    matrix: npt.NDArray[np.bool_], members: dict[int, list[int]]
) -> dict[int, npt.NDArray[np.int64]]:
    """For each member, how many of its clauses match each row."""
    return {
        g: np.asarray(matrix[:, cols].sum(axis=1), dtype=np.int64).reshape(matrix.shape[0])
        for g, cols in members.items()
    }


class GleanerCombination:
    def __init__(
        self,
        members: dict[int, list[int]],
        choices: list[Choice],
        ranking: int | None,
        predict_choice: Choice | None,
        degenerate: list[str] | None = None,
    ) -> None:
        self.members = members
        self.choices = choices
        self.ranking = ranking
        self.predict_choice = predict_choice
        self.degenerate = list(degenerate or [])
        """Degenerate-result lines for the pool model's info (``fit_pool`` records them)."""

    def score(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        if self.ranking is None:
            return np.zeros(matrix.shape[0])
        counts = member_counts(matrix, {0: self.members[self.ranking]})[0]
        return counts.astype(np.float64)

    def predict(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        c = self.predict_choice
        if c is None:
            return np.zeros(matrix.shape[0], dtype=bool)
        return np.asarray(member_counts(matrix, {0: self.members[c.bin]})[0] >= c.threshold)

    def pr_counts(
        self, matrix: npt.NDArray[np.bool_], labels: npt.NDArray[np.bool_]
    ) -> list[tuple[float, float]]:
        """(TP, FP) of each chosen theory on these rows: the recall-precision points."""
        counts = member_counts(matrix, self.members)
        out = []
        for c in self.choices:
            said = counts[c.bin] >= c.threshold
            out.append((float(np.sum(said & labels)), float(np.sum(said & ~labels))))
        return out

    def clause_weights(self) -> npt.NDArray[np.float64]:
        k = sum(len(cols) for cols in self.members.values())
        out = np.zeros(k, dtype=np.float64)
        for g, cols in self.members.items():
            out[cols] = float(g)  # the member (bin) each clause belongs to, as Gleaner shows
        return out

    def to_json(self) -> dict[str, Any]:
        def choice(c: Choice | None) -> list[float] | None:
            return None if c is None else [c.bin, c.threshold, c.tp, c.fp, c.p]

        return {
            "members": {str(g): cols for g, cols in self.members.items()},
            "choices": [choice(c) for c in self.choices],
            "ranking": self.ranking,
            "predict": choice(self.predict_choice),
        }


def _choice(v: list[float] | None) -> Choice | None:
    if v is None:
        return None
    return Choice(int(v[0]), int(v[1]), float(v[2]), float(v[3]), float(v[4]))


class GleanerCombiner:
    name = "gleaner"

    def __init__(self, options: GleanerCombinerOptions | None = None) -> None:
        self.options = options if options is not None else GleanerCombinerOptions()

    def fit(self, pool: ClausePool, *, seed: int = 0) -> GleanerCombination:
        matrix, positive, _ = pool.held_out()
        members = {
            int(g): [int(j) for j in np.flatnonzero(pool.groups == g)]
            for g in sorted(set(pool.groups.tolist()))
        }
        o = self.options
        result = stage2(
            member_counts(matrix, members),
            positive,
            bins=o.bins,
            combine=o.combine,
            predict=o.predict,
            predict_recall=o.predict_recall,
        )
        return GleanerCombination(
            members,
            result.choices,
            result.ranking_bin,
            result.predict_choice,
            [GLEANER_COVERS_ALL] if result.predicts_all else [],
        )

    def combination_from_json(self, data: dict[str, Any]) -> GleanerCombination:
        choices = [_choice(v) for v in data["choices"]]
        return GleanerCombination(
            {int(g): [int(j) for j in cols] for g, cols in data["members"].items()},
            [c for c in choices if c is not None],
            None if data["ranking"] is None else int(data["ranking"]),
            _choice(data["predict"]),
        )


SPEC = PluginSpec(
    kind="combiner",
    name="gleaner",
    factory=GleanerCombiner,
    options=GleanerCombinerOptions,
    doc="Gleaner's stage 2: 'at least L of K' theories per member, chosen per recall bin.",
)
