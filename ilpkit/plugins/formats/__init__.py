"""The built-in dataset formats (Aleph, BoostSRL, Popper) as plugins of kind ``"format"``.

Each factory imports its format module when the format is first used, so listing plugins
does not load every reader; BoostSRL's and Popper's are not imported to *detect* a data set
either (:mod:`ilpkit.plugins.formats.layouts` knows their files), only to read or write one.
A third-party format registers the same way: a :class:`~ilpkit.core.plugins.PluginSpec` of
kind ``"format"`` whose factory returns a :class:`~ilpkit.core.formats.DatasetFormat`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ilpkit.core.formats import DatasetFormat
from ilpkit.core.plugins import NoOptions, PluginSpec

if TYPE_CHECKING:
    from ilpkit.core.task import Task


def _lazy(module: str) -> Callable[[NoOptions], DatasetFormat]:
    def factory(options: NoOptions) -> DatasetFormat:
        fmt: DatasetFormat = importlib.import_module(f"ilpkit.plugins.formats.{module}").FORMAT
        return fmt

    return factory


class _ReaderOnDemand:
    """A built-in format that detects from :mod:`~ilpkit.plugins.formats.layouts` and imports
    its reader module on the first read, write or other attribute (BoostSRL's is 1,400 lines:
    every run on Aleph data asked it whether the folder was its own)."""

    def __init__(self, name: str, detector: Callable[[Path], str | None]) -> None:
        self.name = name
        self._detector = detector
        self._format: DatasetFormat | None = None

    def _reader(self) -> DatasetFormat:
        if self._format is None:
            self._format = _lazy(self.name)(NoOptions())
        return self._format

    def detect(self, path: Path) -> str | None:
        return self._detector(path)

    @property
    def description(self) -> str:
        return self._reader().description

    @description.setter
    def description(self, text: str) -> None:
        self._reader().description = text

    def load(self, path: Path, *, stem: str | None = None) -> Task:
        return self._reader().load(path, stem=stem)

    def write(self, task: Task, dest: Path) -> list[Path]:
        return self._reader().write(task, dest)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._reader(), attr)


def _detect_first(name: str) -> Callable[[NoOptions], DatasetFormat]:
    def factory(options: NoOptions) -> DatasetFormat:
        from ilpkit.plugins.formats import layouts

        return _ReaderOnDemand(name, getattr(layouts, f"detect_{name}"))

    return factory


SPECS: list[PluginSpec[Any]] = [
    PluginSpec(
        kind="format",
        name="aleph",
        factory=_lazy("aleph"),
        options=NoOptions,
        doc="Aleph: NAME.b (background, modes, settings) with NAME.f / NAME.n examples.",
    ),
    PluginSpec(
        kind="format",
        name="boostsrl",
        factory=_detect_first("boostsrl"),
        options=NoOptions,
        doc="BoostSRL/srlearn: train/ and test/ folders of *_bk.txt, _facts, _pos, _neg.",
    ),
    PluginSpec(
        kind="format",
        name="popper",
        factory=_detect_first("popper"),
        options=NoOptions,
        doc="Popper: bk.pl, exs.pl (pos/neg) and bias.pl.",
    ),
]
