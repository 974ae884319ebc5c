"""The model PRankBoost and RankBoost learn: weak hypotheses with their alpha.

H(x) = sum_t alpha_t h_t(x) (prankboost-ilp2009 Table 1). A weak hypothesis is one clause
(h in {0, 1}) or a hill-climbing path (h(x) = the value of the most specific path clause
covering x, :func:`~ilpkit.plugins.learners.boost_weak.path_values`). The values are fixed at
training time, so scoring new data needs only each clause's coverage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.coverage import Coverage
from ilpkit.core.learner import MODEL_FORMAT_VERSION, ClauseBackend, Rule, parse_clause
from ilpkit.core.limits import coverage_within_limits
from ilpkit.plugins.learners.boost_weak import most_specific
from ilpkit.prolog.terms import Clause

if TYPE_CHECKING:
    from rich.table import Table


@dataclass(frozen=True)
class WeakClause:
    """A kept clause: its h value and its counts on the training set, both weighted by the
    round's boosting weights and unweighted (the examples' own weights)."""

    clause: Clause
    value: float
    weighted_tp: float
    weighted_fp: float
    tp: float
    fp: float

    def to_json(self) -> dict[str, Any]:
        return {
            "clause": str(self.clause),
            "value": self.value,
            "weighted_tp": self.weighted_tp,
            "weighted_fp": self.weighted_fp,
            "tp": self.tp,
            "fp": self.fp,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WeakClause:
        return cls(
            parse_clause(str(data["clause"])),
            float(data["value"]),
            float(data["weighted_tp"]),
            float(data["weighted_fp"]),
            float(data["tp"]),
            float(data["fp"]),
        )


@dataclass(frozen=True)
class WeakHypothesis:
    """One boosting round: what it kept, its r and alpha, and where it stood in the run.

    ``clauses`` are most general first (a path) or the single best clause. ``weighted_p``,
    ``weighted_n`` are the class totals of the round's weights (1 and skew for PRankBoost),
    ``p``, ``n`` the unweighted training totals. ``found_after`` is the number of clauses
    evaluated when the round ended; ``threshold`` the train-F1 threshold of the ensemble of
    rounds 1..this one (what ``predict`` uses). ``path`` is the weighted (TP, FP) of every
    clause hill climbing moved through, most general first, whatever was kept: Mix1's r is
    the area of a path it does not keep.
    """

    round: int
    variant: str
    alpha: float
    r: float
    seed: int
    clauses: tuple[WeakClause, ...]
    weighted_p: float
    weighted_n: float
    p: float
    n: float
    found_after: int
    threshold: float
    path: tuple[tuple[float, float], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "variant": self.variant,
            "alpha": self.alpha,
            "r": self.r,
            "seed": self.seed,
            "clauses": [c.to_json() for c in self.clauses],
            "weighted_p": self.weighted_p,
            "weighted_n": self.weighted_n,
            "p": self.p,
            "n": self.n,
            "found_after": self.found_after,
            "threshold": self.threshold,
            "path": [list(point) for point in self.path],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WeakHypothesis:
        return cls(
            round=int(data["round"]),
            variant=str(data["variant"]),
            alpha=float(data["alpha"]),
            r=float(data["r"]),
            seed=int(data["seed"]),
            clauses=tuple(WeakClause.from_json(c) for c in data["clauses"]),
            weighted_p=float(data["weighted_p"]),
            weighted_n=float(data["weighted_n"]),
            p=float(data["p"]),
            n=float(data["n"]),
            found_after=int(data["found_after"]),
            threshold=float(data["threshold"]),
            path=tuple((float(tp), float(fp)) for tp, fp in data.get("path", [])),
        )


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


class BoostModel:
    """An ensemble of weak hypotheses; ``score`` is H(x) = sum_t alpha_t h_t(x)."""

    def __init__(
        self,
        learner: str,
        hypotheses: Sequence[WeakHypothesis],
        *,
        target: str | None = None,
        clauses_evaluated: int = 0,
        options: dict[str, Any] | None = None,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.learner = learner
        self.hypotheses = list(hypotheses)
        self.target = target
        self.clauses_evaluated = clauses_evaluated
        self.options = dict(options or {})
        self.info = dict(info or {})

    @property
    def threshold(self) -> float:
        """``predict``'s cut: the H maximising training F1 (0 for an empty ensemble, which
        scores every example 0 and so predicts all positive, F1's best constant guess)."""
        return self.hypotheses[-1].threshold if self.hypotheses else 0.0

    def score(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        n = backend.n_examples
        ids = np.arange(n, dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
        among = Coverage(ids, n)
        covered: dict[Clause, npt.NDArray[np.int64]] = {}

        def cover(clause: Clause) -> npt.NDArray[np.int64]:
            if clause not in covered:
                covered[clause] = coverage_within_limits(backend, clause, among).ids
            return covered[clause]

        total = np.zeros(n, dtype=np.float64)
        for hyp in self.hypotheses:
            # values grow with specificity, so clauses of value 0 (a path's most general
            # clause) never set h and need no coverage
            live = [c for c in hyp.clauses if c.value > 0]
            h = most_specific(n, [cover(c.clause) for c in live], [c.value for c in live])
            total += hyp.alpha * h
        out: npt.NDArray[np.float64] = total[ids]
        return out

    def predict(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.bool_]:
        """Positive iff H(x) >= the training-F1 threshold (see :attr:`threshold`)."""
        return self.score(backend, ids) >= self.threshold

    def rules(self) -> list[Rule]:
        """Every kept clause of value > 0, in round order, weighted alpha * value (what the
        clause adds to H when it is the most specific of its path covering an example), with
        its unweighted training counts."""
        out = []
        for hyp in self.hypotheses:
            for c in hyp.clauses:
                if c.value > 0:
                    out.append(
                        Rule(
                            c.clause,
                            hyp.alpha * c.value,
                            c.tp,
                            c.fp,
                            _ratio(c.tp, c.tp + c.fp),
                            _ratio(c.tp, hyp.p),
                        )
                    )
        return out

    def at_budget(self, clauses: int) -> BoostModel:
        """The ensemble of the rounds finished within ``clauses`` clauses evaluated (an
        anytime reading of one run, for learning curves; no round finished: the empty
        ensemble, which ranks nothing). Beyond the run's total it is the whole ensemble with
        ``clauses_evaluated`` still the total: the papers' curves (Figures 6.2, 6.4) end at
        the T-th weak learner, and the total says where."""
        keep = [h for h in self.hypotheses if h.found_after <= clauses]
        return BoostModel(
            self.learner,
            keep,
            target=self.target,
            clauses_evaluated=min(clauses, self.clauses_evaluated),
            options=self.options,
            info=self.info,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": MODEL_FORMAT_VERSION,
            "learner": self.learner,
            "target": self.target,
            "clauses_evaluated": self.clauses_evaluated,
            "options": self.options,
            "hypotheses": [h.to_json() for h in self.hypotheses],
            "info": self.info,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoostModel:
        return cls(
            str(data["learner"]),
            [WeakHypothesis.from_json(h) for h in data.get("hypotheses", [])],
            target=data.get("target"),
            clauses_evaluated=int(data.get("clauses_evaluated", 0)),
            options=data.get("options", {}),
            info=data.get("info", {}),
        )

    def explain_table(self, title: str) -> Table:
        """The ensemble ordered by alpha (then round): each kept clause with its h value and
        its weighted (the round's boosting weights) and unweighted training precision/recall."""
        from rich.table import Table  # only when a model is shown

        table = Table(title=title, show_lines=True)
        for name in ("round", "alpha", "r", "weak", "h", "rule"):
            table.add_column(name, justify="left" if name in ("weak", "rule") else "right")
        for name in ("w.prec", "w.rec", "prec", "rec", "TP", "FP"):
            table.add_column(name, justify="right")
        for hyp in sorted(self.hypotheses, key=lambda h: (-h.alpha, h.round)):
            shown = [c for c in hyp.clauses if c.value > 0] or list(hyp.clauses[-1:])
            for i, c in enumerate(reversed(shown)):  # most specific first
                first = i == 0
                table.add_row(
                    str(hyp.round) if first else "",
                    f"{hyp.alpha:.4f}" if first else "",
                    f"{hyp.r:.4f}" if first else "",
                    hyp.variant if first else "",
                    f"{c.value:.3f}",
                    str(c.clause),
                    f"{_ratio(c.weighted_tp, c.weighted_tp + c.weighted_fp):.3f}",
                    f"{_ratio(c.weighted_tp, hyp.weighted_p):.3f}",
                    f"{_ratio(c.tp, c.tp + c.fp):.3f}",
                    f"{_ratio(c.tp, hyp.p):.3f}",
                    f"{c.tp:g}",
                    f"{c.fp:g}",
                )
        return table


__all__ = ["BoostModel", "WeakClause", "WeakHypothesis"]
