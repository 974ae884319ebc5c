"""No silent wrong answers (issue 33 item 4): skipped syntax errors, empty theories, models
applied to data that lacks their predicates, and model files without rules or target are
said out loud or refused."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.datasets import bundled_path

runner = CliRunner()
EMPTY = "the theory is empty"


@pytest.fixture
def broken_trains(tmp_path: Path) -> Path:
    """trains with one background clause missing its closing parenthesis."""
    data = tmp_path / "trains"
    shutil.copytree(bundled_path("trains"), data)
    bk = next(p for p in data.iterdir() if p.suffix == ".b")
    bk.write_text(bk.read_text() + "\nbroken(a :- true.\n")
    return data


def test_learn_and_cv_say_how_many_clauses_were_skipped(
    broken_trains: Path, tmp_path: Path
) -> None:
    result = runner.invoke(app, ["learn", str(broken_trains), "--quiet"])
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.output.splitlines() if "syntax error" in ln]
    assert len(lines) == 1, result.output
    assert "1 clause" in lines[0] and ".b:" in lines[0], lines
    result = runner.invoke(
        app, ["cv", str(broken_trains), "--quiet", "--folds", "2", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 0, result.output
    assert sum("syntax error" in ln for ln in result.output.splitlines()) == 1, result.output


def test_the_api_warns_of_skipped_clauses(broken_trains: Path) -> None:
    import ilpkit

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ilpkit.load_task(str(broken_trains))
    assert any("syntax error" in str(w.message) for w in caught), [str(w) for w in caught]


def test_an_empty_theory_is_named_by_learn_cv_and_the_report(tmp_path: Path) -> None:
    result = runner.invoke(app, ["learn", "trains", "--set", "minpos=100"])
    assert result.exit_code == 0, result.output
    assert EMPTY in result.output
    out = tmp_path / "run"
    result = runner.invoke(
        app, ["cv", "trains", "--set", "minpos=100", "--folds", "2", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert EMPTY in result.output
    assert EMPTY in (out / "report.md").read_text()
    assert json.loads((out / "results.json").read_text())["empty_theories"]


def test_a_learnt_theory_is_not_called_empty(tmp_path: Path) -> None:
    result = runner.invoke(app, ["learn", "trains"])
    assert result.exit_code == 0 and EMPTY not in result.output, result.output


def _model(tmp_path: Path, clause: str, target: str = "eastbound/1") -> Path:
    model = tmp_path / "m.json"
    model.write_text(
        json.dumps(
            {
                "format_version": 1,
                "learner": "theory",
                "target": target,
                "clauses_evaluated": 1,
                "uncovered_seeds": 0,
                "rules": [{"clause": clause, "weight": 1.0, "tp": 1, "fp": 0}],
            }
        )
    )
    return model


@pytest.mark.parametrize("command", ["predict", "explain"])
def test_a_model_calling_predicates_the_data_lacks_is_refused(tmp_path: Path, command: str) -> None:
    model = _model(tmp_path, "eastbound(A) :- has_wagon(A,B).")
    result = runner.invoke(app, [command, str(model), "trains"])
    assert result.exit_code == 2, result.output
    assert "has_wagon/2 is not defined by" in result.output, result.output


def test_explain_on_other_data_refuses_another_target(tmp_path: Path) -> None:
    model = _model(tmp_path, "eastbound(A) :- has_car(A,B).")
    result = runner.invoke(app, ["explain", str(model), "uwcse"])
    assert result.exit_code == 2, result.output
    assert "was learnt for eastbound/1" in result.output, result.output


@pytest.mark.parametrize(("drop", "needle"), [("rules", "no 'rules'"), ("target", "no 'target'")])
def test_a_model_file_without_rules_or_target_is_refused(
    tmp_path: Path, drop: str, needle: str
) -> None:
    model = _model(tmp_path, "eastbound(A) :- has_car(A,B).")
    data = json.loads(model.read_text())
    del data[drop]
    model.write_text(json.dumps(data))
    result = runner.invoke(app, ["predict", str(model), "trains"])
    assert result.exit_code == 2, result.output
    assert needle in result.output, result.output
