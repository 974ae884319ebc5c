"""Dataset formats: loaders and writers that round-trip.

Each format is a :class:`DatasetFormat` registered in :data:`FORMATS`; ``load_task`` picks one
by name or detects it from the files present.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ilpkit.core.errors import DataError, FormatError
from ilpkit.core.task import Task


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


FORMATS: dict[str, DatasetFormat] = {}
_BUILTIN_FORMATS = ("aleph", "boostsrl", "popper")  # detection order: first match wins


def register_format(fmt: DatasetFormat) -> DatasetFormat:
    FORMATS[fmt.name] = fmt
    return fmt


def _ensure_builtin_formats() -> None:
    if FORMATS:
        return
    import importlib

    # import all first: a failing import must not leave the registry half filled
    modules = [importlib.import_module(f"ilpkit.core.formats.{m}") for m in _BUILTIN_FORMATS]
    for module in modules:
        register_format(module.FORMAT)


def detect_formats(path: Path) -> list[Detection]:
    """Every format that recognises ``path``, best first."""
    _ensure_builtin_formats()
    out = []
    for fmt in FORMATS.values():
        reason = fmt.detect(path)
        if reason:
            out.append(Detection(fmt.name, reason))
    return out


def load_task(path: str | Path, format: str = "auto", stem: str | None = None) -> Task:
    """Load a task from a dataset folder or file stem.

    ``format`` is ``auto`` or a name in :data:`FORMATS`; ``stem`` picks one task in a folder
    holding several (e.g. ``advisedby`` in UW-CSE's ``advisedby.b``/``ai.b`` folder).
    """
    _ensure_builtin_formats()
    p = Path(path)
    if not p.exists() and not _stem_exists(p):
        raise DataError(f"{p}: no such file or directory")
    if format != "auto":
        if format not in FORMATS:
            raise FormatError(
                f"unknown format {format!r}; known formats: auto, " + ", ".join(sorted(FORMATS))
            )
        return FORMATS[format].load(p, stem=stem)
    found = detect_formats(p)
    if not found:
        raise FormatError(_nothing_found(p))
    return FORMATS[found[0].format].load(p, stem=stem)


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
