"""GleanerSRL stage 2 (gleanersrl sec. 2.2): Gleaner's clauses as features of examples.

* ``boolean``: one feature per unique clause (variants merged: clauses equal up to variable
  renaming share one canonical text), 1 where the clause covers the example.
* ``binned``: one feature per recall bin: the sum of the training precision of the bin
  theory's clauses (one per seed; a clause kept by two seeds counts twice) that cover it.
* ``binned-normalised``: the binned feature divided by its maximum on the training set.
* ``gleaner``: the baseline, one feature: how many clauses of Gleaner's ranking bin cover the
  example (Gleaner's own score, ``ilpkit.plugins.learners.gleaner``); no SVM is trained on it.

Coverage goes through :func:`ilpkit.core.features.propositionalise` (the backend's batch
path), so every backend gives the same matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ilpkit.core.features import propositionalise
from ilpkit.core.learner import ClauseBackend, parse_clause
from ilpkit.prolog.terms import Clause

FeatureKind = Literal["boolean", "binned", "binned-normalised", "gleaner"]
FloatArray = npt.NDArray[np.float64]


@dataclass
class FeatureSpace:
    """How to turn examples into GleanerSRL's feature vectors (plain data, JSON round trip).

    ``clauses`` are the unique clauses whose coverage is needed; ``bins[b]`` lists the clause
    indices of bin b's theory (with repeats), ``precision[c]`` is clause c's training
    precision and ``scale[b]`` divides bin b's feature (1 unless normalised).
    """

    kind: FeatureKind
    clauses: list[Clause]
    bins: list[list[int]]
    bin_names: list[int]
    precision: FloatArray
    scale: FloatArray

    @property
    def n_features(self) -> int:
        return len(self.clauses) if self.kind == "boolean" else len(self.bins)

    def feature_names(self) -> list[str]:
        if self.kind == "boolean":
            return [str(c) for c in self.clauses]
        if self.kind == "gleaner":
            return ["gleaner ranking-bin matches"]
        return [f"bin {b}" for b in self.bin_names]

    def booleans(self, backend: ClauseBackend, ids: npt.NDArray[np.int64]) -> Any:
        """The Boolean clause-coverage matrix of ``ids`` (rows) by ``clauses`` (columns)."""
        return propositionalise(backend, self.clauses, ids, sparse="auto")

    def transform(self, backend: ClauseBackend, ids: npt.NDArray[np.int64]) -> Any:
        """The feature matrix of ``ids``: rows are examples."""
        return self.from_booleans(self.booleans(backend, ids))

    def from_booleans(self, x: Any) -> Any:
        if self.kind == "boolean":
            return x
        return np.asarray(x @ self.bin_matrix(), dtype=np.float64) / self.scale[None, :]

    def bin_matrix(self) -> FloatArray:
        """``M[c, b]``: what clause c adds to bin b's feature when it covers an example
        (its precision times how often bin b's theory holds it; 1 per clause for gleaner)."""
        m = np.zeros((len(self.precision), len(self.bins)))
        for b, members in enumerate(self.bins):
            for c in members:
                m[c, b] += 1.0 if self.kind == "gleaner" else self.precision[c]
        return m

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "clauses": [str(c) for c in self.clauses],
            "bins": self.bins,
            "bin_names": self.bin_names,
            "precision": self.precision.tolist(),
            "scale": self.scale.tolist(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FeatureSpace:
        return cls(
            kind=data["kind"],
            clauses=[parse_clause(t) for t in data["clauses"]],
            bins=[[int(c) for c in members] for members in data["bins"]],
            bin_names=[int(b) for b in data["bin_names"]],
            precision=np.asarray(data["precision"], dtype=np.float64),
            scale=np.asarray(data["scale"], dtype=np.float64),
        )


def build_space(
    kind: FeatureKind,
    bin_clauses: dict[int, list[Clause]],
    ranking_bin: int | None,
    backend: ClauseBackend,
    train: npt.NDArray[np.int64],
    positive: npt.NDArray[np.bool_],
) -> tuple[FeatureSpace, Any]:
    """The feature space of Gleaner's kept clauses, and the training examples' booleans.

    ``bin_clauses`` is Gleaner's stage 1 (bin -> one clause per seed, canonical); ``positive``
    holds the training labels. Training precision of each clause comes from its coverage.
    """
    if kind == "gleaner":
        chosen = {} if ranking_bin is None else {ranking_bin: bin_clauses.get(ranking_bin, [])}
    else:
        chosen = bin_clauses
    index: dict[str, int] = {}
    clauses: list[Clause] = []
    bins: list[list[int]] = []
    for b in sorted(chosen):
        members = []
        for clause in chosen[b]:
            text = str(clause.canonical())
            if text not in index:
                index[text] = len(clauses)
                clauses.append(clause.canonical())
            members.append(index[text])
        bins.append(members)
    space = FeatureSpace(
        kind, clauses, bins, sorted(chosen), np.zeros(len(clauses)), np.ones(len(bins))
    )
    x = space.booleans(backend, train)
    pos = np.asarray(positive, dtype=np.float64)
    tp = np.asarray(x.T @ pos, dtype=np.float64).ravel()
    covered = np.asarray(x.sum(axis=0), dtype=np.float64).ravel()
    space.precision = np.divide(tp, covered, out=np.zeros_like(tp), where=covered > 0)
    if kind == "binned-normalised":
        top = np.asarray(x @ space.bin_matrix(), dtype=np.float64).max(axis=0, initial=0.0)
        space.scale = np.where(top > 0, top, 1.0)
    return space, x
