"""``gleaner``: Gleaner (dissertation ch. 4; gleanersrl sec. 2.1).

Stage 1, per seed (an independent unit of work): saturate a training positive (distinct
positives for distinct seeds, in a random order: :func:`seed_examples`) and
search ``clauses_per_seed`` clauses (by default Rapid Random Restart with the
precision*recall heuristic).  Every evaluated clause falls in the recall bin of its training
recall (B bins of width 1/B; ``floor(recall * B)``, recall 1 in the last bin), and each bin
keeps the clause with the best training precision*recall seen in this seed's search, among
clauses covering at least ``min_tune_pos`` tune positives.

Stage 2, on the tune set: bin m's clauses (one per seed) form the theories "at least L of K_m
clauses match", L = 1..K_m.  For each target bin j the (m, L) with the highest tune precision
whose tune recall lies in bin j is chosen (``combine="bins"``); or every (m, L) on the upper
convex hull of the tune recall-precision points is kept (``combine="hull"``).  The chosen
theories applied to the test set give the model's recall-precision points.

Decisions (PAPERS.md leaves them open):

* the ranking score of an example is the number of clauses of the *ranking bin* that match
  it, the ranking bin being the bin whose L-curve has the largest tune AURPC;
* ``predict`` uses the chosen (m, L) with the highest tune F1 (``predict="f1"``); or the
  highest tune accuracy (``"accuracy"``); or the one whose tune recall is closest to
  ``predict_recall`` (``"recall"``, the dissertation's end-user operating point).  The F1 of
  the theory that covers every tune example is 2P/(2P+N), which weak theories fail to beat
  (issue 33: DSSTox); when the chosen theory covers every tune example the model's
  ``info["degenerate"]`` says so (:data:`ilpkit.core.degenerate.GLEANER_COVERS_ALL`);
* without tune examples (no tune folds), stage 2 uses the training examples, as a fallback;
* the learning curve (``at_budget``) reads the same run with fewer clauses per seed: each
  seed's per-bin best among its first ``budget // seeds`` clauses.  Because a seeded search
  with a smaller budget evaluates a prefix of the same clause stream, this is exactly the
  model a run with that per-seed budget would give.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.coverage import Coverage
from ilpkit.core.degenerate import DEGENERATE, GLEANER_COVERS_ALL
from ilpkit.core.learner import (
    MODEL_FORMAT_VERSION,
    ClauseBackend,
    LearnContext,
    LearnerCapabilities,
    Rule,
    parse_clause,
    rule_stats,
    subset_weighting,
)
from ilpkit.core.limits import coverage_within_limits
from ilpkit.core.members import Shipped
from ilpkit.core.metrics import accuracy, aurpc, f1, pr_points_from_counts
from ilpkit.core.plugins import PluginSpec
from ilpkit.core.search import Evaluated, SearchContext
from ilpkit.core.task import POS, Task
from ilpkit.plugins.search.uniform_clause import start_fallback_note
from ilpkit.prolog.terms import Clause

BIN_EPSILON = 1e-9
"""Added to recall * B before flooring, so that recalls k/B computed in floating point land
in bin k (e.g. 0.57 * 100 = 56.99999999999999)."""


PredictRule = Literal["f1", "accuracy", "recall"]
"""How ``predict`` picks one of stage 2's chosen theories (see :func:`predict_choice`)."""


class GleanerOptions(BaseModel):
    """Hyperparameters of Gleaner."""

    model_config = ConfigDict(extra="forbid")

    bins: int = Field(default=20, ge=1, description="Recall bins B (width 1/B).")
    seeds: int = Field(default=50, ge=1, description="Seeds K, each an independent search.")
    clauses_per_seed: int = Field(
        default=1000, ge=1, description="Clauses N evaluated in each seed's search."
    )
    clauselength: int | None = Field(
        default=10, ge=1, description="Longest clause, counting the head (None: the data's)."
    )
    min_tune_pos: int = Field(
        default=2, ge=0, description="A kept clause must cover this many tune positives."
    )
    combine: Literal["bins", "hull"] = Field(
        default="bins",
        description="Stage 2: best tune precision per target bin, or the upper convex hull.",
    )
    predict: PredictRule = Field(
        default="f1",
        description="Which chosen theory predict (F1, accuracy) uses: the best tune F1, the "
        "best tune accuracy, or the tune recall closest to predict_recall.",
    )
    predict_recall: float = Field(
        default=0.5, ge=0.0, le=1.0, description="The target tune recall of predict=recall."
    )


def recall_bin(recall: float, bins: int) -> int:
    """The bin of a recall in [0, 1]: ``floor(recall * B)``, recall 1 in the last bin."""
    return min(math.floor(recall * bins + BIN_EPSILON), bins - 1)


# --------------------------------------------------------------------------------------------
# Stage 1: one seed
# --------------------------------------------------------------------------------------------


@dataclass
class Kept:
    """A bin's best clause so far in one seed's search, and when it became the best."""

    number: int  # position of the clause in the seed's stream of evaluated clauses
    clause: str
    score: float  # training precision * recall


@dataclass
class SeedResult:
    """What one seed's search kept: per bin, the history of improving clauses."""

    index: int
    seed_example: int
    evaluated: int
    history: dict[int, list[Kept]]
    restarts: int = 0
    """The search's restarts (0: a search without restarts, or a result from before)."""
    fallback_restarts: int = 0
    """Restarts whose clause the search drew with its fallback start, not uniformly (rrr and
    directed-rrr past ``max_start_states``)."""

    def best(self, within: int | None = None) -> dict[int, str]:
        """Each bin's best clause among the first ``within`` evaluated clauses."""
        out = {}
        for b, kept in self.history.items():
            ok = [k for k in kept if within is None or k.number <= within]
            if ok:
                out[b] = ok[-1].clause
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seed_example": self.seed_example,
            "evaluated": self.evaluated,
            "history": {
                str(b): [[k.number, k.clause, k.score] for k in kept]
                for b, kept in self.history.items()
            },
            "restarts": self.restarts,
            "fallback_restarts": self.fallback_restarts,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeedResult:
        return cls(
            index=int(data["index"]),
            seed_example=int(data["seed_example"]),
            evaluated=int(data["evaluated"]),
            history={
                int(b): [Kept(int(n), str(c), float(s)) for n, c, s in kept]
                for b, kept in data["history"].items()
            },
            restarts=int(data.get("restarts", 0)),
            fallback_restarts=int(data.get("fallback_restarts", 0)),
        )


def seed_examples(positives: npt.NDArray[np.int64], rng: random.Random, count: int) -> list[int]:
    """The first ``count`` seed examples: distinct positives, in a random order.

    The positives are shuffled and taken in turn; only when there are more seeds than
    positives does a new shuffle of all positives follow (so seeds repeat only then).
    Every seed's search draws the same order from the same generator state, so seed k is
    the same whether the seeds run here or on worker processes.
    """
    order: list[int] = []
    pool = [int(i) for i in positives]
    while len(order) < count:
        rng.shuffle(pool)
        order.extend(pool)
    return order[:count]


def search_seed(
    task: Task,
    ctx: LearnContext,
    options: GleanerOptions,
    index: int,
    train: npt.NDArray[np.int64],
    tune: npt.NDArray[np.int64],
) -> SeedResult:
    """Stage 1 for seed ``index``: its search, and each bin's best clause over time."""
    labels = task.examples.labels
    positives = train[labels[train] == POS]
    seed_example = seed_examples(positives, ctx.rng("gleaner-seed-order"), index + 1)[index]
    settings = ctx.settings
    clauselength = options.clauselength or int(settings["clauselength"])
    bottom = ctx.backend.saturate(seed_example, depth=int(settings["i"]))
    n = len(task.examples)
    tune_pos = tune[labels[tune] == POS]
    tune_among = Coverage(tune_pos, n)
    history: dict[int, list[Kept]] = {}
    best_score: dict[int, float] = {}

    def observe(e: Evaluated) -> None:
        counts = e.counts
        if counts.tp <= 0:
            return
        score = counts.precision * counts.recall
        b = recall_bin(counts.recall, options.bins)
        if score <= best_score.get(b, -1.0):
            return
        if options.min_tune_pos > 0:
            covered = coverage_within_limits(ctx.backend, e.clause, tune_among)
            if len(covered) < options.min_tune_pos:
                return
        best_score[b] = score
        history.setdefault(b, []).append(Kept(e.number, str(e.clause.canonical()), score))

    search_ctx = SearchContext(
        bottom=bottom,
        backend=ctx.backend,
        scorer=ctx.scorer,
        weighting=subset_weighting(task, train),
        budget=options.clauses_per_seed,
        rng=ctx.rng("gleaner-search", index),
        clauselength=clauselength,
        among=Coverage(train, n, trusted=True),
        observers=[*ctx.observers, observe],
    )
    search = ctx.make_search()
    search.run(search_ctx)
    return SeedResult(
        index,
        seed_example,
        search_ctx.evaluated,
        history,
        restarts=int(getattr(search, "restarts", 0)),
        fallback_restarts=int(getattr(search, "fallback_restarts", 0)),
    )


def start_fallbacks(seeds: list[SeedResult], search_options: Any) -> tuple[dict[str, int], str]:
    """What the model's ``info`` says of seeds whose search fell back from the uniform start:
    the counts, and the ``degenerate`` line (issue 31)."""
    fell = [s for s in seeds if s.fallback_restarts > 0]
    counts = {
        "seeds": len(fell),
        "of_seeds": len(seeds),
        "restarts": sum(s.fallback_restarts for s in fell),
        "of_restarts": sum(s.restarts for s in seeds),
    }
    limit = int(getattr(search_options, "max_start_states", 0))
    note = start_fallback_note(
        counts["seeds"], counts["of_seeds"], counts["restarts"], counts["of_restarts"], limit
    )
    return counts, note


@dataclass(frozen=True)
class SeedUnit:
    """A seed's search as plain data, for executors that run it in another process."""

    options: GleanerOptions
    index: int
    train: list[int]
    tune: list[int]


def run_seed_unit(task: Task, ctx: LearnContext, unit: SeedUnit) -> dict[str, Any]:
    """Search one seed in a worker (the framework rebuilt task and context there)."""
    train = np.asarray(unit.train, dtype=np.int64)
    tune = np.asarray(unit.tune, dtype=np.int64)
    return search_seed(task, ctx, unit.options, unit.index, train, tune).to_json()


# --------------------------------------------------------------------------------------------
# Stage 2: theories from the bins
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """Theory "at least ``threshold`` of bin ``bin``'s clauses", with its tune counts."""

    bin: int
    threshold: int
    tp: float
    fp: float
    p: float

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp > 0 else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.p if self.p > 0 else 0.0


def candidate_theories(
    matches: dict[int, npt.NDArray[np.int64]], positive: npt.NDArray[np.bool_]
) -> list[Choice]:
    """Every (bin, L) theory with its counts, from per-bin match counts on the tune set."""
    p = float(positive.sum())
    out = []
    for b in sorted(matches):
        counts = matches[b]
        for threshold in range(1, int(counts.max(initial=0)) + 1):
            predicted = counts >= threshold
            tp = float(np.sum(predicted & positive))
            fp = float(np.sum(predicted & ~positive))
            out.append(Choice(b, threshold, tp, fp, p))
    return out


def choose_per_bin(candidates: list[Choice], bins: int) -> dict[int, Choice]:
    """For each target bin, the candidate with the best tune precision whose tune recall lies
    in it (ties: higher recall, then lower bin, then lower threshold)."""
    chosen: dict[int, Choice] = {}
    for c in candidates:
        if c.tp <= 0:
            continue
        j = recall_bin(c.recall, bins)
        old = chosen.get(j)
        key = (c.precision, c.recall, -c.bin, -c.threshold)
        if old is None or key > (old.precision, old.recall, -old.bin, -old.threshold):
            chosen[j] = c
    return chosen


def upper_hull(candidates: list[Choice]) -> list[Choice]:
    """The candidates on the upper convex hull of the (recall, precision) points."""
    points = sorted(
        {(c.recall, c.precision): c for c in candidates if c.tp > 0}.items(),
        key=lambda item: (item[0][0], -item[0][1]),
    )
    hull: list[tuple[tuple[float, float], Choice]] = []
    for point, choice in points:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2][0], hull[-1][0]
            x3, y3 = point
            if (x2 - x1) * (y3 - y1) - (y2 - y1) * (x3 - x1) >= 0:  # not a right turn
                hull.pop()
            else:
                break
        hull.append((point, choice))
    # keep the decreasing part: a point with lower precision at lower recall is dominated
    out: list[Choice] = []
    for _, choice in hull:
        while out and out[-1].precision <= choice.precision:
            out.pop()
        out.append(choice)
    return out


def predict_choice(
    choices: list[Choice], n: float, rule: PredictRule = "f1", recall: float = 0.5
) -> Choice | None:
    """The chosen theory that ``predict`` uses, ``n`` being the tune negatives: the best tune
    F1 (``"f1"``), the best tune accuracy (``"accuracy"``, i.e. the most TP - FP), or the tune
    recall closest to ``recall`` (``"recall"``).  Ties go to the first in ``choices`` (which
    stage 2 orders by target recall bin, so to the lower recall).

    Under ``"f1"`` the theory that covers every tune example has F1 = 2P/(2P+N) (0.545 at
    P=21, N=35), which a weakly separating theory does not beat: then every example is
    predicted positive (issue 33)."""
    if not choices:
        return None
    p = choices[0].p
    if rule == "f1":
        return max(choices, key=lambda c: f1(c.tp, c.fp, p))
    if rule == "accuracy":
        return max(choices, key=lambda c: accuracy(c.tp, c.fp, p, n))
    return min(choices, key=lambda c: abs(c.recall - recall))


def covers_all(choice: Choice | None, n: float) -> bool:
    """Whether ``choice`` covers every tune example (all P positives and all ``n``
    negatives, at least one of each)."""
    if choice is None or choice.p <= 0 or n <= 0:
        return False
    return choice.tp >= choice.p and choice.fp >= n


@dataclass(frozen=True)
class Stage2:
    """Stage 2's result on the tune examples."""

    choices: list[Choice]
    ranking_bin: int | None
    predict_choice: Choice | None
    predicts_all: bool
    """The predict theory covers every tune example (:func:`covers_all`)."""


def stage2(
    matches: dict[int, npt.NDArray[np.int64]],
    positive: npt.NDArray[np.bool_],
    *,
    bins: int,
    combine: Literal["bins", "hull"] = "bins",
    predict: PredictRule = "f1",
    predict_recall: float = 0.5,
) -> Stage2:
    """The chosen theories, the ranking bin and the predict theory, from each bin's (or
    member's) match counts on the tune examples."""
    candidates = candidate_theories(matches, positive)
    if combine == "hull":
        choices = upper_hull(candidates)
    else:
        chosen = choose_per_bin(candidates, bins)
        choices = [chosen[j] for j in sorted(chosen)]
    p, n = float(positive.sum()), float((~positive).sum())
    best = predict_choice(choices, n, predict, predict_recall)
    return Stage2(choices, _ranking_bin(candidates, p, n), best, covers_all(best, n))


def bin_matches(
    backend: ClauseBackend, bin_clauses: dict[int, list[Clause]], ids: npt.NDArray[np.int64]
) -> dict[int, npt.NDArray[np.int64]]:
    """For each bin, how many of its clauses match each example of ``ids``."""
    n = backend.n_examples
    among = Coverage(ids, n)
    position = np.full(n, -1, dtype=np.int64)
    position[ids] = np.arange(len(ids))
    cache: dict[Clause, npt.NDArray[np.int64]] = {}
    out = {}
    for b, clauses in bin_clauses.items():
        counts = np.zeros(len(ids), dtype=np.int64)
        for clause in clauses:
            if clause not in cache:
                cache[clause] = position[coverage_within_limits(backend, clause, among).ids]
            counts[cache[clause]] += 1
        out[b] = counts
    return out


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------


class GleanerModel:
    """Per-seed bin histories, the stage-2 choices, and the chosen theories."""

    learner = "gleaner"

    def __init__(
        self,
        options: GleanerOptions,
        seeds: list[SeedResult],
        tune_ids: list[int],
        *,
        per_seed_budget: int | None = None,
        choices: list[Choice] | None = None,
        ranking_bin: int | None = None,
        predict_choice: Choice | None = None,
        target: str | None = None,
        info: dict[str, Any] | None = None,
        train_counts: dict[str, tuple[float, float, float, float]] | None = None,
    ) -> None:
        self.options = options
        # clause text -> (TP, FP, precision, recall) on the training examples, for explain
        self.train_counts = dict(train_counts or {})
        self.seeds = seeds
        self.tune_ids = tune_ids
        self.per_seed_budget = per_seed_budget
        self.choices = choices
        self.ranking_bin = ranking_bin
        self.predict_choice = predict_choice
        self.target = target
        self.info = dict(info or {})

    # -- bins ----------------------------------------------------------------------------------
    @property
    def clauses_evaluated(self) -> int:
        total = sum(s.evaluated for s in self.seeds)
        if self.per_seed_budget is None:
            return total
        return sum(min(s.evaluated, self.per_seed_budget) for s in self.seeds)

    def bin_clauses(self) -> dict[int, list[Clause]]:
        """Each bin's clauses, one per seed that kept one (in seed order)."""
        out: dict[int, list[Clause]] = {}
        for seed in self.seeds:
            for b, text in sorted(seed.best(self.per_seed_budget).items()):
                out.setdefault(b, []).append(parse_clause(text))
        return out

    # -- stage 2 -------------------------------------------------------------------------------
    def fit_stage2(self, backend: ClauseBackend, labels: npt.NDArray[np.int8]) -> None:
        """Choose the theories on the tune examples."""
        tune = np.asarray(self.tune_ids, dtype=np.int64)
        positive = labels[tune] == POS
        o = self.options
        result = stage2(
            bin_matches(backend, self.bin_clauses(), tune),
            positive,
            bins=o.bins,
            combine=o.combine,
            predict=o.predict,
            predict_recall=o.predict_recall,
        )
        self.choices = result.choices
        self.ranking_bin = result.ranking_bin
        self.predict_choice = result.predict_choice
        notes = [x for x in self.info.get(DEGENERATE, []) if x != GLEANER_COVERS_ALL]
        if result.predicts_all:
            notes.append(GLEANER_COVERS_ALL)
        if notes:
            self.info[DEGENERATE] = notes
        else:
            self.info.pop(DEGENERATE, None)

    def _ensure_stage2(self, backend: ClauseBackend) -> None:
        if self.choices is None:
            task = getattr(backend, "task", None)
            if task is None:
                raise ValueError("this Gleaner snapshot needs a backend with its task loaded")
            self.fit_stage2(backend, task.examples.labels)

    # -- Model protocol ------------------------------------------------------------------------
    def score(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        self._ensure_stage2(backend)
        ids = _all(backend, ids)
        if self.ranking_bin is None:
            return np.zeros(len(ids))
        clauses = self.bin_clauses().get(self.ranking_bin, [])
        return bin_matches(backend, {0: clauses}, ids)[0].astype(np.float64)

    def predict(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.bool_]:
        self._ensure_stage2(backend)
        ids = _all(backend, ids)
        c = self.predict_choice
        if c is None:
            return np.zeros(len(ids), dtype=bool)
        clauses = self.bin_clauses()[c.bin]
        return bin_matches(backend, {0: clauses}, ids)[0] >= c.threshold

    def pr_counts(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64], labels: npt.NDArray[np.bool_]
    ) -> list[tuple[float, float]]:
        """(TP, FP) on ``ids`` of each chosen theory: the model's recall-precision points."""
        self._ensure_stage2(backend)
        matches = bin_matches(backend, self.bin_clauses(), ids)
        out = []
        for c in self.choices or []:
            predicted = matches[c.bin] >= c.threshold
            out.append((float(np.sum(predicted & labels)), float(np.sum(predicted & ~labels))))
        return out

    def theory_for_recall(self, recall: float) -> tuple[int, list[Clause]] | None:
        """The deployable theory for a target recall: (L, clauses), "at least L match"."""
        if self.choices is None:
            raise ValueError("stage 2 has not run; score the model on a backend first")
        j = recall_bin(recall, self.options.bins)
        for c in self.choices:
            if recall_bin(c.recall, self.options.bins) == j:
                return c.threshold, self.bin_clauses()[c.bin]
        return None

    def rules(self) -> list[Rule]:
        rules: list[Rule] = []
        for b, clauses in sorted(self.bin_clauses().items()):
            for c in clauses:
                counts = self.train_counts.get(str(c), (0.0, 0.0, 0.0, 0.0))
                rules.append(Rule(c, float(b), *counts))
        return rules

    def at_budget(self, clauses: int) -> GleanerModel:
        """The model with ``clauses // seeds`` clauses per seed (same seeds, same streams)."""
        per_seed = clauses // max(1, len(self.seeds))
        return GleanerModel(
            self.options,
            self.seeds,
            self.tune_ids,
            per_seed_budget=per_seed,
            target=self.target,
            train_counts=self.train_counts,
        )

    def to_json(self) -> dict[str, Any]:
        def choice(c: Choice | None) -> list[float] | None:
            return None if c is None else [c.bin, c.threshold, c.tp, c.fp, c.p]

        return {
            "format_version": MODEL_FORMAT_VERSION,
            "learner": self.learner,
            "target": self.target,
            "clauses_evaluated": self.clauses_evaluated,
            "options": self.options.model_dump(),
            "per_seed_budget": self.per_seed_budget,
            "tune_ids": self.tune_ids,
            "choices": None if self.choices is None else [choice(c) for c in self.choices],
            "ranking_bin": self.ranking_bin,
            "predict_choice": choice(self.predict_choice),
            "seeds": [s.to_json() for s in self.seeds],
            "rules": [r.to_json() for r in self.rules()],
            "info": self.info,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GleanerModel:
        def choice(v: list[float] | None) -> Choice | None:
            if v is None:
                return None
            return Choice(int(v[0]), int(v[1]), float(v[2]), float(v[3]), float(v[4]))

        raw = data.get("choices")
        return cls(
            GleanerOptions(**data["options"]),
            [SeedResult.from_json(s) for s in data["seeds"]],
            [int(i) for i in data["tune_ids"]],
            per_seed_budget=data.get("per_seed_budget"),
            choices=None if raw is None else [c for c in map(choice, raw) if c is not None],
            ranking_bin=data.get("ranking_bin"),
            predict_choice=choice(data.get("predict_choice")),
            target=data.get("target"),
            info=data.get("info", {}),
            train_counts={
                str(r["clause"]): (
                    float(r.get("tp", 0.0)),
                    float(r.get("fp", 0.0)),
                    float(r.get("precision", 0.0)),
                    float(r.get("recall", 0.0)),
                )
                for r in data.get("rules", [])
            },
        )


def _ranking_bin(candidates: list[Choice], p: float, n: float) -> int | None:
    """The bin whose "at least L" curve has the largest tune AURPC."""
    if p <= 0:
        return None
    best: tuple[float, int] | None = None
    for b in sorted({c.bin for c in candidates}):
        points = [(c.tp, c.fp) for c in candidates if c.bin == b]
        area = aurpc(pr_points_from_counts(points, p, n))
        if best is None or area > best[0]:
            best = (area, b)
    return None if best is None else best[1]


def _all(backend: ClauseBackend, ids: npt.NDArray[np.int64] | None) -> npt.NDArray[np.int64]:
    if ids is None:
        return np.arange(backend.n_examples, dtype=np.int64)
    return np.asarray(ids, dtype=np.int64)


# --------------------------------------------------------------------------------------------
# The learner
# --------------------------------------------------------------------------------------------


class GleanerLearner:
    name = "gleaner"
    capabilities = LearnerCapabilities(
        default_search="rrr",
        default_scorer="pr",
        has_members=True,
        uses_tune=True,
        takes_combiner=True,
        quick_options={"seeds": 2, "clauses_per_seed": 20},
    )
    """Seeds are independent members that ``ctx.executor`` may run (cv.parallel)."""

    def __init__(self, options: GleanerOptions | None = None) -> None:
        self.options = options if options is not None else GleanerOptions()

    def model_from_json(self, data: dict[str, Any]) -> GleanerModel:
        return GleanerModel.from_json(data)

    def fit(self, task: Task, ctx: LearnContext) -> Any:
        train = ctx.train(task)
        if not np.any(task.examples.labels[train] == POS):
            raise ValueError(f"{task.name}: no positive training example for Gleaner's seeds")
        tune = ctx.tune_ids if ctx.tune_ids is not None and len(ctx.tune_ids) else train
        seeds = ctx.run_members(
            "seeds",
            self.options.seeds,
            lambda k: search_seed(task, ctx, self.options, k, train, tune),
            Shipped(
                run_seed_unit,
                lambda k: SeedUnit(self.options, k, train.tolist(), tune.tolist()),
                SeedResult.from_json,
            ),
        )
        info: dict[str, Any] = {"seed": ctx.seed, "tune_is_train": tune is train}
        if any(s.fallback_restarts for s in seeds):
            counts, note = start_fallbacks(seeds, getattr(ctx.make_search(), "options", None))
            info["start_fallbacks"] = counts
            info[DEGENERATE] = [note]
        model = GleanerModel(
            self.options,
            seeds,
            [int(i) for i in tune],
            target=task.target_name,
            info=info,
        )
        if ctx.combiner is not None:  # stage 1's pool, one member per recall bin
            from ilpkit.core.combiner import fit_pool

            bins = model.bin_clauses()
            return fit_pool(
                self.name,
                task,
                ctx,
                [c for b in sorted(bins) for c in bins[b]],
                [b for b in sorted(bins) for _ in bins[b]],
                "bin",
                clauses_evaluated=model.clauses_evaluated,
            )
        model.fit_stage2(ctx.backend, task.examples.labels)
        kept = list(dict.fromkeys(c for cs in model.bin_clauses().values() for c in cs))
        model.train_counts = {
            str(r.clause): (r.tp, r.fp, r.precision, r.recall)
            for r in rule_stats(task, ctx.backend, kept, train)
        }
        return model


SPEC = PluginSpec(
    kind="learner",
    name="gleaner",
    factory=GleanerLearner,
    options=GleanerOptions,
    doc="Gleaner: per-seed best clauses per recall bin, 'at least L of K' theories per bin.",
)
