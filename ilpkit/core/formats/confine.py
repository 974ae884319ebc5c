"""Which files data may make ilpkit read: those inside the data folder (issue 28).

The user chooses a data folder (or a file, or an Aleph stem, whose folder it is); the data
chooses nothing outside it.  While :func:`ilpkit.core.formats.load_task` runs,

* every file a format finds by its layout (``stem.f``, ``fs/f0.n``, ``bk.pl``,
  ``train/train_pos.txt``, ...) must resolve, symbolic links followed, inside the data folder
  (:func:`check_data_file`).  Popper and ilp-experiments tasks may take their shared files
  (``bk.pl``, ``bias.pl``, ``aleph-modes.pl``) from the folder just above the data folder
  (``imdb/prolog_ilpexp/imdb1`` holds only ``exs.pl``); such a file must resolve inside that
  folder;
* every path the data names (``:- [file]``, ``consult/1``, BoostSRL's ``import:``, the
  settings ``train_pos``, ``train_neg``, ``test_pos``, ``test_neg``, ``recordfile``,
  ``goodfile``) must resolve inside the data folder -- or, when a shared file of the folder
  above names it, inside that folder (:func:`check_named`).

Anything else is a :class:`~ilpkit.errors.DataError` naming the file (and the line of
the naming clause) and the resolved path, raised before the file is opened, so no message
can show what the file holds.  The file the user named (``ilpkit learn data/x.b``) is the
user's and is not checked; ``load_task(..., trust_data=True)`` (``--trust-data``) turns the
confinement off.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ilpkit.errors import DataError, SourceLocation

FILE_SETTINGS: Final = (
    "train_pos",
    "train_neg",
    "test_pos",
    "test_neg",
    "recordfile",
    "goodfile",
)
"""Aleph settings whose value is a file name."""

_HOW_TO_TRUST: Final = "not read (pass --trust-data, or trust_data=True, to read it)"


@dataclass(frozen=True)
class Boundary:
    """The data folder of one ``load_task`` call."""

    folder: Path
    """The data folder as the user gave it (for messages)."""
    root: Path
    """``folder`` resolved."""
    above: Path
    """The folder holding ``folder`` (absolute, not resolved): where Popper and
    ilp-experiments layouts look for shared files."""
    shared: Path
    """``above`` resolved."""
    user_file: Path | None
    """The file the user named (absolute, not resolved), which is not confined."""


BOUNDARY: ContextVar[Boundary | None] = ContextVar("ilpkit_data_boundary", default=None)
"""The data folder of the ``load_task`` running (None: no confinement)."""


@contextmanager
def data_folder(path: Path, *, trusted: bool) -> Iterator[None]:
    """Confine the files read inside this block to the data folder of ``path`` (a folder, a
    file or an Aleph stem, as the user gave it); nothing is confined when ``trusted``."""
    if trusted:
        token = BOUNDARY.set(None)
    else:
        folder = path if path.is_dir() else path.parent
        user_file: Path | None = None
        if path.is_file():
            user_file = _absolute(path)
        elif not path.exists() and path.with_name(path.name + ".b").is_file():
            user_file = _absolute(path.with_name(path.name + ".b"))
        above = _absolute(folder).parent
        token = BOUNDARY.set(Boundary(folder, folder.resolve(), above, above.resolve(), user_file))
    try:
        yield
    finally:
        BOUNDARY.reset(token)


@contextmanager
def own_files(folder: Path) -> Iterator[None]:
    """For a format plugin that writes files of its own from the data it read (a converted
    copy in a temporary folder) and loads them with another format: inside this block the
    data folder is ``folder``, so those files are read and nothing outside ``folder`` is;
    nothing changes when the data is trusted (no confinement)."""
    if BOUNDARY.get() is None:
        yield
        return
    with data_folder(folder, trusted=False):
        yield


def check_data_file(file: Path) -> None:
    """Refuse a file a format found by its layout when it resolves outside the data folder
    (a symbolic link to ``/etc/passwd``, to another user's files, ...)."""
    boundary = BOUNDARY.get()
    if boundary is None or _absolute(file) == boundary.user_file:
        return
    resolved = _resolve(file)
    if resolved is not None and _inside(resolved, boundary.root):
        return
    if (
        resolved is not None
        and _absolute(file).parent == boundary.above
        and _inside(resolved, boundary.shared)
    ):
        return  # a shared file of the folder above (Popper, ilp-experiments layouts)
    where = "an unreadable path" if resolved is None else str(resolved)
    raise DataError(
        f"{file}: resolves to {where}, outside the data folder {boundary.folder}; " + _HOW_TO_TRUST
    )


def check_named(target: Path, loc: SourceLocation | str, shown: str, naming_file: Path) -> None:
    """Refuse ``target``, a path that ``naming_file`` names at ``loc`` (``shown`` as the data
    wrote it), when it resolves outside the data folder.  Call it before looking at
    ``target`` at all, so that the data cannot even probe which files exist elsewhere."""
    boundary = BOUNDARY.get()
    if boundary is None:
        return
    root, folder = boundary.root, boundary.folder
    naming = _resolve(naming_file)
    if (
        naming is not None
        and not _inside(naming, boundary.root)
        and _inside(naming, boundary.shared)
        and _inside(_absolute(naming_file), boundary.above)
    ):
        root, folder = boundary.shared, boundary.above  # named by a shared file above
    resolved = _resolve(target)
    if resolved is not None and _inside(resolved, root):
        return
    where = "not a usable path" if resolved is None else str(resolved)
    hint = ""
    if resolved is not None and root == boundary.root and _inside(resolved, boundary.shared):
        hint = f" or load the folder holding it, {boundary.above}, if it is one data set"
    raise DataError(
        f"{loc}: {shown} is {where}, outside the data folder {folder}; not read (pass "
        f"--trust-data, or trust_data=True, to read it{hint})"
    )


def check_settings(settings: object, default_base: Path, named_by: Path) -> None:
    """Refuse the data's :data:`FILE_SETTINGS` naming a file outside the data folder (paths
    relative to the file setting them).  ``settings`` is a :class:`~ilpkit.core.bias.Settings`
    holding only what the data set (command-line overrides come later)."""
    if BOUNDARY.get() is None:
        return
    explicit = getattr(settings, "explicit", {})
    locations = getattr(settings, "locations", {})
    for key in FILE_SETTINGS:
        value = explicit.get(key)
        if not isinstance(value, str):
            continue
        loc = locations.get(key)
        naming = Path(loc.file) if loc is not None else named_by
        base = naming.parent if loc is not None else default_base
        check_named(base / value, loc or str(named_by), f"{key} {value!r}", naming)


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))


def _resolve(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, ValueError, RuntimeError):
        return None


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
