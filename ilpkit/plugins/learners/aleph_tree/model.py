"""The rules of an Aleph classification tree, as data: prediction, JSON, Aleph's printout.

Each leaf of the tree (after pruning) is a rule ``head :- body`` with the class counts of
the training examples it stands for.  Aleph adds the prediction to the body: ``B = mammal``
(the majority class) for a classification tree, ``random(B, [0.75-play, 0.25-dont_play])``
(Laplace-corrected class probabilities) for a class-probability tree, ``B`` being the
dependent argument of the head.

The examples stay ilpkit's binary ones: ``class(bat, mammal)`` is predicted true when a rule
that covers ``bat`` predicts ``mammal`` (the theory, read as Prolog with the ``B = Class``
literal, derives it), and its score is the largest probability such a rule gives its
class.  On data whose examples all are positive (Aleph's trees learn from positives only)
the accuracy is thus the fraction of examples whose class the rules predict.  With no
dependent argument (``dependent`` 0) the classes are the labels, ``pos`` and ``neg``, and an
example is predicted positive when a rule that covers it predicts ``pos``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.coverage import Coverage
from ilpkit.core.learner import MODEL_FORMAT_VERSION, ClauseBackend, Rule, parse_clause
from ilpkit.core.limits import coverage_many_within_limits, coverage_within_limits
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause, Const, Struct, Term, make_list, to_prolog

if TYPE_CHECKING:
    from rich.console import Group

IdArray = npt.NDArray[np.int64]


def read_term(text: str) -> Term:
    return PrologReader(double_quotes="codes").read_term(text, name="model")


@dataclass(frozen=True)
class LeafRule:
    """One rule: its clause (without the prediction), its training class counts, and the
    order Aleph lists the classes in (most recently seen first), which breaks ties."""

    clause: Clause
    counts: tuple[float, ...]
    order: tuple[int, ...]

    @property
    def total(self) -> float:
        return float(sum(self.counts))

    def probabilities(self, laplace: bool) -> npt.NDArray[np.float64]:
        c = np.asarray(self.counts, dtype=np.float64)
        out: npt.NDArray[np.float64]
        if laplace:
            out = (c + 1.0) / (c.sum() + len(c))
        elif c.sum() > 0:
            out = c / c.sum()
        else:
            out = np.full(len(c), 1.0 / len(c))
        return out

    def predicted(self, laplace: bool) -> int:
        """The most probable class; of equals, the last in Aleph's listing order."""
        p = self.probabilities(laplace)
        best = self.order[-1]
        for k in reversed(self.order):
            if p[k] > p[best]:
                best = k
        return best


def class_order(classes: npt.NDArray[np.int64], n_classes: int) -> tuple[int, ...]:
    """Aleph's listing order of a set's classes: by their last example, latest first, then
    the classes the set lacks in the ``classes`` setting's order."""
    last = {int(c): k for k, c in enumerate(classes)}
    seen = sorted(last, key=lambda c: -last[c])
    return (*seen, *(c for c in range(n_classes) if c not in last))


class AlephTreeModel:
    """Rules of a classification (or class-probability) tree over a dependent argument."""

    learner = "aleph-tree"

    def __init__(
        self,
        rules: list[LeafRule],
        classes: list[Term],
        *,
        dependent: int,
        tree_type: str = "classification",
        target: str | None = None,
        clauses_evaluated: int = 0,
        stats: list[Rule] | None = None,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.leaf_rules = rules
        self.classes = classes
        self.dependent = dependent
        self.tree_type = tree_type
        self.target = target
        self.clauses_evaluated = clauses_evaluated
        self.stats = stats
        self.info = dict(info or {})

    @property
    def laplace(self) -> bool:
        return self.tree_type == "class_probability"

    # -- prediction -------------------------------------------------------------------------
    def example_classes(self, backend: ClauseBackend, ids: IdArray) -> npt.NDArray[np.int64]:
        """Index of each example's class (its dependent argument), -1 for another value:
        asked of the backend as the coverage of ``head :- B = Class`` for each class."""
        out = np.full(backend.n_examples, -1, dtype=np.int64)
        if not self.leaf_rules:
            return out[ids]
        head = self.leaf_rules[0].clause.head
        assert isinstance(head, Struct)
        var = head.args[self.dependent - 1]
        probes = [Clause(head, (Struct("=", (var, c)),)) for c in self.classes]
        among = Coverage(ids, backend.n_examples)
        for k, cov in enumerate(coverage_many_within_limits(backend, probes, among)):
            out[cov.ids] = k
        return out[ids]

    def _scores(
        self, backend: ClauseBackend, ids: IdArray | None
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        ids = np.arange(backend.n_examples) if ids is None else np.asarray(ids, dtype=np.int64)
        if not self.dependent:  # the positive class (0) is true, whatever the example says
            cls = np.zeros(len(ids), dtype=np.int64)
        else:
            cls = self.example_classes(backend, ids)
        known = cls >= 0
        score = np.zeros(len(ids), dtype=np.float64)
        hit = np.zeros(len(ids), dtype=bool)
        position = np.full(backend.n_examples, -1, dtype=np.int64)
        position[ids] = np.arange(len(ids))
        among = Coverage(ids, backend.n_examples)
        for rule in self.leaf_rules:
            at = position[coverage_within_limits(backend, rule.clause, among).ids]
            at = at[known[at]]
            p = rule.probabilities(self.laplace)
            score[at] = np.maximum(score[at], p[cls[at]])
            hit[at] |= cls[at] == rule.predicted(self.laplace)
        return score, hit

    def score(self, backend: ClauseBackend, ids: IdArray | None = None) -> npt.NDArray[np.float64]:
        return self._scores(backend, ids)[0]

    def predict(self, backend: ClauseBackend, ids: IdArray | None = None) -> npt.NDArray[np.bool_]:
        return self._scores(backend, ids)[1]

    # -- rules ------------------------------------------------------------------------------
    def prediction_literal(self, rule: LeafRule, *, aleph: bool = False) -> Term:
        head = rule.clause.head
        assert isinstance(head, Struct)
        var = head.args[self.dependent - 1]
        if aleph and self.laplace:
            p = rule.probabilities(True)
            pairs = [Struct("-", (Const(float(p[k])), self.classes[k])) for k in rule.order]
            return Struct("random", (var, make_list(pairs)))
        return Struct("=", (var, self.classes[rule.predicted(self.laplace)]))

    def shown_rules(self) -> list[LeafRule]:
        """The rules of the theory: all of them, or, with the labels as classes, those that
        predict the positive class."""
        if self.dependent:
            return list(self.leaf_rules)
        return [r for r in self.leaf_rules if r.predicted(self.laplace) == 0]

    def rule_clauses(self) -> list[Clause]:
        """Each rule with its prediction ``B = Class`` (what predict derives); with the
        labels as classes, the rules that predict positive as they are."""
        if not self.dependent:
            return [r.clause for r in self.shown_rules()]
        return [
            Clause(r.clause.head, (*r.clause.body, self.prediction_literal(r)))
            for r in self.leaf_rules
        ]

    def rules(self) -> list[Rule]:
        if self.stats is not None:
            return list(self.stats)
        out = []
        for clause, rule in zip(self.rule_clauses(), self.shown_rules(), strict=True):
            p = rule.probabilities(self.laplace)
            out.append(Rule(clause, weight=float(p[rule.predicted(self.laplace)])))
        return out

    def render_aleph(self) -> str:
        """The rules as Aleph prints its theory after ``induce_tree``."""
        lines = []
        stats = {id(r): s for r, s in zip(self.shown_rules(), self.rules(), strict=True)}
        for k, rule in enumerate(self.leaf_rules, 1):
            body = list(rule.clause.body)
            if self.dependent:
                body.append(self.prediction_literal(rule, aleph=True))
            stat = stats.get(id(rule))
            cover = (
                f"[Pos cover = {stat.tp:g} Neg cover = {stat.fp:g}]"
                if stat is not None
                else "[predicts negative]"
            )
            dist = ", ".join(f"{to_prolog(self.classes[c])} {rule.counts[c]:g}" for c in rule.order)
            lines.append(f"[Rule {k}] {cover} [training classes: {dist}]")
            if body:
                lines.append(f"{to_prolog(rule.clause.head)} :-")
                lines.append("   " + ", ".join(to_prolog(t) for t in body) + ".")
            else:
                lines.append(f"{to_prolog(rule.clause.head)}.")
            lines.append("")
        return "\n".join(lines).rstrip()

    def explain_table(self, title: str) -> Group:
        from rich.console import Group  # only when a model is shown
        from rich.text import Text

        return Group(Text(title, style="bold"), Text(self.render_aleph()))

    # -- JSON -------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": MODEL_FORMAT_VERSION,
            "learner": self.learner,
            "target": self.target,
            "clauses_evaluated": self.clauses_evaluated,
            "tree_type": self.tree_type,
            "dependent": self.dependent,
            "classes": [to_prolog(c) for c in self.classes],
            "rules": [
                {"clause": str(r.clause), "counts": list(r.counts), "order": list(r.order)}
                for r in self.leaf_rules
            ],
            "stats": None if self.stats is None else [s.to_json() for s in self.stats],
            "info": self.info,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AlephTreeModel:
        stats = data.get("stats")
        return cls(
            [
                LeafRule(
                    parse_clause(str(r["clause"])),
                    tuple(float(c) for c in r["counts"]),
                    tuple(int(k) for k in r["order"]),
                )
                for r in data["rules"]
            ],
            [read_term(str(c)) for c in data["classes"]],
            dependent=int(data["dependent"]),
            tree_type=str(data.get("tree_type", "classification")),
            target=data.get("target"),
            clauses_evaluated=int(data.get("clauses_evaluated", 0)),
            stats=None if stats is None else [Rule.from_json(s) for s in stats],
            info=data.get("info", {}),
        )
