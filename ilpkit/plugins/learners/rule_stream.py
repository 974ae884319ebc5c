"""What R4F and static-rf share: the rule language options, the training examples, the random
rule generator they draw from and the counts they report about it.

Both learners (``r4f``, ``static-rf``) draw their tests from one seeded stream of non-trivial
random relational rules (:class:`ilpkit.plugins.search.random_rules.RandomRuleGenerator`) over
the labelled training examples; only what they do with the rules differs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.distinct import distinct
from ilpkit.core.learner import LearnContext
from ilpkit.core.task import NEG, POS, Task
from ilpkit.errors import DataError
from ilpkit.plugins.search.random_rules import RandomRuleGenerator, restrict_bias


class RuleLanguageOptions(BaseModel):
    """The options of the random rules (shared by ``r4f`` and ``static-rf``)."""

    model_config = ConfigDict(extra="forbid")

    clauselength: int | None = Field(
        default=None, ge=2, description="Longest random rule, counting the head (None: data's)."
    )
    depth: int | None = Field(
        default=None, ge=1, description="Saturation depth i for the rules (None: the data's)."
    )
    predicates: str | None = Field(
        default=None,
        description="Comma-separated body predicates the rules may use (name or name/arity; "
        "None: every body mode), e.g. atm,bond for Mutagenesis' atoms and bonds.",
    )


def training_positions(task: Task, ctx: LearnContext) -> npt.NDArray[np.int64]:
    """Sorted labelled training ids (both classes must be present)."""
    labels = task.examples.labels
    train = distinct(ctx.train(task))
    train = train[np.isin(labels[train], (POS, NEG))]
    if not (np.any(labels[train] == POS) and np.any(labels[train] == NEG)):
        raise DataError(f"{task.name}: a forest needs positive and negative training examples")
    return train.astype(np.int64)


def rule_generator(
    task: Task,
    ctx: LearnContext,
    train: npt.NDArray[np.int64],
    options: RuleLanguageOptions,
    *,
    salt: str,
    prefixes: bool = True,
) -> RandomRuleGenerator:
    """The learner's stream of random rules over ``train`` (seeded by ``salt``); the data's
    ``clauselength`` and ``i`` unless ``options`` override them."""
    settings = ctx.settings
    return RandomRuleGenerator(
        ctx.backend,
        restrict_bias(task.bias, options.predicates),
        train,
        ctx.rng(salt, "rules"),
        clauselength=options.clauselength or int(settings["clauselength"]),
        depth=options.depth or int(settings["i"]),
        prefixes=prefixes,
    )


def generation_info(
    generator: RandomRuleGenerator, ctx: LearnContext, seconds: float
) -> dict[str, Any]:
    """The model ``info`` both learners report about their rules (``seconds``: CPU seconds of
    the whole fit)."""
    split = generator.split
    return {
        "seed": ctx.seed,
        "rules_generated": generator.generated,
        "trivial_rules": generator.generated - generator.kept,
        "rules_over_limit": generator.over_limit,
        "parts_asked": split.asked,
        "parts_reused": split.reused,
        "parts_over_limit": split.over_limit,
        "goals_dropped": generator.goals_dropped,
        "cpu_seconds": seconds,
        "coverage_cpu_seconds": generator.coverage_seconds,
        "saturation_cpu_seconds": generator.saturation_seconds,
        "rules_per_second": generator.generated / seconds if seconds > 0 else 0.0,
        "seeds_saturated": generator.saturated,
    }


__all__ = ["RuleLanguageOptions", "generation_info", "rule_generator", "training_positions"]
