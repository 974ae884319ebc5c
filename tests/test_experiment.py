"""Cross-validation experiments: fold roles, seeds, executors, resume, reports, CLI."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.core.learner import Rule
from ilpkit.errors import ConfigError
from ilpkit.experiment.config import RunConfig
from ilpkit.experiment.cv import derive_seed, fold_task, load_configured_task, plan, splits
from ilpkit.experiment.report import compare_runs
from ilpkit.experiment.runs import Interrupted, RunDirectory, run_experiment, summarize
from ilpkit.plugins.learners.theory import TheoryModel
from ilpkit.prolog.terms import Clause, Const, Struct, Var

runner = CliRunner()

# Cheap settings: a handful of clauses per search keeps each unit well under a second.
TRAINS = {
    "data": {"path": "trains"},
    "search": "topdown",
    "scorer": "laplace",
    "settings": {"nodes": 30, "clauselength": 3},
    "cv": {"folds": 5},
}
UWCSE = {
    "data": {"path": "uwcse"},
    "search": "topdown",
    "scorer": "laplace",
    "settings": {"i": 2, "nodes": 60, "clauselength": 3, "minpos": 2},
    "learner": {"name": "theory", "options": {"max_rules": 3}},
    "cv": {"curve": [20, 200, 2000]},
}


def config(raw: dict[str, Any], **update: Any) -> RunConfig:
    return RunConfig.model_validate({**raw, **update})


def unit_files(run: Path) -> dict[str, Any]:
    return {p.name: json.loads(p.read_text()) for p in sorted((run / "units").glob("*.json"))}


def comparable(results: dict[str, Any]) -> dict[str, Any]:
    """results.json without wall-clock times."""
    data = json.loads(json.dumps(results))
    for unit in data["units"]:
        unit.pop("seconds")
    return data


# --------------------------------------------------------------------------------------------
# Fold roles
# --------------------------------------------------------------------------------------------


def test_data_folds_give_one_unit_per_fold_with_disjoint_roles() -> None:
    cfg = config(UWCSE, cv={"tune_folds": 1})
    task = load_configured_task(cfg)
    got = splits(task, cfg)
    assert [s.name for s in got] == ["f0", "f1", "f2", "f3", "f4"]
    folds = task.examples.folds
    name_of = {i: n for i, n in enumerate(task.fold_names)}
    for k, split in enumerate(got):
        # test = fold k, tune = fold k+1 (cyclically), train = the other three
        assert {name_of[f] for f in folds[split.test]} == {f"f{k}"}
        assert {name_of[f] for f in folds[split.tune]} == {f"f{(k + 1) % 5}"}
        assert {name_of[f] for f in folds[split.train]} == {
            f"f{j}" for j in range(5) if j not in (k, (k + 1) % 5)
        }
        together = np.concatenate([split.train, split.tune, split.test])
        assert len(together) == len(set(together.tolist())) == len(task.examples)
    # UW-CSE's fold sizes (pos + neg) from the data: 756, 468, 160, 972, 468
    assert [len(s.test) for s in got] == [756, 468, 160, 972, 468]


def test_too_many_tune_folds_is_an_error_naming_the_option() -> None:
    cfg = config(UWCSE, cv={"tune_folds": 4})
    with pytest.raises(ConfigError, match="tune_folds=4 leaves no training fold"):
        splits(load_configured_task(cfg), cfg)


def test_data_without_folds_needs_cv_folds() -> None:
    cfg = config(TRAINS, cv={})
    with pytest.raises(ConfigError, match=r"set cv\.folds=K"):
        plan(load_configured_task(cfg), cfg)


def test_train_test_folders_are_one_unit_each() -> None:
    # srlearn's layout: fold1/train, fold1/test, fold2/train, ... -- each folder its own
    # split (its examples may repeat in the other folders), not four folds of one partition
    cfg = config({"data": {"path": "trains"}})
    task = load_configured_task(cfg)
    task.fold_names[:] = ["a/train", "a/test", "b/train", "b/test"]
    task.examples.folds[:] = [0, 0, 0, 1, 1, 2, 2, 3, 3, 3]
    got = splits(task, cfg)
    assert [s.name for s in got] == ["a", "b"]
    assert [s.train.tolist() for s in got] == [[0, 1, 2], [5, 6]]
    assert [s.test.tolist() for s in got] == [[3, 4], [7, 8, 9]]
    assert all(len(s.tune) == 0 for s in got)
    with pytest.raises(ConfigError, match=r"a has no tune split; set cv\.tune_folds=0"):
        splits(task, config({"data": {"path": "trains"}}, cv={"tune_folds": 1}))
    task.fold_names[:] = ["a/train", "a/test", "a/tune", "b/train"]  # b has no test: folds
    assert [s.name for s in splits(task, config({"data": {"path": "trains"}}))] == [
        "a/train",
        "a/test",
        "a/tune",
        "b/train",
    ]


def test_train_test_data_is_one_unit() -> None:
    cfg = config({"data": {"path": "toy_father"}})
    task = load_configured_task(cfg)
    (split,) = splits(task, cfg)
    names = task.fold_names
    assert {names[f] for f in task.examples.folds[split.train]} == {"train"}
    assert {names[f] for f in task.examples.folds[split.test]} == {"test"}
    assert len(plan(task, cfg)) == 1


def test_stratified_folds_depend_on_seed_and_repeat_only() -> None:
    cfg = config(TRAINS, cv={"folds": 5, "repeats": 2})
    task = load_configured_task(cfg)
    a0 = fold_task(task, cfg, 0).examples.folds
    assert np.array_equal(a0, fold_task(task, cfg, 0).examples.folds)
    a1 = fold_task(task, cfg, 1).examples.folds
    assert not np.array_equal(a0, a1)  # 10 examples, 5 folds: another repeat, another deal
    units = plan(task, cfg)
    assert [u.key for u in units] == [f"r{r}-f{k}" for r in range(2) for k in range(5)]
    assert derive_seed(0, "unit", 1, 2) == derive_seed(0, "unit", 1, 2)
    assert derive_seed(0, "unit", 1, 2) != derive_seed(0, "unit", 2, 1)


# --------------------------------------------------------------------------------------------
# Learning curves (anytime reading of the theory learner)
# --------------------------------------------------------------------------------------------


def _rule(name: str) -> Rule:
    return Rule(Clause(Struct("p", (Var("A"),)), (Struct(name, (Var("A"),)),)))


def test_theory_at_budget_keeps_the_rules_accepted_by_then() -> None:
    model = TheoryModel(
        [_rule("a"), _rule("b"), _rule("c")], clauses_evaluated=150, found_after=[10, 50, 120]
    )
    assert [str(r.clause) for r in model.at_budget(9).rules()] == []  # type: ignore[union-attr]
    snapshot = model.at_budget(60)
    assert snapshot is not None
    assert [r.clause.body[0] for r in snapshot.rules()] == [
        Struct("a", (Var("A"),)),
        Struct("b", (Var("A"),)),
    ]
    assert snapshot.clauses_evaluated == 60
    assert len(model.at_budget(10_000).rules()) == 3  # type: ignore[union-attr]
    assert TheoryModel([_rule("a")]).at_budget(5) is None
    with pytest.raises(ValueError, match="2 rule budgets for 1 rules"):
        TheoryModel([_rule("a")], found_after=[1, 2])
    assert Const("a") != Const("b")


def test_summary_is_mean_and_sample_std_ignoring_nan() -> None:
    from ilpkit.experiment.cv import UnitResult

    def unit(aurpc: float) -> UnitResult:
        return UnitResult("k", 0, 0, "f", 0, 1, 0, 1, {"aurpc": aurpc}, [], [], [])

    s = summarize([unit(0.2), unit(0.4), unit(float("nan")), unit(0.6)])["aurpc"]
    # mean of 0.2, 0.4, 0.6 = 0.4; sample std = sqrt(((-.2)^2 + 0 + .2^2) / 2) = 0.2
    assert s.n == 3
    assert math.isclose(s.mean, 0.4)
    assert math.isclose(s.std, 0.2)


# --------------------------------------------------------------------------------------------
# Runs: executors, resume, reports
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trains_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("runs") / "trains"
    return out, run_experiment(config(TRAINS), out)


@pytest.fixture(scope="module")
def uwcse_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("runs") / "local"
    return out, run_experiment(config(UWCSE), out)


def test_uwcse_run_directory_holds_config_units_models_report_plots(
    uwcse_run: tuple[Path, dict[str, Any]],
) -> None:
    out, results = uwcse_run
    assert results["n_units"] == 5
    for name in ("config.toml", "results.json", "report.md"):
        assert (out / name).is_file()
    assert sorted(unit_files(out)) == [f"r0-f{k}.json" for k in range(5)]
    assert len(list((out / "models").glob("*.json"))) == 5
    assert (out / "plots" / "pr_curves.png").stat().st_size > 1000
    assert (out / "plots" / "learning_curves.svg").is_file()
    report = (out / "report.md").read_text()
    assert "| aurpc |" in report and "r0-f4" in report
    for unit in results["units"]:
        assert 0.0 <= unit["metrics"]["aurpc"] <= 1.0
        assert [p["clauses"] for p in unit["curve"]] == [20.0, 200.0, 2000.0]
    # the saved config reruns the same experiment
    assert RunDirectory(out).config().settings == UWCSE["settings"]


def test_processes_executor_gives_identical_results(
    trains_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    _, results = trains_run
    cfg = config(TRAINS, executor={"name": "processes", "options": {"workers": 2}})
    other = run_experiment(cfg, tmp_path / "processes")
    assert comparable(other) == comparable(results)


def test_dask_local_cluster_gives_identical_results(
    trains_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    pytest.importorskip("distributed")
    _, results = trains_run
    cfg = config(TRAINS, executor={"name": "dask", "options": {"workers": 2}})
    other = run_experiment(cfg, tmp_path / "dask")
    assert comparable(other) == comparable(results)


class InterruptAfter:
    """An executor that runs ``n`` units, then behaves as if the user pressed Ctrl-C."""

    def __init__(self, n: int) -> None:
        self.n = n

    def map(self, fn: Callable[[Any], Any], units: Iterable[Any]) -> Iterator[Any]:
        for i, unit in enumerate(units):
            if i == self.n:
                raise KeyboardInterrupt
            yield fn(unit)

    def close(self) -> None:
        pass


def test_interrupt_keeps_finished_units_and_resume_completes(
    trains_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    _, results = trains_run
    target = tmp_path / "interrupted"
    with pytest.raises(Interrupted, match="2 of 5 units are saved"):
        run_experiment(config(TRAINS), target, executor=InterruptAfter(2))
    assert sorted(unit_files(target)) == ["r0-f0.json", "r0-f1.json"]
    assert not (target / "results.json").exists()
    # starting again without --resume is refused; resuming through the CLI finishes the rest
    with pytest.raises(ConfigError, match="pass --resume"):
        run_experiment(config(TRAINS), target)
    result = runner.invoke(app, ["cv", "--resume", str(target), "--quiet"])
    assert result.exit_code == 0, result.output
    resumed = json.loads((target / "results.json").read_text())
    assert comparable(resumed) == comparable(results)


def test_resume_with_another_configuration_is_refused(
    trains_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    target = tmp_path / "r"
    with pytest.raises(Interrupted):
        run_experiment(config(TRAINS), target, executor=InterruptAfter(1))
    changed = config(TRAINS, seed=7)
    with pytest.raises(ConfigError, match=r"differs from the run's config\.toml"):
        run_experiment(changed, target, resume=True)


def test_report_compares_runs_with_a_paired_t_test(
    trains_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    out, _ = trains_run
    other = tmp_path / "other"
    run_experiment(config(TRAINS, settings={**TRAINS["settings"], "nodes": 5}), other)
    table = compare_runs([RunDirectory(out), RunDirectory(other)])
    assert table.count("\n") == 3  # header, rule, two runs
    last = table.splitlines()[-1]
    assert "(5 units)" in last or "identical on 5 units" in last
    result = runner.invoke(app, ["report", str(out), str(other)])
    assert result.exit_code == 0, result.output
    assert "t-test on aurpc vs first" in result.output


def test_cli_cv_on_trains_writes_a_run(tmp_path: Path) -> None:
    out = tmp_path / "cv"
    args = ["cv", "trains", "--folds", "5", "--set", "nodes=30", "--quiet", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert results["n_units"] == 5
    assert sum(u["n_test"] for u in results["units"]) == 10


def test_cli_errors_are_messages_not_tracebacks(tmp_path: Path) -> None:
    result = runner.invoke(app, ["cv", "trains", "--folds", "5"])
    assert result.exit_code == 2
    assert "--out RUN_DIR" in result.output
    result = runner.invoke(app, ["cv", "trains", "--folds", "1", "--out", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert "cv.folds" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(app, ["cv", "--resume", str(tmp_path / "nothing")])
    assert result.exit_code == 2
    assert "not a run directory" in result.output


def test_run_command_reads_a_toml_config(tmp_path: Path) -> None:
    (tmp_path / "exp.toml").write_text(
        'seed = 1\noutput = "out"\nsearch = "topdown"\nscorer = "laplace"\n'
        '[data]\npath = "trains"\n[settings]\nnodes = 30\n[cv]\nfolds = 5\n'
    )
    result = runner.invoke(app, ["run", str(tmp_path / "exp.toml"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "results.json").is_file()


def test_help_lists_every_plugin_option_with_default_and_doc() -> None:
    result = runner.invoke(app, ["cv", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "learner theory: max_rules (default None) Keep at most this many rules" in text
    assert "executor processes: workers (default None)" in text
    assert "scorer mestimate: m (default 2.0)" in text


def test_report_plots_every_runs_mean_learning_curve(
    trains_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    out, _ = trains_run
    curved = tmp_path / "curved"
    run_experiment(config(TRAINS, cv={"folds": 5, "curve": [5, 50]}), curved)
    target = tmp_path / "curves.svg"
    result = runner.invoke(app, ["report", str(out), str(curved), "--plot", str(target)])
    assert result.exit_code == 0, result.output
    svg = target.read_text()
    assert "<svg" in svg and "curved" in svg  # the run with a curve is in the legend
