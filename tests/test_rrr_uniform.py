"""RRR's restart clause is uniform over legal clauses (dissertation Table 5.1).

The legal clauses of the hand bottom clause (tests/hand_bottom.py) are enumerated by hand:
r and u need q (for B), t needs r (for C), q and s need only the head.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ilpkit.core.refine import Refiner
from ilpkit.plugins.search.uniform_clause import LegalClauseSampler, TooManyStates
from tests.hand_bottom import hand_bottom

# By hand: literals q=0, r=1, s=2, t=3, u=4.
LEGAL_BY_SIZE = {
    1: [(0,), (2,)],
    2: [(0, 1), (0, 2), (0, 4)],
    3: [(0, 1, 2), (0, 1, 3), (0, 1, 4), (0, 2, 4)],
    4: [(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 3, 4)],
    5: [(0, 1, 2, 3, 4)],
}
# chi-square critical value, 8 degrees of freedom, p = 0.001 (from a chi-square table)
CHI2_8_999 = 26.12


def test_counts_by_size_match_the_hand_enumeration() -> None:
    refiner = Refiner(hand_bottom())
    sampler = LegalClauseSampler(refiner, 5)
    assert sampler.counts_by_size() == (1, 2, 3, 4, 3, 1)
    assert LegalClauseSampler(refiner, 3).counts_by_size() == (1, 2, 3, 4)
    # the enumeration is right: exactly these subsets are legal
    import itertools

    legal = {c for size in LEGAL_BY_SIZE.values() for c in size}
    for size in range(1, 6):
        for subset in itertools.combinations(range(5), size):
            assert refiner.is_legal(subset) == (subset in legal)


def chi_square(counter: Counter[tuple[int, ...]], support: list[tuple[int, ...]]) -> float:
    draws = sum(counter.values())
    expected = draws / len(support)
    assert set(counter) <= set(support)
    return sum((counter[c] - expected) ** 2 / expected for c in support)


def test_uniform_start_is_uniform_over_the_legal_clauses() -> None:
    # clauselength 4: bodies of 1..3 literals, the 9 clauses of sizes 1-3, each 1/9.
    refiner = Refiner(hand_bottom(), 4)
    sampler = LegalClauseSampler(refiner, 3)
    rng = random.Random(2024)
    support = [c for size in (1, 2, 3) for c in LEGAL_BY_SIZE[size]]
    draws = Counter(sampler.sample(rng) for _ in range(9000))
    assert chi_square(draws, support) < CHI2_8_999
    # The old start (uniform length, then uniform additions) is not uniform: (2,) alone has
    # probability 1/3 * 1/2 = 1/6 against 1/9; the same test rejects it.
    old = Counter(refiner.random_clause(rng.randint(1, 3), rng) for _ in range(9000))
    assert chi_square(old, support) > CHI2_8_999


def test_too_many_states_is_refused() -> None:
    with pytest.raises(TooManyStates):
        LegalClauseSampler(Refiner(hand_bottom()), 5, max_states=3)


def test_rrr_falls_back_and_records_each_clauses_parent() -> None:
    import random as _random

    import numpy as np

    import ilpkit
    from ilpkit.core.coverage import Weighting
    from ilpkit.core.plugins import get_plugin_manager
    from ilpkit.core.search import SearchContext, Trajectory

    task = ilpkit.load_task("trains")
    manager = get_plugin_manager()
    backend = manager.make("backend", "native", {})
    backend.load(task)

    def run(**options: object) -> tuple[object, Trajectory]:
        trace = Trajectory()
        ctx = SearchContext(
            bottom=backend.saturate(int(np.flatnonzero(task.examples.labels == 1)[0]), depth=2),
            backend=backend,
            scorer=manager.make("scorer", "pr", {}),
            weighting=Weighting(task.examples.labels, task.examples.weights),
            budget=90,
            rng=_random.Random(3),
            clauselength=4,
            observers=[trace],
        )
        search = manager.make("search", "rrr", {"rrr_cutoff": 30, **options})
        search.run(ctx)
        return search, trace

    search, trace = run(max_start_states=1)
    assert search.start_fallbacks == 1  # type: ignore[attr-defined]
    old_search, old = run(start="length-then-additions")
    assert [e.body for e in trace] == [e.body for e in old]  # the fallback is the old start
    _, uniform = run()
    assert old_search.start_fallbacks == 0  # type: ignore[attr-defined]
    assert [e.body for e in uniform] != [e.body for e in old]
    by_number = {e.number: e for e in uniform}
    starts = [e for e in uniform if e.parent is None]
    assert len(starts) == 3  # one per restart of 30 clauses
    for e in uniform:
        if e.parent is not None:
            assert len(set(e.body) ^ set(by_number[e.parent].body)) == 1


def test_states_beyond_max_len_literals_are_not_kept() -> None:
    """Forward states of the hand bottom clause for bodies of at most 1 literal (max_len 1).
    live: {B, C} before q, r, s, t; {B} before u; {} after. Each layer keeps a state with the
    fewest literals reaching it: {} (0 literals) and {B} (q, 1 literal); {B, C} needs q and r,
    2 > 1 literals, so it is dropped. Layers: {}, then {}, {B} four times, then {} (u's
    successor keeps only live variables): 1 + 2 + 2 + 2 + 2 + 1 = 10 states, against 12 when
    {B, C} (after r and s) is kept. The count is unchanged: q or s, 2 clauses of 1 literal."""
    sampler = LegalClauseSampler(Refiner(hand_bottom()), 1, max_states=10)
    assert sampler.states == 10
    assert sampler.counts_by_size() == (1, 2)


def test_counts_agree_with_enumerating_every_subset() -> None:
    """Dropping the states that need more than max_len literals leaves every count exact: the
    legal subsets of each size, enumerated with the refiner's legality test, for every max_len
    of a seven-literal bottom clause with two suppliers of C (r and w)."""
    import itertools

    wide = [*hand_bottom_literals(), ("w", (0,), (2,)), ("x", (1, 2), ())]
    refiner = Refiner(hand_bottom(wide))
    by_size = [
        sum(refiner.is_legal(c) for c in itertools.combinations(range(7), r)) for r in range(8)
    ]
    for max_len in range(1, 8):
        sampler = LegalClauseSampler(refiner, max_len)
        assert sampler.counts_by_size() == tuple(by_size[: max_len + 1])


def hand_bottom_literals() -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
    from tests.hand_bottom import LITERALS

    return list(LITERALS)


@pytest.mark.parametrize("search", ["rrr", "directed-rrr"])
def test_gleaner_model_says_when_its_searches_fell_back(search: str) -> None:
    """Issue 31: past max_start_states the restart clauses are not uniform; the model's info
    counts the seeds and restarts that fell back, and its degenerate notes (which learn, cv and
    report.md print) say so. With the default limit, trains' bottom clauses count exactly."""
    import numpy as np

    import ilpkit
    from ilpkit.core.degenerate import recorded_notes
    from ilpkit.core.learner import LearnContext
    from ilpkit.core.plugins import get_plugin_manager

    task = ilpkit.load_task("trains")
    manager = get_plugin_manager()
    backend = manager.make("backend", "native", {})
    backend.load(task)

    def fit(**search_options: object) -> dict[str, object]:
        ctx = LearnContext(
            backend=backend,
            make_search=lambda: manager.make(
                "search", search, {"rrr_cutoff": 20, **search_options}
            ),
            scorer=manager.make("scorer", "pr", {}),
            settings=task.bias.settings,
            seed=0,
            train_ids=np.arange(len(task.examples), dtype=np.int64),
        )
        options = {"seeds": 2, "clauses_per_seed": 60, "clauselength": 4}
        model = manager.make("learner", "gleaner", options).fit(task, ctx)
        return dict(model.info)

    info = fit(max_start_states=1)
    counts = info["start_fallbacks"]
    assert isinstance(counts, dict)
    assert counts["seeds"] == counts["of_seeds"] == 2
    assert counts["restarts"] == counts["of_restarts"] > 0
    notes = recorded_notes(info)
    assert len(notes) == 1 and "2 of 2 searches" in notes[0]
    assert "length-then-additions" in notes[0] and "more than 1 states" in notes[0]
    plain = fit()
    assert "start_fallbacks" not in plain and recorded_notes(plain) == []
