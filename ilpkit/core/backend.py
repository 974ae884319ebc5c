"""The backend contract, in one place: what learners, searches and models ask of an engine.

Every backend plugin's factory returns an object with these members;
:class:`ilpkit.plugins.backends.base.Backend` (the base class of the built-in engines) implements
them, and its module documents the semantics (coverage, saturation, resource limits).
The narrower names ``ClauseBackend`` (:mod:`ilpkit.core.learner`), ``CoverageBackend``
(:mod:`ilpkit.core.search`) and ``BatchCoverage`` (:mod:`ilpkit.core.features`) are this
protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ilpkit.core.coverage import Coverage
from ilpkit.core.task import Task
from ilpkit.prolog.terms import Clause


@runtime_checkable
class BackendProtocol(Protocol):
    """An engine loaded with one task that answers saturation and coverage queries."""

    @property
    def n_examples(self) -> int:
        """Examples of the loaded task (ids ``0 .. n_examples - 1``)."""
        ...

    def load(self, task: Task) -> None:
        """Load background knowledge and examples (replacing any previous task)."""
        ...

    def saturate(
        self, example: Any, bias: Any = None, depth: int | None = None, order: Any = "modes"
    ) -> Any:
        """The bottom clause of ``example`` (an example id or a ground atom)."""
        ...

    def coverage(self, clause: Clause, among: Coverage | None = None) -> Coverage:
        """Examples covered by ``clause`` (restricted to ``among``)."""
        ...

    def coverage_many(
        self, clauses: Sequence[Clause], among: Coverage | None = None
    ) -> list[Coverage]:
        """Coverage of each clause (restricted to ``among``); backends share work here."""
        ...

    def close(self) -> None:
        """Release the engine (processes, memory)."""
        ...
