"""The synthetic information-extraction generator: determinism, exact counts, planted rules
that the native backend agrees with, loading, the CLI, and a Gleaner run that recovers it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import ilpkit
from ilpkit.cli.main import app
from ilpkit.core.coverage import Coverage
from ilpkit.core.learner import parse_clause
from ilpkit.core.metrics import aurpc, pr_points_from_scores
from ilpkit.datasets.synth import RULES, SynthParams, write
from ilpkit.errors import ConfigError
from ilpkit.plugins.backends.native.engine import NativeBackend
from ilpkit.plugins.learners.gleaner import GleanerModel
from ilpkit.prolog.terms import Struct


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


SMALL = SynthParams(examples=4_000, skew=30, noise=0.1, facts_scale=0.1, seed=5)


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    write(SMALL, tmp_path / "a")
    write(SMALL, tmp_path / "b")
    write(SynthParams(**{**SMALL.__dict__, "seed": 6}), tmp_path / "c")
    a, b, c = digest(tmp_path / "a"), digest(tmp_path / "b"), digest(tmp_path / "c")
    assert a == b
    assert set(a) == {"synth.b", "synth.f", "synth.n", "synth.json"}
    assert all(a[k] != c[k] for k in ("synth.b", "synth.f", "synth.n"))


@pytest.mark.parametrize(
    ("examples", "skew"), [(3_003, 20), (10_000, 150), (20_000, 446), (1_000, 1)]
)
def test_requested_counts_and_skew(tmp_path: Path, examples: int, skew: float) -> None:
    params = SynthParams(examples=examples, skew=skew, facts_scale=0.0, seed=1)
    summary = write(params, tmp_path)
    assert summary.positives + summary.negatives == examples
    assert summary.positives == round(examples / (1 + skew))
    if examples % (1 + skew) == 0:
        assert summary.negatives == skew * summary.positives
    task = ilpkit.load_task(str(tmp_path))
    assert len(task.examples.positives) == summary.positives
    assert len(task.examples.negatives) == summary.negatives
    assert task.target == ("target", 2)
    assert task.program.n_facts() == summary.facts


def test_planted_rules_cover_what_the_generator_says(tmp_path: Path) -> None:
    """The native backend's coverage of each planted rule matches the generator's own
    bookkeeping; with noise f, the union misses f*P positives and covers f*P negatives."""
    summary = write(SMALL, tmp_path)
    task = ilpkit.load_task(str(tmp_path))
    backend = NativeBackend()
    backend.load(task)
    union = np.zeros(len(task.examples), dtype=bool)
    for rule, stats in zip(RULES, summary.rules, strict=True):
        covered = backend.coverage(parse_clause(rule))
        counts = covered.counts(task.examples)
        assert (counts.tp, counts.fp) == (stats.positives, stats.negatives), rule
        assert counts.tp > 0.15 * summary.positives, f"{rule} plants too few positives"
        union |= covered.mask()
    labels = task.examples.labels == 1
    noisy = round(SMALL.noise * summary.positives)
    assert int((union & labels).sum()) == summary.positives - noisy == summary.union.positives
    assert int((union & ~labels).sum()) == noisy == summary.union.negatives


def test_without_noise_the_rules_separate_exactly(tmp_path: Path) -> None:
    params = SynthParams(examples=6_000, skew=60, noise=0.0, facts_scale=0.0, seed=2, folds=3)
    write(params, tmp_path)
    task = ilpkit.load_task(str(tmp_path))
    assert task.fold_names == ["f0", "f1", "f2"]
    backend = NativeBackend()
    backend.load(task)
    union = np.zeros(len(task.examples), dtype=bool)
    for rule in RULES:
        union |= backend.coverage(parse_clause(rule)).mask()
    assert np.array_equal(union, task.examples.labels == 1)
    # whole sentences per fold: no phrase appears in two folds
    folds_of: dict[str, set[int]] = {}
    for atom, fold in zip(task.examples.atoms, task.examples.folds.tolist(), strict=True):
        assert isinstance(atom, Struct)
        for arg in atom.args:
            folds_of.setdefault(str(arg), set()).add(fold)
    assert all(len(f) == 1 for f in folds_of.values())
    per_fold = np.bincount(task.examples.folds[task.examples.labels == 1])
    assert per_fold.min() >= 0.85 * per_fold.mean()


def test_header_and_summary_document_the_rules(tmp_path: Path) -> None:
    write(SMALL, tmp_path)
    head = (tmp_path / "synth.b").read_text()[:3000]
    for rule in RULES:
        assert rule in head
    record = json.loads((tmp_path / "synth.json").read_text())
    assert [r["rule"] for r in record["rules"]] == list(RULES)


def test_bad_parameters_are_config_errors(tmp_path: Path) -> None:
    for bad in ({"skew": 0}, {"noise": 0.7}, {"examples": 5}, {"folds": 1}, {"stem": "X"}):
        with pytest.raises(ConfigError):
            write(SynthParams(**bad), tmp_path)


def test_cli_writes_and_refuses_a_non_empty_folder(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "s"
    args = ["datasets", "synth", str(out), "--examples", "2000", "--skew", "20",
            "--facts-scale", "0.1"]  # fmt: skip
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "any planted rule" in first.output
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "not empty" in again.output
    forced = runner.invoke(app, [*args, "--force", "--seed", "3"])
    assert forced.exit_code == 0, forced.output
    check = runner.invoke(app, ["data", "check", str(out)])
    assert check.exit_code == 0 and "positives: 95" in check.output


@pytest.mark.parametrize("data_seed", [0, 1, 2])
def test_gleaner_ranks_well_and_recovers_planted_rules(tmp_path: Path, data_seed: int) -> None:
    """Gleaner (12 seeds x 1,000 clauses, rrr, pr, 5 bins) trained on two sentence folds
    ranks the third with AURPC > 0.45 (the positive rate is 1/21, 0.048), and at least two
    of the three planted rules are recovered: a kept clause covers nearly the same test
    examples (Jaccard >= 0.8).

    Not more, over data seeds (measured on seeds 0-5: ranking AURPC 0.53-0.89, points
    0.49-0.88): Gleaner keeps one clause per seed and recall bin, the best by train
    precision x recall, and a clause that covers one rule's positives and part of another's
    can beat the exact rule in its bin (the 'localize' rule, 40% of the positives, was kept
    only inside such clauses on three of six seeds); and its ranking counts the clauses of one
    bin, while the planted rules are disjoint with recalls near 1/3 each."""
    write(SynthParams(examples=3_000, skew=20, noise=0.0, facts_scale=0.0, seed=data_seed,
                      folds=3), tmp_path)  # fmt: skip
    task = ilpkit.load_task(str(tmp_path))
    folds = task.examples.folds
    train, test = np.flatnonzero(folds != 2), np.flatnonzero(folds == 2)
    est = ilpkit.ILPEstimator(
        learner="gleaner",
        search="rrr",
        scorer="pr",
        learner_options={"seeds": 12, "clauses_per_seed": 1000, "bins": 5},
    ).fit(task, train)
    labels = (task.examples.labels[test] == 1).astype(np.int64)
    scores = est.model_.score(est.backend_, test)
    assert aurpc(pr_points_from_scores(scores, labels)) > 0.45
    n = len(task.examples)
    model = est.model_
    assert isinstance(model, GleanerModel)
    kept = {c for cl in model.bin_clauses().values() for c in cl}
    covered = {c: set(est.backend_.coverage(c, Coverage(test, n)).ids.tolist()) for c in kept}
    recovered = []
    for rule in RULES:
        planted = set(est.backend_.coverage(parse_clause(rule), Coverage(test, n)).ids.tolist())
        overlap = max(len(v & planted) / len(planted | v) for v in covered.values())
        if overlap >= 0.8:
            recovered.append(rule)
    assert len(recovered) >= 2, f"recovered only {recovered}"
