"""Degenerate results named where they appear (issue 33): units that predicted one class for
every test example (cv line, report.md, results.json) and rules that repeat earlier ones
(learn). RankBoost on trains picks ``eastbound(A).`` -- a rule covering all 10 trains --
in every round, so each test fold is predicted all positive and 99 of its 100 rules add
nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.core.degenerate import one_class, repeated_rules
from ilpkit.core.learner import Rule
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause

runner = CliRunner()
ONE_CLASS = "every test example was predicted one class"


def _rule(text: str) -> Rule:
    return Rule(Clause.from_term(PrologReader().read_term(text)))


def test_one_class_by_hand() -> None:
    assert one_class(5, 5) == "positive"
    assert one_class(0, 5) == "negative"
    assert one_class(3, 5) is None
    assert one_class(1, 1) is None  # one example is always one class
    assert one_class(None, 5) is None  # a unit recorded before the count was kept


def test_repeated_rules_count_clauses_equal_up_to_variable_names() -> None:
    rules = [_rule("p(A) :- q(A, B)"), _rule("p(X) :- q(X, Y)"), _rule("p(A)"), _rule("p(B)")]
    assert repeated_rules(rules) == 2
    assert repeated_rules([_rule("p(A) :- q(A, B)"), _rule("p(A) :- q(B, A)")]) == 0


def test_cv_and_report_name_units_that_predict_one_class(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["cv", "trains", "--learner", "rankboost", "--folds", "2", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"warning: {ONE_CLASS}" in result.output
    assert "in 2 of 2 units (r0-f0, r0-f1)" in result.output
    assert ONE_CLASS in (out / "report.md").read_text()
    assert json.loads((out / "results.json").read_text())["one_class"] == ["r0-f0", "r0-f1"]


def test_a_run_that_separates_the_classes_is_not_called_one_class(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(app, ["cv", "trains", "--folds", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert ONE_CLASS not in result.output
    assert json.loads((out / "results.json").read_text())["one_class"] == []


@pytest.mark.parametrize(
    ("learner", "said"),
    [
        ("rankboost", "99 of the 100 rules repeat an earlier rule (1 distinct)"),
        ("theory", None),
        # seeds finding the same clause: expected, not rounds adding nothing (6 s: heavy)
        pytest.param("gleaner", None, marks=pytest.mark.heavy),
    ],
)
def test_learn_names_rules_that_repeat_earlier_ones(learner: str, said: str | None) -> None:
    result = runner.invoke(app, ["learn", "trains", "--learner", learner])
    assert result.exit_code == 0, result.output
    if said is None:
        assert "repeat an earlier rule" not in result.output
    else:
        assert f"warning: {said}: rounds that added nothing new" in result.output


def test_covers_everything_by_hand() -> None:
    from ilpkit.core.degenerate import covers_everything

    assert covers_everything(_rule("p(A, B)").clause)
    assert not covers_everything(_rule("p(A, A)").clause)  # only examples with equal arguments
    assert not covers_everything(_rule("p(a, B)").clause)
    assert not covers_everything(_rule("p(A, B) :- q(A)").clause)


@pytest.mark.parametrize("learner", ["tilde", "rankboost"])
def test_learn_names_a_model_whose_rules_cover_everything(learner: str) -> None:
    """TILDE without lookahead on trains is a tree of one leaf, ``eastbound(V0).``."""
    result = runner.invoke(app, ["learn", "trains", "--learner", learner, "--quiet"])
    assert result.exit_code == 0, result.output
    assert "warning: every rule covers every example (eastbound(" in result.output


def test_a_model_with_bodies_is_not_said_to_cover_everything() -> None:
    result = runner.invoke(app, ["learn", "trains", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "covers every example" not in result.output


def test_explain_names_a_model_whose_rules_cover_everything(tmp_path: Path) -> None:
    model = tmp_path / "tilde.json"
    result = runner.invoke(app, ["learn", "trains", "--learner", "tilde", "-q", "-o", str(model)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["explain", str(model)])
    assert result.exit_code == 0, result.output
    assert "warning: every rule covers every example (eastbound(" in result.output


TICER = "TIcER's estimate of the label frequency c is at its floor"


def test_learn_and_explain_name_ticer_at_its_floor(tmp_path: Path) -> None:
    """trains, all labeled, 5 stratified TIcER folds of 1 positive and 1 negative: the tree
    grows on one fold and bounds on the other 8 examples, 4 labeled; the largest subset (all
    8) bounds c by 4/8 - 0.5 * sqrt(0.9 / (0.1 * 8)) = -0.03 < 0, so c falls back to L/T =
    4/8 (the true c is 1)."""
    model = tmp_path / "m.json"
    args = ["learn", "trains", "--learner", "tilde", "--set", "learner.c=ticer", "-q"]
    result = runner.invoke(app, [*args, "-o", str(model)])
    assert result.exit_code == 0, result.output
    assert f"warning: {TICER}" in result.output
    ticer = json.loads(model.read_text())["info"]["ticer"]
    assert (ticer["c"], ticer["at_floor"]) == (0.5, 1)
    result = runner.invoke(app, ["explain", str(model)])
    assert result.exit_code == 0, result.output
    assert f"warning: {TICER}" in result.output


def test_learn_with_a_given_c_says_nothing_of_ticer() -> None:
    args = ["learn", "trains", "--learner", "tilde", "--set", "learner.c=0.5", "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "TIcER" not in result.output


def test_cv_and_report_count_the_units_with_ticer_at_its_floor(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["cv", "trains", "--learner", "tilde", "--pu-label-frequency", "0.8"]
    args += ["--set", "learner.c=ticer", "--folds", "2", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "more examples per fold; in 2 of 2 units (r0-f0, r0-f1)" in result.output
    assert TICER in (out / "report.md").read_text()
    degenerate = json.loads((out / "results.json").read_text())["degenerate"]
    assert [units for note, units in degenerate.items() if TICER in note] == [["r0-f0", "r0-f1"]]


UNBOUND_HEAD = """:- modeh(1, mesh(+elem, -size)).
:- modeb(*, next(+elem, -elem)).
:- modeb(1, long(+elem)).
:- determination(mesh/2, next/2).
:- determination(mesh/2, long/1).
next(a, b).
next(b, c).
long(a).
"""


def _mesh(root: Path, background: str) -> Path:
    root.mkdir()
    (root / "m.b").write_text(background)
    (root / "m.f").write_text("mesh(a, 1).\nmesh(b, 2).\n")
    (root / "m.n").write_text("mesh(c, 1).\n")
    return root


def test_a_head_output_no_body_literal_can_bind_is_named(tmp_path: Path) -> None:
    """size is a - output of the head, and no body mode outputs a size: nothing can bind it."""
    from ilpkit.core.bias_check import bias_warnings
    from ilpkit.core.formats import load_task

    data = _mesh(tmp_path / "unbound", UNBOUND_HEAD)
    (warning,) = bias_warnings(load_task(data, "aleph"))
    assert warning.startswith("m.b:1:") or "m.b:1:" in warning, warning
    assert "has a - output of type size that no body literal can bind" in warning
    checked = runner.invoke(app, ["data", "check", str(data)])
    assert "output of type size that no body literal can bind" in checked.output
    learned = runner.invoke(app, ["learn", str(data), "--quiet"])
    assert learned.exit_code == 0, learned.output
    assert "output of type size that no body literal can bind" in learned.output
    fixed = UNBOUND_HEAD.replace("modeb(1, long(+elem))", "modeb(1, long(+elem, -size))")
    fixed = fixed.replace("long/1", "long/2").replace("long(a).", "long(a, 1).")
    assert bias_warnings(load_task(_mesh(tmp_path / "bound", fixed), "aleph")) == []


ONE_CLASS_TRAINING = "the model predicts all 6 of its training examples positive, the 2 negatives"
SPLIT_BY_TWO = """:- modeh(1, same(+t, +t)).
:- modeb(1, r(+t)).
:- modeb(1, q(+t)).
:- determination(same/2, r/1).
:- determination(same/2, q/1).
:- set(noise, 1).
:- set(evalfn, laplace).
r(a).
r(b).
r(c).
r(e).
q(f).
q(d).
"""


def test_learn_and_explain_name_a_model_that_predicts_one_class_on_its_training_data(
    tmp_path: Path,
) -> None:
    """Two rules with bodies, each letting one negative through (noise 1, Laplace): together
    they cover all 6 training examples, so the model calls every one positive; no rule
    covers everything by itself, so only this line says so."""
    data = tmp_path / "same"
    data.mkdir()
    (data / "s.b").write_text(SPLIT_BY_TWO)
    (data / "s.f").write_text("same(a, a).\nsame(b, b).\nsame(c, c).\nsame(f, f).\n")
    (data / "s.n").write_text("same(d, d).\nsame(e, e).\n")
    model = tmp_path / "m.json"
    result = runner.invoke(app, ["learn", str(data), "-q", "-o", str(model)])
    assert result.exit_code == 0, result.output
    assert f"warning: {ONE_CLASS_TRAINING} too: it separates nothing" in result.output
    assert [r["clause"] for r in json.loads(model.read_text())["rules"]] == [
        "same(A,A) :- r(A).",
        "same(A,A) :- q(A).",
    ]
    result = runner.invoke(app, ["explain", str(model)])
    assert result.exit_code == 0, result.output
    assert f"warning: {ONE_CLASS_TRAINING}" in result.output


@pytest.mark.parametrize("learner", ["theory", "tilde"])
def test_one_class_on_training_is_not_said_where_it_is_not_news(learner: str) -> None:
    """theory on trains separates the classes; TILDE's one leaf is already named as covering
    everything, which says the same."""
    result = runner.invoke(app, ["learn", "trains", "--learner", learner, "-q"])
    assert result.exit_code == 0, result.output
    assert "of its training examples" not in result.output


def test_one_class_on_training_by_hand() -> None:
    from ilpkit.cli.learn_cmd import _one_class_on_training

    def info(tp: int, fn: int, fp: int, tn: int, on: str = "training") -> dict[str, object]:
        return {"evaluation": [{"on": on, "tp": tp, "fn": fn, "fp": fp, "tn": tn}]}

    said = _one_class_on_training(info(0, 3, 0, 1))
    assert said is not None
    assert said.startswith("the model predicts all 4 of its training examples negative, the 3 ")
    assert _one_class_on_training(info(1, 0, 1, 0)) is not None  # 1 negative: "negative"
    assert "the 1 negative too" in str(_one_class_on_training(info(1, 0, 1, 0)))
    assert _one_class_on_training(info(2, 1, 0, 3)) is None  # separates
    assert _one_class_on_training(info(3, 0, 0, 0)) is None  # one class among the examples
    assert _one_class_on_training(info(0, 3, 0, 1, on="test")) is None  # not training
    assert _one_class_on_training({}) is None  # a model saved before evaluations were kept
    assert _one_class_on_training(None) is None
