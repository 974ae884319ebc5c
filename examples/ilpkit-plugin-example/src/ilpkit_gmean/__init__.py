"""An example ilpkit plugin package: the ``gmean`` scorer, the ``csvex`` dataset format and
the ``best-clause`` combiner.

gmean(clause) = sqrt(precision * recall), with a minimum number of covered positives below
which a clause scores 0.  The whole plugin is the scorer class, its options model and the
``ilpkit_register_plugins`` hook that returns their :class:`PluginSpec`. The same hook
registers a dataset format (:mod:`ilpkit_gmean.csvex`): ``ilpkit data check DIR`` then
detects it, and ``--format csvex`` chooses it; and a combiner (:mod:`ilpkit_gmean.bestclause`):
``--combiner best-clause`` on any pool learner.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.coverage import Counts
from ilpkit.core.formats import DatasetFormat
from ilpkit.core.plugins import NoOptions, PluginSpec, hookimpl
from ilpkit.core.scoring import Scorer


class GMeanOptions(BaseModel):
    """Options of the gmean scorer (checked by ilpkit: `--set scorer.min_tp=2`)."""

    model_config = ConfigDict(extra="forbid")

    min_tp: float = Field(
        default=1.0, ge=0, description="Clauses covering fewer positives score 0."
    )


class GMeanScorer(Scorer):
    """Geometric mean of precision and recall."""

    name = "gmean"

    def __init__(self, options: GMeanOptions | None = None) -> None:
        self.options = options if options is not None else GMeanOptions()

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        if counts.tp < self.options.min_tp:
            return 0.0
        return math.sqrt(counts.precision * counts.recall)


@hookimpl
def ilpkit_register_plugins() -> list[PluginSpec[Any]]:
    return [
        PluginSpec(
            kind="scorer",
            name="gmean",
            factory=GMeanScorer,
            options=GMeanOptions,
            doc="Geometric mean of precision and recall (example third-party plugin).",
        ),
        PluginSpec(
            kind="format",
            name="csvex",
            factory=_csvex,
            options=NoOptions,
            doc="background.pl (Aleph) + examples.csv (example,label): example format plugin.",
        ),
        PluginSpec(
            kind="combiner",
            name="best-clause",
            factory=_best_clause,
            options=_best_clause_options(),
            doc="The best training precision among the covering clauses (example combiner).",
        ),
    ]


def _best_clause(options: Any) -> Any:
    from ilpkit_gmean.bestclause import BestClauseCombiner

    return BestClauseCombiner(options)


def _best_clause_options() -> type[BaseModel]:
    from ilpkit_gmean.bestclause import BestClauseOptions

    return BestClauseOptions


def _csvex(options: NoOptions) -> DatasetFormat:
    from ilpkit_gmean.csvex import FORMAT

    return FORMAT
