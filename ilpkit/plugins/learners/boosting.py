"""``prankboost`` and ``rankboost``: boosting first-order rules for ranking (dissertation ch.6).

PRankBoost (prankboost-ilp2009 Table 1): positives start at total weight 1 and negatives at
total skew = |X0|/|X1|; each of ``rounds`` rounds saturates a random positive seed, hill
climbs from the empty body to a weak hypothesis h_t on the current weights, sets
alpha_t = 0.5 ln((1 + r) / (1 - r)) from its weighted AURPC r and re-weights so that the
examples it ranks well count less. ``weak`` picks the weak learner (Clause, Path, Mix1-3; see
:data:`~ilpkit.plugins.learners.boost_weak.VARIANTS`). RankBoost.B is the same loop with both
classes at total 1 and r = sum_pos w h - sum_neg w h, with clause weak learners.

The weak learner is always greedy hill climbing (the ``hillclimb`` search) on the objective
the variant fixes: the papers define the weak learner that way, and Path needs the climbed
path. The learners declare (``capabilities``) that they take no search or scorer: the
framework records hillclimb and aurpc/auroc and refuses any other ``--search``/``--scorer``.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.coverage import Coverage, Weighting
from ilpkit.core.learner import LearnContext, LearnerCapabilities, subset_weighting
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.search import SearchContext
from ilpkit.core.task import NEG, POS, Task
from ilpkit.errors import DataError
from ilpkit.plugins.learners.boost_model import BoostModel, WeakClause, WeakHypothesis
from ilpkit.plugins.learners.boost_weak import (
    alpha_from_r,
    f1_threshold,
    hypothesis_values,
    initial_weights,
    kept,
    most_specific,
    objective_scorer,
    rate,
    update_weights,
    variant_of,
)
from ilpkit.plugins.search.hillclimb import HillClimb

Weak = Literal["clause", "path", "mix1", "mix2", "mix3"]


class RankBoostOptions(BaseModel):
    """Hyperparameters shared by RankBoost and PRankBoost."""

    model_config = ConfigDict(extra="forbid")

    rounds: int = Field(default=100, ge=1, description="T, the number of weak learners.")
    seed_selection: Literal["uniform", "weighted"] = Field(
        default="uniform",
        description="Each round's seed: a uniformly random positive, or one drawn by weight.",
    )
    clauselength: int | None = Field(
        default=None, ge=1, description="Longest clause, head included (default: settings)."
    )
    nodes: int | None = Field(
        default=None, ge=1, description="Clauses evaluated per weak learner (default: settings)."
    )


class PRankBoostOptions(RankBoostOptions):
    """Hyperparameters of PRankBoost."""

    weak: Weak = Field(
        default="clause",
        description="Weak learner: clause, path, mix1 (clause scored by path), "
        "mix2 (path scored by clause), mix3 (alternate clause and path).",
    )


class _Booster:
    """The boosting loop of Table 1; ``neg_total`` and the weak variant make the two."""

    name = ""

    def __init__(self, options: RankBoostOptions) -> None:
        self.options = options

    def model_from_json(self, data: dict[str, Any]) -> BoostModel:
        return BoostModel.from_json(data)

    def _weak(self) -> str:
        raise NotImplementedError

    def _neg_total(self, skew: float) -> float:
        raise NotImplementedError

    def fit(self, task: Task, ctx: LearnContext) -> BoostModel:
        opts = self.options
        settings = ctx.settings
        labels = task.examples.labels
        n = len(task.examples)
        all_train = ctx.train(task)
        train = all_train[np.isin(labels[all_train], (POS, NEG))]
        positive = labels[train] == POS
        base = task.examples.weights[train].astype(np.float64)
        pos_ids = train[positive]
        if not np.any(base[positive] > 0):
            raise DataError(f"{self.name} needs training positives of non-zero weight")
        # skew = |X0| / |X1|, as example weights (counts for unweighted data)
        skew = float(base[~positive].sum()) / float(base[positive].sum())
        neg_total = self._neg_total(skew)
        w = initial_weights(positive, base, neg_total)
        clauselength = opts.clauselength or int(settings["clauselength"])
        nodes = opts.nodes or int(settings["nodes"])
        depth = int(settings["i"])
        among = Coverage(train, n)
        plain = subset_weighting(task, train)
        seeds_rng = ctx.rng(self.name, "seeds")
        # local position of each training example id, to read h on the training set
        local = np.full(n, -1, dtype=np.int64)
        local[train] = np.arange(len(train), dtype=np.int64)
        y = positive.astype(np.int64)
        score_train = np.zeros(len(train), dtype=np.float64)
        hypotheses: list[WeakHypothesis] = []
        evaluated = 0
        for t in range(opts.rounds):
            variant_name, variant = variant_of(self._weak(), t)
            if opts.seed_selection == "weighted":
                seed = int(seeds_rng.choices(pos_ids.tolist(), weights=w[positive].tolist())[0])
            else:
                seed = int(seeds_rng.choice(pos_ids.tolist()))
            full = np.zeros(n, dtype=np.float64)
            full[train] = w
            search_ctx = SearchContext(
                bottom=ctx.backend.saturate(seed, depth=depth),
                backend=ctx.backend,
                scorer=objective_scorer(variant.objective),
                weighting=Weighting(labels, full),
                budget=nodes,
                rng=ctx.rng(self.name, "search", t),
                clauselength=clauselength,
                among=among,
                observers=list(ctx.observers),
            )
            search = HillClimb()
            best = search.run(search_ctx)
            evaluated += search_ctx.evaluated
            path = search.trajectory
            if best is None or not path:
                break  # budget too small to evaluate even the most general clause
            r = rate(variant.rate, [e.counts for e in path])
            alpha = alpha_from_r(r)
            keep = kept(path, variant.keep)
            values = hypothesis_values(path, variant.keep)
            h = most_specific(len(train), [local[e.coverage.ids] for e in keep], values)
            w = update_weights(w, positive, h, alpha, neg_total)
            score_train += alpha * h
            clauses = []
            for e, value in zip(keep, values, strict=True):
                c = plain.counts(e.coverage)
                clauses.append(
                    WeakClause(e.clause.canonical(), value, e.counts.tp, e.counts.fp, c.tp, c.fp)
                )
            hypotheses.append(
                WeakHypothesis(
                    round=t + 1,
                    variant=variant_name,
                    alpha=alpha,
                    r=r,
                    seed=seed,
                    clauses=tuple(clauses),
                    weighted_p=best.counts.p,
                    weighted_n=best.counts.n,
                    p=plain.p,
                    n=plain.n,
                    found_after=evaluated,
                    threshold=f1_threshold(score_train, y, base),
                    path=tuple((e.counts.tp, e.counts.fp) for e in path),
                )
            )
            if ctx.on_rule is not None:
                ctx.on_rule(best)
            ctx.progress(t + 1, opts.rounds, "rounds")
        return BoostModel(
            self.name,
            hypotheses,
            target=task.target_name,
            clauses_evaluated=evaluated,
            options=opts.model_dump(),
            info={
                "seed": ctx.seed,
                "skew": skew,
                "weak_search": "hillclimb",
                "clauselength": clauselength,
                "nodes": nodes,
            },
        )


class PRankBoost(_Booster):
    name = "prankboost"
    # the weak learner always hill climbs on weighted AURPC (recorded by `ilpkit cv`)
    capabilities = LearnerCapabilities(
        takes_search=False,
        takes_scorer=False,
        default_search="hillclimb",
        default_scorer="aurpc",
        quick_options={"rounds": 3},
    )
    options: PRankBoostOptions

    def __init__(self, options: PRankBoostOptions | None = None) -> None:
        super().__init__(options if options is not None else PRankBoostOptions())

    def _weak(self) -> str:
        return self.options.weak

    def _neg_total(self, skew: float) -> float:
        return skew


class RankBoost(_Booster):
    name = "rankboost"
    capabilities = LearnerCapabilities(
        takes_search=False,
        takes_scorer=False,
        default_search="hillclimb",
        default_scorer="auroc",
        quick_options={"rounds": 3},
    )

    def __init__(self, options: RankBoostOptions | None = None) -> None:
        super().__init__(options if options is not None else RankBoostOptions())

    def _weak(self) -> str:
        return "rankboost"

    def _neg_total(self, skew: float) -> float:
        return 1.0


SPECS: list[PluginSpec[Any]] = [
    PluginSpec(
        kind="learner",
        name="prankboost",
        factory=PRankBoost,
        options=PRankBoostOptions,
        doc="PRankBoost: boosted hill-climbed clauses maximising weighted AURPC (ILP 2009).",
    ),
    PluginSpec(
        kind="learner",
        name="rankboost",
        factory=RankBoost,
        options=RankBoostOptions,
        doc="RankBoost.B with hill-climbed clause weak learners (weighted AUROC objective).",
    ),
]
