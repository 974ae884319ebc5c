"""Aleph's ``modes`` example (issue 30): a background that defines ``portray/1`` (a printing
hook) and declares no ``modeh``.  Aleph's ``induce`` then keeps each positive as a ground fact
(5 facts, 0 clauses constructed); ``--learner aleph`` does the same and says why, ``portray/1``
is left out at load with a note instead of refusing the data."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import ilpkit
from ilpkit.cli.main import app

runner = CliRunner()

BACKGROUND = """:- set(i, 2).
:- determination(eastbound/1, short/1).
:- determination(eastbound/1, has_car/2).
has_car(east1, c11). has_car(east2, c21). has_car(west1, c31).
short(c11). short(c21).
portray(eastbound(A)) :- write('Train '), write(A), write(' is eastbound').
portray(has_car(A, B)) :- write(A), write(' has '), write(B).
"""


def _task(root: Path, background: str = BACKGROUND) -> Path:
    (root / "train.b").write_text(background)
    (root / "train.f").write_text("eastbound(east1).\neastbound(east2).\n")
    (root / "train.n").write_text("eastbound(west1).\n")
    return root / "train.b"


def test_portray_is_left_out_with_a_note_not_refused(tmp_path: Path) -> None:
    task = ilpkit.load_task(str(_task(tmp_path)))
    assert ("portray", 1) not in task.program.clauses
    note = f"{tmp_path / 'train.b'}:6:1: portray/1 (2 clauses) not loaded: a printing hook"
    assert any(n.startswith(note) for n in task.notes), task.notes
    checked = runner.invoke(app, ["data", "check", str(tmp_path / "train.b")])
    assert checked.exit_code == 0, checked.output
    assert "--trust-data" not in checked.output  # nothing refused


def test_a_body_calling_portray_is_still_refused_by_the_prolog_engines(tmp_path: Path) -> None:
    calling = BACKGROUND + ":- determination(eastbound/1, shown/1).\nshown(X) :- portray(X).\n"
    checked = runner.invoke(app, ["data", "check", str(_task(tmp_path, calling))])
    text = " ".join(checked.output.split())
    assert "a call of portray/1 in shown/1 is not allowed" in text, text
    assert "unless you pass --trust-data" in text


def test_aleph_without_modeh_keeps_each_positive_as_a_fact(tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    args = ["learn", str(_task(tmp_path)), "--learner", "aleph", "-q", "-o", str(model)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "no modeh for eastbound/1: no clause can be built" in result.stderr
    data = json.loads(model.read_text())
    assert [r["clause"] for r in data["rules"]] == ["eastbound(east1).", "eastbound(east2)."]
    assert data["clauses_evaluated"] == 0


def test_the_theory_learner_still_refuses_data_without_modeh(tmp_path: Path) -> None:
    result = runner.invoke(app, ["learn", str(_task(tmp_path)), "-q"])
    assert result.exit_code == 2, result.output
    assert "no modeh for eastbound/1" in result.output
