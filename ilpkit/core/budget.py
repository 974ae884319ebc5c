"""How many clauses a run may evaluate, from its settings: for progress (N of at most B,
an estimate of the time left) and for a warning before a run too large to finish.

The bound is the learner's own when it has one (Gleaner: seeds x clauses_per_seed), else
Aleph's: ``nodes`` per search, one search per training positive at most (Aleph's covering
loop, Section "The basic algorithm" of the Aleph manual; boosting: one search per round).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ilpkit.core.task import Task

LARGE_SEARCH: Final = 2_000_000
"""Warn when a run may evaluate more clauses than this (hours on the native backend)."""


def planned_clauses(task: Task, learner: str, options: Mapping[str, Any], positives: int) -> int:
    """An upper bound on the clauses ``learner`` evaluates on ``task`` with ``positives``
    training positives (``options``: the learner's options, defaults included)."""
    nodes = int(task.bias.settings["nodes"])

    def opt(name: str) -> int | None:
        value = options.get(name)
        return int(value) if isinstance(value, (int, float)) and value is not None else None

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


def large_search_warning(task: Task, planned: int, positives: int) -> str | None:
    """A warning naming the settings behind a very large planned search, or None."""
    if planned <= LARGE_SEARCH:
        return None
    settings = task.bias.settings
    return (
        f"these settings allow up to {planned:,} clauses (nodes={int(settings['nodes']):,} "
        f"per search, i={settings['i']}, clauselength={settings['clauselength']}, "
        f"{positives:,} training positives): that can take hours or days. Lower them "
        "(e.g. --set nodes=1000 --set i=2) or bound the run with --time-limit SECONDS"
    )
