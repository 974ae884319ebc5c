"""``rrr``: Rapid Random Restart (Zelezny et al. 2003; dissertation 2.2, used by Gleaner).

Repeat until the budget or ``max_restarts`` is spent: pick a random legal clause, uniformly
over the legal clauses of 1..clauselength-1 body literals (Table 5.1; ``start="uniform"``,
counted by :mod:`ilpkit.plugins.search.uniform_clause`); then a local
best-first search whose neighbours add or remove one literal (keeping legality), always
expanding the best unexpanded clause, for ``rrr_cutoff`` evaluated clauses; then restart.
The best acceptable clause over all restarts is returned, and every evaluated clause reaches
the observers (Gleaner keeps its per-bin bests from that stream).

``start="length-then-additions"`` is the earlier start: a length uniform in 1..clauselength-1,
then that many uniformly chosen legal additions (short clauses are then far more likely than
under the uniform start, since there are far fewer of them). When a bottom clause has so many
live variables that the uniform start's count would exceed ``max_start_states`` states, the
search falls back to ``length-then-additions`` for that bottom clause, counts it in
``start_fallbacks`` (searches) and ``fallback_restarts`` (their restarts), and Gleaner's model
says so in its ``info`` (``start_fallbacks`` and a ``degenerate`` line; issue 31).
"""

from __future__ import annotations

import heapq
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.plugins import PluginSpec
from ilpkit.core.refine import ClauseIds
from ilpkit.core.search import BudgetExhausted, Evaluated, SearchContext, sort_key
from ilpkit.plugins.search.uniform_clause import LegalClauseSampler, TooManyStates

StartRule = Literal["uniform", "length-then-additions"]


class RRROptions(BaseModel):
    """Options of Rapid Random Restart."""

    model_config = ConfigDict(extra="forbid")

    rrr_cutoff: int = Field(default=1000, ge=1, description="Clauses evaluated per restart.")
    max_restarts: int | None = Field(
        default=None, ge=1, description="Restarts at most (None: until the budget is spent)."
    )
    start: StartRule = Field(
        default="uniform",
        description="Restart clause: uniform over legal clauses (Table 5.1) or a uniform "
        "length then uniform legal additions.",
    )
    max_start_states: int = Field(
        default=200_000,
        ge=1,
        description="States the uniform start may count; beyond, length-then-additions.",
    )


class StartPicker:
    """Draws RRR's restart clauses from one bottom clause (``start`` option)."""

    def __init__(self, ctx: SearchContext, start: StartRule, max_states: int) -> None:
        self.max_len = max(1, ctx.clauselength - 1)
        self.refiner = ctx.refiner
        self.sampler: LegalClauseSampler | None = None
        self.fallback = False
        if start == "uniform":
            try:
                self.sampler = LegalClauseSampler(ctx.refiner, self.max_len, max_states)
            except TooManyStates:
                self.fallback = True

    def pick(self, ctx: SearchContext) -> ClauseIds:
        if self.sampler is not None:
            return self.sampler.sample(ctx.rng)
        return self.refiner.random_clause(ctx.rng.randint(1, self.max_len), ctx.rng)


class RapidRandomRestart:
    name = "rrr"

    def __init__(self, options: RRROptions | None = None) -> None:
        self.options = options if options is not None else RRROptions()
        self.restarts = 0
        self.start_fallbacks = 0
        self.fallback_restarts = 0

    def run(self, ctx: SearchContext) -> Evaluated | None:
        best: Evaluated | None = None
        self.restarts = 0
        starts = StartPicker(ctx, self.options.start, self.options.max_start_states)
        self.start_fallbacks += int(starts.fallback)
        try:
            while self.options.max_restarts is None or self.restarts < self.options.max_restarts:
                self.restarts += 1
                self.fallback_restarts += int(starts.fallback)
                stop_at = ctx.evaluated + self.options.rrr_cutoff
                start_body = starts.pick(ctx)
                start = ctx.evaluate(start_body)
                if ctx.acceptable(start) and ctx.better(start, best):
                    best = start
                heap = [(sort_key(start), start)]
                seen = {start.body}
                while heap and ctx.evaluated < stop_at:
                    node = heapq.heappop(heap)[1]
                    for body in ctx.refiner.neighbours(node.body):
                        if body in seen or ctx.evaluated >= stop_at:
                            continue
                        seen.add(body)
                        parent = node if len(body) > len(node.body) else None
                        e = ctx.evaluate(body, parent=parent, origin=node)
                        if ctx.acceptable(e) and ctx.better(e, best):
                            best = e
                        heapq.heappush(heap, (sort_key(e), e))
                if not start_body and not ctx.refiner.additions(()):
                    break  # nothing to search: the bottom clause has no usable literal
        except BudgetExhausted:
            pass
        return best


SPEC = PluginSpec(
    kind="search",
    name="rrr",
    factory=RapidRandomRestart,
    options=RRROptions,
    doc="Rapid Random Restart: random legal start, add/remove local search, restarts.",
)
