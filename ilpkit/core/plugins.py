"""Plugin hooks and the plugin manager: every backend, search, scorer, learner and executor.

This module is the single list of ilpkit's pluggy hooks (project name ``"ilpkit"``), in the
style of pytest's ``hookspec.py``. Built-in methods (``ilpkit.plugins.builtin``) register
through exactly the same hook a third-party package implements; third-party packages are
found through the entry point group ``ilpkit.plugins``::

    [project.entry-points."ilpkit.plugins"]
    myplugin = "my_package.ilpkit_plugin"      # a module with @hookimpl functions

Design: one hook that returns data
    There is one registration hook, :func:`ilpkit_register_plugins`, and it *returns* a list
    of :class:`PluginSpec` (each spec names its kind). Two alternatives were rejected:

    * one hook per kind (``ilpkit_register_backends``, ...): five hooks doing the same thing,
      a spec's ``kind`` field duplicating the hook's name, and every new kind a new hook;
    * one hook receiving a mutable registry (``ilpkit_register(registry)``): pluggy passes the
      same argument to every implementation, so the registry could not tell which package
      registered what -- and "which package" is what a name clash or a broken plugin error
      must say.

    Returning data lets the manager call each plugin's implementation on its own, attribute
    every spec to its distribution (``PluginSpec.source``), check the spec, and refuse a name
    clash with a message naming both packages. What a factory must return for each kind is
    documented in :data:`KIND_CONTRACTS`.

Lookup is by ``(kind, name)``: :meth:`PluginManager.get` fails with a "did you mean" message
listing what is installed, and :meth:`PluginManager.make` validates options with the plugin's
own pydantic ``Options`` model, reporting errors as
``learner 'theory': option 'max_rules': Input should be a valid integer ... (got 'x')``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, Generic, Literal, TypeVar, overload

import pluggy
from pydantic import BaseModel, ConfigDict, ValidationError

from ilpkit.core.plugin_kinds import KINDS, PluginKind
from ilpkit.core.validation import issues, suggest
from ilpkit.errors import ConfigError, IlpkitError, PluginError

if TYPE_CHECKING:
    from ilpkit.core.backend import BackendProtocol
    from ilpkit.core.combiner import Combiner
    from ilpkit.core.executor import Executor
    from ilpkit.core.formats import DatasetFormat
    from ilpkit.core.learner import Learner
    from ilpkit.core.scoring import Scorer
    from ilpkit.core.search import SearchStrategy

__all__ = [
    "BUILTIN_MODULE",
    "DISABLE_AUTOLOAD_ENV",
    "ENTRY_POINT_GROUP",
    "KINDS",
    "KIND_CONTRACTS",
    "PROJECT_NAME",
    "DeferredSpec",
    "NoOptions",
    "PluginKind",
    "PluginManager",
    "PluginSpec",
    "get_plugin_manager",
    "hookimpl",
    "hookspec",
    "ilpkit_register_plugins",
]

PROJECT_NAME: Final = "ilpkit"
"""The pluggy project name: hook implementations are marked with ``HookimplMarker("ilpkit")``."""

ENTRY_POINT_GROUP: Final = "ilpkit.plugins"
"""Entry point group through which installed packages announce their plugin modules."""

BUILTIN_MODULE: Final = "ilpkit.plugins.builtin"
"""The built-in plugins' module; registered even when ilpkit runs from a source tree."""

DISABLE_AUTOLOAD_ENV: Final = "ILPKIT_DISABLE_PLUGIN_AUTOLOAD"
"""Set this environment variable (to anything but ``""``/``0``) to skip third-party plugins."""

_Options = Mapping[str, Any] | BaseModel | None


KIND_CONTRACTS: Final[Mapping[PluginKind, str]] = {
    "backend": "a Backend: saturate/coverage/coverage_many over a loaded Task",
    "search": "a SearchStrategy yielding evaluated clauses from a SearchContext",
    "scorer": "a Scorer turning coverage counts into a score",
    "learner": "a Learner whose fit(task, ctx) returns a Model",
    "combiner": "a Combiner (ilpkit.core.combiner): fit(pool, seed=...) returns a Combination "
    "(score/predict/clause_weights/to_json of a coverage matrix); combination_from_json",
    "executor": "an Executor (ilpkit.core.executor): map(fn, units) in order, close(), and "
    "in_process (whether units run in the calling process)",
    "format": "a DatasetFormat (ilpkit.core.formats): detect(path), load(path, stem), write",
    "kernel": "a Kernel (GleanerSRL): gram(a, b, stats) and feature_map(x, stats) or None",
}
"""What the factory of each kind of plugin must build."""

_PLURAL: Final[Mapping[str, str]] = {"search": "searches"}
_NAME_RE: Final = re.compile(r"[a-z][a-z0-9_-]*\Z")

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

OptionsT = TypeVar("OptionsT", bound=BaseModel)


class NoOptions(BaseModel):
    """Options model of a plugin that takes no options."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class PluginSpec(Generic[OptionsT]):
    """Everything ilpkit needs to know about one plugin.

    ``options`` is a pydantic model with ``model_config = ConfigDict(extra="forbid")`` in
    which every field has a default and a ``description`` (shown by ``--help`` and
    ``ilpkit plugins --json``). ``factory`` builds the plugin object from a validated
    instance of that model. ``source`` is filled by the manager with the distribution (or,
    for plugins registered in code, the top-level package) that provided the plugin;
    whatever the plugin sets there is overwritten.
    """

    kind: PluginKind
    name: str
    factory: Callable[[OptionsT], object]
    options: type[OptionsT]
    doc: str
    source: str = ""


@dataclass(frozen=True)
class DeferredSpec:
    """Where a plugin's :class:`PluginSpec` is defined, for a manager to import only when the
    plugin is looked up: ``attr`` of ``module`` is that spec or a list holding it.

    Why: the built-in plugin modules import their implementations (SWI-Prolog bridges, the
    learners, scikit-learn fits); importing all of them to register names cost every
    command, even ``ilpkit --help``, about 0.2 CPU s. See ``register(..., deferred=...)``."""

    kind: PluginKind
    name: str
    module: str
    attr: str
    source: str = ""


# --------------------------------------------------------------------------------------------
# Hook specifications: the single list of ilpkit hooks.
# --------------------------------------------------------------------------------------------


@hookspec
def ilpkit_register_plugins() -> Sequence[PluginSpec[Any]]:  # type: ignore[empty-body]
    """Return the plugins this package provides, as :class:`PluginSpec` objects.

    Called once per registered plugin module, when the :class:`PluginManager` registers it:
    for built-ins and entry-point packages that is when the manager is created (the first
    :func:`get_plugin_manager` call). Return a list (possibly empty) of specs of any kinds;
    each ``(kind, name)`` must be unique across all installed packages. Do not build engines
    or import heavy dependencies here: the factory is called only when the plugin is used.
    """


# --------------------------------------------------------------------------------------------
# The manager
# --------------------------------------------------------------------------------------------


class PluginManager:
    """Registry of every plugin, by kind and name, on top of a :class:`pluggy.PluginManager`.

    A new manager registers the built-ins (``builtins=True``) and then every module announced
    in the ``ilpkit.plugins`` entry point group (``entry_points=True``; by default unless
    ``ILPKIT_DISABLE_PLUGIN_AUTOLOAD`` is set). Most code uses the shared instance from
    :func:`get_plugin_manager`; tests create their own.
    """

    def __init__(self, *, builtins: bool = True, entry_points: bool | None = None) -> None:
        self.hooks = pluggy.PluginManager(PROJECT_NAME)
        """The underlying pluggy manager (for hooks added later, and for introspection)."""
        self.hooks.add_hookspecs(sys.modules[__name__])
        self._specs: dict[tuple[PluginKind, str], PluginSpec[Any] | DeferredSpec] = {}
        self._registered_by: dict[tuple[PluginKind, str], str] = {}
        if builtins:
            module = importlib.import_module(BUILTIN_MODULE)
            deferred = getattr(module, "DEFERRED", None)
            self.register(module, name="builtin", source="ilpkit", deferred=deferred)
        if entry_points is None:
            entry_points = os.environ.get(DISABLE_AUTOLOAD_ENV, "") in ("", "0")
        if entry_points:
            self.load_entry_points()

    # -- registration --------------------------------------------------------------------

    def load_entry_points(self, group: str = ENTRY_POINT_GROUP) -> int:
        """Register every plugin module announced in the entry point ``group``.

        A module already registered (the built-ins, or one module announced under two names)
        is skipped, as are duplicate installs of one distribution. A module that fails to
        import raises :class:`PluginError` naming its distribution. Returns how many plugin
        modules were registered.

        This replaces pluggy's ``load_setuptools_entrypoints``, which lets a broken package's
        bare ImportError escape without saying which package it was, and silently skips a
        second package whose entry point has a name already taken.
        """
        count = 0
        for ep in importlib.metadata.entry_points(group=group):
            if self.hooks.is_blocked(ep.name):
                continue
            try:
                plugin = ep.load()
            except Exception as err:
                dist = _distribution_name(ep)
                raise PluginError(
                    f"cannot load plugin {ep.name!r} = {ep.value!r} from package {dist!r}: "
                    f"{type(err).__name__}: {err}\n"
                    f"fix or uninstall {dist!r}, or set {DISABLE_AUTOLOAD_ENV}=1 to skip "
                    "third-party plugins"
                ) from err
            if self.hooks.is_registered(plugin):
                continue
            dist = _distribution_name(ep)
            name = ep.name if self.hooks.get_plugin(ep.name) is None else f"{dist}:{ep.name}"
            self.register(plugin, name=name, source=dist)
            count += 1
        return count

    def register(
        self,
        plugin: object,
        *,
        name: str | None = None,
        source: str | None = None,
        deferred: Sequence[DeferredSpec] | None = None,
    ) -> str:
        """Register a plugin module or object and the specs its hook returns; return its name.

        ``source`` defaults to the plugin's top-level package name. Registering the same
        object twice is a no-op. Raises :class:`PluginError` (and leaves the manager as it
        was) when the plugin implements an unknown hook, returns something other than a list
        of valid :class:`PluginSpec`, or registers a ``(kind, name)`` that is already taken.

        With ``deferred`` the plugin's hook is not called: its specs are the listed ones,
        each imported and checked when first looked up (the built-ins register this way;
        their hook returns the same specs, imported at once, for whoever calls it).
        """
        if self.hooks.is_registered(plugin):
            existing = self.hooks.get_name(plugin)
            assert existing is not None
            return existing
        name = name or self.hooks.get_canonical_name(plugin)
        source = source or _top_level_package(plugin)
        where = f"plugin {name!r} from {source!r}"
        if self.hooks.has_plugin(name):
            raise PluginError(f"{where}: a plugin named {name!r} is already registered")
        try:
            if self.hooks.register(plugin, name=name) is None:
                return name  # blocked by name: ignored on purpose
        except (pluggy.PluginValidationError, ValueError) as err:
            raise PluginError(f"{where}: {err}") from err
        try:
            self._check_hooks(plugin, where)
            specs: Sequence[PluginSpec[Any] | DeferredSpec]
            if deferred is None:
                specs = self._collect(plugin, where, source)
            else:
                specs = [replace(d, source=source) for d in deferred]
                self._check_clashes(specs, plugin, where, source)
        except BaseException:
            self.hooks.unregister(plugin)
            raise
        for spec in specs:
            self._specs[(spec.kind, spec.name)] = spec
            self._registered_by[(spec.kind, spec.name)] = name
        return name

    def _check_hooks(self, plugin: object, where: str) -> None:
        known = sorted(n for n in vars(self.hooks.hook) if n.startswith(PROJECT_NAME + "_"))
        known = [n for n in known if getattr(self.hooks.hook, n).has_spec()]
        for caller in self.hooks.get_hookcallers(plugin) or []:
            if caller.has_spec():
                continue
            mine = [impl for impl in caller.get_hookimpls() if impl.plugin is plugin]
            if all(impl.optionalhook for impl in mine):
                continue
            guess = suggest(caller.name, known)
            hint = f"; did you mean {guess!r}?" if guess else ""
            raise PluginError(
                f"{where}: implements unknown hook {caller.name!r}{hint} "
                f"(ilpkit hooks: {', '.join(known)})"
            )

    def _collect(self, plugin: object, where: str, source: str) -> list[PluginSpec[Any]]:
        """Call the plugin's own ``ilpkit_register_plugins`` and check what it returns.

        Each implementation is called on its own (not through ``hooks.hook``, which would
        call every plugin's and merge the results) so every spec is attributed to its source.
        """
        caller = self.hooks.hook.ilpkit_register_plugins
        specs: list[PluginSpec[Any]] = []
        for impl in caller.get_hookimpls():
            if impl.plugin is not plugin or impl.hookwrapper or impl.wrapper:
                continue
            try:
                returned = impl.function()
            except IlpkitError:
                raise
            except Exception as err:
                raise PluginError(
                    f"{where}: ilpkit_register_plugins() failed: {type(err).__name__}: {err}"
                ) from err
            if returned is None:
                continue
            if isinstance(returned, (str, bytes)) or not isinstance(returned, Sequence):
                raise PluginError(
                    f"{where}: ilpkit_register_plugins() must return a list of PluginSpec, "
                    f"got {type(returned).__name__}"
                )
            for spec in returned:
                _check_spec(spec, where)
                specs.append(replace(spec, source=source))
        self._check_clashes(specs, plugin, where, source)
        return specs

    def _check_clashes(
        self,
        specs: Sequence[PluginSpec[Any] | DeferredSpec],
        plugin: object,
        where: str,
        source: str,
    ) -> None:
        """Refuse a ``(kind, name)`` registered twice by this plugin or already taken."""
        seen: dict[tuple[PluginKind, str], PluginSpec[Any] | DeferredSpec] = {}
        for spec in specs:
            key = (spec.kind, spec.name)
            if key in seen:
                raise PluginError(f"{where}: registers the {spec.kind} {spec.name!r} twice")
            if key in self._specs:
                other = self._specs[key]
                raise PluginError(
                    f"two plugins register the {spec.kind} {spec.name!r}: "
                    f"{other.source!r} (plugin {self._registered_by[key]!r}) and "
                    f"{source!r} (plugin {self.hooks.get_name(plugin)!r}); "
                    "uninstall one of these packages"
                )
            seen[key] = spec

    def _resolved(self, key: tuple[PluginKind, str]) -> PluginSpec[Any]:
        """The spec registered under ``key``, importing a deferred one (once)."""
        entry = self._specs[key]
        if isinstance(entry, PluginSpec):
            return entry
        where = f"plugin {self._registered_by[key]!r} from {entry.source!r}"
        try:
            found = getattr(importlib.import_module(entry.module), entry.attr)
        except IlpkitError:
            raise
        except Exception as err:
            raise PluginError(
                f"{where}: cannot import the {entry.kind} {entry.name!r} from "
                f"{entry.module}.{entry.attr}: {type(err).__name__}: {err}"
            ) from err
        candidates = found if isinstance(found, Sequence) else [found]
        for spec in candidates:
            if getattr(spec, "kind", None) == entry.kind and getattr(spec, "name", None) == (
                entry.name
            ):
                _check_spec(spec, where)
                resolved: PluginSpec[Any] = replace(spec, source=entry.source)
                self._specs[key] = resolved
                return resolved
        raise PluginError(
            f"{where}: {entry.module}.{entry.attr} holds no {entry.kind} {entry.name!r}"
        )

    # -- lookup --------------------------------------------------------------------------

    def names(self, kind: PluginKind) -> list[str]:
        """Sorted names of the registered plugins of ``kind``."""
        _check_kind(kind)
        return sorted(name for k, name in self._specs if k == kind)

    def specs(self, kind: PluginKind | None = None) -> list[PluginSpec[Any]]:
        """Every registered spec (of ``kind`` if given), ordered by kind (:data:`KINDS`), name."""
        kinds = KINDS if kind is None else (kind,)
        return [self._resolved((k, name)) for k in kinds for name in self.names(k)]

    def get(self, kind: PluginKind, name: str) -> PluginSpec[Any]:
        """The spec of plugin ``name`` of ``kind``.

        Raises :class:`PluginError` naming the closest registered name ("did you mean") and
        listing the available ones when there is no such plugin.
        """
        _check_kind(kind)
        if (kind, name) in self._specs:
            return self._resolved((kind, name))
        available = self.names(kind)
        plural = _plural(kind)
        if not available:
            raise PluginError(
                f"no {kind} named {name!r}: no {plural} are installed "
                "(see `ilpkit plugins` for what is)"
            )
        guess = suggest(name, available)
        hint = f"; did you mean {guess!r}?" if guess else ""
        raise PluginError(
            f"no {kind} named {name!r}{hint} (available {plural}: {', '.join(available)})"
        )

    def validate_options(
        self, kind: PluginKind, name: str, options: Mapping[str, Any] | BaseModel | None = None
    ) -> BaseModel:
        """Plugin ``name``'s options, validated by its ``Options`` model.

        ``options`` may be a mapping (as read from TOML or ``--set``), an instance of the
        plugin's model (returned as is) or ``None`` (all defaults). Raises
        :class:`ConfigError` with one line per problem, each naming the plugin and the option.
        """
        model: type[BaseModel] = self.get(kind, name).options
        if isinstance(options, model):
            return options
        if isinstance(options, BaseModel):
            options = options.model_dump()
        try:
            return model.model_validate(dict(options or {}))
        except ValidationError as err:
            prefix = f"{kind} {name!r}"
            lines = []
            for issue in issues(err, model, noun="option"):
                if issue.path:
                    lines.append(f"{prefix}: option {issue.path!r}: {issue.message}")
                else:
                    lines.append(f"{prefix}: options: {issue.message}")
            raise ConfigError("\n".join(lines)) from None

    @overload
    def make(
        self, kind: Literal["backend"], name: str, options: _Options = None
    ) -> BackendProtocol: ...
    @overload
    def make(
        self, kind: Literal["search"], name: str, options: _Options = None
    ) -> SearchStrategy: ...
    @overload
    def make(self, kind: Literal["scorer"], name: str, options: _Options = None) -> Scorer: ...
    @overload
    def make(self, kind: Literal["learner"], name: str, options: _Options = None) -> Learner: ...
    @overload
    def make(self, kind: Literal["combiner"], name: str, options: _Options = None) -> Combiner: ...
    @overload
    def make(self, kind: Literal["executor"], name: str, options: _Options = None) -> Executor: ...
    @overload
    def make(
        self, kind: Literal["format"], name: str, options: _Options = None
    ) -> DatasetFormat: ...
    @overload
    def make(self, kind: PluginKind, name: str, options: _Options = None) -> Any: ...
    def make(self, kind: PluginKind, name: str, options: _Options = None) -> Any:
        """Build plugin ``name`` of ``kind`` from ``options`` (validated first).

        The result is what :data:`KIND_CONTRACTS` promises for ``kind``, and is typed so
        for the core kinds (a ``kernel``, a kind GleanerSRL adds, is ``Any``).
        """
        spec = self.get(kind, name)
        return spec.factory(self.validate_options(kind, name, options))


@functools.cache
def get_plugin_manager() -> PluginManager:
    """The process-wide :class:`PluginManager`, created (and plugins loaded) on first use.

    Tests that need a clean registry create ``PluginManager()`` directly, or call
    ``get_plugin_manager.cache_clear()`` to drop the shared one.
    """
    return PluginManager()


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _plural(kind: str) -> str:
    return _PLURAL.get(kind, kind + "s")


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        guess = suggest(kind, list(KINDS))
        hint = f"; did you mean {guess!r}?" if guess else ""
        raise PluginError(f"unknown plugin kind {kind!r}{hint} (kinds: {', '.join(KINDS)})")


def _top_level_package(plugin: object) -> str:
    module = plugin.__name__ if isinstance(plugin, ModuleType) else type(plugin).__module__
    return module.partition(".")[0]


def _check_spec(spec: object, where: str) -> None:
    """Refuse a spec that would break a promise: unique names, documented options."""
    if not isinstance(spec, PluginSpec):
        raise PluginError(
            f"{where}: ilpkit_register_plugins() returned {type(spec).__name__}, not PluginSpec"
        )
    if spec.kind not in KINDS:
        raise PluginError(
            f"{where}: plugin {spec.name!r} has unknown kind {spec.kind!r} "
            f"(kinds: {', '.join(KINDS)})"
        )
    what = f"{where}: {spec.kind} {spec.name!r}"
    if not isinstance(spec.name, str) or not _NAME_RE.match(spec.name):
        raise PluginError(
            f"{where}: {spec.kind} name {spec.name!r} must be lower case letters, digits, "
            "'_' or '-', starting with a letter"
        )
    if not isinstance(spec.doc, str) or not spec.doc.strip() or "\n" in spec.doc.strip():
        raise PluginError(f"{what}: doc must be one non-empty line")
    if not callable(spec.factory):
        raise PluginError(f"{what}: factory is not callable")
    model = spec.options
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise PluginError(f"{what}: options must be a pydantic BaseModel subclass")
    if model.model_config.get("extra") != "forbid":
        raise PluginError(
            f"{what}: options model {model.__name__} must set "
            'model_config = ConfigDict(extra="forbid") so that misspelt options are errors'
        )
    for field_name, info in model.model_fields.items():
        if info.is_required():
            raise PluginError(f"{what}: option {field_name!r} needs a default")
        if not info.description:
            raise PluginError(
                f"{what}: option {field_name!r} needs a description "
                "(Field(..., description=...)); it is shown by --help"
            )


def _distribution_name(ep: importlib.metadata.EntryPoint) -> str:
    """The distribution that announces ``ep``. Its METADATA is parsed (email headers, 3 ms):
    asked only for a plugin that is registered or broken, not for the built-ins' own entry
    point, which every run meets and skips."""
    return ep.dist.name if ep.dist is not None else ep.module.partition(".")[0]
