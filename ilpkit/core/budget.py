"""How many clauses a run may evaluate, from its settings: for progress (N of at most B,
an estimate of the time left) and for a warning before a run too large to finish.

The bound is the learner's own when it has one (Gleaner: seeds x clauses_per_seed; the
random-rule forests R4F and static-rf: the rules they draw, :func:`planned_rules`), else
Aleph's: ``nodes`` per search, one search per training positive at most (Aleph's covering
loop, Section "The basic algorithm" of the Aleph manual; boosting: one search per round).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

from ilpkit.core.task import Task

LARGE_SEARCH: Final = 2_000_000
"""Warn when a run may evaluate more clauses than this (hours on the native backend)."""


@dataclass(frozen=True)
class OwnPlan:
    """A learner's own bound on the clauses it evaluates, and the options that set it (named
    in the warning before a very large run)."""

    clauses: int
    shown: Mapping[str, Any]


@runtime_checkable
class PlansItsOwn(Protocol):
    """A learner class that bounds its own run (the random-rule forests: the rules they draw,
    not searches): ``plan(options, task, training)`` with ``training`` labelled training
    examples, or None where it cannot tell."""

    @staticmethod
    def plan(options: Mapping[str, Any], task: Task, training: int) -> OwnPlan | None: ...


def own_plan(learner: str, options: Mapping[str, Any], task: Task, training: int) -> OwnPlan | None:
    """Learner ``learner``'s own plan (None: it searches, and Aleph's bound applies)."""
    from ilpkit.core.plugins import get_plugin_manager
    from ilpkit.errors import PluginError

    try:
        factory = get_plugin_manager().get("learner", learner).factory
    except PluginError:
        return None
    if isinstance(factory, PlansItsOwn):
        return factory.plan(options, task, training)
    return None


def int_option(options: Mapping[str, Any], name: str) -> int | None:
    """An integer option's value, None when unset or not a number."""
    value = options.get(name)
    return int(value) if isinstance(value, (int, float)) and value is not None else None


def planned_clauses(
    task: Task,
    learner: str,
    options: Mapping[str, Any],
    positives: int,
    training: int | None = None,
) -> int:
    """An upper bound on the clauses ``learner`` evaluates on ``task`` with ``positives``
    training positives among ``training`` labelled training examples (``options``: the
    learner's options, defaults included): the learner's own plan where it has one
    (:class:`PlansItsOwn`), else from its options and Aleph's ``nodes``."""
    nodes = int(task.bias.settings["nodes"])

    def opt(name: str) -> int | None:
        return int_option(options, name)

    own = own_plan(learner, options, task, positives if training is None else training)
    if own is not None:
        return own.clauses
    seeds, per_seed = opt("seeds"), opt("clauses_per_seed")
    if seeds is not None and per_seed is not None:
        return seeds * per_seed
    rounds = opt("rounds")
    if rounds is not None:
        return rounds * (opt("nodes") or nodes)
    searches = positives
    if opt("max_clauses") is not None:
        return min(int(opt("max_clauses") or 0), nodes * searches)
    theories = opt("theories")
    per_theory = opt("clauses_per_theory")
    if theories is not None:
        return theories * (per_theory or nodes * searches)
    return nodes * searches


def large_search_warning(
    task: Task,
    planned: int,
    positives: int,
    learner: str = "",
    options: Mapping[str, Any] | None = None,
) -> str | None:
    """A warning naming the settings behind a very large planned search, or None."""
    if planned <= LARGE_SEARCH:
        return None
    settings = task.bias.settings
    own = None if options is None else own_plan(learner, options, task, positives)
    if own is not None and options is not None:
        named = ", ".join(
            f"{k}={v:,}" if isinstance(v, int) else f"{k}={v}" for k, v in own.shown.items()
        )
        return (
            f"these settings allow up to {planned:,} clauses ({learner}: {named}): that can "
            "take hours or days. Lower them (e.g. --set learner.max_rules=2000) or bound the "
            "run with --time-limit SECONDS"
        )
    return (
        f"these settings allow up to {planned:,} clauses (nodes={int(settings['nodes']):,} "
        f"per search, i={settings['i']}, clauselength={settings['clauselength']}, "
        f"{positives:,} training positives): that can take hours or days. Lower them "
        "(e.g. --set nodes=1000 --set i=2) or bound the run with --time-limit SECONDS"
    )
