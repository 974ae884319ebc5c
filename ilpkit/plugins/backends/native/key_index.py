"""A sorted index of a relation on several bound columns at once, for the set-at-a-time
evaluator's fact joins (:meth:`~ilpkit.plugins.backends.native.vectorised.Evaluator._join`).

Why: a join used to look rows up on the *first* bound column only and filter on the others
afterwards.  In mutagenesis' ring perception that column is the drug
(``bondd(Drug, Atom1, Atom2, T)`` with ``Drug`` and ``Atom1`` bound), so every partial proof
was first paired with all of its drug's ~50 bonds and then filtered down to the one or two of
``Atom1`` -- copying every column of the table of partial proofs ~25 times over.  Looking up
all bound columns together yields exactly the matching rows.

How: each indexed column's values are replaced by their rank among the column's distinct
values (``np.unique``), the ranks are packed into one int64 code per row (mixed radix), and the
rows are ordered by code with a *stable* sort.  A probe's code is built the same way (a value
absent from the column matches nothing), and ``searchsorted`` gives, for each probe, the run of
rows with that code -- in the relation's own order, so a join keeps Prolog's answer order.
Columns are packed while the product of their distinct counts stays below 2**62; any others
are left to the caller to filter.
"""

from __future__ import annotations

import numpy as np

from ilpkit.core.distinct import distinct
from ilpkit.plugins.backends.native.vectorised_values import Ids

_PACK_LIMIT = 2**62


class KeyIndex:
    """Rows of ``rel`` (an ``(n, arity)`` id array) ordered by their values in ``cols``.

    :attr:`cols` is the prefix of the requested columns that fitted in one code; probes
    (:meth:`bounds`) give one value array per column of it."""

    __slots__ = ("codes", "cols", "order", "strides", "uniques")

    def __init__(self, rel: Ids, cols: tuple[int, ...]) -> None:
        uniques: list[Ids] = []
        span = 1
        for j in cols:
            u = distinct(rel[:, j])
            if uniques and span * max(len(u), 1) >= _PACK_LIMIT:
                break
            uniques.append(u)
            span *= max(len(u), 1)
        self.cols = cols[: len(uniques)]
        self.uniques = uniques
        strides = [1] * len(uniques)
        for i in range(len(uniques) - 2, -1, -1):
            strides[i] = strides[i + 1] * max(len(uniques[i + 1]), 1)
        self.strides = strides
        if len(uniques) == 1:  # one column: its values are the codes (no ranks needed)
            codes = rel[:, cols[0]].astype(np.int64, copy=False)
        else:
            codes = np.zeros(len(rel), dtype=np.int64)
            for j, u, s in zip(self.cols, uniques, strides, strict=True):
                codes += np.searchsorted(u, rel[:, j]) * s
        self.order = np.argsort(codes, kind="stable")
        self.codes = codes[self.order]

    def bounds(self, probes: list[Ids]) -> tuple[Ids, Ids]:
        """``(lo, hi)``: per probe row, the positions in :attr:`order` of the rows whose
        indexed columns equal the probe's values (``lo == hi``: none)."""
        if len(self.uniques) == 1:
            code = probes[0]
            return (
                np.searchsorted(self.codes, code, "left"),
                np.searchsorted(self.codes, code, "right"),
            )
        n = len(probes[0])
        code = np.zeros(n, dtype=np.int64)
        ok = np.ones(n, dtype=bool)
        for vals, u, s in zip(probes, self.uniques, self.strides, strict=True):
            if len(u) == 0:
                ok[:] = False
                break
            p = np.minimum(np.searchsorted(u, vals), len(u) - 1)
            ok &= u[p] == vals
            code += p * s
        lo = np.searchsorted(self.codes, code, "left")
        hi = np.searchsorted(self.codes, code, "right")
        hi[~ok] = lo[~ok]
        return lo, hi
