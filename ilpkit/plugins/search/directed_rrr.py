"""``directed-rrr``: Rapid Random Restart directed by two Bayesian networks (dissertation ch. 5).

Table 5.1's modified RRR. Two noisy-OR networks share the structure of the bottom clause's
literal network (Table 5.2, :mod:`ilpkit.core.literal_graph`; parameters,
:mod:`ilpkit.plugins.search.noisy_or`):

* EXPLOIT, trained on good clauses: the clauses Gleaner's stage 1 keeps from this search (per
  recall bin, the best training precision x recall; ``bins``) and the trajectories that led to
  them (each evaluated clause records the clause it was reached from), every clause weighted
  by its training F1 (5.1.2). When a bin's best changes, the old clause's trajectory is taken
  out of the counts and the new one put in.
* EXPLORED, trained on every evaluated clause, weight 1.

Both are updated as each clause is evaluated. A clause's weight is (5.1.3)

    W = alpha * EXPLOIT + (1 - alpha) * (1 - EXPLORED),

alpha drawn uniformly from [``alpha_min``, ``alpha_max``] at each restart. A restart's initial
clause comes from K (``hill_climbs``) model-only hill climbs, each from a uniformly drawn legal
clause, moving to the neighbour of highest W while W grows; one of the K peaks is picked with
probability proportional to W. The local search is RRR's best-first add/remove search, except
that the unseen neighbours of the expanded clause are weighted by W and only L
(``sampled_neighbours``) of them, drawn in proportion to W without replacement, are evaluated
on data. Restarts follow every ``rrr_cutoff`` evaluated clauses.

Decisions the text leaves open: the K climbs start from uniform legal clauses (RRR's start);
a climb stops after ``max_climb_steps`` moves; when every W of a draw is 0 the draw is uniform;
neighbours never drawn stay eligible for later expansions.
"""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ilpkit.core.literal_graph import literal_network
from ilpkit.core.metrics import f1
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.refine import ClauseIds
from ilpkit.core.search import BudgetExhausted, Evaluated, SearchContext, sort_key
from ilpkit.plugins.search.noisy_or import FloatArray, NoisyOrNetwork, clause_matrix
from ilpkit.plugins.search.rrr import StartPicker, StartRule


class DirectedRRROptions(BaseModel):
    """Options of directed RRR (defaults: dissertation 5.2)."""

    model_config = ConfigDict(extra="forbid")

    rrr_cutoff: int = Field(default=1000, ge=1, description="Clauses evaluated per restart.")
    max_restarts: int | None = Field(
        default=None, ge=1, description="Restarts at most (None: until the budget is spent)."
    )
    alpha_min: float = Field(default=0.01, ge=0, le=1, description="Lowest alpha of a restart.")
    alpha_max: float = Field(default=0.75, ge=0, le=1, description="Highest alpha of a restart.")
    hill_climbs: int = Field(
        default=10, ge=1, description="K: model-only hill climbs for each initial clause."
    )
    sampled_neighbours: int = Field(
        default=20, ge=1, description="L: neighbours drawn by W and evaluated per expansion."
    )
    max_climb_steps: int = Field(
        default=100, ge=0, description="Moves at most in one model-only hill climb."
    )
    bins: int = Field(
        default=20, ge=1, description="Recall bins whose best clauses train EXPLOIT (Gleaner's)."
    )
    pseudo_count: float = Field(
        default=1.0, ge=0, description="Pseudo-count a of the noisy-OR estimates (0: raw ratios)."
    )
    prior: float = Field(
        default=0.5, ge=0, le=1, description="Prior p0 that the pseudo-count pulls towards."
    )
    normalise: Literal["geometric", "joint"] = Field(
        default="geometric",
        description="Clause probability: geometric mean per node of the joint, or the joint.",
    )
    start: StartRule = Field(
        default="uniform", description="Start of each model-only climb (as rrr's start)."
    )
    max_start_states: int = Field(
        default=200_000, ge=1, description="States the uniform start may count (as rrr's)."
    )

    @model_validator(mode="after")
    def _alpha_range(self) -> DirectedRRROptions:
        if self.alpha_min > self.alpha_max:
            raise ValueError(
                f"alpha_min ({self.alpha_min}) must not exceed alpha_max ({self.alpha_max})"
            )
        return self


class DirectedModel:
    """EXPLOIT and EXPLORED over one bottom clause, kept up to date with the search."""

    def __init__(self, ctx: SearchContext, options: DirectedRRROptions) -> None:
        self.n = len(ctx.bottom)
        self.graph = literal_network(ctx.bottom)
        args = (self.graph, self.n, options.pseudo_count, options.prior, options.normalise)
        self.exploit = NoisyOrNetwork(*args)
        self.explored = NoisyOrNetwork(*args)
        self.bins = options.bins
        self.records: dict[int, tuple[ClauseIds, float, int | None]] = {}
        self.kept: dict[int, tuple[float, int]] = {}  # bin -> (precision*recall, number)
        self.seconds = 0.0  # CPU time spent in the model (updates and weights)

    def weights(self, bodies: Sequence[ClauseIds], alpha: float) -> FloatArray:
        """W of each clause."""
        t0 = time.process_time()
        x = clause_matrix(bodies, self.n)
        w = alpha * self.exploit.probability(x) + (1.0 - alpha) * (
            1.0 - self.explored.probability(x)
        )
        self.seconds += time.process_time() - t0
        return w

    def observe(self, e: Evaluated) -> None:
        """Update both networks with an evaluated clause."""
        t0 = time.process_time()
        counts = e.counts
        self.records[e.number] = (e.body, f1(counts.tp, counts.fp, counts.p), e.parent)
        self.explored.add(clause_matrix([e.body], self.n), [1.0])
        if counts.tp > 0:
            score = counts.precision * counts.recall
            b = min(int(counts.recall * self.bins + 1e-9), self.bins - 1)
            old = self.kept.get(b)
            if old is None or score > old[0]:
                if old is not None:
                    self._train(old[1], -1.0)
                self.kept[b] = (score, e.number)
                self._train(e.number, 1.0)
        self.seconds += time.process_time() - t0

    def trajectory(self, number: int) -> list[tuple[ClauseIds, float]]:
        """The clause ``number`` and those it was reached from, back to its start."""
        out = []
        at: int | None = number
        while at is not None and at in self.records:
            body, weight, parent = self.records[at]
            out.append((body, weight))
            at = parent
        return out

    def _train(self, number: int, sign: float) -> None:
        path = self.trajectory(number)
        self.exploit.add(clause_matrix([b for b, _ in path], self.n), [sign * w for _, w in path])


class DirectedRapidRandomRestart:
    name = "directed-rrr"

    def __init__(self, options: DirectedRRROptions | None = None) -> None:
        self.options = options if options is not None else DirectedRRROptions()
        self.restarts = 0
        self.start_fallbacks = 0
        self.fallback_restarts = 0
        self.model: DirectedModel | None = None

    def run(self, ctx: SearchContext) -> Evaluated | None:
        o = self.options
        model = self.model = DirectedModel(ctx, o)
        starts = StartPicker(ctx, o.start, o.max_start_states)
        self.start_fallbacks += int(starts.fallback)
        best: Evaluated | None = None
        self.restarts = 0

        def evaluate(body: ClauseIds, origin: Evaluated | None) -> Evaluated:
            nonlocal best
            parent = origin if origin is not None and len(body) > len(origin.body) else None
            e = ctx.evaluate(body, parent=parent, origin=origin)
            model.observe(e)
            if ctx.acceptable(e) and ctx.better(e, best):
                best = e
            return e

        try:
            while o.max_restarts is None or self.restarts < o.max_restarts:
                self.restarts += 1
                self.fallback_restarts += int(starts.fallback)
                stop_at = ctx.evaluated + o.rrr_cutoff
                alpha = ctx.rng.uniform(o.alpha_min, o.alpha_max)
                start_body = self._initial(ctx, model, starts, alpha)
                start = evaluate(start_body, None)
                heap = [(sort_key(start), start)]
                seen = {start.body}
                while heap and ctx.evaluated < stop_at:
                    node = heapq.heappop(heap)[1]
                    fresh = [b for b in ctx.refiner.neighbours(node.body) if b not in seen]
                    if not fresh:
                        continue
                    w = model.weights(fresh, alpha)
                    for i in _draw(w.tolist(), o.sampled_neighbours, ctx.rng):
                        if ctx.evaluated >= stop_at:
                            break
                        seen.add(fresh[i])
                        e = evaluate(fresh[i], node)
                        heapq.heappush(heap, (sort_key(e), e))
                if not start_body and not ctx.refiner.additions(()):
                    break  # nothing to search: the bottom clause has no usable literal
        except BudgetExhausted:
            pass
        return best

    def _initial(
        self, ctx: SearchContext, model: DirectedModel, starts: StartPicker, alpha: float
    ) -> ClauseIds:
        """K model-only hill climbs; a peak drawn in proportion to its W."""
        peaks: list[ClauseIds] = []
        peak_w: list[float] = []
        for _ in range(self.options.hill_climbs):
            current = starts.pick(ctx)
            current_w = float(model.weights([current], alpha)[0])
            for _ in range(self.options.max_climb_steps):
                around = ctx.refiner.neighbours(current)
                if not around:
                    break
                w = model.weights(around, alpha)
                i = int(np.argmax(w))
                if not w[i] > current_w:
                    break
                current, current_w = around[i], float(w[i])
            peaks.append(current)
            peak_w.append(current_w)
        return peaks[_draw(peak_w, 1, ctx.rng)[0]]


def _draw(weights: list[float], count: int, rng: random.Random) -> list[int]:
    """``count`` distinct indices drawn in proportion to ``weights`` without replacement
    (uniformly among the rest once only zero weights remain)."""
    left = list(range(len(weights)))
    out: list[int] = []
    while left and len(out) < count:
        total = sum(weights[i] for i in left)
        if total > 0:
            r = rng.random() * total
            pos = 0
            for pos, i in enumerate(left):  # noqa: B007 - pos is used after the loop
                r -= weights[i]
                if r < 0:
                    break
            # rounding may leave r >= 0 after the last index: then the last positive weight
            if r >= 0:
                pos = max(p for p, i in enumerate(left) if weights[i] > 0)
        else:
            pos = rng.randrange(len(left))
        out.append(left.pop(pos))
    return out


SPEC = PluginSpec(
    kind="search",
    name="directed-rrr",
    factory=DirectedRapidRandomRestart,
    options=DirectedRRROptions,
    doc="RRR directed by EXPLOIT/EXPLORED noisy-OR networks over the bottom clause (ch. 5).",
)
