"""Gleaner: bins, per-seed bests, stage-2 choices, hull, executors, round trip, curves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ilpkit
from ilpkit.core.learner import LearnContext
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.search import Evaluated
from ilpkit.experiment.compose import run_member_job
from ilpkit.experiment.config import RunConfig
from ilpkit.plugins.learners.gleaner import (
    Choice,
    GleanerLearner,
    GleanerModel,
    GleanerOptions,
    candidate_theories,
    choose_per_bin,
    recall_bin,
    upper_hull,
)


def test_recall_bins_at_the_edges() -> None:
    assert recall_bin(0.0, 20) == 0
    assert recall_bin(0.0499, 20) == 0
    assert recall_bin(0.05, 20) == 1  # a bin's lower edge belongs to it
    assert recall_bin(1 / 20, 20) == 1
    assert recall_bin(0.57, 100) == 57  # 0.57 * 100 = 56.99999999999999 in floating point
    assert recall_bin(0.9999, 20) == 19
    assert recall_bin(1.0, 20) == 19  # recall 1 goes in the last bin


# A hand-built tune set: 6 examples, the first 3 positive (P = 3, N = 3), and how many clauses
# of each bin match each example.
POSITIVE = np.array([True, True, True, False, False, False])
MATCHES = {
    0: np.array([2, 1, 0, 1, 0, 0]),  # L=1: TP 2 FP 1 (P 2/3, R 2/3); L=2: TP 1 FP 0 (1, 1/3)
    1: np.array([1, 1, 0, 0, 0, 0]),  # L=1: TP 2 FP 0 (precision 1, recall 2/3)
    3: np.array([1, 1, 1, 1, 1, 0]),  # L=1: TP 3 FP 2 (precision 3/5, recall 1)
}


def test_candidate_theories_count_at_least_l_of_k() -> None:
    got = {(c.bin, c.threshold): (c.tp, c.fp) for c in candidate_theories(MATCHES, POSITIVE)}
    assert got == {(0, 1): (2, 1), (0, 2): (1, 0), (1, 1): (2, 0), (3, 1): (3, 2)}


def test_each_target_bin_gets_the_best_tune_precision_within_it() -> None:
    # 4 bins of width 1/4: recall 1/3 -> bin 1, 2/3 -> bin 2, 1 -> bin 3.
    # Target bin 2 has two candidates at recall 2/3: (0, L=1) at precision 2/3 and (1, L=1) at
    # precision 1; the second wins.
    chosen = choose_per_bin(candidate_theories(MATCHES, POSITIVE), bins=4)
    assert {j: (c.bin, c.threshold) for j, c in chosen.items()} == {
        1: (0, 2),
        2: (1, 1),
        3: (3, 1),
    }


def test_hull_keeps_the_upper_convex_hull_of_tune_points() -> None:
    # Points (recall, precision): (1/3, 1), (2/3, 1), (2/3, 2/3), (1, 3/5). (2/3, 2/3) lies
    # below the hull; (1/3, 1) is dominated by (2/3, 1) (same precision, more recall).
    hull = upper_hull(candidate_theories(MATCHES, POSITIVE))
    assert [(c.bin, c.threshold) for c in hull] == [(1, 1), (3, 1)]


def test_choice_precision_and_recall() -> None:
    c = Choice(bin=2, threshold=3, tp=4.0, fp=1.0, p=10.0)
    assert (c.precision, c.recall) == (0.8, 0.4)


def fit(task_name: str, ctx_extra: dict[str, object] | None = None, **options: object):  # type: ignore[no-untyped-def]
    task = ilpkit.load_task(task_name)
    task.bias.settings.set_value("i", 2)
    manager = get_plugin_manager()
    backend = manager.make("backend", "native", {})
    backend.load(task)
    seen: list[Evaluated] = []
    ctx = LearnContext(
        backend=backend,
        make_search=lambda: manager.make("search", "rrr", {"rrr_cutoff": 50}),
        scorer=manager.make("scorer", "pr", {}),
        settings=task.bias.settings,
        seed=3,
        observers=[seen.append],
        **(ctx_extra or {}),  # type: ignore[arg-type]
    )
    model = GleanerLearner(GleanerOptions(**options)).fit(task, ctx)  # type: ignore[arg-type]
    return task, backend, model, seen


def test_each_bin_keeps_the_best_precision_times_recall_of_its_seed() -> None:
    _, _, model, seen = fit("uwcse", seeds=2, clauses_per_seed=150, clauselength=4,
                               min_tune_pos=0)  # fmt: skip
    # the observer saw seed 0's 150 clauses, then seed 1's 150
    assert len(seen) == 300 and model.clauses_evaluated == 300
    for k, seed in enumerate(model.seeds):
        stream = seen[150 * k : 150 * (k + 1)]
        best: dict[int, float] = {}
        for e in stream:
            if e.counts.tp > 0:
                b = recall_bin(e.counts.recall, 20)
                best[b] = max(best.get(b, 0.0), e.counts.precision * e.counts.recall)
        kept = {b: h[-1].score for b, h in seed.history.items()}
        assert kept == pytest.approx(best)


def test_min_tune_pos_filters_kept_clauses() -> None:
    task, backend, model, _ = fit("uwcse", seeds=2, clauses_per_seed=100, clauselength=4,
                                  min_tune_pos=5)  # fmt: skip
    from ilpkit.core.coverage import Coverage

    tune = np.asarray(model.tune_ids)
    tune_pos = tune[task.examples.labels[tune] == 1]
    among = Coverage(tune_pos, len(task.examples))
    for clauses in model.bin_clauses().values():
        for clause in clauses:
            assert len(backend.coverage(clause, among)) >= 5


def test_model_round_trip_and_learning_curve_snapshots() -> None:
    _, backend, model, _ = fit("uwcse", seeds=3, clauses_per_seed=120, clauselength=4)
    again = GleanerModel.from_json(json.loads(json.dumps(model.to_json())))
    assert again.to_json() == model.to_json()
    assert np.array_equal(again.score(backend), model.score(backend))
    # a snapshot at 3 * 40 clauses keeps, per seed and bin, the best of the first 40 clauses
    snap = model.at_budget(120)
    assert snap.clauses_evaluated == 120
    for seed in model.seeds:
        for b, text in seed.best(40).items():
            assert all(k.number <= 40 for k in seed.history[b] if k.clause == text)
    assert len(snap.score(backend)) == backend.n_examples  # stage 2 runs lazily
    whole = model.at_budget(10**9)
    whole.score(backend)
    assert whole.to_json()["choices"] == model.to_json()["choices"]


def test_same_model_with_seeds_on_worker_processes() -> None:
    local = fit("trains", seeds=4, clauses_per_seed=60, min_tune_pos=1)[2]
    recipe = RunConfig.model_validate(
        {
            "data": {"path": "trains"},
            "search": {"name": "rrr", "options": {"rrr_cutoff": 50}},
            "scorer": "pr",
            "settings": {"i": 2},
        }
    )
    executor = get_plugin_manager().make("executor", "processes", {"workers": 2})
    try:
        shipped = {"executor": executor, "recipe": recipe, "member_runner": run_member_job}
        remote = fit("trains", shipped, seeds=4, clauses_per_seed=60, min_tune_pos=1)[2]
    finally:
        executor.close()
    a, b = local.to_json(), remote.to_json()
    assert a["seeds"] == b["seeds"] and a["choices"] == b["choices"]
    assert a["choices"], "Gleaner kept no theory on trains"


def test_gleaner_cv_on_uwcse_reports_point_aurpc(tmp_path: object) -> None:
    from pathlib import Path

    results = ilpkit.cv(
        "uwcse",
        learner="gleaner",
        search="rrr",
        scorer="pr",
        settings={"i": 2},
        options={"learner": {"seeds": 3, "clauses_per_seed": 100, "clauselength": 4}},
        tune_folds=1,
        curve=[30, 300],
        out=Path(str(tmp_path)) / "g",
    )
    assert results["n_units"] == 5
    summary = results["summary"]
    assert 0.0 < summary["aurpc_points"]["mean"] <= 1.0
    assert 0.0 < summary["aurpc"]["mean"] <= 1.0
    assert all(len(u["curve"]) == 2 for u in results["units"])


def test_cli_learn_gleaner_with_a_processes_executor_matches_in_process(tmp_path: object) -> None:
    from pathlib import Path

    from typer.testing import CliRunner

    from ilpkit.cli.main import app

    out = Path(str(tmp_path))
    args = ["learn", "trains", "--learner", "gleaner", "--set", "learner.seeds=3",
            "--set", "learner.clauses_per_seed=40", "--quiet"]  # fmt: skip
    runner = CliRunner()
    local = runner.invoke(app, [*args, "--out", str(out / "a.json")])
    assert local.exit_code == 0, local.output
    remote = runner.invoke(
        app, [*args, "--executor", "processes", "--set", "executor.workers=2",
              "--out", str(out / "b.json")],
    )  # fmt: skip
    assert remote.exit_code == 0, remote.output
    a = json.loads((out / "a.json").read_text())
    b = json.loads((out / "b.json").read_text())
    assert a["seeds"] == b["seeds"] and a["choices"] == b["choices"]
    assert a["info"]["search"] == "rrr" and a["info"]["scorer"] == "pr"  # Gleaner's defaults


class RecordingExecutor:
    """Runs units here and records which unit functions it was given."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def map(self, fn: Any, units: Any) -> Any:
        for unit in units:
            # a shipped member (MemberJob) is recorded by the learner's own function
            self.calls.append(getattr(unit, "run", fn).__name__)
            yield fn(unit)

    def close(self) -> None:
        pass


def gleaner_cv_config(**cv: Any) -> RunConfig:
    return RunConfig.model_validate(
        {
            "data": {"path": "uwcse"},
            "learner": {
                "name": "gleaner",
                "options": {"seeds": 3, "clauses_per_seed": 40, "clauselength": 4},
            },
            "search": {"name": "rrr", "options": {"rrr_cutoff": 50}},
            "scorer": "pr",
            "settings": {"i": 2},
            "cv": {"tune_folds": 1, "curve": [30], **cv},
        }
    )


def without_times(results: dict[str, Any]) -> dict[str, Any]:
    data = json.loads(json.dumps(results))
    for unit in data["units"]:
        unit.pop("seconds")
    return data


def test_cv_ships_gleaner_seeds_not_folds_to_the_executor(tmp_path: Path) -> None:
    from ilpkit.experiment.runs import run_experiment

    base = run_experiment(gleaner_cv_config(), tmp_path / "local")
    auto = RecordingExecutor()
    members = run_experiment(gleaner_cv_config(), tmp_path / "members", executor=auto)
    # 5 folds run here one after another; each sends its 3 seeds to the executor
    assert auto.calls == ["run_seed_unit"] * 15
    assert without_times(members) == without_times(base)
    folds = RecordingExecutor()
    by_fold = run_experiment(
        gleaner_cv_config(parallel="folds"), tmp_path / "folds", executor=folds
    )
    assert folds.calls == ["run_unit"] * 5
    assert without_times(by_fold) == without_times(base)


def test_cv_reports_each_seed_of_the_units_running_here(tmp_path: Path) -> None:
    from ilpkit.experiment.runs import run_experiment

    steps: list[tuple[str, int, int, str]] = []
    run_experiment(
        gleaner_cv_config(),
        tmp_path / "steps",
        executor=RecordingExecutor(),
        on_step=lambda *step: steps.append(step),
    )
    assert steps == [(f"r0-f{fold}", k, 3, "seeds") for fold in range(5) for k in (1, 2, 3)]


def test_cv_with_seeds_on_worker_processes_matches_local(tmp_path: Path) -> None:
    base = ilpkit.cv("trains", out=tmp_path / "a", learner="gleaner", search="rrr", scorer="pr",
                     options={"learner": {"seeds": 3, "clauses_per_seed": 40}}, folds=5,
                     tune_folds=1)  # fmt: skip
    remote = ilpkit.cv("trains", out=tmp_path / "b", learner="gleaner", search="rrr",
                       scorer="pr", executor="processes", parallel="members",
                       options={"learner": {"seeds": 3, "clauses_per_seed": 40},
                                "executor": {"workers": 2}}, folds=5,
                       tune_folds=1)  # fmt: skip
    assert without_times(remote) == without_times(base)


def test_seed_examples_are_distinct_positives() -> None:
    import random

    from ilpkit.plugins.learners.gleaner import seed_examples

    positives = np.array([3, 8, 11, 20, 42], dtype=np.int64)
    five = seed_examples(positives, random.Random(1), 5)
    assert sorted(five) == [3, 8, 11, 20, 42]  # no repeat while positives remain
    twelve = seed_examples(positives, random.Random(1), 12)
    assert twelve[:5] == five  # a prefix does not depend on how many are asked for
    assert sorted(twelve[5:10]) == [3, 8, 11, 20, 42]  # then a fresh round of all five
    # Drawn with replacement, 5 seeds from 5 positives repeat one with prob 1 - 5!/5^5 = 0.96:
    # over 20 generators, with-replacement draws would almost surely repeat somewhere.
    for g in range(20):
        assert len(set(seed_examples(positives, random.Random(g), 5))) == 5


def test_gleaner_seeds_saturate_distinct_training_positives() -> None:
    task, _, model, _ = fit("trains", seeds=5, clauses_per_seed=5, clauselength=3, min_tune_pos=0)
    used = [s.seed_example for s in model.seeds]
    assert len(set(used)) == 5
    assert all(task.examples.labels[i] == 1 for i in used)
