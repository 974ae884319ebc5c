"""The built-in dataset formats (Aleph, BoostSRL, Popper) as plugins of kind ``"format"``.

Each factory imports its format module when the format is first used, so listing plugins
does not load every reader. A third-party format registers the same way: a
:class:`~ilpkit.core.plugins.PluginSpec` of kind ``"format"`` whose factory returns a
:class:`~ilpkit.core.formats.DatasetFormat`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ilpkit.core.formats import DatasetFormat
from ilpkit.core.plugins import NoOptions, PluginSpec


def _lazy(module: str) -> Callable[[NoOptions], DatasetFormat]:
    def factory(options: NoOptions) -> DatasetFormat:
        fmt: DatasetFormat = importlib.import_module(f"ilpkit.plugins.formats.{module}").FORMAT
        return fmt

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
        factory=_lazy("boostsrl"),
        options=NoOptions,
        doc="BoostSRL/srlearn: train/ and test/ folders of *_bk.txt, _facts, _pos, _neg.",
    ),
    PluginSpec(
        kind="format",
        name="popper",
        factory=_lazy("popper"),
        options=NoOptions,
        doc="Popper: bk.pl, exs.pl (pos/neg) and bias.pl.",
    ),
]
