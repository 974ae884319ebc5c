"""A seeded R4F (and static-rf) run grows the same forest on the native and swi backends:
rules come from saturation and coverage only, which every backend answers alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.test_swi_backend import ROOT, bridge_available, bridge_env

BACKENDS = {
    "native": ["--backend", "native"],
    "swi": ["--backend", "swi", "--set", "backend.bridge=pyswip"],
}
SMALL = ["--set", "learner.predicates=atm,bond", "--set", "learner.clauselength=4",
         "--set", "i=2", "--seed", "5"]  # fmt: skip
EIGHT_TREES = ["--set", "learner.trees=8"]
LEARNERS = {
    "r4f": ["--learner", "r4f", *EIGHT_TREES, "--set", "learner.mrc=5"],
    "static-rf": ["--learner", "static-rf", *EIGHT_TREES, "--set", "learner.rules=40"],
}


def learn(backend: str, learner: str, out: Path) -> dict[str, Any]:
    command = [sys.executable, "-m", "ilpkit", "learn", "mutagenesis", "-q", "-o", str(out),
               *LEARNERS[learner], *SMALL, *BACKENDS[backend]]  # fmt: skip
    proc = subprocess.run(
        command, capture_output=True, text=True, cwd=ROOT, env=bridge_env("pyswip"), timeout=900
    )
    assert proc.returncode == 0, f"{backend}: {proc.stderr[-3000:]}"
    model: dict[str, Any] = json.loads(out.read_text())
    info = model.pop("info")
    model["rules_generated"] = info["rules_generated"]
    return model


@pytest.mark.parametrize("learner", list(LEARNERS))
def test_same_forest_on_native_and_swi(learner: str, tmp_path: Path) -> None:
    bridge_available("pyswip")
    native = learn("native", learner, tmp_path / "native.json")
    swi = learn("swi", learner, tmp_path / "swi.json")
    assert native["trees"] and native["tests"], "an empty forest is a weak comparison"
    assert swi == native
