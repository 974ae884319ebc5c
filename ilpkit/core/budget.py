"""How many clauses a run may evaluate, from its settings: for progress (N of at most B,
an estimate of the time left) and for a warning before a run too large to finish.

The bound is the learner's own when it has one (Gleaner: seeds x clauses_per_seed; the
random-rule forests R4F and static-rf: the rules they draw, :func:`planned_rules`), else
Aleph's: ``nodes`` per search, one search per training positive at most (Aleph's covering
loop, Section "The basic algorithm" of the Aleph manual; boosting: one search per round).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ilpkit.core.task import Task

LARGE_SEARCH: Final = 2_000_000
"""Warn when a run may evaluate more clauses than this (hours on the native backend)."""


def _int_option(options: Mapping[str, Any], name: str) -> int | None:
    value = options.get(name)
    return int(value) if isinstance(value, (int, float)) and value is not None else None


def planned_rules(learner: str, options: Mapping[str, Any], training: int) -> int | None:
    """The non-trivial random rules ``learner`` draws on ``training`` labelled training
    examples, at most; None for a learner that searches instead.

    ``r4f`` runs no search per seed: its cost is the rules it generates, about n + s (R4F,
    eq. 1: n trees, s the rules one tree needs), where s is at most (t - 1) x MRC (eq. 2, t the
    training examples), and ``max_rules`` caps the stream.  ``static-rf`` draws ``rules``.
    Trivial rules (covering none or all) are drawn again and come on top of both.
    """
    if learner == "static-rf":
        return _int_option(options, "rules")
    if learner == "r4f":
        trees, mrc = _int_option(options, "trees"), _int_option(options, "mrc")
        if trees is None or mrc is None:
            return None
        bound = trees + max(training - 1, 0) * mrc
        cap = _int_option(options, "max_rules")
        return bound if cap is None else min(bound, cap)
    return None


def planned_clauses(
    task: Task,
    learner: str,
    options: Mapping[str, Any],
    positives: int,
    training: int | None = None,
) -> int:
    """An upper bound on the clauses ``learner`` evaluates on ``task`` with ``positives``
    training positives among ``training`` labelled training examples (``options``: the
    learner's options, defaults included).  Random-rule forests: :func:`planned_rules` times
    the clauses per rule (R4F: every prefix, up to ``clauselength - 1``)."""
    nodes = int(task.bias.settings["nodes"])

    def opt(name: str) -> int | None:
        return _int_option(options, name)

    rules = planned_rules(learner, options, positives if training is None else training)
    if rules is not None:
        if learner != "r4f":
            return rules  # static-rf: the full rule only
        return rules * max((opt("clauselength") or int(task.bias.settings["clauselength"])) - 1, 1)
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
    if learner in ("r4f", "static-rf") and options is not None:
        named = ", ".join(
            f"{k}={options[k]:,}" for k in ("trees", "mrc", "max_rules", "rules") if k in options
        )
        return (
            f"these settings allow up to {planned:,} clauses ({learner}: {named}, "
            f"clauselength={options.get('clauselength') or settings['clauselength']}): that can "
            "take hours or days. Lower them (e.g. --set learner.max_rules=2000) or bound the "
            "run with --time-limit SECONDS"
        )
    return (
        f"these settings allow up to {planned:,} clauses (nodes={int(settings['nodes']):,} "
        f"per search, i={settings['i']}, clauselength={settings['clauselength']}, "
        f"{positives:,} training positives): that can take hours or days. Lower them "
        "(e.g. --set nodes=1000 --set i=2) or bound the run with --time-limit SECONDS"
    )
