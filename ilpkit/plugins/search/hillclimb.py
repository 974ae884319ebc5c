"""``hillclimb``: greedy top-down search from the most general clause.

Each step evaluates every legal one-literal addition of the current clause and moves to the
best if it improves the score; it stops at no improvement, at ``clauselength`` or when the
budget is spent (dissertation ch.6: PRankBoost's weak learner).  A step that the budget cuts
short still moves to the best addition it evaluated, if that improves the score: with large
bottom clauses (IMDB's, thousands of literals) the first step alone can exceed the budget,
and discarding it would leave every weak learner at the empty body.  ``trajectory`` holds the
clauses moved through, most general first -- PRankBoost.Path's path.

With a path scorer (``needs_path``, :class:`~ilpkit.core.scoring.PathScorer`) a candidate is
scored as the end of the path so far (``score_path`` of the trajectory's counts plus its own),
which is PRankBoost.Path's objective; observers still see the clause's own ``score``, since
the path is only known here.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.plugins import PluginSpec
from ilpkit.core.search import BudgetExhausted, Evaluated, SearchContext


class HillClimbOptions(BaseModel):
    """Options of greedy hill climbing."""

    model_config = ConfigDict(extra="forbid")

    require_acceptable: bool = Field(
        default=False,
        description="Return the best acceptable clause on the path rather than the last one.",
    )


class HillClimb:
    name = "hillclimb"

    def __init__(self, options: HillClimbOptions | None = None) -> None:
        self.options = options if options is not None else HillClimbOptions()
        self.trajectory: list[Evaluated] = []

    def run(self, ctx: SearchContext) -> Evaluated | None:
        self.trajectory = []
        try:
            current = self._on_path(ctx, ctx.evaluate(()))
        except BudgetExhausted:
            return None
        self.trajectory.append(current)
        exhausted = False
        while not exhausted and ctx.refiner.can_grow(current.body):
            best: Evaluated | None = None
            try:
                for k in ctx.refiner.additions(current.body):
                    child = ctx.evaluate(ctx.refiner.add(current.body, k), parent=current)
                    child = self._on_path(ctx, child)
                    if ctx.better(child, best):
                        best = child
            except BudgetExhausted:
                exhausted = True  # a last, partial step: the best addition seen so far
            if best is None or best.score <= current.score:
                break
            current = best
            self.trajectory.append(current)
        if self.options.require_acceptable:
            ok = [e for e in self.trajectory if ctx.acceptable(e)]
            return max(ok, key=lambda e: (e.score, -len(e.body))) if ok else None
        return self.trajectory[-1] if self.trajectory else None

    def _on_path(self, ctx: SearchContext, e: Evaluated) -> Evaluated:
        """``e`` rescored as the next clause of the trajectory when the scorer scores paths."""
        score_path = getattr(ctx.scorer, "score_path", None)
        if score_path is None or not getattr(ctx.scorer, "needs_path", False):
            return e
        path = [t.counts for t in self.trajectory] + [e.counts]
        return replace(e, score=float(score_path(path)))


SPEC = PluginSpec(
    kind="search",
    name="hillclimb",
    factory=HillClimb,
    options=HillClimbOptions,
    doc="Greedy hill climbing from the empty body, adding the best-improving literal.",
)
