"""Split scores of a binary test: information gain, gain ratio, max-bepp.

Counts are (weighted) class totals ``(pos, neg)`` of the parent and of its left child (the
examples that satisfy the test); the right child holds the rest.  Entropies are in bits.

* information gain (Quinlan; TILDE's default): H(parent) - |L|/N H(L) - |R|/N H(R);
* gain ratio: gain / split information, split information = -sum_s |s|/N log2 |s|/N;
* max-bepp (Blockeel, Page & Srinivasan 2005, as TIcE uses it): the largest proportion of the
  positive class in either child, to find subsets that are as positive as possible.
"""

from __future__ import annotations

import math
from typing import Literal

SplitScore = Literal["gain", "gain-ratio", "max-bepp"]


def entropy(pos: float, neg: float) -> float:
    """Binary entropy in bits of a class distribution given by counts (0 for an empty set)."""
    total = pos + neg
    if total <= 0:
        return 0.0
    out = 0.0
    for count in (pos, neg):
        if count > 0:
            p = count / total
            out -= p * math.log2(p)
    return out


Counts = tuple[float, float]


def information_gain(
    pos: float, neg: float, left_pos: float, left_neg: float, right: Counts | None = None
) -> float:
    """``right`` is the right child's ``(pos, neg)``; by default the parent's minus the left
    child's (PU count estimates give it from the right child's own counts, see induce)."""
    total = pos + neg
    if total <= 0:
        return 0.0
    left = left_pos + left_neg
    right_pos, right_neg = (pos - left_pos, neg - left_neg) if right is None else right
    right_total = right_pos + right_neg
    return (
        entropy(pos, neg)
        - (left / total) * entropy(left_pos, left_neg)
        - (right_total / total) * entropy(right_pos, right_neg)
    )


def split_information(total: float, left: float) -> float:
    return entropy(left, total - left)


def gain_ratio(
    pos: float, neg: float, left_pos: float, left_neg: float, right: Counts | None = None
) -> float:
    """Gain divided by split information; 0 for a split that sends everything one way."""
    info = split_information(pos + neg, left_pos + left_neg)
    if info <= 0:
        return 0.0
    return information_gain(pos, neg, left_pos, left_neg, right) / info


def max_bepp(
    pos: float, neg: float, left_pos: float, left_neg: float, right: Counts | None = None
) -> float:
    """The larger positive proportion of the two children (an empty child counts 0)."""
    left = left_pos + left_neg
    right_pos, right_neg = (pos - left_pos, neg - left_neg) if right is None else right
    right_total = right_pos + right_neg
    best = 0.0
    if left > 0:
        best = max(best, left_pos / left)
    if right_total > 0:
        best = max(best, right_pos / right_total)
    return best


def score(
    kind: SplitScore,
    pos: float,
    neg: float,
    left_pos: float,
    left_neg: float,
    *,
    right: Counts | None = None,
) -> float:
    if kind == "gain":
        return information_gain(pos, neg, left_pos, left_neg, right)
    if kind == "gain-ratio":
        return gain_ratio(pos, neg, left_pos, left_neg, right)
    return max_bepp(pos, neg, left_pos, left_neg, right)


def improves(kind: SplitScore, value: float, pos: float, neg: float) -> bool:
    """Whether a split scoring ``value`` is worth making at a node with counts (pos, neg):
    gain and gain ratio must be positive; max-bepp must beat the node's own proportion."""
    if kind == "max-bepp":
        total = pos + neg
        return total > 0 and value > pos / total + 1e-12
    return value > 1e-12
