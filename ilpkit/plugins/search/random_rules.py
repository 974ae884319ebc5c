"""``random-rules``: random relational rules (Anderson and Pfahringer, R4F sec. 2; PAPERS.md).

A random rule is grown literal by literal, and the order of growth is kept: rule
``h :- l1, ..., lL`` has the prefixes ``h :- l1, ..., lk`` (k = 1..L), each itself a legal
rule and a Boolean test (R4F uses every prefix).  What "random" means here:

1. the body length ``L`` is uniform in ``1 .. clauselength - 1`` (``clauselength`` counts the
   head, as Aleph's setting does);
2. each next literal is uniform over the literals of the bottom clause that are not yet in the
   rule and whose input variables are bound -- by the head or by an earlier literal of the
   rule that precedes it in the bottom clause (so the rule is legal in generation order and in
   bottom-clause order alike); growth stops early when no literal can be added.

Where the literals come from (a decision; the paper draws rules from the mode language without
seeds): from the bottom clause of a *seed* example drawn uniformly from the training examples
(of either class).  A bottom clause is the mode language instantiated on one example, so the
rule's constants (``#`` places: elements, bond types, charges) are values that occur in the
data, every variable is typed by the modes, and the rule covers at least its seed -- it never
covers nothing.  As a search plugin the bottom clause is the one the learner saturated.

*Non-trivial* rules only: a rule covering none or all of the training examples is drawn again
(its coverage was computed, so it counts as generated); :class:`RandomRuleGenerator` counts both.
Given the same seed and data, the stream of rules is identical on every backend, because
saturation order and coverage are (``ilpkit.core.bottom``).
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.bias import Bias
from ilpkit.core.bottom import BottomClause
from ilpkit.core.coverage import Coverage
from ilpkit.core.distinct import distinct
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.refine import ClauseIds, Refiner
from ilpkit.core.search import BudgetExhausted, Evaluated, SearchContext, time_is_up
from ilpkit.core.split_coverage import SplitCoverage, backend_memo
from ilpkit.errors import BiasError, ConfigError
from ilpkit.prolog.terms import Clause

MAX_TRIVIAL_IN_A_ROW = 1000
"""Consecutive trivial rules after which the generator gives up (the language cannot split)."""


class Candidates:
    """Which literals a rule may add next, without scanning the whole bottom clause.

    A literal becomes addable only through the head (no other inputs) or through a variable
    some literal of the rule outputs, so the candidates of a step are the head-only literals
    plus the consumers of the rule's variables; each is then checked with the refiner (a
    bottom clause of Musk1 has 13,000 literals, of which a step can reach a few hundred).
    """

    def __init__(self, refiner: Refiner) -> None:
        self.refiner = refiner
        self.consumers: dict[int, list[int]] = {}
        for k, needs in enumerate(refiner.needs):
            for v in needs:
                self.consumers.setdefault(v, []).append(k)

    def options(self, order: Sequence[int], mask: int) -> list[int]:
        """Unused literals whose inputs the head or earlier-positioned rule literals supply,
        in bottom-clause order."""
        refiner = self.refiner
        found = set(refiner.head_only)
        literals = refiner.bottom.literals
        for j in order:
            for v in literals[j].outputs:
                found.update(self.consumers.get(v, ()))
        return [k for k in sorted(found) if not (mask >> k) & 1 and refiner.supplied(k, mask)]


def draw_rule(
    refiner: Refiner, rng: random.Random, max_body: int, candidates: Candidates | None = None
) -> ClauseIds:
    """Literal indices of a random legal rule, in generation order (see the module docstring).

    The length is uniform in ``1 .. max_body``; each step picks uniformly among the bottom
    literals not yet used whose inputs are supplied by the head or by earlier-positioned
    literals already in the rule.  ``candidates``: a :class:`Candidates` of ``refiner``, kept
    by callers that draw many rules from one bottom clause.
    """
    candidates = candidates if candidates is not None else Candidates(refiner)
    length = rng.randint(1, max(1, max_body))
    order: list[int] = []
    mask = 0
    for _ in range(length):
        options = candidates.options(order, mask)
        if not options:
            break
        k = rng.choice(options)
        order.append(k)
        mask |= 1 << k
    return tuple(order)


def prefix_clauses(bottom: BottomClause, order: Sequence[int]) -> list[Clause]:
    """The clauses ``head :- l1..lk`` for k = 1..len(order), literals in generation order."""
    terms = tuple(bottom.literals[i].term for i in order)
    return [Clause(bottom.head, terms[:k]).canonical() for k in range(1, len(terms) + 1)]


def restrict_bias(bias: Bias, predicates: str | None) -> Bias:
    """``bias`` with only the body modes of ``predicates`` (comma-separated ``name`` or
    ``name/arity``); ``None`` or empty keeps every mode."""
    if not predicates:
        return bias
    wanted = [p.strip() for p in predicates.split(",") if p.strip()]
    known = {m.name for m in bias.modeb} | {f"{m.name}/{m.arity}" for m in bias.modeb}
    unknown = [p for p in wanted if p not in known]
    if unknown:
        raise ConfigError(
            f"predicates={predicates!r}: no body mode for {', '.join(unknown)}; the data's body "
            f"modes are {', '.join(sorted({f'{m.name}/{m.arity}' for m in bias.modeb}))}"
        )
    keep = [m for m in bias.modeb if m.name in wanted or f"{m.name}/{m.arity}" in wanted]
    return dataclasses.replace(bias, modeb=keep)


# --------------------------------------------------------------------------------------------
# The generator shared by the R4F and static-rf learners
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RandomRule:
    """One generated rule: its prefixes and their coverage of the training examples."""

    number: int  # 1-based position in the stream of non-trivial rules
    seed: int  # example id whose bottom clause the literals came from
    prefixes: tuple[Clause, ...]  # k = 1..L body literals, generation order
    coverage: tuple[Coverage, ...]  # of each prefix on the training examples (or of the
    # full rule alone, when the generator was asked for no prefixes): coverage[-1] is the rule's

    @property
    def clause(self) -> Clause:
        return self.prefixes[-1]


class RandomRuleGenerator:
    """A seeded stream of non-trivial random rules over the training examples ``train``.

    Coverage of all prefixes of a rule (``prefixes=True``; else of the full rule only) is
    computed once per rule, through the prefixes' independent parts
    (:class:`ilpkit.core.split_coverage.SplitCoverage`: the new parts in one
    ``backend.coverage_many`` call, known ones reused).  Parts and bottom clauses are kept on
    the loaded backend, so the next fold of a cross-validation reuses them.  A rule with a part
    over the backend's resource limit is dropped and drawn again (``over_limit``).
    """

    def __init__(
        self,
        backend: Any,
        bias: Bias,
        train: npt.NDArray[np.int64],
        rng: random.Random,
        *,
        clauselength: int,
        depth: int,
        prefixes: bool = True,
    ) -> None:
        if clauselength < 2:
            raise ConfigError(f"clauselength={clauselength}: a random rule needs at least 2")
        self.backend = backend
        self.bias = bias
        self.train = np.asarray(train, dtype=np.int64)
        if len(self.train) == 0:
            raise ConfigError("random rules need training examples")
        self.rng = rng
        self.clauselength = clauselength
        self.depth = depth
        self.prefixes = prefixes
        self.n = int(backend.n_examples)
        self.among = Coverage(distinct(self.train), self.n, trusted=True)
        memo = backend_memo(backend)
        self._bottoms: dict[Hashable, tuple[BottomClause, Refiner, Candidates]] = (
            memo.bottoms if memo is not None else {}
        )
        self._bias_key = (
            tuple(bias.modeh),
            tuple(bias.modeb),
            tuple(bias.determinations),
            depth,
        )
        self.saturated = 0  # seeds this generator saturated (not found in the memo)
        self.generated = 0  # rules whose coverage was computed, trivial ones included
        self.kept = 0  # non-trivial rules returned
        self.clauses = 0  # clauses whose coverage was computed (prefixes included)
        self.coverage_seconds = 0.0  # CPU seconds spent in coverage
        self.saturation_seconds = 0.0  # CPU seconds spent saturating seeds
        self.over_limit = 0  # rules dropped because a part exceeded the backend's limit
        self.goals_dropped = 0  # saturation goals over a limit, in the seeds drawn (see below)
        self._drawn: set[int] = set()
        self.split = SplitCoverage(backend, self.among, memo)

    def _bottom(self, example: int) -> tuple[BottomClause, Refiner, Candidates]:
        key = (self._bias_key, example)
        known = self._bottoms.get(key)
        if known is None:
            started = time.process_time()
            bottom = self.backend.saturate(example, bias=self.bias, depth=self.depth)
            self.saturation_seconds += time.process_time() - started
            self.saturated += 1
            refiner = Refiner(bottom)
            known = (bottom, refiner, Candidates(refiner))
            if not bottom.truncated:  # a bottom clause cut by --time-limit is not kept
                self._bottoms[key] = known
        if example not in self._drawn:
            # Counted per seed drawn, memo or not: engines count resource use differently
            # (SWI-Prolog needs 29M inferences for anthracene(d51,_), native's tabling far
            # fewer), so a goal one engine drops changes the bottom clause and the rules drawn
            # from it; this count says a run's rules may differ from another engine's.
            self._drawn.add(example)
            self.goals_dropped += len(known[0].dropped)
        return known

    def trivial(self, coverage: Coverage) -> bool:
        """Covers none or all of the training examples."""
        return len(coverage) == 0 or len(coverage) == len(self.among)

    def next(self) -> RandomRule | None:
        """The next non-trivial rule; None once ``--time-limit`` has passed (or a stop was
        asked for): the learner keeps the rules it has.  BiasError when the language cannot
        split the examples."""
        for _ in range(MAX_TRIVIAL_IN_A_ROW):
            if time_is_up():
                return None
            seed = int(self.train[self.rng.randrange(len(self.train))])
            bottom, refiner, candidates = self._bottom(seed)
            if bottom.truncated:
                return None  # the limit passed while saturating the seed
            order = draw_rule(refiner, self.rng, self.clauselength - 1, candidates)
            if not order:
                continue  # the seed's bottom clause has no usable literal
            prefixes = prefix_clauses(bottom, order)
            started = time.process_time()
            asked = prefixes if self.prefixes else prefixes[-1:]
            answers = self.split.coverage_many(asked)  # limits: see split_coverage
            self.coverage_seconds += time.process_time() - started
            self.clauses += len(asked)
            coverage = [a for a in answers if a is not None]
            if len(coverage) < len(answers):
                self.over_limit += 1  # a part exceeded the backend's limit: drawn again
                continue
            self.generated += 1
            if self.trivial(coverage[-1]):
                continue
            self.kept += 1
            return RandomRule(self.kept, seed, tuple(prefixes), tuple(coverage))
        raise BiasError(
            f"{MAX_TRIVIAL_IN_A_ROW} random rules in a row covered none or all of the "
            f"{len(self.among)} training examples or exceeded the backend's resource limit "
            f"({self.over_limit} so far); the modes (or learner.predicates) allow no rule "
            "that splits them within the limits (backend.step_limit, backend.timeout)"
        )


# --------------------------------------------------------------------------------------------
# The search plugin
# --------------------------------------------------------------------------------------------


class RandomRulesOptions(BaseModel):
    """Options of the random-rules search."""

    model_config = ConfigDict(extra="forbid")

    max_trivial: int = Field(
        default=MAX_TRIVIAL_IN_A_ROW,
        ge=1,
        description="Stop after this many trivial rules in a row (covering none or all).",
    )


class RandomRulesSearch:
    """Evaluate random rules of the bottom clause until the budget is spent; return the best
    acceptable non-trivial one.  Every rule (trivial ones too) is one evaluated clause and
    reaches the observers; the clause is evaluated as a set of literals, whose coverage does
    not depend on the order (prefixes are R4F's business, not this search's)."""

    name = "random-rules"

    def __init__(self, options: RandomRulesOptions | None = None) -> None:
        self.options = options if options is not None else RandomRulesOptions()
        self.trivial = 0

    def run(self, ctx: SearchContext) -> Evaluated | None:
        best: Evaluated | None = None
        self.trivial = 0
        in_a_row = 0
        candidates = Candidates(ctx.refiner)
        try:
            while in_a_row < self.options.max_trivial:
                order = draw_rule(ctx.refiner, ctx.rng, ctx.clauselength - 1, candidates)
                if not order:
                    break  # nothing to draw: the bottom clause has no usable literal
                e = ctx.evaluate(tuple(sorted(order)))
                c = e.counts
                if c.tp + c.fp <= 0 or (c.tp >= c.p and c.fp >= c.n):
                    self.trivial += 1
                    in_a_row += 1
                    continue
                in_a_row = 0
                if ctx.acceptable(e) and ctx.better(e, best):
                    best = e
        except BudgetExhausted:
            pass
        return best


SPEC = PluginSpec(
    kind="search",
    name="random-rules",
    factory=RandomRulesSearch,
    options=RandomRulesOptions,
    doc="Random legal rules of the bottom clause (R4F's random relational rules); best kept.",
)
