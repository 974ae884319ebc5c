"""``aleph-ensemble``: the "random seeds" control of dissertation ch. 4.2.

N theories are learnt with Aleph's covering loop, each from its own random order of seed
examples, and each is cut at its first C rules.  An example is called positive by "at least K
of the N theories" (a theory says positive when any of its rules covers the example); K = 1..N
gives the recall-precision points, and the number of theories that say positive is the
ranking score.  The members are independent units of work, run on the learner's executor.

Every recorded rule covers at least ``min_tune_pos`` (default 2) tune-set positives
(dissertation 4.2.1: "each recorded rule [covers] at least two positive examples in the tune
set"): a clause failing it is not acceptable in the covering loop's searches.

Decisions: ``predict`` uses the majority, K = ceil(N / 2); the learning curve
(``at_budget``) reads the members in order -- the ensemble after ``b`` clauses holds the rules
that the serial run had accepted by then.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.coverage import Coverage
from ilpkit.core.learner import (
    MODEL_FORMAT_VERSION,
    ClauseBackend,
    LearnContext,
    LearnerCapabilities,
    Rule,
)
from ilpkit.core.limits import coverage_within_limits
from ilpkit.core.members import Shipped
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.task import Task
from ilpkit.plugins.learners.theory import TheoryLearner, TheoryModel, TheoryOptions


class AlephEnsembleOptions(BaseModel):
    """Hyperparameters of the random-seeds ensemble."""

    model_config = ConfigDict(extra="forbid")

    theories: int = Field(default=10, ge=1, description="Theories N in the ensemble.")
    max_rules: int | None = Field(
        default=None, ge=1, description="Cut each theory at its first C rules (None: no cut)."
    )
    clauses_per_theory: int | None = Field(
        default=None,
        ge=1,
        description="Each theory starts no new search after this many clauses (None: its "
        "covering loop runs until every positive is covered or tried).",
    )
    min_tune_pos: int = Field(
        default=2,
        ge=0,
        description="Every recorded rule covers at least this many tune-set positives "
        "(dissertation 4.2.1; the training positives when there is no tune set).",
    )


@dataclass(frozen=True)
class MemberUnit:
    """One member theory as plain data, for executors that run it in another process."""

    options: AlephEnsembleOptions
    index: int
    train: list[int]
    tune: list[int] | None = None


def member_seed(seed: int, index: int) -> int:
    from ilpkit.core.learner import derive_seed

    return derive_seed(seed, "aleph-ensemble", index)


def learn_member(
    task: Task, ctx: LearnContext, options: AlephEnsembleOptions, index: int
) -> TheoryModel:
    """Member ``index``: a covering theory from its own random seed order."""
    learner = TheoryLearner(
        TheoryOptions(
            max_rules=options.max_rules,
            seed_order="random",
            max_clauses=options.clauses_per_theory,
            min_tune_pos=options.min_tune_pos,
        )
    )
    member_ctx = replace(ctx, seed=member_seed(ctx.seed, index), on_rule=None, on_progress=None)
    return learner.fit(task, member_ctx)


def run_member_unit(task: Task, ctx: LearnContext, unit: MemberUnit) -> dict[str, Any]:
    """Learn one member theory in a worker (the framework rebuilt task and context there)."""
    ctx.train_ids = np.asarray(unit.train, dtype=np.int64)
    if unit.tune is not None:
        ctx.tune_ids = np.asarray(unit.tune, dtype=np.int64)
    return learn_member(task, ctx, unit.options, unit.index).to_json()


class AlephEnsembleModel:
    """N theories; the score of an example is how many of them cover it."""

    learner = "aleph-ensemble"

    def __init__(self, members: list[TheoryModel], info: dict[str, Any] | None = None):
        self.members = members
        self.info = dict(info or {})

    @property
    def clauses_evaluated(self) -> int:
        return sum(m.clauses_evaluated for m in self.members)

    def votes(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None
    ) -> npt.NDArray[np.float64]:
        n = backend.n_examples
        ids = np.arange(n, dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
        among = Coverage(ids, n)
        covered_by: dict[str, npt.NDArray[np.int64]] = {}
        votes = np.zeros(n)
        for member in self.members:
            says = np.zeros(n, dtype=bool)
            for clause in member.clauses():
                key = str(clause)
                if key not in covered_by:
                    covered_by[key] = coverage_within_limits(backend, clause, among).ids
                says[covered_by[key]] = True
            votes += says
        return votes[ids]

    def score(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        return self.votes(backend, ids)

    def predict(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.bool_]:
        return self.votes(backend, ids) >= math.ceil(len(self.members) / 2)

    def pr_counts(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64], labels: npt.NDArray[np.bool_]
    ) -> list[tuple[float, float]]:
        """(TP, FP) on ``ids`` of "at least K of N", K = 1..N."""
        votes = self.votes(backend, ids)
        out = []
        for k in range(1, len(self.members) + 1):
            said = votes >= k
            out.append((float(np.sum(said & labels)), float(np.sum(said & ~labels))))
        return out

    def rules(self) -> list[Rule]:
        return [replace(r, weight=float(i)) for i, m in enumerate(self.members) for r in m.rules()]

    def at_budget(self, clauses: int) -> AlephEnsembleModel:
        """The members' rules accepted within ``clauses`` evaluated clauses of the serial run."""
        spent = 0
        members = []
        for m in self.members:
            left = clauses - spent
            if left < 0:
                break
            snapshot = m.at_budget(left)
            if snapshot is None:
                break
            members.append(snapshot)
            spent += m.clauses_evaluated
        return AlephEnsembleModel(members, self.info)

    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": MODEL_FORMAT_VERSION,
            "learner": self.learner,
            "clauses_evaluated": self.clauses_evaluated,
            "members": [m.to_json() for m in self.members],
            "rules": [r.to_json() for r in self.rules()],
            "info": self.info,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AlephEnsembleModel:
        return cls([TheoryModel.from_json(m) for m in data["members"]], data.get("info", {}))


class AlephEnsembleLearner:
    name = "aleph-ensemble"
    capabilities = LearnerCapabilities(
        has_members=True,
        takes_combiner=True,
        # tiny check data: its rules cover too few positives for the paper's two
        quick_options={"theories": 2, "min_tune_pos": 1},
    )
    """Member theories are independent units that ``ctx.executor`` may run (cv.parallel)."""

    def __init__(self, options: AlephEnsembleOptions | None = None) -> None:
        self.options = options if options is not None else AlephEnsembleOptions()

    def model_from_json(self, data: dict[str, Any]) -> AlephEnsembleModel:
        return AlephEnsembleModel.from_json(data)

    def fit(self, task: Task, ctx: LearnContext) -> Any:
        train = ctx.train(task).tolist()
        tune = None if ctx.tune_ids is None else [int(i) for i in ctx.tune_ids]
        members = ctx.run_members(
            "theories",
            self.options.theories,
            lambda k: learn_member(task, ctx, self.options, k),
            Shipped(
                run_member_unit,
                lambda k: MemberUnit(self.options, k, train, tune),
                TheoryModel.from_json,
            ),
        )
        if ctx.combiner is not None:  # the theories' rules, one member per theory
            from ilpkit.core.combiner import fit_pool

            return fit_pool(
                self.name,
                task,
                ctx,
                [c for m in members for c in m.clauses()],
                [k for k, m in enumerate(members) for _ in m.clauses()],
                "theory",
                clauses_evaluated=sum(m.clauses_evaluated for m in members),
            )
        return AlephEnsembleModel(members, {"seed": ctx.seed})


SPEC = PluginSpec(
    kind="learner",
    name="aleph-ensemble",
    factory=AlephEnsembleLearner,
    options=AlephEnsembleOptions,
    doc="Aleph 'random seeds' ensemble: N covering theories from random seed orders, K of N.",
)
