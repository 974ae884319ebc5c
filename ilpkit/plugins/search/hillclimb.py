"""``hillclimb``: greedy top-down search from the most general clause.

Each step evaluates every legal one-literal addition of the current clause and moves to the
best if it improves the score; it stops at no improvement, at ``clauselength`` or when the
budget is spent (dissertation ch.6: PRankBoost's weak learner).  ``trajectory`` holds the
clauses moved through, most general first -- PRankBoost.Path's path.
"""

from __future__ import annotations

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
            current = ctx.evaluate(())
            self.trajectory.append(current)
            while ctx.refiner.can_grow(current.body):
                best: Evaluated | None = None
                for k in ctx.refiner.additions(current.body):
                    child = ctx.evaluate(ctx.refiner.add(current.body, k), parent=current)
                    if ctx.better(child, best):
                        best = child
                if best is None or best.score <= current.score:
                    break
                current = best
                self.trajectory.append(current)
        except BudgetExhausted:
            pass
        if self.options.require_acceptable:
            ok = [e for e in self.trajectory if ctx.acceptable(e)]
            return max(ok, key=lambda e: (e.score, -len(e.body))) if ok else None
        return self.trajectory[-1] if self.trajectory else None


SPEC = PluginSpec(
    kind="search",
    name="hillclimb",
    factory=HillClimb,
    options=HillClimbOptions,
    doc="Greedy hill climbing from the empty body, adding the best-improving literal.",
)
