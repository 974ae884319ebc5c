"""User mistakes are clear errors with exit code 2, never tracebacks; output errors lose
nothing (issue 33 items 3 and 5)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.datasets import bundled_path

runner = CliRunner()
LONG = "a" * 300


def fails_cleanly(args: list[str], *needles: str) -> str:
    result = runner.invoke(app, args)
    text = result.output
    assert result.exit_code == 2, (result.exit_code, text, result.exception)
    assert "Traceback" not in text, text
    for needle in needles:
        assert needle in text, text
    return text


@pytest.mark.parametrize("args", [["data", "check", "."], ["learn", "."], ["learn", "/"]])
def test_dot_and_root_as_data_are_errors_not_tracebacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # an empty folder: no data here
    fails_cleanly(args, "error:")


def test_dot_names_the_data_folder_one_is_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(bundled_path("trains"), tmp_path / "trains")
    monkeypatch.chdir(tmp_path / "trains")
    result = runner.invoke(app, ["data", "check", "."])
    assert result.exit_code == 0, result.output


def test_a_negative_example_id_is_an_error() -> None:
    fails_cleanly(["saturate", "trains", "-e", "-1"], "--example -1")


def test_a_path_component_over_255_characters_is_an_error(tmp_path: Path) -> None:
    fails_cleanly(["data", "check", LONG], "File name too long")
    fails_cleanly(["learn", "trains", "--out", str(tmp_path / LONG / "m.json")], "too long")


def test_an_overflowing_fold_count_in_a_run_toml_is_an_error(tmp_path: Path) -> None:
    toml = tmp_path / "run.toml"
    toml.write_text('[data]\npath = "trains"\n[cv]\nfolds = 99999999999999999999\n')
    fails_cleanly(["run", str(toml), "--out", str(tmp_path / "run")], "folds")


def test_a_clause_length_beyond_any_use_is_refused_before_learning(tmp_path: Path) -> None:
    text = fails_cleanly(
        ["cv", "trains", "--set", "clauselength=1_000", "--quiet", "--out", str(tmp_path / "r")]
    )
    assert re.search(r"clauselength.*from 1 to 100\b", text), text


@pytest.mark.parametrize("target", ["/dev/full", "/proc/ilpkit-model.json"])
def test_a_model_that_cannot_be_written_is_kept_and_its_place_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    monkeypatch.setenv("ILPKIT_CACHE", str(tmp_path / "cache"))
    text = fails_cleanly(["learn", "trains", "--quiet", "--out", target], target)
    kept = re.search(r"kept in (\S+\.json)", text)
    assert kept, text
    model = json.loads(Path(kept.group(1)).read_text())
    assert model["rules"]


def test_predictions_that_cannot_be_written_are_kept_and_their_place_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ILPKIT_CACHE", str(tmp_path / "cache"))
    model = tmp_path / "m.json"
    assert runner.invoke(app, ["learn", "trains", "--quiet", "--out", str(model)]).exit_code == 0
    text = fails_cleanly(["predict", str(model), "trains", "--out", "/dev/full"], "/dev/full")
    kept = re.search(r"kept in (\S+\.csv)", text)
    assert kept, text
    assert Path(kept.group(1)).read_text().startswith("id,")


def test_saturate_and_coverage_take_the_data_settings() -> None:
    result = runner.invoke(app, ["saturate", "trains", "-e", "0", "--set", "i=1"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        app, ["coverage", "trains", "-c", "eastbound(A) :- has_car(A,B)", "--set", "i=1"]
    )
    assert result.exit_code == 0, result.output
    fails_cleanly(["saturate", "trains", "-e", "0", "--set", "i=0"], "i=0")


def test_an_undefined_predicate_is_said_to_be_undefined_not_untrusted(tmp_path: Path) -> None:
    data = tmp_path / "trains"
    shutil.copytree(bundled_path("trains"), data)
    bk = next(p for p in data.iterdir() if p.suffix == ".b")
    bk.write_text(bk.read_text() + "\n:- modeb(1,near(+car)).\nnear(A) :- center_coords(A, _).\n")
    text = fails_cleanly(["learn", str(data), "--quiet", "-b", "subprocess"], "center_coords/2")
    assert "no clause or fact of the data defines it, and it is no built-in" in text, text
    assert "pass --trust-data" not in text, text


def test_the_gnu_prolog_start_up_timeout_names_its_option() -> None:
    if shutil.which("gprolog") is None:
        pytest.skip("GNU Prolog is not installed")
    text = fails_cleanly(
        ["learn", "trains", "--quiet", "-b", "subprocess", "--set", "backend.engine=gprolog",
         "--set", "backend.startup_timeout=0.001"],
        "startup_timeout",
    )  # fmt: skip
    assert "backend.startup_timeout" in text, text
