"""``gleanersrl``: GleanerSRL (Goadrich & Shavlik, "Combining clauses with various precisions
and recalls to produce accurate probabilistic estimates"), calibrated probabilities in four
stages (Fig. 1):

1. Gleaner's stage 1, reused as is (:class:`~ilpkit.plugins.learners.gleaner.GleanerLearner`):
   B recall bins, K seeds, N clauses per seed (RRR, precision*recall); Gleaner's own stage 2
   also runs, for the ``gleaner`` baseline's ranking bin.
2. Features (sec. 2.2, :mod:`.features`): Boolean, binned, binned-normalised (or the
   baseline's one feature, Gleaner's own score).
3. Score (sec. 2.3, :mod:`.svm`): an SVM with a ``kernel`` plugin (Table 1, :mod:`.kernels`),
   C chosen among ``c_grid`` (10^4 .. 10^-4) on the tune set.
4. Calibration (sec. 2.4, sec. 3): isotonic regression (pool adjacent violators) of the tune
   set's scores; prob_min chosen among ``prob_min_grid`` (0.25 .. 0.0001) by leave-one-out on
   the tune set; probabilities clipped to ``[prob_min, 1 - prob_min]``.

Decisions (the paper leaves them open): C and prob_min are chosen together, by the lowest
tune-set mean cross entropy of leave-one-out isotonic probabilities (ties: the earlier grid
value) among the SVM fits that converged (``svm_solver.tune_svm``); the SVM is the paper's
hinge-loss soft-margin SVM unless ``svm_loss="squared-hinge"``; the nine prob_min values are
0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.001, 0.0005, 0.0001; feature statistics (precision,
recall, TP+FP) are measured on the training set, as the paper does; without tune examples the
training set tunes and calibrates (``info``).

``stage1_cache``: a directory where stage 1 is stored per (data, split, seed, backend, Gleaner
options, search, scorer, settings), so several variants cross-validated on the same folds search
once (:mod:`ilpkit.core.fit_cache`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import Field, model_validator

from ilpkit.core.calibration import isotonic_fit
from ilpkit.core.degenerate import DEGENERATE, GLEANER_COVERS_ALL, recorded_notes
from ilpkit.core.fit_cache import cached_fit, fit_key
from ilpkit.core.learner import LearnContext, LearnerCapabilities
from ilpkit.core.plugins import PluginSpec, get_plugin_manager
from ilpkit.core.task import POS, Task
from ilpkit.errors import ConfigError
from ilpkit.plugins.combiners.kernels import FeatureStats, Kernel
from ilpkit.plugins.combiners.svm_solver import (
    ALL_UNCONVERGED,
    SVMScore,
    SvmSolverOptions,
    fit_svm,
    one_blas_thread,
    tune_floor,
    tune_svm,
)
from ilpkit.plugins.learners.gleaner import GleanerLearner, GleanerModel, GleanerOptions
from ilpkit.plugins.learners.gleanersrl.features import FeatureKind, build_space
from ilpkit.plugins.learners.gleanersrl.model import GleanerSRLModel

_FEATURE_PREFIXES: tuple[FeatureKind, ...] = ("binned-normalised", "binned", "boolean")


class GleanerSRLOptions(SvmSolverOptions, GleanerOptions):
    """Gleaner's stage-1 options, and stages 2-4 of GleanerSRL."""

    features: FeatureKind = Field(
        default="boolean",
        description="Stage 2: boolean (one per clause), binned, binned-normalised, or gleaner "
        "(baseline: Gleaner's own score, no SVM).",
    )
    kernel: str = Field(
        default="dot",
        description="Stage 3: a kernel plugin (dot, precision, recall, both-pos, info); "
        "'binned-dot' etc. also set features.",
    )
    stage1_cache: str | None = Field(
        default=None, description="Directory caching stage 1 (Gleaner's clauses) per split."
    )

    @model_validator(mode="before")
    @classmethod
    def _variant(cls, data: Any) -> Any:
        """``kernel="binned-dot"`` is ``features="binned", kernel="dot"``; ``kernel="gleaner"``
        the baseline."""
        if not isinstance(data, dict) or not isinstance(data.get("kernel"), str):
            return data
        kernel = data["kernel"]
        if kernel == "gleaner":
            return {**data, "features": "gleaner", "kernel": "dot"}
        for prefix in _FEATURE_PREFIXES:
            if kernel.startswith(prefix + "-"):
                return {**data, "features": prefix, "kernel": kernel[len(prefix) + 1 :]}
        return data


class GleanerSRLLearner:
    name = "gleanersrl"
    capabilities = LearnerCapabilities(
        default_search="rrr",
        default_scorer="pr",
        has_members=True,
        uses_tune=True,
        quick_options={"seeds": 2, "clauses_per_seed": 20},
    )
    """Stage 1's seeds are independent members that ``ctx.executor`` may run."""

    def __init__(self, options: GleanerSRLOptions | None = None) -> None:
        self.options = options if options is not None else GleanerSRLOptions()

    def model_from_json(self, data: dict[str, Any]) -> GleanerSRLModel:
        return GleanerSRLModel.from_json(data)

    def kernel(self) -> Kernel:
        manager = get_plugin_manager()
        if self.options.kernel not in manager.names("kernel"):
            manager.get("kernel", self.options.kernel)  # raises with "did you mean"
        kernel: Kernel = manager.make("kernel", self.options.kernel, {})
        return kernel

    # -- stage 1 -------------------------------------------------------------------------------
    def gleaner_options(self) -> GleanerOptions:
        fields = GleanerOptions.model_fields
        return GleanerOptions(**{k: v for k, v in self.options.model_dump().items() if k in fields})

    def stage1(self, task: Task, ctx: LearnContext) -> GleanerModel:
        """Gleaner's clauses (its stage 1, and its stage 2 for the baseline), from the cache
        when ``stage1_cache`` holds this split's (:mod:`ilpkit.core.fit_cache`)."""
        gleaner = GleanerLearner(self.gleaner_options())

        def fit() -> GleanerModel:
            model = gleaner.fit(task, replace(ctx, combiner=None))  # Gleaner's own model
            assert isinstance(model, GleanerModel)
            return model

        if self.options.stage1_cache is None:
            return fit()
        key = fit_key(task, ctx, gleaner=gleaner.options.model_dump())
        cached = cached_fit(
            self.options.stage1_cache, "stage1", key, fit, GleanerModel.to_json,
            GleanerModel.from_json,
        )  # fmt: skip
        return cached.value

    # -- stages 2-4 ----------------------------------------------------------------------------
    def fit(self, task: Task, ctx: LearnContext) -> GleanerSRLModel:
        gleaner = self.stage1(task, ctx)
        # Stages 2 and 3 with the BLAS on one thread: the SVM fits are (svm_solver), but the
        # features and tune scores around them were not, and an unconverged fit amplifies
        # their rounding (on an AMD EPYC, UW-CSE's binned-dot tuning row at C = 10^4: MCE
        # 0.1411 with 1 OpenBLAS thread, 0.1481 with 2).
        with one_blas_thread():
            return self._stages_2_and_3(task, ctx, gleaner)

    def _stages_2_and_3(
        self, task: Task, ctx: LearnContext, gleaner: GleanerModel
    ) -> GleanerSRLModel:
        opts = self.options
        kernel = self.kernel()
        labels = task.examples.labels
        train = ctx.train(task)
        tune_given = ctx.tune_ids is not None and len(ctx.tune_ids) > 0
        tune = ctx.tune_ids if tune_given and ctx.tune_ids is not None else train
        pos_train = labels[train] == POS
        y_tune = labels[tune] == POS
        space, booleans = build_space(
            opts.features, gleaner.bin_clauses(), gleaner.ranking_bin, ctx.backend, train,
            pos_train,
        )  # fmt: skip
        x_train = space.from_booleans(booleans)
        x_tune = space.transform(ctx.backend, tune)
        stats = FeatureStats.measure(x_train, pos_train)
        clause_stats = FeatureStats.measure(booleans, pos_train)
        info: dict[str, Any] = {
            "seed": ctx.seed,
            "tune_is_train": not tune_given,
            "features": space.n_features,
            "clauses": len(space.clauses),
            "clause_stats": [
                [float(a), float(b), float(c), float(d)]
                for a, b, c, d in zip(
                    clause_stats.tp,
                    clause_stats.fp,
                    clause_stats.precision,
                    clause_stats.recall,
                    strict=True,
                )
            ],
        }
        if "start_fallbacks" in gleaner.info:  # stage 1's searches did not start uniformly
            info["start_fallbacks"] = gleaner.info["start_fallbacks"]
        stage1_notes = [n for n in recorded_notes(gleaner.info) if n != GLEANER_COVERS_ALL]
        if stage1_notes:
            info[DEGENERATE] = stage1_notes
        candidates = self._candidates(x_train, pos_train, kernel, stats, ctx.seed)

        def tune_scores(svm: SVMScore | None) -> npt.NDArray[np.float64]:
            if svm is None:
                return np.asarray(x_tune, dtype=np.float64)[:, 0]
            return svm.decision(x_tune, kernel, stats)

        tuned = tune_svm(candidates, tune_scores, y_tune, tuple(opts.prob_min_grid))
        all_unconverged = tuned.notes.pop("all_unconverged", False)
        info.update(tuned.notes)
        info["tuning"] = tuned.tuning
        if all_unconverged:
            info.setdefault(DEGENERATE, []).append(ALL_UNCONVERGED)
        svm, s_tune, prob_min = tuned.svm, tuned.scores, tuned.prob_min
        iso = isotonic_fit(s_tune, y_tune)
        return GleanerSRLModel(
            opts.model_dump(),
            space,
            stats,
            svm,
            iso,
            prob_min,
            clauses_evaluated=gleaner.clauses_evaluated,
            target=task.target_name,
            info=info,
        )

    def _candidates(
        self,
        x_train: Any,
        pos_train: npt.NDArray[np.bool_],
        kernel: Kernel,
        stats: FeatureStats,
        seed: int,
    ) -> list[tuple[SVMScore | None, dict[str, Any]]]:
        """One trained SVM per C (none for the gleaner baseline; a zero scorer without
        features)."""
        opts = self.options
        if opts.features == "gleaner":
            return [(None, {})]
        if x_train.shape[1] == 0:
            return [(SVMScore(float("nan"), 0.0, weights=np.zeros(0)), {})]
        if not 0 < pos_train.sum() < len(pos_train):
            raise ConfigError("gleanersrl: the training set needs positive and negative examples")
        weight = None if opts.class_weight == "none" else opts.class_weight
        return [
            fit_svm(
                x_train,
                pos_train,
                kernel,
                stats,
                C,
                seed=seed % (2**31),
                class_weight=weight,
                max_kernel_examples=opts.max_kernel_examples,
                max_iter=opts.svm_max_iter,
                loss=opts.svm_loss,
            )
            for C in opts.c_grid
        ]

    tune_floor = staticmethod(tune_floor)  # the svm combiner's: one calibration step


SPEC = PluginSpec(
    kind="learner",
    name="gleanersrl",
    factory=GleanerSRLLearner,
    options=GleanerSRLOptions,
    doc="GleanerSRL: Gleaner's clauses as features, kernel SVM, isotonic calibrated probabilities.",
)
