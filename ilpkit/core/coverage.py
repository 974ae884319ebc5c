"""Covered example sets and their weighted counts.

A :class:`Coverage` is a sorted array of distinct example ids (the ids of
:class:`~ilpkit.core.task.Examples`) within a universe of ``size`` examples.  Sorted id arrays
are compact on skewed data, where most clauses cover a small fraction of the examples, and
set operations on them are whole-array numpy calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from ilpkit.core.distinct import distinct
from ilpkit.core.task import NEG, POS, Examples

IdArray = npt.NDArray[np.int64]
_EMPTY: Final = np.zeros(0, dtype=np.int64)


class Coverage:
    """An immutable set of example ids."""

    __slots__ = ("ids", "origin", "size")
    ids: IdArray
    size: int
    origin: object
    """What the backend that computed this set noted of how (opaque to all else; not part
    of the value: equality, set algebra and pickling ignore it).  The native backend notes
    the clause, so that a refinement asked about within this coverage splits only what
    it added."""

    def __init__(
        self, ids: npt.ArrayLike, size: int, *, trusted: bool = False, origin: object = None
    ) -> None:
        arr = np.asarray(ids, dtype=np.int64)
        if not trusted:
            arr = distinct(arr)
            if arr.size and (arr[0] < 0 or arr[-1] >= size):
                raise ValueError(f"example ids must lie in [0, {size}), got {arr[0]}..{arr[-1]}")
        arr.setflags(write=False)
        object.__setattr__(self, "ids", arr)
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "origin", origin)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("Coverage is immutable")

    def __reduce__(self) -> tuple[object, tuple[IdArray, int]]:
        # pickle (process pools, saved searches) without the __setattr__ guard on the way
        # back; the ids are already sorted and distinct
        return (_rebuilt, (self.ids, self.size))

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def empty(cls, size: int) -> Coverage:
        return cls(_EMPTY, size, trusted=True)

    @classmethod
    def full(cls, size: int) -> Coverage:
        return cls(np.arange(size, dtype=np.int64), size, trusted=True)

    @classmethod
    def from_mask(cls, mask: npt.NDArray[np.bool_]) -> Coverage:
        return cls(np.flatnonzero(mask).astype(np.int64), int(mask.shape[0]), trusted=True)

    # -- views --------------------------------------------------------------------------------
    def mask(self) -> npt.NDArray[np.bool_]:
        out = np.zeros(self.size, dtype=bool)
        out[self.ids] = True
        return out

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def __contains__(self, example_id: object) -> bool:
        if not isinstance(example_id, (int, np.integer)):
            return False
        i = int(np.searchsorted(self.ids, example_id))
        return i < len(self.ids) and int(self.ids[i]) == int(example_id)

    def tolist(self) -> list[int]:
        return [int(i) for i in self.ids]

    # -- set algebra --------------------------------------------------------------------------
    def _check(self, other: Coverage) -> None:
        if other.size != self.size:
            raise ValueError(f"coverages over different example sets ({self.size} vs {other.size})")

    def __and__(self, other: Coverage) -> Coverage:
        self._check(other)
        return Coverage(
            np.intersect1d(self.ids, other.ids, assume_unique=True), self.size, trusted=True
        )

    def __or__(self, other: Coverage) -> Coverage:
        self._check(other)
        return Coverage(np.union1d(self.ids, other.ids), self.size, trusted=True)

    def __sub__(self, other: Coverage) -> Coverage:
        self._check(other)
        return Coverage(
            np.setdiff1d(self.ids, other.ids, assume_unique=True), self.size, trusted=True
        )

    def issubset(self, other: Coverage) -> bool:
        self._check(other)
        return bool(np.isin(self.ids, other.ids, assume_unique=True).all())

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Coverage)
            and other.size == self.size
            and np.array_equal(other.ids, self.ids)
        )

    def __hash__(self) -> int:
        return hash((self.size, self.ids.tobytes()))

    def __repr__(self) -> str:
        shown = ", ".join(str(i) for i in self.ids[:8])
        more = ", ..." if len(self.ids) > 8 else ""
        return f"Coverage([{shown}{more}], n={len(self)}/{self.size})"

    # -- counts -------------------------------------------------------------------------------
    def counts(self, examples: Examples, weights: npt.NDArray[np.float64] | None = None) -> Counts:
        """Weighted TP/FP of this coverage, with the class totals P and N."""
        w = examples.weights if weights is None else weights
        return counts_of(self.ids, examples.labels, w)


@dataclass(frozen=True, slots=True)
class Counts:
    """Weighted confusion counts of one clause: TP, FP and the totals P, N of the examples."""

    tp: float
    fp: float
    p: float
    n: float

    @property
    def fn(self) -> float:
        return self.p - self.tp

    @property
    def tn(self) -> float:
        return self.n - self.fp

    @property
    def precision(self) -> float:
        covered = self.tp + self.fp
        return self.tp / covered if covered > 0 else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.p if self.p > 0 else 0.0


def counts_of(
    ids: IdArray, labels: npt.NDArray[np.int8], weights: npt.NDArray[np.float64]
) -> Counts:
    """Counts for covered ``ids`` given per-example ``labels`` and ``weights``."""
    lab = labels[ids]
    w = weights[ids]
    tp = float(w[lab == POS].sum())
    fp = float(w[lab == NEG].sum())
    p = float(weights[labels == POS].sum())
    n = float(weights[labels == NEG].sum())
    return Counts(tp, fp, p, n)


def _rebuilt(ids: IdArray, size: int) -> Coverage:
    return Coverage(ids, size, trusted=True)


class Weighting:
    """Per-example weights split by class, precomputed for fast counts.

    Searches score thousands of clauses against the same weights; this keeps each count an
    O(covered) gather instead of an O(examples) pass.
    """

    __slots__ = ("ends", "n", "neg_w", "p", "pos_w", "units")

    def __init__(self, labels: npt.NDArray[np.int8], weights: npt.NDArray[np.float64]) -> None:
        self.pos_w = np.where(labels == POS, weights, 0.0)
        self.neg_w = np.where(labels == NEG, weights, 0.0)
        self.p = float(self.pos_w.sum())
        self.n = float(self.neg_w.sum())
        self.ends = _unit_blocks(self.pos_w, self.neg_w)
        """``(P, P + N)`` when the positives are ids ``[0, P)`` and the negatives
        ``[P, P + N)``, each of weight 1 (every other id 0): most tasks' own layout, where a
        count is two binary searches in the sorted ids instead of two gathers."""
        self.units: tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None = None
        """Otherwise, when every weight is 0 or 1 (a covering learner's weights: the
        positives it has covered set to 0), which ids weigh 1 in each class: a count is
        then the number of such ids covered, which ``count_nonzero`` of a boolean gather
        gives at about half the cost of summing gathered weights (equal: a sum of ones)."""
        if self.ends is None:
            pos1, neg1 = self.pos_w == 1.0, self.neg_w == 1.0
            if np.array_equal(pos1, self.pos_w != 0.0) and np.array_equal(neg1, self.neg_w != 0.0):
                self.units = (pos1, neg1)

    @classmethod
    def of(cls, examples: Examples, weights: npt.NDArray[np.float64] | None = None) -> Weighting:
        return cls(examples.labels, examples.weights if weights is None else weights)

    def counts(self, coverage: Coverage | IdArray) -> Counts:
        if isinstance(coverage, Coverage):
            ids = coverage.ids
            if self.ends is not None:  # sorted ids (Coverage's invariant), unit blocks
                p, pn = ids.searchsorted(self.ends)
                return Counts(float(p), float(pn - p), self.p, self.n)
        else:
            ids = coverage
        if self.units is not None:
            pos1, neg1 = self.units
            count = np.count_nonzero
            return Counts(float(count(pos1[ids])), float(count(neg1[ids])), self.p, self.n)
        add = np.add.reduce  # ndarray.sum's own reduction, without its Python wrapper
        return Counts(float(add(self.pos_w[ids])), float(add(self.neg_w[ids])), self.p, self.n)


def _unit_blocks(
    pos_w: npt.NDArray[np.float64], neg_w: npt.NDArray[np.float64]
) -> npt.NDArray[np.int64] | None:
    """``Weighting.ends``: the array ``[P, P + N]``, or None when the weights are not so laid
    out."""
    p = int(np.count_nonzero(pos_w))
    n = int(np.count_nonzero(neg_w))
    unit = np.zeros(len(pos_w))
    unit[:p] = 1.0
    if not np.array_equal(pos_w, unit):
        return None
    unit[:p] = 0.0
    unit[p : p + n] = 1.0
    if not np.array_equal(neg_w, unit):
        return None
    return np.array([p, p + n], dtype=np.int64)
