"""How an ilpkit process ends: interrupts, dying parents, temporary folders, child processes.

Why a module of its own: a run owns things the interpreter does not clean up when it is
stopped abruptly -- worker processes, Prolog engines in their own sessions, temporary folders
holding a copy of the data. Everything here serves one promise: *whatever way a run ends, it
takes its children and its temporary folders with it*.

- :func:`track` registers a cleanup (a ``weakref.finalize`` or any zero-argument callable);
  :func:`run_cleanups` runs every registered one; the interpreter's normal exit runs them
  through the finalizers themselves.
- :func:`temp_dir` makes ``ilpkit-KIND-PID-XXXX`` under the system temporary folder, removed
  at exit and on a signal; a process killed with ``SIGKILL`` cannot remove it, so the next
  :func:`temp_dir` call of any ilpkit process sweeps the folders whose owner ``PID`` is gone.
- :func:`install_signal_handlers` (the command line's main process): the first SIGINT raises
  ``KeyboardInterrupt`` as usual, SIGTERM and SIGHUP raise :class:`Terminated` (one too), so
  ``finally`` blocks stop workers and save what is finished; a second signal while that runs
  kills the children, removes the folders and exits at once.
- :func:`worker_init` (worker processes): Ctrl-C is the parent's business (it stops the
  workers itself), SIGTERM cleans up and exits, and the worker dies with its parent (Linux
  ``PR_SET_PDEATHSIG``, plus a thread polling ``os.getppid()`` everywhere).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

PREFIX = "ilpkit-"
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCHDOG_SECONDS = 0.5
"""How often a worker checks that its parent is alive (the fallback to PR_SET_PDEATHSIG)."""

_cleanups: dict[int, Callable[[], object]] = {}
_temp_dirs: set[Path] = set()
_swept = False
_lock = threading.RLock()
_signals_seen = 0


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: handled like Ctrl-C, with the signal's number for the exit code."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_code(exc: BaseException) -> int:
    """The shell's code for a process stopped by ``exc``'s signal: 128 + its number."""
    return 128 + int(getattr(exc, "signum", signal.SIGINT))


# -- cleanups ------------------------------------------------------------------------------------
def track(cleanup: Callable[[], object]) -> Callable[[], object]:
    """Run ``cleanup`` when the process is stopped by a signal (it is returned unchanged).

    Give the ``weakref.finalize`` of an object owning a child process: it runs once, whether
    the owner is collected, the interpreter exits, or a signal ends the process.
    """
    with _lock:
        for key, old in list(_cleanups.items()):
            if getattr(old, "alive", True) is False:  # a finalizer that already ran
                del _cleanups[key]
        _cleanups[id(cleanup)] = cleanup
    return cleanup


def untrack(cleanup: Callable[[], object]) -> None:
    with _lock:
        _cleanups.pop(id(cleanup), None)


def run_cleanups() -> None:
    """Run every tracked cleanup (newest first), then remove every temporary folder."""
    with _lock:
        cleanups = list(_cleanups.values())[::-1]
        _cleanups.clear()
    for cleanup in cleanups:
        with contextlib.suppress(Exception):
            cleanup()
    _remove_temp_dirs()


# -- temporary folders ---------------------------------------------------------------------------
def temp_dir(kind: str) -> Path:
    """A new ``ilpkit-KIND-PID-XXXX`` folder, removed at exit, on a signal, or -- after a
    ``SIGKILL`` -- by the next ilpkit process that makes one."""
    global _swept
    if not _swept:
        _swept = True
        atexit.register(_remove_temp_dirs)
        sweep_stale_temp_dirs()
    path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{kind}-{os.getpid()}-"))
    with _lock:
        _temp_dirs.add(path)
    return path


def _remove_temp_dirs() -> None:
    with _lock:
        dirs = list(_temp_dirs)
        _temp_dirs.clear()
    for path in dirs:
        shutil.rmtree(path, ignore_errors=True)


def remove_temp_dir(path: Path) -> None:
    with _lock:
        _temp_dirs.discard(path)
    shutil.rmtree(path, ignore_errors=True)


def owner_pid(name: str) -> int | None:
    """The owner's process id in an ``ilpkit-KIND-PID-XXXX`` folder name, if it is one."""
    if not name.startswith(PREFIX):
        return None
    parts = name[len(PREFIX) :].split("-")
    if len(parts) < 3 or not parts[-2].isdigit():
        return None
    return int(parts[-2])


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (another user's counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_temp_dirs(root: Path | None = None) -> list[Path]:
    """Remove this user's ilpkit temporary folders whose owner process is gone; return them."""
    base = Path(root or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return removed
    uid = os.getuid() if hasattr(os, "getuid") else None
    for entry in entries:
        pid = owner_pid(entry.name)
        if pid is None or pid == os.getpid() or pid_alive(pid):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
            if uid is not None and entry.stat(follow_symlinks=False).st_uid != uid:
                continue
        except OSError:
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    if removed:
        import logging  # (only here: most runs log nothing; an import costs every start-up)

        logging.getLogger(__name__).debug("removed %d stale ilpkit temporary folders", len(removed))
    return removed


# -- the main process ----------------------------------------------------------------------------
def _hard_exit(signum: int) -> None:
    """A second signal while the first is being handled: stop children, remove folders, go
    (silently: the first one's line was, or is about to be, printed)."""
    run_cleanups()
    os._exit(128 + signum)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _signals_seen
    _signals_seen += 1
    if _signals_seen > 1:
        _hard_exit(signum)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


@contextlib.contextmanager
def signal_handlers() -> Iterator[None]:
    """Within: SIGINT, SIGTERM and SIGHUP raise ``KeyboardInterrupt`` (:class:`Terminated`
    for the latter two) once; a second one -- within, or while the process exits after the
    first -- ends the process at once, children included. A signal ignored when the block
    starts stays ignored (``nohup`` ignores SIGHUP, a background job Ctrl-C). Only in the
    main thread."""
    global _signals_seen
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    wanted = [getattr(signal, n) for n in names if hasattr(signal, n)]
    previous = {s: signal.getsignal(s) for s in wanted}
    _signals_seen = 0
    for s in wanted:
        if previous[s] is signal.SIG_IGN:
            continue  # ignored where we started (Ctrl-C in a background job, SIGHUP under
            # nohup): keep it so
        signal.signal(s, _on_signal)
    try:
        yield
    finally:
        if _signals_seen == 0:  # after a signal the process is ending: a second one ends it
            for s, handler in previous.items():
                signal.signal(s, handler)


# -- worker processes ----------------------------------------------------------------------------
def worker_init(parent_pid: int) -> None:
    """Initializer of a worker process: ignore Ctrl-C (the parent stops workers), clean up
    and exit on SIGTERM, and die with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent_pid)


_exit_started = threading.Lock()
SIGNAL_GRACE_SECONDS = 0.25
"""How long the watchdog leaves a SIGTERM to the main thread's handler before acting."""


def _worker_terminate(signum: int, frame: FrameType | None) -> None:
    # The main thread's handler and the watchdog thread (through the wakeup pipe) may both
    # get here for one SIGTERM: only the first cleans up and ends the process; the other
    # returns (waiting could deadlock on a lock the first one's cleanups need).
    if not _exit_started.acquire(blocking=False):
        return
    run_cleanups()
    os._exit(128 + signum)


def die_with_parent(parent_pid: int) -> None:
    """End this process (after its cleanups) when ``parent_pid`` dies; SIGTERM, too, runs
    the cleanups before exiting. Call it from the main thread.

    On Linux the kernel sends SIGTERM at the parent's death (``PR_SET_PDEATHSIG``; note it
    fires when the parent *thread* that started this process exits); everywhere, a daemon
    thread polls ``os.getppid()`` every :data:`WATCHDOG_SECONDS`.

    The same thread acts on SIGTERM. A Python signal handler runs only when the main thread
    next executes bytecode, and a worker's main thread spends its idle time blocked reading
    the pool's queue: a SIGTERM that arrives just before that read starts, or is delivered to
    another thread, sets a flag nobody looks at and the worker never exits (the pool's
    manager thread then waits on it forever). The C-level handler also writes the signal's
    number to a wakeup pipe, which the watchdog thread selects on.
    """
    wakeup = _signal_wakeup_pipe()
    signal.signal(signal.SIGTERM, _worker_terminate)  # also what the kernel sends below
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)  # this process's libc: prctl(2)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before we could ask
        _worker_terminate(signal.SIGTERM, None)
    thread = threading.Thread(
        target=_watch_parent,
        args=(parent_pid, wakeup),
        name="ilpkit-parent-watchdog",
        daemon=True,
    )
    thread.start()


def _signal_wakeup_pipe() -> int | None:
    """The read end of a pipe the interpreter writes each caught signal's number to."""
    try:
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except (OSError, ValueError):  # not the main thread, or no pipes: the handler alone
        return None
    return read_end


def _watch_parent(parent_pid: int, wakeup: int | None = None) -> None:
    while True:
        if wakeup is None:
            time.sleep(WATCHDOG_SECONDS)
        else:
            ready, _, _ = select.select([wakeup], [], [], WATCHDOG_SECONDS)
            if ready and signal.SIGTERM in os.read(wakeup, 64):
                # the main thread's handler normally runs at once; act only if it does not
                waited = time.monotonic() + SIGNAL_GRACE_SECONDS
                while time.monotonic() < waited and not _exit_started.locked():
                    time.sleep(0.01)
                _worker_terminate(signal.SIGTERM, None)
        if os.getppid() != parent_pid:
            _worker_terminate(signal.SIGTERM, None)
