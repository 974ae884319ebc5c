"""Output paths checked before any work starts.

Why: a typo in ``--out`` used to surface after minutes of learning, as a
``NotADirectoryError``/``IsADirectoryError``/``FileNotFoundError`` traceback, with the
result lost. These checks run first and raise :class:`OutputPathError` naming the option.
"""

from __future__ import annotations

import os
from pathlib import Path

from ilpkit.core.errors import ConfigError


class OutputPathError(ConfigError):
    """An output path cannot be written: wrong kind, missing parent, no permission."""


def check_output_file(path: str | Path, option: str = "--out", example: str = "model.json") -> Path:
    """``path`` can be written as a file: it is not a directory, its parent directory
    exists and is writable (the file itself is created or replaced)."""
    p = Path(path)
    if p.is_dir():
        raise OutputPathError(
            f"{option} {p}: is a directory; give a file name (e.g. {p / example})"
        )
    _check_parent(p, p.parent, option)
    if p.exists() and not os.access(p, os.W_OK):
        raise OutputPathError(f"{option} {p}: the file exists and is not writable")
    return p


def check_output_dir(path: str | Path, option: str = "--out") -> Path:
    """``path`` can be a run directory: it is a directory or does not exist yet, and the
    nearest existing ancestor is a writable directory (missing parents are created)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputPathError(f"{option} {p}: is a file; a directory is expected (the run's)")
    ancestor = p
    while not ancestor.exists():
        if ancestor.parent == ancestor:
            break
        ancestor = ancestor.parent
    if ancestor != p and not ancestor.is_dir():
        raise OutputPathError(
            f"{option} {p}: {ancestor} is a file, so no directory can be made under it"
        )
    target = ancestor if ancestor.exists() else p
    if not os.access(target, os.W_OK | os.X_OK):
        raise OutputPathError(f"{option} {p}: {target} is not writable")
    return p


def _check_parent(p: Path, parent: Path, option: str) -> None:
    if not parent.exists():
        raise OutputPathError(
            f"{option} {p}: the directory {parent} does not exist; create it first"
        )
    if not parent.is_dir():
        raise OutputPathError(f"{option} {p}: {parent} is a file, not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputPathError(f"{option} {p}: the directory {parent} is not writable")
