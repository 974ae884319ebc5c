"""Errors a user can cause.

Every exception ilpkit raises for bad input, bad options or a missing engine is an
:class:`IlpkitError`, so the CLI can print it as a message (exit code 2) instead of a
traceback, and API users can catch one type.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class IlpkitError(Exception):
    """Base class of every error a user can cause; the message says what to do."""


@dataclass(frozen=True)
class SourceLocation:
    """Where something was read: file, 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class DataError(IlpkitError):
    """Data files are missing, unreadable or inconsistent."""


class UnsafeProgramError(DataError):
    """A data file holds a directive or a call that could run code (see ``core/safety.py``)."""


class PrologSyntaxError(DataError):
    """One or more syntax errors in a Prolog-text file.

    ``errors`` holds every ``(location, message)`` found (up to the reader's limit), so a
    user can fix a file in one pass.
    """

    def __init__(self, errors: list[tuple[SourceLocation, str]], truncated: bool = False):
        self.errors = list(errors)
        self.truncated = truncated
        lines = [f"{loc}: {msg}" for loc, msg in self.errors]
        if truncated:
            lines.append("(further errors not reported)")
        super().__init__("\n".join(lines))


class BiasError(DataError):
    """A mode declaration, determination or setting is malformed."""


class FormatError(DataError):
    """A dataset's files do not match any supported format, or contradict each other."""


class PluginError(IlpkitError):
    """A plugin cannot be found, or failed to register."""


class ConfigError(IlpkitError):
    """A run configuration or a plugin option is invalid."""


class ResourceLimitExceeded(IlpkitError):
    """A query exceeded its inference/step limit or its time limit."""


class BackendUnavailable(IlpkitError):
    """A backend cannot run on this machine (engine missing, wrong version, ...)."""


def path_str(path: Path | str) -> str:
    """Render a path for error messages (as given, so users recognise it)."""
    return str(path)
