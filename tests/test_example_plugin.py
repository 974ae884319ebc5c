"""The example third-party plugin package (examples/ilpkit-plugin-example) really installs,
is listed by ``ilpkit plugins``, is usable by name, and its own tests pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "ilpkit-plugin-example"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The package pip-installed into a private folder; the environment that sees it."""
    target = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps",
         "--target", str(target), str(EXAMPLE)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(target), env.get("PYTHONPATH", "")])
    return env


def ilpkit(env: dict[str, str], *args: str, cwd: Path | None = None) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "ilpkit", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_listed_by_ilpkit_plugins(installed: dict[str, str]) -> None:
    listing = json.loads(ilpkit(installed, "plugins", "--json"))
    (gmean,) = [p for p in listing["scorer"] if p["name"] == "gmean"]
    assert gmean["source"] == "ilpkit-gmean"
    assert gmean["options"]["properties"]["min_tp"]["default"] == 1.0


def test_usable_by_name_in_a_learning_run(installed: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "model.json"
    args = ["--scorer", "gmean", "--set", "scorer.min_tp=2", "--set", "nodes=50"]
    ilpkit(installed, "learn", "trains", "--search", "topdown", *args, "--quiet", "--out", str(out))
    model = json.loads(out.read_text())
    assert model["rules"], "the gmean-scored search found no rule on trains"


def test_its_combiner_composes_with_a_pool_learner(
    installed: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "model.json"
    args = ["--learner", "gleaner", "--combiner", "best-clause", "--set", "learner.seeds=2"]
    args += ["--set", "learner.clauses_per_seed=30", "--set", "combiner.min_precision=0.8"]
    ilpkit(installed, "learn", "trains", *args, "--quiet", "--out", str(out))
    model = json.loads(out.read_text())
    assert model["combiner"] == "best-clause"
    assert model["combination"]["min_precision"] == 0.8
    ilpkit(installed, "predict", str(out), "trains", "--out", str(tmp_path / "s.csv"))
    rows = (tmp_path / "s.csv").read_text().splitlines()
    assert len(rows) == 11 and rows[0].startswith("id,example,label")  # 10 trains + header


def test_its_own_tests_pass(installed: dict[str, str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE / "tests")],
        capture_output=True, text=True, env=installed, cwd=EXAMPLE, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "11 passed" in proc.stdout  # gmean, csvex, best-clause (with its 5 contract checks)


def test_its_format_is_detected_and_chosen_by_name(
    installed: dict[str, str], tmp_path: Path
) -> None:
    data = tmp_path / "tiny"
    data.mkdir()
    (data / "background.pl").write_text(
        ":- modeh(1, p(+t)).\n:- modeb(1, q(+t)).\n:- determination(p/1, q/1).\nq(a). q(b).\n",
        encoding="utf-8",
    )
    (data / "examples.csv").write_text("example,label\np(a),1\np(b),1\np(c),0\n")
    summary = json.loads(ilpkit(installed, "data", "check", str(data), "--json"))
    assert summary["format"] == "csvex"
    assert (summary["positives"], summary["negatives"]) == (2, 1)
    chosen = json.loads(ilpkit(installed, "data", "check", str(data), "-f", "csvex", "--json"))
    assert chosen == summary
