"""The kinds of plugin, apart from the plugin manager: the CLI names them without importing
pluggy and pydantic (``ilpkit --help`` stays quick)."""

from __future__ import annotations

from typing import Final, Literal, get_args

PluginKind = Literal[
    "backend", "search", "scorer", "learner", "combiner", "executor", "format", "kernel"
]
KINDS: Final[tuple[PluginKind, ...]] = get_args(PluginKind)
