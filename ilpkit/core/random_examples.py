"""Random examples generated from the head modes' types: Aleph's positive-only evaluation.

Muggleton (ILP-96, "Learning from positive data") scores a clause learnt from positives
alone by how general it is, estimated on examples of the target drawn at random from the
instance space. Aleph draws them from its head mode declarations (``set(evalfn, posonly)``,
``gsamplesize`` of them, default 100): every ``+``, ``-`` or ``#`` place of the ``modeh``
template is filled with a value drawn uniformly from the answers of its type predicate
(``animal(dog).`` makes ``dog`` an ``animal``); with several head modes for the target, each
example first draws its mode.

:func:`generate` draws the sample (from a seeded generator: the same run seed, the same
sample), and :class:`RandomSample` puts it beside the task's examples on the run's own
backend -- appended after them, labeled negative, so that a clause's coverage of the sample
comes from the same engine as its coverage of the examples, and the examples keep their ids
-- and puts the task back when the learner is done.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt

from ilpkit.core.bias import Mode
from ilpkit.core.task import NEG, Examples, Task
from ilpkit.errors import BiasError
from ilpkit.prolog.terms import Struct, Term, Var, to_prolog

Answers = Callable[[Term, int | None], list[Term]]
"""A backend's ``answers(goal, max_answers)``: the ground instances of ``goal``."""


def type_domain(type_name: str, answers: Answers) -> list[Term]:
    """The values of ``type_name``: the distinct answers of ``type_name(X)``, in a fixed
    order (sorted by their Prolog text, so every backend gives the same list)."""
    found = answers(Struct(type_name, (Var("X"),)), None)
    values = {a.args[0] for a in found if type(a) is Struct and len(a.args) == 1}
    return sorted(values, key=to_prolog)


def head_modes(task: Task, target: tuple[str, int]) -> list[Mode]:
    """The ``modeh`` declarations of ``target``; a :class:`BiasError` if there is none."""
    modes = [m for m in task.bias.modeh if m.indicator == target]
    if not modes:
        raise BiasError(
            f"evalfn posonly generates its random examples from the head mode of "
            f"{target[0]}/{target[1]}, and the data declares none: add a modeh for it"
        )
    return modes


def generate(
    task: Task, target: tuple[str, int], size: int, rng: random.Random, answers: Answers
) -> list[Term]:
    """``size`` random examples of ``target``: for each, a head mode drawn uniformly, then
    every typed place of its template filled with a value drawn uniformly from its type."""
    modes = head_modes(task, target)
    domains: dict[str, list[Term]] = {}
    for mode in modes:
        for place in mode.places:
            if place.type not in domains:
                domains[place.type] = type_domain(place.type, answers)
                if not domains[place.type]:
                    raise BiasError(
                        f"evalfn posonly draws the {place.type} places of {mode} from the "
                        f"facts of {place.type}/1, and it has none: add facts such as "
                        f"{place.type}(value)."
                    )
    sample = []
    for _ in range(size):
        mode = modes[rng.randrange(len(modes))] if len(modes) > 1 else modes[0]
        atom = mode.template
        for place in mode.places:
            values = domains[place.type]
            atom = _put(atom, place.path, values[rng.randrange(len(values))])
        sample.append(atom)
    return sample


def _put(term: Term, path: tuple[int, ...], value: Term) -> Term:
    """``term`` with the subterm at ``path`` (argument indices) replaced by ``value``."""
    if not path:
        return value
    assert type(term) is Struct
    i = path[0]
    args = list(term.args)
    args[i] = _put(args[i], path[1:], value)
    return Struct(term.name, tuple(args))


def with_examples(task: Task, atoms: Sequence[Term]) -> Task:
    """``task`` with ``atoms`` appended to its examples as negatives of weight 1 (no fold);
    the task's own examples keep their ids."""
    ex = task.examples
    k = len(atoms)
    examples = Examples(
        atoms=[*ex.atoms, *atoms],
        labels=np.concatenate([ex.labels, np.full(k, NEG, dtype=np.int8)]),
        weights=np.concatenate([ex.weights, np.ones(k, dtype=np.float64)]),
        folds=np.concatenate([ex.folds, np.full(k, -1, dtype=np.int32)]),
        locations=[*ex.locations, *([None] * k)],
    )
    return replace(task, examples=examples)


def _loaded_task(backend: Any) -> Task | None:
    """The task ``backend`` holds, when it says (the built-in engines do)."""
    try:
        loaded = backend.task
    except Exception:  # a backend without the attribute, or with no task loaded
        return None
    return loaded if isinstance(loaded, Task) else None


class RandomSample:
    """Aleph's random sample, on the run's backend for as long as a learner needs it.

    ``with RandomSample(task, backend, size, rng) as sample:`` draws ``size`` examples of
    the target (:func:`generate`, the type values asked of ``backend``), loads ``backend``
    with ``sample.task`` (the task's examples, then the sample: ids ``sample.ids``), and
    on leaving loads again the task it had (else ``task``), so it answers as before.
    """

    def __init__(
        self, task: Task, backend: Any, size: int, rng: random.Random, target: tuple[str, int]
    ) -> None:
        self.original = _loaded_task(backend) or task
        self.backend = backend
        self.atoms = generate(task, target, size, rng, backend.answers)
        self.task = with_examples(task, self.atoms)
        first = len(task.examples)
        self.ids: npt.NDArray[np.int64] = np.arange(first, first + len(self.atoms), dtype=np.int64)

    def __enter__(self) -> RandomSample:
        self.backend.load(self.task)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.backend.load(self.original)
