"""Small things a newcomer meets: help text, names as the data spells them, messages said
once, install hints that work on Debian 12, what produced a model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ilpkit import __version__
from ilpkit.cli.main import app
from ilpkit.errors import BackendUnavailable
from ilpkit.plugins.backends.prolog.subprocess_backend import SubprocessBackend, SubprocessOptions

runner = CliRunner()


@pytest.mark.parametrize("command", ["learn", "cv", "saturate", "coverage", "predict"])
def test_help_shows_plain_metavars_and_no_rest_markup(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], terminal_width=100)
    assert result.exit_code == 0
    text = result.output
    for noise in ("<str>", "<int>", "<float>", "<bool>", "{path}", "{PATH}", "``"):
        assert noise not in text, (command, noise)
    assert "PATH" in text


def test_data_check_keeps_predicate_names_as_written() -> None:
    result = runner.invoke(app, ["data", "check", "trains"])
    assert result.exit_code == 0
    assert "has_car/2: 30" in result.output and "has car/2" not in result.output
    assert "facts per predicate" in result.output  # the summary's own keys still read as words


def test_clause_parse_error_names_the_option_once() -> None:
    result = runner.invoke(app, ["coverage", "trains", "--clause", "eastbound(A) :- has_car(A,B"])
    assert result.exit_code == 2
    assert "error: --clause:1:" in result.output
    assert "--clause: --clause" not in result.output


def test_missing_yap_says_how_to_get_it_on_debian_12() -> None:
    backend = SubprocessBackend(SubprocessOptions(engine="yap", executable="no-such-yap-here"))
    with pytest.raises(BackendUnavailable) as info:
        backend.executable()
    assert "apt-get install yap" not in str(info.value)
    assert "build YAP from source" in str(info.value)


def test_models_record_what_produced_them(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    result = runner.invoke(app, ["learn", "trains", "-q", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["info"]["engine"] == {"ilpkit": __version__}
    if shutil.which("gprolog") is None:
        pytest.skip("gprolog is not on PATH (install: apt-get install gprolog)")
    result = runner.invoke(
        app,
        ["learn", "trains", "-q", "-o", str(out), "-b", "subprocess",
         "--set", "backend.engine=gprolog"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    engine = json.loads(out.read_text())["info"]["engine"]
    assert engine["engine"] == "gprolog" and engine["version"]


def test_cv_does_not_claim_plots_it_could_not_draw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ilpkit.experiment.report as report

    monkeypatch.setattr(report, "write_plots", lambda folder, units: [])  # as without matplotlib
    out = tmp_path / "run"
    result = runner.invoke(
        app, ["cv", "trains", "--folds", "2", "--set", "nodes=20", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "no plots: no matplotlib" in result.output


def test_learning_curve_ticks_are_the_budgets_without_overlapping_minor_labels() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ilpkit.experiment.report import budget_ticks

    fig, ax = plt.subplots()
    ax.plot([300, 1000, 3000], [0.1, 0.2, 0.3])
    ax.set_xscale("log")
    budget_ticks(ax, [300, 1000, 3000])
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["300", "1,000", "3,000"]
    assert all(t.get_text() == "" for t in ax.get_xticklabels(minor=True))
    plt.close(fig)


WRITTEN = "eastbound(A) :- has_car(A,B), member(B,[b]), load(B,':cat:')."
"""A rule whose text rich read as markup (``[b]``: bold, and gone) and an emoji's name."""


@pytest.mark.parametrize("learner", ["theory", "rankboost"])
def test_rules_are_shown_as_written_not_as_markup(learner: str, tmp_path: Path) -> None:
    """``learn``/``explain`` draw rules without rich; the self-explaining models (boosting)
    still through rich, whose consoles now take text as text."""
    model = tmp_path / "m.json"
    args = ["learn", "trains", "-q", "--learner", learner, "--out", str(model)]
    if learner != "theory":
        args += ["--set", "learner.rounds=2"]
    assert runner.invoke(app, args).exit_code == 0
    data = json.loads(model.read_text())
    if learner == "theory":
        data["rules"][0]["clause"] = WRITTEN
    else:
        data["hypotheses"][0]["clauses"][0]["clause"] = WRITTEN
    model.write_text(json.dumps(data))
    result = runner.invoke(app, ["explain", str(model)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert WRITTEN in result.stdout
