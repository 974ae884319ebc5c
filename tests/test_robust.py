"""Robustness on data nobody here tuned to (issue 20): leak-proof folds, ..."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.core.bias_check import bias_warnings
from ilpkit.core.coverage import Weighting
from ilpkit.core.formats import load_task
from ilpkit.core.learner import matches, rule_stats
from ilpkit.core.model_files import load_model
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.search import SearchContext, limits_exceeded
from ilpkit.core.task import Task, stratified_folds
from ilpkit.errors import (
    BiasError,
    DataError,
    FormatError,
    PrologSyntaxError,
    ResourceLimitExceeded,
)
from ilpkit.experiment.config import RunConfig
from ilpkit.experiment.cv import learn_split, splits
from ilpkit.prolog.terms import Clause, Const, Struct, Var

BIAS = """:- modeh(1, p(+t)).
:- modeb(1, q(+t)).
:- determination(p/1, q/1).
q(a0).
"""


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))


# -- item 1: fold layouts that cannot leak -----------------------------------------------------


def _aleph_folds(root: Path, *, extras: bool) -> Path:
    """test1..test10 (4 positives, 2 negatives each), their complements train1..train10 and,
    with ``extras``, a train_all holding everything and a lone test.f."""
    _write(root / "d.b", BIAS.splitlines())
    pos = {k: [f"p(a{k}_{j})." for j in range(4)] for k in range(1, 11)}
    neg = {k: [f"p(b{k}_{j})." for j in range(2)] for k in range(1, 11)}
    for k in range(1, 11):
        _write(root / "folds" / f"test{k}.f", pos[k])
        _write(root / "folds" / f"test{k}.n", neg[k])
        _write(root / "folds" / f"train{k}.f", [a for o in pos if o != k for a in pos[o]])
        _write(root / "folds" / f"train{k}.n", [a for o in neg if o != k for a in neg[o]])
    if extras:
        _write(root / "folds" / "train_all.f", [a for o in pos for a in pos[o]])
        _write(root / "folds" / "train_all.n", [a for o in neg for a in neg[o]])
        _write(root / "folds" / "test.f", pos[3][:2])
    return root


@pytest.mark.parametrize("extras", [False, True])
def test_complement_folds_are_recognised_whatever_else_sits_beside_them(
    tmp_path: Path, extras: bool
) -> None:
    task = load_task(_aleph_folds(tmp_path, extras=extras), "aleph")
    assert task.fold_names == [f"test{k}" for k in range(1, 11)]
    assert len(task.examples) == 10 * 6  # not 22 folds of train, test and train_all files
    left_out = [w for w in task.warnings if "not used as folds" in w]
    if extras:
        (warning,) = left_out
        # train_all holds all 40 positives and 20 negatives, all in the test folds
        assert "train_all.f (40 of 40 examples in the folds)" in warning
        assert "train_all.n (20 of 20 examples in the folds)" in warning
        assert "test.f (2 of 2 examples in the folds)" in warning
    else:
        assert left_out == []
    cfg = RunConfig.model_validate({"data": {"path": str(tmp_path)}, "cv": {"tune_folds": 0}})
    units = splits(task, cfg)
    assert len(units) == 10
    assert all(len(u.test) == 6 and len(u.train) == 54 for u in units)


def test_a_union_file_among_plain_folds_is_left_out(tmp_path: Path) -> None:
    _write(tmp_path / "d.b", BIAS.splitlines())
    folds = {k: [f"p(a{k}_{j})." for j in range(3)] for k in range(4)}
    for k, atoms in folds.items():
        _write(tmp_path / "fs" / f"f{k}.f", atoms)
    _write(tmp_path / "fs" / "all.f", [a for atoms in folds.values() for a in atoms])
    task = load_task(tmp_path, "aleph")
    assert task.fold_names == ["f0", "f1", "f2", "f3"]
    assert any("all.f (12 of 12 examples in the folds)" in w for w in task.warnings)


def test_cv_refuses_a_unit_whose_test_examples_are_training_examples(tmp_path: Path) -> None:
    task = load_task(_aleph_folds(tmp_path, extras=False), "aleph")
    cfg = RunConfig.model_validate({"data": {"path": str(tmp_path)}, "cv": {"tune_folds": 0}})
    # the example of fold test2 with id 6 duplicated into fold test1: a leak in both units
    atoms = list(task.examples.atoms)
    atoms[0] = atoms[4]  # positives come first: ids 0-3 are test1's, 4-7 test2's
    task.examples.atoms[:] = atoms
    with pytest.raises(DataError, match=r"unit 'test1' tests on 1 of its 6 test examples that"):
        splits(task, cfg)


def test_stratified_folds_keep_a_repeated_atom_in_one_fold(tmp_path: Path) -> None:
    task = load_task(_aleph_folds(tmp_path, extras=False), "aleph")
    task.examples.atoms[1] = task.examples.atoms[0]
    task.examples.atoms[2] = task.examples.atoms[0]
    folded = stratified_folds(task, 5, seed=3)
    assert len(set(folded.examples.folds[[0, 1, 2]].tolist())) == 1
    cfg = RunConfig.model_validate({"data": {"path": str(tmp_path)}, "cv": {"folds": 5}})
    assert len(splits(folded, cfg)) == 5
    assert np.all(folded.examples.folds >= 0)


# -- item 7: saturation survives a runaway mode goal -------------------------------------------

LOOPING = """:- modeh(1, p(+t)).
:- modeb(*, q(+t, -t)).
:- modeb(1, loop(+t)).
:- determination(p/1, q/2).
:- determination(p/1, loop/1).
q(a, b).
q(b, c).
loop(X) :- loop(X).
"""


def _looping(root: Path) -> Path:
    _write(root / "d.b", LOOPING.splitlines())
    _write(root / "d.f", ["p(a)."])
    _write(root / "d.n", ["p(c)."])
    return root / "d.b"


def _engine_params() -> list[object]:
    out: list[object] = [pytest.param(("native", {}), id="native")]
    for engine in ("swipl", "gprolog"):
        mark = pytest.mark.skipif(shutil.which(engine) is None, reason=f"{engine} not on PATH")
        out.append(
            pytest.param(("subprocess", {"engine": engine}), id=f"subprocess-{engine}", marks=mark)
        )
    return out


@pytest.mark.parametrize("backend", _engine_params())
def test_a_looping_mode_goal_is_dropped_and_the_rest_of_the_bottom_clause_built(
    tmp_path: Path, backend: tuple[str, dict[str, object]]
) -> None:
    name, options = backend
    task = load_task(_looping(tmp_path), "aleph")
    engine = get_plugin_manager().make("backend", name, {**options, "step_limit": 20000})
    engine.load(task)
    try:
        bottom = engine.saturate(0, depth=2)
    finally:
        engine.close()
    # layer 1: q(a,b) and loop(a) (dropped); layer 2: q(b,c) and loop(b) (dropped)
    assert str(bottom) == "p(A) :- q(A,B), q(B,C)."
    assert bottom.dropped == ("loop(a)", "loop(b)")


def test_saturate_command_reports_the_dropped_goals(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["saturate", str(_looping(tmp_path)), "-e", "p(a)", "--set", "backend.step_limit=20000"],
    )
    assert result.exit_code == 0, result.output
    assert "% 2 goals dropped (over a resource limit): loop(a), loop(b)" in result.output
    assert "p(A) :- q(A,B), q(B,C)." in result.output


# -- item 6: bias that cannot work -------------------------------------------------------------

DISCONNECTED = """:- modeh(1, p(+person)).
:- modeb(*, owns(+car, -colour)).
:- modeb(*, makes(+firm, -car)).
:- modeb(*, colour(-colour)).
:- modeb(1, size(-size)).
:- determination(p/1, owns/2).
:- determination(p/1, makes/2).
:- determination(p/1, colour/1).
:- determination(p/1, size/1).
owns(c1, red).
makes(f1, c1).
colour(red).
colour(blue).
size(big).
"""

CONNECTED = """:- modeh(1, p(+person)).
:- modeb(*, has(+person, -car)).
:- modeb(*, owns(+car, -colour)).
:- modeb(1, paint(+colour, -shade)).
:- determination(p/1, has/2).
:- determination(p/1, owns/2).
:- determination(p/1, paint/2).
has(ann, c1).
owns(c1, red).
paint(red, dark).
:- set(i, 3).
"""


def _bias_task(root: Path, background: str) -> Path:
    _write(root / "d.b", background.splitlines())
    _write(root / "d.f", ["p(ann).", "p(bob)."])
    _write(root / "d.n", ["p(cid)."])
    return root


def test_modes_off_every_input_chain_and_all_output_modes_are_named(tmp_path: Path) -> None:
    task = load_task(_bias_task(tmp_path, DISCONNECTED), "aleph")
    warnings = bias_warnings(task)
    # nothing reaches car or firm from p's person: owns/2 and makes/2 are never used (2),
    # the body never connects to the head (1), colour/1 is all-output with recall * (1);
    # size/1 has recall 1: one literal per bottom clause, not a table, so no warning
    assert len(warnings) == 4
    assert "no body mode for p/1 takes an input reachable from the head" in warnings[0]
    assert "d.b:2:" in warnings[1] and "modeb(*,owns(+car,-colour)) is never used" in warnings[1]
    assert "input type(s) car" in warnings[1]
    assert "makes(+firm,-car)) is never used" in warnings[2] and "type(s) firm" in warnings[2]
    assert "colour(-colour)) has only output arguments (recall *)" in warnings[3]
    good = load_task(_bias_task(tmp_path / "ok", CONNECTED), "aleph")
    assert bias_warnings(good) == []  # person -> car -> colour -> shade: a chain


def test_data_check_warns_and_learn_warns_before_starting(tmp_path: Path) -> None:
    data = _bias_task(tmp_path, DISCONNECTED)
    checked = CliRunner().invoke(app, ["data", "check", str(data)])
    assert checked.exit_code == 0, checked.output
    assert "d.b:1:1: no body mode for p/1 takes an input reachable" in checked.stderr
    learned = CliRunner().invoke(app, ["learn", str(data), "--quiet"])
    assert learned.exit_code == 0, learned.output
    assert learned.stderr.count("is never used for p/1") == 2
    quiet = CliRunner().invoke(app, ["data", "check", str(_bias_task(tmp_path / "ok", CONNECTED))])
    assert "warning" not in quiet.stderr


def test_data_check_warns_about_a_large_bottom_clause(tmp_path: Path) -> None:
    data = _bias_task(tmp_path, CONNECTED)
    many = [f"has(ann, c{k})." for k in range(2, 30)]  # 29 has/2 literals + owns + paint = 31
    with open(data / "d.b", "a") as handle:
        handle.write("\n".join(many) + "\n")
    args = ["data", "check", str(data), "--seed-example", "0", "--max-bottom"]
    big = CliRunner().invoke(app, [*args, "30"])
    assert big.exit_code == 0, big.output
    assert "bottom clause of example 0 (p(ann)) has 31 literals (more than 30)" in big.stderr
    assert "bottom clause" not in CliRunner().invoke(app, [*args, "31"]).stderr


# -- item 8: loader gaps -----------------------------------------------------------------------

TASK_B = """:- modeh(1, p(+t)).
:- modeb(*, q(+t, -t)).
:- determination(p/1, q/2).
"""


def _task_folder(root: Path, extra: str = "") -> Path:
    _write(root / "d.b", (TASK_B + extra).splitlines())
    _write(root / "d.f", ["p(a)."])
    _write(root / "d.n", ["p(c)."])
    return root


def test_shared_background_consulted_with_a_query_directive_is_read(tmp_path: Path) -> None:
    _write(tmp_path / "common_bk.pl", ["q(a, b).", "q(b, c)."])
    data = _task_folder(tmp_path / "one", "?- consult('../common_bk.pl').\n")
    # one folder up is outside the data folder: read only when trusted (issue 28)
    with pytest.raises(
        DataError, match=r"d\.b:4:1: '\.\./common_bk\.pl' is .*common_bk\.pl, outside the data"
    ):
        load_task(data)
    task = load_task(data, trust_data=True)
    assert task.program.facts[("q", 2)] == [
        (Const("a"), Const("b")),
        (Const("b"), Const("c")),
    ]
    assert task.directives == []  # not left for --trust-data to run


def test_included_files_are_read_within_the_dataset_folder_only_unless_trusted(
    tmp_path: Path,
) -> None:
    _write(tmp_path / "data" / "t" / "facts.pl", ["q(a, b)."])
    _write(tmp_path / "elsewhere" / "far.pl", ["q(b, c)."])
    data = _task_folder(tmp_path / "data" / "t", ":- [facts].\n")
    assert load_task(data).program.facts[("q", 2)] == [(Const("a"), Const("b"))]
    # two levels up: outside the data folder
    _write(
        data / "d.b", (TASK_B + ":- [facts].\n:- consult('../../elsewhere/far').\n").splitlines()
    )
    with pytest.raises(
        DataError, match=r"d\.b:5:1: '\.\./\.\./elsewhere/far' is .*elsewhere/far, outside"
    ):
        load_task(data)
    checked = CliRunner().invoke(app, ["data", "check", str(data)])
    assert checked.exit_code != 0 and "pass --trust-data" in checked.output
    trusted = load_task(data, trust_data=True)
    assert trusted.program.facts[("q", 2)] == [(Const("a"), Const("b")), (Const("b"), Const("c"))]
    assert CliRunner().invoke(app, ["data", "check", str(data), "--trust-data"]).exit_code == 0
    learned = CliRunner().invoke(app, ["learn", str(data), "--quiet", "--trust-data"])
    assert learned.exit_code == 0, learned.output


def test_a_folder_holding_one_task_in_a_sub_folder_is_detected(tmp_path: Path) -> None:
    _task_folder(tmp_path / "task1", "q(a, b).\n")
    (tmp_path / "README").write_text("one task inside\n")
    task = load_task(tmp_path)
    assert task.name == "d" and len(task.examples) == 2
    assert any("sub-folder task1" in n for n in task.notes)
    assert load_task(tmp_path, "aleph").name == "d"


def test_stem_naming_no_task_lists_the_task_folders(tmp_path: Path) -> None:
    _task_folder(tmp_path / "task1")
    _task_folder(tmp_path / "task2")
    with pytest.raises(FormatError, match=r"several tasks in sub-folders \(task1, task2\)"):
        load_task(tmp_path)
    with pytest.raises(FormatError, match=r"no task 'nope'; the task folders here are: task1, ta"):
        load_task(tmp_path, stem="nope")
    assert load_task(tmp_path, stem="task2").sources[0].endswith("task2/d.b")


def test_stem_naming_no_task_of_a_one_task_folder_lists_the_real_choice(tmp_path: Path) -> None:
    # Aleph stem: the .b file; Popper: its one example set; BoostSRL: the one task read
    aleph = _task_folder(tmp_path / "aleph")
    with pytest.raises(FormatError, match=r"no task 'nope'; the \.b files here are: d$"):
        load_task(aleph, stem="nope")
    assert load_task(aleph, stem="d").name == "d"
    popper = tmp_path / "popper"
    _write(popper / "bias.pl", ["head_pred(p,1).", "body_pred(q,1)."])
    _write(popper / "bk.pl", ["q(a)."])
    _write(popper / "exs.pl", ["pos(p(a)).", "neg(p(b))."])
    with pytest.raises(FormatError, match=r"this folder holds one, exs\.pl: leave out --stem"):
        load_task(popper, stem="nope")
    boostsrl = _boostsrl_splits(tmp_path / "boostsrl")
    with pytest.raises(
        FormatError, match=r"no task 'nope'; this folder holds one task, 'boostsrl' \(backgr"
    ):
        load_task(boostsrl, stem="nope")


def test_a_mode_declaration_with_a_syntax_error_is_skipped_unless_strict(tmp_path: Path) -> None:
    broken = ":- modeb(*, r(+t, -t).\nq(a, b).\n"  # line 4: the closing parenthesis is missing
    data = _task_folder(tmp_path, broken)
    task = load_task(data)
    assert [str(m) for m in task.bias.modeb] == ["modeb(*,q(+t,-t))"]
    (warning,) = [w for w in task.warnings if "syntax error" in w]
    assert warning.startswith("1 clause(s) with a syntax error skipped")
    assert "d.b:4:" in warning
    with pytest.raises(PrologSyntaxError, match=r"d\.b:4:"):
        load_task(data, strict=True)
    refused = CliRunner().invoke(app, ["data", "check", str(data), "--strict"])
    assert refused.exit_code != 0 and "d.b:4:" in refused.output


def test_background_clauses_with_a_syntax_error_are_skipped_with_a_summary(
    tmp_path: Path,
) -> None:
    # lines 4 and 6 are broken (a fact and a rule); SWI-Prolog reports both and loads the rest
    broken = "q(a, b.\nq(b, c).\nr(X) :- q(X, .\nq(c, d).\n"
    data = _task_folder(tmp_path, broken)
    task = load_task(data)
    assert task.program.facts[("q", 2)] == [(Const("b"), Const("c")), (Const("c"), Const("d"))]
    assert ("r", 1) not in task.program.clauses
    (warning,) = [w for w in task.warnings if "syntax error" in w]
    assert warning.startswith("2 clause(s) with a syntax error skipped")
    assert "d.b:4:7:" in warning and "d.b:6:" in warning
    with pytest.raises(PrologSyntaxError, match=r"d\.b:4:7:"):
        load_task(data, strict=True)
    # learn skips them too, and refuses with data.strict
    assert CliRunner().invoke(app, ["learn", str(data), "--quiet"]).exit_code == 0
    strict = CliRunner().invoke(app, ["learn", str(data), "--set", "data.strict=true"])
    assert strict.exit_code != 0 and "d.b:4:7:" in strict.output
    # a syntax error in an examples file still refuses: skipping it would drop an example
    _write(data / "d.f", ["p(a).", "p(b."])
    with pytest.raises(PrologSyntaxError, match=r"d\.f:2:"):
        load_task(data)


def test_popper_bias_and_background_syntax_errors_are_skipped(tmp_path: Path) -> None:
    _write(tmp_path / "bias.pl", ["head_pred(p,1).", "body_pred(q,2.", "body_pred(r,1)."])
    _write(tmp_path / "bk.pl", ["q(a,b).", "r(a).", "r(b, ."])
    _write(tmp_path / "exs.pl", ["pos(p(a)).", "neg(p(b))."])
    task = load_task(tmp_path)
    assert [str(m) for m in task.bias.modeb] == ["modeb(*,r(+t))"]
    assert task.program.facts[("r", 1)] == [(Const("a"),)]
    (warning,) = [w for w in task.warnings if "syntax error" in w]
    assert warning.startswith("2 clause(s) with a syntax error skipped")
    assert "bias.pl:2:14:" in warning and "bk.pl:3:" in warning
    with pytest.raises(PrologSyntaxError, match=r"bias\.pl:2:14:"):
        load_task(tmp_path, strict=True)


def test_boostsrl_mode_and_fact_syntax_errors_are_skipped(tmp_path: Path) -> None:
    modes = ["mode: cancer(+person).", "mode: smokes(+person.", "mode: friends(+person,-person)."]
    _write(tmp_path / "background.txt", modes)
    _write(tmp_path / "train" / "train_pos.txt", ["cancer(ann)."])
    _write(tmp_path / "train" / "train_neg.txt", ["cancer(bob)."])
    _write(tmp_path / "train" / "train_facts.txt", ["smokes(ann).", "smokes(bob.", "friends(a,b)."])
    task = load_task(tmp_path)
    assert [str(m) for m in task.bias.modeb] == ["modeb(*,friends(+person,-person))"]
    assert task.program.facts[("smokes", 1)] == [(Const("ann"),)]
    (warning,) = [w for w in task.warnings if "syntax error" in w]
    assert warning.startswith("2 clause(s) with a syntax error skipped")
    assert "background.txt:2:1: mode: smokes(+person.: a bracket" in warning
    assert "train_facts.txt:2:" in warning
    with pytest.raises(BiasError, match=r"background\.txt:2:1:"):
        load_task(tmp_path, strict=True)


def test_loading_an_ilp_systems_own_file_is_noted_not_followed(tmp_path: Path) -> None:
    _write(tmp_path / "aleph.pl", [":- module(aleph, []).", "induce :- not_data."])
    data = _task_folder(tmp_path / "t", ":- use_module('../aleph.pl').\nq(a, b).\n")
    task = load_task(data)
    assert ("induce", 0) not in task.program.clauses
    assert any(
        "'../aleph.pl' is the aleph ILP system's own file; not loaded" in n for n in task.notes
    )


def _boostsrl_splits(root: Path) -> Path:
    _write(root / "background.txt", ["mode: cancer(+person).", "mode: smokes(+person)."])
    people = ["ann", "bob", "cid", "dan"]
    for k, held_out in ((1, 0), (2, 1)):
        test = [people[held_out], people[held_out + 2]]
        train = [p for p in people if p not in test]
        for role, names in (("train", train), ("test", test)):
            folder = root / f"fold{k}" / role
            _write(folder / f"{role}_pos.txt", [f"cancer({names[0]})."])
            _write(folder / f"{role}_neg.txt", [f"cancer({names[1]})."])
            _write(folder / f"{role}_facts.txt", [f"smokes({n})." for n in names])
    return root


def test_learn_on_alternative_splits_trains_on_one_and_says_so(tmp_path: Path) -> None:
    task = load_task(_boostsrl_splits(tmp_path))
    assert task.fold_names == ["fold1/train", "fold1/test", "fold2/train", "fold2/test"]
    ids, note = learn_split(task)
    assert ids is not None and ids.tolist() == [0, 4]  # fold1/train's positive and negative
    assert note is not None and "learning on fold1/train only (2 examples)" in note
    learned = CliRunner().invoke(app, ["learn", str(tmp_path), "--quiet"])
    assert learned.exit_code == 0, learned.output
    assert "2 alternative train/test splits (fold1, fold2)" in learned.stderr


# -- item 2 (framework part): one clause over a limit never ends a run ------------------------

SLOW = """:- modeh(1, p(+t)).
:- modeb(1, q(+t, -u)).
:- modeb(1, slow(+t)).
:- determination(p/1, q/2).
:- determination(p/1, slow/1).
:- set(i, 1).
q(a, x). q(c, x). q(e, x). q(b, y).
slow(X) :- X == b, loop(X).
slow(a). slow(c). slow(e). slow(d).
loop(X) :- loop(X).
"""


def _slow(root: Path) -> Path:
    """Saturating a positive gives p(A) :- q(A,B), slow(A); the clause with slow(A) loops
    on the negative p(b) only (slow(b) calls loop(b))."""
    _write(root / "d.b", SLOW.splitlines())
    _write(root / "d.f", ["p(a).", "p(c).", "p(e)."])
    _write(root / "d.n", ["p(b).", "p(d).", "p(f)."])
    return root


@pytest.mark.parametrize("backend", _engine_params())
def test_a_clause_over_the_limit_covers_nothing_and_is_counted(
    tmp_path: Path, backend: tuple[str, dict[str, object]]
) -> None:
    name, options = backend
    task = load_task(_slow(tmp_path))
    engine = get_plugin_manager().make("backend", name, {**options, "step_limit": 20000})
    engine.load(task)
    try:
        _check_limited_search(task, engine, native=name == "native")
    finally:
        engine.close()


def _check_limited_search(task: Task, engine: Any, *, native: bool) -> None:
    bottom = engine.saturate(0)
    assert str(bottom) == "p(A) :- q(A,B), slow(A)."
    ctx = SearchContext(
        bottom=bottom,
        backend=engine,
        scorer=get_plugin_manager().make("scorer", "coverage", {}),
        weighting=Weighting(task.examples.labels, task.examples.weights),
        budget=10,
        rng=random.Random(0),
        clauselength=3,
    )
    with pytest.raises(ResourceLimitExceeded):
        engine.coverage(bottom.clause([1]))  # asked directly, the limit is an error
    assert ctx.evaluate((0,)).coverage.tolist() == [0, 1, 2, 3]  # q(A,B): a, c, e and b
    over = ctx.evaluate((1,))
    assert over.coverage.tolist() == [] and (over.counts.tp, over.counts.fp) == (0, 0)
    assert limits_exceeded(engine) == 1
    # among the parent's coverage (a, c, e, b) the refinement meets p(b) too
    assert ctx.evaluate((0, 1), parent=ctx.evaluate((0,))).coverage.tolist() == []
    assert limits_exceeded(engine) == 2
    if native:
        assert engine.first_limit_message.startswith("the query slow(b) exceeded the limit")
        assert engine.first_limit_message.endswith("(clause: p(A) :- slow(A))")


def test_learn_and_cv_finish_and_report_the_clauses_over_the_limit(tmp_path: Path) -> None:
    data = _slow(tmp_path / "data")
    limit = ["--set", "backend.step_limit=20000"]
    learned = CliRunner().invoke(app, ["learn", str(data), *limit])
    assert learned.exit_code == 0, learned.output
    assert "clauses exceeded a resource limit and were scored as covering nothing" in (
        learned.output
    )
    run = tmp_path / "run"
    args = ["cv", str(data), "--folds", "2", "--tune-folds", "0", "--out", str(run), *limit]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    results = json.loads((run / "results.json").read_text())
    per_unit = [u["limits_exceeded"] for u in results["units"]]
    assert results["limits_exceeded"] == sum(per_unit) > 0
    # only a unit training on p(b) can meet the loop
    trained_on_b = [u for u in results["units"] if u["limits_exceeded"]]
    assert len(trained_on_b) == 1


# -- item 2: every path of a run counts a clause over a limit and goes on ----------------------

SMALL = {
    "r4f": ["learner.trees=2"],
    "static-rf": ["learner.trees=5", "learner.rules=20"],
    "aleph-ensemble": ["learner.theories=3"],
    "rankboost": ["learner.rounds=5"],
    "prankboost": ["learner.rounds=5"],
}
LEARNERS = [
    "aleph-ensemble",
    "gleaner",
    "gleanersrl",
    "prankboost",
    "r4f",
    "rankboost",
    "single-theory",
    "static-rf",
    "theory",
    "tilde",
]


SLOW_LEARNERS = {"gleaner", "gleanersrl", "r4f"}  # 6-8 s each on the shared 2-core machine


@pytest.mark.parametrize(
    "learner",
    [pytest.param(n, marks=[pytest.mark.heavy] if n in SLOW_LEARNERS else []) for n in LEARNERS],
)
def test_every_learner_finishes_with_a_clause_over_the_limit(tmp_path: Path, learner: str) -> None:
    data = _slow(tmp_path / "data")
    sets = [a for s in ["backend.step_limit=2000", *SMALL.get(learner, [])] for a in ("--set", s)]
    out = tmp_path / "m.json"
    learned = CliRunner().invoke(
        app, ["learn", str(data), "--learner", learner, "--out", str(out), *sets]
    )
    assert learned.exit_code == 0, learned.output
    assert "exceeded a resource limit and" in learned.output
    assert load_model(out).info["limits_exceeded"] > 0  # type: ignore[attr-defined]


@pytest.mark.heavy  # from the quick suite (3-6 s): keeps the README's test command under 5 minutes
@pytest.mark.parametrize("learner", ["gleaner", "aleph-ensemble"])
def test_members_run_on_worker_processes_report_the_same_limit_counts(
    tmp_path: Path, learner: str
) -> None:
    """Gleaner seeds and ensemble theories shipped to worker processes count their clauses
    over a limit on the workers' backends: the parent adds them up, so the model reports
    the same count as a run in one process (it was 0 before)."""
    data = _slow(tmp_path / "data")
    sets = [a for s in ["backend.step_limit=2000", *SMALL.get(learner, [])] for a in ("--set", s)]
    counts = []
    for executor in ([], ["--executor", "processes", "--set", "executor.workers=2"]):
        out = tmp_path / f"m{len(counts)}.json"
        learned = CliRunner().invoke(
            app, ["learn", str(data), "--learner", learner, "--out", str(out), *sets, *executor]
        )
        assert learned.exit_code == 0, learned.output
        counts.append(load_model(out).info["limits_exceeded"])  # type: ignore[attr-defined]
    assert counts[0] > 0
    assert counts[1] == counts[0]


LOOPY = """:- modeh(1, p(+t)).
:- modeb(1, slow(+t)).
:- determination(p/1, slow/1).
:- set(i, 1).
slow(X) :- X == b, loop(X).
slow(a). slow(c). slow(e). slow(g).
loop(X) :- loop(X).
"""


def _loopy(root: Path) -> Path:
    """p(A) :- slow(A) covers every positive and loops on the negative p(b) only: learned on
    folds without p(b), it meets the limit when the fold holding p(b) is predicted."""
    _write(root / "d.b", LOOPY.splitlines())
    _write(root / "d.f", ["p(a).", "p(c).", "p(e).", "p(g)."])
    _write(root / "d.n", ["p(b).", "p(d).", "p(f)."])
    return root


def test_predicting_with_a_clause_over_the_limit_counts_it_and_goes_on(tmp_path: Path) -> None:
    task = load_task(_loopy(tmp_path))
    engine = get_plugin_manager().make("backend", "native", {"step_limit": 2000})
    engine.load(task)
    a = Var("A")
    clause = Clause(Struct("p", (a,)), [Struct("slow", (a,))])
    without_b = np.array([0, 1, 2, 3, 5, 6])  # positives 0-3; p(b) is example 4
    assert matches(engine, [clause], without_b).tolist() == [1, 1, 1, 1, 0, 0]
    assert limits_exceeded(engine) == 0
    # with p(b) among the examples the clause exceeds the limit: it covers none of them
    assert matches(engine, [clause], None).tolist() == [0] * 7
    assert limits_exceeded(engine) == 1
    (rule,) = rule_stats(task, engine, [clause], task.examples.ids)
    assert (rule.tp, rule.fp) == (0, 0)
    assert limits_exceeded(engine) == 2


def test_cv_counts_a_clause_over_the_limit_met_on_a_test_fold(tmp_path: Path) -> None:
    run = tmp_path / "run"
    args = ["cv", str(_loopy(tmp_path / "d")), "--folds", "3", "--tune-folds", "0"]
    done = CliRunner().invoke(app, [*args, "--out", str(run), "--set", "backend.step_limit=2000"])
    assert done.exit_code == 0, done.output
    assert "exceeded a resource limit and were scored as covering nothing" in done.output
    results = json.loads((run / "results.json").read_text())
    units = [json.loads(f.read_text()) for f in sorted((run / "units").glob("*.json"))]
    (tests_b,) = [u for u in units if 4 in u["test_ids"]]  # p(b) is example 4
    # its training folds lack p(b): the theory p(A) :- slow(A) is learned without meeting the
    # loop, then scoring the test fold meets it (the other units meet it in their searches)
    model = json.loads((run / "models" / f"{tests_b['key']}.json").read_text())
    assert [r["clause"] for r in model["rules"]] == ["p(A) :- slow(A)."]
    assert tests_b["limits_exceeded"] > 0
    assert all(len(u["scores"]) == u["n_test"] for u in units)
    assert results["limits_exceeded"] == sum(u["limits_exceeded"] for u in units)


def test_learn_reports_saturation_goals_dropped(tmp_path: Path) -> None:
    learned = CliRunner().invoke(
        app, ["learn", str(_looping(tmp_path)), "--set", "backend.step_limit=20000"]
    )
    assert learned.exit_code == 0, learned.output
    assert "saturation goals over a resource limit dropped from bottom clauses" in learned.output


def _run_engines() -> list[object]:
    """native, swi (janus) and subprocess swipl and gprolog, each skipped when missing."""
    out: list[object] = [pytest.param(["native"], id="native")]
    out.append(pytest.param(["swi", "--set", "backend.bridge=janus"], id="janus"))
    for engine in ("swipl", "gprolog"):
        mark = pytest.mark.skipif(shutil.which(engine) is None, reason=f"{engine} not on PATH")
        param = ["subprocess", "--set", f"backend.engine={engine}"]
        out.append(pytest.param(param, id=f"subprocess-{engine}", marks=mark))
    return out


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a child process (janus loads SWI-Prolog once per process)."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-m", "ilpkit", *args],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
        timeout=600,
    )


@pytest.mark.heavy
@pytest.mark.parametrize("backend", _run_engines())
def test_learn_and_cv_with_a_clause_over_the_limit_finish_on_every_engine(
    tmp_path: Path, backend: list[str]
) -> None:
    if backend[0] == "swi":
        from ilpkit.plugins.backends.prolog.swi_backend import preflight

        if not preflight("janus").ok:
            pytest.skip("swi (janus) is not available")
    data = str(_loopy(tmp_path / "d"))
    limit = ["--set", "backend.step_limit=2000", "--backend", *backend]
    learned = _cli("learn", data, *limit)
    assert learned.returncode == 0, learned.stderr
    # the learner's searches meet p(A) :- slow(A) on p(b) 4 times (one search per positive
    # seed: the clause is evaluated once in each); the same count on every engine
    assert "4 clauses exceeded a resource limit and were scored as covering" in learned.stdout
    run = tmp_path / "run"
    done = _cli("cv", data, "--folds", "3", "--tune-folds", "0", "--out", str(run), *limit)
    assert done.returncode == 0, done.stderr
    results = json.loads((run / "results.json").read_text())
    assert results["limits_exceeded"] > 0
    assert f"{results['limits_exceeded']} clauses exceeded a resource limit" in done.stdout
    units = [json.loads(f.read_text()) for f in sorted((run / "units").glob("*.json"))]
    (tests_b,) = [u for u in units if 4 in u["test_ids"]]
    assert tests_b["limits_exceeded"] > 0  # met when its test fold was scored


def test_predict_counts_a_clause_over_the_limit(tmp_path: Path) -> None:
    train = _loopy(tmp_path / "train")
    _write(train / "d.n", ["p(d).", "p(f)."])  # without p(b): p(A) :- slow(A) is learned
    model = tmp_path / "m.json"
    limit = ["--set", "backend.step_limit=2000"]
    learned = CliRunner().invoke(app, ["learn", str(train), "--out", str(model), *limit])
    assert learned.exit_code == 0 and "p(A) :- slow(A)." in learned.output, learned.output
    scored = CliRunner().invoke(app, ["predict", str(model), str(_loopy(tmp_path / "all")), *limit])
    assert scored.exit_code == 0, scored.output
    # met twice: scoring (the ranking) and predicting (the classification) each ask it once
    assert "2 clauses exceeded a resource limit and were scored as covering nothing" in (
        scored.stderr
    )
