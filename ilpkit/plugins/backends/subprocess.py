"""The ``subprocess`` backend plugin (SWI-Prolog, GNU Prolog or YAP as a child process)."""

from __future__ import annotations

from ilpkit.backends.prolog.subprocess_backend import SubprocessBackend, SubprocessOptions
from ilpkit.core.plugins import PluginSpec

SPEC = PluginSpec(
    kind="backend",
    name="subprocess",
    factory=SubprocessBackend,
    options=SubprocessOptions,
    doc="A Prolog engine (swipl, gprolog or yap) in a child process; full Prolog semantics.",
)
