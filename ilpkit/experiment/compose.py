"""Composing a run: the one place where a user's choices become a running learner.

Every entry point -- the CLI (``ilpkit learn``/``cv``/``run``), the Python API
(:mod:`ilpkit.experiment.api`), TOML run files and
:class:`~ilpkit.experiment.estimator.ILPEstimator` -- goes through these functions, so the same
choices give the same run everywhere:

* :func:`resolve` fills the search and scorer left ``"auto"`` (the default) with what the
  learner's method prescribes (:class:`~ilpkit.core.learner.LearnerCapabilities`), else with
  what the data's Aleph ``search``/``evalfn`` settings say, and refuses a search or scorer the
  learner cannot take;
* :func:`open_task` reads the dataset once and applies the settings overrides;
* :func:`open_backend`, :func:`make_learner` and :func:`make_context` build the engine, the
  learner and its :class:`~ilpkit.core.learner.LearnContext` (with the worker recipe when
  members run on an executor);
* :func:`worker_context` rebuilds task, backend and context in a worker process.

Plugins are found by name through the plugin manager: this module imports none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core import aleph_hooks, bias_check
from ilpkit.core.allocator import work_begins
from ilpkit.core.bias import Settings
from ilpkit.core.learner import (
    LearnContext,
    LearnerCapabilities,
    derive_seed,
    learner_capabilities,
)
from ilpkit.core.plugins import PluginKind, PluginManager, get_plugin_manager
from ilpkit.core.search import Observer
from ilpkit.core.task import Task
from ilpkit.errors import BiasError, ConfigError
from ilpkit.experiment.config import AUTO, RUN_KINDS, PluginChoice, RunConfig, resolve_plugins

if TYPE_CHECKING:
    from ilpkit.core.members import MemberJob, MemberOutcome

__all__ = [
    "AUTO",
    "EVALFN_SCORERS",
    "SEARCH_PLUGINS",
    "Choices",
    "Run",
    "data_default",
    "derive_seed",
    "learner_capabilities",
    "make_context",
    "make_learner",
    "open_backend",
    "open_named_backend",
    "open_task",
    "resolve",
    "run_config",
    "with_settings",
    "worker_context",
]

EVALFN_SCORERS: Final[Mapping[str, str]] = {
    "coverage": "coverage",
    "compression": "compression",
    "laplace": "laplace",
    "mestimate": "mestimate",
    "auto_m": "auto_m",
    "accuracy": "precision",  # Aleph's "accuracy" is P/(P+N) of the clause: precision
    "precision": "precision",
    "recall": "recall",
    "f": "f1",
    "wracc": "wracc",
    "posonly": "posonly",  # random examples from the types: learners theory and aleph
}
"""Aleph's ``evalfn`` setting -> ilpkit's scorer, used when no scorer is named."""

TREE_EVALFNS: Final = frozenset({"entropy", "gini"})
"""Aleph's evalfns of classification trees (``induce_tree``): ``--learner aleph-tree`` grows
Aleph's trees with them; ``--learner tilde`` runs in their place with its own split
heuristic (information gain)."""

EVALFN_REASONS: Final[Mapping[str, str]] = {
    "entropy": "Aleph's split measure for classification trees (induce_tree): --learner "
    "aleph-tree grows Aleph's trees",
    "gini": "Aleph's split measure for classification trees (induce_tree): --learner "
    "aleph-tree grows Aleph's trees",
    "mse": "Aleph's measure for regression trees (tree_type regression); ilpkit learns no "
    "regression trees or numeric targets (its trees, --learner tilde, classify)",
    "sd": "Aleph's measure for regression trees (tree_type regression); ilpkit learns no "
    "regression trees or numeric targets (its trees, --learner tilde, classify)",
    "user": "Aleph's user-defined cost/3; ilpkit runs no cost/3 from the data (write a "
    "scorer plugin: docs/plugins.md)",
    "pbayes": "Aleph's pseudo-Bayes conditional probability, which ilpkit does not implement",
}
"""Why an Aleph ``evalfn`` has no ilpkit scorer, for the error that asks for ``--scorer``."""

SEARCH_PLUGINS: Final[Mapping[str, str]] = {
    "bf": "bf",
    "heuristic": "topdown",
    "rls": "rrr",
    "ar": "topdown",
}
"""Aleph's ``search`` setting -> ilpkit's search, used when no search is named."""

_SETTING: Final[Mapping[str, tuple[str, Mapping[str, str]]]] = {
    "search": ("search", SEARCH_PLUGINS),
    "scorer": ("evalfn", EVALFN_SCORERS),
}


def _choice(kind: str) -> Any:
    return Field(
        default_factory=lambda: PluginChoice(
            name=AUTO if kind in (*_SETTING, "combiner") else _DEFAULTS[kind]
        ),
        description=f"The {kind} plugin and its options.",
    )


_DEFAULTS: Final[Mapping[str, str]] = {
    "backend": "native",
    "learner": "theory",
    "executor": "local",
}


class Choices(BaseModel):
    """A run's plugins, seed and settings without the data (the estimator's choices; a
    :class:`~ilpkit.experiment.config.RunConfig` holds the same fields plus data and folds)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: PluginChoice = _choice("backend")
    search: PluginChoice = _choice("search")
    scorer: PluginChoice = _choice("scorer")
    learner: PluginChoice = _choice("learner")
    combiner: PluginChoice = _choice("combiner")
    executor: PluginChoice = _choice("executor")
    seed: int = Field(default=0, description="Seed of every random choice.")
    settings: dict[str, Any] = Field(
        default_factory=dict, description="Aleph settings overriding the data's own."
    )

    def plugin(self, kind: PluginKind) -> PluginChoice:
        choice = getattr(self, kind)
        assert isinstance(choice, PluginChoice)
        return choice


C = TypeVar("C", bound=RunConfig | Choices)


# --------------------------------------------------------------------------------------------
# Choices from keyword arguments (API, CLI)
# --------------------------------------------------------------------------------------------


def plugin_sections(
    *,
    learner: str,
    search: str | None,
    scorer: str | None,
    backend: str,
    executor: str,
    options: Mapping[str, Mapping[str, Any]] | None,
    trust_data: bool = False,
    where: str = "options",
    combiner: str | None = None,
) -> dict[str, dict[str, Any]]:
    """The plugin sections of a run (``{"learner": {"name": ..., "options": ...}, ...}``);
    ``None`` for search, scorer or combiner means ``auto``; ``trust_data`` sets the
    backend's."""
    opts = dict(options or {})
    unknown = set(opts) - set(RUN_KINDS)
    if unknown:
        raise ConfigError(
            f"{where}: unknown plugin kinds {sorted(unknown)} (kinds: {', '.join(RUN_KINDS)})"
        )
    names = {
        "learner": learner,
        "search": search or AUTO,
        "scorer": scorer or AUTO,
        "combiner": combiner or AUTO,
        "backend": backend,
        "executor": executor,
    }
    out: dict[str, dict[str, Any]] = {
        kind: {"name": names[kind], "options": dict(opts.get(kind, {}))} for kind in RUN_KINDS
    }
    if trust_data:
        out["backend"]["options"]["trust_data"] = True
    return out


def run_config(
    data: str | Any,
    *,
    learner: str = "theory",
    search: str | None = None,
    scorer: str | None = None,
    backend: str = "native",
    executor: str = "local",
    options: Mapping[str, Mapping[str, Any]] | None = None,
    settings: Mapping[str, Any] | None = None,
    seed: int = 0,
    data_format: str = "auto",
    stem: str | None = None,
    trust_data: bool = False,
    cv: Mapping[str, Any] | None = None,
    where: str = "options",
    combiner: str | None = None,
) -> RunConfig:
    """A checked :class:`RunConfig` from keyword choices (what the API and CLI take);
    ``options["data"]`` holds further data options (``--set data.strict=true``)."""
    from ilpkit.experiment.config import apply_overrides

    options = dict(options or {})
    data_options = dict(options.pop("data", {}))
    raw: dict[str, Any] = {
        "data": {"path": str(data), "format": data_format, "stem": stem, **data_options},
        **plugin_sections(
            learner=learner,
            search=search,
            scorer=scorer,
            backend=backend,
            executor=executor,
            options=options,
            trust_data=trust_data,
            where=where,
            combiner=combiner,
        ),
        "seed": seed,
        "settings": dict(settings or {}),
    }
    if cv is not None:
        raw["cv"] = dict(cv)
    return apply_overrides(raw, [], where=where)


# --------------------------------------------------------------------------------------------
# Resolving defaults and refusing what a learner cannot take
# --------------------------------------------------------------------------------------------


def data_learner(task: Task) -> str:
    """The learner ``auto`` stands for: ``aleph-tree`` for data that asks for Aleph's
    classification trees (``evalfn`` entropy or gini, or ``tree_type`` and ``dependent``
    set, with ``tree_type`` classification or class_probability), else ``theory``."""
    settings = task.bias.settings
    wants_tree = str(settings["evalfn"]) in TREE_EVALFNS or (
        "tree_type" in settings and "dependent" in settings
    )
    if wants_tree and settings["tree_type"] in ("classification", "class_probability"):
        return "aleph-tree"
    return "theory"


def with_data_learner(config: C, task: Task | None) -> C:
    """``config`` with a learner left ``auto`` named (:func:`data_learner`; ``theory``
    without a task)."""
    if config.learner.name != AUTO:
        return config
    name = data_learner(task) if task is not None else "theory"
    chosen = PluginChoice(name=name, options=dict(config.learner.options))
    return cast(C, config.model_copy(update={"learner": chosen}))


def data_default(kind: str, task: Task, caps: LearnerCapabilities | None = None) -> str:
    """The search or scorer the data's Aleph settings ask for (``search``, ``evalfn``).

    ``evalfn=entropy``/``gini`` (Aleph's trees) need no scorer for a learner that grows
    trees with its own split heuristic (``caps.splits_trees``: ``coverage`` is named, and
    not used)."""
    setting, table = _SETTING[kind]
    value = str(task.bias.settings[setting])
    if value not in table:
        if kind == "scorer" and value in TREE_EVALFNS and caps is not None and caps.splits_trees:
            return "coverage"
        why = f" ({EVALFN_REASONS[value]})" if kind == "scorer" and value in EVALFN_REASONS else ""
        raise ConfigError(
            f"the data sets {setting}={value}{why}, which ilpkit has no {kind} for; pass "
            f"--{kind} NAME"
            + (
                " (coverage, laplace, mestimate, ...: `ilpkit plugins` lists them)"
                if kind == "scorer"
                else ""
            )
            + (
                " or --learner aleph-tree (or tilde)"
                if kind == "scorer" and value in TREE_EVALFNS
                else ""
            )
        )
    return table[value]


def resolve(
    config: C,
    task: Task | None = None,
    *,
    manager: PluginManager | None = None,
    where: str = "options",
) -> C:
    """``config`` with every plugin named and every plugin's options checked.

    A learner left ``auto`` becomes the one the data asks for (:func:`data_learner`). A
    search or scorer left ``auto`` becomes the learner's prescribed one, else the data's
    (``task``'s settings; needed only then). A learner that declares ``takes_search=False``
    (``takes_scorer=False``) refuses any other search (scorer) than its own, and options for
    it, with a :class:`ConfigError` naming the choice. The learner's ``search_defaults`` fill
    the search options the user left unset, where the search has them.
    """
    manager = manager or get_plugin_manager()
    config = with_data_learner(config, task)
    resolve_plugins(config, manager, where=where)
    learner = config.learner
    caps = learner_capabilities(learner.name, learner.options, manager)
    update: dict[str, PluginChoice] = {}
    for kind, prescribed, takes in (
        ("search", caps.default_search, caps.takes_search),
        ("scorer", caps.default_scorer, caps.takes_scorer),
    ):
        kind_: PluginKind = "search" if kind == "search" else "scorer"
        choice = config.plugin(kind_)
        if not takes and choice.name not in (AUTO, prescribed):
            own = f"its own {kind} ({prescribed})" if prescribed else f"no {kind}"
            raise ConfigError(
                f"{where}: learner {learner.name!r} runs {own} and cannot take "
                f"{kind} {choice.name!r}; leave the {kind} unset"
            )
        if not takes and choice.options:
            raise ConfigError(
                f"{where}: learner {learner.name!r} runs its own {kind} and takes no "
                f"{kind} options (got {', '.join(sorted(choice.options))})"
            )
        if choice.name != AUTO:
            if kind == "search" and caps.search_defaults:
                options = _with_search_defaults(manager, choice.name, choice.options, caps)
                if options != choice.options:
                    update[kind] = PluginChoice(name=choice.name, options=options)
            continue
        if prescribed is not None:
            name = prescribed
        elif task is not None:
            name = data_default(kind, task, caps)
        else:
            raise ConfigError(
                f"{where}: {kind} is auto and learner {learner.name!r} prescribes none; "
                f"name a {kind} (the data's settings decide only when the data is read)"
            )
        try:
            manager.validate_options(kind_, name, choice.options)
        except ConfigError as err:
            lines = [f"{where}: {kind}.options: {line}" for line in str(err).splitlines()]
            raise ConfigError("\n".join(lines)) from None
        options = dict(choice.options)
        if kind == "search":
            options = _with_search_defaults(manager, name, options, caps)
        update[kind] = PluginChoice(name=name, options=options)
    scorer = update["scorer"] if "scorer" in update else config.plugin("scorer")
    if caps.takes_scorer and not caps.random_examples and _random_examples(manager, scorer):
        makers = " or ".join(_random_example_learners(manager))
        raise ConfigError(
            f"{where}: scorer {scorer.name!r} scores clauses on random examples generated from "
            f"the head mode's types (Aleph's evalfn posonly), which learner {learner.name!r} "
            f"does not generate; use learner {makers}, or another scorer"
        )
    combiner = config.plugin("combiner")
    if combiner.name != AUTO and not caps.takes_combiner:
        pool_learners = ", ".join(
            name
            for name in manager.names("learner")
            if learner_capabilities(name, None, manager).takes_combiner
        )
        raise ConfigError(
            f"{where}: learner {learner.name!r} makes no clause pool for a combiner (its "
            f"model is its own: a theory, boosted rounds or trees, whose clauses depend on "
            f"how they are combined) and cannot take combiner {combiner.name!r}; leave the "
            f"combiner unset, or use a pool learner: {pool_learners}"
        )
    if combiner.name == AUTO and caps.default_combiner is not None:
        try:
            manager.validate_options("combiner", caps.default_combiner, combiner.options)
        except ConfigError as err:
            lines = [f"{where}: combiner.options: {line}" for line in str(err).splitlines()]
            raise ConfigError("\n".join(lines)) from None
        update["combiner"] = PluginChoice(name=caps.default_combiner, options=combiner.options)
    elif combiner.name == AUTO and combiner.options:
        raise ConfigError(
            f"{where}: combiner options ({', '.join(sorted(combiner.options))}) need a "
            "combiner: pass --combiner NAME"
        )
    if not update:
        return config
    return cast(C, config.model_copy(update=update))


def _random_example_learners(manager: PluginManager) -> list[str]:
    """The registered learners that generate random examples (for messages)."""

    def generates(name: str) -> bool:
        try:
            return learner_capabilities(name, None, manager).random_examples
        except Exception:  # a learner that cannot be loaded is not named (messages only)
            return False

    return [name for name in manager.names("learner") if generates(name)]


def _random_examples(manager: PluginManager, scorer: PluginChoice) -> bool:
    """Whether ``scorer`` counts random examples in place of negatives (Aleph's posonly)."""
    if scorer.name == AUTO:
        return False
    made = manager.make("scorer", scorer.name, dict(scorer.options))
    return bool(getattr(made, "random_examples", False))


def _with_search_defaults(
    manager: PluginManager, search: str, options: Mapping[str, Any], caps: LearnerCapabilities
) -> dict[str, Any]:
    """``options`` plus the learner's ``search_defaults`` that ``search`` has and the user
    left unset."""
    fields = manager.get("search", search).options.model_fields
    extra = {k: v for k, v in caps.search_defaults.items() if k in fields and k not in options}
    return {**options, **extra}


# --------------------------------------------------------------------------------------------
# Building the parts
# --------------------------------------------------------------------------------------------


def with_settings(task: Task, settings: Mapping[str, Any], *, where: str = "settings") -> Task:
    """``task`` with Aleph ``settings`` overrides, as a new task sharing everything else
    (the caller's task is not changed)."""
    if not settings:
        return task
    from dataclasses import replace

    own = Settings()
    old = task.bias.settings
    own.explicit = dict(old.explicit)
    own.unknown = dict(old.unknown)
    own.locations = dict(old.locations)
    for key, value in settings.items():
        try:
            own.set_value(key, value)
        except BiasError as exc:
            raise ConfigError(f"{where}.{key}={value!r}: {exc}") from None
    return replace(task, bias=replace(task.bias, settings=own))


def open_task(config: RunConfig) -> Task:
    """The config's dataset, read once, with its Aleph settings overrides applied."""
    from ilpkit.core.formats import load_task
    from ilpkit.datasets import resolve_data_path

    if config.data.content is not None:  # shipped to a worker that cannot see the path
        from ilpkit.core.shipping import local_path

        data_path = local_path(config.data.content)
    else:
        data_path = resolve_data_path(str(config.data.path))
    task = load_task(
        data_path,
        format=str(config.data.format),
        stem=config.data.stem,
        strict=config.data.strict,
        trust_data=bool(config.backend.options.get("trust_data", False)),
    )
    for key, value in config.settings.items():
        try:
            task.bias.settings.set_value(key, value)
        except BiasError as exc:
            raise ConfigError(f"settings.{key}={value!r}: {exc}") from None
    # learn/cv print bias that cannot work, and settings that change nothing, first
    bias_check.notify(task, with_data_learner(config, task).learner.name)
    return _hooks_ignored(config, task)


def _hooks_ignored(config: RunConfig | Choices, task: Task) -> Task:
    """``task`` without Aleph's hooks when the run says ``data.aleph_hooks=ignore`` (said
    once), else ``task``."""
    data = getattr(config, "data", None)
    if data is None or data.aleph_hooks != "ignore":
        return task
    note = aleph_hooks.summary(task, ignored=True)
    if note is not None:
        bias_check.say(note)
    return aleph_hooks.without_hooks(task)


def hook_honourers(manager: PluginManager | None = None) -> str:
    """``learner theory or aleph with search topdown or bf``: the registered learners that
    declare Aleph's search hooks (``LearnerCapabilities.aleph_hooks``) and the searches that
    honour them (``honours_aleph_hooks``), for messages."""
    manager = manager or get_plugin_manager()

    def declares(kind: PluginKind, name: str) -> bool:
        try:
            if kind == "learner":
                return bool(learner_capabilities(name, None, manager).aleph_hooks)
            return bool(getattr(manager.make(kind, name, {}), "honours_aleph_hooks", False))
        except Exception:  # a plugin its defaults cannot make is not named (messages only)
            return False

    learners = [n for n in manager.names("learner") if declares("learner", n)]
    searches = [n for n in manager.names("search") if declares("search", n)]
    if not learners or not searches:
        return ""
    return f"learner {' or '.join(learners)} with search {' or '.join(searches)}"


def check_hooks(config: RunConfig | Choices, task: Task, manager: PluginManager) -> None:
    """Refuse a run that would not honour an Aleph hook the data defines (``prune/1``,
    ``false/0`` with a learner and search that do not, ``refine/2`` with ``set(refine,
    user)``), with the file and line and the option to go on without it; otherwise say once
    what happens to them."""
    if not aleph_hooks.defined_hooks(task):
        return
    learner, search = config.learner, config.plugin("search")
    caps = learner_capabilities(learner.name, learner.options, manager)
    made = manager.make("search", search.name, dict(search.options)) if caps.takes_search else None
    honoured = caps.aleph_hooks if getattr(made, "honours_aleph_hooks", False) else frozenset()
    who = f"learner {learner.name}" + (f" with search {search.name}" if made is not None else "")
    # a run resolves only with a scorer standing in for evalfn=user (resolve refuses it)
    scorer = config.scorer.name
    unused = {
        aleph_hooks.COST: f"scorer {scorer} stands in for evalfn=user"
        if caps.takes_scorer
        else f"learner {learner.name} runs its own scorer"
    }
    refused = aleph_hooks.refusal(task, honoured, who, unused, hook_honourers(manager))
    if refused is not None:
        raise ConfigError(refused)
    if aleph_hooks.FALSE in honoured:
        aleph_hooks.HookGate(None, task)  # a call of hypothesis/3 it cannot answer: refused
    note = aleph_hooks.summary(task, honoured, who, unused=unused)
    if note is not None:
        bias_check.say(note)


def open_backend(
    config: RunConfig | Choices, task: Task, manager: PluginManager | None = None
) -> Any:
    """The config's backend with ``task`` loaded; the data's ``aleph_random/1`` draws from
    the run's seed (:mod:`ilpkit.core.aleph_library`)."""
    manager = manager or get_plugin_manager()
    backend = manager.make("backend", config.backend.name, dict(config.backend.options))
    if hasattr(backend, "random_seed"):  # the built-in backends' aleph_random/1
        backend.random_seed = config.seed
    backend.load(task)
    return backend


def open_named_backend(
    name: str,
    options: Mapping[str, Any] | None,
    task: Task,
    *,
    trust_data: bool = False,
    manager: PluginManager | None = None,
) -> Any:
    """Backend ``name`` with ``options`` (and ``trust_data``) and ``task`` loaded: the
    engine that scores a saved model on other data (``ilpkit predict``/``explain``)."""
    manager = manager or get_plugin_manager()
    opts = {**dict(options or {}), **({"trust_data": True} if trust_data else {})}
    backend = manager.make("backend", name, opts)
    backend.load(task)
    return backend


def make_learner(config: RunConfig | Choices, manager: PluginManager | None = None) -> Any:
    """The config's learner (a :class:`~ilpkit.core.learner.Learner`)."""
    manager = manager or get_plugin_manager()
    return manager.make("learner", config.learner.name, dict(config.learner.options))


def make_context(
    config: RunConfig | Choices,
    task: Task,
    backend: Any,
    *,
    seed: int | None = None,
    train_ids: npt.NDArray[np.int64] | None = None,
    tune_ids: npt.NDArray[np.int64] | None = None,
    executor: Any = None,
    observers: Sequence[Observer] = (),
    on_rule: Callable[[Any], None] | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
    manager: PluginManager | None = None,
) -> LearnContext:
    """The learner's context for a resolved config: search factory, scorer, seed, roles.

    With ``executor`` (and a :class:`RunConfig`, the worker recipe) the learner's members
    run there; otherwise one after another here.
    """
    manager = manager or get_plugin_manager()
    search = config.search
    if search.name == AUTO or config.scorer.name == AUTO:
        raise ConfigError("internal: make_context needs a resolved config (call resolve)")
    recipe = config if executor is not None and isinstance(config, RunConfig) else None
    combiner = config.plugin("combiner")
    return LearnContext(
        backend=backend,
        make_search=lambda: manager.make("search", search.name, dict(search.options)),
        scorer=manager.make("scorer", config.scorer.name, dict(config.scorer.options)),
        settings=task.bias.settings,
        seed=config.seed if seed is None else seed,
        train_ids=train_ids,
        tune_ids=tune_ids if tune_ids is not None and len(tune_ids) else None,
        observers=list(observers),
        on_rule=on_rule,
        executor=executor if recipe is not None else None,
        recipe=recipe,
        member_runner=run_member_job if recipe is not None else None,
        on_progress=on_progress,
        combiner=None
        if combiner.name == AUTO
        else manager.make("combiner", combiner.name, dict(combiner.options)),
    )


# --------------------------------------------------------------------------------------------
# Workers
# --------------------------------------------------------------------------------------------


class WorkerCache:
    """The task and backend of the configuration a worker ran last (one engine per task)."""

    def __init__(self) -> None:
        self.task_key: str | None = None
        self.task: Task | None = None
        self.backend_key: str | None = None
        self.backend: Any = None

    def get_task(self, config: RunConfig) -> Task:
        key = config.data.model_dump_json() + repr(sorted(config.settings.items()))
        if key != self.task_key or self.task is None:
            self.close_backend()
            self.task = open_task(config)
            self.task_key = key
        return self.task

    def get_backend(self, config: RunConfig, task: Task) -> Any:
        key = config.backend.model_dump_json() + f" seed {config.seed}"  # aleph_random/1's
        if key != self.backend_key or self.backend is None:
            self.close_backend()
            self.backend = open_backend(config, task)
            self.backend_key = key
        return self.backend

    def close_backend(self) -> None:
        if self.backend is not None:
            self.backend.close()
        self.backend, self.backend_key = None, None


WORKER_CACHE = WorkerCache()
"""This process's cached task and backend (workers load an engine once per task)."""


def run_member_job(job: MemberJob) -> MemberOutcome:
    """Run one shipped member in a worker (task and backend cached per worker process)."""
    from ilpkit.core.members import member_outcome

    task, ctx = worker_context(job.recipe, job.seed)
    return member_outcome(job, task, ctx)


def worker_context(recipe: RunConfig, seed: int) -> tuple[Task, LearnContext]:
    """Task and learning context rebuilt from a recipe in a worker process (cached per
    process), for learners whose members (Gleaner seeds, ensemble theories) run elsewhere."""
    run = Run.of(recipe, WORKER_CACHE.get_task(recipe), resolved=True)
    backend = WORKER_CACHE.get_backend(recipe, run.task)
    return run.task, run.context(backend, seed=seed)


# --------------------------------------------------------------------------------------------
# The run: the one place the sequence is written
# --------------------------------------------------------------------------------------------


class Run:
    """A user's choices composed once: options validated, plugins named, the data read.

    Every entry point goes through it -- :func:`ilpkit.learn` (and so ``ilpkit learn``),
    the estimator, every cross-validation unit (:func:`ilpkit.experiment.cv.run_unit`)
    and every worker process (:func:`worker_context`) -- so the sequence *validate the
    plugins' options -> read the data -> resolve search, scorer and combiner -> open the
    backend -> build the learner and its context -> fit* is written here only::

        run = Run.of(config)                     # validated, resolved, data read
        with run.open_backend() as engine:
            model = run.fit(engine, train_ids=...)
    """

    def __init__(self, config: RunConfig | Choices, task: Task, manager: PluginManager) -> None:
        self.config = config
        self.task = task
        self.manager = manager

    @classmethod
    def of(
        cls,
        config: RunConfig | Choices,
        task: Task | None = None,
        *,
        manager: PluginManager | None = None,
        where: str = "options",
        resolved: bool = False,
        load: Callable[[RunConfig], Task] | None = None,
    ) -> Run:
        """Compose ``config``: its plugins' options checked (once), the data read unless
        ``task`` is given (a :class:`Choices` needs ``task``), search/scorer/combiner
        resolved.  ``resolved=True``: the config was resolved before (a cv unit's, a
        worker's recipe): nothing is checked again.  ``load`` reads the data (default
        :func:`open_task`; a run directory's cache)."""
        manager = manager or get_plugin_manager()
        load = load or open_task
        if resolved:
            if task is None:
                if not isinstance(config, RunConfig):
                    raise ConfigError("internal: Run.of needs a task with Choices")
                task = load(config)
            return cls(config, task, manager)
        resolve_plugins(config, manager, where=where)
        if task is None:
            if not isinstance(config, RunConfig):
                raise ConfigError("internal: Run.of needs a task with Choices")
            task = load(config)
        else:
            task = _hooks_ignored(
                config, with_settings(task, config.settings, where=f"{where}: settings")
            )
        refused = bias_check.unsupported_features(task)
        if refused is not None:
            raise ConfigError(refused)
        chosen = resolve(config, task, manager=manager, where=where)
        check_hooks(chosen, task, manager)
        return cls(chosen, task, manager)

    def open_backend(self, task: Task | None = None) -> Any:
        """The run's backend with ``task`` (default: the run's) loaded."""
        return open_backend(self.config, self.task if task is None else task, self.manager)

    def learner(self) -> Any:
        """A fresh learner of the run's choice."""
        return make_learner(self.config, self.manager)

    def context(self, backend: Any, task: Task | None = None, **kwargs: Any) -> LearnContext:
        """The learner's context on ``backend`` (keyword arguments: :func:`make_context`'s)."""
        work_begins()  # the command's start-up is over (see ilpkit.core.allocator)
        return make_context(
            self.config, self.task if task is None else task, backend, manager=self.manager,
            **kwargs,
        )  # fmt: skip

    def fit(self, backend: Any, task: Task | None = None, **kwargs: Any) -> Any:
        """Fit a fresh learner on ``task`` (default: the run's) with ``backend``."""
        task = self.task if task is None else task
        return self.learner().fit(task, self.context(backend, task, **kwargs))
