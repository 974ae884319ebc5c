"""Aleph data as an Aleph user brings it (issue 30): settings ilpkit knows but does not use are
reported, not silently ignored."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.core.bias_check import UNUSED_SETTINGS, unused_settings
from ilpkit.core.formats import load_task

runner = CliRunner()


def _data(tmp_path: Path) -> Path:
    (tmp_path / "x.b").write_text(
        ":- modeh(1, p(+t)).\n:- modeb(1, q(+t)).\n:- determination(p/1, q/1).\n"
        ":- set(refine, auto).\n:- set(portray_literals, true).\n:- set(nodes, 100).\n"
        ":- set(evalfn, coverage).\nq(a).\nq(b).\n"
    )
    (tmp_path / "x.f").write_text("p(a).\np(b).\n")
    (tmp_path / "x.n").write_text("p(c).\n")
    return tmp_path / "x"


def test_settings_ilpkit_never_reads_are_listed_when_set(tmp_path: Path) -> None:
    task = load_task(_data(tmp_path))
    assert unused_settings(task) == ["portray_literals", "refine"]
    # a learner that runs its own scorer does not read evalfn either
    assert unused_settings(task, takes_scorer=False) == ["evalfn", "portray_literals", "refine"]


def test_learn_and_data_check_say_once_which_settings_go_unused(tmp_path: Path) -> None:
    path = str(_data(tmp_path))
    result = runner.invoke(app, ["data", "check", path])
    assert result.exit_code == 0, result.output
    assert "set but not used by ilpkit: portray_literals, refine" in result.output
    result = runner.invoke(app, ["learn", path, "--learner", "aleph", "-q"])
    assert result.exit_code == 0, result.output
    said = re.findall(r"set but not used by learner aleph: portray_literals, refine", result.output)
    assert len(said) == 1, result.output


def test_the_unused_list_names_no_setting_ilpkit_reads() -> None:
    # a setting wired into ilpkit later must leave UNUSED_SETTINGS: no line naming settings
    # quotes one of them
    root = Path(__file__).resolve().parent.parent / "ilpkit"
    for name in sorted(UNUSED_SETTINGS):
        found = subprocess.run(
            ["grep", "-rlE", f"setting.*[\"']{name}[\"']", str(root), "--include=*.py"],
            capture_output=True,
            text=True,
        ).stdout.split()
        # aleph_hooks reads refine only to refuse a user refine/2 under set(refine, user)
        skip = ("core/bias.py", "bias_check.py", "confine.py", "aleph_hooks.py")
        readers = [f for f in found if not f.endswith(skip)]
        assert not readers, (name, readers)


def test_relative_dataset_paths_dot_and_dotdot(tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    from ilpkit.datasets import resolve_data_path

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    data = tmp_path / "data"
    data.mkdir()
    _data(data)
    (data / "sub").mkdir()
    monkeypatch.chdir(data)
    assert load_task(".").name == "x"
    assert load_task(resolve_data_path(".")).name == "x"
    for args in (["data", "check", "."], ["learn", ".", "-q"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert "empty name" not in result.output
    monkeypatch.chdir(data / "sub")
    assert load_task("..").name == "x"
    result = runner.invoke(app, ["data", "check", ".."])
    assert result.exit_code == 0, result.output


def test_learn_does_not_repeat_alephs_trace_volume(tmp_path: Path) -> None:
    """UW-CSE sets verbosity: data check lists it, learn and cv do not warn on every run."""
    from ilpkit.core.bias_check import unused_settings_warning
    from ilpkit.datasets import resolve_data_path

    task = load_task(resolve_data_path("uwcse"))
    assert "verbosity" in (unused_settings_warning(task) or "")
    assert unused_settings_warning(task, "theory") is None


def test_unsupported_aleph_features_are_refused_with_what_ilpkit_offers(tmp_path: Path) -> None:
    folder = tmp_path / "abduce"
    folder.mkdir()
    (folder / "g.b").write_text(
        ":- modeh(*, gp(+p, -p)).\n:- modeb(*, parent(+p, -p)).\n"
        ":- determination(gp/2, parent/2).\n:- abducible(parent/2).\n"
        "parent(a, b).\nparent(b, c).\n"
    )
    (folder / "g.f").write_text("gp(a, c).\n")
    (folder / "g.n").write_text("gp(b, a).\n")
    result = CliRunner().invoke(app, ["learn", str(folder)])
    assert result.exit_code == 2, result.output
    assert "g.b:4:1: Aleph's abduction (abducible/1) is not supported by ilpkit" in result.output
    # data check says so too, before anyone runs learn (the directive alone is listed as
    # uninterpreted)
    result = CliRunner().invoke(app, ["data", "check", str(folder)])
    assert result.exit_code == 0, result.output
    assert "warning: learn and cv refuse this data (exit 2):" in result.stderr
    assert "g.b:4:1: Aleph's abduction (abducible/1) is not supported by ilpkit" in result.stderr
    (folder / "g.b").write_text(
        (folder / "g.b").read_text().replace(":- abducible(parent/2).\n", "")
    )
    assert CliRunner().invoke(app, ["learn", str(folder)]).exit_code == 0
