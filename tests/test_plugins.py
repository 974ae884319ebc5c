"""The plugin manager: lookup, option validation, spec checks and name clashes."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from ilpkit.core.executor import Executor
from ilpkit.core.plugins import (
    KINDS,
    DeferredSpec,
    NoOptions,
    PluginManager,
    PluginSpec,
    get_plugin_manager,
    hookimpl,
)
from ilpkit.errors import ConfigError, PluginError
from ilpkit.plugins.executors.local import LocalExecutor, LocalOptions


class TheoryOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_rules: int = Field(default=10, description="Most rules in a theory.")
    min_precision: float = Field(default=0.5, description="Least precision of a rule.")


def _build(options: BaseModel) -> object:
    return ("built", options)


def spec(
    kind: Any = "learner",
    name: str = "toy",
    options: type[BaseModel] = TheoryOptions,
    doc: str = "A test learner.",
    factory: Callable[[Any], object] = _build,
) -> PluginSpec[Any]:
    return PluginSpec(kind=kind, name=name, factory=factory, options=options, doc=doc)


class FakePlugin:
    """A plugin object, as a third-party module would be, returning the specs it is given."""

    def __init__(self, *specs: object) -> None:
        self.specs = list(specs)

    @hookimpl
    def ilpkit_register_plugins(self) -> list[object]:
        return self.specs


def test_builtin_local_executor_is_registered_from_ilpkit(manager: PluginManager) -> None:
    local = manager.get("executor", "local")
    assert local.source == "ilpkit"
    assert local.options is LocalOptions
    assert "local" in manager.names("executor")
    assert [s.name for s in manager.specs("executor")] == manager.names("executor")


def test_builtins_use_the_public_hook() -> None:
    bare = PluginManager(builtins=False, entry_points=False)
    assert bare.names("executor") == []
    bare.register(importlib.import_module("ilpkit.plugins.builtin"), source="ilpkit")
    assert "local" in bare.names("executor")


def _specs_defined_under(package: str) -> set[tuple[str, str]]:
    """``(kind, name)`` of every PluginSpec a module of ``package`` holds (alone or in a
    list), found by importing them all -- what the built-in table must list."""
    import pkgutil

    found: set[tuple[str, str]] = set()
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            items = value if isinstance(value, (list, tuple)) else [value]
            found |= {(s.kind, s.name) for s in items if isinstance(s, PluginSpec)}
    return found


def test_the_deferred_builtins_are_every_spec_ilpkit_defines() -> None:
    """The table the manager registers without importing names every spec the plugin
    modules define, once each, and each row resolves to that spec (the hook's answer)."""
    builtin = importlib.import_module("ilpkit.plugins.builtin")
    rows = [(d.kind, d.name) for d in builtin.DEFERRED]
    assert len(rows) == len(set(rows))
    assert set(rows) == _specs_defined_under("ilpkit.plugins")
    eager = builtin.ilpkit_register_plugins()
    assert [(s.kind, s.name) for s in eager] == rows
    lazy = PluginManager(entry_points=False)
    for s in eager:
        got = lazy.get(s.kind, s.name)
        assert (got.factory, got.options, got.doc, got.source) == (
            s.factory,
            s.options,
            s.doc,
            "ilpkit",
        )


def test_a_deferred_spec_is_checked_when_looked_up() -> None:
    bare = PluginManager(builtins=False, entry_points=False)
    module = importlib.import_module("ilpkit.plugins.builtin")
    rows = [
        DeferredSpec("executor", "local", "ilpkit.plugins.executors.local", "SPEC"),
        DeferredSpec("executor", "gone", "ilpkit.plugins.executors.local", "SPEC"),
        DeferredSpec("executor", "nowhere", "ilpkit.plugins.no_such_module", "SPEC"),
    ]
    bare.register(module, name="lazy", source="somepkg", deferred=rows)
    assert bare.names("executor") == ["gone", "local", "nowhere"]
    assert bare.get("executor", "local").source == "somepkg"
    with pytest.raises(PluginError, match=r"holds no executor 'gone'"):
        bare.get("executor", "gone")
    with pytest.raises(
        PluginError, match=r"plugin 'lazy' from 'somepkg': cannot import the executor 'nowhere'"
    ):
        bare.get("executor", "nowhere")
    clash = FakePlugin(spec(kind="executor", name="local", options=LocalOptions))
    with pytest.raises(PluginError, match=r"two plugins register the executor 'local'"):
        bare.register(clash, name="other", source="otherpkg")


def test_make_builds_from_validated_options(manager: PluginManager) -> None:
    executor = manager.make("executor", "local", {"check_pickle": True})
    assert isinstance(executor, LocalExecutor)
    assert isinstance(executor, Executor)
    assert executor.options.check_pickle is True
    assert manager.make("executor", "local").options == LocalOptions()


def test_unknown_name_suggests_the_closest_and_lists_available(manager: PluginManager) -> None:
    with pytest.raises(PluginError) as info:
        manager.get("executor", "lcoal")
    message = str(info.value)
    assert "no executor named 'lcoal'" in message
    assert "did you mean 'local'?" in message
    assert "available executors: dask, local, processes" in message


def test_unknown_name_without_close_match_lists_available(manager: PluginManager) -> None:
    with pytest.raises(PluginError, match=r"no executor named 'zzz' \(available executors: "):
        manager.get("executor", "zzz")


def test_unknown_name_of_an_empty_kind() -> None:
    empty = PluginManager(builtins=False, entry_points=False)
    with pytest.raises(PluginError, match="no searches are installed"):
        empty.get("search", "topdown")


def test_unknown_kind_is_a_plugin_error(manager: PluginManager) -> None:
    with pytest.raises(
        PluginError, match="unknown plugin kind 'executer'; did you mean 'executor'"
    ):
        manager.get("executer", "local")  # type: ignore[arg-type]
    with pytest.raises(PluginError, match="unknown plugin kind"):
        manager.names("nothing")  # type: ignore[arg-type]


def test_option_errors_name_the_plugin_and_the_option(manager: PluginManager) -> None:
    manager.register(FakePlugin(spec()), name="fake", source="fake_pkg")
    with pytest.raises(ConfigError) as info:
        manager.make("learner", "toy", {"max_rules": "x", "min_precision": "high"})
    lines = str(info.value).splitlines()
    assert lines[0].startswith("learner 'toy': option 'max_rules': Input should be a valid integer")
    assert lines[0].endswith("(got 'x')")
    assert lines[1].startswith("learner 'toy': option 'min_precision': ")
    assert lines[1].endswith("(got 'high')")


def test_unknown_option_suggests_the_closest(manager: PluginManager) -> None:
    with pytest.raises(ConfigError) as info:
        manager.validate_options("executor", "local", {"chek_pickle": True})
    message = str(info.value)
    assert message.startswith("executor 'local': option 'chek_pickle': unknown option")
    assert "did you mean 'check_pickle'?" in message
    assert "(valid options: check_pickle)" in message


def test_validate_options_accepts_a_model_instance(manager: PluginManager) -> None:
    options = LocalOptions(check_pickle=True)
    assert manager.validate_options("executor", "local", options) is options
    assert manager.validate_options("executor", "local", None) == LocalOptions()


def test_no_options_plugin(manager: PluginManager) -> None:
    manager.register(FakePlugin(spec("scorer", "plain", NoOptions)), source="fake_pkg")
    assert manager.make("scorer", "plain") == ("built", NoOptions())
    with pytest.raises(ConfigError, match="no options are accepted here"):
        manager.make("scorer", "plain", {"alpha": 1})


def test_source_is_filled_by_the_manager(manager: PluginManager) -> None:
    claimed = PluginSpec(
        kind="scorer",
        name="claims",
        factory=_build,
        options=NoOptions,
        doc="Says it comes from elsewhere.",
        source="somebody_else",
    )
    manager.register(FakePlugin(claimed))
    assert manager.get("scorer", "claims").source == "test_plugins"


def test_name_clash_names_both_sources_and_changes_nothing(manager: PluginManager) -> None:
    before = manager.specs()
    intruder = FakePlugin(spec("scorer", "fine"), spec("executor", "local", LocalOptions))
    with pytest.raises(PluginError) as info:
        manager.register(intruder, name="intruder", source="intruder_pkg")
    message = str(info.value)
    assert "two plugins register the executor 'local'" in message
    assert "'ilpkit' (plugin 'builtin')" in message
    assert "'intruder_pkg' (plugin 'intruder')" in message
    assert manager.specs() == before
    assert not manager.hooks.is_registered(intruder)


def test_one_plugin_registering_a_name_twice(manager: PluginManager) -> None:
    with pytest.raises(PluginError, match="registers the learner 'toy' twice"):
        manager.register(FakePlugin(spec(), spec()), source="fake_pkg")


def test_registering_the_same_object_twice_is_a_no_op(manager: PluginManager) -> None:
    plugin = FakePlugin(spec())
    assert manager.register(plugin, name="fake") == "fake"
    assert manager.register(plugin, name="other") == "fake"
    assert "toy" in manager.names("learner")


def test_plugin_name_taken(manager: PluginManager) -> None:
    with pytest.raises(PluginError, match="a plugin named 'builtin' is already registered"):
        manager.register(FakePlugin(), name="builtin")


class NotForbidding(BaseModel):
    x: int = Field(default=1, description="An option.")


class Required(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: int = Field(description="An option without default.")


class Undocumented(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: int = 1


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (spec(options=NotForbidding), 'extra="forbid"'),
        (spec(options=Required), "option 'x' needs a default"),
        (spec(options=Undocumented), "option 'x' needs a description"),
        (spec(doc="two\nlines"), "doc must be one non-empty line"),
        (spec(doc="  "), "doc must be one non-empty line"),
        (spec(name="Theory Learner"), "must be lower case letters"),
        (spec(name="a.b"), "must be lower case letters"),
        (spec(kind="model"), "unknown kind 'model'"),
        (spec(factory="nope"), "factory is not callable"),  # type: ignore[arg-type]
        (spec(options=dict), "pydantic BaseModel subclass"),  # type: ignore[arg-type]
        ("theory", "returned str, not PluginSpec"),
    ],
)
def test_bad_specs_are_refused(manager: PluginManager, bad: object, message: str) -> None:
    plugin = FakePlugin(bad)
    with pytest.raises(PluginError, match=r"plugin 'bad' from 'bad_pkg'") as info:
        manager.register(plugin, name="bad", source="bad_pkg")
    assert message in str(info.value)
    assert not manager.hooks.is_registered(plugin)


def test_hook_returning_a_non_list(manager: PluginManager) -> None:
    class Odd:
        @hookimpl
        def ilpkit_register_plugins(self) -> object:
            return 42

    with pytest.raises(PluginError, match="must return a list of PluginSpec, got int"):
        manager.register(Odd(), source="odd_pkg")


def test_hook_raising_is_reported_with_its_plugin(manager: PluginManager) -> None:
    class Broken:
        @hookimpl
        def ilpkit_register_plugins(self) -> list[object]:
            raise RuntimeError("boom")

    with pytest.raises(PluginError, match=r"plugin 'broken' from 'broken_pkg'.*RuntimeError: boom"):
        manager.register(Broken(), name="broken", source="broken_pkg")


def test_misspelt_hook_is_refused(manager: PluginManager) -> None:
    class Typo:
        @hookimpl
        def ilpkit_register_plugin(self) -> list[object]:
            return []

    plugin = Typo()
    with pytest.raises(PluginError, match="did you mean 'ilpkit_register_plugins'"):
        manager.register(plugin, name="typo")
    assert not manager.hooks.is_registered(plugin)


def test_hook_with_wrong_arguments_is_refused(manager: PluginManager) -> None:
    class WrongArgs:
        @hookimpl
        def ilpkit_register_plugins(self, registry: object) -> list[object]:
            return []

    with pytest.raises(PluginError, match="plugin 'wrong' from"):
        manager.register(WrongArgs(), name="wrong")


def test_specs_are_ordered_by_kind_then_name(manager: PluginManager) -> None:
    manager.register(
        FakePlugin(spec("scorer", "b"), spec("scorer", "a"), spec("backend", "z")), source="p"
    )
    got = [(s.kind, s.name) for s in manager.specs()]
    assert got == sorted(got, key=lambda kn: (KINDS.index(kn[0]), kn[1]))


def test_shared_manager_is_cached_and_can_be_reset() -> None:
    first = get_plugin_manager()
    assert get_plugin_manager() is first
    get_plugin_manager.cache_clear()
    try:
        assert get_plugin_manager() is not first
    finally:
        get_plugin_manager.cache_clear()
