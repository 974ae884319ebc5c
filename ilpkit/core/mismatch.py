"""Loud mismatches between what a user names and what the data holds.

A model applied to data of another target, a clause calling a predicate the data does not
define, or a seed that is not one of the data's examples all give quiet, wrong answers
(every score 0, coverage 0/0, an empty bottom clause) unless checked: these checks name the
thing and, where a near name exists, suggest it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from ilpkit.core.task import Task
from ilpkit.errors import DataError
from ilpkit.prolog.terms import Clause, Struct, Term, Var, flatten_conjunction, indicator, is_ground

Indicator = tuple[str, int]

# Control constructs whose arguments are goals: looked into, not checked themselves.
_CONTROL: frozenset[Indicator] = frozenset(
    {(",", 2), (";", 2), ("->", 2), ("*->", 2), ("\\+", 1), ("call", 1), ("not", 1)}
)


def _show(pi: Indicator) -> str:
    return f"{pi[0]}/{pi[1]}"


def _suggest(name: Indicator, known: Iterable[Indicator]) -> str:
    """``; did you mean 'p/2'?`` for the closest known indicator, else ``""``."""
    shown = sorted({_show(k) for k in known})
    close = difflib.get_close_matches(_show(name), shown, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def defined_predicates(task: Task) -> set[Indicator]:
    """Predicates a clause may call on ``task``: the data's facts and rules, its declared
    modes and determinations, the target, and the side-effect-free built-ins."""
    from ilpkit.core.safety import ALLOWED_BUILTINS

    known: set[Indicator] = set(task.program.predicates())
    known.update(m.indicator for m in (*task.bias.modeh, *task.bias.modeb))
    known.update(body for _, body in task.bias.determinations)
    if task.target is not None:
        known.add(task.target)
    known.update(ALLOWED_BUILTINS)
    return known


def _goals(body: Iterable[Term]) -> Iterable[Term]:
    for goal in body:
        if isinstance(goal, Struct) and (goal.name, len(goal.args)) in _CONTROL:
            yield from _goals(a for arg in goal.args for a in flatten_conjunction(arg))
        else:
            yield goal


def check_clause(task: Task, clause: Clause, what: str = "--clause") -> None:
    """Raise :class:`DataError` when ``clause``'s head is not the target or its body calls a
    predicate ``task`` does not define (with the closest defined one)."""
    target = task.target
    if isinstance(clause.head, Var):
        raise DataError(f"{what}: the head {clause.head} is a variable, not an atom")
    head = indicator(clause.head)
    if target is not None and head != target:
        raise DataError(
            f"{what}: the head {_show(head)} is not the data's target {_show(target)}"
            + _suggest(head, [target])
        )
    known = defined_predicates(task)
    for goal in _goals(clause.body):
        if isinstance(goal, Var):
            continue
        pi = indicator(goal)
        if pi not in known:
            defined = [k for k in known if k[0][:1].isalpha() and k[0][:1].islower()]
            raise DataError(
                f"{what}: {_show(pi)} is not defined by {task.name} (no facts, rules or modes "
                f"for it){_suggest(pi, defined)}"
            )


def check_model_predicates(clauses: Iterable[Clause], task: Task, model_name: str) -> None:
    """Raise :class:`DataError` when a model's rule calls a predicate ``task`` does not
    define: applied to that data it would score 0 everywhere and look like a result (what
    ``ilpkit coverage`` refuses for one clause, refused for a model's every rule)."""
    known = defined_predicates(task)
    defined = [k for k in known if k[0][:1].isalpha() and k[0][:1].islower()]
    for clause in clauses:
        for goal in _goals(clause.body):
            if isinstance(goal, Var):
                continue
            pi = indicator(goal)
            if pi not in known:
                raise DataError(
                    f"{model_name}: {_show(pi)} is not defined by {task.name} (no facts, rules "
                    f"or modes for it){_suggest(pi, defined)}; the rule {clause} calls it, so "
                    "the model cannot be applied to this data"
                )


def check_seed(task: Task, seed: Term, what: str = "--example") -> str | None:
    """Check a saturation seed: an error when it is not ground or is not of the target
    predicate; a warning (returned, to print) when it is not one of ``task``'s examples."""
    target = task.target
    if isinstance(seed, Var):
        raise DataError(f"{what}: {seed} is a variable; give a ground example such as p(a)")
    pi = indicator(seed)
    if target is not None and pi != target:
        raise DataError(
            f"{what}: {seed} is an atom of {_show(pi)}, not of the data's target "
            f"{_show(target)}" + _suggest(pi, [target])
        )
    if not is_ground(seed):
        raise DataError(f"{what}: {seed} is not ground; give an example of {task.name}")
    if seed not in set(task.examples.atoms):
        return (
            f"{what}: {seed} is not an example of {task.name}; saturating it anyway "
            "(ids 0..{} name the examples)".format(len(task.examples) - 1)
        )
    return None


def check_model_target(model_target: str | None, task: Task, model_name: str) -> None:
    """Raise :class:`DataError` when a model learnt for one target is applied to data of
    another (its scores would all be 0 and say nothing)."""
    data_target = task.target_name
    if model_target and data_target and model_target != data_target:
        raise DataError(
            f"{model_name} was learnt for {model_target} but {task.name}'s target is "
            f"{data_target}: apply it to data of {model_target}"
        )
