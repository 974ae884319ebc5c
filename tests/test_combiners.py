"""Combiners: each one's arithmetic on hand-checked pools, their equality with the published
methods they were taken from, and every pool learner composed with every combiner.

Expected numbers below come from the formulas in the modules' docstrings, worked by hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import ilpkit
from ilpkit.cli.main import app
from ilpkit.core.combiner import ClausePool, PoolModel
from ilpkit.core.model_files import load_model, save_model
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.errors import ConfigError
from ilpkit.prolog.terms import Clause
from tests.reference_prover import term

COMBINERS = ["vote", "weighted", "gleaner", "rankboost", "svm", "forest", "logistic"]
POOL_LEARNERS = {
    "gleaner": {"seeds": 3, "clauses_per_seed": 40},
    "aleph-ensemble": {"theories": 2, "min_tune_pos": 1},
    "single-theory": {"min_tune_pos": 1},
    "static-rf": {"rules": 15, "trees": 5},
    "pool": {"seeds": 3, "clauses_per_seed": 40},
}


def clause(i: int) -> Clause:
    return Clause.from_term(term(f"t(A) :- c{i}(A)"))


def pool(matrix: list[list[int]], labels: list[int], groups: list[int]) -> ClausePool:
    m = np.asarray(matrix, dtype=bool)
    return ClausePool(
        clauses=[clause(i) for i in range(m.shape[1])],
        groups=np.asarray(groups, dtype=np.int64),
        group_kind="member",
        fit_ids=np.arange(m.shape[0], dtype=np.int64),
        fit_labels=np.asarray(labels, dtype=bool),
        fit_matrix=m,
    )


def make(name: str, **options: Any) -> Any:
    return get_plugin_manager().make("combiner", name, options)


# rows: pos0, pos1, neg0, neg1; columns: clauses c0, c1, c2
MATRIX = [[1, 1, 0], [1, 0, 0], [1, 0, 1], [0, 0, 0]]
LABELS = [1, 1, 0, 0]


def test_registered() -> None:
    assert sorted(get_plugin_manager().names("combiner")) == sorted(COMBINERS)


def test_vote_counts_members_and_thresholds() -> None:
    p = pool(MATRIX, LABELS, [0, 0, 1])  # member 0: c0, c1; member 1: c2
    fitted = make("vote").fit(p)
    # pos0: member 0 yes, member 1 no -> 1; neg0: both -> 2; neg1: none -> 0
    assert fitted.score(p.fit_matrix).tolist() == [1.0, 1.0, 2.0, 0.0]
    assert fitted.predict(p.fit_matrix).tolist() == [True, True, True, False]  # ceil(2/2) = 1
    at_two = make("vote", rule="at_least", k=2).fit(p)
    assert at_two.predict(p.fit_matrix).tolist() == [False, False, True, False]
    by_clause = make("vote", by="clause").fit(p)
    assert by_clause.score(p.fit_matrix).tolist() == [2.0, 1.0, 2.0, 0.0]
    with pytest.raises(ConfigError, match="k=3 votes but the pool has 2 voters"):
        make("vote", rule="at_least", k=3).fit(p)
    with pytest.raises(ConfigError, match="k is set exactly when rule is at_least"):
        make("vote", k=2)


def test_weighted_ranked_is_the_max_m_estimate() -> None:
    p = pool(MATRIX, LABELS, [0, 0, 0])
    fitted = make("weighted", scheme="ranked", m=2.0).fit(p)
    # c0: TP 2, FP 1 -> (2 + 2) / (3 + 4) = 4/7; c1: TP 1, FP 0 -> 3/5; c2: TP 0, FP 1 -> 2/5
    assert np.allclose(fitted.clause_weights(), [4 / 7, 3 / 5, 2 / 5])
    # pos0 covered by c0, c1 -> max 3/5; pos1: c0 -> 4/7; neg0: c0, c2 -> 4/7; neg1: 0
    assert np.allclose(fitted.score(p.fit_matrix), [3 / 5, 4 / 7, 4 / 7, 0.0])
    cn2 = make("weighted", scheme="cn2").fit(p)
    # pos0: (2 + 1) / (3 + 1) = 3/4; neg0: (2 + 0) / (3 + 1) = 1/2
    assert np.allclose(cn2.score(p.fit_matrix), [3 / 4, 2 / 3, 1 / 2, 0.0])


def test_gleaner_chooses_l_of_k_per_member() -> None:
    # member 0 = {c0, c1} matches pos0 2, pos1 1, neg0 1, neg1 0 of its clauses:
    #   L=1: TP 2, FP 1: recall 1 (bin 3 of 4), precision 2/3, F1 2*2/(2+1+2) = 4/5
    #   L=2: TP 1, FP 0: recall 1/2 (bin 2 of 4), precision 1, F1 2/(1+0+2) = 2/3
    # member 1 = {c2}: L=1: TP 0, FP 1: never chosen (no TP)
    p = pool(MATRIX, LABELS, [0, 0, 1])
    fitted = make("gleaner", bins=4).fit(p)
    assert [(c.bin, c.threshold) for c in fitted.choices] == [(0, 2), (0, 1)]
    assert fitted.ranking == 0
    assert fitted.score(p.fit_matrix).tolist() == [2.0, 1.0, 1.0, 0.0]
    assert fitted.predict(p.fit_matrix).tolist() == [True, True, True, False]  # L=1: best F1
    # two bins: both recalls land in bin 1, where L=2's precision 1 wins
    two = make("gleaner", bins=2).fit(p)
    assert [(c.bin, c.threshold) for c in two.choices] == [(0, 2)]
    assert two.predict(p.fit_matrix).tolist() == [True, False, False, False]


def test_rankboost_two_rounds_by_hand() -> None:
    p = pool([[1, 1], [1, 0], [1, 0], [0, 0]], LABELS, [0, 1])
    fitted = make("rankboost", rounds=2).fit(p)
    # round 1: w = 1/2 each side; r(c0) = 1 - 1/2 = 1/2, r(c1) = 1/2 - 0 = 1/2: c0 (first)
    # alpha = 0.5 ln(1.5 / 0.5) = 0.5 ln 3; negatives become e^a / (e^a + 1), 1 / (e^a + 1)
    # round 2: r(c0) = 1 - e^a / (e^a + 1) = 0.366..., r(c1) = 1/2: c1, alpha 0.5 ln 3 again
    a = 0.5 * math.log(3.0)
    assert np.allclose(fitted.clause_weights(), [a, a])
    assert [int(r[0]) for r in fitted.rounds] == [0, 1]
    assert np.isclose(fitted.rounds[0][1], 0.5) and np.isclose(fitted.rounds[1][1], 0.5)
    assert np.allclose(fitted.score(p.fit_matrix), [2 * a, a, a, 0.0])


def test_rankboost_stops_when_no_clause_helps() -> None:
    p = pool([[0], [0], [1], [1]], LABELS, [0])  # the only clause covers negatives: r = -1
    fitted = make("rankboost", rounds=5).fit(p)
    assert fitted.rounds == [] and fitted.clause_weights().tolist() == [0.0]
    assert not fitted.predict(p.fit_matrix).any()


def test_logistic_and_forest_give_their_library_probabilities() -> None:
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    m = rng.random((60, 4)) < 0.4
    y = (m[:, 0] | (m[:, 1] & m[:, 2])).astype(int)
    p = pool(m.astype(int).tolist(), y.tolist(), [0, 1, 2, 3])
    fitted = make("logistic").fit(p)
    reference = LogisticRegression(C=1.0, max_iter=1000).fit(m.astype(float), y)
    assert np.allclose(fitted.predict_proba(m), reference.predict_proba(m.astype(float))[:, 1])
    forest = make("forest", trees=7).fit(p)
    probabilities = forest.predict_proba(m)
    assert probabilities.min() >= 0 and probabilities.max() <= 1
    assert probabilities[y == 1].mean() > probabilities[y == 0].mean()


def test_svm_calibrates_within_its_floor() -> None:
    rng = np.random.default_rng(1)
    m = rng.random((50, 3)) < 0.5
    y = m[:, 0] & ~m[:, 2]
    p = pool(m.astype(int).tolist(), y.astype(int).tolist(), [0, 1, 2])
    fitted = make("svm", c_grid=[1.0, 0.01]).fit(p)
    probabilities = fitted.predict_proba(m)
    assert probabilities.min() >= fitted.prob_min - 1e-12
    assert probabilities.max() <= 1 - fitted.prob_min + 1e-12
    assert len(fitted.tuning) == 2
    best = min(fitted.tuning, key=lambda t: t["mce"])
    assert best["C"] == fitted.svm.C and fitted.prob_min == best["prob_min"]


@pytest.mark.parametrize("name", COMBINERS)
def test_every_combination_round_trips(name: str) -> None:
    p = pool(MATRIX * 3, LABELS * 3, [0, 0, 1])
    combiner = make(name)
    fitted = combiner.fit(p, seed=3)
    again = combiner.combination_from_json(json.loads(json.dumps(fitted.to_json())))
    assert np.allclose(again.score(p.fit_matrix), fitted.score(p.fit_matrix))
    assert (again.predict(p.fit_matrix) == fitted.predict(p.fit_matrix)).all()
    assert len(fitted.clause_weights()) == 3


# --------------------------------------------------------------------------------------------
# the published methods, rebuilt from their combiners
# --------------------------------------------------------------------------------------------


def scores(model: Any) -> tuple[list[float], list[bool]]:
    from ilpkit.core.formats import load_task
    from ilpkit.datasets import resolve_data_path

    task = load_task(resolve_data_path("trains"))
    backend = get_plugin_manager().make("backend", "native", {})
    backend.load(task)
    return model.score(backend).tolist(), model.predict(backend).tolist()


def test_gleaner_combiner_is_gleaner() -> None:
    opts = {"learner": POOL_LEARNERS["gleaner"]}
    own = ilpkit.learn("trains", learner="gleaner", options=opts)
    combined = ilpkit.learn("trains", learner="gleaner", combiner="gleaner", options=opts)
    assert isinstance(combined, PoolModel)
    assert scores(own) == scores(combined)


def test_vote_combiner_is_the_aleph_ensemble() -> None:
    opts = {"learner": POOL_LEARNERS["aleph-ensemble"]}
    own = ilpkit.learn("trains", learner="aleph-ensemble", options=opts)
    combined = ilpkit.learn("trains", learner="aleph-ensemble", combiner="vote", options=opts)
    assert scores(own) == scores(combined)


@pytest.mark.parametrize("scheme", ["ranked", "lfpr", "cn2", "vote", "count", "f1"])
def test_weighted_combiner_is_the_single_theory_control(scheme: str) -> None:
    learner_opts = {**POOL_LEARNERS["single-theory"], "scheme": scheme}
    own = ilpkit.learn("trains", learner="single-theory", options={"learner": learner_opts})
    combined = ilpkit.learn(
        "trains",
        learner="single-theory",
        combiner="weighted",
        options={"learner": POOL_LEARNERS["single-theory"], "combiner": {"scheme": scheme}},
    )
    assert np.allclose(scores(own)[0], scores(combined)[0])
    assert scores(own)[1] == scores(combined)[1]


# --------------------------------------------------------------------------------------------
# every pool learner with every combiner, from the API, the CLI and TOML
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("learner", sorted(POOL_LEARNERS))
@pytest.mark.parametrize("combiner", COMBINERS)
def test_every_pool_learner_takes_every_combiner(
    learner: str, combiner: str, tmp_path: Path
) -> None:
    out = tmp_path / "model.json"
    model = ilpkit.learn(
        "trains",
        learner=learner,
        combiner=combiner,
        options={"learner": POOL_LEARNERS[learner]},
        out=out,
    )
    assert isinstance(model, PoolModel) and model.combiner == combiner
    got = scores(model)
    assert len(got[0]) == 10 and all(np.isfinite(got[0]))
    assert scores(load_model(out)) == got


@pytest.mark.heavy  # from the quick suite (3-6 s): keeps the README's test command under 5 minutes
def test_cli_api_and_toml_give_one_model(tmp_path: Path) -> None:
    runner = CliRunner()
    cli_out = tmp_path / "cli.json"
    args = ["learn", "trains", "--learner", "gleaner", "--combiner", "svm", "-q"]
    args += ["--set", "learner.seeds=3", "--set", "learner.clauses_per_seed=40"]
    args += ["--set", "combiner.kernel=precision", "--out", str(cli_out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    api = ilpkit.learn(
        "trains",
        learner="gleaner",
        combiner="svm",
        options={"learner": POOL_LEARNERS["gleaner"], "combiner": {"kernel": "precision"}},
    )
    cli = json.loads(cli_out.read_text())
    assert cli["combination"] == json.loads(json.dumps(api.to_json()))["combination"]
    # cv from the CLI and from a TOML run file: the same metrics
    toml = tmp_path / "run.toml"
    toml.write_text(
        '[data]\npath = "trains"\n[learner]\nname = "gleaner"\n'
        "options = { seeds = 3, clauses_per_seed = 40 }\n"
        '[combiner]\nname = "svm"\noptions = { kernel = "precision" }\n[cv]\nfolds = 2\n'
    )
    assert runner.invoke(app, ["run", str(toml), "--out", str(tmp_path / "a")]).exit_code == 0
    cv_args = ["cv", "trains", "--learner", "gleaner", "--combiner", "svm", "--folds", "2"]
    cv_args += ["--set", "learner.seeds=3", "--set", "learner.clauses_per_seed=40"]
    cv_args += ["--set", "combiner.kernel=precision", "--out", str(tmp_path / "b")]
    result = runner.invoke(app, cv_args)
    assert result.exit_code == 0, result.output
    a = json.loads((tmp_path / "a" / "results.json").read_text())
    b = json.loads((tmp_path / "b" / "results.json").read_text())
    assert a["summary"] == b["summary"]


@pytest.mark.parametrize("learner", ["theory", "rankboost", "r4f", "tilde"])
def test_learners_that_combine_their_own_way_refuse_a_combiner(learner: str) -> None:
    result = CliRunner().invoke(
        app, ["learn", "trains", "--learner", learner, "--combiner", "vote"]
    )
    assert result.exit_code == 2
    assert "cannot take combiner 'vote'" in result.output
    assert "pool" in result.output


def test_combiner_options_need_a_combiner() -> None:
    result = CliRunner().invoke(app, ["learn", "trains", "--set", "combiner.rounds=3"])
    assert result.exit_code == 2
    assert "need a combiner" in result.output


def test_pool_learner_defaults_to_vote(tmp_path: Path) -> None:
    model = ilpkit.learn(
        "trains", learner="pool", search="rrr", scorer="laplace",
        options={"learner": POOL_LEARNERS["pool"]},
    )  # fmt: skip
    assert isinstance(model, PoolModel) and model.combiner == "vote"
    save_model(model, tmp_path / "m.json")
    assert scores(load_model(tmp_path / "m.json")) == scores(model)


def test_the_estimator_takes_a_combiner() -> None:
    from ilpkit.core.formats import load_task
    from ilpkit.datasets import resolve_data_path
    from ilpkit.experiment.estimator import ILPEstimator

    task = load_task(resolve_data_path("trains"))
    est = ILPEstimator(
        learner="gleaner",
        learner_options=POOL_LEARNERS["gleaner"],
        combiner="logistic",
        combiner_options={"C": 0.5},
    ).fit(task)
    api = ilpkit.learn(
        "trains",
        learner="gleaner",
        combiner="logistic",
        options={"learner": POOL_LEARNERS["gleaner"], "combiner": {"C": 0.5}},
    )
    assert est.get_params()["combiner"] == "logistic"
    assert np.allclose(est.decision_function(task.examples.ids), scores(api)[0])


@pytest.mark.parametrize("combiner", ["vote", "logistic"])
def test_cross_validation_with_a_combiner(combiner: str, tmp_path: Path) -> None:
    """Scores (vote) are calibrated by the run, probabilities (logistic) are reported as
    they are: both cross-validate."""
    results = ilpkit.cv(
        "trains",
        out=tmp_path / "run",
        learner="pool",
        combiner=combiner,
        folds=2,
        options={"learner": POOL_LEARNERS["pool"]},
    )
    assert results["n_units"] == 2
    assert "aurpc" in results["summary"]


def test_svm_combiner_on_gleaners_pool_is_gleanersrl() -> None:
    opts = POOL_LEARNERS["gleaner"]
    own = ilpkit.learn(
        "trains", learner="gleanersrl", options={"learner": {**opts, "c_grid": [1.0, 0.01]}}
    )
    combined = ilpkit.learn(
        "trains",
        learner="gleaner",
        combiner="svm",
        options={"learner": opts, "combiner": {"c_grid": [1.0, 0.01]}},
    )
    assert np.allclose(scores(own)[0], scores(combined)[0])


def test_pool_models_report_gleaners_points_and_keep_no_body_less_clause(tmp_path: Path) -> None:
    results = ilpkit.cv(
        "trains",
        out=tmp_path / "run",
        learner="aleph-ensemble",
        combiner="gleaner",
        folds=2,
        options={"learner": POOL_LEARNERS["aleph-ensemble"]},
    )
    assert "aurpc_points" in results["summary"]
    model = ilpkit.learn(
        "trains", learner="pool", search="rrr", scorer="laplace",
        options={"learner": POOL_LEARNERS["pool"]},
    )  # fmt: skip
    assert model.clauses and all(c.body for c in model.clauses)
