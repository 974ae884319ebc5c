"""Learners and models: the contract every published method follows.

A learner plugin's factory takes its validated ``Options`` (its hyperparameters) and returns
an object with ``fit(task, ctx) -> Model``.  A :class:`Model` is data, not a live engine: its
rules are Prolog text plus numbers, it round-trips through JSON, and it scores examples on
whatever backend the caller loaded with the data to score (``score(backend, ids)``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Final,
    Protocol,
    TypeVar,
    runtime_checkable,
)

import numpy as np
import numpy.typing as npt

from ilpkit.core.backend import BackendProtocol
from ilpkit.core.bias import Settings
from ilpkit.core.coverage import Coverage, Weighting
from ilpkit.core.limits import coverage_within_limits
from ilpkit.core.search import Evaluated, Observer, Scorer, SearchStrategy
from ilpkit.core.task import Task
from ilpkit.errors import ConfigError
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ilpkit.core.members import MemberJob, MemberOutcome, Shipped
    from ilpkit.core.plugins import PluginManager

_MOVED_TO_MEMBERS: Final = frozenset({"MemberJob", "MemberOutcome", "Shipped", "member_outcome"})
"""Names :mod:`ilpkit.core.members` now holds (imported from here on first use: only
ensembles ship members, and their dataclasses cost every other run's start-up)."""


def __getattr__(name: str) -> Any:
    if name in _MOVED_TO_MEMBERS:
        from ilpkit.core import members

        return getattr(members, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


MODEL_FORMAT_VERSION = 1


ClauseBackend = BackendProtocol
"""What models and learners need from a backend: the one backend contract."""


@dataclass(frozen=True)
class Rule:
    """One rule of a model with its training statistics."""

    clause: Clause
    weight: float = 1.0
    tp: float = 0.0
    fp: float = 0.0
    precision: float = 0.0
    recall: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "clause": str(self.clause),
            "weight": self.weight,
            "tp": self.tp,
            "fp": self.fp,
            "precision": self.precision,
            "recall": self.recall,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rule:
        return cls(
            clause=parse_clause(str(data["clause"])),
            weight=float(data.get("weight", 1.0)),
            tp=float(data.get("tp", 0.0)),
            fp=float(data.get("fp", 0.0)),
            precision=float(data.get("precision", 0.0)),
            recall=float(data.get("recall", 0.0)),
        )


def parse_clause(text: str) -> Clause:
    return Clause.from_term(PrologReader(double_quotes="codes").read_term(text, name="model"))


class Model(Protocol):
    """A fitted model."""

    learner: str
    clauses_evaluated: int

    def score(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]:
        """A ranking score per example (higher = more likely positive)."""
        ...

    def predict(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.bool_]: ...

    def rules(self) -> list[Rule]: ...

    def to_json(self) -> dict[str, Any]: ...


# What a model may offer beyond :class:`Model`: each is a protocol the framework tests with
# isinstance (declared by defining the method), not a name probed with getattr.


@runtime_checkable
class Snapshots(Protocol):
    """A model that replays itself after fewer evaluated clauses (learning curves)."""

    def at_budget(self, clauses: int) -> Model | None: ...


@runtime_checkable
class Probabilistic(Protocol):
    """A model with its own probabilities (then no calibration is fitted; MCE is reported)."""

    def predict_proba(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.float64]: ...


@runtime_checkable
class PointClassifiers(Protocol):
    """A model made of several classifiers (Gleaner's per-bin theories, K of N votes),
    each a (TP, FP) point: their PR area is reported as ``aurpc_points``."""

    def pr_counts(
        self, backend: ClauseBackend, ids: npt.NDArray[np.int64], labels: npt.NDArray[np.bool_]
    ) -> list[tuple[float, float]]: ...


@runtime_checkable
class SelfExplaining(Protocol):
    """A model that explains itself as one table (boosting: weak hypotheses by alpha)."""

    def explain_table(self, title: str) -> Any: ...


@runtime_checkable
class Recorded(Protocol):
    """A model that records how it was learnt (``info``, saved with it)."""

    info: dict[str, Any]


@runtime_checkable
class ModelLoader(Protocol):
    """A learner that reads its saved models back."""

    def model_from_json(self, data: dict[str, Any]) -> Model: ...


@dataclass(frozen=True)
class LearnerCapabilities:
    """What a learner takes and offers, declared by its class (``capabilities = ...``) and
    read by the framework (:mod:`ilpkit.experiment.compose`) instead of probed.

    ``default_search``/``default_scorer`` are what the learner's method prescribes (Gleaner:
    rrr with pr); they are used wherever the user named none. A learner with
    ``takes_search=False`` (``takes_scorer=False``) runs its own fixed search (scorer): a
    different one named by the user is refused, not silently ignored.
    """

    takes_search: bool = True
    """The learner runs ``ctx.make_search()``: a user's search choice matters."""
    takes_scorer: bool = True
    """The learner scores clauses with ``ctx.scorer``."""
    default_search: str | None = None
    default_scorer: str | None = None
    has_members: bool = False
    """Its independent members (seeds, theories) may run on an executor (``run_members``)."""
    uses_tune: bool = False
    """It uses ``ctx.tune_ids`` (tune folds) when the experiment gives some."""
    search_defaults: Mapping[str, Any] = field(default_factory=dict)
    """Options the learner's method asks of its search, used where the user set none and
    the search has them (Aleph's induce: ``operator="aleph"``)."""
    takes_combiner: bool = False
    """It produces a pool of clauses that any combiner plugin may combine (``--combiner``):
    with a combiner named, ``fit`` returns :func:`ilpkit.core.combiner.fit_pool`'s model.
    A learner whose clause generation depends on its own combination (boosting, trees)
    leaves this False and a named combiner is refused."""
    default_combiner: str | None = None
    """The combiner used where the user named none (None: the learner's own combination,
    the published method's)."""
    splits_trees: bool = False
    """It grows classification trees with its own split heuristic, so the data's Aleph
    ``evalfn=entropy``/``gini`` (tree evalfns) ask for no scorer of it."""
    random_examples: bool = False
    """It generates the random examples a scorer with ``random_examples`` (Aleph's
    ``posonly``) counts in place of the negatives (:mod:`ilpkit.core.random_examples`);
    such a scorer is refused for a learner without it."""
    aleph_hooks: frozenset[tuple[str, int]] = frozenset()
    """Aleph's hooks in the data (``prune/1``, ``false/0``) its clause searches honour, with
    a search that does (``honours_aleph_hooks``); a run that would not honour one the data
    defines is refused (:mod:`ilpkit.core.aleph_hooks`)."""
    quick_options: Mapping[str, Any] = field(default_factory=dict)
    """Options for a small, fast fit (few seeds, members or rounds), used by
    :func:`ilpkit.testing.check_learner`."""
    reads_settings: frozenset[str] = frozenset()
    """Aleph settings it acts on beyond those every learner shares: those of
    :data:`ilpkit.core.bias_check.LEARNER_SETTINGS` (the tree settings of
    ``aleph-tree``), and ``evalfn`` when it reads that without taking a scorer; the others
    of LEARNER_SETTINGS are reported as set but not used by it."""


DEFAULT_CAPABILITIES = LearnerCapabilities()


@runtime_checkable
class Learner(Protocol):
    """What a learner plugin's factory builds.

    ``fit`` learns a :class:`Model` (score/predict/rules/to_json); ``model_from_json`` reads
    one back (save/load); ``capabilities`` declares what it takes (search, scorer) and offers
    (members, tune) -- see :class:`LearnerCapabilities`. ``ilpkit.testing.check_learner``
    checks the contract on a small dataset.
    """

    name: str
    capabilities: ClassVar[LearnerCapabilities]

    def fit(self, task: Task, ctx: LearnContext) -> Model: ...

    def model_from_json(self, data: dict[str, Any]) -> Model: ...


def capabilities_of(learner: object) -> LearnerCapabilities:
    """The capabilities ``learner`` (an instance or its class) declares; a learner that
    declares none takes any search and scorer and has no members."""
    caps = getattr(learner, "capabilities", DEFAULT_CAPABILITIES)
    if not isinstance(caps, LearnerCapabilities):
        raise ConfigError(
            f"learner {getattr(learner, 'name', learner)!r}: capabilities must be a "
            f"LearnerCapabilities, got {type(caps).__name__}"
        )
    return caps


M = TypeVar("M")


def derive_seed(*parts: object) -> int:
    """A 31-bit seed determined by ``parts`` only (the same on every machine and worker)."""
    return random.Random(repr(parts)).getrandbits(31)


def learner_capabilities(
    name: str,
    options: Mapping[str, Any] | BaseModel | None = None,
    manager: PluginManager | None = None,
) -> LearnerCapabilities:
    """What learner ``name`` declares it takes and offers."""
    from ilpkit.core.plugins import get_plugin_manager

    manager = manager or get_plugin_manager()
    factory = manager.get("learner", name).factory
    if isinstance(factory, type):
        return capabilities_of(factory)
    return capabilities_of(manager.make("learner", name, options))


@dataclass
class LearnContext:
    """What a learner receives besides the task: engine, search, scorer, randomness, hooks."""

    backend: Any
    make_search: Callable[[], SearchStrategy]
    scorer: Scorer
    settings: Settings
    seed: int = 0
    train_ids: npt.NDArray[np.int64] | None = None
    observers: list[Observer] = field(default_factory=list)
    on_rule: Callable[[Evaluated], None] | None = None
    tune_ids: npt.NDArray[np.int64] | None = None
    executor: Any = None
    """Where a learner's independent units (Gleaner seeds, ensemble members) run; ``None``:
    one after another in this process, on ``backend``."""
    recipe: Any = None
    """A :class:`~ilpkit.experiment.config.RunConfig` from which a worker process rebuilds the task
    and backend; units go to ``executor`` only when it is set."""
    member_runner: Callable[[MemberJob], MemberOutcome] | None = None
    """The runner's worker-side function (a module-level one, picklable) that rebuilds the
    task and context from a :class:`MemberJob`'s recipe and runs it; set with ``recipe``."""
    combiner: Any = None
    """The run's combiner (:class:`ilpkit.core.combiner.Combiner`), or None: the learner
    combines its clauses its own way (the published method)."""
    on_progress: Callable[[int, int, str], None] | None = None
    """``on_progress(done, total, what)`` after each of a learner's steps (Gleaner seeds,
    ensemble theories, boosting rounds: ``what`` names them), for progress bars."""

    def progress(self, done: int, total: int, what: str) -> None:
        if self.on_progress is not None:
            self.on_progress(done, total, what)

    def run_members(
        self,
        what: str,
        count: int,
        here: Callable[[int], M],
        shipped: Shipped[M] | tuple[Callable[[Any], Any], Callable[[int], Any], Callable[[Any], M]],
    ) -> list[M]:
        """Members ``0 .. count-1`` of a learner (Gleaner seeds, ensemble theories), each
        reported as a step named ``what``: the one framework-owned way to run them.

        Without an executor, ``here(k)`` runs in this process. With ``executor`` and
        ``recipe`` set, member k runs on the executor: as ``shipped.run(task, ctx,
        shipped.payload(k))`` in a worker whose task and context the framework rebuilds
        (:class:`Shipped`), or, in the older form ``shipped = (worker, unit, decode)``, as
        ``worker(unit(k))``; either way its plain-data result is decoded here."""
        if self.executor is not None and self.recipe is not None:
            from ilpkit.core.members import MemberJob, Shipped, add_worker_counts

            if isinstance(shipped, Shipped):
                if self.member_runner is None:
                    raise ConfigError("internal: a context with a recipe needs a member_runner")
                run_member_job = self.member_runner
                jobs = [
                    MemberJob(self.recipe, self.seed, shipped.run, shipped.payload(k))
                    for k in range(count)
                ]
                outcomes = self.executor.map(run_member_job, jobs)
                raw = (add_worker_counts(self.backend, o) for o in outcomes)
                decode = shipped.decode
            else:
                worker, unit, decode = shipped
                raw = self.executor.map(worker, [unit(k) for k in range(count)])
            results = (decode(r) for r in raw)
        else:
            results = (here(k) for k in range(count))
        members = []
        for k, member in enumerate(results, 1):
            members.append(member)
            self.progress(k, count, what)
        return members

    def rng(self, *salt: object) -> random.Random:
        """A generator seeded by the run seed and ``salt`` (per unit, never per worker)."""
        return random.Random(repr((self.seed, *salt)))

    def train(self, task: Task) -> npt.NDArray[np.int64]:
        if self.train_ids is not None:
            return self.train_ids
        return default_train_ids(task)


def default_train_ids(task: Task) -> npt.NDArray[np.int64]:
    """All examples, or those of the ``train`` fold when the data has a train/test split."""
    if "train" in task.fold_names:
        fold = task.fold_names.index("train")
        return np.flatnonzero(task.examples.folds == fold).astype(np.int64)
    return task.examples.ids


def subset_weighting(task: Task, ids: npt.NDArray[np.int64]) -> Weighting:
    """Weights of ``ids`` as given, every other example at weight 0."""
    weights = np.zeros(len(task.examples), dtype=np.float64)
    weights[ids] = task.examples.weights[ids]
    return Weighting(task.examples.labels, weights)


def rule_stats(
    task: Task, backend: ClauseBackend, clauses: Sequence[Clause], ids: npt.NDArray[np.int64]
) -> list[Rule]:
    """Rules with TP/FP/precision/recall measured on the examples ``ids``."""
    weighting = subset_weighting(task, ids)
    among = Coverage(ids, len(task.examples))
    out = []
    for clause in clauses:
        c = weighting.counts(coverage_within_limits(backend, clause, among))
        out.append(Rule(clause, 1.0, c.tp, c.fp, c.precision, c.recall))
    return out


def matches(
    backend: ClauseBackend, clauses: Sequence[Clause], ids: npt.NDArray[np.int64] | None
) -> npt.NDArray[np.float64]:
    """For each example in ``ids`` (default: all), how many of ``clauses`` cover it."""
    n = backend.n_examples
    ids = np.arange(n, dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
    among = Coverage(ids, n)
    counts = np.zeros(n, dtype=np.float64)
    for clause in clauses:
        counts[coverage_within_limits(backend, clause, among).ids] += 1.0
    return counts[ids]


EMPTY_THEORY: Final = (
    "the theory is empty: no clause met the settings (minpos, minacc, noise, nodes, ...) or "
    "the time limit passed before one was found, so every example gets the same score "
    "(AUROC 0.5, F1 0 say nothing was learnt)"
)
"""What learn, cv and report.md say of a model with no rule."""
