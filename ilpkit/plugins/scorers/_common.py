"""The base of the built-in scorers: options stored as given, the protocol's default flags."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from ilpkit.core.coverage import Counts
from ilpkit.core.plugins import NoOptions, PluginSpec
from ilpkit.core.scoring import Scorer

OptionsT = TypeVar("OptionsT", bound=BaseModel)


class OptionsScorer(Scorer, Generic[OptionsT]):
    """A scorer built from a validated options model (``options_model()`` when ``None``)."""

    options_model: type[OptionsT]

    def __init__(self, options: OptionsT | None = None) -> None:
        self.options: OptionsT = options if options is not None else self.options_model()

    def score(self, counts: Counts, clause_length: int, parent: Counts | None = None) -> float:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"


class PlainScorer(OptionsScorer[NoOptions]):
    """A scorer without options."""

    options_model = NoOptions


def scorer_spec(cls: type[OptionsScorer[Any]], doc: str) -> PluginSpec[Any]:
    """The plugin spec of a scorer class: its name, options model and one-line ``doc``."""
    return PluginSpec(kind="scorer", name=cls.name, factory=cls, options=cls.options_model, doc=doc)
