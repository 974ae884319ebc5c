"""Propositionalisation: clauses as Boolean features of examples.

Several methods turn a set of first-order clauses into a feature matrix, one column per clause,
one row per example, ``True`` where the clause covers the example: GleanerSRL's Boolean
features, the static propositionalisation baseline of R4F (random rules + a random forest).
This module is the one place that does it, through the backend's batch coverage path
(``coverage_many``), so every backend gives the same matrix.

Large matrices are returned as a SciPy CSR matrix when SciPy is installed and the density is
low (``sparse="auto"``): a thousand rules over 100k examples stay small when most rules cover
few examples, as is usual on skewed data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ilpkit.core.backend import BackendProtocol
from ilpkit.core.coverage import Coverage
from ilpkit.core.limits import coverage_many_within_limits
from ilpkit.prolog.terms import Clause

SparseMode = Literal["auto", "dense", "sparse"]

_SPARSE_DENSITY: float = 0.1
"""Below this fraction of True cells, ``sparse="auto"`` returns a CSR matrix."""


BatchCoverage = BackendProtocol
"""What propositionalisation needs from a backend: the one backend contract."""


def coverage_matrix(
    coverages: Sequence[Coverage], ids: npt.NDArray[np.int64], *, sparse: SparseMode = "dense"
) -> Any:
    """The ``len(ids) x len(coverages)`` Boolean matrix of which example each coverage holds.

    Row ``r`` is example ``ids[r]``; column ``c`` is ``coverages[c]``.
    """
    ids = np.asarray(ids, dtype=np.int64)
    rows: list[npt.NDArray[np.int64]] = []
    cols: list[npt.NDArray[np.int64]] = []
    for c, cov in enumerate(coverages):
        pos = np.searchsorted(ids, cov.ids) if _is_sorted(ids) else None
        if pos is not None:
            pos = np.minimum(pos, max(len(ids) - 1, 0))
            hit = (ids[pos] == cov.ids) if len(ids) else np.zeros(len(cov.ids), dtype=bool)
            r = pos[hit]
        else:
            r = np.flatnonzero(np.isin(ids, cov.ids))
        rows.append(r.astype(np.int64))
        cols.append(np.full(len(r), c, dtype=np.int64))
    row = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    col = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    shape = (len(ids), len(coverages))
    cells = max(shape[0] * shape[1], 1)
    want_sparse = sparse == "sparse" or (sparse == "auto" and len(row) / cells < _SPARSE_DENSITY)
    if want_sparse:
        try:
            from scipy.sparse import csr_matrix
        except ImportError:  # pragma: no cover - scipy comes with scikit-learn
            want_sparse = False
        else:
            return csr_matrix((np.ones(len(row), dtype=bool), (row, col)), shape=shape)
    dense = np.zeros(shape, dtype=bool)
    dense[row, col] = True
    return dense


def propositionalise(
    backend: BatchCoverage,
    clauses: Sequence[Clause],
    ids: npt.NDArray[np.int64] | None = None,
    *,
    sparse: SparseMode = "dense",
) -> Any:
    """Boolean features of ``ids`` (default: every example), one column per clause.

    Coverage is asked once for all clauses, restricted to ``ids``, through
    ``backend.coverage_many`` (the batch path, where backends share work between clauses).
    """
    n = backend.n_examples
    ids = np.arange(n, dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
    among = Coverage(ids, n)
    coverages = coverage_many_within_limits(backend, list(clauses), among) if clauses else []
    return coverage_matrix(coverages, ids, sparse=sparse)


def _is_sorted(ids: npt.NDArray[np.int64]) -> bool:
    return bool(len(ids) < 2 or np.all(ids[1:] > ids[:-1]))
