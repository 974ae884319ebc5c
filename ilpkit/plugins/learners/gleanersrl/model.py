"""The fitted GleanerSRL model: features, SVM, isotonic calibration and the floor (data)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.calibration import Isotonic
from ilpkit.core.learner import MODEL_FORMAT_VERSION, ClauseBackend, Rule
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.plugins.combiners.kernels import FeatureStats, Kernel
from ilpkit.plugins.combiners.svm_solver import SVMScore
from ilpkit.plugins.learners.gleanersrl.features import FeatureSpace

if TYPE_CHECKING:
    from rich.table import Table

FloatArray = npt.NDArray[np.float64]


class GleanerSRLModel:
    """``score`` returns calibrated probabilities in ``[prob_min, 1 - prob_min]``."""

    learner = "gleanersrl"
    scores_are_probabilities = True

    def __init__(
        self,
        options: dict[str, Any],
        space: FeatureSpace,
        stats: FeatureStats,
        svm: SVMScore | None,
        isotonic: Isotonic,
        prob_min: float,
        *,
        clauses_evaluated: int,
        target: str | None = None,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.options = options
        self.space = space
        self.stats = stats
        self.svm = svm
        self.isotonic = isotonic
        self.prob_min = prob_min
        self.clauses_evaluated = clauses_evaluated
        self.target = target
        self.info = dict(info or {})

    @property
    def kernel_name(self) -> str:
        return str(self.options.get("kernel", "dot"))

    @property
    def probability_floor(self) -> float:
        """The tuned prob_min: the floor of this model's mean cross entropy."""
        return self.prob_min

    def kernel(self) -> Kernel:
        kernel: Kernel = get_plugin_manager().make("kernel", self.kernel_name, {})
        return kernel

    # -- scores --------------------------------------------------------------------------------
    def raw_scores(self, x: Any) -> FloatArray:
        """Stage 3 on feature rows: the SVM's decision value (gleaner: the feature itself)."""
        if self.svm is None:
            return np.asarray(x, dtype=np.float64)[:, 0].copy()
        return self.svm.decision(x, self.kernel(), self.stats)

    def calibrate(self, scores: FloatArray) -> FloatArray:
        """Stage 4: isotonic probability, clipped to ``[prob_min, 1 - prob_min]``."""
        return np.clip(self.isotonic(scores), self.prob_min, 1.0 - self.prob_min)

    def score(self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None) -> FloatArray:
        ids = _all(backend, ids)
        return self.calibrate(self.raw_scores(self.space.transform(backend, ids)))

    predict_proba = score

    def predict(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.bool_]:
        return self.score(backend, ids) >= 0.5

    # -- explanation ---------------------------------------------------------------------------
    def feature_weights(self) -> FloatArray | None:
        """Each feature's weight on its raw value (``w . phi(e_f)``), for kernels with a
        linear feature map; ``None`` for the info kernel (its SVM is in dual form)."""
        if self.svm is None:
            return np.ones(1)
        if self.svm.weights is None:
            return None
        eye = np.eye(self.space.n_features)
        phi = self.kernel().feature_map(eye, self.stats)
        if phi is None:
            return None
        return np.asarray(phi @ self.svm.weights, dtype=np.float64).ravel()

    def clause_weights(self) -> FloatArray | None:
        """Each clause's weight: its feature's (boolean), or the sum over the bins that hold
        it of the bin's weight times what the clause adds to the bin's feature."""
        w = self.feature_weights()
        if w is None or self.space.kind == "boolean":
            return w
        return (self.space.bin_matrix() / self.space.scale[None, :]) @ w

    def rules(self) -> list[Rule]:
        """The clauses, largest absolute weight first (weight 0 when the SVM has none)."""
        w = self.clause_weights()
        clause_stats = self._clause_stats()
        rules = []
        for c, clause in enumerate(self.space.clauses):
            tp, fp, prec, rec = clause_stats[c]
            weight = 0.0 if w is None else float(w[c])
            rules.append(Rule(clause, weight, tp, fp, prec, rec))
        return sorted(rules, key=lambda r: -abs(r.weight))

    def _clause_stats(self) -> list[tuple[float, float, float, float]]:
        if self.space.kind == "boolean":
            s = self.stats
            return list(zip(s.tp, s.fp, s.precision, s.recall, strict=True))
        cs = self.info.get("clause_stats")
        if cs is None:
            return [(0.0, 0.0, float(p), 0.0) for p in self.space.precision]
        return [(float(a), float(b), float(c), float(d)) for a, b, c, d in cs]

    def explain_table(self, title: str, top: int = 25) -> Table:
        """The features with the largest weights, each shown as its clause(s)."""
        from rich.table import Table  # only when a model is shown

        table = Table(title=title, show_lines=True)
        for name in ("#", "feature", "weight", "TP", "FP", "prec", "rec", "clauses"):
            table.add_column(name, justify="left" if name in ("feature", "clauses") else "right")
        w = self.feature_weights()
        names = self.space.feature_names()
        order = (
            list(range(len(names)))
            if w is None
            else sorted(range(len(names)), key=lambda f: -abs(float(w[f])))
        )
        s = self.stats
        for rank, f in enumerate(order[:top], 1):
            if self.space.kind == "boolean":
                shown = str(self.space.clauses[f])
            else:
                shown = "\n".join(
                    str(self.space.clauses[c]) for c in sorted(set(self.space.bins[f]))
                )
            table.add_row(
                str(rank),
                names[f] if self.space.kind != "boolean" else f"clause {f}",
                "dual" if w is None else f"{float(w[f]):+.4f}",
                f"{s.tp[f]:g}",
                f"{s.fp[f]:g}",
                f"{s.precision[f]:.3f}",
                f"{s.recall[f]:.3f}",
                shown,
            )
        table.caption = (
            f"{self.space.n_features} features ({self.space.kind}), kernel {self.kernel_name}, "
            f"C {self.svm.C if self.svm else '-'}, prob_min {self.prob_min}"
        )
        return table

    # -- JSON ----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": MODEL_FORMAT_VERSION,
            "learner": self.learner,
            "target": self.target,
            "clauses_evaluated": self.clauses_evaluated,
            "scores_are_probabilities": True,
            "options": self.options,
            "features": self.space.to_json(),
            "stats": self.stats.to_json(),
            "svm": None if self.svm is None else self.svm.to_json(),
            "isotonic": {
                "thresholds": self.isotonic.thresholds.tolist(),
                "values": self.isotonic.values.tolist(),
            },
            "prob_min": self.prob_min,
            "rules": [r.to_json() for r in self.rules()],
            "info": self.info,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GleanerSRLModel:
        space = FeatureSpace.from_json(data["features"])
        iso = data["isotonic"]
        return cls(
            dict(data["options"]),
            space,
            FeatureStats.from_json(data["stats"]),
            None if data["svm"] is None else SVMScore.from_json(data["svm"], space.n_features),
            Isotonic(
                np.asarray(iso["thresholds"], dtype=np.float64),
                np.asarray(iso["values"], dtype=np.float64),
            ),
            float(data["prob_min"]),
            clauses_evaluated=int(data["clauses_evaluated"]),
            target=data.get("target"),
            info=data.get("info", {}),
        )


def _all(backend: ClauseBackend, ids: npt.NDArray[np.int64] | None) -> npt.NDArray[np.int64]:
    if ids is None:
        return np.arange(backend.n_examples, dtype=np.int64)
    return np.asarray(ids, dtype=np.int64)
