"""single-theory's ``theory_cache``: eight weighting schemes learn one theory (issue 31), and
the cache module GleanerSRL's ``stage1_cache`` shares (ilpkit.core.fit_cache)."""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ilpkit
from ilpkit.core.fit_cache import CACHE_FORMAT, _write, cached_fit, data_digest
from ilpkit.core.learner import LearnContext
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.task import Task
from ilpkit.plugins.learners import single_theory
from ilpkit.plugins.learners.single_theory import (
    SingleTheoryLearner,
    SingleTheoryModel,
    SingleTheoryOptions,
)

SCHEMES = ["precision", "count", "recall", "f1", "ranked", "lfpr", "cn2", "vote"]


@pytest.fixture(scope="module")
def trains() -> tuple[Task, Any]:
    task = ilpkit.load_task("trains")
    backend = get_plugin_manager().make("backend", "native", {})
    backend.load(task)
    return task, backend


def context(task: Task, backend: Any, seed: int = 0, settings: Any = None) -> LearnContext:
    # Trains: ids 0-4 positive; the split of test_single_theory.py
    manager = get_plugin_manager()
    return LearnContext(
        backend=backend,
        make_search=lambda: manager.make("search", "topdown", {}),
        scorer=manager.make("scorer", "laplace", {}),
        settings=task.bias.settings if settings is None else settings,
        seed=seed,
        train_ids=np.array([3, 4, 7, 8, 9], dtype=np.int64),
        tune_ids=np.array([0, 1, 2, 5, 6], dtype=np.int64),
    )


def fit(
    task: Task, backend: Any, seed: int = 0, settings: Any = None, **options: Any
) -> SingleTheoryModel:
    opts = SingleTheoryOptions(**{"min_tune_pos": 1, **options})
    model = SingleTheoryLearner(opts).fit(task, context(task, backend, seed, settings))
    assert isinstance(model, SingleTheoryModel)
    return model


def learns_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any) -> Any:
        raise AssertionError("the theory was learnt again")

    monkeypatch.setattr(single_theory.TheoryLearner, "fit", refuse)


def test_other_schemes_read_the_theory_and_score_as_uncached_runs(
    trains: tuple[Task, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task, backend = trains
    cache = str(tmp_path / "theories")
    uncached = {s: fit(task, backend, scheme=s) for s in SCHEMES}
    first = fit(task, backend, scheme="precision", theory_cache=cache)
    assert first.info["theory_cache"]["hit"] is False
    assert len(first.theory.clauses()) > 0
    learns_nothing(monkeypatch)
    for scheme in SCHEMES:
        model = fit(task, backend, scheme=scheme, theory_cache=cache)
        assert model.info["theory_cache"] == {"file": first.info["theory_cache"]["file"],
                                              "hit": True}  # fmt: skip
        plain = uncached[scheme]
        assert model.clauses_evaluated == plain.clauses_evaluated  # the theory's own cost
        assert [r.to_json() for r in model.rules()] == [r.to_json() for r in plain.rules()]
        assert np.array_equal(model.score(backend), plain.score(backend)), scheme
        assert np.array_equal(model.predict(backend), plain.predict(backend)), scheme
        info = {k: v for k, v in model.info.items() if k != "theory_cache"}
        assert info == plain.info
        again = SingleTheoryModel.from_json(json.loads(json.dumps(model.to_json())))
        assert again.to_json() == model.to_json()
    assert [p.name for p in (tmp_path / "theories").iterdir()] == [
        Path(first.info["theory_cache"]["file"]).name
    ]  # one theory, no temporary file left


def test_weighting_options_hit_and_theory_options_miss(
    trains: tuple[Task, Any], tmp_path: Path
) -> None:
    task, backend = trains
    cache = str(tmp_path)

    def file(seed: int = 0, settings: Any = None, **options: Any) -> tuple[str, bool]:
        model = fit(task, backend, seed, settings, theory_cache=cache, **options)
        entry = model.info["theory_cache"]
        return entry["file"], entry["hit"]

    base, hit = file()
    assert not hit
    for weighting in ({"scheme": "cn2"}, {"m": 0.5}, {"m_estimate": "prior"}):
        assert file(**weighting) == (base, True), weighting
    settings = copy.deepcopy(task.bias.settings)
    settings.set_value("nodes", 50)
    changed = [file(seed=1), file(max_rules=1), file(min_tune_pos=0), file(settings=settings)]
    assert all(not hit for _, hit in changed)
    assert len({base, *(f for f, _ in changed)}) == 1 + len(changed)
    assert file() == (base, True)


def test_data_digest_sees_labels_weights_and_background(trains: tuple[Task, Any]) -> None:
    task = ilpkit.load_task("trains")
    base = data_digest(task)
    assert data_digest(ilpkit.load_task("trains")) == base
    task.examples.labels[0] = -task.examples.labels[0]  # a PU labeling flips labels
    assert data_digest(task) != base
    task = ilpkit.load_task("trains")
    task.examples.weights[0] = 2.0
    assert data_digest(task) != base
    task = ilpkit.load_task("trains")
    pred = sorted(task.program.facts)[0]
    task.program.facts[pred] = task.program.facts[pred][1:]
    assert data_digest(task) != base


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"cache_format": 1, "stem": "theory", "key"', "unreadable"),  # half a file
        ('{"format_version": 1, "learner": "theory", "rules": []}', "not an ilpkit cache"),
        ("foreign", "stored for another key"),
        ("undecodable", "does not decode"),
    ],
)
def test_a_corrupt_or_foreign_file_is_ignored_relearnt_and_replaced(
    trains: tuple[Task, Any],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    content: str,
    why: str,
) -> None:
    task, backend = trains
    good = fit(task, backend, theory_cache=str(tmp_path))
    path = Path(good.info["theory_cache"]["file"])
    stored = json.loads(path.read_text())
    if content == "foreign":  # another split's theory copied under this name
        content = json.dumps({**stored, "key": {**stored["key"], "seed": 7}})
    elif content == "undecodable":
        content = json.dumps({**stored, "value": {"rules": [{"clause": "p(:-"}]}})
    path.write_text(content)
    with caplog.at_level(logging.WARNING, logger="ilpkit.core.fit_cache"):
        model = fit(task, backend, scheme="cn2", theory_cache=str(tmp_path))
    entry = model.info["theory_cache"]
    assert entry["hit"] is False and why in entry["replaced"], entry
    assert why in caplog.text and str(path) in caplog.text
    assert [r.to_json() for r in model.theory.rules()] == [r.to_json() for r in good.theory.rules()]
    assert json.loads(path.read_text()) == stored  # replaced by a good file
    assert fit(task, backend, theory_cache=str(tmp_path)).info["theory_cache"]["hit"] is True


def test_a_failed_write_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "theory-x.json"
    _write(path, "theory", {"k": 1}, {"v": 1})
    before = path.read_text()

    def crash(*_: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("ilpkit.core.fit_cache.os.replace", crash)
    with pytest.raises(OSError, match="disk full"):
        _write(path, "theory", {"k": 1}, {"v": 2})
    assert path.read_text() == before  # a reader sees the old whole file, never half a new one
    assert [p.name for p in tmp_path.iterdir()] == ["theory-x.json"]
    assert json.loads(before)["cache_format"] == CACHE_FORMAT


def test_cached_fit_learns_once(tmp_path: Path) -> None:
    calls: list[int] = []

    def learn() -> dict[str, int]:
        calls.append(1)
        return {"n": len(calls)}

    one = cached_fit(tmp_path, "step", {"a": 1}, learn, dict, dict)
    two = cached_fit(tmp_path, "step", {"a": 1}, learn, dict, dict)
    three = cached_fit(tmp_path, "step", {"a": 2}, learn, dict, dict)
    assert (one.hit, two.hit, three.hit) == (False, True, False)
    assert one.value == two.value == {"n": 1} and three.value == {"n": 2}
    assert one.path == two.path != three.path


@pytest.mark.heavy
def test_cv_schemes_on_worker_processes_share_one_theory_per_fold(tmp_path: Path) -> None:
    """What reproduce.sh does: one cv per scheme, folds on a processes executor, one cache."""

    def cv(scheme: str, cache: bool) -> Path:
        out = tmp_path / f"{scheme}-{'cached' if cache else 'plain'}"
        options: dict[str, Any] = {"scheme": scheme, "max_rules": 4}
        if cache:
            options["theory_cache"] = str(tmp_path / "theories")
        ilpkit.cv("uwcse", learner="single-theory", executor="processes",
                  settings={"i": 2, "nodes": 100, "clauselength": 3, "minpos": 2},
                  options={"learner": options, "executor": {"workers": 2}},
                  tune_folds=1, out=out)  # fmt: skip
        return out

    def models(out: Path) -> dict[str, dict[str, Any]]:
        return {p.stem: json.loads(p.read_text()) for p in sorted((out / "models").glob("*.json"))}

    first = models(cv("ranked", True))
    second = models(cv("cn2", True))
    plain = models(cv("cn2", False))
    assert len(first) == 5 and sorted(second) == sorted(plain) == sorted(first)
    assert len(list((tmp_path / "theories").iterdir())) == 5  # one theory per fold
    for unit, model in second.items():
        assert first[unit]["info"]["theory_cache"]["hit"] is False
        assert model["info"]["theory_cache"]["hit"] is True
        assert model["rules"] == plain[unit]["rules"] and model["theory"] == plain[unit]["theory"]
