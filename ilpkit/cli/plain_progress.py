"""Progress where stderr is not a terminal (nohup, ``tee``, CI logs): plain lines.

A live bar needs a terminal; outside one, ``learn`` and ``cv`` used to print nothing until
the end (a 22-minute R4F cross-validation wrote no line). Here each step becomes one line on
stderr, at most one per :data:`EVERY_SECONDS` (the first at once), so that a log shows the
run is alive without growing by thousands of lines; a finished cv unit always gets its line.
"""

from __future__ import annotations

import math
import time
from typing import Final

import typer

EVERY_SECONDS: Final = 10.0
"""Fewest seconds between two rate-limited progress lines (tests may patch it)."""


class PlainLines:
    """Rate-limited progress lines on stderr."""

    def __init__(self, prefix: str, every: float | None = None) -> None:
        self.prefix = prefix
        self.every = EVERY_SECONDS if every is None else every
        self._last = -math.inf

    def line(self, text: str, *, force: bool = False) -> bool:
        """Print ``prefix: text`` unless a line went out less than ``every`` seconds ago
        (``force``: print anyway); returns whether it printed."""
        now = time.monotonic()
        if not force and now - self._last < self.every:
            return False
        self._last = now
        typer.echo(f"{self.prefix}: {text}", err=True)
        return True


def duration(seconds: float) -> str:
    """``42 s``, ``12 min``, ``3.5 h``, ``2.1 days``: a person's unit."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172_800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86_400:.1f} days"


def eta(started: float, ran: int, remaining: int) -> str:
    """The time the ``remaining`` units would take at the pace of the ``ran`` units since
    ``started`` (monotonic seconds): ``about 12 min left``; empty before the first unit."""
    if ran <= 0:
        return ""
    if remaining <= 0:
        return "done"
    per_unit = (time.monotonic() - started) / ran
    return f"about {duration(per_unit * remaining)} left"
