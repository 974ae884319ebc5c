"""Tests of the example format plugin, run from its folder: `python -m pytest tests`."""

from __future__ import annotations

from pathlib import Path

import pytest

import ilpkit
from ilpkit.core.formats import detect_formats, load_task
from ilpkit.errors import FormatError


def test_trains_round_trips_through_csvex(tmp_path: Path) -> None:
    trains = ilpkit.load_task("trains")
    from ilpkit_gmean.csvex import FORMAT as csvex

    csvex.write(trains, tmp_path / "trains")
    assert [d.format for d in detect_formats(tmp_path / "trains")] == ["csvex"]
    again = load_task(tmp_path / "trains")  # detected: the format is a registered plugin
    assert again.format == "csvex"
    assert [str(a) for a in again.examples.atoms] == [str(a) for a in trains.examples.atoms]
    assert again.examples.labels.tolist() == trains.examples.labels.tolist()
    model = ilpkit.learn(tmp_path / "trains", search="topdown", scorer="laplace")
    assert [str(r.clause) for r in model.rules()] == [
        str(r.clause) for r in ilpkit.learn("trains", search="topdown", scorer="laplace").rules()
    ]


def test_a_bad_label_names_the_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "background.pl").write_text(":- modeh(1, p(+t)).\n")
    (tmp_path / "examples.csv").write_text("example,label\np(a),1\np(b),yes\n")
    with pytest.raises(FormatError, match=r"examples.csv:3: expected example,label"):
        load_task(tmp_path, format="csvex")
