"""The backend contract: what every engine (native, SWI-Prolog, subprocess Prolog) answers.

A backend is loaded once with a :class:`~ilpkit.core.task.Task` and then answers

* ``saturate(example, depth)`` -- the bottom clause of a seed, built by
  :func:`ilpkit.core.bottom.saturate` from the backend's answers to mode goals, so the literal
  order is the same on every backend;
* ``coverage(clause, among)`` -- the examples the clause covers (ids of the task), restricted
  to ``among`` when given;
* ``coverage_many(clauses, among)`` -- the batch form, where a backend shares work between
  clauses (the native engine extends a cached parent table once per refinement).

Coverage semantics (identical everywhere): ``h :- body`` covers example ``e`` iff the head
unifies with ``e`` and the body then has at least one solution in the background program,
with Prolog's semantics for built-ins.  Predicates that appear in modes but have neither facts
nor rules fail (they are treated as declared ``dynamic``).

Resource limits: ``step_limit`` (resolution steps / inferences per query) and ``timeout``
(seconds per query).  Exceeding either raises
:class:`~ilpkit.errors.ResourceLimitExceeded` naming the clause; the backend stays usable.
Runs catch it per clause (the clause covers nothing, :mod:`ilpkit.core.limits` counts it in
:attr:`Backend.limits_exceeded`) and saturation drops the goal (:attr:`Backend.goals_dropped`),
so a run goes on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ilpkit.core.bias import Bias
from ilpkit.core.bottom import BottomClause, saturate
from ilpkit.core.coverage import Coverage
from ilpkit.core.limits import note_dropped
from ilpkit.core.task import Task
from ilpkit.core.validation import none_words_to_none
from ilpkit.errors import DataError, IlpkitError
from ilpkit.prolog.terms import Clause, Term, to_prolog


class BackendOptions(BaseModel):
    """Options every backend understands."""

    model_config = ConfigDict(extra="forbid")

    step_limit: int | None = Field(
        default=10_000_000,
        ge=1,
        description="Resolution steps (inferences) allowed per query; None = unlimited.",
    )
    timeout: float | None = Field(
        default=None, gt=0, description="Seconds allowed per query; None = unlimited."
    )
    trust_data: bool = Field(
        default=False,
        description="Allow directives and built-ins outside ilpkit's side-effect-free "
        "allow-list in background files (they may run arbitrary code in a Prolog engine).",
    )

    @model_validator(mode="before")
    @classmethod
    def _none_words(cls, data: Any) -> Any:
        """``None``, ``none`` and ``null`` as text (``--set``, TOML) mean None where the
        option's help promises "None = ..."."""
        return none_words_to_none(cls, data)


_LIMIT_OPTIONS = (
    ("inference limit", "backend.step_limit", "N", " or look for infinite recursion"),
    ("time limit", "backend.timeout", "SECONDS", ""),
    ("memory limit", "backend.memory_limit_mb", "MB", ""),
)


def limit_hint(text: str) -> str:
    """What to raise for the limit an engine's message ``text`` names (``; raise
    backend.step_limit (--set backend.step_limit=N) ...``), or ``""``: a Prolog engine's own
    words do not name ilpkit's options, and a user must know which one to set."""
    for words, option, unit, more in _LIMIT_OPTIONS:
        if words in text:
            return f"; raise {option} (--set {option}={unit}){more}"
    return ""


@dataclass(frozen=True)
class BackendStatus:
    """Whether a backend (or one variant of it, e.g. ``engine=gprolog``) works here."""

    variant: str
    available: bool
    version: str
    reason: str = ""
    """Why it is unavailable (empty when available)."""


class Backend(ABC):
    """Base class of backends; subclasses implement ``_load``, ``answers`` and ``_coverage``."""

    name: str = "?"
    limits_exceeded: int = 0
    """Clauses whose coverage, asked for by a search, exceeded a resource limit (each then
    scored as covering no example); counted by :func:`ilpkit.core.limits.note_limit`."""
    first_limit_message: str = ""
    goals_dropped: int = 0
    """Mode goals that saturations dropped over a resource limit (:mod:`ilpkit.core.limits`)."""
    random_seed: int = 0
    """Seed of the stream that the data's ``aleph_random/1`` draws from, restarted at every
    query (:mod:`ilpkit.core.aleph_library`); a run sets its own seed here before ``load``."""

    @classmethod
    def probe(cls) -> list[BackendStatus]:
        """Check that the backend can run on this machine (``ilpkit backends``), one status
        per variant; backends needing nothing outside ilpkit keep this default."""
        from ilpkit._version import __version__

        return [BackendStatus("", True, __version__)]

    def __init__(self, options: BackendOptions | None = None) -> None:
        self.options = options if options is not None else BackendOptions()
        self._task: Task | None = None

    # -- lifecycle --------------------------------------------------------------------------
    def load(self, task: Task) -> None:
        """Load background knowledge and examples (replacing any previous task)."""
        self._task = task
        self._load(task)

    @abstractmethod
    def _load(self, task: Task) -> None: ...

    def close(self) -> None:  # noqa: B027 (optional hook: most backends hold nothing)
        """Release the engine (processes, memory)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def task(self) -> Task:
        if self._task is None:
            raise IlpkitError(f"the {self.name} backend has no task loaded; call load(task)")
        return self._task

    @property
    def n_examples(self) -> int:
        return len(self.task.examples)

    # -- saturation ---------------------------------------------------------------------------
    @abstractmethod
    def answers(self, goal: Term, max_answers: int | None) -> list[Term]:
        """Ground instances of ``goal``, one per solution in Prolog order (see Oracle)."""

    def saturate(
        self,
        example: Term | int,
        bias: Bias | None = None,
        depth: int | None = None,
        order: Literal["modes", "aleph"] = "modes",
    ) -> BottomClause:
        """The bottom clause of ``example`` (an example id or a ground atom); ``order``: the
        literal order (:func:`ilpkit.core.bottom.saturate`)."""
        atom = self.task.examples.atoms[example] if isinstance(example, int) else example
        chosen = bias if bias is not None else self.task.bias
        bottom = saturate(atom, chosen, self, depth, order)
        note_dropped(self, len(bottom.dropped))  # runs report the goals dropped
        return bottom

    # -- coverage -------------------------------------------------------------------------------
    def coverage(self, clause: Clause, among: Coverage | None = None) -> Coverage:
        """Examples covered by ``clause`` (restricted to ``among``)."""
        self._check_among(among)
        return self._coverage(clause, among)

    def coverage_many(
        self, clauses: Sequence[Clause], among: Coverage | None = None
    ) -> list[Coverage]:
        """Coverage of each clause (restricted to ``among``)."""
        self._check_among(among)
        return [self._coverage(c, among) for c in clauses]

    @abstractmethod
    def _coverage(self, clause: Clause, among: Coverage | None) -> Coverage: ...

    def _check_among(self, among: Coverage | None) -> None:
        if among is not None and among.size != self.n_examples:
            raise DataError(
                f"'among' covers {among.size} examples but the task has {self.n_examples}"
            )

    def covers(self, clause: Clause, example: int) -> bool:
        among = Coverage(np.array([example]), self.n_examples, trusted=True)
        return len(self._coverage(clause, among)) == 1


def describe_clause(clause: Clause) -> str:
    return to_prolog(clause.to_term())
