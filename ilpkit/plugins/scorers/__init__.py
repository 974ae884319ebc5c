"""Built-in clause scorers (plugin kind ``"scorer"``): Aleph's evalfns, rates, FOIL gain,
and the ranking objectives of PRankBoost and RankBoost.

Each scorer implements :class:`ilpkit.core.scoring.Scorer` on weighted counts (unweighted
data is weights of 1) and is built by ``get_plugin_manager().make("scorer", name, options)``.
"""

from __future__ import annotations

from typing import Any

from ilpkit.core.plugins import PluginSpec
from ilpkit.plugins.scorers import aleph, foil, posonly, posonly_unlabeled, ranking, rates

SPECS: list[PluginSpec[Any]] = [
    *aleph.SPECS,
    *rates.SPECS,
    *foil.SPECS,
    *ranking.SPECS,
    *posonly.SPECS,
    *posonly_unlabeled.SPECS,
]
"""Every built-in scorer's spec, registered by :mod:`ilpkit.plugins.builtin`."""

__all__ = ["SPECS"]
