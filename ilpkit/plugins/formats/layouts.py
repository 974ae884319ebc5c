"""Where the BoostSRL and Popper formats find their files: what format detection needs.

Apart from the readers so that detecting a data set's format (every ``learn``, ``cv`` and
``data check`` without ``--format``) need not import them: a format plugin's module is
imported when a data set of that format is read or written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

# --------------------------------------------------------------------------------------------
# Fold names (both formats)
# --------------------------------------------------------------------------------------------

SPLIT_ORDER: Final = {"train": 0, "tune": 1, "dev": 1, "valid": 1, "validation": 1, "test": 2}


def fold_sort_key(name: str) -> tuple[tuple[int, str, int, str], ...]:
    """Order fold paths: train, tune, test, then other names in natural order."""
    out = []
    for part in name.split("/"):
        m = re.match(r"(.*?)(\d+)$", part)
        head, num = (m.group(1), int(m.group(2))) if m else (part, -1)
        out.append((SPLIT_ORDER.get(part.lower(), 3), head.lower(), num, part))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# BoostSRL
# --------------------------------------------------------------------------------------------

FILE_RE: Final = re.compile(r"^(?P<prefix>.+)_(?P<kind>pos|neg|facts|bk)\.txt$")


def boostsrl_prefixes(folder: Path) -> dict[str, set[str]]:
    """``{prefix: {"pos", "neg", ...}}`` of the BoostSRL files in ``folder``."""
    out: dict[str, set[str]] = {}
    try:
        entries = list(folder.iterdir())
    except OSError:
        return out
    for p in entries:
        m = FILE_RE.match(p.name)
        if m and p.is_file():
            out.setdefault(m.group("prefix"), set()).add(m.group("kind"))
    return out


def has_examples(kinds: Iterable[str]) -> bool:
    return any(k in ("pos", "neg", "facts") for k in kinds)


def boostsrl_subdirs(folder: Path) -> list[Path]:
    try:
        return sorted(
            (d for d in folder.iterdir() if d.is_dir() and not d.name.startswith(".")),
            key=lambda d: d.name,
        )
    except OSError:
        return []


def is_split(folder: Path) -> bool:
    return any(has_examples(k) for k in boostsrl_prefixes(folder).values())


def find_splits(root: Path) -> list[tuple[str, Path]]:
    """Split folders one or two levels down, as ``(fold name, folder)`` in fold order."""
    out = []
    for d in boostsrl_subdirs(root):
        if is_split(d):
            out.append((d.name, d))
            continue
        out.extend((f"{d.name}/{e.name}", e) for e in boostsrl_subdirs(d) if is_split(e))
    return sorted(out, key=lambda item: fold_sort_key(item[0]))


def has_root_examples(root: Path) -> bool:
    """Example files directly in ``root`` (the single-folder layout)."""
    return any("pos" in k or "neg" in k for k in boostsrl_prefixes(root).values())


def dataset_root(path: Path) -> Path:
    """``path``, or its only sub-folder when ``path`` holds nothing else of BoostSRL's (srlearn
    ships ``toy_father/boostsrl_srlearn/README.md`` next to the data set ``toy_father/``)."""
    if boostsrl_prefixes(path) or (path / "background.txt").is_file():
        return path
    subdirs = boostsrl_subdirs(path)
    if len(subdirs) == 1 and not is_split(subdirs[0]) and find_splits(subdirs[0]):
        return subdirs[0]
    return path


def detect_boostsrl(path: Path) -> str | None:
    """Why ``path`` looks like a BoostSRL data set, or None."""
    if not path.is_dir():
        return None
    path = dataset_root(path)
    prefixes = boostsrl_prefixes(path)
    if has_root_examples(path):
        names = sorted(f"{p}_*.txt" for p in prefixes)
        return "BoostSRL files " + ", ".join(names[:4])
    splits = find_splits(path)
    if splits:
        shown = ", ".join(name for name, _ in splits[:6])
        return f"BoostSRL split folders ({shown}{' ...' if len(splits) > 6 else ''})"
    return None


# --------------------------------------------------------------------------------------------
# Popper
# --------------------------------------------------------------------------------------------

BIAS_FILES: Final = ("bias.pl", "popper-bias.pl")
FOLD_RE: Final = re.compile(r"(?i)train|test|tune|dev|valid(ation)?|fold[_-]?\d+|split[_-]?\d+")
EXS_FILE_RE: Final = re.compile(r"^(?:exs_(?P<a>.+)|(?P<b>.+)_exs)\.pl$")


def first_file(folders: Iterable[Path], names: Iterable[str]) -> Path | None:
    """The first of ``names`` that is a file in the first folder that has one."""
    for folder in folders:
        for name in names:
            if (folder / name).is_file():
                return folder / name
    return None


def bk_files(folder: Path) -> list[Path]:
    """Popper background files (``bk*.pl``) in ``folder``."""
    return sorted(p for p in folder.glob("bk*.pl") if p.is_file())


def popper_subdirs(folder: Path) -> list[Path]:
    """Visible sub-folders (an unreadable folder raises, unlike :func:`boostsrl_subdirs`)."""
    return sorted(d for d in folder.iterdir() if d.is_dir() and not d.name.startswith("."))


@dataclass
class ExampleSets:
    """A folder's Popper example files: ``exs.pl``, per fold, per stem."""

    plain: Path | None = None
    folds: dict[str, tuple[Path, list[Path]]] = field(default_factory=dict)
    stems: dict[str, Path] = field(default_factory=dict)


def fold_dirs(folder: Path, prefix: str, out: dict[str, tuple[Path, list[Path]]]) -> None:
    if (folder / "exs.pl").is_file():
        out[prefix] = (folder / "exs.pl", bk_files(folder))
    for d in popper_subdirs(folder):
        if FOLD_RE.fullmatch(d.name):
            fold_dirs(d, f"{prefix}/{d.name}", out)


def example_sets(folder: Path) -> ExampleSets:
    """The example files in ``folder`` and its fold and stem sub-folders."""
    sets = ExampleSets()
    if (folder / "exs.pl").is_file():
        sets.plain = folder / "exs.pl"
    for p in sorted(folder.glob("*.pl")):
        m = EXS_FILE_RE.match(p.name)
        if m:
            name = m.group("a") or m.group("b")
            if FOLD_RE.fullmatch(name):
                sets.folds[name] = (p, [])
            else:
                sets.stems[name] = p
    for d in popper_subdirs(folder):
        if FOLD_RE.fullmatch(d.name):
            fold_dirs(d, d.name, sets.folds)
        elif d.name == "examples":
            sets.stems.update((p.stem, p) for p in sorted(d.glob("*.pl")) if p.is_file())
        elif (d / "exs.pl").is_file():
            sets.stems[d.name] = d
    return sets


def detect_popper(path: Path) -> str | None:
    """Claim a folder with a bias file, bk.pl and examples, unless an Aleph mode file is
    there (ilp-experiments folders hold both; Aleph's loader reads those by default)."""
    if not path.is_dir():
        return None
    folders = (path, path.parent)
    if first_file(folders, ("aleph-modes.pl",)) is not None:
        return None
    bias = first_file(folders, BIAS_FILES)
    if bias is None:
        return None
    sets = example_sets(path)
    fold_bk = [p for _, bks in sets.folds.values() for p in bks]
    if not (bk_files(path) or bk_files(path.parent) or fold_bk):
        return None
    if sets.plain is not None:
        return f"Popper files {bias.name}, bk.pl, exs.pl"
    if sets.folds:
        return f"Popper files {bias.name}, bk.pl and folds {', '.join(sorted(sets.folds))}"
    return None
