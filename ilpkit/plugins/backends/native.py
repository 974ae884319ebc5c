"""The ``native`` backend plugin (numpy joins; no Prolog needed; the default)."""

from __future__ import annotations

from ilpkit.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.core.plugins import PluginSpec

SPEC = PluginSpec(
    kind="backend",
    name="native",
    factory=NativeBackend,
    options=NativeOptions,
    doc="Set-at-a-time numpy evaluator with a Prolog resolution engine for rules (default).",
)
