"""The ``swi`` backend plugin (SWI-Prolog in this process, through janus-swi or pyswip)."""

from __future__ import annotations

from ilpkit.backends.prolog.swi_backend import SwiBackend, SwiOptions
from ilpkit.core.plugins import PluginSpec

SPEC = PluginSpec(
    kind="backend",
    name="swi",
    factory=SwiBackend,
    options=SwiOptions,
    doc="SWI-Prolog in this process (janus-swi or pyswip); full Prolog semantics, no pipe.",
)
