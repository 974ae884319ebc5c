"""Warnings about a language bias that cannot work, said before a run rather than after it.

Three shapes of mode declarations make learning silently useless (issue 20, issue 33):

* a body mode whose ``+`` inputs can never be bound from the head: saturation calls a body
  goal only with input terms already reached, and terms are reached from the head's ``+``
  places and then through the ``-`` outputs of body literals whose own inputs were reached.
  A mode off every such chain never enters a bottom clause; when no mode with inputs is on a
  chain, clauses cannot connect their body to the head and learners return the empty clause.
* a body mode with only output (``-``) places and recall ``*`` (or above 1): its goal needs no
  input, so every bottom clause gets every answer of it -- the whole table;
* a head ``-`` output of a type that no usable body mode outputs: nothing in a body can bind
  it, so clauses ignore that part of the example and models of it are at chance level.

:func:`bias_warnings` finds them from the modes alone; :func:`bottom_size_warning` measures
one seed's bottom clause.  ``ilpkit data check`` prints them, and ``learn``/``cv`` print the
mode warnings before they start (through :func:`reporting_bias`).

:func:`unused_settings` lists the Aleph settings the data sets that ilpkit knows (they load
and are range-checked) but no part of ilpkit reads: they change nothing, and ``data check``,
``learn`` and ``cv`` say so once (issue 30).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ilpkit.core.bias import Mode
from ilpkit.prolog.terms import indicator

if TYPE_CHECKING:
    from ilpkit.core.task import Task

DEFAULT_MAX_BOTTOM = 1000
"""Bottom clauses longer than this make every clause search slow (``data check`` default)."""


def _where(mode: Mode) -> str:
    return f"{mode.location}: " if mode.location is not None else ""


def reachable_modes(head: Mode, body: list[Mode]) -> tuple[set[str], list[Mode]]:
    """The types reachable from ``head``'s inputs and the body modes usable from them.

    A body mode is usable when every one of its ``+`` types is reachable; its ``-`` types then
    become reachable (a fixpoint: the order of the declarations does not matter).
    """
    types = {p.type for p in head.inputs()}
    usable: list[Mode] = []
    changed = True
    while changed:
        changed = False
        for mode in body:
            if mode in usable or not all(p.type in types for p in mode.inputs()):
                continue
            usable.append(mode)
            new = {p.type for p in mode.outputs()} - types
            types |= new
            changed = True
    return types, usable


def bias_warnings(task: Task) -> list[str]:
    """Warnings about body modes that can never be used or that take a whole table."""
    bias = task.bias
    out: list[str] = []
    for head in bias.modeh:
        body = bias.body_modes_for(head.indicator)
        if not body:
            continue
        name = f"{head.name}/{head.arity}"
        types, usable = reachable_modes(head, body)
        with_inputs = [m for m in body if m.inputs()]
        if with_inputs and not any(m in usable for m in with_inputs):
            out.append(
                f"{_where(head)}no body mode for {name} takes an input reachable from the head "
                f"({head}): the body of a clause can never connect to the head, so learners "
                "will find only the empty clause; give body modes + inputs of the head's types "
                f"({', '.join(sorted({p.type for p in head.inputs()})) or 'none'})"
            )
        for mode in with_inputs:
            if mode in usable:
                continue
            missing = sorted({p.type for p in mode.inputs()} - types)
            out.append(
                f"{_where(mode)}{mode} is never used for {name}: no chain of + inputs from the "
                f"head reaches its input type(s) {', '.join(missing)}"
            )
        for mode in body:
            if mode.inputs() or not mode.outputs():
                continue
            if mode.recall is not None and mode.recall <= 1:
                continue
            recall = "*" if mode.recall is None else str(mode.recall)
            out.append(
                f"{_where(mode)}{mode} has only output arguments (recall {recall}): every "
                f"bottom clause of {name} gets all of its answers, whatever the seed; give it "
                "a + input linked to the head"
            )
        bound = {p.type for m in usable for p in m.outputs()}
        dependent = int(bias.settings["dependent"])  # a tree's class: predicted, not bound
        predicted = {p.type for p in head.outputs() if p.path == (dependent - 1,)}
        for lacking in sorted({p.type for p in head.outputs()} - bound - predicted):
            out.append(
                f"{_where(head)}the head {head} has a - output of type {lacking} that no body "
                f"literal can bind (no usable body mode of {name} has a - output of that "
                "type): clauses never relate it to the rest of the example, so every value "
                "of it looks alike; make it + or # in the head, or give a body mode a "
                f"-{lacking} output"
            )
    return out


def bottom_size_warning(
    backend: Any, task: Task, example: int, max_literals: int = DEFAULT_MAX_BOTTOM
) -> str | None:
    """A warning when the bottom clause of example ``example`` has more than
    ``max_literals`` literals (every clause search then works on that many literals)."""
    bottom = backend.saturate(example)
    size = len(bottom)
    if size <= max_literals:
        return None
    return (
        f"the bottom clause of example {example} ({task.examples.atoms[example]}) has {size} "
        f"literals (more than {max_literals}): searches will be slow; lower i or the recall "
        "of the modes that contribute most"
    )


UNUSED_SETTINGS: frozenset[str] = frozenset(
    {
        # search and evaluation
        "minposfrac", "m", "openlist", "moves", "tries",
        "rls_type", "rrr_cutoff", "max_restarts", "refine", "newvars", "splitvars",
        "resample", "samplesize", "subsample", "subsamplesize", "uniform_sample", "good",
        "goodfile", "typeoverlap", "condition", "proof_strategy",
        "prooftime", "searchtime", "lazy_on_contradiction", "lazy_on_cost", "lazy_negs",
        "updateback", "skolemvars", "construct_bottom", "check_useless", "optimise_clauses",
        "permute_bottom", "store_bottom", "nreduce_bottom", "caching", "threads",
        # features
        "max_features",
        # interaction and output
        "interactive", "verbosity", "print", "record", "recordfile", "portray_examples",
        "portray_hypothesis", "portray_literals", "portray_search",
    }
)  # fmt: skip
"""Aleph settings ilpkit knows but never reads (``m`` and ``openlist`` are the options
``scorer.m`` and ``search.openlist``; ``prooftime`` is ``backend.timeout``).  ``depth``
bounds the proofs of recursive clauses only; elsewhere it is unused too (``backend.
step_limit`` bounds proofs): :func:`unused_settings` adds it then, and ``gsamplesize``
(the random examples of evalfn ``posonly``) for a learner that generates none."""


LEARNER_SETTINGS: frozenset[str] = frozenset(
    {"tree_type", "classes", "prune_tree", "dependent", "confidence", "mingain", "lookahead"}
    | {"language"}
)
"""Aleph settings only some learners read (Aleph's trees: ``aleph-tree``), each declaring
them in its capabilities' ``reads_settings``; they are unused for any other learner."""


QUIET_SETTINGS: frozenset[str] = frozenset({"verbosity", "print"})
"""Unused settings that only set how much Aleph prints (UW-CSE sets ``verbosity``):
``data check`` lists them, ``learn``/``cv`` do not repeat them on every run."""


def unused_settings(
    task: Task,
    *,
    takes_search: bool = True,
    takes_scorer: bool = True,
    recursion: bool = True,
    random_examples: bool = True,
    reads: frozenset[str] | None = None,
) -> list[str]:
    """The settings ``task`` sets that change nothing: those ilpkit never reads, and
    ``search``/``evalfn`` for a learner that runs its own search/scorer. ``depth`` bounds
    the proofs of recursive clauses (:mod:`ilpkit.core.recursion`): it is used when the
    determinations allow the target in its own bodies and ``recursion`` (the learner
    learns recursive clauses). ``gsamplesize`` is used by a learner that generates
    ``random_examples`` (for evalfn ``posonly``). ``reads`` (a learner's run) are the
    :data:`LEARNER_SETTINGS` the learner acts on; the rest of them are unused by it."""
    from ilpkit.core.recursion import recursive_bias  # numpy: not at the CLI's start-up

    unused = set(UNUSED_SETTINGS)
    targets = {m.indicator for m in task.bias.modeh} & {
        indicator(a) for a in task.examples.atoms
    }  # mode/2 makes every mode a modeh: the examples' predicates are the targets
    if not (recursion and any(recursive_bias(task.bias, t) for t in targets)):
        unused.add("depth")
    if not (random_examples and takes_scorer):
        unused.add("gsamplesize")
    if not takes_search:
        unused.add("search")
    if not takes_scorer:
        unused.add("evalfn")
    if reads is not None:  # a learner's run: the settings of other learners go unused
        unused |= LEARNER_SETTINGS - reads
        unused -= reads
    return sorted(name for name in task.bias.settings.explicit if name in unused)


def unused_settings_warning(task: Task, learner: str | None = None) -> str | None:
    """``set but not used by learner X: ...`` (``by ilpkit`` without a learner), or None."""
    takes_search = takes_scorer = random_examples = True
    reads: frozenset[str] = frozenset()
    if learner is not None:
        from ilpkit.core.learner import learner_capabilities

        caps = learner_capabilities(learner)
        takes_search, takes_scorer = caps.takes_search, caps.takes_scorer
        random_examples = caps.random_examples
        reads = caps.reads_settings
    names = unused_settings(
        task,
        takes_search=takes_search,
        takes_scorer=takes_scorer,
        recursion=learner is None or learner == "aleph",
        random_examples=random_examples,
        reads=reads if learner is not None else None,
    )
    if learner is not None:  # Aleph's trace volume: ilpkit has --quiet; data check lists it
        names = [n for n in names if n not in QUIET_SETTINGS]
    if not names:
        return None
    who = f"learner {learner}" if learner is not None else "ilpkit"
    return (
        f"set but not used by {who}: {', '.join(names)} (Aleph settings ilpkit does not act "
        "on; see docs/aleph-compatibility.md)"
    )


_HOOKS: list[Callable[[list[str]], None]] = []
_SAID: list[set[str]] = []
"""What each active hook was already told (a run opening its task again says nothing new)."""


@contextmanager
def reporting_bias(hook: Callable[[list[str]], None]) -> Iterator[None]:
    """While active, :func:`notify` (called when a run opens its task) passes the bias
    warnings of every task opened in this process to ``hook``."""
    _HOOKS.append(hook)
    _SAID.append(set())
    try:
        yield
    finally:
        _HOOKS.remove(hook)
        _SAID.pop()


def report(messages: list[str]) -> None:
    """Pass other warnings due before a run starts to the active :func:`reporting_bias`
    hook (none: nothing is said, e.g. in worker processes or through the Python API)."""
    if _HOOKS and messages:
        _HOOKS[-1](messages)


def say(message: str) -> None:
    """Tell ``message`` once to the active :func:`reporting_bias` hook; with none (the Python
    API), as a Python warning, in the main process only (workers would repeat it)."""
    if not _HOOKS:
        import multiprocessing
        import warnings

        if multiprocessing.parent_process() is None:
            warnings.warn(message, UserWarning, stacklevel=3)
        return
    if message not in _SAID[-1]:
        _SAID[-1].add(message)
        _HOOKS[-1]([message])


_SKIPPED = re.compile(r"^(\d+) clause\(s\) with a syntax error skipped \(.*?\): (.*)$")


def skipped_clauses_summary(task: Task) -> str | None:
    """One line for the clauses of ``task``'s files skipped for a syntax error (their count
    and the first one's place), or None; ``ilpkit data check`` lists them all."""
    count, first = 0, ""
    for warning in task.warnings:
        found = _SKIPPED.match(warning)
        if found:
            count += int(found.group(1))
            first = first or found.group(2).split("; ")[0].removesuffix(" ...")
    if not count:
        return None
    return (
        f"{count} {'clause' if count == 1 else 'clauses'} of the data with a syntax error "
        f"skipped (the first: {first}); `ilpkit data check` lists them, "
        "`--set data.strict=true` refuses them"
    )


def warn_skipped_clauses(task: Task) -> None:
    """:func:`skipped_clauses_summary` as a Python warning (the API's way to say it)."""
    summary = skipped_clauses_summary(task)
    if summary is not None:
        import warnings

        warnings.warn(summary, UserWarning, stacklevel=3)


def notify(task: Task, learner: str | None = None) -> None:
    """Tell the active :func:`reporting_bias` hook about ``task``'s bias warnings, the
    clauses skipped for a syntax error and the settings ``learner`` does not use, each once;
    with no hook (the Python API), the skipped clauses are a Python warning (in the main
    process only: workers would repeat it)."""
    if not _HOOKS:
        import multiprocessing

        if multiprocessing.parent_process() is None:
            warn_skipped_clauses(task)
        return
    warnings = bias_warnings(task)
    skipped = skipped_clauses_summary(task)
    if skipped is not None:
        warnings.insert(0, skipped)
    unused = unused_settings_warning(task, learner)
    if unused is not None:
        warnings.append(unused)
    said = _SAID[-1]
    warnings = [w for w in warnings if w not in said]
    said.update(warnings)
    if warnings:
        _HOOKS[-1](warnings)


UNSUPPORTED_DIRECTIVES: dict[tuple[str, int], tuple[str, str]] = {
    ("abducible", 1): (
        "abduction (abducible/1)",
        "ilpkit learns clauses of the target only, from the examples given",
    ),
    ("induce_modes", 0): ("mode learning (induce_modes)", "write the modes with modeh/modeb"),
    ("induce_constraints", 0): (
        "constraint learning (induce_constraints)",
        "ilpkit learns clauses of the target",
    ),
    ("induce_features", 0): (
        "feature construction (induce_features)",
        "--learner static-rf or --learner pool --combiner logistic turn clauses into features",
    ),
    ("induce_incremental", 0): (
        "interactive induction (induce_incremental)",
        "give the examples in the .f and .n files",
    ),
    ("induce_tree", 0): ("tree induction (induce_tree)", "--learner tilde learns trees"),
}
"""Aleph features ilpkit does not offer, named by the directive that asks for them, with
what ilpkit offers instead."""


def unsupported_features(task: Task) -> str | None:
    """The message refusing to learn when the data asks for an Aleph feature ilpkit does not
    have (abduction, mode or feature learning, interactive induction), or None."""
    from ilpkit.prolog.terms import Const, Struct

    lines = []
    for d in task.directives:
        goal = d.term.args[0] if type(d.term) is Struct and len(d.term.args) == 1 else d.term
        if type(goal) is Struct:
            key = (goal.name, len(goal.args))
        elif type(goal) is Const and isinstance(goal.value, str):
            key = (goal.value, 0)
        else:
            continue
        if key in UNSUPPORTED_DIRECTIVES:
            feature, instead = UNSUPPORTED_DIRECTIVES[key]
            lines.append(f"{d.location}: Aleph's {feature} is not supported by ilpkit: {instead}")
    if str(task.bias.settings.explicit.get("interactive", "false")) == "true":
        where = task.bias.settings.locations.get("interactive")
        lines.append(
            f"{where or task.name}: set(interactive, true): Aleph's interactive induction is "
            "not supported by ilpkit: give the examples in the .f and .n files"
        )
    if not lines:
        return None
    return "\n".join([*lines, "remove these from the data to learn without them"])
