"""``pool``: a clause pool from any search, for any combiner.

The generic pool learner: ``seeds`` searches (the run's search and scorer), each from its
own saturated training positive (distinct positives in a random order, as Gleaner's seeds),
each keeping its ``keep`` best clauses by the scorer among those covering at least
``min_pos`` training positives (never the body-less clause, which covers every example).
The kept clauses, grouped by seed, go to the run's combiner (``--combiner``; ``vote`` when
none is named), so "RRR clauses ranked by RankBoost" is
``ilpkit learn DATA --learner pool --search rrr --combiner rankboost``.  Seeds are
independent members that an executor may run in parallel.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.combiner import PoolModel, fit_pool, pool_model_from_json
from ilpkit.core.coverage import Coverage
from ilpkit.core.learner import LearnContext, LearnerCapabilities, subset_weighting
from ilpkit.core.members import Shipped
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.search import Evaluated, SearchContext
from ilpkit.core.task import POS, Task
from ilpkit.plugins.learners.gleaner import seed_examples


class PoolOptions(BaseModel):
    """How many searches, how long, and what each keeps."""

    model_config = ConfigDict(extra="forbid")

    seeds: int = Field(default=10, ge=1, description="Searches, each from its own seed example.")
    clauses_per_seed: int = Field(
        default=500, ge=1, description="Clauses evaluated in each seed's search."
    )
    keep: int = Field(default=5, ge=1, description="Best clauses (by the scorer) kept per seed.")
    min_pos: int = Field(
        default=1, ge=1, description="A kept clause covers at least this many training positives."
    )
    clauselength: int | None = Field(
        default=None, ge=1, description="Longest clause, counting the head (None: the data's)."
    )


@dataclass(frozen=True)
class SeedPool:
    """What one seed's search kept: clause texts, best first, and how many it evaluated."""

    index: int
    evaluated: int
    clauses: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "evaluated": self.evaluated, "clauses": self.clauses}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeedPool:
        return cls(int(data["index"]), int(data["evaluated"]), [str(c) for c in data["clauses"]])


def search_pool_seed(
    task: Task, ctx: LearnContext, options: PoolOptions, index: int, train: npt.NDArray[np.int64]
) -> SeedPool:
    """Seed ``index``'s search and the ``keep`` best clauses it evaluated."""
    labels = task.examples.labels
    positives = train[labels[train] == POS]
    seed_example = seed_examples(positives, ctx.rng("pool-seed-order"), index + 1)[index]
    settings = ctx.settings
    n = len(task.examples)
    best: list[tuple[float, int, str]] = []  # a min-heap of (score, -number, clause)
    seen: set[str] = set()

    def observe(e: Evaluated) -> None:
        # the body-less clause covers every example: as a pool member it ranks nothing
        if not e.body or e.counts.tp < options.min_pos or not np.isfinite(e.score):
            return
        text = str(e.clause.canonical())
        if text in seen:
            return
        item = (float(e.score), -e.number, text)
        if len(best) < options.keep:
            heapq.heappush(best, item)
            seen.add(text)
        elif item > best[0]:
            seen.discard(heapq.heapreplace(best, item)[2])
            seen.add(text)

    search_ctx = SearchContext(
        bottom=ctx.backend.saturate(seed_example, depth=int(settings["i"])),
        backend=ctx.backend,
        scorer=ctx.scorer,
        weighting=subset_weighting(task, train),
        budget=options.clauses_per_seed,
        rng=ctx.rng("pool-search", index),
        clauselength=options.clauselength or int(settings["clauselength"]),
        among=Coverage(train, n, trusted=True),
        observers=[*ctx.observers, observe],
    )
    ctx.make_search().run(search_ctx)
    ordered = [text for _, _, text in sorted(best, reverse=True)]
    return SeedPool(index, search_ctx.evaluated, ordered)


@dataclass(frozen=True)
class PoolUnit:
    options: PoolOptions
    index: int
    train: list[int]


def run_pool_unit(task: Task, ctx: LearnContext, unit: PoolUnit) -> dict[str, Any]:
    """One seed's search in a worker (the framework rebuilt task and context there)."""
    train = np.asarray(unit.train, dtype=np.int64)
    return search_pool_seed(task, ctx, unit.options, unit.index, train).to_json()


class PoolLearner:
    name = "pool"
    capabilities = LearnerCapabilities(
        takes_combiner=True,
        default_combiner="vote",
        has_members=True,
        uses_tune=True,
        quick_options={"seeds": 2, "clauses_per_seed": 20},
    )

    def __init__(self, options: PoolOptions | None = None) -> None:
        self.options = options if options is not None else PoolOptions()

    def model_from_json(self, data: dict[str, Any]) -> PoolModel:
        return pool_model_from_json(data)

    def fit(self, task: Task, ctx: LearnContext) -> PoolModel:
        from ilpkit.core.learner import parse_clause

        train = ctx.train(task)
        if not np.any(task.examples.labels[train] == POS):
            raise ValueError(f"{task.name}: no positive training example to seed a search")
        seeds = ctx.run_members(
            "seeds",
            self.options.seeds,
            lambda k: search_pool_seed(task, ctx, self.options, k, train),
            Shipped(
                run_pool_unit,
                lambda k: PoolUnit(self.options, k, train.tolist()),
                SeedPool.from_json,
            ),
        )
        clauses = [parse_clause(text) for s in seeds for text in s.clauses]
        groups = [s.index for s in seeds for _ in s.clauses]
        return fit_pool(
            self.name,
            task,
            ctx,
            clauses,
            groups,
            "seed",
            clauses_evaluated=sum(s.evaluated for s in seeds),
        )


SPEC = PluginSpec(
    kind="learner",
    name="pool",
    factory=PoolLearner,
    options=PoolOptions,
    doc="Any search over seeds; each seed's best clauses form a pool for any combiner.",
)
