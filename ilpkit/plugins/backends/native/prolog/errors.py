"""Exceptions of the Prolog machine, resource-limit bookkeeping."""

from __future__ import annotations

import contextlib
import os
import time
from typing import TYPE_CHECKING, Final

from ilpkit.errors import DataError, IlpkitError
from ilpkit.plugins.backends.native.prolog.terms import RT, Ref, _copy, _render
from ilpkit.prolog.terms import Const, Term, to_prolog

if TYPE_CHECKING:
    from ilpkit.plugins.backends.native.prolog.library import BUILTINS
    from ilpkit.plugins.backends.native.resolution import ResolutionEngine

__all__ = [
    "BUILTINS",
    "PrologRuntimeError",
    "ResolutionEngine",
    "UnsupportedConstruct",
]

_HINT: Final = "use the swi backend (--backend swi)"
DEFAULT_MEMORY_LIMIT_MB: Final = 1024.0
"""How much one query may grow the process by default (MB)."""


class UnsupportedConstruct(DataError):
    """The background program uses something the native engine does not implement.

    Raised by :meth:`ResolutionEngine.check` at load time (with the clause's file:line), or at
    run time when such a construct is reached through a meta-call.  The message names the
    construct and suggests the SWI-Prolog backend.
    """


class PrologRuntimeError(IlpkitError):
    """A Prolog error while proving a goal (instantiation/type errors, unknown procedures).

    ``ball`` is the error as a term (ISO-shaped where possible), for callers that want to
    inspect it; the message says which goal failed and which clause called it.
    """

    def __init__(self, message: str, ball: Term | None = None) -> None:
        super().__init__(message)
        self.ball = ball


# --------------------------------------------------------------------------------------------
# Errors raised inside the machine
# --------------------------------------------------------------------------------------------


class _Throw(Exception):
    """A Prolog exception in flight: ``ball`` (a copied runtime term) and a message."""

    def __init__(self, ball: RT, message: str) -> None:
        super().__init__(message)
        self.ball = ball
        self.message = message


def _err(formal: RT, message: str) -> _Throw:
    return _Throw(("error", formal, Ref()), message)


def _inst_err() -> _Throw:
    return _err("instantiation_error", "instantiation error (an argument is unbound)")


def _type_err(kind: str, culprit: RT) -> _Throw:
    c = _copy(culprit)
    return _err(("type_error", kind, c), f"type error: expected {kind}, found {_render(c)}")


def _dom_err(domain: str, culprit: RT) -> _Throw:
    c = _copy(culprit)
    return _err(("domain_error", domain, c), f"domain error: expected {domain}, found {_render(c)}")


def _eval_err(what: str) -> _Throw:
    return _err(("evaluation_error", what), f"arithmetic evaluation error: {what}")


def _exist_err(name: str, arity: int) -> _Throw:
    return _err(
        ("existence_error", "procedure", ("/", name, arity)),
        f"unknown procedure {_pi(name, arity)}",
    )


class _OverLimit(Exception):
    """A built-in hit a limit of the query (``kind``: steps, time or memory); the machine
    turns it into :class:`ResourceLimitExceeded` naming the query and the calling clause."""

    def __init__(self, kind: str, what: str) -> None:
        super().__init__(what)
        self.kind = kind
        self.what = what


_FREE_CELLS: Final = 1024
"""Built-ins building up to this many list cells or characters cost one step; beyond it,
each cell counts as a step (so ``length(L, N)`` enumerating ever longer lists, or an atom
doubled in a loop, meets the step limit as a loop of calls would)."""
_MEM_QUICK: Final = 1 << 20
"""Allocations charged below this many bytes are summed; the resident size is read (about
half a microsecond) once the sum passes it, or for any single larger allocation."""
_CELL_BYTES: Final = 120
"""Bytes of one list cell holding a fresh variable or a small integer (tuple + item)."""

_statm: list[int] = []  # [pid, fd] of this process's /proc/self/statm
_last_read: list[float] = [-1.0, 0.0]  # [time.monotonic() of the last read, bytes read]
RSS_READ_EVERY: Final = 0.02
"""Seconds a resident size read stays current.  Why not read it every time: ``os.pread``
releases the GIL, and a loop that releases and retakes it every millisecond (the machine
checks its limits every 2,048 steps) kept every other thread of the process from running
for seconds (CPython's GIL hand-over waits for 5 ms without a switch): a timer asking the
query to stop, a progress bar."""


def _forget_statm() -> None:
    """In a forked child: the descriptor still reads the parent's statm (``self`` was
    resolved when it was opened); the child's first read opens its own."""
    if _statm and _statm[1] >= 0:
        with contextlib.suppress(OSError):
            os.close(_statm[1])
    _statm.clear()
    _last_read[0] = -1.0


if hasattr(os, "register_at_fork"):  # POSIX; elsewhere /proc is missing anyway
    os.register_at_fork(after_in_child=_forget_statm)


def _resident_bytes() -> int | None:
    """The process's resident set size in bytes (read at most every
    :data:`RSS_READ_EVERY` seconds), or None where it cannot be read cheaply (then only
    built-ins' own estimates bound a query's memory).  Called once per clause a search
    asks about, so the usual path is a clock read and a comparison (no ``getpid`` system
    call: a fork resets the state through :func:`_forget_statm`)."""
    if not _statm:  # first call in this process
        _last_read[0] = -1.0
        try:
            fd = os.open("/proc/self/statm", os.O_RDONLY)
        except OSError:
            _statm.extend((os.getpid(), -1))
            return None
        _statm.extend((os.getpid(), fd))
    fd = _statm[1]
    if fd < 0:
        return None
    now = time.monotonic()
    if _last_read[0] >= 0 and now - _last_read[0] < RSS_READ_EVERY:
        return int(_last_read[1])
    try:
        fields = os.pread(fd, 128, 0).split()
        rss = int(fields[1]) * _PAGE
    except (OSError, IndexError, ValueError):  # pragma: no cover - /proc changed under us
        return None
    _last_read[0], _last_read[1] = now, rss
    return rss


def _page_size() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 4096


_PAGE: Final = _page_size()


def _text_bytes(n: int) -> int:
    """Bytes of a Python string of ``n`` characters (up to four bytes each)."""
    return 64 + 4 * n


def _pi(name: str, arity: int) -> str:
    return f"{to_prolog(Const(name), 0)}/{arity}"
