"""Long runs: a planned-clauses bound for progress, a warning before a huge search, and a
--time-limit that ends a run cleanly with what was found, marked as such."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ilpkit
from ilpkit.cli.learn_cmd import LiveProgress
from ilpkit.cli.main import app
from ilpkit.core.budget import LARGE_SEARCH, large_search_warning, planned_clauses
from ilpkit.core.search import time_is_up, time_limit
from ilpkit.errors import ConfigError

runner = CliRunner()


def test_planned_clauses_follow_the_settings() -> None:
    task = ilpkit.load_task("uwcse")  # its own settings: nodes 500,000
    # Aleph's covering loop: nodes per search, at most one search per positive (113)
    assert planned_clauses(task, "theory", {}, 113) == 500_000 * 113
    assert planned_clauses(task, "theory", {"max_clauses": 1_000}, 113) == 1_000
    assert planned_clauses(task, "gleaner", {"seeds": 3, "clauses_per_seed": 50}, 113) == 150
    assert planned_clauses(task, "prankboost", {"rounds": 10, "nodes": 20}, 113) == 200
    warning = large_search_warning(task, 500_000 * 113, 113)
    assert warning is not None and "56,500,000" in warning and "nodes=500,000" in warning
    assert "--time-limit" in warning
    assert large_search_warning(task, LARGE_SEARCH, 113) is None


def test_progress_line_shows_budget_rate_and_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    progress = LiveProgress(enabled=False)
    progress.plan(1_000, None)
    progress.evaluated = 100
    progress.started = time.monotonic() - 10.0  # 100 clauses in 10 s: 10/s, 900 left: 90 s
    line = progress.describe()
    assert "clauses 100 of at most 1,000 (10.0%)" in line
    assert "10/s" in line and "at most 90 s left" in line


def test_progress_line_shows_the_time_left_at_the_pace_of_the_learners_steps() -> None:
    progress = LiveProgress(enabled=False)
    progress.plan(1_000_000, None)
    progress.evaluated = 6_000
    progress.step(10, 110, "positives covered")
    progress.started = time.monotonic() - 60.0  # 10 of 110 in 60 s: 100 more take 600 s
    line = progress.describe()
    assert line.startswith("positives covered 10/110  clauses 6,000 of at most 1,000,000")
    # 100/s, 994,000 clauses left: 9,940 s = 2.8 h at most
    assert "about 10 min left at this pace (at most 2.8 h)" in line
    trees = LiveProgress(enabled=False)
    trees.step(5, 500, "trees")
    trees.started = time.monotonic() - 30.0  # 5 trees in 30 s: 495 more take 2,970 s
    assert trees.describe() == "trees 5/500, about 50 min left at this pace"


def test_time_limit_rejects_a_non_positive_limit() -> None:
    with pytest.raises(ConfigError, match="positive number of seconds"), time_limit(0):
        pass
    assert not time_is_up()  # no limit active outside the block


def test_learn_warns_then_stops_at_the_time_limit(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    started = time.monotonic()
    result = runner.invoke(app, ["learn", "uwcse", "--time-limit", "1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "warning: these settings allow up to 56,500,000 clauses" in result.output
    assert "stopped after the time limit of 1 s" in result.output
    info = json.loads(out.read_text())["info"]
    assert "time_limit_reached" in info
    assert time.monotonic() - started < 120  # not the hours the settings allow


def test_a_run_within_its_limit_is_not_marked() -> None:
    model = ilpkit.learn("trains", search="topdown", scorer="laplace", time_limit=600)
    assert "time_limit_reached" not in model.info  # type: ignore[attr-defined]
    assert model.rules()


def test_cv_time_limit_marks_the_results(tmp_path: Path) -> None:
    out = tmp_path / "run"
    started = time.monotonic()
    result = runner.invoke(
        app, ["cv", "uwcse", "--folds", "2", "--time-limit", "1", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "searches were cut after the time limit of 1 s" in result.output
    results = json.loads((out / "results.json").read_text())
    assert "time limit of 1 s" in results["time_limit_reached"]
    assert results["n_units"] == 2  # every unit still finished, with what it had found
    assert time.monotonic() - started < 300


def _search_until_cut(seconds: float) -> bool:
    """A stand-in for a unit: waits (at most ``seconds``) for the shipped deadline."""
    waited = time.monotonic() + seconds
    while time.monotonic() < waited:
        if time_is_up():
            return True
        time.sleep(0.01)
    return False


def test_a_shipped_unit_carries_the_deadline_and_reports_the_cut() -> None:
    import pickle

    from ilpkit.core.timelimit import carry_time_limit, unwrap_time_limit

    assert carry_time_limit(_search_until_cut) is _search_until_cut  # no limit: unchanged
    with time_limit(0.3) as limit:
        assert limit is not None
        shipped = pickle.loads(pickle.dumps(carry_time_limit(_search_until_cut)))
    # run "elsewhere" (no limit active here any more): the deadline came with the function
    assert not time_is_up()
    started = time.monotonic()
    outcome = shipped(30.0)
    assert time.monotonic() - started < 5.0  # stopped at the deadline, not after 30 s
    with time_limit(600) as parent:
        assert parent is not None
        assert unwrap_time_limit(outcome) is True
        assert parent.reached  # the worker's cut is the parent's to report


@pytest.mark.slow
@pytest.mark.heavy  # 3 s of worker start-up
def test_cv_time_limit_cuts_searches_on_worker_processes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    started = time.monotonic()
    result = runner.invoke(app, ["cv", "uwcse", "--folds", "2", "--time-limit", "2",
                                 "--executor", "processes", "--set", "executor.workers=2",
                                 "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "searches were cut after the time limit of 2 s" in result.output
    results = json.loads((out / "results.json").read_text())
    assert results["n_units"] == 2
    assert time.monotonic() - started < 180  # uwcse's own settings would take hours


def test_random_rule_forests_plan_their_rules_not_a_search_per_positive() -> None:
    """R4F and static-rf run no search per seed: ``learn --learner r4f`` warned of 2,500,000
    clauses (mutagenesis' nodes=20,000 x 125 positives).  R4F needs about n + s rules (eq. 1),
    s at most (t - 1) x MRC (eq. 2), each rule evaluated with its clauselength - 1 prefixes."""
    from ilpkit.experiment.api import _plan
    from ilpkit.plugins.learners.r4f import R4FLearner, R4FOptions
    from ilpkit.plugins.learners.static_rf import StaticRFLearner

    task = ilpkit.load_task("mutagenesis")  # 188 labelled drugs, clauselength 6
    # eq. 1 with eq. 2's bound on s: 500 + (188 - 1) x 50 = 9,850 rules, x 5 prefixes
    assert _plan(task, "r4f", R4FLearner()) == (49_250, None)
    # the rule budget caps the stream: 2,000 rules x 5 prefixes
    assert _plan(task, "r4f", R4FLearner(R4FOptions(max_rules=2_000)))[0] == 10_000
    assert _plan(task, "static-rf", StaticRFLearner()) == (1_000, None)  # 1,000 full rules
    big = planned_clauses(task, "r4f", {"trees": 500, "mrc": 50_000, "max_rules": 10**6}, 125, 188)
    assert big == 10**6 * 5
    full = {"trees": 500, "mrc": 50_000, "max_rules": 10**6}  # as the API passes them
    warning = large_search_warning(task, big, 125, "r4f", full)
    assert warning is not None and "max_rules=1,000,000" in warning and "nodes" not in warning


def test_progress_line_without_searched_clauses_shows_the_steps() -> None:
    progress = LiveProgress(enabled=False)
    progress.plan(49_250, None)
    progress.step(3, 500, "trees")  # r4f reports trees; no search observes clauses
    assert progress.describe() == "trees 3/500"
