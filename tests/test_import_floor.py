"""Regression guard for the start-up floor (issue 32): the CLI and the plugin registration
import no heavy library; each is imported where it is used (networkx for literal graphs,
numba when the native kernel first runs, scikit-learn/scipy in the learners and combiners
that fit with them). Not a timing test: it checks ``sys.modules`` in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("networkx", "sklearn", "scipy", "numba", "llvmlite")

_REPORT = """
import json, sys
{code}
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def _heavy_after(code: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", _REPORT.format(code=code, heavy=heavy)],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    loaded: list[str] = json.loads(out.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    "code",
    [
        "import ilpkit.cli.main",
        # what every command does: the built-in plugins registered through pluggy
        "from ilpkit.core.plugins import PluginManager; PluginManager(entry_points=False)",
        # `ilpkit --help`, run as the command runs it
        "import sys\nfrom ilpkit.cli.main import app\nsys.argv = ['ilpkit', '--help']\n"
        "try:\n    app()\nexcept SystemExit:\n    pass",
    ],
    ids=["import-cli", "register-plugins", "help"],
)
def test_start_up_imports_no_heavy_library(code: str) -> None:
    assert _heavy_after(code) == []


def _plugin_modules_after(code: str, prefix: str) -> list[str]:
    """The modules named ``prefix...`` a fresh interpreter holds after running ``code`` (with
    ``PluginManager`` imported)."""
    script = (
        f"import json, sys\nfrom ilpkit.core.plugins import PluginManager\n{code}"
        f"print(json.dumps(sorted(n for n in sys.modules if n.startswith({prefix!r}))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True, timeout=120
    ).stdout
    loaded: list[str] = json.loads(out.strip().splitlines()[-1])
    return loaded


def test_registering_the_builtins_imports_no_plugin_module() -> None:
    """The manager lists the built-ins from a table; a plugin's module (with the SWI-Prolog
    bridges, the learners, scikit-learn fits) is imported only when that plugin is used."""
    code = (
        "m = PluginManager(entry_points=False)\nassert 'svm' in m.names('combiner')\n"
        "m.get('learner', 'theory')\n"
    )
    assert _plugin_modules_after(code, "ilpkit.plugins.") == [
        "ilpkit.plugins.builtin",
        "ilpkit.plugins.learners",
        "ilpkit.plugins.learners.theory",
    ]


def test_a_scorer_imports_its_own_module_only() -> None:
    """A run uses one scorer: looking up ``mestimate`` imports Aleph's scorers' module (and
    their shared helpers), not the other five scorer modules of the package."""
    code = "PluginManager(entry_points=False).make('scorer', 'mestimate', {})\n"
    assert _plugin_modules_after(code, "ilpkit.plugins.scorers") == [
        "ilpkit.plugins.scorers",
        "ilpkit.plugins.scorers._common",
        "ilpkit.plugins.scorers.aleph",
    ]


def test_learning_a_small_task_loads_no_numba() -> None:
    """``learn trains``: the native backend's ``kernel=auto`` leaves 38 clauses to the
    set-at-a-time engine, so numba and llvmlite (0.5 CPU s, 110 MB) are never imported; nor
    is ``numpy.ma`` (13-19 ms), which numpy's plain ``np.unique`` imports
    (:mod:`ilpkit.core.distinct`), ``logging`` (nothing is logged), ``email.parser`` (no
    distribution's METADATA is read) or the modules only ensembles and ``predict`` use."""
    code = (
        "import sys\nfrom ilpkit.cli.main import app\n"
        "sys.argv = ['ilpkit', 'learn', 'trains', '-q']\n"
        "try:\n    app()\nexcept SystemExit as e:\n    assert not e.code, e.code"
    )
    unused = (
        "numba",
        "llvmlite",
        "numpy.ma",
        "logging",
        "email.parser",
        "ilpkit.core.members",
        "ilpkit.experiment.predictions",
    )
    assert _heavy_after(code, unused) == []


def test_the_cli_import_leaves_numpy_for_the_commands() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import sys, ilpkit.cli.main; print('numpy' in sys.modules)"],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("argv", [["--help"], ["learn", "--help"]], ids=["help", "learn-help"])
def test_help_imports_neither_pydantic_nor_the_plugin_manager(argv: list[str]) -> None:
    """``ilpkit --help`` lists the commands without the configuration models (pydantic) or
    the plugin manager (pluggy, entry points): they halved its start-up (0.43-0.55 to
    0.22-0.29 CPU s, 41 to 26 MB).  ``learn --help`` lists every plugin's options, so it
    loads the manager, but still no configuration model of a run.  Neither draws its help
    with rich (ilpkit.cli.help_panels: rich and markdown-it were 0.2 of 0.3 CPU s)."""
    code = (
        "import sys\nfrom ilpkit.cli.main import app\n"
        f"sys.argv = ['ilpkit', *{argv!r}]\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('pydantic', 'pluggy', 'ilpkit.experiment.config', "
        "'ilpkit.core.plugins', 'numpy', 'rich') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=120
    ).stdout
    loaded = out.strip().splitlines()[-1]
    if argv == ["--help"]:
        assert loaded == "[]"
    else:
        assert "ilpkit.core.plugins" in loaded and "ilpkit.experiment.config" not in loaded
        assert "rich" not in loaded
