"""Every backend gives the same answers: native, swi (janus), swi (pyswip), subprocess (swipl),
subprocess (gprolog).

Coverage is a fact about the data, so all backends must return identical covered sets for the
same clauses, and identical bottom clauses for the same seeds (DESIGN.md, promise 2).  Each
engine runs in a worker process of its own (one libswipl per process; the swi bridges need
different SWI-Prolog libraries), started once for the module: a worker loads each data set
once and answers a whole clause list in batches (``coverage_many``), so the engines work in
parallel and the parent only compares.

* bundled data (trains, uwcse, mutagenesis without its ring-perception modes, toy_father):
  1,000 random legal clauses each, on all examples and restricted to a random ``among``, and
  the bottom clauses of the seeds they came from;
* hypothesis-generated small databases (:func:`tests.reference_prover.random_task`, with
  comparison and (dis)unification built-ins): random clauses and bottom clauses;
* a seeded ``ilpkit learn`` (theory learner, topdown search, small budget) writes the same
  model on every backend for trains, uwcse and mutagenesis (timing/info fields dropped).

An engine that is not installed is left out (and named in the skip list), unless
``ILPKIT_REQUIRE_BACKENDS`` lists it (``swipl``, ``gprolog``, ``janus``, ``pyswip``).
GNU Prolog indexes the first argument only (some mutagenesis clauses take it over a minute),
so on UW-CSE and mutagenesis it checks the first 200 and 100 clauses on a random ``among``,
and it is left out of the UW-CSE learning run (about 100 s there alone).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ilpkit.core.coverage import Coverage
from ilpkit.core.refine import Refiner
from ilpkit.core.task import Task
from ilpkit.plugins.backends.base import Backend
from ilpkit.plugins.backends.native.engine import NativeBackend
from ilpkit.prolog.terms import Clause, clause_to_prolog
from tests.reference_prover import load_bundled, random_task, require_backends, term
from tests.test_subprocess_backend import RING_PERCEPTION, random_clauses
from tests.test_swi_backend import ROOT, bridge_env

ENGINES = ["native", "swi-janus", "swi-pyswip", "subprocess-swipl", "subprocess-gprolog"]
REQUIRE_NAME = {"swi-janus": "janus", "swi-pyswip": "pyswip", "subprocess-swipl": "swipl"}
REQUIRE_NAME["subprocess-gprolog"] = "gprolog"
RESULT = "ILPKIT-RESULT "
BATCH = 250
N_CLAUSES = 1000
GPROLOG_SHARE = {"uwcse": 200, "mutagenesis": 100}
"""GNU Prolog (first-argument indexing only) gets the first clauses of these, on ``among``."""


# --------------------------------------------------------------------------------------------
# workers
# --------------------------------------------------------------------------------------------


def make_backend(engine: str) -> Backend:
    if engine == "native":
        return NativeBackend()
    if engine.startswith("swi-"):
        from ilpkit.plugins.backends.prolog.swi_backend import SwiBackend, SwiOptions

        return SwiBackend(SwiOptions(bridge=engine[4:]))  # type: ignore[arg-type]
    from ilpkit.plugins.backends.prolog.subprocess_backend import (
        SubprocessBackend,
        SubprocessOptions,
    )

    return SubprocessBackend(SubprocessOptions(engine=engine[11:]))  # type: ignore[arg-type]


def make_task(spec: dict[str, Any]) -> Task:
    if "bundled" in spec:
        task = load_bundled(spec["bundled"])
        if spec["bundled"] == "mutagenesis":
            task.bias.modeb = [m for m in task.bias.modeb if m.name not in RING_PERCEPTION]
        return task
    return random_task(random.Random(spec["random"]))


def worker_main(engine: str) -> None:
    """A worker: one request (JSON) a line on stdin, one ``ILPKIT-RESULT`` line each."""
    loaded: dict[str, Backend] = {}
    for line in sys.stdin:
        request = json.loads(line)
        key = json.dumps(request["task"], sort_keys=True)
        try:
            backend = loaded.get(key)
            if backend is None:
                if "random" in request["task"]:  # one random task at a time
                    for k in [k for k in loaded if "random" in k]:
                        loaded.pop(k).close()
                task = make_task(request["task"])
                backend = make_backend(engine)
                backend.load(task)
                loaded[key] = backend
            n = backend.n_examples
            among = request.get("among")
            cov = None if among is None else Coverage(among, n)
            clauses = [Clause.from_term(term(c)) for c in request["clauses"]]
            covered: list[list[int]] = []
            for start in range(0, len(clauses), BATCH):
                batch = backend.coverage_many(clauses[start : start + BATCH], cov)
                covered.extend(c.tolist() for c in batch)
            depth = request.get("depth", 2)
            bottoms = [repr(backend.saturate(s, depth=depth)) for s in request["seeds"]]
            reply: dict[str, Any] = {"cover": covered, "bottoms": bottoms}
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(RESULT + json.dumps(reply) + "\n")
        sys.stdout.flush()


class Worker:
    """A running worker process of one engine."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        env_of = engine[4:] if engine.startswith("swi-") else "pyswip"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                f"from tests.test_backend_agreement import worker_main; worker_main({engine!r})",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=bridge_env(env_of),
        )
        self.lock = threading.Lock()

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            stdin: IO[str] | None = self.proc.stdin
            stdout: IO[str] | None = self.proc.stdout
            assert stdin is not None and stdout is not None
            stdin.write(json.dumps(request) + "\n")
            stdin.flush()
            for line in stdout:
                if line.startswith(RESULT):
                    reply: dict[str, Any] = json.loads(line[len(RESULT) :])
                    return reply
            raise AssertionError(f"{self.engine} worker died (exit {self.proc.wait()})")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def available(engine: str) -> str | None:
    """Why ``engine`` cannot run here (None when it can)."""
    if engine == "native":
        return None
    if engine.startswith("swi-"):
        from ilpkit.plugins.backends.prolog.swi_backend import preflight

        check = preflight(engine[4:])  # type: ignore[arg-type]
        return None if check.ok else check.reason
    exe = engine[11:]
    return None if shutil.which(exe) else f"{exe} is not on PATH"


@dataclass
class Pool:
    workers: dict[str, Worker]
    missing: dict[str, str]

    def ask_all(self, request: dict[str, Any], skip: tuple[str, ...] = ()) -> dict[str, Any]:
        """Every worker's reply to ``request`` (asked in parallel)."""
        names = [e for e in self.workers if e not in skip]
        with ThreadPoolExecutor(len(names)) as pool:
            replies = list(pool.map(lambda e: self.workers[e].ask(request), names))
        out = dict(zip(names, replies, strict=True))
        for engine, reply in out.items():
            assert "error" not in reply, f"{engine}: {reply['error']}"
        return out


@pytest.fixture(scope="module")
def pool() -> Iterator[Pool]:
    workers: dict[str, Worker] = {}
    missing: dict[str, str] = {}
    for engine in ENGINES:
        reason = available(engine)
        if reason is None:
            workers[engine] = Worker(engine)
        elif require_backends(REQUIRE_NAME[engine]):
            for w in workers.values():
                w.close()
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {REQUIRE_NAME[engine]} but: {reason}")
        else:
            missing[engine] = reason
    yield Pool(workers, missing)
    for w in workers.values():
        w.close()


def assert_all_equal(replies: dict[str, Any], field: str, what: str) -> None:
    reference = replies["native"][field]
    for engine, reply in replies.items():
        got = reply[field]
        if got != reference:
            diff = [i for i, (a, b) in enumerate(zip(got, reference, strict=True)) if a != b]
            raise AssertionError(
                f"{engine} differs from native on {what} ({field}): {len(diff)} of "
                f"{len(reference)}, first at {diff[:5]}"
            )


# --------------------------------------------------------------------------------------------
# bundled data
# --------------------------------------------------------------------------------------------


def bundled_request(name: str, seed: int, depth: int = 2) -> tuple[dict[str, Any], Task]:
    task = make_task({"bundled": name})
    nat = NativeBackend()
    nat.load(task)
    clauses, seeds = random_clauses(task, nat, N_CLAUSES, seed, depth=depth)
    request = {
        "task": {"bundled": name},
        "clauses": [clause_to_prolog(c) for c in clauses],
        "seeds": seeds[:8],
        "depth": depth,
    }
    return request, task


@pytest.mark.parametrize(
    ("name", "seed", "depth", "among_size"),
    [
        ("trains", 11, 2, 6),
        ("uwcse", 12, 2, 400),
        ("mutagenesis", 13, 2, 60),
        ("toy_father", 14, 3, 20),
    ],
)
def test_bundled_data_agrees_on_every_backend(
    pool: Pool, name: str, seed: int, depth: int, among_size: int
) -> None:
    request, task = bundled_request(name, seed, depth)
    size = len(task.examples)
    among = sorted(random.Random(seed).sample(range(size), min(among_size, size)))
    slow = ("subprocess-gprolog",) if name in GPROLOG_SHARE else ()
    replies = pool.ask_all(request, skip=slow)
    assert_all_equal(replies, "cover", f"{name}, {N_CLAUSES} clauses")
    assert_all_equal(replies, "bottoms", f"{name} bottom clauses")
    assert len({tuple(c) for c in replies["native"]["cover"]}) > 5  # not trivially equal
    restricted = {**request, "among": among, "seeds": []}
    if slow and "subprocess-gprolog" in pool.workers:
        share = GPROLOG_SHARE[name]
        small = {**restricted, "clauses": request["clauses"][:share]}
        got = pool.workers["subprocess-gprolog"].ask(small)
        assert "error" not in got, got
        want = pool.workers["native"].ask(small)
        assert got["cover"] == want["cover"], f"gprolog differs from native on {name}"
    replies = pool.ask_all(restricted, skip=slow)
    assert_all_equal(replies, "cover", f"{name}, {N_CLAUSES} clauses among {len(among)}")
    if pool.missing:
        pytest.skip(f"compared without: {pool.missing}")


# --------------------------------------------------------------------------------------------
# hypothesis-generated small databases
# --------------------------------------------------------------------------------------------


def random_request(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    task = random_task(random.Random(seed))
    nat = NativeBackend()
    nat.load(task)
    positives = task.examples.positives.tolist()
    depth = rng.randint(1, 3)
    seeds = [rng.choice(positives) for _ in range(2)]
    clauses: list[Clause] = []
    for s in seeds:
        bottom = nat.saturate(s, depth=depth)
        refiner = Refiner(bottom, None)
        clauses.append(bottom.clause(()))
        clauses.extend(
            bottom.clause(refiner.random_clause(rng.randint(1, 5), rng)) for _ in range(8)
        )
    return {
        "task": {"random": seed},
        "clauses": [clause_to_prolog(c) for c in clauses],
        "seeds": seeds,
        "depth": depth,
    }


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1))
def test_random_databases_agree_on_every_backend(pool: Pool, seed: int) -> None:
    replies = pool.ask_all(random_request(seed))
    assert_all_equal(replies, "cover", f"random task {seed}")
    assert_all_equal(replies, "bottoms", f"random task {seed} bottom clauses")


# --------------------------------------------------------------------------------------------
# a seeded learning run
# --------------------------------------------------------------------------------------------

LEARN: dict[str, list[str]] = {
    "trains": ["--set", "nodes=200"],
    "uwcse": ["--set", "nodes=100", "--set", "clauselength=3", "--set", "i=1"],
    "mutagenesis": ["--set", "nodes=100"],
}
BACKEND_ARGS: dict[str, list[str]] = {
    "native": ["--backend", "native"],
    "swi-janus": ["--backend", "swi", "--set", "backend.bridge=janus"],
    "swi-pyswip": ["--backend", "swi", "--set", "backend.bridge=pyswip"],
    "subprocess-swipl": ["--backend", "subprocess", "--set", "backend.engine=swipl"],
    "subprocess-gprolog": ["--backend", "subprocess", "--set", "backend.engine=gprolog"],
}


def mutagenesis_without_rings(folder: Path) -> Path:
    """A copy of the bundled mutagenesis without the ring-perception modes (exhaustive graph
    searches of up to 29M inferences per drug: too slow for a test on any engine)."""
    from ilpkit.datasets import bundled_path

    source = bundled_path("mutagenesis")
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("bk.pl", "exs.pl"):
        shutil.copy(source / name, folder / name)
    lines = (source / "aleph-modes.pl").read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [ln for ln in lines if not any(f"{r}(" in ln for r in RING_PERCEPTION)]
    (folder / "aleph-modes.pl").write_text("".join(kept), encoding="utf-8")
    return folder


def learn(
    engine: str, data: str, options: list[str], out: Path, learner: list[str] | None = None
) -> dict[str, Any]:
    env_of = engine[4:] if engine.startswith("swi-") else "pyswip"
    how = learner if learner is not None else ["--search", "topdown", "--learner", "theory"]
    command = [
        sys.executable, "-m", "ilpkit", "learn", data, "-q", *how, "--seed", "3",
        "-o", str(out), *BACKEND_ARGS[engine], *options,
    ]  # fmt: skip
    proc = subprocess.run(
        command, capture_output=True, text=True, cwd=ROOT, env=bridge_env(env_of), timeout=600
    )
    assert proc.returncode == 0, f"{engine}: {proc.stderr[-3000:]}"
    model: dict[str, Any] = json.loads(out.read_text())
    model.pop("info", None)
    return model


@pytest.mark.parametrize("name", list(LEARN))
def test_seeded_learning_gives_the_same_model_on_every_backend(
    pool: Pool, name: str, tmp_path: Path
) -> None:
    data = str(mutagenesis_without_rings(tmp_path / "mut")) if name == "mutagenesis" else name
    engines = [e for e in pool.workers if not (name == "uwcse" and e == "subprocess-gprolog")]
    with ThreadPoolExecutor(2) as run:
        models = list(
            run.map(lambda e: learn(e, data, LEARN[name], tmp_path / f"{e}.json"), engines)
        )
    reference = models[engines.index("native")]
    assert reference["rules"], "the run learned nothing: a weak comparison"
    for engine, model in zip(engines, models, strict=True):
        assert model == reference, f"{engine} learned another model than native"


BOOSTING: dict[str, list[str]] = {
    **{
        f"prankboost-{weak}": ["--learner", "prankboost", "--set", f"learner.weak={weak}"]
        for weak in ("clause", "path", "mix1", "mix2", "mix3")
    },
    "rankboost": ["--learner", "rankboost"],
}


@pytest.mark.parametrize("learner", list(BOOSTING))
def test_boosting_gives_the_same_ensemble_on_every_backend(
    pool: Pool, learner: str, tmp_path: Path
) -> None:
    """Weighted objectives, alphas and weight updates see only coverage: every engine must
    boost to the same clauses, h values and alphas, for all six variants."""
    options = ["--set", "i=2", "--set", "clauselength=4", "--set", "nodes=60",
               "--set", "learner.rounds=6"]  # fmt: skip
    engines = list(pool.workers)
    with ThreadPoolExecutor(2) as run:
        models = list(
            run.map(
                lambda e: learn(e, "uwcse", options, tmp_path / f"{e}.json", BOOSTING[learner]),
                engines,
            )
        )
    reference = models[engines.index("native")]
    assert len(reference["hypotheses"]) == 6
    assert any(h["alpha"] > 0 for h in reference["hypotheses"]), "no weak learner helped"
    for engine, model in zip(engines, models, strict=True):
        assert model == reference, f"{engine} boosted another ensemble than native"
