"""Dataset formats: loaders and writers that round-trip.

Each format is a :class:`DatasetFormat`, registered as a plugin of kind ``"format"`` (the
built-ins ``aleph``, ``boostsrl``, ``popper`` through ``ilpkit.plugins.formats``, a third
party's through the same hook); ``load_task`` picks one by name or detects it from the files
present. :data:`FORMATS` reads the registry by name.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from ilpkit.core.task import Task
from ilpkit.errors import DataError, FormatError


class DatasetFormat(Protocol):
    """A family of dataset layouts (Aleph, BoostSRL, Popper, ...)."""

    name: str
    description: str

    def detect(self, path: Path) -> str | None:
        """Why ``path`` looks like this format (a short phrase), or None."""

    def load(self, path: Path, *, stem: str | None = None) -> Task:
        """Read the task at ``path``."""

    def write(self, task: Task, dest: Path) -> list[Path]:
        """Write ``task`` into directory ``dest`` in this format; return the files written."""


@dataclass(frozen=True)
class Detection:
    format: str
    reason: str


BUILTIN_FORMATS: Final = ("aleph", "boostsrl", "popper")
"""Detection order of the built-ins (first match wins); installed formats come after, by name."""
_BUILTIN_FORMATS = BUILTIN_FORMATS


def format_names() -> list[str]:
    """Every registered format, in detection order."""
    from ilpkit.core.plugins import get_plugin_manager

    names = get_plugin_manager().names("format")
    return [n for n in _BUILTIN_FORMATS if n in names] + sorted(
        n for n in names if n not in _BUILTIN_FORMATS
    )


def get_format(name: str) -> DatasetFormat:
    """The registered format ``name``."""
    from ilpkit.core.plugins import get_plugin_manager

    names = format_names()
    if name not in names:
        raise FormatError(f"unknown format {name!r}; known formats: auto, " + ", ".join(names))
    fmt: DatasetFormat = get_plugin_manager().make("format", name)
    return fmt


class _Registry(Mapping[str, DatasetFormat]):
    """The registered formats by name, in detection order (a read-only view)."""

    def __getitem__(self, name: str) -> DatasetFormat:
        if name not in format_names():
            raise KeyError(name)
        return get_format(name)

    def __iter__(self) -> Iterator[str]:
        return iter(format_names())

    def __len__(self) -> int:
        return len(format_names())


FORMATS: Mapping[str, DatasetFormat] = _Registry()


def detect_formats(path: Path) -> list[Detection]:
    """Every format that recognises ``path``, best first."""
    out = []
    for fmt in FORMATS.values():
        reason = fmt.detect(path)
        if reason:
            out.append(Detection(fmt.name, reason))
    return out


def load_task(
    path: str | Path,
    format: str = "auto",
    stem: str | None = None,
    *,
    strict: bool = False,
    trust_data: bool = False,
) -> Task:
    """Load a task from a dataset folder or file stem.

    ``format`` is ``auto`` or the name of a registered format (:data:`FORMATS`); ``stem``
    picks one task in a folder holding several (e.g. ``advisedby`` in UW-CSE's
    ``advisedby.b``/``ai.b`` folder).  A clause or directive of a background or mode file
    with a syntax error is reported (one summary in ``Task.warnings``) and skipped, as
    SWI-Prolog does; ``strict`` refuses it instead.
    Every file read must lie inside the data folder (``path``, or the folder holding the
    file or stem ``path`` names), symbolic links resolved: the files a format finds there and
    every file the data names (includes, ``import:``, the settings ``train_pos``,
    ``test_pos``, ...); see :mod:`ilpkit.core.formats.confine`.  ``trust_data`` (the CLI's
    ``--trust-data``) lifts that confinement.
    """
    from ilpkit.core.formats.confine import check_settings, data_folder
    from ilpkit.core.formats.source import STRICT
    from ilpkit.core.paths import plain_path

    p = path = plain_path(path)
    if not p.name:  # "/": no format can name a task after it, and no data lives there
        raise DataError(
            f"{p}: the root folder is not a dataset; give a data folder or file stem "
            "(`ilpkit datasets list` shows the bundled ones)"
        )
    token = STRICT.set(strict)
    try:
        with data_folder(p, trusted=trust_data):
            task = _load_task(path, format, stem)
            folder = p if p.is_dir() else p.parent
            check_settings(task.bias.settings, folder, Path(task.sources[0]) if task.sources else p)
        if stem is not None and not _names_stem(task, stem):
            where = ", ".join(Path(s).name for s in task.sources[:4])
            raise FormatError(
                f"{path}: no task {stem!r}; this folder holds one task, {task.name!r} "
                f"({where}{', ...' if len(task.sources) > 4 else ''}): leave out --stem"
            )
        return task
    finally:
        STRICT.reset(token)


def _names_stem(task: Task, stem: str) -> bool:
    """Whether the task read for ``--stem stem`` is one the stem chose: a file, folder or
    BoostSRL prefix of that name among its sources, its name, or a fold (formats that hold one
    task may not look at ``stem`` at all)."""
    if task.name == stem or task.name.endswith("/" + stem) or stem in task.fold_names:
        return True
    for source in task.sources:
        for part in Path(source).parts:
            if part == stem or Path(part).stem == stem or part.startswith(stem + "_"):
                return True
    return False


def _load_task(path: str | Path, format: str, stem: str | None) -> Task:
    p = Path(path)
    chosen = None if format == "auto" else get_format(format)
    if not p.exists() and not _stem_exists(p):
        raise DataError(f"{p}: no such file or directory")
    if chosen is not None:
        if p.is_dir() and not chosen.detect(p):
            sub = _task_subfolder(p, stem, [chosen])
            if sub is not None:
                return _load_subfolder(chosen, sub, p)
        return chosen.load(p, stem=stem)
    found = detect_formats(p)
    if not found:
        sub = _task_subfolder(p, stem, list(FORMATS.values())) if p.is_dir() else None
        if sub is None:
            raise FormatError(_nothing_found(p))
        detected = detect_formats(sub)
        return _load_subfolder(FORMATS[detected[0].format], sub, p)
    return FORMATS[found[0].format].load(p, stem=stem)


def _task_subfolder(p: Path, stem: str | None, formats: list[DatasetFormat]) -> Path | None:
    """The sub-folder of ``p`` holding its task, when ``p`` itself holds no data: the only
    sub-folder some format recognises, or the one ``--stem`` names among several."""
    tasks = [
        d
        for d in sorted(p.iterdir())
        if d.is_dir() and not d.name.startswith(".") and any(f.detect(d) for f in formats)
    ]
    if stem is not None:
        named = [d for d in tasks if d.name == stem]
        if named:
            return named[0]
        if tasks:
            raise FormatError(
                f"{p}: no task {stem!r}; the task folders here are: "
                + ", ".join(d.name for d in tasks)
            )
        return None
    if len(tasks) == 1:
        return tasks[0]
    if tasks:
        raise FormatError(
            f"{p}: holds several tasks in sub-folders ({', '.join(d.name for d in tasks)}); "
            "choose one with --stem NAME"
        )
    return None


def _load_subfolder(fmt: DatasetFormat, sub: Path, parent: Path) -> Task:
    task = fmt.load(sub, stem=None)
    task.notes.append(f"{parent} holds no data itself; read the task in its sub-folder {sub.name}")
    return task


def _stem_exists(p: Path) -> bool:
    """An Aleph stem such as ``data/train`` (for train.b, train.f, train.n)."""
    return p.with_name(p.name + ".b").is_file()


def _nothing_found(p: Path) -> str:
    if p.is_dir():
        names = sorted(x.name + ("/" if x.is_dir() else "") for x in p.iterdir())
        shown = ", ".join(names[:30]) + (" ..." if len(names) > 30 else "")
        listing = f"found: {shown}" if names else "the folder is empty"
    else:
        listing = f"{p.name} is a single file"
    lines = [
        f"{p}: cannot tell the data format ({listing}).",
        "Expected one of:",
    ]
    for fmt in FORMATS.values():
        lines.append(f"  {fmt.name}: {fmt.description}")
    lines.append("Pass --format NAME to choose one.")
    return "\n".join(lines)
