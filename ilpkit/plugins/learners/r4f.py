"""``r4f``: Relational Random Forests over Random Relational Rules (Anderson and Pfahringer,
R4F; Algorithm 1, Table 1).

Random relational rules (``ilpkit.plugins.search.random_rules``) stream in one at a time; the
coverage of all prefixes of a rule is computed once, on all training examples, in one batch
(through the prefixes' independent parts, ``ilpkit.core.split_coverage``), and shared by every
open leaf of every tree
(``ilpkit.plugins.learners.r4f_grow``: staggered bagged roots, MRC).  Defaults are the paper's
Table 1 setting: 500 trees, bagged roots, MRC 50.  The forest's probability is the mean of the
leaf class distributions.  Two classes only (the paper's implementation is too): positives
against negatives; unlabelled training examples are ignored.

Where the paper is silent (decisions): rules come from the bottom clause of a random training
example (see ``random_rules``); ``learner.predicates`` restricts the body modes (the paper's
"atoms and bonds only"); a budget ``max_rules`` closes whatever is still open when it runs out
(the paper has none; roots that no rule can split would otherwise wait forever).

``info`` reports rules generated (non-trivial, and trivial ones drawn and rejected; rules
dropped over a resource limit), rules per CPU second, and the paper's estimate of the rules
needed, n + s (eq. 1): n trees plus s, the mean number of rules a tree took from its start to
its last split.
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from pydantic import ConfigDict, Field

from ilpkit.core.budget import OwnPlan, int_option
from ilpkit.core.learner import LearnContext, LearnerCapabilities
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.task import POS, Task
from ilpkit.plugins.learners.forest import ClauseTest, ForestModel, Tree
from ilpkit.plugins.learners.r4f_grow import ForestGrower
from ilpkit.plugins.learners.rule_stream import (
    RuleLanguageOptions,
    generation_info,
    rule_generator,
    training_positions,
)
from ilpkit.prolog.terms import Clause


class R4FOptions(RuleLanguageOptions):
    """Hyperparameters of R4F (and, inherited, the random rules' language)."""

    model_config = ConfigDict(extra="forbid")

    trees: int = Field(default=500, ge=1, description="Trees n in the forest (Table 1: 500).")
    mrc: int = Field(
        default=50, ge=1, description="Maximum rule count: rules a non-root leaf sees (Table 1)."
    )
    bagging: bool = Field(default=True, description="Each root on a bootstrap sample.")
    max_rules: int = Field(
        default=100_000, ge=1, description="Rule budget; open leaves close when it is spent."
    )


def bootstrap_weights(rng: random.Random, size: int) -> npt.NDArray[np.float64]:
    """How often each of ``size`` positions is drawn in ``size`` draws with replacement."""
    draws = [rng.randrange(size) for _ in range(size)]
    return np.bincount(np.asarray(draws, dtype=np.int64), minlength=size).astype(np.float64)


class R4FLearner:
    name = "r4f"
    capabilities: ClassVar[LearnerCapabilities] = LearnerCapabilities(
        takes_search=False,  # its own random relational rules
        takes_scorer=False,
        quick_options={"trees": 5, "mrc": 5, "max_rules": 40},
    )

    @staticmethod
    def plan(options: Mapping[str, Any], task: Task, training: int) -> OwnPlan | None:
        """R4F runs no search per seed: its cost is the rules it draws, about n + s (R4F,
        eq. 1: n trees, s the rules one tree needs), s at most (t - 1) x MRC (eq. 2, t the
        training examples), capped by ``max_rules``; each rule costs its prefixes, up to
        ``clauselength - 1`` clauses.  Trivial rules drawn again come on top."""
        trees, mrc = int_option(options, "trees"), int_option(options, "mrc")
        if trees is None or mrc is None:
            return None
        rules = trees + max(training - 1, 0) * mrc
        cap = int_option(options, "max_rules")
        rules = rules if cap is None else min(rules, cap)
        length = int_option(options, "clauselength") or int(task.bias.settings["clauselength"])
        shown = {k: options[k] for k in ("trees", "mrc", "max_rules") if options.get(k)}
        return OwnPlan(rules * max(length - 1, 1), {**shown, "clauselength": length})

    def __init__(self, options: R4FOptions | None = None) -> None:
        self.options = options if options is not None else R4FOptions()

    def model_from_json(self, data: dict[str, Any]) -> ForestModel:
        return ForestModel.from_json(data)

    def fit(self, task: Task, ctx: LearnContext) -> ForestModel:
        opts = self.options
        started = time.process_time()
        train = training_positions(task, ctx)
        y = task.examples.labels[train] == POS
        p = float(y.sum())
        generator = rule_generator(task, ctx, train, opts, salt="r4f")
        tests: list[ClauseTest] = []
        index: dict[str, int] = {}
        prefixes: dict[Hashable, tuple[Clause, ...]] = {}  # the last MRC rules' prefixes

        def on_test(key: tuple[Hashable, int], mask: npt.NDArray[np.bool_]) -> int:
            number, k = key
            clause = prefixes[number][k]
            text = str(clause)
            if text not in index:
                tp = float(np.sum(mask & y))
                index[text] = len(tests)
                tests.append(ClauseTest(clause, tp, float(mask.sum()) - tp, p))
            return index[text]

        def bootstrap(i: int) -> npt.NDArray[np.float64]:
            if not opts.bagging:
                return np.ones(len(train), dtype=np.float64)
            return bootstrap_weights(ctx.rng("r4f", "bootstrap", i), len(train))

        grower = ForestGrower(y, opts.trees, opts.mrc, bootstrap, on_test=on_test)
        while not grower.done:
            if grower.rules_seen >= opts.max_rules:
                grower.close_all()
                break
            rule = generator.next()
            if rule is None:  # --time-limit: the open leaves close with what reached them
                grower.close_all()
                break
            masks = np.stack([np.isin(train, c.ids, assume_unique=True) for c in rule.coverage])
            prefixes[rule.number] = rule.prefixes
            grower.feed(rule.number, masks)
            prefixes.pop(rule.number - opts.mrc, None)  # no open leaf remembers it any more
            ctx.progress(len(grower.finished_at), opts.trees, "trees")
        trees = grower.trees
        if not trees:  # the time limit passed before any rule: one leaf, the training prior
            trees = [Tree()]
            trees[0].add(float(y.mean()) if len(y) else 0.0, float(len(y)))
        seconds = time.process_time() - started
        spans = [
            grower.finished_at.get(i, grower.rules_seen) - s + 1
            for i, s in enumerate(grower.started_at)
        ]
        s_mean = float(np.mean(spans)) if spans else 0.0
        info = {
            "rules": grower.rules_seen,
            **generation_info(generator, ctx, seconds),
            "n_plus_s": opts.trees + s_mean,
            "s": s_mean,
            "mean_tree_nodes": float(np.mean([len(t) for t in trees])),
            "closed_by_budget": grower.rules_seen >= opts.max_rules,
        }
        return ForestModel(
            self.name,
            tests,
            trees,
            target=task.target_name,
            clauses_evaluated=generator.clauses,
            options=opts.model_dump(),
            info=info,
        )


SPEC = PluginSpec(
    kind="learner",
    name="r4f",
    factory=R4FLearner,
    options=R4FOptions,
    doc="R4F: all trees of a random forest grown at once over random relational rules.",
)
