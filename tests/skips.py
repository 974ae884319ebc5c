"""Skip reasons that say what is missing and how to get it (a skip a reader can act on)."""

from __future__ import annotations

from pathlib import Path

# How to install each Prolog engine a test may drive (README "Installing the Prolog engines").
ENGINE_INSTALL = {
    "swipl": "apt-get install swi-prolog-nox",
    "gprolog": "apt-get install gprolog",
    "yap": "Debian 12 has no yap package: build YAP from source (docs/backends.md)",
}


def engine_missing(name: str) -> str:
    """``swipl is not on PATH (install: apt-get install swi-prolog-nox)``."""
    how = ENGINE_INSTALL.get(name, "see docs/backends.md")
    return f"{name} is not on PATH (install: {how}; .ci/install-prolog.sh sets up all engines)"


def shared_data_missing(path: Path) -> str:
    """Why a test over the public datasets folder is skipped, and how to get that folder."""
    return (
        f"needs the public datasets folder {path}, which is not part of the repository: put "
        "the project's shared/data (the datasets docs/datasets-survey.md lists, with their "
        "sources) beside the clone"
    )
