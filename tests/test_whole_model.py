"""The whole model on training and held-out examples (issue 33): learn's table, --fold, and
predict saying which of its figures are in-sample."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from typer.testing import CliRunner

import ilpkit
from ilpkit.cli.main import app
from ilpkit.core.formats import load_task
from ilpkit.core.task import POS
from ilpkit.errors import ConfigError
from ilpkit.experiment.cv import learn_split_for
from ilpkit.experiment.whole_model import one_class_on, whole_model_counts

runner = CliRunner()


class FixedModel:
    """A model whose classification and scores are given per example id."""

    learner = "fixed"
    clauses_evaluated = 0

    def __init__(self, positive: set[int], scores: dict[int, float]) -> None:
        self.positive = positive
        self.scores = scores

    def predict(self, backend: Any, ids: npt.NDArray[np.int64] | None = None) -> Any:
        assert ids is not None
        return np.array([int(i) in self.positive for i in ids])

    def score(self, backend: Any, ids: npt.NDArray[np.int64] | None = None) -> Any:
        assert ids is not None
        return np.array([self.scores[int(i)] for i in ids])


def test_counts_and_figures_by_hand() -> None:
    task = ilpkit.load_task("trains")  # 5 eastbound, 5 westbound
    pos = [int(i) for i in task.examples.ids if task.examples.labels[i] == POS]
    neg = [int(i) for i in task.examples.ids if task.examples.labels[i] != POS]
    chosen = {*pos[:3], neg[0]}  # 3 positives and 1 negative said positive
    model = FixedModel(chosen, {i: float(i in chosen) for i in task.examples.ids.tolist()})
    row = whole_model_counts(model, None, task, task.examples.ids, "training")  # type: ignore[arg-type]
    assert (row["tp"], row["fn"], row["fp"], row["tn"]) == (3, 2, 1, 4)
    assert row["accuracy"] == pytest.approx(7 / 10)
    assert row["precision"] == pytest.approx(3 / 4)
    assert row["recall"] == pytest.approx(3 / 5)
    assert row["f1"] == pytest.approx(2 * 3 / (2 * 3 + 1 + 2))  # 2TP / (2TP + FP + FN)
    # AUROC: 25 positive-negative pairs; scores 1 beat 0 in 3 x 4 pairs, ties count half:
    # 3 x 1 (both 1) + 2 x 4 (both 0) -> (12 + 5.5) / 25
    assert row["auroc"] == pytest.approx(17.5 / 25)
    assert not one_class_on(row)


def test_unlabelled_examples_are_left_out_and_undefined_figures_are_none() -> None:
    task = ilpkit.load_task("trains")
    pos = [int(i) for i in task.examples.ids if task.examples.labels[i] == POS]
    model = FixedModel(set(), dict.fromkeys(task.examples.ids.tolist(), 0.0))
    row = whole_model_counts(model, None, task, np.array(pos, dtype=np.int64), "pos only")  # type: ignore[arg-type]
    assert (row["tp"], row["fn"], row["fp"], row["tn"]) == (0, 5, 0, 0)
    assert row["precision"] is None and row["auroc"] is None and row["recall"] == 0.0
    everything = whole_model_counts(model, None, task, task.examples.ids, "all")  # type: ignore[arg-type]
    assert one_class_on(everything)  # both classes present, every one said negative


def _boostsrl(root: Path, layout: str) -> Path:
    """Four people, two with cancer; ``layout`` 'train-test': one train and one test
    folder; 'splits': two alternative train/test folders."""

    def write(folder: Path, role: str, pos: str, neg: str, people: list[str]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{role}_pos.txt").write_text(f"cancer({pos}).\n")
        (folder / f"{role}_neg.txt").write_text(f"cancer({neg}).\n")
        (folder / f"{role}_facts.txt").write_text("".join(f"smokes({p}).\n" for p in people))

    root.mkdir(parents=True)
    (root / "background.txt").write_text("mode: cancer(+person).\nmode: smokes(+person).\n")
    if layout == "train-test":
        write(root / "train", "train", "ann", "bob", ["ann"])
        write(root / "test", "test", "cid", "dan", ["cid"])
    else:
        write(root / "fold1" / "train", "train", "ann", "bob", ["ann"])
        write(root / "fold1" / "test", "test", "cid", "dan", ["cid"])
        write(root / "fold2" / "train", "train", "cid", "dan", ["cid"])
        write(root / "fold2" / "test", "test", "ann", "bob", ["ann"])
    return root


def test_learn_split_holds_out_the_named_fold(tmp_path: Path) -> None:
    task = load_task(_boostsrl(tmp_path / "tt", "train-test"))
    assert task.fold_names == ["train", "test"]
    test_fold = task.examples.folds == task.fold_names.index("test")
    default = learn_split_for(task)
    assert (
        default.test_name == "test" and default.test.tolist() == np.flatnonzero(test_fold).tolist()
    )
    assert (
        default.train is not None and default.train.tolist() == np.flatnonzero(~test_fold).tolist()
    )
    swapped = learn_split_for(task, "train")  # hold out train, learn from test
    assert swapped.train is not None and swapped.train.tolist() == default.test.tolist()

    splits = load_task(_boostsrl(tmp_path / "splits", "splits"))
    names = splits.fold_names
    second = learn_split_for(splits, "fold2")
    folds = splits.examples.folds
    assert second.train is not None
    assert set(folds[second.train].tolist()) == {names.index("fold2/train")}
    assert set(folds[second.test].tolist()) == {names.index("fold2/test")}
    assert second.test_name == "fold2/test"
    first = learn_split_for(splits)
    assert first.test_name == "fold1/test" and first.note is not None

    with pytest.raises(ConfigError, match="no such fold; the data's folds are fold1, fold2"):
        learn_split_for(splits, "fold3")
    with pytest.raises(ConfigError, match="the data has no folds"):
        learn_split_for(ilpkit.load_task("trains"), "test")
    assert learn_split_for(ilpkit.load_task("trains")).test.size == 0


def test_learn_prints_the_whole_model_on_training_and_held_out_examples(tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    args = [
        "learn",
        "uwcse",
        "--fold",
        "f1",
        "--set",
        "nodes=200",
        "--set",
        "i=2",
        "-o",
        str(model),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "whole model" in result.stdout
    assert "training (2356)" in result.stdout and "f1 (468)" in result.stdout
    info = json.loads(model.read_text())["info"]
    assert info["fold"] == "f1" and info["held_out"] == "f1"
    training, held = info["evaluation"]
    assert training["examples"] == 2356 and held["examples"] == 468
    assert training["tp"] + training["fn"] == 93  # UW-CSE's 113 positives, 20 of them in f1
    assert held["tp"] + held["fn"] == 20

    predicted = runner.invoke(app, ["predict", str(model), "uwcse", "-o", str(tmp_path / "s.csv")])
    assert predicted.exit_code == 0, predicted.output
    assert "2356 labelled examples the model learnt from (in-sample): AUROC " in predicted.stderr
    assert "468 labelled examples its learn run held out: AUROC " in predicted.stderr
    # the held-out line's AUROC is the one learn measured on f1
    auroc = float(predicted.stderr.split("held out: AUROC ")[1].split(",")[0])
    assert auroc == pytest.approx(held["auroc"], abs=1e-4)


def test_predict_names_unknown_training_data(tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    assert runner.invoke(app, ["learn", "trains", "-q", "-o", str(model)]).exit_code == 0
    same = runner.invoke(app, ["predict", str(model), "trains", "-o", str(tmp_path / "a.csv")])
    assert "10 labelled examples the model learnt from (in-sample)" in same.stderr
    data = json.loads(model.read_text())
    del data["info"]["data"]
    model.write_text(json.dumps(data))
    unknown = runner.invoke(app, ["predict", str(model), "trains", "-o", str(tmp_path / "b.csv")])
    assert unknown.exit_code == 0, unknown.output
    assert "10 labelled examples: AUROC 1.0000, AURPC 1.0000 (the model does not name" in (
        unknown.stderr
    )
