"""Degenerate results said out loud (issue 33): a model that runs and scores, but whose
numbers mean less than they seem.

The empty theory is :data:`ilpkit.core.learner.EMPTY_THEORY`; here are the others that the
command line and report.md name where they appear:

* every test example of a unit predicted one class -- F1 and accuracy then only restate the
  class balance (a body-less rule such as ``eastbound(A).`` covers every example);
* rules that repeat an earlier rule -- boosting rounds that add nothing (RankBoost on trains
  chose ``eastbound(A).`` in all 100 rounds);
* a model whose every rule covers every example (no body, distinct variables in the head):
  TILDE's tree of one leaf, Aleph's ``eastbound(A).`` when the negatives are missing;
* what a learner itself records in its model's ``info[DEGENERATE]`` (a list of lines), such as
  TIcER's estimate at its floor (:data:`TICER_FLOOR`) and Gleaner's classifier covering every
  tune example (:data:`GLEANER_COVERS_ALL`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ilpkit.core.learner import Rule
from ilpkit.prolog.terms import Clause, Struct, Var

ONE_CLASS: Final = (
    "every test example was predicted one class, so F1 and accuracy only restate the class balance"
)
"""What cv and report.md say of units whose predictions are all positive or all negative."""


DEGENERATE: Final = "degenerate"
"""The key of a model's ``info`` under which its learner lists what is degenerate about it
(learn and explain print each line, cv and report.md count the units)."""

TICER_FLOOR: Final = (
    "TIcER's estimate of the label frequency c is at its floor: no node of its tree bounded c "
    "above 0, so c fell back to the labeled share L/T of the bounding examples (as if every "
    "unlabeled example were positive); give learner.c a number, or more examples per fold"
)

GLEANER_COVERS_ALL: Final = (
    "Gleaner's classifier is a theory that covers every tune example, so it calls (nearly) "
    "every example positive: under predict=f1, the default, no theory that separates had a "
    "tune F1 above 2P/(2P+N), that of calling everything positive; --set "
    "learner.predict=accuracy (or =recall; combiner.predict with --combiner gleaner) chooses "
    "otherwise (docs/gleaner.md)"
)
"""What a Gleaner model (learner or combiner) records when its ``predict`` theory covers every
tune example (issue 33: DSSTox)."""

PU_NO_LABELED_POSITIVE: Final = (
    "the PU labeling left no labeled positive in the unit's training folds, so there was "
    "nothing to learn from: the unit's model is the empty theory (every example negative, "
    "the answer of any learner that sees no label); at a low label frequency on a small task "
    "this is a likely draw, and it counts in the unit's F1"
)
"""What cv records of a PU unit whose labeling left no training positive labeled (issue 31:
IMDB's directors at c = 0.1).  Not an error: the draw is part of the protocol, and dropping
the unit would bias the mean upward."""


def recorded_notes(info: Any) -> list[str]:
    """The degenerate-result lines a learner recorded in a model's ``info``."""
    notes = info.get(DEGENERATE, []) if isinstance(info, dict) else []
    return [str(n) for n in notes] if isinstance(notes, list) else []


def one_class(predicted_positive: int | None, n_test: int) -> str | None:
    """``"positive"`` or ``"negative"`` when all of a unit's ``n_test`` (at least 2) test
    examples were predicted that class, else None (None counts: a run from before they were
    recorded)."""
    if predicted_positive is None or n_test < 2:
        return None
    if predicted_positive == n_test:
        return "positive"
    if predicted_positive == 0:
        return "negative"
    return None


def repeated_rules(rules: Sequence[Rule]) -> int:
    """How many rules repeat an earlier rule's clause (same clause up to variable names)."""
    seen: set[str] = set()
    repeats = 0
    for rule in rules:
        key = str(rule.clause.canonical())
        if key in seen:
            repeats += 1
        seen.add(key)
    return repeats


def repeated_rules_note(rules: Sequence[Rule]) -> str | None:
    """The line learn prints when rules repeat earlier ones (boosting rounds that add
    nothing), or None."""
    repeats = repeated_rules(rules)
    if not repeats:
        return None
    distinct = len(rules) - repeats
    return (
        f"{repeats:,} of the {len(rules):,} rules repeat an earlier rule ({distinct:,} distinct): "
        "rounds that added nothing new"
    )


def covers_everything(clause: Clause) -> bool:
    """Whether ``clause`` covers every example of its target: no body, and a head whose
    arguments are distinct variables."""
    if clause.body:
        return False
    args = clause.head.args if type(clause.head) is Struct else ()
    return all(type(a) is Var for a in args) and len(set(args)) == len(args)


def covers_everything_note(rules: Sequence[Rule]) -> str | None:
    """The line learn prints when every rule covers every example, or None."""
    if not rules or not all(covers_everything(r.clause) for r in rules):
        return None
    shown = str(rules[0].clause)
    return (
        f"every rule covers every example ({shown}), so every example gets the same answer "
        "and the model separates nothing (a tree of one leaf, a rule with no body)"
    )
