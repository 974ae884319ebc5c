"""Every registered plugin passes its kind's contract suite (:mod:`ilpkit.contracts`).

Backends that run SWI-Prolog inside the process (janus, pyswip) are checked in a child
process each, as a process holds one libswipl; the subprocess backend with each engine.
"""

from __future__ import annotations

import pytest

from ilpkit.contracts import PluginCheck, plugin_checks
from ilpkit.core.plugins import get_plugin_manager

MANAGER = get_plugin_manager()


def checks(kind: str) -> list[PluginCheck]:
    return [c for name in sorted(MANAGER.names(kind)) for c in plugin_checks(kind, name)]  # type: ignore[arg-type]


@pytest.mark.parametrize("check", checks("combiner"), ids=str)
def test_combiner_contract(check: PluginCheck) -> None:
    check.run()


@pytest.mark.parametrize("check", checks("scorer"), ids=str)
def test_scorer_contract(check: PluginCheck) -> None:
    check.run()


@pytest.mark.parametrize("check", checks("search"), ids=str)
def test_search_contract(check: PluginCheck) -> None:
    check.run()


@pytest.mark.parametrize("check", checks("format"), ids=str)
def test_format_contract(check: PluginCheck) -> None:
    check.run()


@pytest.mark.parametrize("check", plugin_checks("backend", "native"), ids=str)
def test_native_backend_contract(check: PluginCheck) -> None:
    check.run()


def _engine_or_skip(engine: str) -> None:
    import shutil

    from ilpkit.plugins.backends.prolog.profiles import PROFILES
    from tests.reference_prover import require_backends

    if shutil.which(PROFILES[engine].executable) is None:
        if require_backends(engine):
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {engine} but it is not on PATH")
        pytest.skip(f"{engine} is not on PATH")


@pytest.mark.parametrize(
    "check",
    [
        c
        for engine in ("swipl", "gprolog")
        for c in plugin_checks("backend", "subprocess", options={"engine": engine})
    ],
    ids=str,
)
def test_subprocess_backend_contract(check: PluginCheck) -> None:
    _engine_or_skip(str((check.options or {})["engine"]))
    check.run()


@pytest.mark.parametrize("bridge", ["janus", "pyswip"])
def test_swi_backend_contract(bridge: str) -> None:
    """Each check in a child process with that bridge's environment."""
    from ilpkit.contracts import CHECKS
    from tests.test_swi_backend import bridge_available, in_child

    bridge_available(bridge)
    got = in_child(bridge, swi_checks, bridge=bridge, names=list(CHECKS["backend"]))
    assert got == {name: "ok" for name in CHECKS["backend"]}


def swi_checks(bridge: str, names: list[str]) -> dict[str, str]:
    """Every backend check on the swi backend with ``bridge`` (run in a child process)."""
    from ilpkit.contracts import run_check

    out = {}
    for name in names:
        try:
            out[name] = run_check("backend", "swi", name, {"bridge": bridge})
        except AssertionError as err:
            out[name] = f"failed: {err}"
    return out
