"""The command line: version, plugins, data check, and the central error handler."""

from __future__ import annotations

import json
import re
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ilpkit import __version__
from ilpkit.cli import plugins_cmd
from ilpkit.cli.main import app
from ilpkit.core.plugins import KINDS, PluginManager
from ilpkit.errors import DataError, PluginError, PrologSyntaxError, SourceLocation

runner = CliRunner()


@pytest.fixture(autouse=True)
def fresh_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands see a registry of built-ins only, whatever is installed here."""
    manager = PluginManager(entry_points=False)
    monkeypatch.setattr(plugins_cmd, "get_plugin_manager", lambda: manager)


def fake_loader(monkeypatch: pytest.MonkeyPatch, load_task: Callable[..., Any]) -> None:
    """Replace ``ilpkit.core.formats`` so these tests never depend on the real loaders."""
    module = types.ModuleType("ilpkit.core.formats")
    module.load_task = load_task  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ilpkit.core.formats", module)


class FakeTask:
    def summary(self) -> dict[str, Any]:
        return {
            "format": "aleph",
            "target": "advisedby/2",
            "positives": 3,
            "negatives": 5,
            "unlabeled": 0,
            "facts_per_predicate": {"student/1": 10, "professor/1": 4},
            "rules": 0,
            "modes": ["modeh(1, advisedby(+person, +person))"],
            "settings": {},
            "folds": {"fold0": {"positives": 1}},
            "warnings": [f"w{i}" for i in range(40)],
        }


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"ilpkit {__version__}"


def test_no_arguments_shows_help() -> None:
    result = runner.invoke(app, [])
    assert "plugins" in result.output
    assert "data" in result.output


def test_the_command_list_gives_each_command_its_first_sentence() -> None:
    """The list of ``ilpkit --help`` shows one sentence a command; the rest of a docstring
    (with its line breaks, which broke the list's lines mid-sentence) is the command's own
    ``--help``."""
    listing = runner.invoke(app, ["--help"], terminal_width=200).output
    learn_row = next(line for line in listing.splitlines() if " learn " in line)
    assert learn_row.split("learn", 1)[1].strip(" │") == "Learn a model."
    assert "overrides the data's" not in listing
    assert "overrides the data's" in runner.invoke(app, ["learn", "--help"]).output


def test_plugins_table() -> None:
    result = runner.invoke(app, ["plugins"])
    assert result.exit_code == 0, result.output
    for word in (*KINDS, "local", "native", "theory", "laplace", "ilpkit"):
        assert word in result.stdout


def test_plugins_json() -> None:
    result = runner.invoke(app, ["plugins", "--json"])
    assert result.exit_code == 0, result.output
    listing = json.loads(result.stdout)
    assert list(listing) == list(KINDS)
    (local,) = [p for p in listing["executor"] if p["name"] == "local"]
    assert local["source"] == "ilpkit"
    assert local["doc"]
    assert "check_pickle" in local["options"]["properties"]


def test_data_check_missing_path_exits_2_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def load_task(path: Path, format: str = "auto", stem: str | None = None) -> Any:
        raise DataError(f"{path}: no such file or directory")

    fake_loader(monkeypatch, load_task)
    missing = tmp_path / "no_such_dataset"
    result = runner.invoke(app, ["data", "check", str(missing)])
    assert result.exit_code == 2
    assert result.stderr == f"error: {missing}: no such file or directory\n"
    assert result.stdout == ""


def test_data_check_passes_format_and_stem(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []

    def load_task(path: Path, format: str = "auto", stem: str | None = None) -> FakeTask:
        calls.append((path, format, stem))
        return FakeTask()

    fake_loader(monkeypatch, load_task)
    result = runner.invoke(app, ["data", "check", "d", "--format", "aleph", "--stem", "ai"])
    assert result.exit_code == 0, result.output
    assert calls == [(Path("d"), "aleph", "ai")]
    assert type(calls[0][1]) is str


def test_data_check_prints_the_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_loader(monkeypatch, lambda path, format, stem: FakeTask())
    result = runner.invoke(app, ["data", "check", "uwcse"])
    assert result.exit_code == 0, result.output
    for text in ("uwcse", "target: advisedby/2", "positives: 3", "student/1: 10", "15 more"):
        assert text in result.stdout
    as_json = runner.invoke(app, ["data", "check", "uwcse", "--json"])
    assert json.loads(as_json.stdout) == FakeTask().summary()


def test_data_check_rejects_unknown_format() -> None:
    result = runner.invoke(app, ["data", "check", "d", "--format", "csv"])
    assert result.exit_code == 2
    assert "csv" in result.output


def test_multi_line_errors_keep_their_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    def load_task(path: Path, format: str, stem: str | None) -> Any:
        raise PrologSyntaxError(
            [(SourceLocation("a.b", 1, 2), "bad"), (SourceLocation("a.b", 3, 4), "worse")]
        )

    fake_loader(monkeypatch, load_task)
    result = runner.invoke(app, ["data", "check", "a"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["error: a.b:1:2: bad", "a.b:3:4: worse"]
    assert "Traceback" not in result.output


def test_any_command_gets_the_error_handler(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> PluginManager:
        raise PluginError("no executor named 'x'")

    monkeypatch.setattr(plugins_cmd, "get_plugin_manager", broken)
    result = runner.invoke(app, ["plugins"])
    assert result.exit_code == 2
    assert result.stderr == "error: no executor named 'x'\n"


def test_ctrl_c_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted() -> PluginManager:
        raise KeyboardInterrupt

    monkeypatch.setattr(plugins_cmd, "get_plugin_manager", interrupted)
    result = runner.invoke(app, ["plugins"])
    assert result.exit_code == 130
    assert result.stderr == "interrupted\n"


def test_bugs_keep_their_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def bug() -> PluginManager:
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(plugins_cmd, "get_plugin_manager", bug)
    result = runner.invoke(app, ["plugins"])
    assert result.exit_code == 1
    assert isinstance(result.exception, ZeroDivisionError)


@pytest.mark.parametrize(
    "argv",
    [
        ["learn", "--help"],
        ["data", "check", "--help"],
        ["learn", "trains", "--no-such-option"],
        ["explain"],
        ["--help"],
        [],
        ["--version"],
        ["lern"],
        ["data"],
    ],
    ids=[
        "learn-help",
        "group-help",
        "bad-option",
        "missing-argument",
        "root-help",
        "no-arguments",
        "version",
        "misspelt-command",
        "group-without-command",
    ],
)
def test_the_one_command_app_answers_as_the_whole_app(argv: list[str]) -> None:
    """The console script builds only the command it runs, or none for the root's help
    (``app_for``): help, usage errors and exit codes must be the whole app's."""
    from ilpkit.cli.main import app_for, build_app

    one = CliRunner().invoke(app_for(argv), argv, prog_name="ilpkit")
    whole = CliRunner().invoke(build_app(), argv, prog_name="ilpkit")
    assert (one.exit_code, one.output) == (whole.exit_code, whole.output)
    assert one.output.strip()


def test_the_misspelt_command_is_answered_with_the_closest_names() -> None:
    from ilpkit.cli.main import app_for

    result = CliRunner().invoke(app_for(["lern"]), ["lern"], prog_name="ilpkit")
    assert result.exit_code == 2
    assert "No such command 'lern'. Did you mean 'learn'?" in result.output


def test_the_one_command_app_holds_that_command_only() -> None:
    import typer

    from ilpkit.cli.main import app_for

    def names(app: typer.Typer) -> set[str]:
        group = typer.main.get_command(app)
        return set(group.commands)  # type: ignore[attr-defined]

    assert names(app_for(["learn", "trains"])) == {"learn"}
    assert names(app_for(["datasets", "list"])) == {"datasets"}
    for argv in ([], ["--help"], ["--version"], ["lern"]):  # the root's help, or a suggestion
        assert names(app_for(argv)) == set(), argv  # listed from the table, none built


def test_the_root_help_builds_no_command() -> None:
    """``ilpkit --help`` lists every command (name and first sentence) without building
    one: that was half of its start-up."""
    import typer

    from ilpkit.cli.main import COMMANDS, app_for

    group = typer.main.get_command(app_for(["--help"]))
    ctx = group.make_context("ilpkit", [], resilient_parsing=True, terminal_width=200)
    shown = re.sub(r"\x1b\[[0-9;]*m", "", group.get_help(ctx))  # as echo shows it in a pipe
    listed = [
        line.strip("│ ").split()[0]
        for line in shown.splitlines()
        if line.startswith("│ ") and not line.startswith("│ --") and not line.startswith("│  ")
    ]
    assert listed == list(COMMANDS)
    assert group.commands == {}  # type: ignore[attr-defined]
