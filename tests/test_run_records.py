"""Run records say what computed them: ilpkit's version, the engine and its version."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import ilpkit


def test_results_and_report_name_the_engine(tmp_path: Path) -> None:
    ilpkit.cv("trains", out=tmp_path / "run", folds=2, settings={"nodes": 50})
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["engines"] == [{"ilpkit": ilpkit.__version__}]
    assert all(u["engine"] == {"ilpkit": ilpkit.__version__} for u in results["units"])
    report = (tmp_path / "run" / "report.md").read_text()
    assert f"- engine: ilpkit {ilpkit.__version__}" in report


def test_a_prolog_engine_and_its_version_are_recorded(tmp_path: Path) -> None:
    if shutil.which("swipl") is None:
        pytest.skip("swipl is not on PATH: apt-get install swi-prolog-nox")
    ilpkit.cv(
        "trains",
        out=tmp_path / "run",
        folds=2,
        backend="subprocess",
        settings={"nodes": 50},
        options={"backend": {"engine": "swipl"}},
    )
    (engine,) = json.loads((tmp_path / "run" / "results.json").read_text())["engines"]
    assert engine["engine"] == "swipl"
    assert engine.get("version", "").startswith("9.")
