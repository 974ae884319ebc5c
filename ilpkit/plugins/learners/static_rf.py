"""``static-rf``: static propositionalisation + a standard random forest (R4F's baseline,
Table 1, "Static").

``rules`` non-trivial random relational rules (``random_rules``; full rules, not prefixes)
become Boolean features of the examples through :func:`ilpkit.core.features.coverage_matrix`
(their training coverage is already known from generation, so no second coverage call), and
scikit-learn's ``RandomForestClassifier`` with ``trees`` trees (its defaults otherwise: bootstrap,
sqrt(#features) candidates per split, Gini) learns on them.  The fitted trees are copied into
ilpkit's own forest model (``forest.ForestModel``: only the rules some tree tests are kept),
so the model is JSON data, scores through the backend's batch coverage path, and gives the
probabilities scikit-learn's ``predict_proba`` gives.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from pydantic import ConfigDict, Field

from ilpkit.core.budget import OwnPlan, int_option
from ilpkit.core.features import coverage_matrix
from ilpkit.core.learner import LearnContext, LearnerCapabilities
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.task import POS, Task
from ilpkit.plugins.learners.forest import ClauseTest, ForestModel, Tree
from ilpkit.plugins.learners.rule_stream import (
    RuleLanguageOptions,
    generation_info,
    rule_generator,
    training_positions,
)


class StaticRFOptions(RuleLanguageOptions):
    """Hyperparameters of the static propositionalisation baseline (and, inherited, the random
    rules' language)."""

    model_config = ConfigDict(extra="forbid")

    rules: int = Field(default=1000, ge=1, description="Non-trivial random rules (features).")
    trees: int = Field(default=500, ge=1, description="Trees of the random forest.")
    max_features: str | float = Field(
        default="sqrt",
        description="Features tried per split (scikit-learn's max_features: sqrt, log2, or a "
        "fraction).",
    )


def trees_from_sklearn(forest: Any, positive_column: int) -> tuple[list[Tree], list[int]]:
    """ilpkit trees from a fitted scikit-learn forest on Boolean features, and the feature
    indices they test (a node's test index points into that list).  scikit-learn sends
    ``x <= threshold`` (here: not covered) left, so ``yes`` is its right child."""
    used: dict[int, int] = {}
    trees = []
    for estimator in forest.estimators_:
        t = estimator.tree_
        value = np.asarray(t.value, dtype=np.float64).reshape(t.node_count, -1)
        totals = value.sum(axis=1)
        tree = Tree()
        for node in range(t.node_count):
            share = value[node, positive_column] / totals[node] if totals[node] > 0 else 0.0
            tree.add(float(share), float(t.weighted_n_node_samples[node]))
        for node in range(t.node_count):
            left, right = int(t.children_left[node]), int(t.children_right[node])
            if left >= 0:
                feature = int(t.feature[node])
                test = used.setdefault(feature, len(used))
                tree.split(node, test, right, left)
        trees.append(tree)
    return trees, sorted(used, key=lambda f: used[f])


class StaticRFLearner:
    name = "static-rf"
    capabilities: ClassVar[LearnerCapabilities] = LearnerCapabilities(
        takes_search=False,  # its own random relational rules
        takes_scorer=False,
        takes_combiner=True,
        quick_options={"rules": 30, "trees": 5},
    )

    @staticmethod
    def plan(options: Mapping[str, Any], task: Task, training: int) -> OwnPlan | None:
        """The ``rules`` full rules it draws (no prefixes); trivial ones come on top."""
        rules = int_option(options, "rules")
        return None if rules is None else OwnPlan(rules, {"rules": rules})

    def __init__(self, options: StaticRFOptions | None = None) -> None:
        self.options = options if options is not None else StaticRFOptions()

    def model_from_json(self, data: dict[str, Any]) -> ForestModel:
        return ForestModel.from_json(data)

    def fit(self, task: Task, ctx: LearnContext) -> Any:
        from sklearn.ensemble import RandomForestClassifier

        opts = self.options
        started = time.process_time()
        train = training_positions(task, ctx)
        y = task.examples.labels[train] == POS
        generator = rule_generator(task, ctx, train, opts, salt="static-rf", prefixes=False)
        rules = []
        for k in range(opts.rules):
            rule = generator.next()
            if rule is None:  # --time-limit: the forest is grown on the rules drawn so far
                break
            rules.append(rule)
            ctx.progress(k + 1, opts.rules, "rules")
        if ctx.combiner is not None:  # the random rules, each a member of its own
            from ilpkit.core.combiner import fit_pool

            return fit_pool(
                self.name,
                task,
                ctx,
                [r.clause for r in rules],
                list(range(len(rules))),
                "rule",
                clauses_evaluated=generator.clauses,
            )
        x: npt.NDArray[np.bool_] = coverage_matrix([r.coverage[-1] for r in rules], train)
        if rules:
            forest = RandomForestClassifier(
                n_estimators=opts.trees,
                max_features=opts.max_features,
                random_state=ctx.rng("static-rf", "forest").getrandbits(31),
                n_jobs=1,
            )
            forest.fit(x, y)
            positive_column = list(forest.classes_).index(True)
            trees, features = trees_from_sklearn(forest, positive_column)
        else:  # the time limit passed before any rule: one leaf, the training prior
            prior = Tree()
            prior.add(float(y.mean()) if len(y) else 0.0, float(len(y)))
            trees, features = [prior], []
        p = float(y.sum())
        tests = []
        for f in features:
            tp = float(np.sum(x[:, f] & y))
            tests.append(ClauseTest(rules[f].clause, tp, float(x[:, f].sum()) - tp, p))
        seconds = time.process_time() - started
        info = {
            "rules": len(rules),
            **generation_info(generator, ctx, seconds),
            "rules_used": len(features),
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
    name="static-rf",
    factory=StaticRFLearner,
    options=StaticRFOptions,
    doc="Static propositionalisation: random rules as Boolean features + a random forest.",
)
