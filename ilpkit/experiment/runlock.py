"""One owner per run directory: an exclusive lock on ``RUN_DIR/.lock``.

Why: two runs started on the same ``--out`` within milliseconds both passed the "does
config.toml exist?" check and wrote a directory mixing one's config with the other's units.
The lock is an ``flock`` taken before the first write and held until the run ends; the kernel
releases it when its holder dies in any way (even ``kill -9``), so a lock file left by a dead
run is *stale* by construction: the next run takes it over and says so. The file holds the
holder's pid, host and start time, for the message that refuses a second run.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import socket
import time
from pathlib import Path
from types import TracebackType

from ilpkit.errors import ConfigError

log = logging.getLogger(__name__)

LOCK_NAME = ".lock"


class RunLocked(ConfigError):
    """Another process is running in this run directory."""


class RunLock:
    """``with RunLock(path):`` -- create ``path`` if needed and own it until the block ends.

    A directory this lock created and that is still empty at release is removed again, so
    a run refused before its first write leaves nothing behind.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.file = self.path / LOCK_NAME
        self.taken_over: str | None = None
        """The stale holder's description when a dead run's lock was taken over."""
        self._fd: int | None = None
        self._created = False

    def acquire(self) -> None:
        if self._fd is not None:
            raise RuntimeError("this RunLock is already held")
        try:
            self.path.mkdir(parents=True)
            self._created = True
        except FileExistsError:
            pass
        while True:
            fd = os.open(self.file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_holder(fd, tries=20)
                os.close(fd)
                self._remove_if_created()
                raise RunLocked(
                    f"{self.path} is in use by another ilpkit run ({holder or 'pid unknown'}); "
                    "wait for it to finish (then --resume it), or choose another --out"
                ) from None
            if _same_file(fd, self.file):
                break
            os.close(fd)  # the holder removed that file on release: lock the new one
        previous = _read_holder(fd)
        if previous:
            self.taken_over = previous
            log.warning(
                "%s: taking over the lock of a run that is no longer running (%s)",
                self.path,
                previous,
            )
        os.ftruncate(fd, 0)
        when = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}, since {when}\n".encode())
        self._fd = fd

    def release(self) -> None:
        """Remove the lock file (while still holding it) and unlock."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            self.file.unlink()
        os.close(fd)
        self._remove_if_created()

    def _remove_if_created(self) -> None:
        if self._created:
            with contextlib.suppress(OSError):  # not empty: the run wrote something
                self.path.rmdir()

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _read_holder(fd: int, tries: int = 1) -> str:
    """The holder line of a lock file (``tries`` times 5 ms: a new holder writes it just
    after taking the lock)."""
    for _ in range(tries):
        text = os.pread(fd, 400, 0).decode("utf-8", "replace").strip()
        if text:
            return text
        time.sleep(0.005)
    return ""


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    own = os.fstat(fd)
    return (own.st_dev, own.st_ino) == (st.st_dev, st.st_ino)
