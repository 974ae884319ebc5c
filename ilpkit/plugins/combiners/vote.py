"""``vote``: members vote; the score is the number of votes (the Aleph ensembles' K of N).

With ``by="group"`` each member of the pool (an ensemble theory, a Gleaner bin) votes
positive when any of its clauses covers the example, as the random-seeds ensemble's theories
do; with ``by="clause"`` every clause is a voter.  ``rule`` sets the decision: ``any`` (at
least one vote), ``majority`` (at least ceil(N / 2) of the N voters: the ensemble's own
decision) or ``at_least`` ``k`` votes.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ilpkit.core.combiner import ClausePool
from ilpkit.core.plugins import PluginSpec
from ilpkit.errors import ConfigError


class VoteOptions(BaseModel):
    """How members vote and how many votes say positive."""

    model_config = ConfigDict(extra="forbid")

    by: Literal["group", "clause"] = Field(
        default="group",
        description="Voters: each member of the pool (group: a theory, a bin) or each clause.",
    )
    rule: Literal["any", "majority", "at_least"] = Field(
        default="majority", description="Decision: any vote, a majority, or at least k votes."
    )
    k: int | None = Field(default=None, ge=1, description="Votes needed with rule at_least.")

    @model_validator(mode="after")
    def _k_with_at_least(self) -> VoteOptions:
        if (self.rule == "at_least") != (self.k is not None):
            raise ValueError("k is set exactly when rule is at_least")
        return self


def votes(matrix: npt.NDArray[np.bool_], voters: list[list[int]]) -> npt.NDArray[np.float64]:
    """How many voters (lists of clause columns) cover each row."""
    out = np.zeros(matrix.shape[0], dtype=np.float64)
    for columns in voters:
        if columns:
            out += matrix[:, columns].any(axis=1)
    return out


class VoteCombination:
    def __init__(self, voters: list[list[int]], threshold: int) -> None:
        self.voters = voters
        self.threshold = threshold

    def score(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        return votes(matrix, self.voters)

    def predict(self, matrix: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        return np.asarray(votes(matrix, self.voters) >= self.threshold, dtype=bool)

    def clause_weights(self) -> npt.NDArray[np.float64]:
        k = sum(len(v) for v in self.voters)
        out = np.zeros(k, dtype=np.float64)
        for columns in self.voters:
            out[columns] = 1.0 / len(columns)  # a clause's share of its voter's vote
        return out

    def to_json(self) -> dict[str, Any]:
        return {"voters": self.voters, "threshold": self.threshold}


class VoteCombiner:
    name = "vote"

    def __init__(self, options: VoteOptions | None = None) -> None:
        self.options = options if options is not None else VoteOptions()

    def fit(self, pool: ClausePool, *, seed: int = 0) -> VoteCombination:
        o = self.options
        if o.by == "clause":
            voters = [[j] for j in range(len(pool.clauses))]
        else:
            voters = [
                [int(j) for j in np.flatnonzero(pool.groups == g)] for g in range(pool.n_groups)
            ]
            voters = [v for v in voters if v]
        n = len(voters)
        if o.rule == "any":
            threshold = 1
        elif o.rule == "majority":
            threshold = math.ceil(n / 2)
        else:
            assert o.k is not None
            if o.k > n:
                raise ConfigError(f"combiner vote: k={o.k} votes but the pool has {n} voters")
            threshold = o.k
        return VoteCombination(voters, max(threshold, 1))

    def combination_from_json(self, data: dict[str, Any]) -> VoteCombination:
        return VoteCombination(
            [[int(j) for j in v] for v in data["voters"]], int(data["threshold"])
        )


SPEC = PluginSpec(
    kind="combiner",
    name="vote",
    factory=VoteCombiner,
    options=VoteOptions,
    doc="Votes of the pool's members (or clauses): the score is the number of votes, K of N.",
)
