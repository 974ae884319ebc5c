"""Coverage sets (set algebra against Python sets) and weighted counts (hand-computed)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ilpkit.core.coverage import Counts, Coverage, Weighting, counts_of
from ilpkit.core.task import NEG, POS, UNLABELED, Examples
from ilpkit.prolog.terms import Const, Struct


@st.composite
def two_sets(draw: st.DrawFn) -> tuple[int, set[int], set[int]]:
    size = draw(st.integers(0, 150))
    ids = st.integers(0, size - 1) if size else st.nothing()
    a = draw(st.sets(ids, max_size=size)) if size else set()
    b = draw(st.sets(ids, max_size=size)) if size else set()
    return size, a, b


def cov(ids: set[int] | list[int], size: int) -> Coverage:
    return Coverage(list(ids), size)


@settings(max_examples=300, deadline=None)
@given(two_sets())
def test_set_algebra_matches_python_sets(data: tuple[int, set[int], set[int]]) -> None:
    size, a, b = data
    ca, cb = cov(a, size), cov(b, size)
    assert ca.tolist() == sorted(a)
    assert len(ca) == len(a)
    assert (ca & cb).tolist() == sorted(a & b)
    assert (ca | cb).tolist() == sorted(a | b)
    assert (ca - cb).tolist() == sorted(a - b)
    assert (cb - ca).tolist() == sorted(b - a)
    assert ca.issubset(cb) == (a <= b)
    assert (ca & cb).issubset(ca) and ca.issubset(ca | cb)
    assert (ca == cb) == (a == b)
    if a == b:
        assert hash(ca) == hash(cb)
    for i in range(size):
        assert (i in ca) == (i in a)
        assert (np.int64(i) in ca) == (i in a)
    assert -1 not in ca and size not in ca
    # mask round trip
    mask = ca.mask()
    assert mask.dtype == bool and mask.shape == (size,)
    assert set(np.flatnonzero(mask).tolist()) == a
    assert Coverage.from_mask(mask) == ca
    # results keep the universe and are sorted, distinct, read-only
    for c in (ca & cb, ca | cb, ca - cb):
        assert c.size == size
        assert list(c.ids) == sorted(set(c.ids.tolist()))
        assert c.ids.dtype == np.int64
        assert not c.ids.flags.writeable


def test_constructor_sorts_and_deduplicates() -> None:
    c = Coverage([5, 1, 5, 3, 1], 6)
    assert c.tolist() == [1, 3, 5]
    assert c == Coverage(np.array([1, 3, 5]), 6)
    assert c != Coverage([1, 3, 5], 7)  # another universe
    assert c != [1, 3, 5]
    assert Coverage.empty(4).tolist() == [] and len(Coverage.empty(4)) == 0
    assert Coverage.full(4).tolist() == [0, 1, 2, 3]
    assert Coverage.full(0) == Coverage.empty(0)
    assert Coverage.from_mask(np.array([False, True, True])) == Coverage([1, 2], 3)


def test_errors_and_immutability() -> None:
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        Coverage([0, 3], 3)
    with pytest.raises(ValueError):
        Coverage([-1], 3)
    with pytest.raises(ValueError, match="different example sets"):
        _ = Coverage([0], 3) & Coverage([0], 4)
    with pytest.raises(ValueError):
        _ = Coverage([0], 3) | Coverage([0], 4)
    with pytest.raises(ValueError):
        _ = Coverage([0], 3) - Coverage([0], 4)
    with pytest.raises(ValueError):
        Coverage([0], 3).issubset(Coverage([0], 4))
    c = Coverage([1], 3)
    with pytest.raises(AttributeError):
        c.size = 4  # type: ignore[misc]
    with pytest.raises(ValueError):
        c.ids[0] = 2
    assert "x" not in c and 1.0 not in c and None not in c  # not example ids
    assert "n=1/3" in repr(c)


def test_a_pickled_coverage_comes_back_equal_and_still_immutable() -> None:
    import pickle

    c = Coverage([4, 1, 1], 6)
    back = pickle.loads(pickle.dumps(c))
    assert back.tolist() == [1, 4] and back.size == 6
    with pytest.raises(AttributeError):
        back.size = 7  # type: ignore[misc]
    with pytest.raises(ValueError):
        back.ids[0] = 0


# --------------------------------------------------------------------------------------------
# weighted counts
# --------------------------------------------------------------------------------------------


def examples(labels: list[int], weights: list[float]) -> Examples:
    n = len(labels)
    return Examples(
        atoms=[Struct("e", (Const(i),)) for i in range(n)],
        labels=np.array(labels, dtype=np.int8),
        weights=np.array(weights, dtype=np.float64),
        folds=np.full(n, -1, dtype=np.int32),
        locations=[None] * n,
    )


def test_counts_by_hand() -> None:
    ex = examples([POS, POS, NEG, NEG], [1, 2, 3, 4])
    # covering examples 0 and 2: TP = w0 = 1, FP = w2 = 3; P = 1+2 = 3, N = 3+4 = 7
    c = Coverage([0, 2], 4).counts(ex)
    assert c == Counts(tp=1.0, fp=3.0, p=3.0, n=7.0)
    assert c.fn == 2.0 and c.tn == 4.0
    assert c.precision == pytest.approx(0.25)  # 1 / (1 + 3)
    assert c.recall == pytest.approx(1 / 3)
    # covering 1, 2, 3: TP 2, FP 7 -> precision 2/9, recall 2/3
    c = Coverage([1, 2, 3], 4).counts(ex)
    assert (c.tp, c.fp, c.precision, c.recall) == (2.0, 7.0, pytest.approx(2 / 9), 2 / 3)
    # other weights for the same examples (e.g. boosting's)
    c = Coverage([0, 1], 4).counts(ex, np.array([0.5, 0.25, 0.125, 0.125]))
    assert c == Counts(tp=0.75, fp=0.0, p=0.75, n=0.25)
    assert c.precision == 1.0 and c.recall == 1.0
    # nothing covered: precision and recall are 0, not NaN
    c = Coverage.empty(4).counts(ex)
    assert c == Counts(0.0, 0.0, 3.0, 7.0) and c.precision == 0.0 and c.recall == 0.0


def test_unlabeled_examples_count_for_neither_class() -> None:
    ex = examples([POS, UNLABELED, NEG, UNLABELED, POS], [1, 10, 2, 20, 3])
    c = Coverage.full(5).counts(ex)
    assert c == Counts(tp=4.0, fp=2.0, p=4.0, n=2.0)
    w = Weighting.of(ex)
    assert w.counts(Coverage.full(5)) == c
    assert w.counts(Coverage([1, 3], 5)) == Counts(0.0, 0.0, 4.0, 2.0)
    assert Counts(0.0, 0.0, 0.0, 0.0).recall == 0.0  # no positives at all


def test_weighting_by_hand() -> None:
    ex = examples([POS, POS, NEG, NEG], [1, 2, 3, 4])
    w = Weighting.of(ex)
    assert (w.p, w.n) == (3.0, 7.0)
    assert w.pos_w.tolist() == [1, 2, 0, 0] and w.neg_w.tolist() == [0, 0, 3, 4]
    assert w.counts(Coverage([0, 2], 4)) == Counts(1.0, 3.0, 3.0, 7.0)
    assert w.counts(np.array([1, 3], dtype=np.int64)) == Counts(2.0, 4.0, 3.0, 7.0)
    w2 = Weighting.of(ex, np.array([4.0, 3.0, 2.0, 1.0]))
    assert (w2.p, w2.n) == (7.0, 3.0)
    assert w2.counts(Coverage([0, 2], 4)) == Counts(4.0, 2.0, 7.0, 3.0)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([POS, NEG, UNLABELED]), st.integers(0, 1000)),
        min_size=1,
        max_size=60,
    ),
    st.data(),
)
def test_weighted_counts_match_brute_force(
    rows: list[tuple[int, int]], data: st.DataObject
) -> None:
    labels = [r[0] for r in rows]
    weights = [r[1] / 8 for r in rows]  # exact binary fractions: sums are exact
    ex = examples(labels, weights)
    covered = data.draw(st.sets(st.integers(0, len(rows) - 1)))
    tp = sum(weights[i] for i in covered if labels[i] == POS)
    fp = sum(weights[i] for i in covered if labels[i] == NEG)
    p = sum(w for w, lab in zip(weights, labels, strict=True) if lab == POS)
    n = sum(w for w, lab in zip(weights, labels, strict=True) if lab == NEG)
    expected = Counts(tp, fp, p, n)
    c = Coverage(sorted(covered), len(rows))
    assert c.counts(ex) == expected
    assert Weighting.of(ex).counts(c) == expected
    assert counts_of(c.ids, ex.labels, ex.weights) == expected


def test_unit_weights_in_class_blocks_count_by_binary_search() -> None:
    # positives 0-1, negatives 2-4, an unlabeled 5: the layout of most tasks
    ex = examples([POS, POS, NEG, NEG, NEG, UNLABELED], [1, 1, 1, 1, 1, 1])
    w = Weighting.of(ex)
    assert w.ends is not None and w.ends.tolist() == [2, 5]
    # ids 1, 3, 4, 5: one positive (1), two negatives (3, 4), the unlabeled counts for neither
    assert w.counts(Coverage([1, 3, 4, 5], 6)) == Counts(1.0, 2.0, 2.0, 3.0)
    assert w.counts(Coverage.empty(6)) == Counts(0.0, 0.0, 2.0, 3.0)
    # any other layout or weight: the gathers
    assert Weighting.of(examples([NEG, POS, POS], [1, 1, 1])).ends is None
    assert Weighting.of(examples([POS, NEG, NEG], [1, 2, 1])).ends is None


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 20), st.integers(0, 20), st.integers(0, 5), st.data())
def test_block_counts_match_brute_force(p: int, n: int, u: int, data: st.DataObject) -> None:
    labels = [POS] * p + [NEG] * n + [UNLABELED] * u
    ex = examples(labels, [1] * len(labels))
    covered = sorted(data.draw(st.sets(st.integers(0, len(labels) - 1))))
    c = Coverage(covered, len(labels))
    expected = Counts(
        float(sum(1 for i in covered if labels[i] == POS)),
        float(sum(1 for i in covered if labels[i] == NEG)),
        float(p),
        float(n),
    )
    w = Weighting.of(ex)
    assert w.ends is not None
    assert w.counts(c) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([POS, NEG, UNLABELED]), st.sampled_from([0, 1])),
        min_size=1,
        max_size=60,
    ),
    st.data(),
)
def test_zero_one_weights_in_any_layout_count_covered_units(
    rows: list[tuple[int, int]], data: st.DataObject
) -> None:
    """A covering learner's weights (covered positives set to 0), in any order of the
    classes: counted as the covered ids of weight 1."""
    labels = [r[0] for r in rows]
    weights = [float(r[1]) for r in rows]
    ex = examples(labels, weights)
    w = Weighting.of(ex)
    assert w.ends is not None or w.units is not None
    covered = sorted(data.draw(st.sets(st.integers(0, len(rows) - 1))))
    expected = Counts(
        float(sum(1 for i in covered if labels[i] == POS and weights[i] == 1)),
        float(sum(1 for i in covered if labels[i] == NEG and weights[i] == 1)),
        float(sum(1 for i in range(len(rows)) if labels[i] == POS and weights[i] == 1)),
        float(sum(1 for i in range(len(rows)) if labels[i] == NEG and weights[i] == 1)),
    )
    assert w.counts(Coverage(covered, len(rows))) == expected
    assert w.counts(np.array(covered, dtype=np.int64)) == expected


def test_units_by_hand_and_only_for_zero_one_weights() -> None:
    # positives 0 and 2 (0 covered before: weight 0), negatives 1 and 3
    w = Weighting.of(examples([POS, NEG, POS, NEG], [0, 1, 1, 1]))
    assert w.ends is None and w.units is not None
    assert w.counts(Coverage([0, 1, 2], 4)) == Counts(1.0, 1.0, 1.0, 2.0)
    assert Weighting.of(examples([POS, NEG, POS], [0, 1, 2])).units is None
    assert Weighting.of(examples([POS, NEG, POS], [0.5, 1, 1])).units is None
