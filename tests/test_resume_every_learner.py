"""Resume and ``ilpkit run RUN/config.toml`` for every learner (issue 33 item 2).

A run interrupted after its first unit is resumed from its config.toml (``cv --resume``) and
rerun from it (``ilpkit run``): the recorded config holds what resolving chose (the data's
search and scorer for a learner that runs neither), which reading it back must accept."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.core.plugins import PluginManager
from ilpkit.experiment.compose import learner_capabilities
from ilpkit.experiment.config import RunConfig
from ilpkit.experiment.runs import Interrupted, RunDirectory, run_experiment

LEARNERS = sorted(PluginManager(entry_points=False).names("learner"))
runner = CliRunner()


class StopAfterOne:
    """An executor that runs the first unit and then is interrupted (Ctrl-C)."""

    def map(self, fn: Callable[[Any], Any], units: Any) -> Iterator[Any]:
        for i, unit in enumerate(units):
            if i == 1:
                raise KeyboardInterrupt
            yield fn(unit)

    def close(self) -> None:
        pass


def test_every_learner_is_listed() -> None:
    assert {"aleph", "gleaner", "r4f", "static-rf", "tilde", "rankboost"} <= set(LEARNERS)


@pytest.mark.parametrize("learner", LEARNERS)
def test_an_interrupted_run_resumes_and_reruns_from_its_config(
    tmp_path: Path, learner: str
) -> None:
    quick = dict(learner_capabilities(learner).quick_options)
    config = RunConfig.model_validate(
        {
            "data": {"path": "trains"},
            "learner": {"name": learner, "options": quick},
            "settings": {"nodes": 30},
            "cv": {"folds": 2},
        }
    )
    target = tmp_path / "run"
    # a learner with members runs them on the executor: interrupted after its first member
    with pytest.raises(Interrupted, match=r"[01] of 2 units are saved"):
        run_experiment(config, target, executor=StopAfterOne())
    assert len(RunDirectory(target).finished()) < 2
    resumed = runner.invoke(app, ["cv", "--resume", str(target), "--quiet"])
    assert resumed.exit_code == 0, resumed.output
    assert len(RunDirectory(target).finished()) == 2
    again = runner.invoke(
        app, ["run", str(target / "config.toml"), "--out", str(tmp_path / "again"), "--quiet"]
    )
    assert again.exit_code == 0, again.output
    assert len(RunDirectory(tmp_path / "again").finished()) == 2
