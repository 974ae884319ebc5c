"""propositionalise / coverage_matrix: rows are examples, columns are clauses."""

from __future__ import annotations

import numpy as np

from ilpkit.core.coverage import Coverage
from ilpkit.core.features import coverage_matrix


def test_matrix_rows_follow_ids_and_columns_follow_coverages() -> None:
    # universe of 6 examples; rows asked for ids 1, 3, 4
    covs = [Coverage([0, 1, 4], 6), Coverage([3], 6), Coverage([], 6)]
    ids = np.array([1, 3, 4])
    m = coverage_matrix(covs, ids)
    expected = np.array([[True, False, False], [False, True, False], [True, False, False]])
    assert m.dtype == bool
    np.testing.assert_array_equal(m, expected)


def test_unsorted_ids_and_sparse_agree_with_dense() -> None:
    covs = [Coverage([0, 5], 6), Coverage([2, 5], 6)]
    ids = np.array([5, 0, 2])
    dense = coverage_matrix(covs, ids)
    np.testing.assert_array_equal(dense, [[True, True], [True, False], [False, True]])
    sparse = coverage_matrix(covs, ids, sparse="sparse")
    np.testing.assert_array_equal(sparse.toarray(), dense)
