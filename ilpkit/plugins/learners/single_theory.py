"""``single-theory``: one covering theory, its rules weighted on the tune set (ch. 4.2).

The control that asks whether Gleaner's gains come from many clauses or from how they are
combined: a single Aleph theory is learnt on the training examples, each rule's tune-set counts
(TP, FP of P, N) are measured, and an example is scored from the rules that cover it:

========== ==========================================================================
scheme     score of an example covered by the rules R (0 when R is empty)
========== ==========================================================================
ranked     max over R of the m-estimate of tune precision, (TP + m) / (TP + FP + 2m)
lfpr       max over R of 1 - FP/N (the matching rule with the lowest false positive rate)
cn2        sum TP / (sum TP + sum FP) over R (CN2's aggregated precision)
vote       mean tune precision over R (weighted vote)
count      |R|, the number of matching rules (cumulative)
precision  sum of tune precision over R (cumulative)
recall     sum of tune recall over R (cumulative)
f1         sum of tune F1 over R (cumulative)
========== ==========================================================================

``ranked`` uses the m-estimate as the dissertation's section 4.2 writes it (``m_estimate=
"dissertation"``); ``m_estimate="prior"`` offers the textbook form with the class prior,
(TP + m P/(P+N)) / (TP + FP + m).  Every rule of the theory covers at least ``min_tune_pos``
(default 2) tune positives (section 4.2.1): the covering loop does not accept others.

Without tune examples the training examples are used.  ``predict`` says positive when any
rule covers the example (the theory's own classification).

The theory does not depend on the scheme, so the eight schemes learn the same one.  With
``theory_cache`` (a directory) the first run stores it per (data, split, seed, backend,
search, scorer, settings, ``max_rules``, ``min_tune_pos``) and the others read it
(:mod:`ilpkit.core.fit_cache`): eight schemes cost one theory plus eight weightings (the
rules' tune coverage).  ``scheme``, ``m`` and ``m_estimate`` are not in the key.  The model's
``info["theory_cache"]`` names the file and says whether the theory was read from it.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.coverage import Coverage
from ilpkit.core.fit_cache import cached_fit, fit_key
from ilpkit.core.learner import (
    MODEL_FORMAT_VERSION,
    ClauseBackend,
    LearnContext,
    LearnerCapabilities,
    Rule,
)
from ilpkit.core.limits import coverage_within_limits
from ilpkit.core.metrics import f1
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.task import NEG, POS, Task
from ilpkit.plugins.learners.theory import TheoryLearner, TheoryModel, TheoryOptions

Scheme = Literal["ranked", "lfpr", "cn2", "vote", "count", "precision", "recall", "f1"]
MEstimate = Literal["dissertation", "prior"]


class SingleTheoryOptions(BaseModel):
    """Hyperparameters of the single-theory weighting control."""

    model_config = ConfigDict(extra="forbid")

    scheme: Scheme = Field(default="ranked", description="How matching rules are combined.")
    m: float = Field(default=2.0, ge=0, description="m of the m-estimate (scheme ranked).")
    max_rules: int | None = Field(default=None, ge=1, description="Cut the theory at C rules.")
    m_estimate: MEstimate = Field(
        default="dissertation",
        description="Scheme ranked: 'dissertation' (TP + m) / (TP + FP + 2m) (sec. 4.2) or "
        "'prior' (TP + m P/(P+N)) / (TP + FP + m).",
    )
    min_tune_pos: int = Field(
        default=2,
        ge=0,
        description="Every rule of the theory covers at least this many tune-set positives "
        "(dissertation 4.2.1; the training positives when there is no tune set).",
    )
    theory_cache: str | None = Field(
        default=None,
        description="Directory caching the learnt theory per split, so runs that differ "
        "only in scheme, m or m_estimate learn it once.",
    )

    def theory_options(self) -> TheoryOptions:
        """The covering learner's options: all that decides the theory (with the context)."""
        return TheoryOptions(max_rules=self.max_rules, min_tune_pos=self.min_tune_pos)


def rule_weights(
    scheme: Scheme, tp: npt.NDArray[np.float64], fp: npt.NDArray[np.float64], p: float,
    n: float, m: float, m_estimate: MEstimate = "dissertation",
) -> npt.NDArray[np.float64]:  # fmt: skip
    """Each rule's weight under ``scheme`` from its tune counts."""
    covered = tp + fp
    precision = np.divide(tp, covered, out=np.zeros_like(tp), where=covered > 0)
    if scheme == "ranked" and m_estimate == "dissertation":
        paper_denominator = covered + 2.0 * m
        return np.divide(
            tp + m, paper_denominator, out=np.zeros_like(tp), where=paper_denominator > 0
        )
    if scheme == "ranked":
        prior = p / (p + n) if p + n > 0 else 0.0
        denominator = covered + m
        return np.divide(tp + m * prior, denominator, out=np.zeros_like(tp), where=denominator > 0)
    if scheme == "lfpr":
        return 1.0 - fp / n if n > 0 else np.ones_like(fp)
    if scheme in ("vote", "precision"):
        return precision
    if scheme == "recall":
        return tp / p if p > 0 else np.zeros_like(tp)
    if scheme == "f1":
        return np.array([f1(a, b, p) for a, b in zip(tp, fp, strict=True)])
    return np.ones_like(tp)  # count, cn2 (cn2 combines counts, not weights)


def combine(
    scheme: Scheme,
    matches: npt.NDArray[np.bool_],
    weights: npt.NDArray[np.float64],
    tp: npt.NDArray[np.float64],
    fp: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """Scores of examples from the rules matching them (``matches``: examples x rules)."""
    hits = matches.sum(axis=1)
    if scheme in ("ranked", "lfpr"):
        best: npt.NDArray[np.float64] = np.where(matches, weights, 0.0).max(axis=1, initial=0.0)
        return best
    if scheme == "cn2":
        sum_tp = matches @ tp
        sum_all = matches @ (tp + fp)
        share: npt.NDArray[np.float64] = np.divide(
            sum_tp, sum_all, out=np.zeros_like(sum_tp), where=sum_all > 0
        )
        return share
    total: npt.NDArray[np.float64] = matches @ weights
    if scheme == "vote":
        mean: npt.NDArray[np.float64] = np.divide(
            total, hits, out=np.zeros_like(total), where=hits > 0
        )
        return mean
    return total


class SingleTheoryModel:
    """A theory and its rules' tune counts; scores combine the matching rules."""

    learner = "single-theory"

    def __init__(
        self,
        theory: TheoryModel,
        options: SingleTheoryOptions,
        tune_tp: list[float],
        tune_fp: list[float],
        tune_p: float,
        tune_n: float,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.theory = theory
        self.info = dict(info or {})
        """How the model was learnt (backend, limits met; saved with it)."""
        self.options = options
        self.tune_tp = np.asarray(tune_tp, dtype=np.float64)
        self.tune_fp = np.asarray(tune_fp, dtype=np.float64)
        self.tune_p = tune_p
        self.tune_n = tune_n

    @property
    def clauses_evaluated(self) -> int:
        return self.theory.clauses_evaluated

    def _matches(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None
    ) -> npt.NDArray[np.bool_]:
        n = backend.n_examples
        ids = np.arange(n, dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
        position = np.full(n, -1, dtype=np.int64)
        position[ids] = np.arange(len(ids))
        among = Coverage(ids, n)
        clauses = self.theory.clauses()
        out = np.zeros((len(ids), len(clauses)), dtype=bool)
        for j, clause in enumerate(clauses):
            out[position[coverage_within_limits(backend, clause, among).ids], j] = True
        return out

    def score(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        o = self.options
        weights = rule_weights(
            o.scheme, self.tune_tp, self.tune_fp, self.tune_p, self.tune_n, o.m, o.m_estimate
        )
        return combine(o.scheme, self._matches(backend, ids), weights, self.tune_tp, self.tune_fp)

    def predict(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.bool_]:
        return np.asarray(self._matches(backend, ids).any(axis=1), dtype=bool)

    def rules(self) -> list[Rule]:
        o = self.options
        weights = rule_weights(
            o.scheme, self.tune_tp, self.tune_fp, self.tune_p, self.tune_n, o.m, o.m_estimate
        )
        return [
            Rule(r.clause, float(w), r.tp, r.fp, r.precision, r.recall)
            for r, w in zip(self.theory.rules(), weights, strict=True)
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": MODEL_FORMAT_VERSION,
            "learner": self.learner,
            "clauses_evaluated": self.clauses_evaluated,
            "options": self.options.model_dump(),
            "theory": self.theory.to_json(),
            "tune": {
                "tp": self.tune_tp.tolist(),
                "fp": self.tune_fp.tolist(),
                "p": self.tune_p,
                "n": self.tune_n,
            },
            "rules": [r.to_json() for r in self.rules()],
            "info": self.info,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SingleTheoryModel:
        tune = data["tune"]
        return cls(
            TheoryModel.from_json(data["theory"]),
            SingleTheoryOptions(**data["options"]),
            tune["tp"],
            tune["fp"],
            float(tune["p"]),
            float(tune["n"]),
            data.get("info", {}),
        )


class SingleTheoryLearner:
    name = "single-theory"
    capabilities = LearnerCapabilities(
        uses_tune=True,
        takes_combiner=True,
        # tiny check data: its rules cover too few positives for the paper's two
        quick_options={"min_tune_pos": 1},
    )

    def __init__(self, options: SingleTheoryOptions | None = None) -> None:
        self.options = options if options is not None else SingleTheoryOptions()

    def model_from_json(self, data: dict[str, Any]) -> SingleTheoryModel:
        return SingleTheoryModel.from_json(data)

    def theory(self, task: Task, ctx: LearnContext) -> tuple[TheoryModel, dict[str, Any]]:
        """The covering theory, from ``theory_cache`` when it holds this split's, and the
        model's info (the theory's, and ``theory_cache``: its file and whether it was read)."""
        theory_options = self.options.theory_options()

        def fit() -> TheoryModel:
            return TheoryLearner(theory_options).fit(task, ctx)

        if self.options.theory_cache is None:
            theory = fit()
            return theory, dict(theory.info)
        key = fit_key(task, ctx, theory=theory_options.model_dump())
        cached = cached_fit(
            self.options.theory_cache, "theory", key, fit, TheoryModel.to_json,
            TheoryModel.from_json,
        )  # fmt: skip
        return cached.value, {**cached.value.info, "theory_cache": cached.info()}

    def fit(self, task: Task, ctx: LearnContext) -> Any:
        theory, info = self.theory(task, ctx)
        if ctx.combiner is not None:  # the theory's rules, one member (the theory)
            from ilpkit.core.combiner import fit_pool

            rules = theory.clauses()
            return fit_pool(
                self.name,
                task,
                ctx,
                rules,
                [0] * len(rules),
                "theory",
                clauses_evaluated=theory.clauses_evaluated,
                info=info,
            )
        tune = ctx.tune_ids if ctx.tune_ids is not None and len(ctx.tune_ids) else ctx.train(task)
        labels = task.examples.labels[tune]
        weights = task.examples.weights[tune]
        n_examples = len(task.examples)
        position = np.full(n_examples, -1, dtype=np.int64)
        position[tune] = np.arange(len(tune))
        among = Coverage(tune, n_examples)
        tps, fps = [], []
        for clause in theory.clauses():
            hit = position[coverage_within_limits(ctx.backend, clause, among).ids]
            tps.append(float(weights[hit][labels[hit] == POS].sum()))
            fps.append(float(weights[hit][labels[hit] == NEG].sum()))
        p = float(weights[labels == POS].sum())
        n = float(weights[labels == NEG].sum())
        return SingleTheoryModel(theory, self.options, tps, fps, p, n, info)


SPEC = PluginSpec(
    kind="learner",
    name="single-theory",
    factory=SingleTheoryLearner,
    options=SingleTheoryOptions,
    doc="One covering theory whose rules are weighted on the tune set (ranked, lfpr, cn2, ...).",
)
