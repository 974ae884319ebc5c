"""``tilde``: first-order logical decision trees (Blockeel & De Raedt 1998), and PU learning.

The learner grows one tree top-down (:mod:`.induce`) over refinements from the mode language
(:mod:`.refine`), scores splits by information gain, gain ratio or max-bepp (:mod:`.splits`),
and predicts the positive proportion of the leaf an example reaches.

Positive-unlabeled data (ticer-pu-relational.txt): unlabeled training examples count as the
negative class, and the leaf probabilities are divided by the label frequency ``c`` (clipped to
1). ``c`` is a number (1: no adjustment), ``"true"`` (the frequency the experiment used to draw
the PU labeling, ``--pu-label-frequency``) or ``"ticer"`` (estimated from the training data by
TIcER, :mod:`.ticer`). ``pu_adjust="counts"`` uses ``c`` inside the split scores as well
(P = L/c, N = T - P).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.degenerate import DEGENERATE, TICER_FLOOR
from ilpkit.core.learner import (
    MODEL_FORMAT_VERSION,
    ClauseBackend,
    LearnContext,
    LearnerCapabilities,
    Rule,
)
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.task import POS, Task
from ilpkit.errors import ConfigError, DataError
from ilpkit.plugins.learners.tilde.induce import InduceOptions, Inducer, InduceStats
from ilpkit.plugins.learners.tilde.splits import SplitScore
from ilpkit.plugins.learners.tilde.ticer import estimate_label_frequency
from ilpkit.plugins.learners.tilde.tree import Tree

if TYPE_CHECKING:
    from rich.console import Group


class TildeOptions(BaseModel):
    """Hyperparameters of the tree learner (and of its PU adjustment)."""

    model_config = ConfigDict(extra="forbid")

    split: SplitScore = Field(
        default="gain",
        description="Split score: information gain (TILDE's), gain-ratio, or max-bepp "
        "(the child with the largest positive proportion, as TIcE).",
    )
    min_leaf: int = Field(default=2, ge=1, description="Minimal examples in each leaf.")
    max_depth: int = Field(default=8, ge=0, le=64, description="Maximal depth of the tree.")
    lookahead: bool = Field(
        default=False,
        description="Also try a literal that introduces variables together with one that "
        "takes one of them as input (TILDE's lookahead).",
    )
    max_refinements: int = Field(
        default=2000,
        ge=1,
        description="Refinements evaluated per node; beyond it a seeded random sample.",
    )
    max_constants: int = Field(
        default=20, ge=1, description="Constants tried at each #-place (most frequent first)."
    )
    constant_sample: int = Field(
        default=20,
        ge=1,
        description="Examples of a node whose bottom clauses supply the #-place constants.",
    )
    c: float | Literal["ticer", "true"] = Field(
        default=1.0,
        description="Label frequency for PU data: a number in (0, 1], 'true' (the "
        "frequency the experiment's PU labeling used), or 'ticer' (estimated by TIcER).",
    )
    pu_adjust: Literal["probability", "counts"] = Field(
        default="probability",
        description="'probability': divide leaf probabilities by c; 'counts': also use "
        "P = L/c, N = T - P inside the split scores.",
    )
    ticer_split: Literal["gain", "max-bepp"] = Field(
        default="gain", description="Split score of TIcER's tree (the paper: TILDE's gain)."
    )
    ticer_delta: float = Field(
        default=0.1, gt=0, lt=1, description="Confidence parameter delta of TIcER's bound."
    )
    ticer_folds: int = Field(
        default=5,
        ge=3,
        description="Folds TIcER deals the training examples into when the data has no "
        "folds of its own (one grows the tree, the others bound c).",
    )
    ticer_rotate: bool = Field(
        default=False,
        description="Average TIcER's estimate over every fold as the tree fold (the paper "
        "uses one).",
    )
    threshold: float = Field(
        default=0.5, ge=0, le=1, description="predict(): positive when P(pos) >= threshold."
    )

    def c_value(self) -> float | None:
        if isinstance(self.c, float | int):
            if not 0.0 < float(self.c) <= 1.0:
                raise ConfigError(f"learner 'tilde': option 'c' must lie in (0, 1], got {self.c}")
            return float(self.c)
        return None


class TildeModel:
    """A tree; an example's score is its leaf's positive proportion divided by ``c``."""

    learner = "tilde"

    def __init__(
        self,
        tree: Tree,
        *,
        c: float = 1.0,
        threshold: float = 0.5,
        target: str | None = None,
        clauses_evaluated: int = 0,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.tree = tree
        self.c = c
        self.threshold = threshold
        self.target = target
        self.clauses_evaluated = clauses_evaluated
        self.info = dict(info or {})

    def predict_proba(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        ids = np.arange(backend.n_examples) if ids is None else np.asarray(ids, dtype=np.int64)
        return np.minimum(1.0, self.tree.leaf_proportions(backend, ids) / self.c)

    def score(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        return self.predict_proba(backend, ids)

    def predict(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.bool_]:
        return self.predict_proba(backend, ids) >= self.threshold

    def rules(self) -> list[Rule]:
        """The decision list: each leaf's query, weight = its P(pos), its training counts."""
        total_pos = self.tree.root.pos
        out = []
        for clause, node in self.tree.decision_list():
            out.append(
                Rule(
                    clause,
                    weight=min(1.0, node.proportion() / self.c),
                    tp=node.pos,
                    fp=node.neg,
                    precision=node.pos / node.total if node.total else 0.0,
                    recall=node.pos / total_pos if total_pos else 0.0,
                )
            )
        return out

    def explain_table(self, title: str) -> Group:
        from rich.console import Group  # only when a model is shown
        from rich.text import Text

        parts: list[Any] = [Text(title, style="bold")]
        if self.c != 1.0:
            how = self.info.get("c_source", "")
            parts.append(Text(f"label frequency c = {self.c:.4f} {how}".rstrip()))
        parts.append(Text(self.tree.render(self.c)))
        parts.append(Text("\nAs an ordered decision list (first matching clause wins):"))
        parts.append(Text(self.tree.render_prolog(self.c)))
        return Group(*parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": MODEL_FORMAT_VERSION,
            "learner": self.learner,
            "target": self.target,
            "clauses_evaluated": self.clauses_evaluated,
            "c": self.c,
            "threshold": self.threshold,
            "tree": self.tree.to_json(),
            "info": self.info,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TildeModel:
        return cls(
            Tree.from_json(data["tree"]),
            c=float(data.get("c", 1.0)),
            threshold=float(data.get("threshold", 0.5)),
            target=data.get("target"),
            clauses_evaluated=int(data.get("clauses_evaluated", 0)),
            info=data.get("info", {}),
        )


class TildeLearner:
    name = "tilde"
    capabilities: ClassVar[LearnerCapabilities] = LearnerCapabilities(
        takes_search=False,
        takes_scorer=False,
        splits_trees=True,
        quick_options={"max_depth": 2, "max_refinements": 200},
    )

    def __init__(self, options: TildeOptions | None = None) -> None:
        self.options = options if options is not None else TildeOptions()

    def model_from_json(self, data: dict[str, Any]) -> TildeModel:
        return TildeModel.from_json(data)

    def fit(self, task: Task, ctx: LearnContext) -> TildeModel:
        opts = self.options
        fixed_c = opts.c_value()
        train = np.asarray(ctx.train(task), dtype=np.int64)
        target = task.target
        head_mode = next((m for m in task.bias.modeh if m.indicator == target), None)
        if head_mode is None or target is None:
            raise DataError(f"{task.name}: the tree learner needs a modeh for the target")
        positive = task.examples.labels == POS
        if not positive[train].any():
            raise DataError(f"{task.name}: no positive (labeled) training example")
        inducer = Inducer(
            backend=ctx.backend,
            head_mode=head_mode,
            body_modes=tuple(task.bias.body_modes_for(target)),
            positive=positive,
            weights=task.examples.weights,
            options=InduceOptions(
                split_score=opts.split,
                min_leaf=opts.min_leaf,
                max_depth=opts.max_depth,
                lookahead=opts.lookahead,
                max_refinements=opts.max_refinements,
                max_constants=opts.max_constants,
                constant_sample=opts.constant_sample,
            ),
            rng=ctx.rng("tilde"),
            depth=int(ctx.settings["i"]),
            on_node=lambda n: ctx.progress(n, 0, "tree nodes"),
        )
        info: dict[str, Any] = {"seed": ctx.seed}
        if fixed_c is not None:
            c = fixed_c
            info["c_source"] = "(given)" if c != 1.0 else ""
        elif opts.c == "true":
            true_c = task.label_frequency
            if true_c is None:
                raise ConfigError(
                    "learner 'tilde': c='true' needs the PU labeling drawn by the experiment "
                    "(ilpkit cv ... --pu-label-frequency C); this data has none"
                )
            c = true_c
            info["c_source"] = "(the labeling's true c)"
        else:
            # the same tree learner on labeled vs unlabeled, sharing the saturation cache
            ticer_inducer = replace(
                inducer,
                options=replace(inducer.options, split_score=opts.ticer_split),
                rng=ctx.rng("ticer"),
                stats=InduceStats(),
                on_node=None,
            )
            result = estimate_label_frequency(
                task,
                ticer_inducer,
                train,
                k=opts.ticer_folds,
                delta=opts.ticer_delta,
                rotate=opts.ticer_rotate,
                seed=ctx.seed,
            )
            c = result.c
            info["c_source"] = "(TIcER estimate)"
            info["ticer"] = result.to_json()
            info["ticer_refinements"] = ticer_inducer.stats.refinements_evaluated
            if result.at_floor:
                info[DEGENERATE] = [TICER_FLOOR]
        if opts.pu_adjust == "counts" and c < 1.0:
            inducer.options = replace(inducer.options, c=c, count_adjust=True)
        tree = inducer.grow(train)
        stats = inducer.stats
        info.update(
            nodes=stats.nodes,
            depth=tree.root.depth(),
            leaves=sum(1 for _ in tree.root.leaves()),
            refinements_dropped=stats.refinements_dropped,
            saturations=stats.saturations,
        )
        evaluated = stats.refinements_evaluated + int(info.get("ticer_refinements", 0))
        return TildeModel(
            tree,
            c=c,
            threshold=opts.threshold,
            target=task.target_name,
            clauses_evaluated=evaluated,
            info=info,
        )


SPEC = PluginSpec(
    kind="learner",
    name="tilde",
    factory=TildeLearner,
    options=TildeOptions,
    doc="First-order logical decision tree (TILDE); PU data via the label frequency c "
    "(a number, the labeling's true c, or TIcER's estimate).",
)
