"""Helpers shared by the format writers: Prolog text that the reader reads back exactly."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ilpkit.prolog.terms import Clause, Struct, clause_to_prolog, to_prolog


def write_lines(path: Path, lines: Iterable[str]) -> Path:
    """Write ``lines`` (one clause each) as UTF-8 with a trailing newline; returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line)
            handle.write("\n")
    return path


def safe_stem(name: str, prefix: str) -> str:
    """A file stem made of ``name`` (non-word characters replaced), never starting with a
    digit (``prefix`` is put in front then)."""
    stem = re.sub(r"[^A-Za-z0-9_]", "_", name) or "task"
    return stem if not stem[0].isdigit() else prefix + stem


def write_clauses(clauses: Iterable[Clause]) -> list[str]:
    return [clause_to_prolog(c) for c in clauses]


def directive(term: Struct) -> str:
    return f":- {to_prolog(term, 1199)}."
