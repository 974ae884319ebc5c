"""Third-party plugin packages are found through the ``ilpkit.plugins`` entry point group.

Each test builds a tiny project (``pyproject.toml`` + package) in a temp dir and "installs"
it the way an editable install would, without pip: a ``NAME-VERSION.dist-info`` folder
(METADATA + entry_points.txt, generated from the pyproject) next to the package, with the
folder prepended to ``sys.path``. ``importlib.metadata`` then finds it like any installed
distribution; the shared environment is never touched.
"""

from __future__ import annotations

import json
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ilpkit.cli import plugins_cmd
from ilpkit.cli.main import app
from ilpkit.core.plugins import DISABLE_AUTOLOAD_ENV, ENTRY_POINT_GROUP, PluginManager
from ilpkit.errors import ConfigError, PluginError

DEMO_SOURCE = '''
"""A third-party ilpkit plugin package."""

from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.plugins import PluginSpec, hookimpl


class DemoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workers: int = Field(default=1, description="How many workers to pretend to use.")


class DemoExecutor:
    def __init__(self, options: DemoOptions) -> None:
        self.options = options

    def map(self, fn, units):
        return (fn(unit) for unit in units)

    def close(self) -> None:
        pass


@hookimpl
def ilpkit_register_plugins():
    return [
        PluginSpec(
            kind="executor",
            name="{name}",
            factory=DemoExecutor,
            options=DemoOptions,
            doc="A demo executor from a third-party package.",
        )
    ]
'''


def make_project(
    root: Path,
    dist: str,
    entry_points: dict[str, str],
    modules: dict[str, str] | None = None,
    version: str = "0.1",
) -> Path:
    """Write a project folder: pyproject.toml and the given top-level modules (packages)."""
    project = root / dist
    project.mkdir(parents=True)
    eps = "\n".join(f'{name} = "{value}"' for name, value in entry_points.items())
    (project / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [project]
            name = "{dist}"
            version = "{version}"
            dependencies = ["ilpkit"]

            [project.entry-points."{ENTRY_POINT_GROUP}"]
            """
        )
        + eps
        + "\n"
    )
    for package, source in (modules or {}).items():
        (project / package).mkdir()
        (project / package / "__init__.py").write_text(source)
    return project


def install_in_place(project: Path) -> Path:
    """What an editable install leaves: a dist-info folder beside the code."""
    meta = tomllib.loads((project / "pyproject.toml").read_text())["project"]
    info = project / f"{meta['name']}-{meta['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n"
    )
    lines = []
    for group, eps in meta.get("entry-points", {}).items():
        lines.append(f"[{group}]")
        lines.extend(f"{name} = {value}" for name, value in eps.items())
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return project


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder for fake installs; their modules are forgotten after the test."""
    monkeypatch.delenv(DISABLE_AUTOLOAD_ENV, raising=False)
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith("ilpkit_"):
            del sys.modules[name]


def install(
    monkeypatch: pytest.MonkeyPatch,
    site: Path,
    dist: str,
    entry_points: dict[str, str],
    modules: dict[str, str] | None = None,
) -> None:
    monkeypatch.syspath_prepend(
        str(install_in_place(make_project(site, dist, entry_points, modules)))
    )


def install_demo(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    install(
        monkeypatch,
        site,
        "ilpkit_demo_plugin",
        {"demo": "ilpkit_demo_plugin"},
        {"ilpkit_demo_plugin": DEMO_SOURCE.replace("{name}", "demo")},
    )


def test_third_party_package_is_found(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    install_demo(monkeypatch, site)
    manager = PluginManager()
    demo = manager.get("executor", "demo")
    assert demo.source == "ilpkit_demo_plugin"
    assert demo.doc == "A demo executor from a third-party package."
    assert manager.names("executor") == ["dask", "demo", "local", "processes"]
    executor = manager.make("executor", "demo", {"workers": 3})
    assert executor.options.workers == 3
    assert list(executor.map(str, [1, 2])) == ["1", "2"]
    assert manager.hooks.get_plugin("demo") is sys.modules["ilpkit_demo_plugin"]


def test_third_party_options_errors_name_the_plugin(
    monkeypatch: pytest.MonkeyPatch, site: Path
) -> None:
    install_demo(monkeypatch, site)
    with pytest.raises(ConfigError, match=r"executor 'demo': option 'workers': .*\(got 'many'\)"):
        PluginManager().make("executor", "demo", {"workers": "many"})


def test_autoload_can_be_disabled(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    install_demo(monkeypatch, site)
    monkeypatch.setenv(DISABLE_AUTOLOAD_ENV, "1")
    assert PluginManager().names("executor") == ["dask", "local", "processes"]
    assert "demo" in PluginManager(entry_points=True).names("executor")


def test_installed_ilpkit_entry_point_does_not_register_builtins_twice(
    monkeypatch: pytest.MonkeyPatch, site: Path
) -> None:
    # What a pip-installed ilpkit announces, plus a second name for the same module.
    install(monkeypatch, site, "ilpkit", {"builtin": "ilpkit.plugins.builtin"})
    install(monkeypatch, site, "ilpkit_alias", {"alias": "ilpkit.plugins.builtin"})
    manager = PluginManager()
    assert manager.get("executor", "local").source == "ilpkit"
    assert manager.hooks.get_plugin("alias") is None


def test_clash_between_two_packages_names_both(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    install_demo(monkeypatch, site)
    install(
        monkeypatch,
        site,
        "ilpkit_other_plugin",
        {"other": "ilpkit_other_plugin"},
        {"ilpkit_other_plugin": DEMO_SOURCE.replace("{name}", "demo")},
    )
    with pytest.raises(PluginError) as info:
        PluginManager()
    message = str(info.value)
    assert "two plugins register the executor 'demo'" in message
    assert "'ilpkit_demo_plugin'" in message
    assert "'ilpkit_other_plugin'" in message


def test_same_entry_point_name_in_two_packages(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    install_demo(monkeypatch, site)
    install(
        monkeypatch,
        site,
        "ilpkit_second_plugin",
        {"demo": "ilpkit_second_plugin"},
        {"ilpkit_second_plugin": DEMO_SOURCE.replace("{name}", "second")},
    )
    manager = PluginManager()
    assert manager.get("executor", "demo").source == "ilpkit_demo_plugin"
    assert manager.get("executor", "second").source == "ilpkit_second_plugin"


def test_broken_package_names_its_distribution(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    install(
        monkeypatch,
        site,
        "ilpkit_broken_plugin",
        {"broken": "ilpkit_broken_plugin"},
        {"ilpkit_broken_plugin": "import a_module_that_is_not_there\n"},
    )
    with pytest.raises(PluginError) as info:
        PluginManager()
    message = str(info.value)
    assert "cannot load plugin 'broken'" in message
    assert "from package 'ilpkit_broken_plugin'" in message
    assert "ModuleNotFoundError" in message
    assert DISABLE_AUTOLOAD_ENV in message


def test_cli_lists_third_party_plugins(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    install_demo(monkeypatch, site)
    manager = PluginManager()
    monkeypatch.setattr(plugins_cmd, "get_plugin_manager", lambda: manager)
    result = CliRunner().invoke(app, ["plugins", "--json"])
    assert result.exit_code == 0, result.output
    executors = {p["name"]: p for p in json.loads(result.stdout)["executor"]}
    assert executors["demo"]["source"] == "ilpkit_demo_plugin"
    assert executors["demo"]["options"]["properties"]["workers"]["default"] == 1
    table = CliRunner().invoke(app, ["plugins"])
    assert table.exit_code == 0
    assert "ilpkit_demo_plugin" in table.stdout
