"""Output paths checked before any work starts.

Why: a typo in ``--out`` used to surface after minutes of learning, as a
``NotADirectoryError``/``IsADirectoryError``/``FileNotFoundError`` traceback, with the
result lost. These checks run first and raise :class:`OutputPathError` naming the option.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ilpkit.errors import ConfigError


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


class OutputWriteError(ConfigError):
    """An output could not be written (full disk, a path the system refuses); the message
    says where the output was kept instead."""


def write_output(path: str | Path, text: str, *, what: str, suffix: str) -> Path:
    """Write ``text`` (``what``: "the model", "the scores") to ``path``; returns ``path``.

    Why: a full disk or a path the system refuses (``/dev/full``, ``/proc/...``) used to end
    in a traceback with the result of minutes of work lost. When the write fails the text is
    kept in ``~/.cache/ilpkit/unsaved`` (``$ILPKIT_CACHE/unsaved``), else the temporary or
    current folder, and :class:`OutputWriteError` names both places."""
    p = Path(path)
    try:
        with open(p, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        kept = keep_elsewhere(p, text, suffix)
        if kept is None:
            raise OutputWriteError(
                f"{p}: cannot write {what} ({reason}), and no other folder took it either "
                "(disk full?)"
            ) from None
        raise OutputWriteError(
            f"{p}: cannot write {what} ({reason}); it is kept in {kept}"
        ) from None
    return p


def cache_root() -> Path:
    """ilpkit's cache folder: ``$ILPKIT_CACHE``, else ``$XDG_CACHE_HOME/ilpkit``, else
    ``~/.cache/ilpkit`` (compiled kernels, shipped data, outputs that could not be saved)."""
    base = os.environ.get("ILPKIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "ilpkit",
    )
    return Path(base)


def keep_elsewhere(p: Path, text: str, suffix: str) -> Path | None:
    """``text`` written to a new file in the first folder that takes it (None: none did)."""
    import tempfile
    import time

    base = cache_root()
    stem = (p.stem or "output")[:60]
    name = f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}{suffix}"
    for folder in (base / "unsaved", Path(tempfile.gettempdir()), Path.cwd()):
        target = folder / name
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handle = open(target, "x", encoding="utf-8", newline="")  # noqa: SIM115
        except OSError:
            continue
        try:
            with handle:
                handle.write(text)
            return target
        except OSError:  # created here but not written (full too): leave no stub
            with contextlib.suppress(OSError):
                target.unlink()
    return None
