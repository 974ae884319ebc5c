"""Every long ``ilpkit`` command of README.md and docs/*.md runs, with a small time budget.

tests/test_docs_commands.py runs the cheap commands as pasted and only parses the long ones
(cross-validation on UW-CSE, learning on larger data). Here (heavy) each page's commands run
in order in one folder, the short ones as pasted (a later command may use what they write)
and the long ones as written except for ``--time-limit BUDGET -q`` added to ``learn`` and ``cv``
(searches then stop after BUDGET seconds and keep what they found; every unit still loads the
data, saturates, scores its test fold and is written) and absolute ``--out`` folders moved
into the test's folder, so that a ``report`` or ``cv --resume`` of those runs later on the
page finds them. A command that names data outside the repository (../shared/data) is skipped
when that data is missing; one that holds a shell variable (a ``for`` loop's ``$v``) is
skipped, as it cannot run as written outside its loop, and so is a report of its runs; so are
commands of a plugin the page installs first (:data:`NOT_HERE`, tested elsewhere).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from tests.skips import shared_data_missing
from tests.test_docs_commands import PAGES, ROOT, SKIP_PAGES, expensive, shell_commands

BUDGET = "2"
"""Seconds of search per learn/cv command (--time-limit)."""
runner = CliRunner()


def _pages_with_long_commands() -> list[Path]:
    return [
        p
        for p in PAGES
        if p.name not in SKIP_PAGES and any(a and expensive(a) for a in shell_commands(p))
    ]


NOT_HERE: dict[str, str] = {
    "noisy-or": "the example plugin's combiner, installed with pip on its page "
    "(tests/test_combiner_plugin_doc.py installs and runs it)",
}
"""Words whose commands need something the page installs first, and where that is tested."""


WRITES = ("--out", "-o", "--resume", "--plot")
"""Options whose path a command writes: never redirected into the repository."""


def budgeted(argv: list[str], root: Path, skipped_outs: list[str]) -> list[str] | str:
    """``argv`` as this test runs it, or why it is skipped; ``skipped_outs`` gathers the
    ``--out`` folders of skipped commands (up to a shell variable), so that a ``report``
    of them is skipped too."""
    reason = _not_runnable(argv)
    if reason is not None:
        out_dir = _out_of(argv)
        if out_dir is not None:
            skipped_outs.append(out_dir.split("$", 1)[0])
        return reason
    if argv[0] == "report" and any(
        w.startswith(prefix) for w in argv[1:] for prefix in skipped_outs
    ):
        return "reports runs made by commands this test skips"
    out = list(argv)
    for i, word in enumerate(out):
        if word.startswith("/tmp/"):
            out[i] = str(root / word.lstrip("/"))
        elif word.startswith("/") and not Path(word).exists():
            return shared_data_missing(Path(word))
        elif "/" in word and (ROOT / word).is_file() and out[i - 1] not in WRITES:
            out[i] = str(ROOT / word)  # a file of the repository: the docs run from its root
    if out[0] in ("learn", "cv") and expensive(argv):
        out += ["--time-limit", BUDGET, "-q"]
    return out


def _not_runnable(argv: list[str]) -> str | None:
    if any("$" in word for word in argv):
        return f"holds a shell variable: {' '.join(argv)}"
    for word in argv:
        if word in NOT_HERE:
            return NOT_HERE[word]
    return None


def _out_of(argv: list[str]) -> str | None:
    for flag in ("--out", "-o"):
        if flag in argv[:-1]:
            return argv[argv.index(flag) + 1]
    return None


@pytest.mark.heavy  # minutes per page: every unit of every cv still runs
@pytest.mark.parametrize("page", _pages_with_long_commands(), ids=lambda p: p.name)
def test_long_commands_in_docs_run(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ran = 0
    skipped_outs: list[str] = []
    reasons: list[str] = []
    for argv in shell_commands(page):
        if not argv or argv[0] == "--version":
            continue  # run by tests/test_docs_commands.py
        command = budgeted(argv, tmp_path, skipped_outs)
        if isinstance(command, str):
            reasons.append(command)
            continue
        result = runner.invoke(app, command)  # the short ones too: later ones may need them
        assert result.exit_code == 0, (page.name, command, result.output[-3000:])
        ran += expensive(argv) is not None
    if not ran:
        pytest.skip(f"{page.name}: no long command can run here: {'; '.join(reasons)}")


def test_budgeted_moves_tmp_folders_and_adds_the_budget(tmp_path: Path) -> None:
    argv = ["cv", "uwcse", "--out", "/tmp/ilpkit-composing/uwcse/gleaner"]
    outs: list[str] = []
    assert budgeted(argv, tmp_path, outs) == [
        "cv",
        "uwcse",
        "--out",
        str(tmp_path / "tmp/ilpkit-composing/uwcse/gleaner"),
        "--time-limit",
        BUDGET,
        "-q",
    ]
    report = ["report", "runs/a", "runs/b"]
    assert budgeted(report, tmp_path, outs) == report
    assert budgeted(["learn", "trains"], tmp_path, outs) == ["learn", "trains"]  # short: as is
    looped = ["cv", "uwcse", "--set", "x=$v", "--out", "runs/g/$v"]
    assert "shell variable" in str(budgeted(looped, tmp_path, outs))
    assert outs == ["runs/g/"]
    assert "skips" in str(budgeted(["report", "runs/g/binned", "runs/a"], tmp_path, outs))
    missing = budgeted(["cv", "/no/such/data", "--out", "r"], tmp_path, outs)
    assert isinstance(missing, str) and "/no/such/data" in missing
