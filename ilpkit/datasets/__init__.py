"""Small public datasets shipped with ilpkit (see README.md in this folder)."""

from __future__ import annotations

from pathlib import Path

from ilpkit.core.paths import plain_path as plain_path  # re-exported
from ilpkit.errors import DataError

ROOT = Path(__file__).resolve().parent

BUNDLED: dict[str, str] = {
    "trains": "Michalski's trains, Aleph layout (5 pos, 5 neg)",
    "uwcse": "UW-CSE advisedby, Aleph layout with 5 folds (113 pos, 2,711 neg)",
    "mutagenesis": "Mutagenesis-188, aleph-modes.pl + bk.pl + exs.pl (125 pos, 63 neg)",
    "toy_father": "father/2 toy task, BoostSRL layout with train/test",
}


def bundled_path(name: str) -> Path:
    """Folder of the bundled dataset ``name``."""
    if name not in BUNDLED:
        import difflib

        close = difflib.get_close_matches(name, BUNDLED, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise DataError(f"no bundled dataset {name!r}.{hint} Bundled: {', '.join(sorted(BUNDLED))}")
    return ROOT / name


def resolve_data_path(text: str) -> Path:
    """A path as given, or the folder of a bundled dataset when nothing exists at the path;
    ``.``, ``..`` (and paths ending in them) become the absolute folder they name."""
    path = plain_path(text)
    if path.exists() or path.with_name(path.name + ".b").is_file():
        return path
    if text in BUNDLED:
        return bundled_path(text)
    if len(path.parts) == 1 and not any(path.parent.glob(path.name + ".*")):
        import difflib

        close = difflib.get_close_matches(text, BUNDLED, n=1)
        if close:
            raise DataError(
                f"{text}: no such file or directory, nor a bundled dataset; did you mean "
                f"{close[0]!r}? (`ilpkit datasets list` shows them)"
            )
    return path
