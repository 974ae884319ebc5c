"""GleanerSRL's kernels (gleanersrl sec. 2.3, Table 1) as ``kernel`` plugins.

Every kernel of Table 1 is a sum over features, ``K(x_i, x_j) = sum_f k_f(x_if, x_jf)``, where
``k_f`` may use the feature's training statistics (:class:`FeatureStats`: TP, FP, the
training set's size and positives).  A kernel plugin's factory returns an object with

* ``gram(a, b, stats)``: the matrix ``K(a_r, b_s)`` (rows of ``a`` and ``b`` are examples);
* ``feature_map(x, stats)``: an explicit map ``phi`` with ``K(a, b) = phi(a) . phi(b)``, or
  ``None`` when the kernel has none (then the learner trains a precomputed-kernel SVM).

Four kernels of Table 1 give a non-zero ``k`` only when both values are 1:
``k(1, 1) = c_f`` (dot 1, precision ``precision_f``, recall ``1 - recall_f``, both-pos
``precision_f ** 2``).  Then ``K(a, b) = sum_f c_f a_f b_f = phi(a) . phi(b)`` with
``phi_f(x) = sqrt(c_f) x_f``: an explicit feature map, so a linear SVM trains on it and scales
to 100k+ examples.  On real-valued features (the binned ones) the same bilinear form is used.

The info kernel also scores one-sided and double misses, from ``p_f = (TP+FP)/|train|``:
``k(1,1) = -log2 p_f^2``, ``k(1,0) = k(0,1) = -log2(2 p_f (1 - p_f))``,
``k(0,0) = -log2 (1 - p_f)^2``; for values in [0, 1] we use the bilinear extension
``sum_{u,v in {0,1}} k(u, v) [a or 1-a][b or 1-b]``.  It is not positive semi-definite when
``p_f`` is skewed, so it has no feature map.  Decision: ``p_f`` is clipped into
``[0.5/|train|, 1 - 0.5/|train|]`` so a clause covering every (or no) training example keeps
finite logs.

A third-party kernel is a ``PluginSpec(kind="kernel", ...)`` returned from
``ilpkit_register_plugins``, like any other plugin; ``--set learner.kernel=NAME`` picks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict

from ilpkit.core.plugins import PluginSpec

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class FeatureStats:
    """Training statistics of every feature: ``tp[f]``, ``fp[f]`` (examples whose value is
    non-zero), the training set's size ``n`` and positives ``p``."""

    tp: FloatArray
    fp: FloatArray
    n: float
    p: float

    @property
    def precision(self) -> FloatArray:
        covered = self.tp + self.fp
        out: FloatArray = np.divide(self.tp, covered, out=np.zeros_like(self.tp), where=covered > 0)
        return out

    @property
    def recall(self) -> FloatArray:
        out: FloatArray = self.tp / self.p if self.p > 0 else np.zeros_like(self.tp)
        return out

    @property
    def coverage_rate(self) -> FloatArray:
        """``p_f = (TP + FP) / |train|`` (Table 1's info kernel)."""
        return (self.tp + self.fp) / max(self.n, 1.0)

    def to_json(self) -> dict[str, Any]:
        return {"tp": self.tp.tolist(), "fp": self.fp.tolist(), "n": self.n, "p": self.p}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FeatureStats:
        return cls(
            np.asarray(data["tp"], dtype=np.float64),
            np.asarray(data["fp"], dtype=np.float64),
            float(data["n"]),
            float(data["p"]),
        )

    @classmethod
    def measure(cls, x: Any, positive: npt.NDArray[np.bool_]) -> FeatureStats:
        """Statistics of the columns of ``x`` (training rows) against their labels."""
        nonzero = np.asarray(x != 0, dtype=np.float64) if not _is_sparse(x) else x != 0
        pos = np.asarray(positive, dtype=np.float64)
        tp = np.asarray(nonzero.T @ pos, dtype=np.float64).ravel()
        fp = np.asarray(nonzero.T @ (1.0 - pos), dtype=np.float64).ravel()
        return cls(tp, fp, float(len(pos)), float(pos.sum()))


class Kernel(Protocol):
    """What a ``kernel`` plugin's factory returns."""

    name: str

    def gram(self, a: Any, b: Any, stats: FeatureStats) -> FloatArray: ...

    def feature_map(self, x: Any, stats: FeatureStats) -> Any | None: ...


class MatchKernel:
    """``k(1, 1) = c_f``, 0 otherwise: linear, with ``phi_f(x) = sqrt(c_f) x_f``.

    Subclasses define :meth:`match_value` (Table 1's ``k(1, 1)``)."""

    name = "match"

    def match_value(self, stats: FeatureStats) -> FloatArray:
        raise NotImplementedError

    def scale(self, stats: FeatureStats) -> FloatArray:
        c = self.match_value(stats)
        if np.any(c < 0):
            raise ValueError(f"kernel {self.name!r}: k(1,1) must be >= 0 for a feature map")
        return np.sqrt(c)

    def feature_map(self, x: Any, stats: FeatureStats) -> Any:
        s = self.scale(stats)
        if _is_sparse(x):
            return x.astype(np.float64).multiply(s[None, :]).tocsr()
        return np.asarray(x, dtype=np.float64) * s[None, :]

    def gram(self, a: Any, b: Any, stats: FeatureStats) -> FloatArray:
        fa, fb = self.feature_map(a, stats), self.feature_map(b, stats)
        return np.asarray(_dense(fa @ fb.T), dtype=np.float64)


class DotKernel(MatchKernel):
    """Dot product: ``k(1,1) = 1``."""

    name = "dot"

    def match_value(self, stats: FeatureStats) -> FloatArray:
        return np.ones_like(stats.tp)


class PrecisionKernel(MatchKernel):
    """``k(1,1) = precision_f`` (train set)."""

    name = "precision"

    def match_value(self, stats: FeatureStats) -> FloatArray:
        return stats.precision


class RecallKernel(MatchKernel):
    """``k(1,1) = 1 - recall_f``: matching on a low-recall clause counts more."""

    name = "recall"

    def match_value(self, stats: FeatureStats) -> FloatArray:
        return 1.0 - stats.recall


class BothPosKernel(MatchKernel):
    """``k(1,1) = precision_f ** 2``: both examples positive given both match."""

    name = "both-pos"

    def match_value(self, stats: FeatureStats) -> FloatArray:
        return stats.precision**2


class InfoKernel:
    """Information content of both / one / neither example matching (Table 1, ``info``)."""

    name = "info"

    def values(self, stats: FeatureStats) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(k(1,1), k(1,0), k(0,0))`` per feature."""
        eps = 0.5 / max(stats.n, 1.0)
        p = np.clip(stats.coverage_rate, eps, 1.0 - eps)
        return -np.log2(p**2), -np.log2(2.0 * p * (1.0 - p)), -np.log2((1.0 - p) ** 2)

    def feature_map(self, x: Any, stats: FeatureStats) -> None:
        return None

    def gram(self, a: Any, b: Any, stats: FeatureStats) -> FloatArray:
        k11, k10, k00 = self.values(stats)
        a1, b1 = np.asarray(_dense(a), dtype=np.float64), np.asarray(_dense(b), dtype=np.float64)
        a0, b0 = 1.0 - a1, 1.0 - b1
        out: FloatArray = (
            (a1 * k11) @ b1.T + (a1 * k10) @ b0.T + (a0 * k10) @ b1.T + (a0 * k00) @ b0.T
        )
        return out


class KernelOptions(BaseModel):
    """Table 1's kernels take no options."""

    model_config = ConfigDict(extra="forbid")


def _factory(cls: type[Any]) -> Any:
    def make(options: KernelOptions) -> Kernel:
        kernel: Kernel = cls()
        return kernel

    return make


SPECS = [
    PluginSpec(
        kind="kernel",
        name=cls.name,
        factory=_factory(cls),
        options=KernelOptions,
        doc=f"GleanerSRL kernel (Table 1): {(cls.__doc__ or '').splitlines()[0]}",
    )
    for cls in (DotKernel, PrecisionKernel, RecallKernel, BothPosKernel, InfoKernel)
]


def _is_sparse(x: Any) -> bool:
    return hasattr(x, "tocsr")


def _dense(x: Any) -> Any:
    return x.toarray() if _is_sparse(x) else x
