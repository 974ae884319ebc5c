"""How a data path the user typed becomes one with a name (a module of its own, and light:
the dataset registry and the loaders both need it before numpy is imported)."""

from __future__ import annotations

import os
from pathlib import Path


def plain_path(text: str | Path) -> Path:
    """``text`` as a path with a name: one ending in ``.`` or ``..`` (``ilpkit learn .`` in a
    data folder) made absolute, without resolving links; any other path as given."""
    path = Path(text)
    if path.name in ("", ".."):
        return Path(os.path.abspath(path))
    return path
