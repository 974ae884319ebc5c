"""What produced a result: ilpkit's version and the Prolog engine or bridge and its version.

Models and run records carry it, so a result can be traced to the engine that computed it
(coverage agrees across engines; timings and resource limits do not).
"""

from __future__ import annotations

from typing import Any


def engine_record(engine: Any) -> dict[str, str]:
    """What produced a model, for its record: ilpkit's version, and the Prolog engine or
    bridge and its version when the backend runs one (a loaded backend knows them)."""
    from ilpkit._version import __version__

    record = {"ilpkit": __version__}
    options = getattr(engine, "options", None)
    for key in ("engine", "bridge"):
        value = getattr(options, key, None)
        if isinstance(value, str):
            record[key] = value
    bridge = getattr(engine, "bridge_name", "")
    if isinstance(bridge, str) and bridge:
        record["bridge"] = bridge  # the one "auto" chose
    version = getattr(engine, "version", "")
    if isinstance(version, str) and version:
        record["version"] = version
    return record
