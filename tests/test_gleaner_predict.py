"""Gleaner's classifier (``predict``): which of stage 2's chosen theories it uses, and the
degenerate note when that theory covers every tune example (issue 33: on DSSTox the best
tune F1 was the theory calling every example positive).

Expected numbers are worked by hand from the rules in docs/gleaner.md: F1 = 2TP/(TP+FP+P),
accuracy = (TP + N - FP)/(P + N); the theory covering every example has F1 = 2P/(2P+N).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ilpkit.core.combiner import ClausePool, fit_pool
from ilpkit.core.degenerate import DEGENERATE, GLEANER_COVERS_ALL
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.task import NEG, POS
from ilpkit.plugins.learners import gleaner as gleaner_module
from ilpkit.plugins.learners.gleaner import (
    Choice,
    GleanerModel,
    GleanerOptions,
    Kept,
    SeedResult,
    covers_all,
    predict_choice,
    stage2,
)
from ilpkit.prolog.terms import Clause
from tests.reference_prover import term

# A tune set of 10 examples, the first 4 positive (P = 4, N = 6, prior 0.4), and how many
# clauses of each bin match each example.
POSITIVE = np.array([True] * 4 + [False] * 6)
MATCHES = {
    # L=1: TP 1 FP 0: recall 1/4 (target bin 1 of 4), F1 2/(1+0+4) = 0.4, accuracy 7/10
    0: np.array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    # L=1: TP 2 FP 2: recall 1/2 (target bin 2), F1 4/(2+2+4) = 0.5, accuracy 6/10
    1: np.array([1, 1, 0, 0, 1, 1, 0, 0, 0, 0]),
    # L=1: TP 4 FP 6, every example: recall 1 (target bin 3), F1 8/(4+6+4) = 4/7 = 0.571,
    # accuracy 4/10 (the prior)
    3: np.array([1] * 10),
}


def test_f1_picks_the_theory_covering_every_tune_example_when_nothing_beats_2p_over_2p_n() -> None:
    result = stage2(MATCHES, POSITIVE, bins=4)
    assert [(c.bin, c.threshold) for c in result.choices] == [(0, 1), (1, 1), (3, 1)]
    best = result.predict_choice
    assert best is not None and (best.bin, best.tp, best.fp) == (3, 4.0, 6.0)
    assert result.predicts_all


def test_accuracy_picks_the_most_tp_minus_fp() -> None:
    result = stage2(MATCHES, POSITIVE, bins=4, predict="accuracy")
    best = result.predict_choice
    assert best is not None and (best.bin, best.tp, best.fp) == (0, 1.0, 0.0)  # 0.7
    assert not result.predicts_all


@pytest.mark.parametrize(("recall", "bin_"), [(0.5, 1), (0.3, 0), (0.9, 3), (0.0, 0)])
def test_recall_picks_the_closest_tune_recall(recall: float, bin_: int) -> None:
    # tune recalls 1/4, 1/2, 1
    result = stage2(MATCHES, POSITIVE, bins=4, predict="recall", predict_recall=recall)
    assert result.predict_choice is not None and result.predict_choice.bin == bin_


def test_dsstox_fold_figures() -> None:
    # DSSTox, tune fold test2: P = 21, N = 35.  Covering everything: F1 = 42/77 = 0.545,
    # accuracy 21/56 = 0.375.  The best-accuracy theory of that run covered TP 8, FP 2:
    # F1 = 16/31 = 0.516 (below 0.545), accuracy (8 + 33)/56 = 0.732.
    everything = Choice(bin=13, threshold=1, tp=21.0, fp=35.0, p=21.0)
    separating = Choice(bin=1, threshold=1, tp=8.0, fp=2.0, p=21.0)
    choices = [separating, everything]
    assert predict_choice(choices, 35.0, "f1") is everything
    assert covers_all(everything, 35.0) and not covers_all(separating, 35.0)
    assert predict_choice(choices, 35.0, "accuracy") is separating
    # a separating theory with F1 above 42/77 wins under f1: TP 13, FP 12 -> 26/46 = 0.565
    better = Choice(bin=1, threshold=1, tp=13.0, fp=12.0, p=21.0)
    assert predict_choice([better, everything], 35.0, "f1") is better


def test_f1_ties_go_to_the_lower_recall_not_to_covering_everything() -> None:
    # P = 4, N = 6: TP 2, FP 1 has F1 4/7, the same as covering everything (8/14)
    tie = Choice(bin=0, threshold=2, tp=2.0, fp=1.0, p=4.0)
    everything = Choice(bin=3, threshold=1, tp=4.0, fp=6.0, p=4.0)
    assert predict_choice([tie, everything], 6.0, "f1") is tie


def test_covers_all_needs_both_classes() -> None:
    assert not covers_all(None, 3.0)
    assert not covers_all(Choice(0, 1, 4.0, 0.0, 4.0), 0.0)  # no tune negatives
    assert not covers_all(Choice(0, 1, 4.0, 5.0, 4.0), 6.0)


def _model(**options: Any) -> GleanerModel:
    kept = {b: [Kept(1, f"t(A) :- c{b}(A).", 0.1)] for b in MATCHES}
    seeds = [SeedResult(0, 0, 3, {0: kept[0], 1: kept[1]}), SeedResult(1, 1, 3, {3: kept[3]})]
    return GleanerModel(GleanerOptions(bins=4, **options), seeds, list(range(10)))


def test_the_learner_records_the_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gleaner_module, "bin_matches", lambda backend, clauses, ids: MATCHES)
    labels = np.where(POSITIVE, POS, NEG).astype(np.int8)
    model = _model()
    model.fit_stage2(None, labels)  # type: ignore[arg-type]
    assert model.info[DEGENERATE] == [GLEANER_COVERS_ALL]
    assert model.predict_choice is not None and model.predict_choice.bin == 3
    again = GleanerModel.from_json(model.to_json())
    assert again.info[DEGENERATE] == [GLEANER_COVERS_ALL]
    by_accuracy = _model(predict="accuracy")
    by_accuracy.fit_stage2(None, labels)  # type: ignore[arg-type]
    assert DEGENERATE not in by_accuracy.info
    assert by_accuracy.predict_choice is not None and by_accuracy.predict_choice.bin == 0


class _Ctx:
    seed = 0
    tune_ids = None
    backend = None

    def __init__(self, combiner: Any) -> None:
        self.combiner = combiner

    def train(self, task: Any) -> Any:
        return np.arange(10)


def test_the_combiner_records_the_note(monkeypatch: pytest.MonkeyPatch) -> None:
    # the gleaner combiner over members 0, 1, 3 whose clauses match as MATCHES counts
    matrix = np.stack([MATCHES[0], MATCHES[1], MATCHES[3]], axis=1).astype(bool)
    clauses = [Clause.from_term(term(f"t(A) :- c{i}(A)")) for i in (0, 1, 3)]
    pool = ClausePool(
        clauses=clauses,
        groups=np.asarray([0, 1, 3], dtype=np.int64),
        group_kind="bin",
        fit_ids=np.arange(10, dtype=np.int64),
        fit_labels=POSITIVE,
        fit_matrix=matrix,
    )
    monkeypatch.setattr("ilpkit.core.combiner.build_pool", lambda *args: pool)
    manager = get_plugin_manager()
    for options, noted in (({"bins": 4}, True), ({"bins": 4, "predict": "accuracy"}, False)):
        combiner = manager.make("combiner", "gleaner", options)
        ctx = _Ctx(combiner)
        model = fit_pool("gleaner", None, ctx, clauses, [0, 1, 3], "bin", clauses_evaluated=3)  # type: ignore[arg-type]
        assert (model.info.get(DEGENERATE) == [GLEANER_COVERS_ALL]) is noted
