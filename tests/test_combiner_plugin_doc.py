"""The third-party combiner of docs/plugins.md ("A combiner") works as the page says: taken
from the page as it stands, it passes the combiner contract suite and, installed as a
package (a module and its entry point), is listed by ``ilpkit plugins`` and combines a
Gleaner pool from ``ilpkit learn`` and ``ilpkit cv``."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from ilpkit.contracts import CHECKS
from ilpkit.core.plugins import PluginManager
from ilpkit.testing import plugin_checks

PAGE = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
MARK = "# my_combiner.py"


def page_code() -> str:
    """The page's combiner module: the ```python block starting with ``# my_combiner.py``."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
    (code,) = [str(b) for b in blocks if b.startswith(MARK)]
    return code


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    path = tmp_path_factory.mktemp("pkg") / "my_combiner.py"
    path.write_text(page_code(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("my_combiner", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def registry(module: ModuleType) -> PluginManager:
    manager = PluginManager(entry_points=False)
    manager.register(module, source="my-combiner")
    return manager


def test_listed_with_its_options(registry: PluginManager) -> None:
    spec = registry.get("combiner", "noisy-or")
    assert spec.source == "my-combiner"
    options = registry.validate_options("combiner", "noisy-or", {"threshold": 0.7})
    assert options.model_dump() == {"threshold": 0.7}


@pytest.mark.parametrize("check", sorted(CHECKS["combiner"]))
def test_passes_the_combiner_contract(check: str, registry: PluginManager) -> None:
    (found,) = [c for c in plugin_checks("combiner", "noisy-or", registry) if c.name == check]
    found.run()


def test_noisy_or_arithmetic(registry: PluginManager) -> None:
    from ilpkit.core.combiner import ClausePool
    from ilpkit.prolog.terms import Clause
    from tests.reference_prover import term

    m = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=bool)
    pool = ClausePool(
        clauses=[Clause.from_term(term(f"t(A) :- c{i}(A)")) for i in range(2)],
        groups=np.array([0, 1]),
        group_kind="seed",
        fit_ids=np.arange(4),
        fit_labels=np.array([True, True, False, False]),
        fit_matrix=m,
    )
    fitted = registry.make("combiner", "noisy-or", {}).fit(pool)
    # c0 covers both positives: (2 + 1) / (2 + 0 + 2) = 3/4; c1 one of each: 2/4
    assert np.allclose(fitted.clause_weights(), [3 / 4, 1 / 2])
    assert np.allclose(fitted.score(m), [1 - 1 / 4 * 1 / 2, 3 / 4, 1 / 2, 0.0])
    assert fitted.predict(m).tolist() == [True, True, True, False]


@pytest.mark.heavy  # from the quick suite (3-6 s): keeps the README's test command under 5 minutes
def test_installed_it_combines_a_pool_from_the_command_line(
    module: ModuleType, tmp_path: Path
) -> None:
    """A package in its simplest installed form: the module and a dist-info naming its entry
    point in the ``ilpkit.plugins`` group (what pip writes from the page's pyproject.toml)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "my_combiner.py").write_text(page_code(), encoding="utf-8")
    info = site / "my_combiner-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-combiner\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ilpkit.plugins]\nnoisy_or = my_combiner\n")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
    }
    env.pop("ILPKIT_DISABLE_PLUGIN_AUTOLOAD", None)

    def ilpkit(*args: str) -> str:
        proc = subprocess.run(
            [sys.executable, "-m", "ilpkit", *args],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    listing = json.loads(ilpkit("plugins", "--json"))
    (entry,) = [p for p in listing["combiner"] if p["name"] == "noisy-or"]
    assert entry["source"] == "my-combiner"
    small = ["--learner", "gleaner", "--combiner", "noisy-or", "--set", "combiner.threshold=0.6",
             "--set", "learner.seeds=3", "--set", "learner.clauses_per_seed=40"]  # fmt: skip
    ilpkit("learn", "trains", *small, "-q", "--out", "model.json")
    model = json.loads((tmp_path / "model.json").read_text())
    assert model["combiner"] == "noisy-or" and model["combination"]["threshold"] == 0.6
    assert len(model["rules"]) == len(model["combination"]["precision"])
    ilpkit("explain", "model.json")
    ilpkit("cv", "trains", *small, "--folds", "2", "-q", "--out", "run")
    summary = json.loads((tmp_path / "run" / "results.json").read_text())["summary"]
    assert summary["auroc"]["n"] == 2
