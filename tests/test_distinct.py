"""``ilpkit.core.distinct``: sorted distinct ids without ``np.unique`` (which imports
``numpy.ma`` and hashes slowly in numpy >= 2.3)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ilpkit.core.distinct import distinct, distinct_of_sorted


def test_hand_checked_cases() -> None:
    assert distinct([3, 1, 3, 0, 1]).tolist() == [0, 1, 3]
    assert distinct([5]).tolist() == [5]
    assert distinct(np.zeros(0, dtype=np.int64)).tolist() == []
    assert distinct([[2, 1], [1, 7]]).tolist() == [1, 2, 7]  # flattened, as np.unique does
    assert distinct_of_sorted(np.array([0, 0, 2, 2, 2, 9])).tolist() == [0, 2, 9]


def test_keeps_the_dtype_and_copies() -> None:
    ids = np.array([4, 4, 1], dtype=np.int32)
    assert distinct(ids).dtype == np.int32
    ordered = np.array([1, 2], dtype=np.int64)
    out = distinct_of_sorted(ordered)
    out[0] = 99
    assert ordered.tolist() == [1, 2]  # a new array, even when nothing repeats


@given(st.lists(st.integers(-(2**40), 2**40), max_size=60))
def test_equals_numpy_unique(values: list[int]) -> None:
    arr = np.array(values, dtype=np.int64)
    assert distinct(arr).tolist() == np.unique(arr).tolist()
    assert distinct_of_sorted(np.sort(arr)).tolist() == np.unique(arr).tolist()
