"""Every long ``ilpkit`` command of README.md and docs/*.md runs, with a small time budget.

tests/test_docs_commands.py runs the cheap commands as pasted and only parses the long ones
(cross-validation on UW-CSE, learning on larger data). Here (heavy) each page's long commands
run in order, as written except for ``--time-limit BUDGET -q`` added to ``learn`` and ``cv``
(searches then stop after BUDGET seconds and keep what they found; every unit still loads the
data, saturates, scores its test fold and is written) and absolute ``--out`` folders moved
into the test's folder, so that a ``report`` or ``cv --resume`` of those runs later on the
page finds them. A command that names data outside the repository (../shared/data) is skipped
when that data is missing, and one that holds a shell variable (a ``for`` loop's ``$v``) is
skipped: it cannot be run as written outside its loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from tests.skips import shared_data_missing
from tests.test_docs_commands import PAGES, SKIP_PAGES, expensive, shell_commands

BUDGET = "5"
"""Seconds of search per learn/cv command (--time-limit)."""
runner = CliRunner()


def _pages_with_long_commands() -> list[Path]:
    return [
        p
        for p in PAGES
        if p.name not in SKIP_PAGES and any(a and expensive(a) for a in shell_commands(p))
    ]


def budgeted(argv: list[str], root: Path) -> list[str] | str:
    """``argv`` as this test runs it, or why it is skipped."""
    if any("$" in word for word in argv):
        return f"holds a shell variable: {' '.join(argv)}"
    out = list(argv)
    for i, word in enumerate(out):
        if word.startswith("/tmp/"):
            out[i] = str(root / word.lstrip("/"))
        elif word.startswith("/") and not Path(word).exists():
            return shared_data_missing(Path(word))
    if out[0] in ("learn", "cv"):
        out += ["--time-limit", BUDGET, "-q"]
    return out


@pytest.mark.heavy  # minutes per page: every unit of every cv still runs
@pytest.mark.parametrize("page", _pages_with_long_commands(), ids=lambda p: p.name)
def test_long_commands_in_docs_run(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ran = 0
    for argv in shell_commands(page):
        if not argv or not expensive(argv):
            continue  # run as pasted by tests/test_docs_commands.py
        command = budgeted(argv, tmp_path)
        if isinstance(command, str):
            continue
        result = runner.invoke(app, command)
        assert result.exit_code == 0, (page.name, command, result.output[-3000:])
        ran += 1
    assert ran, f"{page.name}: no long command could run here"


def test_budgeted_moves_tmp_folders_and_adds_the_budget(tmp_path: Path) -> None:
    argv = ["cv", "uwcse", "--out", "/tmp/ilpkit-composing/uwcse/gleaner"]
    assert budgeted(argv, tmp_path) == [
        "cv",
        "uwcse",
        "--out",
        str(tmp_path / "tmp/ilpkit-composing/uwcse/gleaner"),
        "--time-limit",
        BUDGET,
        "-q",
    ]
    assert budgeted(["report", "runs/a", "runs/b"], tmp_path) == ["report", "runs/a", "runs/b"]
    assert "shell variable" in str(budgeted(["cv", "uwcse", "--set", "x=$v"], tmp_path))
    missing = budgeted(["cv", "/no/such/data", "--out", "r"], tmp_path)
    assert isinstance(missing, str) and "/no/such/data" in missing
