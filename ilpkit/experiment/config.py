"""Configuration of a run: which data, which plugins with which options, which seed.

A run file is TOML whose top-level keys are the fields of :class:`RunConfig`::

    seed = 3
    output = "runs/uwcse"        # relative paths are relative to this file's folder
    backend = "swi"              # shorthand for [backend] name = "swi"

    [data]
    path = "data/uwcse"
    format = "aleph"

    [learner]
    name = "theory"
    options = { max_rules = 10 }

Every key is checked: an unknown one is an error (with a "did you mean"), not silently
ignored. A plugin's ``options`` are checked against that plugin's own ``Options`` model by
:func:`resolve_plugins`, once the plugins are known. On the command line,
``--set KEY=VALUE`` overrides any key (:func:`apply_overrides`): ``--set backend=swi``,
``--set backend.timeout=5`` (an option of the backend), ``--set data.format=aleph``.
"""

from __future__ import annotations

import copy
import datetime
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ilpkit.core.plugins import PluginKind, PluginManager
from ilpkit.core.validation import issues
from ilpkit.errors import ConfigError, PluginError, path_str
from ilpkit.experiment import tomlw
from ilpkit.experiment.data_format import DataFormat

if TYPE_CHECKING:
    from tomllib import TOMLDecodeError

__all__ = [
    "AUTO",
    "RUN_KINDS",
    "CVConfig",
    "DataConfig",
    "DataFormat",
    "PluginChoice",
    "RunConfig",
    "apply_overrides",
    "dump_config",
    "load_config",
    "parse_set_options",
    "parse_value",
    "resolve_plugins",
]

RUN_KINDS: Final[tuple[PluginKind, ...]] = (
    "backend",
    "search",
    "scorer",
    "learner",
    "combiner",
    "executor",
)
"""The plugin kinds a run chooses (each a :class:`RunConfig` field); a dataset's format is
chosen by ``data.format``."""

AUTO: Final = "auto"
"""The search or scorer left to the learner's prescription, else the data's settings; the
combiner left to the learner (its own combination, or its ``default_combiner``).  Resolved
by :func:`ilpkit.experiment.compose.resolve`."""

_TOML_POSITION: Final = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


class DataConfig(BaseModel):
    """Where the dataset is and how to read it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path = Field(
        description="Dataset folder, or a file stem (data/train for train.b, .f, .n)."
    )
    format: str = Field(
        default=DataFormat.AUTO.value,
        description="Dataset format: auto (detect from the files), aleph, boostsrl, popper "
        "or an installed format plugin (`ilpkit plugins`).",
    )
    stem: str | None = Field(
        default=None,
        description="Which task to read from a folder holding several (e.g. advisedby).",
    )
    strict: bool = Field(
        default=False,
        description="Refuse background or mode declarations with a syntax error instead of "
        "skipping them with a warning (as SWI-Prolog does).",
    )
    aleph_hooks: Literal["honour", "ignore"] = Field(
        default="honour",
        description="Aleph's hooks in the background (prune/1, false/0, cost/3, refine/2): "
        "honour them (a run that cannot is refused, naming them) or ignore them, learning as "
        "if the data did not define them (docs/aleph-compatibility.md).",
    )
    content: str | None = Field(
        default=None,
        description="Set by ilpkit, not by users: the data named by content "
        "(sha256:<digest>:<path>) for workers that cannot see the path "
        "(ilpkit.core.shipping).",
    )

    @field_validator("format")
    @classmethod
    def _registered_format(cls, value: str) -> str:
        """``auto`` or the name of a registered format plugin (built-in or installed)."""
        from ilpkit.core.formats import format_names

        names = [DataFormat.AUTO.value, *format_names()]
        if value not in names:
            raise PydanticCustomError(
                "unknown_format",
                "Input should be {names} (an installed format plugin)",
                {"names": ", ".join(repr(n) for n in names)},
            )
        return value


class PluginChoice(BaseModel):
    """A plugin chosen by name, with its options (checked by the plugin's own model)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="Name of a registered plugin (`ilpkit plugins` lists them).")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="Options of that plugin; `ilpkit plugins --json` shows each one.",
    )

    @model_validator(mode="before")
    @classmethod
    def _name_only(cls, value: Any) -> Any:
        """Accept ``backend = "swi"`` for ``backend = {name = "swi"}``."""
        return {"name": value} if isinstance(value, str) else value


def _plugin_field(kind: str, default: str) -> Any:
    if default == AUTO:
        what = "the learner's prescribed one, else the data's Aleph setting"
        return Field(
            default_factory=lambda: PluginChoice(name=default),
            description=f"The {kind} plugin and its options (default: auto, {what}).",
        )
    return Field(
        default_factory=lambda: PluginChoice(name=default),
        description=f"The {kind} plugin and its options (default: {default}).",
    )


class CVConfig(BaseModel):
    """How a cross-validation experiment splits the examples and how often it repeats."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    folds: int | None = Field(
        default=None,
        ge=2,
        description="Stratified folds drawn with the seed; unset: the data's own folds.",
    )
    tune_folds: int = Field(
        default=0,
        ge=0,
        description="Folds after the test fold given the tune role (e.g. 1 for 3 train + "
        "1 tune + 1 test of 5 folds).",
    )
    repeats: int = Field(default=1, ge=1, description="Repetitions with different seeds.")
    curve: list[int] = Field(
        default_factory=list,
        description="Clause budgets at which the learning curve is sampled (e.g. [100, 1000]).",
    )
    parallel: Literal["auto", "folds", "members"] = Field(
        default="auto",
        description="What the executor's workers run: 'folds' (one unit per worker), "
        "'members' (units one after another here, each learner's independent members -- "
        "Gleaner seeds, ensemble theories -- on the workers), 'auto' (members for learners "
        "that have them, else folds). The numbers are the same either way.",
    )

    pu_label_frequency: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="Positive-unlabeled data: each training (and tune) positive keeps its "
        "label with this probability, every other training example becomes unlabeled; test "
        "folds keep their true labels. Unset: the data's labels as read.",
    )
    pu_labelings: int | None = Field(
        default=None,
        ge=1,
        description="Number of PU labelings (each repeat draws its own; sets cv.repeats).",
    )

    @model_validator(mode="before")
    @classmethod
    def _labelings_are_repeats(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("pu_labelings") is not None:
            k = int(data["pu_labelings"])
            repeats = data.get("repeats")
            if repeats not in (None, 1, k):
                raise ValueError(
                    f"pu_labelings={k} and repeats={repeats}: each repeat draws one labeling, "
                    "so give one of them (or equal values)"
                )
            data = {**data, "repeats": k}
        return data

    @model_validator(mode="after")
    def _budgets_positive(self) -> CVConfig:
        if self.pu_labelings is not None and self.pu_label_frequency is None:
            raise ValueError("pu_labelings needs pu_label_frequency (the label frequency c)")
        if any(b < 1 for b in self.curve):
            raise ValueError("learning-curve budgets must be >= 1 clause")
        return self


class RunConfig(BaseModel):
    """One experiment: data + backend + search + scorer + learner (+ executor), and a seed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data: DataConfig = Field(description="The dataset to learn from.")
    backend: PluginChoice = _plugin_field("backend", "native")
    search: PluginChoice = _plugin_field("search", AUTO)
    scorer: PluginChoice = _plugin_field("scorer", AUTO)
    learner: PluginChoice = _plugin_field("learner", "theory")
    combiner: PluginChoice = _plugin_field("combiner", AUTO)
    executor: PluginChoice = _plugin_field("executor", "local")
    seed: int = Field(default=0, description="Seed of every random choice: same seed, same model.")
    settings: dict[str, Any] = Field(
        default_factory=dict,
        description="Aleph settings overriding the data's own (clauselength, nodes, i, ...).",
    )
    cv: CVConfig = Field(
        default_factory=CVConfig, description="Cross-validation folds, roles and repeats."
    )
    output: Path | None = Field(
        default=None,
        description="Folder for the model, metrics and report (nothing is written if unset).",
    )

    def plugin(self, kind: PluginKind) -> PluginChoice:
        """The choice made for ``kind`` (``config.plugin("learner") is config.learner``)."""
        choice = getattr(self, kind)
        assert isinstance(choice, PluginChoice)
        return choice


assert set(RUN_KINDS) <= set(RunConfig.model_fields), "every run kind needs a RunConfig field"


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def load_config(path: str | Path) -> RunConfig:
    """Read and check a TOML run file.

    Relative ``data.path`` and ``output`` are taken relative to the file's folder. Raises
    :class:`ConfigError` naming the file and the key (``run.toml: learner.options: ...``),
    or the line and column of a TOML syntax error (``run.toml:3:9: ...``).
    """
    where = path_str(path)
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such config file") from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"{where}: not UTF-8 text ({err.reason})") from None
    except OSError as err:
        raise ConfigError(f"{where}: cannot read: {err.strerror or err}") from None
    deep = _too_deep(text)
    if deep is not None:
        line, col = deep
        raise ConfigError(
            f"{where}:{line}:{col}: arrays and inline tables nested more than "
            f"{MAX_TOML_DEPTH} deep; a run file needs a few levels"
        )
    import tomllib  # (most runs read no TOML: a start-up cost saved)

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(_toml_error(where, err)) from None
    except RecursionError:  # pragma: no cover - _too_deep finds these first
        raise ConfigError(f"{where}: invalid TOML: nested too deeply") from None
    config = _validate(raw, where)
    return _relative_to(config, file.parent)


def dump_config(config: RunConfig) -> str:
    """``config`` as TOML text that :func:`load_config` reads back to an equal config."""
    data = config.model_dump(mode="json", exclude_none=True)
    try:
        body = tomlw.dumps(data)
    except ValueError as err:
        raise ConfigError(f"cannot write the configuration as TOML: {err}") from None
    return "# ilpkit run configuration\n\n" + body


def _validate(raw: Mapping[str, Any], where: str) -> RunConfig:
    try:
        return RunConfig.model_validate(raw)
    except ValidationError as err:
        lines = [
            f"{where}: {issue.path}: {issue.message}" if issue.path else f"{where}: {issue.message}"
            for issue in issues(err, RunConfig, noun="key")
        ]
        raise ConfigError("\n".join(lines)) from None


MAX_TOML_DEPTH: Final = 100
"""Deepest nesting of ``[`` and ``{`` a run file or ``--set`` value may have (Python's TOML
parser recurses once per level and would exhaust the stack near 1,000)."""


def _too_deep(text: str) -> tuple[int, int] | None:
    """Line and column of the first ``[`` or ``{`` nested more than :data:`MAX_TOML_DEPTH`
    deep (outside strings and comments), or None.  Table headers (``[a]``, ``[[a]]``) count
    while open, which only shifts the bound by two."""
    depth = 0
    i, n = 0, len(text)
    line, line_start = 1, 0
    while i < n:
        c = text[i]
        if c == "\n":
            line, line_start = line + 1, i + 1
        elif c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif c in "\"'":
            triple = text.startswith(c * 3, i)
            quote = c * 3 if triple else c
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if text[j] == "\\" and c == '"':
                    j += 1
                elif text[j] == "\n":
                    if not triple:
                        break
                    line, line_start = line + 1, j + 1
                j += 1
            i = j + len(quote)
            continue
        elif c in "[{":
            depth += 1
            if depth > MAX_TOML_DEPTH:
                return line, i - line_start + 1
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return None


def _toml_error(where: str, err: TOMLDecodeError) -> str:
    message = str(err)
    match = _TOML_POSITION.search(message)
    if match is None:
        return f"{where}: invalid TOML: {message}"
    line, col = match.groups()
    return f"{where}:{line}:{col}: invalid TOML: {message[: match.start()]}"


def _relative_to(config: RunConfig, base: Path) -> RunConfig:
    from ilpkit.datasets import BUNDLED

    data = config.data
    bundled = str(data.path) in BUNDLED and not (base / data.path).exists()
    if not data.path.is_absolute() and not bundled:
        data = data.model_copy(update={"path": base / data.path})
    update: dict[str, Any] = {"data": data}
    if config.output is not None and not config.output.is_absolute():
        update["output"] = base / config.output
    return config.model_copy(update=update)


# --------------------------------------------------------------------------------------------
# Command-line overrides
# --------------------------------------------------------------------------------------------


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML value when it is one (``5``, ``0.5``, ``true``, ``"x"``,
    ``[1, 2]``), otherwise the text itself (``swi``). Dates and times stay text."""
    if "\n" in text or "\r" in text or _too_deep(text) is not None:
        return text
    import tomllib

    try:
        value = tomllib.loads(f"value = {text}")["value"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return text
    if isinstance(value, (datetime.date, datetime.time)):
        return text
    return value


def parse_set_options(items: Iterable[str]) -> dict[str, Any]:
    """Nested overrides from ``KEY=VALUE`` strings (later ones win).

    A key names a :class:`RunConfig` field by its dotted path, except that a plugin section
    routes plain keys to its options: ``backend=swi`` sets ``backend.name``,
    ``backend.timeout=5`` sets ``backend.options.timeout`` (``backend.options.name=x`` reaches
    an option called ``name``). Values go through :func:`parse_value`.
    """
    result: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        parts = [part.strip() for part in key.split(".")]
        if not sep or not all(parts):
            raise ConfigError(
                f"--set {item!r}: expected KEY=VALUE, e.g. --set learner.max_rules=10"
            )
        _set_nested(result, _route(parts), parse_value(text.strip()), item)
    return result


def apply_overrides(
    base: RunConfig | Mapping[str, Any], items: Iterable[str], *, where: str = "--set"
) -> RunConfig:
    """``base`` with ``--set`` overrides applied, checked again as a :class:`RunConfig`.

    Choosing another plugin (``--set backend=swi``) drops the options the base gave the
    previous one; options set by the same overrides apply. Errors name ``where`` and the key.
    """
    config = base.model_dump() if isinstance(base, RunConfig) else copy.deepcopy(dict(base))
    overrides = parse_set_options(items)
    for kind in RUN_KINDS:
        if isinstance(config.get(kind), str):
            config[kind] = {"name": config[kind]}
        change = overrides.get(kind)
        if not isinstance(change, dict) or "name" not in change:
            continue
        current = config.get(kind)
        if isinstance(current, dict) and current.get("name") != change["name"]:
            config[kind] = {k: v for k, v in current.items() if k != "options"}
    return _validate(_merge(config, overrides), where)


def _route(parts: list[str]) -> tuple[str, ...]:
    head, rest = parts[0], parts[1:]
    if head not in RUN_KINDS:
        return tuple(parts)
    if not rest:
        return (head, "name")
    if rest[0] in ("name", "options"):
        return tuple(parts)
    return (head, "options", *rest)


def _set_nested(tree: dict[str, Any], keys: tuple[str, ...], value: Any, item: str) -> None:
    node = tree
    for depth, key in enumerate(keys[:-1]):
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            prefix = ".".join(keys[: depth + 1])
            raise ConfigError(f"--set {item!r}: {prefix} was already set to {child!r}")
        node = child
    if isinstance(node.get(keys[-1]), dict):
        raise ConfigError(f"--set {item!r}: {'.'.join(keys)} is a section, not a value")
    node[keys[-1]] = value


def _merge(base: dict[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(dict(merged[key]), value)
        else:
            merged[key] = value
    return merged


# --------------------------------------------------------------------------------------------
# Plugins
# --------------------------------------------------------------------------------------------


def resolve_plugins(
    config: Any, manager: PluginManager, *, where: str = "config"
) -> dict[PluginKind, BaseModel]:
    """Each chosen plugin's options, validated by its own model, by kind.

    Reports every problem at once: unknown plugin names (with a "did you mean") as
    ``<where>: backend.name: ...`` and bad options as ``<where>: learner.options: ...``.
    A search, scorer or learner left ``auto`` is skipped (:func:`ilpkit.experiment.compose.
    resolve` names and checks it).
    """
    resolved: dict[PluginKind, BaseModel] = {}
    lines: list[str] = []
    for kind in RUN_KINDS:
        choice = config.plugin(kind)
        if choice.name == AUTO and kind in ("search", "scorer", "combiner", "learner"):
            continue
        try:
            resolved[kind] = manager.validate_options(kind, choice.name, choice.options)
        except PluginError as err:
            lines.append(f"{where}: {kind}.name: {err}")
        except ConfigError as err:
            lines.extend(f"{where}: {kind}.options: {line}" for line in str(err).splitlines())
    if lines:
        raise ConfigError("\n".join(lines))
    return resolved
