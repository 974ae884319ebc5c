"""Isotonic calibration: scores to probabilities that never decrease with the score.

Pool-adjacent-violators on the distinct score values (weighted), as GleanerSRL's isotonic
calibration and the estimator wrapper's ``predict_proba`` need. A score between two fitted
values gets the value of the nearest fitted score below it (a step function); below every
fitted score, the lowest value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Isotonic:
    """A fitted non-decreasing step function: ``values[i]`` from ``thresholds[i]`` upwards."""

    thresholds: FloatArray
    values: FloatArray

    def __call__(self, scores: npt.ArrayLike) -> FloatArray:
        s = np.asarray(scores, dtype=np.float64)
        index = np.searchsorted(self.thresholds, s, side="right") - 1
        out: FloatArray = self.values[np.clip(index, 0, len(self.values) - 1)]
        return out


def isotonic_fit(
    scores: npt.ArrayLike,
    labels: npt.ArrayLike,
    weights: npt.ArrayLike | None = None,
    prior: float = 0.0,
) -> Isotonic:
    """Fit P(positive | score) non-decreasing in the score.

    ``prior`` > 0 adds that many pseudo-examples at the overall rate to each distinct score
    (smoothing, e.g. 1 for Laplace-like estimates) before pooling.
    """
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels, dtype=np.float64).ravel()
    w = np.ones_like(s) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    if not (len(s) == len(y) == len(w)) or len(s) == 0:
        raise ValueError("isotonic calibration needs equally long, non-empty scores and labels")
    thresholds, inverse = np.unique(s, return_inverse=True)
    weight: FloatArray = np.bincount(inverse, weights=w).astype(np.float64)
    positive: FloatArray = np.bincount(inverse, weights=w * y).astype(np.float64)
    if prior > 0:
        rate = positive.sum() / weight.sum()
        positive = positive + prior * rate
        weight = weight + prior
    # pool adjacent violators: blocks of (weighted positives, weight, first index)
    block_pos: list[float] = []
    block_w: list[float] = []
    block_start: list[int] = []
    for i in range(len(thresholds)):
        block_pos.append(float(positive[i]))
        block_w.append(float(weight[i]))
        block_start.append(i)
        while len(block_w) > 1 and block_pos[-2] / block_w[-2] >= block_pos[-1] / block_w[-1]:
            last_pos, last_w = block_pos.pop(), block_w.pop()
            block_pos[-1] += last_pos
            block_w[-1] += last_w
            block_start.pop()
    values = np.empty(len(thresholds))
    ends = [*block_start[1:], len(thresholds)]
    for start, end, p, wt in zip(block_start, ends, block_pos, block_w, strict=True):
        values[start:end] = p / wt
    return Isotonic(thresholds, values)


def leave_one_out(scores: npt.ArrayLike, labels: npt.ArrayLike, prior: float = 0.0) -> FloatArray:
    """``p_i``: each example's probability from an isotonic fit on all the *other* examples.

    GleanerSRL tunes its probability floor on these (gleanersrl sec. 3).  Examples with the
    same (score, label) get the same value, so one fit per distinct pair is enough.
    """
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels, dtype=np.float64).ravel()
    if len(s) != len(y) or len(s) < 2:
        raise ValueError("leave-one-out calibration needs at least two scored examples")
    out = np.empty(len(s))
    done: dict[tuple[float, float], float] = {}
    for i in range(len(s)):
        key = (float(s[i]), float(y[i]))
        if key not in done:
            keep = np.ones(len(s), dtype=bool)
            keep[i] = False
            done[key] = float(isotonic_fit(s[keep], y[keep], prior=prior)(s[i : i + 1])[0])
        out[i] = done[key]
    return out


def choose_floor(
    probs: npt.ArrayLike, labels: npt.ArrayLike, floors: tuple[float, ...]
) -> tuple[float, list[float]]:
    """The floor of ``floors`` whose clipped ``probs`` have the lowest mean cross entropy
    (the first one on ties), and every floor's MCE, in order."""
    from ilpkit.core.metrics import mean_cross_entropy

    if not floors:
        raise ValueError("no probability floors to choose from")
    mces = [mean_cross_entropy(probs, labels, floor) for floor in floors]
    best = min(range(len(floors)), key=lambda k: (mces[k], k))
    return floors[best], mces
