"""One composition for every entry point (ilpkit.experiment.compose): the CLI, the Python API, TOML
run files and the estimator resolve the same choices to the same run and the same model."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import ilpkit
from ilpkit.cli.main import app
from ilpkit.core.plugins import PluginManager
from ilpkit.errors import ConfigError
from ilpkit.experiment.compose import learner_capabilities, resolve, run_config

runner = CliRunner()

# tiny budgets: a few seconds per run on trains
CASES: dict[str, dict[str, Any]] = {
    "theory": {"settings": {"nodes": 30}, "learner": {}},
    "gleaner": {"settings": {"nodes": 30}, "learner": {"seeds": 2, "clauses_per_seed": 30}},
}


def cli(*args: str) -> None:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output


def sets(case: dict[str, Any]) -> list[str]:
    out = []
    for key, value in case["settings"].items():
        out += ["--set", f"{key}={value}"]
    for key, value in case["learner"].items():
        out += ["--set", f"learner.{key}={value}"]
    return out


def without_info(model: dict[str, Any]) -> dict[str, Any]:
    """The model minus ``info``, where ``learn`` records how it was called."""
    return {k: v for k, v in model.items() if k != "info"}


@pytest.mark.parametrize("learner", sorted(CASES))
def test_learn_cli_api_and_estimator_give_the_same_model(learner: str, tmp_path: Path) -> None:
    case = CASES[learner]
    out = tmp_path / "cli.json"
    cli("learn", "trains", "-l", learner, *sets(case), "--seed", "3", "-q", "-o", str(out))
    from_cli = json.loads(out.read_text())
    from_api = ilpkit.learn(
        "trains", learner=learner, settings=case["settings"],
        options={"learner": case["learner"]}, seed=3,
    ).to_json()  # fmt: skip
    est = ilpkit.ILPEstimator(
        learner=learner, settings=case["settings"], learner_options=case["learner"], random_state=3
    ).fit(ilpkit.load_task("trains"))
    from_estimator = est.model_.to_json()
    est.close()
    assert from_cli["rules"], "the run learnt nothing: the comparison would be vacuous"
    assert from_cli == from_api
    assert without_info(from_estimator) == without_info(from_api)
    # the learner's prescribed parts (Gleaner: rrr with pr), else the data's (trains: bf with
    # coverage, Aleph's defaults)
    expected = {"theory": ("bf", "coverage"), "gleaner": ("rrr", "pr")}[learner]
    assert (from_api["info"]["search"], from_api["info"]["scorer"]) == expected


@pytest.mark.parametrize("learner", sorted(CASES))
def test_cv_cli_api_and_toml_give_the_same_models(learner: str, tmp_path: Path) -> None:
    case = CASES[learner]
    cli("cv", "trains", "-l", learner, "--folds", "2", *sets(case), "--seed", "5", "-q",
        "-o", str(tmp_path / "cli"))  # fmt: skip
    ilpkit.cv(
        "trains", learner=learner, folds=2, settings=case["settings"],
        options={"learner": case["learner"]}, seed=5, out=tmp_path / "api",
    )  # fmt: skip
    options = ", ".join(f"{k} = {v}" for k, v in case["learner"].items())
    settings = ", ".join(f"{k} = {v}" for k, v in case["settings"].items())
    toml = tmp_path / "run.toml"
    toml.write_text(
        f'seed = 5\nsettings = {{ {settings} }}\n[data]\npath = "trains"\n'
        f'[learner]\nname = "{learner}"\noptions = {{ {options} }}\n[cv]\nfolds = 2\n',
        encoding="utf-8",
    )
    cli("run", str(toml), "-q", "-o", str(tmp_path / "toml"))
    runs = [tmp_path / name for name in ("cli", "api", "toml")]
    configs = [(run / "config.toml").read_text() for run in runs]
    assert configs[0] == configs[1] == configs[2]
    for key in ("r0-f0", "r0-f1"):
        models = [json.loads((run / "models" / f"{key}.json").read_text()) for run in runs]
        assert models[0] == models[1] == models[2]


def test_prankboost_refuses_a_search_or_scorer_it_would_ignore(tmp_path: Path) -> None:
    result = runner.invoke(app, ["learn", "trains", "-l", "prankboost", "--search", "topdown"])
    assert result.exit_code == 2
    assert "runs its own search (hillclimb) and cannot take search 'topdown'" in result.output
    with pytest.raises(ConfigError, match="cannot take scorer 'laplace'"):
        ilpkit.learn("trains", learner="rankboost", scorer="laplace")
    with pytest.raises(ConfigError, match="takes no search options"):
        ilpkit.learn("trains", learner="prankboost", options={"search": {"x": 1}})
    # naming its own search is fine, and unset search/scorer record what runs
    model = ilpkit.learn(
        "trains", learner="prankboost", search="hillclimb", options={"learner": {"rounds": 1}}
    )
    assert model.to_json()["info"]["weak_search"] == "hillclimb"


def test_resolve_fills_auto_from_the_learner_else_the_data(manager: PluginManager) -> None:
    task = ilpkit.load_task("trains")
    task.bias.settings.set_value("evalfn", "laplace")
    task.bias.settings.set_value("search", "heuristic")
    theory = resolve(run_config("trains"), task, manager=manager)
    assert (theory.search.name, theory.scorer.name) == ("topdown", "laplace")
    gleaner = resolve(run_config("trains", learner="gleaner", scorer="f1"), task, manager=manager)
    assert (gleaner.search.name, gleaner.scorer.name) == ("rrr", "f1")
    with pytest.raises(ConfigError, match="data sets evalfn=user"):
        task.bias.settings.set_value("evalfn", "user")
        resolve(run_config("trains"), task, manager=manager)


def test_the_aleph_learner_asks_its_search_for_alephs_operator(manager: PluginManager) -> None:
    task = ilpkit.load_task("trains")  # trains' own search setting: bf
    auto = resolve(run_config("trains", learner="aleph"), task, manager=manager)
    assert (auto.search.name, dict(auto.search.options)) == ("bf", {"operator": "aleph"})
    named = resolve(run_config("trains", learner="aleph", search="topdown"), task, manager=manager)
    assert dict(named.search.options) == {"operator": "aleph"}
    # the user's choice wins; a search without the option gets none
    own = run_config("trains", learner="aleph", options={"search": {"operator": "sets"}})
    assert dict(resolve(own, task, manager=manager).search.options) == {"operator": "sets"}
    rrr = resolve(run_config("trains", learner="aleph", search="rrr"), task, manager=manager)
    assert dict(rrr.search.options) == {}
    theory = resolve(run_config("trains"), task, manager=manager)
    assert dict(theory.search.options) == {}


def test_capabilities_are_declared_by_every_builtin_learner(manager: PluginManager) -> None:
    for name in manager.names("learner"):
        assert "capabilities" in vars(manager.get("learner", name).factory), name
    assert learner_capabilities("gleaner", manager=manager).has_members
    assert not learner_capabilities("prankboost", manager=manager).takes_search


def test_the_estimator_leaves_the_callers_task_unchanged() -> None:
    task = ilpkit.load_task("trains")
    before = dict(task.bias.settings.explicit)
    est = ilpkit.ILPEstimator(settings={"nodes": 20, "clauselength": 3}).fit(task)
    assert task.bias.settings.explicit == before
    assert est.task_.bias.settings["clauselength"] == 3
    est.close()


def test_core_imports_no_plugin() -> None:
    """core/ is the framework: plugins (ilpkit.plugins, ilpkit.plugins.backends) are found by name
    through the plugin manager, never imported (nor the CLI, API or estimator above it)."""
    core = Path(ilpkit.__file__).parent / "core"
    forbidden = (
        "ilpkit.plugins",
        "ilpkit.plugins.backends",
        "ilpkit.cli",
        "ilpkit.experiment.api",
        "ilpkit.experiment.estimator",
    )
    offenders = []
    for path in sorted(core.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [
                f"{path.name}:{node.lineno}: {n}"
                for n in names
                if any(n == f or n.startswith(f + ".") for f in forbidden)
            ]
    assert offenders == []


def test_builtin_backends_and_executors_declare_the_core_contracts(
    manager: PluginManager,
) -> None:
    from ilpkit.core.backend import BackendProtocol
    from ilpkit.core.executor import runs_in_process

    members = [m for m in vars(BackendProtocol) if not m.startswith("_")]
    assert {"coverage", "coverage_many", "saturate", "load", "close", "n_examples"} <= set(members)
    for name in manager.names("backend"):
        factory = manager.get("backend", name).factory
        missing = [m for m in members if not hasattr(factory, m)]
        assert missing == [], f"backend {name!r} lacks {missing}"
    local = manager.make("executor", "local")
    processes = manager.make("executor", "processes", {"workers": 1})
    try:
        assert runs_in_process(local) and not runs_in_process(processes)
    finally:
        local.close()
        processes.close()


def test_alephs_tree_and_regression_evalfns_are_mapped_or_refused_with_a_reason(
    manager: PluginManager, tmp_path: Path
) -> None:
    # set(evalfn, mse) is legal Aleph (regression trees): it loads, and a clause learner
    # refuses it naming what ilpkit offers; entropy and gini (Aleph's classification trees)
    # run --learner aleph-tree (Aleph's trees) or tilde (its own split heuristic).
    (tmp_path / "x.b").write_text(
        ":- modeh(1, p(+t)).\n:- modeb(1, q(+t)).\n:- determination(p/1, q/1).\n"
        ":- set(evalfn, mse).\nq(a).\n"
    )
    (tmp_path / "x.f").write_text("p(a).\n")
    (tmp_path / "x.n").write_text("p(b).\n")
    task = ilpkit.load_task(str(tmp_path / "x"))
    assert task.bias.settings["evalfn"] == "mse"
    with pytest.raises(ConfigError, match=r"evalfn=mse.*regression.*--scorer"):
        resolve(run_config("x"), task, manager=manager)
    for evalfn in ("entropy", "gini"):
        task.bias.settings.set_value("evalfn", evalfn)
        with pytest.raises(ConfigError, match=rf"evalfn={evalfn}.*--learner aleph-tree"):
            resolve(run_config("x"), task, manager=manager)
        for learner in ("aleph-tree", "tilde"):
            tree = resolve(run_config("x", learner=learner), task, manager=manager)
            assert tree.learner.name == learner
