"""``theory``: Aleph's covering algorithm (dissertation Table 2.2).

Repeat until every training positive is covered or ``max_rules`` rules are kept: take a
positive not yet covered (the first, or a random one), saturate it, search the clauses its
bottom clause allows, keep the best *acceptable* clause (``minpos``, ``minacc``, ``noise``) and
remove the positives it covers.  A seed for which no acceptable clause exists is set aside
by default (a model of ground facts does not generalise, so ilpkit records the seed as
uncovered); ``seed_without_rule="fact"`` does what Aleph's ``induce`` does instead: the seed
itself enters the theory as a ground fact (it then covers exactly that training example) --
if, as a clause covering one positive, it passes ``minpos`` and ``minscore``.
With ``beat_the_seed`` a clause must also score better than that fact would (Aleph's
``induce`` keeps the seed as its best clause unless a clause beats it; so with ``coverage``
a clause covering only the seed, or fewer positives than negatives plus one, is no rule);
the seed's score is the search's ``incumbent`` from the start, so it prunes as in Aleph.
``bottom_order="aleph"`` saturates in Aleph's literal order (with the ``bf`` search's
``operator="aleph"`` the searches are Aleph's, ties included: benchmarks/README.md).
``recursion`` learns clauses that call their own head predicate (:mod:`ilpkit.core.
recursion`) and ``lazy_evaluation`` computes the constants of ``lazy_evaluate/1`` literals
from the examples (:mod:`ilpkit.core.lazy`), as Aleph does; both are on for ``aleph``.

Clause scores during each search count the positives not yet covered and all negatives, as
Aleph does. With a scorer that counts random examples instead (Aleph's ``posonly``,
:mod:`ilpkit.core.random_examples`), ``gsamplesize`` of them are drawn once per fit and take
the negatives' place: the negatives are not used, no ``noise``/``minacc`` bounds the random
examples covered, those a rule covers are set aside with its positives (the sample's size
stays its size), a clause with an empty body may enter the theory, and no search ends early.
The model's score for an example is the number of its rules that cover it, so
thresholds 1, 2, ... give a PR curve; ``max_rules`` is the dissertation's "first C rules" cut.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.aleph_hooks import SEARCH_HOOKS, HookGate
from ilpkit.core.bottom import saturate
from ilpkit.core.coverage import Counts, Coverage
from ilpkit.core.degenerate import DEGENERATE
from ilpkit.core.lazy import declared, lazy_bottom
from ilpkit.core.learner import (
    MODEL_FORMAT_VERSION,
    ClauseBackend,
    LearnContext,
    LearnerCapabilities,
    Rule,
    matches,
    rule_stats,
    subset_weighting,
)
from ilpkit.core.limits import coverage_within_limits, note_dropped
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.random_examples import RandomSample
from ilpkit.core.recursion import ExampleOracle, RecursiveCoverage, recursive_bias, theory_backend
from ilpkit.core.scoring import Scorer
from ilpkit.core.search import Acceptance, Evaluated, SearchContext, time_is_up
from ilpkit.core.task import NEG, POS, Task
from ilpkit.errors import ConfigError
from ilpkit.prolog.terms import Clause, Term, indicator


class TheoryOptions(BaseModel):
    """Hyperparameters of the covering learner."""

    model_config = ConfigDict(extra="forbid")

    max_rules: int | None = Field(
        default=None, ge=1, description="Keep at most this many rules (the first C rules)."
    )
    seed_order: Literal["first", "random"] = Field(
        default="first", description="Which uncovered positive seeds the next search."
    )
    max_clauses: int | None = Field(
        default=None,
        ge=1,
        description="Start no new search once this many clauses were evaluated (a budget "
        "for large data, where most seeds may yield no acceptable rule; None: no budget).",
    )
    unlabeled: Literal["ignore", "negative"] = Field(
        default="ignore",
        description="Unlabeled examples (PU data): ignored, or counted as negatives (the "
        "random sample of the 'posonly-unlabeled' scorer; the 'unlabeled as negative' "
        "baseline).",
    )
    seed_without_rule: Literal["set_aside", "fact"] = Field(
        default="set_aside",
        description="A seed with no acceptable clause: set aside (recorded as uncovered), or "
        "added to the theory as a ground fact when that fact is acceptable (minpos, minacc, "
        "noise, minscore), as Aleph's induce does.",
    )
    beat_the_seed: bool = Field(
        default=False,
        description="A clause enters the theory only if it scores better than the seed "
        "itself as a ground fact (covering just the seed), as Aleph's induce does (its trace "
        "then reports the seed as the best clause); otherwise the seed has no rule.",
    )
    bottom_order: Literal["modes", "aleph"] = Field(
        default="modes",
        description="Literal order of each seed's bottom clause: 'modes' (layer, then mode "
        "declaration order) or 'aleph' (layer, then determination order, newest input terms "
        "first, as Aleph's sat/1); it decides which of equally good clauses is found first.",
    )
    stop_when_all_covered: bool = Field(
        default=False,
        description="End a search as soon as its best clause covers every "
        "training positive (Aleph's discontinue_search; not with explore or a posonly "
        "scorer, as in Aleph).",
    )
    recursion: bool = Field(
        default=False,
        description="When the determinations allow the target in its own clauses' bodies: "
        "saturation answers its calls from the other positives and coverage proves them "
        "with the clause and the theory so far, at most Aleph's depth setting deep, as "
        "Aleph does (docs/aleph-compatibility.md); false: the background answers them.",
    )
    lazy_evaluation: bool = Field(
        default=False,
        description="Compute the constants of literals of predicates declared "
        "lazy_evaluate/1 from the examples' bindings, as Aleph does "
        "(docs/aleph-compatibility.md); false: keep the constants saturation found.",
    )
    min_tune_pos: int = Field(
        default=0,
        ge=0,
        description="An acceptable rule must also cover this many tune-set positives (the "
        "training positives when there is no tune set); dissertation 4.2.1 uses 2.",
    )


class TheoryModel:
    """An ordered list of rules; an example's score is how many rules cover it."""

    def __init__(
        self,
        rules: list[Rule],
        *,
        target: str | None = None,
        clauses_evaluated: int = 0,
        uncovered_seeds: int = 0,
        info: dict[str, Any] | None = None,
        found_after: list[int] | None = None,
        learner: str = "theory",
    ) -> None:
        self.learner = learner
        """The learner that made it (``theory`` or ``aleph``: load_model finds it by name)."""
        self._rules = rules
        self.target = target
        self.clauses_evaluated = clauses_evaluated
        self.uncovered_seeds = uncovered_seeds
        self.info = dict(info or {})
        if found_after is not None and len(found_after) != len(rules):
            raise ValueError(f"{len(found_after)} rule budgets for {len(rules)} rules")
        self.found_after = found_after

    def rules(self) -> list[Rule]:
        return list(self._rules)

    def clauses(self) -> list[Clause]:
        return [r.clause for r in self._rules]

    def score(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        clauses = self.clauses()
        return matches(theory_backend(backend, clauses), clauses, ids)

    def predict(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None, threshold: int = 1
    ) -> npt.NDArray[np.bool_]:
        return self.score(backend, ids) >= threshold

    def at_budget(self, clauses: int) -> TheoryModel | None:
        """The theory as it stood after ``clauses`` clauses were evaluated: the rules accepted
        by then (an anytime reading of one run, for learning curves); None if unknown."""
        if self.found_after is None:
            return None
        keep = [i for i, spent in enumerate(self.found_after) if spent <= clauses]
        return TheoryModel(
            [self._rules[i] for i in keep],
            target=self.target,
            clauses_evaluated=min(clauses, self.clauses_evaluated),
            found_after=[self.found_after[i] for i in keep],
            learner=self.learner,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": MODEL_FORMAT_VERSION,
            "learner": self.learner,
            "target": self.target,
            "clauses_evaluated": self.clauses_evaluated,
            "uncovered_seeds": self.uncovered_seeds,
            "rules": [r.to_json() for r in self._rules],
            "found_after": self.found_after,
            "info": self.info,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TheoryModel:
        return cls(
            [Rule.from_json(r) for r in data.get("rules", [])],
            target=data.get("target"),
            clauses_evaluated=int(data.get("clauses_evaluated", 0)),
            uncovered_seeds=int(data.get("uncovered_seeds", 0)),
            info=data.get("info", {}),
            found_after=data.get("found_after"),
            learner=str(data.get("learner", "theory")),
        )


class TheoryLearner:
    name = "theory"
    capabilities = LearnerCapabilities(aleph_hooks=SEARCH_HOOKS, random_examples=True)

    def __init__(self, options: TheoryOptions | None = None) -> None:
        self.options = options if options is not None else TheoryOptions()

    def model_from_json(self, data: dict[str, Any]) -> TheoryModel:
        return TheoryModel.from_json(data)

    def fit(self, task: Task, ctx: LearnContext) -> TheoryModel:
        if self.options.unlabeled == "negative":
            task = unlabeled_as_negative(task)
        train = ctx.train(task)
        if not getattr(ctx.scorer, "random_examples", False):
            return self._fit(task, ctx, train, None)
        # Aleph's posonly: a random sample of the target, drawn once from the head mode's
        # types, is counted in place of the negatives, on the run's own backend
        targets = {
            indicator(task.examples.atoms[int(i)]) for i in train if task.examples.labels[i] == POS
        }
        if len(targets) != 1:
            raise ConfigError(
                f"scorer {ctx.scorer.name} draws random examples of one target predicate, "
                f"and the training positives are of {len(targets)}; use another scorer"
            )
        size = int(ctx.settings["gsamplesize"])
        with RandomSample(
            task, ctx.backend, size, ctx.rng("random-examples"), targets.pop()
        ) as sample:
            return self._fit(sample.task, ctx, train, sample)

    def _fit(
        self,
        task: Task,
        ctx: LearnContext,
        train: npt.NDArray[np.int64],
        sample: RandomSample | None,
    ) -> TheoryModel:
        """The covering loop; with ``sample``, its examples stand for the negatives (which
        are not used), no ``noise``/``minacc`` applies to them and those a rule covers are
        set aside with the positives it covers (Aleph's posonly)."""
        settings = ctx.settings
        labels = task.examples.labels
        positives = train[labels[train] == POS]
        negatives = train[labels[train] == NEG] if sample is None else sample.ids
        n = len(task.examples)
        remaining = set(int(i) for i in positives)
        counted = set(int(i) for i in negatives)  # the sample's |R| never shrinks
        order_rng = ctx.rng("theory-seeds")
        scorer = _with_training_prior(ctx.scorer, task, np.concatenate([positives, negatives]))
        acceptance = Acceptance(
            minpos=float(settings["minpos"]),
            minacc=float(settings["minacc"]) if sample is None else 0.0,
            noise=float(settings["noise"]) if sample is None else math.inf,
            minscore=float(settings["minscore"]),
        )
        clauses: list[Clause] = []
        found_after: list[int] = []
        evaluated = 0
        uncovered = 0
        searches = 0
        max_clauses = self.options.max_clauses
        positive_atoms = [task.examples.atoms[i] for i in sorted(int(i) for i in positives)]
        lazy = declared(task, "lazy_evaluate") if self.options.lazy_evaluation else frozenset()
        positive_only = declared(task, "positive_only")
        left = set(int(i) for i in negatives)  # with posonly: the random examples no rule covers
        no_head_mode: set[str] = set()
        hooks = HookGate.of(ctx.backend, task)  # Aleph's prune/1 and false/0, if any
        tune_positives = _tune_positives(task, ctx, train, self.options.min_tune_pos)
        stop_at_tp = None
        if (
            self.options.stop_when_all_covered
            and not bool(settings["explore"])
            and sample is None
            and getattr(ctx.scorer, "name", "") != "posonly-unlabeled"
        ):
            stop_at_tp = float(task.examples.weights[positives].sum())
        while (
            remaining
            and (self.options.max_rules is None or len(clauses) < self.options.max_rules)
            and (max_clauses is None or evaluated < max_clauses)
            and not time_is_up()
        ):
            ctx.progress(len(positives) - len(remaining), len(positives), "positives covered")
            pool = sorted(remaining)
            seed = pool[0] if self.options.seed_order == "first" else order_rng.choice(pool)
            seed_atom = task.examples.atoms[seed]
            if self.options.seed_without_rule == "fact" and not _has_head_mode(task, seed_atom):
                # Aleph's induce with no modeh for the target builds no clause: each seed is
                # kept as a ground fact (Aleph's modes example: 5 facts, 0 clauses)
                remaining.discard(seed)
                uncovered += 1
                no_head_mode.add("/".join(map(str, indicator(seed_atom))))
                active = np.array(sorted(remaining | {seed} | counted), dtype=np.int64)
                counts = subset_weighting(task, active).counts(np.array([seed], dtype=np.int64))
                if acceptance.ok(counts, label_score(scorer, counts, 2)):
                    clauses.append(Clause(seed_atom))
                    found_after.append(evaluated)
                continue
            recursive = self.options.recursion and recursive_bias(task.bias, indicator(seed_atom))
            if recursive:
                # the target in the body: saturation answers its calls from the other
                # positives, coverage proves them with the clause and the theory so far
                oracle = ExampleOracle(
                    ctx.backend,
                    indicator(seed_atom),
                    positive_atoms,
                    seed_atom,
                    theory=clauses,
                    depth=int(settings["depth"]),
                )
                bottom = saturate(
                    seed_atom, task.bias, oracle, int(settings["i"]), self.options.bottom_order
                )
                note_dropped(ctx.backend, len(bottom.dropped))
            else:
                bottom = ctx.backend.saturate(
                    seed, depth=int(settings["i"]), order=self.options.bottom_order
                )
            if lazy:
                bottom = lazy_bottom(
                    bottom,
                    ctx.backend,
                    task.examples.atoms,
                    sorted(remaining),
                    sorted(left),  # the negatives; with posonly, the random examples left
                    lazy,
                    positive_only,
                )
            active = np.array(sorted(remaining | left), dtype=np.int64)
            weighted = np.array(sorted(remaining | counted), dtype=np.int64)
            search_ctx = _TuneCheckedSearch(
                bottom=bottom,
                backend=RecursiveCoverage(ctx.backend, clauses) if recursive else ctx.backend,
                scorer=scorer,
                weighting=subset_weighting(task, weighted),
                budget=int(settings["nodes"]),
                rng=ctx.rng("theory-search", searches),
                clauselength=int(settings["clauselength"]),
                acceptance=acceptance,
                explore=bool(settings["explore"]),
                among=Coverage(active, n, trusted=True),
                observers=list(ctx.observers),
                tune_positives=tune_positives,
                min_tune_pos=self.options.min_tune_pos,
                stop_at_tp=stop_at_tp,
                hooks=hooks,
            )
            if self.options.beat_the_seed:
                search_ctx.incumbent = seed_score(search_ctx, seed)
            searches += 1
            best = ctx.make_search().run(search_ctx)
            evaluated += search_ctx.evaluated
            if best is not None and best.score <= search_ctx.incumbent:
                best = None  # a search that does not take the incumbent into account
            if best is None or (not best.body and sample is None and not _allow_empty(best)):
                remaining.discard(seed)
                uncovered += 1
                if self.options.seed_without_rule == "fact" and _fact_allowed(search_ctx, seed):
                    clauses.append(Clause(task.examples.atoms[seed]))
                    found_after.append(evaluated)
                continue
            clauses.append(best.clause.canonical())
            found_after.append(evaluated)
            if ctx.on_rule is not None:
                ctx.on_rule(best)
            covered = set(best.coverage.tolist()) & remaining
            if not covered:
                # a clause covering no positive left (minpos 0): without this the same
                # search would repeat forever; the seed is set aside
                covered = {seed}
                uncovered += 1
            # Only what the clause covers leaves, as in Aleph: the seed's bottom clause need
            # not cover the seed under the background's evaluation (numbers/guess: seed p(3),
            # clause p(A) :- gteq(A,9)); an uncovered seed stays and seeds a later search.
            remaining -= covered
            if sample is not None:
                left -= set(best.coverage.tolist())
        rules = rule_stats(task, theory_backend(ctx.backend, clauses), clauses, train)
        if sample is not None:
            among = Coverage(sample.ids, n, trusted=True)
            random_covered = [
                len(coverage_within_limits(theory_backend(ctx.backend, clauses), c, among))
                for c in clauses
            ]
        return TheoryModel(
            rules,
            target=task.target_name,
            clauses_evaluated=evaluated,
            uncovered_seeds=uncovered,
            info={
                "searches": searches,
                "seed": ctx.seed,
                **(
                    {"random_examples": len(sample.ids), "random_covered": random_covered}
                    if sample is not None
                    else {}
                ),
                **({DEGENERATE: [_no_modeh_note(no_head_mode)]} if no_head_mode else {}),
            },
            found_after=found_after,
            learner=self.name,
        )


def unlabeled_as_negative(task: Task) -> Task:
    """``task`` with its unlabeled examples labeled negative (a copy; the caller's is kept)."""
    from dataclasses import replace

    from ilpkit.core.task import UNLABELED, Examples

    ex = task.examples
    labels = np.where(ex.labels == UNLABELED, NEG, ex.labels).astype(np.int8)
    return replace(task, examples=Examples(ex.atoms, labels, ex.weights, ex.folds, ex.locations))


class _TuneCheckedSearch(SearchContext):
    """A search context whose acceptable clauses also cover ``min_tune_pos`` tune positives
    (dissertation 4.2.1: "each recorded rule [covers] at least two positive examples in the
    tune set"). The tune coverage is computed only for clauses that pass the other tests.

    Not a dataclass of its own (it would generate SearchContext's 20-field methods again at
    every start-up): its two settings are keyword arguments beside the context's fields."""

    def __init__(
        self, *, tune_positives: Coverage | None = None, min_tune_pos: int = 0, **fields: Any
    ) -> None:
        super().__init__(**fields)
        self.tune_positives = tune_positives
        self.min_tune_pos = min_tune_pos
        self._tune_ok: dict[tuple[int, ...], bool] = {}

    def acceptable(self, e: Evaluated) -> bool:
        if not super().acceptable(e):
            return False
        if self.tune_positives is None or self.min_tune_pos <= 0:
            return True
        ok = self._tune_ok.get(e.body)
        if ok is None:
            covered = coverage_within_limits(self.backend, e.clause, self.tune_positives)
            ok = self._tune_ok[e.body] = len(covered) >= self.min_tune_pos
        return ok


def _with_training_prior(scorer: Scorer, task: Task, ids: npt.NDArray[np.int64]) -> Scorer:
    """``scorer`` with its class prior fixed at the training examples' (the m-estimates:
    ``with_prior_of``), as Aleph fixes it when it reads them; other scorers as they are."""
    fix = getattr(scorer, "with_prior_of", None)
    if fix is None:
        return scorer
    fixed: Scorer = fix(subset_weighting(task, ids).counts(np.zeros(0, dtype=np.int64)))
    return fixed


def _tune_positives(
    task: Task, ctx: LearnContext, train: npt.NDArray[np.int64], min_tune_pos: int
) -> Coverage | None:
    """The tune positives (training positives without a tune set), or None if unused."""
    if min_tune_pos <= 0:
        return None
    tune = ctx.tune_ids if ctx.tune_ids is not None and len(ctx.tune_ids) else train
    labels = task.examples.labels
    return Coverage(tune[labels[tune] == POS], len(task.examples))


def seed_score(search: SearchContext, seed: int) -> float:
    """The score of the seed kept as a ground fact: Aleph's start label ``[1, 0, 2, F]`` --
    the seed's own weight as the only positive, no negative, and the length of a clause with
    one body literal (``get_start_label``, as its trace prints ``[best label so far]``)."""
    return label_score(search.scorer, _seed_counts(search, seed), 2)


def label_score(scorer: Any, counts: Counts, clause_length: int) -> float:
    """``scorer``'s value for a clause held before a search: its ``label_score`` where it
    has one (Aleph's posonly charges its start label one literal more), else its score."""
    own = getattr(scorer, "label_score", None)
    if own is not None:
        return float(own(counts, clause_length))
    return float(scorer.score(counts, clause_length))


def _seed_counts(search: SearchContext, seed: int) -> Counts:
    """The counts of a clause covering the seed alone."""
    return search.weighting.counts(np.array([seed], dtype=np.int64))


def _no_modeh_note(targets: set[str]) -> str:
    return (
        f"no modeh for {', '.join(sorted(targets))}: no clause can be built, so (as Aleph's "
        "induce) each positive seed was kept as a ground fact"
    )


def _has_head_mode(task: Task, atom: Term) -> bool:
    """Whether a modeh declares the predicate of ``atom``."""
    target = indicator(atom)
    return any(m.indicator == target for m in task.bias.modeh)


def _fact_allowed(search: SearchContext, seed: int) -> bool:
    """Whether the seed as a ground fact may enter the theory: Aleph's induce adds its best
    clause -- here the seed itself, label ``[1, 0, 2, F]`` -- to the theory only if it covers
    ``minpos`` positives and scores at least ``minscore`` (otherwise the seed is only removed
    from the positives left, as ilpkit's default does); noise and minacc hold for it."""
    return search.acceptance.ok(_seed_counts(search, seed), seed_score(search, seed))


def _allow_empty(best: Evaluated) -> bool:
    """A clause with an empty body covers every example of its head; accept it only when it
    is genuinely acceptable (it was, to be returned at all) and covers no negatives."""
    return best.counts.fp == 0


SPEC = PluginSpec(
    kind="learner",
    name="theory",
    factory=TheoryLearner,
    options=TheoryOptions,
    doc="Aleph's covering loop: one clause per seed, covered positives removed (a theory).",
)


class AlephInduceOptions(TheoryOptions):
    """The covering learner as Aleph's ``induce`` runs it: a seed keeps its best clause only
    if that clause scores better than the seed alone as a ground fact, and otherwise enters
    the theory as that fact; bottom clauses list their literals in Aleph's order (so that of
    equally good clauses the one Aleph finds first is kept)."""

    seed_without_rule: Literal["set_aside", "fact"] = Field(
        default="fact",
        description="A seed with no acceptable clause: added to the theory as a ground fact "
        "when that fact is acceptable (Aleph's induce), or set aside (recorded as uncovered).",
    )
    beat_the_seed: bool = Field(
        default=True,
        description="A clause enters the theory only if it scores better than the seed "
        "itself as a ground fact (Aleph's induce); false: any acceptable clause does.",
    )
    bottom_order: Literal["modes", "aleph"] = Field(
        default="aleph",
        description="Literal order of each seed's bottom clause: 'aleph' (layer, then "
        "determination order, newest input terms first, as Aleph's sat/1) or 'modes'.",
    )
    stop_when_all_covered: bool = Field(
        default=True,
        description="End a search as soon as its best clause covers every "
        "training positive, as Aleph does unless explore is set or evalfn is posonly.",
    )
    lazy_evaluation: bool = Field(
        default=True,
        description="Compute the constants of literals of predicates declared "
        "lazy_evaluate/1 (positive_only/1: from the positives alone) from the examples' "
        "bindings, as Aleph does (docs/aleph-compatibility.md).",
    )
    recursion: bool = Field(
        default=True,
        description="When the determinations allow the target in its own clauses' bodies, "
        "learn recursive clauses as Aleph does: saturation answers the target's calls from "
        "the other positives, coverage proves them with the clause and the theory so far, "
        "at most the depth setting deep (docs/aleph-compatibility.md).",
    )


class AlephInduceLearner(TheoryLearner):
    """:class:`TheoryLearner` with Aleph's induce as its defaults, and Aleph's refinement
    operator asked of the search (``bf``/``topdown``: ``operator=aleph``) unless the user
    sets another: together they reproduce Aleph's theories clause for clause on
    carcinogenesis and mutagenesis (benchmarks/README.md)."""

    name = "aleph"
    capabilities = LearnerCapabilities(
        search_defaults={"operator": "aleph"}, aleph_hooks=SEARCH_HOOKS, random_examples=True
    )


ALEPH_SPEC = PluginSpec(
    kind="learner",
    name="aleph",
    factory=AlephInduceLearner,
    options=AlephInduceOptions,
    doc="Aleph's induce, for reruns of Aleph experiments: the theory learner with seeds kept "
    "as ground facts when no clause beats them (training accuracy as Aleph reports it).",
)
