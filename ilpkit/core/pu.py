"""Positive-unlabeled (PU) data: labelings with a known label frequency, and TIcER's bound.

The label frequency ``c = Pr(labeled | positive)``.  Under the "selected completely at random"
assumption every subset of the data has the same ``c``, so a subset with ``T`` examples of
which ``L`` are labeled bounds it from below (ticer-pu-relational.txt, eq. 1, the one-sided
Chebyshev inequality): with probability at least ``1 - delta``,

    c >= L/T - 0.5 * sqrt((1 - delta) / (delta * T)).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ilpkit.core.task import POS, UNLABELED
from ilpkit.errors import ConfigError


def label_frequency_bound(labeled: float, total: float, delta: float) -> float:
    """TIcER's lower bound on ``c`` from a subset of ``total`` examples, ``labeled`` labeled."""
    if not 0.0 < delta < 1.0:
        raise ConfigError(f"delta must lie in (0, 1), got {delta}")
    if total <= 0:
        return -math.inf
    return labeled / total - 0.5 * math.sqrt((1.0 - delta) / (delta * total))


def pu_labels(
    labels: npt.NDArray[np.int8],
    ids: npt.NDArray[np.int64],
    c: float,
    seed: int,
) -> npt.NDArray[np.int8]:
    """``labels`` with the examples ``ids`` turned into PU data: each positive among them stays
    labeled with probability ``c`` (one uniform draw per example, seeded by ``seed`` over the
    whole example set, so an example's fate does not depend on which fold it is in); every
    other example of ``ids`` (unlabeled positives and all negatives) becomes unlabeled.
    Examples outside ``ids`` keep their labels (test folds keep the truth)."""
    if not 0.0 < c <= 1.0:
        raise ConfigError(f"the label frequency must lie in (0, 1], got {c}")
    draws = np.random.default_rng(seed).random(len(labels))
    out = labels.copy()
    ids = np.asarray(ids, dtype=np.int64)
    keep = (labels[ids] == POS) & (draws[ids] < c)
    out[ids] = UNLABELED
    out[ids[keep]] = POS
    return out
