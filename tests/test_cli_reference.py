"""docs/cli.md is the generated CLI reference, and it is up to date."""

from __future__ import annotations

from pathlib import Path

from ilpkit.cli.reference import cli_reference

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def test_cli_reference_is_current() -> None:
    expected = cli_reference()
    assert DOC.read_text(encoding="utf-8") == expected, (
        "docs/cli.md is out of date: run `python -m ilpkit.cli.reference > docs/cli.md`"
    )
    for command in ("learn", "cv", "run", "report", "backends", "datasets synth"):
        assert f"## `ilpkit {command}`" in expected
