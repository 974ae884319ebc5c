"""SIGINT and SIGTERM reach an in-process SWI-Prolog query (issue 28, item 2).

Python runs a signal handler in the main thread between two bytecodes; while that thread is
inside libswipl (a janus or pyswip request) it runs none, so Ctrl-C and SIGTERM did nothing
until the query ended -- and a query with no step or time limit may never end (one trial
survived ``timeout 90`` for two hours; only SIGKILL ended it).

So, during every request, :func:`deferred_signals` replaces the Python handlers of SIGINT,
SIGTERM and SIGHUP by one that only records the signal, and an alarm (``library(time)``, the
one that already watches memory, ``ilpkit_memory_tick/2`` in the SWI-Prolog hooks) calls
``user:'$ilpkit_host_poll'`` in the query's thread every 50 ms.  Each bridge defines that
predicate as a call of :func:`poll` (janus: ``py_call/2``; pyswip: a foreign predicate made
from a ``ctypes`` callback): running Python code lets the interpreter run the recording
handler, and once a signal was recorded :func:`poll` answers false, and the query is
abandoned with ``ilpkit_limit(interrupted)``, which no ``catch/3`` of the data can catch (see
:mod:`~ilpkit.plugins.backends.prolog.guarded`).  When Prolog has returned, the host's own handlers
are put back and the recorded signal is handed to its handler: ``KeyboardInterrupt`` for
Ctrl-C, :class:`~ilpkit.core.lifecycle.Terminated` under ilpkit's CLI, or the default action
(SIGTERM ends the process).  Only in the main thread, where Python runs signal handlers.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))
_received: list[tuple[int, FrameType | None]] = []


def _record(signum: int, frame: FrameType | None) -> None:
    _received.append((signum, frame))


def poll() -> bool:
    """False (stop the query) once a signal arrived during the request."""
    return not _received


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """Within: SIGINT, SIGTERM and SIGHUP are recorded (and stop the Prolog query, through
    :func:`poll`); after: the host's handlers are back and the first recorded signal goes to
    its handler."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}
    for s in _SIGNALS:
        handler = signal.getsignal(s)
        if handler is signal.SIG_IGN or handler is None:  # ignored, or not Python's
            continue
        previous[s] = handler
        signal.signal(s, _record)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if _received:
            signum, frame = _received[0]
            _received.clear()
            handler = previous.get(signum)
            if callable(handler):
                handler(signum, frame)  # raises KeyboardInterrupt, Terminated, ...
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), signum)  # the default action, now


POLL_PREDICATE = "'$ilpkit_host_poll'"
"""The predicate (in ``user``) the SWI-Prolog hooks call to poll the host."""

JANUS_POLL = (
    f"assertz((user:{POLL_PREDICATE} :- "
    "janus:py_call('ilpkit.plugins.backends.prolog.swi_signals':poll(), @(true))))"
)
"""The goal that defines the poll for janus (run once per process)."""
