"""The shell commands shown in README.md and docs/*.md work as pasted.

Every ``ilpkit`` command in a ```sh block is checked: the cheap ones (bundled trains data,
look-ups, small learns) are run, in order, in a fresh folder per page, and must exit 0; the
long ones (cross-validation runs, reports of their run folders, learning on UW-CSE) are
parsed by the real command line -- every option must exist and take its value -- but not run
(EXPENSIVE says which, and why). Installation lines (apt-get, venv, pip) are not run.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from ilpkit.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP_PAGES = {"cli.md"}  # generated from the command line itself (test_cli_reference.py)
runner = CliRunner()


def expensive(argv: list[str]) -> str | None:
    """Why a command is only parsed, not run (None: run it)."""
    if argv[0] in ("cv", "run"):
        return "a cross-validation run: minutes"
    if argv[0] == "report":
        return "reports the run folders of the cv commands above, which are not run"
    if argv[0] == "learn" and len(argv) > 1 and argv[1] != "trains":
        return "learning on a dataset larger than trains: tens of seconds"
    return None


def _written_by(argv: list[str]) -> str | None:
    """The model file a learn command writes (-o/--out), if any."""
    for flag in ("-o", "--out"):
        if flag in argv[:-1]:
            return argv[argv.index(flag) + 1]
    return None


def shell_commands(page: Path) -> list[list[str]]:
    """The ``ilpkit`` argument lists of a page's ```sh blocks, in order."""
    text = page.read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words and words[0].endswith("ilpkit"):
                    out.append(words[1:])
    return out


def _pending(ctx: object) -> list[str]:
    """A group context's unparsed words: the subcommand name and its arguments (click keeps
    the name in ``protected_args``, private since click 8.2)."""
    protected = getattr(ctx, "_protected_args", None) or getattr(ctx, "protected_args", [])
    return [*protected, *getattr(ctx, "args", [])]


def parse_only(argv: list[str]) -> None:
    """Parse ``argv`` with the real command (options, values, arguments) without running it."""
    group = typer.main.get_command(app)
    ctx = group.make_context("ilpkit", list(argv), resilient_parsing=False)
    name, command, rest = group.resolve_command(ctx, _pending(ctx))
    while hasattr(command, "resolve_command") and rest:  # nested groups (data, datasets)
        ctx = command.make_context(name, rest, parent=ctx)
        name, command, rest = command.resolve_command(ctx, _pending(ctx))
    assert command is not None, f"unknown command in {argv}"
    command.make_context(str(name), list(rest), parent=ctx)


@pytest.mark.parametrize(
    "page", [p for p in PAGES if p.name not in SKIP_PAGES], ids=lambda p: p.name
)
def test_shell_commands_in_docs_work_as_pasted(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    not_written: set[str] = set()  # models of learn commands only parsed
    for argv in shell_commands(page):
        if not argv or argv[0] == "--version":
            result = runner.invoke(app, argv or ["--help"])
            assert result.exit_code == 0, (page.name, argv, result.output)
        elif expensive(argv):
            parse_only(argv)
            written = _written_by(argv) if argv[0] == "learn" else None
            if written:
                not_written.add(written)
        elif argv[0] in ("predict", "explain") and len(argv) > 1 and argv[1] in not_written:
            parse_only(argv)  # its model comes from a learn command that was not run
        else:
            result = runner.invoke(app, argv)
            assert result.exit_code == 0, (page.name, argv, result.output)


def test_pages_have_commands_to_check() -> None:
    assert len(shell_commands(ROOT / "README.md")) >= 8
    assert len(shell_commands(ROOT / "docs" / "getting-started.md")) >= 8


def test_parse_only_catches_a_wrong_option() -> None:
    parse_only(["cv", "uwcse", "--tune-folds", "1", "--out", "r"])
    # (typer vendors its own click: match the messages, not the classes)
    with pytest.raises(Exception, match="No such option: --tune-fold"):
        parse_only(["cv", "uwcse", "--tune-fold", "1"])
    with pytest.raises(Exception, match="valid integer"):
        parse_only(["cv", "uwcse", "--tune-folds", "one"])


def test_ci_runs_the_readme_test_commands_exactly() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    quick = next(line for line in readme.splitlines() if 'pytest -q -m "not heavy"' in line)
    assert any(line.endswith("pytest -q -m heavy") for line in readme.splitlines())
    assert quick in ci.splitlines()
    # CI runs the heavy tests as the README's two side-by-side halves: the docs' long
    # commands (with two more files), and every other heavy test; together they are
    # `pytest -m heavy`: what the first names, the second ignores
    first_files = [
        "tests/test_docs_commands_run.py",
        "tests/test_hostile_terms.py",
        "tests/test_prolog_intguard.py",
        "tests/test_resolution.py",
        "tests/test_native_agreement.py",
    ]
    halves = (
        "-m heavy " + " ".join(first_files),
        "-m heavy " + " ".join(f"--ignore {f}" for f in first_files),
    )
    for half in halves:
        assert f"pytest -q {half}" in readme, half
        assert f".venv/bin/python -m pytest -q {half}" in ci, half
        assert ci.index(quick) < ci.index(half)  # the quick command first
    assert "heavy:" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")  # registered


def test_all_extra_holds_every_optional_dependency_that_installs_from_pypi() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    everything = set(extras["all"])
    for name in ("plots", "dask", "ml"):
        assert set(extras[name]) <= everything, name
    assert any(req.startswith("pyswip") for req in everything)
    assert not any(req.startswith("janus-swi") for req in everything)  # compiled: not PyPI-only
    # the README installs extras in one composed, editable install
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install -q '.[plots]'" not in readme
    assert "-e '.[test,plots]'" in readme


def test_skip_reasons_say_what_to_get() -> None:
    from tests.skips import engine_missing, shared_data_missing

    assert "apt-get install swi-prolog-nox" in engine_missing("swipl")
    assert "build YAP from source" in engine_missing("yap")
    reason = shared_data_missing(Path("/x/shared/data"))
    assert "/x/shared/data" in reason and "not part of the repository" in reason


def test_pages_name_every_registered_learner() -> None:
    from ilpkit.core.plugins import PluginManager

    learners = {s.name for s in PluginManager(entry_points=False).specs("learner")}
    for page in ("docs/concepts.md", "docs/getting-started.md", "README.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        missing = sorted(n for n in learners if f"`{n}`" not in text)
        assert not missing, f"{page} does not mention learners {missing}"
