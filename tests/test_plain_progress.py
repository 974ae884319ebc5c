"""Progress outside a terminal (issue 33 item 5): where stderr is not a TTY (nohup, tee, CI;
and typer's CliRunner), learn and cv print plain progress lines on stderr, rate limited, and
cv's unit lines carry an estimate of the time left."""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner

from ilpkit.cli import plain_progress
from ilpkit.cli.main import app
from ilpkit.cli.plain_progress import eta

runner = CliRunner()


def _lines(output: str, prefix: str) -> list[str]:
    return [ln for ln in output.splitlines() if ln.startswith(prefix)]


def test_eta_by_hand() -> None:
    started = time.monotonic() - 10.0  # 2 units in 10 s: 5 s each, 3 to go
    assert eta(started, 2, 3) == "about 15 s left"
    assert eta(started, 0, 3) == ""  # no pace yet
    assert eta(started, 2, 0) == "done"


def test_cv_prints_a_line_per_unit_with_the_time_left(tmp_path: object) -> None:
    result = runner.invoke(app, ["cv", "trains", "--folds", "3", "--out", f"{tmp_path}/run"])
    assert result.exit_code == 0, result.output
    lines = _lines(result.output, "cv: ")
    assert lines[0] == "cv: 3 units"
    units = [ln for ln in lines if ln.startswith("cv: unit ")]
    assert [ln.split()[2] for ln in units] == ["1/3", "2/3", "3/3"]
    assert all(ln.endswith("left") for ln in units[:2]), units
    assert units[2].endswith("; done")


@pytest.mark.parametrize(("every", "many"), [(3600.0, False), (0.0, True)])
def test_learn_progress_lines_are_rate_limited(
    monkeypatch: pytest.MonkeyPatch, every: float, many: bool
) -> None:
    monkeypatch.setattr(plain_progress, "EVERY_SECONDS", every)
    result = runner.invoke(app, ["learn", "trains"])
    assert result.exit_code == 0, result.output
    lines = _lines(result.output, "progress: ")
    # the first line comes at once: the covering loop's first step, before any clause
    assert lines and lines[0] == "progress: positives covered 0/5"
    if many:
        assert len(lines) > 1
    else:
        assert len(lines) == 1  # the first at once, then none within the hour


def test_quiet_prints_no_progress() -> None:
    result = runner.invoke(app, ["learn", "trains", "--quiet"])
    assert result.exit_code == 0, result.output
    assert not _lines(result.output, "progress: ")
