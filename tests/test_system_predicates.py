"""The loaders' list of system predicates is the native engine's: they cannot drift apart."""

from __future__ import annotations

from ilpkit.core.system_predicates import SYSTEM_PREDICATES as CORE
from ilpkit.plugins.backends.native.resolution import SYSTEM_PREDICATES as ENGINE


def test_core_list_equals_the_native_engines_system_predicates() -> None:
    assert CORE == ENGINE
    assert ("succ", 2) in CORE and ("append", 3) not in CORE and ("false", 0) not in CORE
