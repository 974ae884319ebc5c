"""TILDE trees, TIcER's label-frequency estimate and PU labelings.

Expected numbers are worked out by hand from the formulas (entropy in bits, Quinlan's gain,
the gain ratio, max-bepp, and TIcER's bound of ticer-pu-relational.txt eq. 1), not taken from
the code's output.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ilpkit.core.formats import load_task
from ilpkit.core.learner import LearnContext
from ilpkit.core.model_files import load_model, save_model
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.pu import label_frequency_bound, pu_labels
from ilpkit.core.task import NEG, POS, UNLABELED, Task
from ilpkit.datasets import bundled_path
from ilpkit.errors import ConfigError
from ilpkit.plugins.backends.native.engine import NativeBackend
from ilpkit.plugins.learners.tilde import TildeModel, splits
from ilpkit.prolog.terms import to_prolog
from tests.test_swi_backend import ROOT, bridge_available, bridge_env

# --------------------------------------------------------------------------------------------
# split scores, by hand
# --------------------------------------------------------------------------------------------


def test_entropy_gain_gain_ratio_and_max_bepp_on_hand_counts() -> None:
    # parent 5 pos / 5 neg; left child 5 pos / 2 neg, right 0 / 3.
    assert splits.entropy(5, 5) == pytest.approx(1.0)
    h_left = -(5 / 7) * math.log2(5 / 7) - (2 / 7) * math.log2(2 / 7)  # 0.863121
    assert splits.entropy(5, 2) == pytest.approx(0.863121, abs=1e-6)
    gain = 1.0 - 0.7 * h_left - 0.3 * 0.0  # 0.395815
    assert splits.information_gain(5, 5, 5, 2) == pytest.approx(0.395815, abs=1e-6)
    assert gain == pytest.approx(0.395815, abs=1e-6)
    split_info = -(0.7 * math.log2(0.7) + 0.3 * math.log2(0.3))  # 0.881291
    assert splits.gain_ratio(5, 5, 5, 2) == pytest.approx(0.395815 / 0.881291, abs=1e-6)
    assert split_info == pytest.approx(0.881291, abs=1e-6)
    assert splits.max_bepp(5, 5, 5, 2) == pytest.approx(5 / 7)
    # a split that sends everything left has no gain and no split information
    assert splits.information_gain(5, 5, 5, 5) == pytest.approx(0.0)
    assert splits.gain_ratio(5, 5, 5, 5) == 0.0
    # max-bepp: the right child can be the purer one (2/2 vs 3/8)
    assert splits.max_bepp(5, 5, 3, 5) == pytest.approx(1.0)


def test_max_bepp_must_beat_the_parent_proportion() -> None:
    assert not splits.improves("max-bepp", 0.5, 5, 5)
    assert splits.improves("max-bepp", 0.6, 5, 5)
    assert not splits.improves("gain", 0.0, 5, 5)


# --------------------------------------------------------------------------------------------
# TIcER's bound and PU labelings
# --------------------------------------------------------------------------------------------


def test_ticer_bound_by_hand() -> None:
    # L=30, T=100, delta=0.1: 0.3 - 0.5*sqrt(0.9/(0.1*100)) = 0.3 - 0.5*0.3 = 0.15
    assert label_frequency_bound(30, 100, 0.1) == pytest.approx(0.15)
    # L=400, T=800, delta=0.1: 0.5 - 0.5*sqrt(0.9/80) = 0.5 - 0.5*0.106066 = 0.446967
    assert label_frequency_bound(400, 800, 0.1) == pytest.approx(0.446967, abs=1e-6)
    with pytest.raises(ConfigError):
        label_frequency_bound(1, 2, 1.5)


def test_pu_labeling_keeps_about_c_of_the_positives_in_the_chosen_ids_only() -> None:
    n = 20_000
    labels = np.array([POS] * (n // 2) + [NEG] * (n // 2), dtype=np.int8)
    ids = np.arange(0, n, 2, dtype=np.int64)  # every other example: 5,000 pos, 5,000 neg
    out = pu_labels(labels, ids, 0.3, seed=7)
    outside = np.setdiff1d(np.arange(n), ids)
    assert np.array_equal(out[outside], labels[outside])  # test side keeps the truth
    inside = out[ids]
    assert set(np.unique(inside)) <= {POS, UNLABELED}
    assert np.all(labels[ids][inside == POS] == POS)  # only true positives stay labeled
    kept = float(np.mean(inside[labels[ids] == POS] == POS))
    assert abs(kept - 0.3) < 0.02  # binomial sd sqrt(.3*.7/5000) = 0.0065
    # an example's fate does not depend on which other examples are relabeled
    again = pu_labels(labels, ids[:100], 0.3, seed=7)
    assert np.array_equal(again[ids[:100]], out[ids[:100]])


# --------------------------------------------------------------------------------------------
# trees
# --------------------------------------------------------------------------------------------


def fit(task: Task, seed: int = 0, **options: object) -> tuple[TildeModel, NativeBackend]:
    manager = get_plugin_manager()
    backend = NativeBackend()
    backend.load(task)
    ctx = LearnContext(
        backend=backend,
        make_search=lambda: manager.make("search", "rrr"),
        scorer=manager.make("scorer", "coverage"),
        settings=task.bias.settings,
        seed=seed,
    )
    model = manager.make("learner", "tilde", options).fit(task, ctx)
    assert isinstance(model, TildeModel)
    return model, backend


def test_trains_tree_literal_by_literal() -> None:
    """Michalski's trains: 5 eastbound, 5 westbound.  With lookahead, the best root test is
    has_car(T,C), closed(C): 5 east + 2 west satisfy it, gain 1 - 0.7*H(5/7) = 0.395815 (hand,
    above); among those 7, short(C) separates the 5 east from the 2 west (gain H(5/7) =
    0.863121); the 3 others are all westbound."""
    model, backend = fit(load_task(bundled_path("trains")), lookahead=True)
    root = model.tree.root
    assert [to_prolog(t) for t in root.test] == ["has_car(V0,V1)", "closed(V1)"]
    assert (root.pos, root.neg) == (5, 5)
    assert root.score == pytest.approx(0.395815, abs=1e-6)
    left, right = root.left, root.right
    assert left is not None and right is not None
    assert (left.pos, left.neg) == (5, 2) and (right.pos, right.neg) == (0, 3)
    assert right.is_leaf
    assert [to_prolog(t) for t in left.test] == ["short(V1)"]
    assert left.score == pytest.approx(0.863121, abs=1e-6)
    assert left.left is not None and left.right is not None
    assert (left.left.pos, left.left.neg) == (5, 0)
    assert (left.right.pos, left.right.neg) == (0, 2)
    probs = model.predict_proba(backend)
    labels = load_task(bundled_path("trains")).examples.labels
    assert np.array_equal(probs == 1.0, labels == POS)
    text = model.tree.render()
    assert "if has_car(V0,V1), closed(V1) then" in text
    prolog = model.tree.render_prolog()
    assert prolog.splitlines()[0] == (
        "prob(eastbound(V0), 1) :- has_car(V0,V1), closed(V1), short(V1), !."
    )


def test_without_lookahead_a_literal_that_only_binds_cannot_split_trains() -> None:
    model, _ = fit(load_task(bundled_path("trains")))
    assert model.tree.root.is_leaf  # has_car/2 holds for every train: no split


def test_model_json_round_trip_predicts_the_same(tmp_path: Path) -> None:
    task = load_task(bundled_path("trains"))
    model, backend = fit(task, lookahead=True)
    save_model(model, tmp_path / "m.json")
    again = load_model(tmp_path / "m.json")
    assert isinstance(again, TildeModel)
    assert np.array_equal(again.score(backend), model.score(backend))
    assert again.to_json() == model.to_json()


def test_max_depth_zero_is_a_single_leaf_with_the_class_proportion() -> None:
    model, backend = fit(load_task(bundled_path("trains")), max_depth=0, lookahead=True)
    assert model.tree.root.is_leaf
    assert np.allclose(model.score(backend), 0.5)


def test_c_true_needs_a_pu_labeling() -> None:
    with pytest.raises(ConfigError, match="pu-label-frequency"):
        fit(load_task(bundled_path("trains")), c="true")


# --------------------------------------------------------------------------------------------
# synthetic PU data with a known c
# --------------------------------------------------------------------------------------------


def write_pu_data(folder: Path, n_pos: int, n_neg: int) -> Path:
    """Objects o<i>; the positives have marked/1, a random half of all objects has noise/1."""
    rng = np.random.default_rng(0)
    folder.mkdir(parents=True, exist_ok=True)
    facts = []
    for i in range(n_pos + n_neg):
        if i < n_pos:
            facts.append(f"marked(o{i}).")
        if rng.random() < 0.5:
            facts.append(f"noise(o{i}).")
        facts.append(f"colour(o{i},{'red' if rng.random() < 0.5 else 'blue'}).")
    bias = [
        ":- modeh(1,target(+obj)).",
        ":- modeb(1,marked(+obj)).",
        ":- modeb(1,noise(+obj)).",
        ":- modeb(1,colour(+obj,#colour)).",
        ":- determination(target/1,marked/1).",
        ":- determination(target/1,noise/1).",
        ":- determination(target/1,colour/2).",
        ":- dynamic marked/1.",
        ":- dynamic noise/1.",
    ]
    (folder / "pu.b").write_text("\n".join(bias + facts) + "\n", encoding="utf-8")
    (folder / "pu.f").write_text(
        "".join(f"target(o{i}).\n" for i in range(n_pos)), encoding="utf-8"
    )
    (folder / "pu.n").write_text(
        "".join(f"target(o{i}).\n" for i in range(n_pos, n_pos + n_neg)), encoding="utf-8"
    )
    return folder


def pu_version(task: Task, c: float, seed: int) -> Task:
    from dataclasses import replace

    from ilpkit.core.task import Examples

    ex = task.examples
    labels = pu_labels(ex.labels, ex.ids, c, seed)
    examples = Examples(ex.atoms, labels, ex.weights, ex.folds, ex.locations)
    return replace(task, examples=examples, label_frequency=c)


@pytest.mark.parametrize("c", [0.3, 0.7])
def test_ticer_estimates_a_known_label_frequency(tmp_path: Path, c: float) -> None:
    """2,000 positives (marked/1) and 2,000 negatives; the tree finds the marked subset, whose
    L/T is c, so the estimate is c minus the bound's error term: on 4/5 of 2,000 marked
    objects, 0.5*sqrt(0.9/(0.1*1600)) = 0.0375.  TIcER underestimates (as the paper says)."""
    task = load_task(write_pu_data(tmp_path / "pu", 2000, 2000))
    pu = pu_version(task, c, seed=1)
    model, backend = fit(pu, c="ticer", max_depth=2)
    ticer = model.info["ticer"]
    assert ticer["best_subset"]["T"] > 1000  # the marked subset (or most of it)
    assert c - 0.08 <= model.c <= c + 0.01, ticer
    # the PU classifier's probabilities are leaf proportions divided by c, clipped to 1
    probs = model.predict_proba(backend)
    marked = np.arange(4000) < 2000
    assert np.all(probs[marked] > 0.9) and np.all(probs[~marked] < 0.1)


def test_pu_counts_variant_scales_labeled_counts(tmp_path: Path) -> None:
    task = load_task(write_pu_data(tmp_path / "pu", 300, 300))
    pu = pu_version(task, 0.5, seed=2)
    plain, backend = fit(pu, c=0.5, max_depth=1)
    counted, _ = fit(pu, c=0.5, pu_adjust="counts", max_depth=1)
    for model in (plain, counted):
        assert [to_prolog(t) for t in model.tree.root.test] == ["marked(V0)"]
    # leaf of the marked objects: L labeled of T, probability min(1, (L/T)/c)
    leaf = plain.tree.root.left
    assert leaf is not None and leaf.is_leaf
    expected = min(1.0, leaf.pos / leaf.total / 0.5)
    assert plain.predict_proba(backend)[0] == pytest.approx(expected)


# --------------------------------------------------------------------------------------------
# end to end: cv with a PU labeling; same tree on native and swi
# --------------------------------------------------------------------------------------------


def test_cv_with_pu_labeling_and_ticer(tmp_path: Path) -> None:
    import ilpkit

    data = write_pu_data(tmp_path / "pu", 150, 150)
    summary = ilpkit.cv(
        data,
        out=tmp_path / "run",
        learner="tilde",
        folds=3,
        pu_label_frequency=0.5,
        pu_labelings=2,
        options={"learner": {"c": "ticer", "max_depth": 2, "ticer_folds": 3}},
    )
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["n_units"] == 6  # 2 labelings x 3 folds
    models = sorted((tmp_path / "run" / "models").glob("*.json"))
    cs = [json.loads(p.read_text())["c"] for p in models]
    assert len(cs) == 6 and all(0.2 < c <= 0.6 for c in cs), cs
    # test folds keep their true labels: the marked concept is found, F1 near 1
    assert summary is not None
    f1s = [u["metrics"]["f1"] for u in results["units"]]
    assert min(f1s) > 0.9, f1s


def test_pu_unit_without_labeled_positive_is_the_empty_theory(tmp_path: Path) -> None:
    """A labeling may leave a training fold no labeled positive (IMDB's directors at
    c = 0.1): that unit's model is the empty theory, said in its record, and counts in F1
    (0: the test fold has positives) -- not an error, and not dropped from the mean."""
    import ilpkit
    from ilpkit.core.degenerate import PU_NO_LABELED_POSITIVE

    data = write_pu_data(tmp_path / "pu", 6, 60)
    ilpkit.cv(
        data,
        out=tmp_path / "run",
        learner="tilde",
        folds=2,
        pu_label_frequency=0.2,
        pu_labelings=4,
        options={"learner": {"c": 0.2, "max_depth": 1}},
    )
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    units = {u["key"]: u for u in results["units"]}
    assert len(units) == 8
    empty = results["degenerate"].get(PU_NO_LABELED_POSITIVE, [])
    # P(no labeled positive among a fold's 3 training positives) = 0.8^3 = 0.51 per unit
    assert 0 < len(empty) < len(units), results["degenerate"]
    assert set(empty) <= set(results["empty_theories"])
    for key in empty:
        assert units[key]["n_rules"] == 0
        assert units[key]["metrics"]["f1"] == 0.0  # each test fold holds 3 true positives
        unit = json.loads((tmp_path / "run" / "units" / f"{key}.json").read_text())
        assert unit["predicted_positive"] == 0 and set(unit["scores"]) == {0.0}
    learned = [u for k, u in units.items() if k not in empty]
    assert all(u["metrics"]["f1"] > 0.9 for u in learned), [u["metrics"] for u in learned]


def test_pu_labelings_and_repeats_must_agree() -> None:
    from ilpkit.experiment.config import CVConfig

    assert CVConfig(pu_label_frequency=0.5, pu_labelings=3).repeats == 3
    with pytest.raises(ValueError, match="pu_labelings"):
        CVConfig(pu_label_frequency=0.5, pu_labelings=3, repeats=2)
    with pytest.raises(ValueError, match="pu_label_frequency"):
        CVConfig(pu_labelings=3)


def test_same_tree_on_native_and_swi(tmp_path: Path) -> None:
    bridge_available("janus")
    models = {}
    for name, args in {
        "native": ["--backend", "native"],
        "swi": ["--backend", "swi", "--set", "backend.bridge=janus"],
    }.items():
        out = tmp_path / f"{name}.json"
        command = [
            sys.executable, "-m", "ilpkit", "learn", "trains", "-q", "--learner", "tilde",
            "--set", "learner.lookahead=true", "-o", str(out), *args,
        ]  # fmt: skip
        proc = subprocess.run(
            command, capture_output=True, text=True, cwd=ROOT, env=bridge_env("janus"), timeout=300
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        data = json.loads(out.read_text())
        data.pop("info")
        models[name] = data
    assert models["native"] == models["swi"]


# --------------------------------------------------------------------------------------------
# posonly-unlabeled (Muggleton 1996 over the unlabeled examples) for the theory learner
# --------------------------------------------------------------------------------------------


def test_posonly_unlabeled_score_by_hand() -> None:
    from ilpkit.core.coverage import Counts

    scorer = get_plugin_manager().make("scorer", "posonly-unlabeled")
    # TP=10, FP=4 of N=98 random examples, L=3: 10*ln(100/5) - 3 = 10*2.995732 - 3
    assert scorer.score(Counts(10, 4, 20, 98), 3) == pytest.approx(26.957323, abs=1e-6)
    # covering fewer random examples is better at equal TP and length
    assert scorer.score(Counts(10, 1, 20, 98), 3) > scorer.score(Counts(10, 4, 20, 98), 3)


def test_theory_with_posonly_unlabeled_learns_the_marked_concept(tmp_path: Path) -> None:
    task = load_task(write_pu_data(tmp_path / "pu", 200, 200))
    pu = pu_version(task, 0.5, seed=3)
    assert not np.any(pu.examples.labels == NEG)
    # the unlabeled are a random sample, not negatives: no noise bound on them (as Aleph's
    # posonly, which has no negatives to bound)
    pu.bias.settings.set_value("noise", 1_000_000)
    manager = get_plugin_manager()
    backend = NativeBackend()
    backend.load(pu)
    ctx = LearnContext(
        backend=backend,
        make_search=lambda: manager.make("search", "topdown"),
        scorer=manager.make("scorer", "posonly-unlabeled"),
        settings=pu.bias.settings,
        seed=0,
    )
    learner = manager.make("learner", "theory", {"unlabeled": "negative", "max_rules": 3})
    model = learner.fit(pu, ctx)
    bodies = [[to_prolog(t) for t in r.clause.body] for r in model.rules()]
    assert ["marked(A)"] in bodies, bodies
    assert np.array_equal(
        pu.examples.labels, pu_labels(task.examples.labels, task.examples.ids, 0.5, 3)
    )


# --------------------------------------------------------------------------------------------
# count-based PU variant: every set's counts from its own L and T (issue 31)
# --------------------------------------------------------------------------------------------


def write_small_pu(folder: Path, labeled: int, unlabeled: int, covered: list[int]) -> Path:
    """o0..o<labeled-1> labeled (.f), the rest unlabeled (.n); a(+obj) holds for ``covered``."""
    folder.mkdir(parents=True, exist_ok=True)
    bias = [":- modeh(1,target(+obj)).", ":- modeb(1,a(+obj)).", ":- determination(target/1,a/1)."]
    facts = [f"a(o{i})." for i in covered]
    (folder / "pu.b").write_text("\n".join(bias + facts) + "\n", encoding="utf-8")
    n = labeled + unlabeled
    (folder / "pu.f").write_text("".join(f"target(o{i}).\n" for i in range(labeled)))
    (folder / "pu.n").write_text("".join(f"target(o{i}).\n" for i in range(labeled, n)))
    return folder


def test_pu_counts_are_clipped_per_set() -> None:
    from ilpkit.plugins.learners.tilde.induce import pu_counts

    # P = L/c clipped into [0, T], N = T - P
    assert pu_counts(8, 10, 0.5) == (10, 0)
    assert pu_counts(2, 7, 0.5) == (4, 3)
    assert pu_counts(0, 2, 0.5) == (0, 2)
    assert pu_counts(3, 4, 0.6) == (4, 0)


def test_pu_counts_split_has_no_negative_count(tmp_path: Path) -> None:
    """6 labeled, 4 unlabeled, c = 0.5: the node is P = min(10, 12) = 10, N = 0 (pure). a/1
    holds for 3 unlabeled: left L = 0, T = 3 (P 0, N 3); right L = 6, T = 7: P = min(7, 12) = 7,
    N = 0. Every set is pure, so the gain is 0 and the root stays a leaf. Taking the right
    child as node minus left gave P = 10, N = -3, an entropy of (10/7) log2(7/10) = -0.735 and
    a gain of 0.7 * 0.735 = 0.515 > 0: a split on nothing."""
    task = load_task(write_small_pu(tmp_path / "pu", 6, 4, [6, 7, 8]))
    model, _ = fit(task, c=0.5, pu_adjust="counts", max_depth=1)
    assert model.tree.root.is_leaf


def test_pu_counts_gain_by_hand(tmp_path: Path) -> None:
    """4 labeled, 6 unlabeled, c = 0.5: node P = 8, N = 2; a/1 holds for 2 labeled and 1
    unlabeled: left L = 2, T = 3, P = min(3, 4) = 3, N = 0; right L = 2, T = 7, P = 4, N = 3.
    Gain = H(8/10) - 7/10 H(4/7) = 0.721928 - 0.7 * 0.985228 = 0.032268 (the node minus the
    left child, P = 5, N = 2, would give 0.721928 - 0.7 * 0.863121 = 0.117744)."""
    task = load_task(write_small_pu(tmp_path / "pu", 4, 6, [0, 1, 4]))
    model, _ = fit(task, c=0.5, pu_adjust="counts", max_depth=1)
    root = model.tree.root
    assert [to_prolog(t) for t in root.test] == ["a(V0)"]
    assert root.score == pytest.approx(0.032268, abs=1e-6)
