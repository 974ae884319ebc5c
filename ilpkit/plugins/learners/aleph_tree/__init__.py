"""``aleph-tree``: Aleph's classification and class-probability trees (``induce_tree``).

The data says what to learn, as for Aleph: ``set(tree_type, classification)`` (or
``class_probability``), ``set(dependent, K)`` (the K-th argument of the examples is the
class, a ``-`` place of the head mode), ``set(classes, [...])``, ``set(evalfn, entropy)``
(or ``gini``), ``minpos``, ``mingain``, ``lookahead``, ``clauselength``, and for pruning
``set(prune_tree, true)`` with ``set(confidence, CF)``.  The examples are the positive ones,
each an atom such as ``class(bat, mammal)``; negative examples are not used for growing.
Data with no ``dependent`` setting (ordinary positive/negative examples such as
``eastbound(east1)``) gets a tree whose classes are the labels: its rules that predict the
positive class are the theory.  ``evalfn gini`` selects the Gini index, any other evalfn
entropy.

Growing (:mod:`.grow`) refines the root clause ``class(A, B)`` with Aleph's automatic
refinement operator (:mod:`.refine`), splits on the test with the largest expected cost
reduction, and recurses; pruning (:mod:`.prune`) shortens each leaf's rule by C4.5's
pessimistic error estimate; the model (:mod:`.model`) is the rules with their class
distributions, printed as Aleph prints them.

Why a learner of its own rather than a mode of ``tilde``: TILDE grows a binary tree over
positive and negative examples whose leaves form a decision list, reads ``#`` constants from
bottom clauses and ranks equal splits by length; Aleph's tree predicts a class argument of
positive examples, takes constants from type facts, keeps the first of equal splits, stops at
a perfect one, prunes rule by rule into a set of rules that need not form a tree any more
and reads its settings from the data.  The two share the idea, not the steps.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.bias import Mode
from ilpkit.core.coverage import Coverage
from ilpkit.core.learner import LearnContext, LearnerCapabilities, rule_stats
from ilpkit.core.limits import coverage_within_limits
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.task import NEG, POS, Indicator, Task
from ilpkit.errors import ConfigError, DataError
from ilpkit.plugins.learners.aleph_tree.grow import Grower
from ilpkit.plugins.learners.aleph_tree.model import AlephTreeModel, LeafRule, class_order
from ilpkit.plugins.learners.aleph_tree.prune import ModeLanguage, prune_rule
from ilpkit.plugins.learners.aleph_tree.refine import AutoRefiner, root_clause, type_constants
from ilpkit.prolog.terms import (
    Clause,
    Const,
    Struct,
    Term,
    is_ground,
    list_items,
    to_prolog,
)

TREE_TYPES = ("classification", "class_probability")


class AlephTreeOptions(BaseModel):
    """What the data's Aleph settings do not say (they say everything else)."""

    model_config = ConfigDict(extra="forbid")

    extend_negated: Literal["declared", "always"] = Field(
        default="declared",
        description="Which leaves may be split: 'declared' (Aleph 5): a leaf whose path "
        "failed a test can be split only when the negated test is a declared mode "
        "(modeb(1, not(has_gills(+animal)))); 'always': every leaf (the transcript of "
        "Aleph 4 in Aleph's examples/tree).",
    )


def body_modes_in_determination_order(task: Task, target: tuple[str, int]) -> tuple[Mode, ...]:
    """The body modes the determinations allow, in the determinations' order (each
    predicate's modes in ``modeb`` order); every body mode when there is no determination."""
    allowed = [b for (h, b) in task.bias.determinations if h == target]
    if not allowed:
        return tuple(task.bias.modeb)
    out: list[Mode] = []
    for b in allowed:
        out.extend(m for m in task.bias.modeb if m.indicator == b and m not in out)
    return tuple(out)


def class_values(task: Task, dependent: int, given: Term | None) -> tuple[list[Term], IntArray]:
    """The classes (the ``classes`` setting's, then any other value an example has, in
    example order) and each example's class index."""
    classes: list[Term] = []
    if given is not None:
        items, tail = list_items(given)
        if to_prolog(tail) != "[]":
            raise DataError(f"{task.name}: set(classes, ...) needs a list, got {given}")
        classes = list(dict.fromkeys(items))
    index = {c: k for k, c in enumerate(classes)}
    out = np.zeros(len(task.examples), dtype=np.int64)
    for e, atom in enumerate(task.examples.atoms):
        if not isinstance(atom, Struct) or len(atom.args) < dependent:
            raise DataError(
                f"{task.name}: example {atom} has no argument {dependent} "
                "(set(dependent, K) names the class argument)"
            )
        value = atom.args[dependent - 1]
        if not is_ground(value):
            raise DataError(f"{task.name}: the class of example {atom} is not ground")
        if value not in index:
            index[value] = len(classes)
            classes.append(value)
        out[e] = index[value]
    return classes, out


IntArray = npt.NDArray[np.int64]


def check_dependent(task: Task, head_mode: Mode, target: Indicator, dependent: int) -> None:
    """The dependent argument is a ``-`` place of the head mode (Aleph predicts it)."""
    if not 1 <= dependent <= target[1]:
        raise DataError(
            f"{task.name}: set(dependent, K) must name the class argument of "
            f"{target[0]}/{target[1]} (1..{target[1]}); it is {dependent}"
        )
    place = next((p for p in head_mode.places if p.path == (dependent - 1,)), None)
    if place is None or place.io != "-":
        raise DataError(
            f"{task.name}: argument {dependent} of the head mode {head_mode} must be a "
            "- output (Aleph predicts the dependent variable)"
        )


class AlephTreeLearner:
    name = "aleph-tree"
    capabilities: ClassVar[LearnerCapabilities] = LearnerCapabilities(
        takes_search=False,
        takes_scorer=False,
        splits_trees=True,
        reads_settings=frozenset(
            {"tree_type", "classes", "prune_tree", "dependent", "confidence", "mingain"}
            | {"lookahead", "language", "evalfn"}
        ),
    )

    def __init__(self, options: AlephTreeOptions | None = None) -> None:
        self.options = options if options is not None else AlephTreeOptions()

    def model_from_json(self, data: dict[str, Any]) -> AlephTreeModel:
        return AlephTreeModel.from_json(data)

    def fit(self, task: Task, ctx: LearnContext) -> AlephTreeModel:
        settings = ctx.settings
        tree_type = str(settings["tree_type"])
        if tree_type not in TREE_TYPES:
            raise ConfigError(
                f"learner 'aleph-tree': tree_type {tree_type} (Aleph's regression and model "
                "trees) is not supported; it learns classification and class_probability trees"
            )
        if float(settings["mingain"]) <= 0:
            raise ConfigError(
                f"learner 'aleph-tree': mingain must be above 0 (it is {settings['mingain']}); "
                "Aleph refuses it too: a node would be split by tests that gain nothing"
            )
        impurity: Literal["entropy", "gini"] = "gini" if settings["evalfn"] == "gini" else "entropy"
        dependent = int(settings["dependent"])
        target = task.target
        head_mode = next((m for m in task.bias.modeh if m.indicator == target), None)
        if head_mode is None or target is None:
            raise DataError(f"{task.name}: the tree learner needs a modeh for the target")
        if head_mode.constants():
            raise DataError(
                f"{task.name}: the head mode {head_mode} has a # place; aleph-tree needs "
                "variables (+/-) in the head"
            )
        train = np.asarray(ctx.train(task), dtype=np.int64)
        labels = task.examples.labels[train]
        if dependent:
            check_dependent(task, head_mode, target, dependent)
            classes, class_of = class_values(task, dependent, settings.get("classes"))
            train = train[labels == POS]  # Aleph's trees: the positive examples
        else:  # no class argument: the class is the label
            classes = [Const("pos"), Const("neg")]
            class_of = np.where(task.examples.labels == POS, 0, 1).astype(np.int64)
            train = train[(labels == POS) | (labels == NEG)]
        if not len(train):
            raise DataError(f"{task.name}: no training example to grow a tree from")
        modes = body_modes_in_determination_order(task, target)
        constants = type_constants(
            task.program, {p.type for m in task.bias.modeb for p in m.constants()}
        )
        refiner = AutoRefiner(
            modes,
            constants,
            clauselength=int(settings["clauselength"]),
            lookahead=max(1, int(settings["lookahead"])),
            language=float(settings["language"]),
        )
        # Aleph types a clause's literals against every body mode, determined or not
        all_modes = tuple(task.bias.modeb)
        negated = tuple(
            m for m in all_modes if isinstance(m.template, Struct) and m.template.name == "not"
        )
        grower = Grower(
            ctx.backend,
            refiner,
            class_of,
            len(classes),
            impurity=impurity,
            minpos=int(settings["minpos"]),
            mingain=float(settings["mingain"]),
            negated_modes=negated,
            extend_negated=self.options.extend_negated,
            on_node=lambda n: ctx.progress(n, 0, "tree nodes"),
        )
        root = root_clause(head_mode)
        _, leaves = grower.grow(root, train)
        n = len(task.examples)
        evaluated = grower.stats.refinements_evaluated

        def counts(ids: IntArray) -> npt.NDArray[np.float64]:
            return np.bincount(class_of[ids], minlength=len(classes)).astype(np.float64)

        def covered(clause: Clause) -> IntArray:
            nonlocal evaluated
            evaluated += 1
            cov = coverage_within_limits(ctx.backend, clause, Coverage(train, n, trusted=True))
            return np.asarray(cov.ids, dtype=np.int64)

        prune = tree_type == "classification" and bool(settings["prune_tree"])
        language = ModeLanguage(root.typed, all_modes, constants)
        rules: list[LeafRule] = []
        pruned_literals = 0
        for leaf in leaves:
            body, ids = leaf.clause.body, leaf.ids
            if prune:
                result = prune_rule(
                    root.head,
                    body,
                    counts(ids),
                    float(settings["confidence"]),
                    language,
                    lambda c: counts(covered(c)),
                )
                pruned_literals += len(body) - len(result.body)
                body = result.body
                if result.changed:
                    ids = covered(Clause(root.head, body))
            rules.append(
                LeafRule(
                    Clause(root.head, body),
                    tuple(float(x) for x in counts(ids)),
                    class_order(class_of[np.sort(ids)], len(classes)),
                )
            )
        model = AlephTreeModel(
            rules,
            classes,
            dependent=dependent,
            tree_type=tree_type,
            target=task.target_name,
            clauses_evaluated=evaluated,
            info={
                "seed": ctx.seed,
                "impurity": impurity,
                "nodes": grower.stats.nodes,
                "splits": grower.stats.splits,
                "leaves": len(leaves),
                "pruned": prune,
                "literals_pruned": pruned_literals,
            },
        )
        weights = rule_stats(task, ctx.backend, model.rule_clauses(), train)
        model.stats = [
            type(r)(r.clause, weight, r.tp, r.fp, r.precision, r.recall)
            for r, weight in zip(weights, (x.weight for x in model.rules()), strict=True)
        ]
        return model


SPEC = PluginSpec(
    kind="learner",
    name="aleph-tree",
    factory=AlephTreeLearner,
    options=AlephTreeOptions,
    doc="Aleph's classification and class-probability trees (induce_tree): splits by "
    "entropy or gini over the dependent argument, C4.5 pessimistic rule pruning.",
)
