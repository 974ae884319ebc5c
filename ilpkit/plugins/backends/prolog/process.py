"""One Prolog engine as a child process: start, request/answer lines, kill.

Why a class of its own: the backend must never leave an engine running.  Every child is
started in its own session (so a Ctrl-C meant for Python does not drop the engine into its
debugger, and the whole process group -- GNU Prolog's compiler included -- can be killed),
and a :func:`weakref.finalize` kills it and removes its temporary directory when the owner
is garbage-collected or the interpreter exits.  An engine whose parent dies sees end of file
on its input and halts; a busy one is killed by the kernel (``PR_SET_PDEATHSIG``, set by the
launcher of :mod:`~ilpkit.plugins.backends.prolog.fence`, which also puts up the operating-system
fence: see docs/security.md).
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import time
import weakref
from collections.abc import Callable
from pathlib import Path

from ilpkit.core import lifecycle
from ilpkit.errors import IlpkitError
from ilpkit.plugins.backends.prolog.fence import (
    FENCE_EXIT,
    SCRATCH,
    FenceSpec,
    launcher_command,
    launcher_usable,
)


class EngineDied(IlpkitError):
    """The engine exited (crashed, or was killed) while ilpkit was waiting for it."""


class EngineTimeout(IlpkitError):
    """The engine did not answer within the deadline."""


class EngineStopped(IlpkitError):
    """A stop was asked for (learn's first Ctrl-C) while the engine was still answering."""


STOP_POLL = 0.2
"""Seconds between checks for a stop while waiting for an answer."""


class EngineProcess:
    """A running engine with its temporary directory; lines in, lines out."""

    def __init__(
        self,
        command: list[str],
        workdir: Path,
        *,
        address_space_mb: int | None = None,
        env: dict[str, str] | None = None,
        fence: FenceSpec | None = None,
    ) -> None:
        """Start ``command`` in ``workdir`` through the launcher
        (:func:`~ilpkit.plugins.backends.prolog.fence.launcher_command`).

        ``address_space_mb`` caps the engine's virtual memory (``RLIMIT_AS``): past it
        allocations fail and the engine stops, instead of taking the machine's memory.
        ``fence``: what the engine may touch (None: no fence, only the rlimits and death
        with ilpkit); a fenced engine writes only under ``workdir/scratch``, its ``TMPDIR``."""
        self.workdir = workdir
        self.stderr_path = workdir / "stderr.txt"
        self.fenced = fence is not None and fence.landlock
        env = dict(env or {})
        if fence is not None:
            scratch = workdir / SCRATCH
            scratch.mkdir(exist_ok=True)
            for name in ("TMPDIR", "TMP", "TEMP"):  # SWI-Prolog's tmp_dir reads TMP/TEMP
                env.setdefault(name, str(scratch))
        argv = list(command)
        if launcher_usable():
            exe = shutil.which(argv[0]) or argv[0]
            argv = launcher_command(
                [os.path.abspath(exe), *argv[1:]], address_space_mb=address_space_mb, spec=fence
            )
        else:  # no launcher (not POSIX): at most the shell's ulimit
            argv = _limited(argv, address_space_mb)
        with open(self.stderr_path, "wb") as err:
            self.popen = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                cwd=workdir,
                start_new_session=True,
                env={**os.environ, **env} if env else None,
            )
        self._buffer = bytearray()
        self._finalizer = lifecycle.track(weakref.finalize(self, _terminate, self.popen))

    @staticmethod
    def new_workdir() -> Path:
        """``ilpkit-prolog-PID-XXXX``: removed at exit and on signals; after a kill -9, by
        the next ilpkit process (see :func:`ilpkit.core.lifecycle.temp_dir`)."""
        return lifecycle.temp_dir("prolog")

    @property
    def pid(self) -> int:
        return self.popen.pid

    def rss_mb(self) -> float | None:
        """Resident memory of the engine in MB (Linux ``/proc``), None when unknown."""
        try:
            with open(f"/proc/{self.popen.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except (OSError, ValueError, IndexError):
            return None
        return None

    def alive(self) -> bool:
        return self.popen.poll() is None

    def send(self, text: str) -> None:
        """Write one request (text ending in ``.\\n``)."""
        stdin = self.popen.stdin
        assert stdin is not None
        try:
            stdin.write(text.encode("utf-8"))
            stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineDied(self.describe_exit()) from None

    def read_line(self, timeout: float | None, stop: Callable[[], str | None] | None = None) -> str:
        """The next line of output; :class:`EngineTimeout` after ``timeout`` seconds,
        :class:`EngineStopped` when ``stop()`` says why the wait should end."""
        stdout = self.popen.stdout
        assert stdout is not None
        fd = stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        buf = self._buffer
        while True:
            i = buf.find(b"\n")
            if i >= 0:
                line = bytes(buf[:i])
                del buf[: i + 1]
                return line.decode("utf-8", "replace")
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if stop is not None:
                why = stop()
                if why is not None:
                    raise EngineStopped(why)
                wait = STOP_POLL if wait is None else min(wait, STOP_POLL)
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                if deadline is None or time.monotonic() < deadline:
                    continue  # a poll for a stop, not the deadline
                raise EngineTimeout(f"no answer within {timeout} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.popen.wait()
                raise EngineDied(self.describe_exit())
            buf += chunk

    def stderr_tail(self, limit: int = 2000) -> str:
        try:
            data = self.stderr_path.read_bytes()
        except OSError:
            return ""
        return data[-limit:].decode("utf-8", "replace").strip()

    def describe_exit(self) -> str:
        code = self.popen.poll()
        status = "is still running" if code is None else f"exited with status {code}"
        if code == FENCE_EXIT:
            status += " (its launcher could not put up the fence)"
        tail = self.stderr_tail()
        return f"the engine {status}" + (f"; its last messages:\n{tail}" if tail else "")

    def kill(self) -> None:
        """Kill the engine (and anything it started) and wait for it."""
        self._finalizer()

    def remove_workdir(self) -> None:
        lifecycle.remove_temp_dir(self.workdir)


def _limited(command: list[str], mb: int | None) -> list[str]:
    """``command`` started through ``sh -c 'ulimit -v KB; exec ...'`` so that its address
    space is capped at ``mb`` MB; unchanged when ``mb`` is None or there is no ``/bin/sh``.
    Only where the launcher cannot run (it sets ``RLIMIT_AS`` itself)."""
    if mb is None or not os.path.exists("/bin/sh"):
        return command
    return ["/bin/sh", "-c", f'ulimit -v {mb * 1024} && exec "$0" "$@"', *command]


def _terminate(popen: subprocess.Popen[bytes]) -> None:
    if popen.poll() is None:
        try:
            os.killpg(popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            popen.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):  # a SIGKILLed child exits at once
        popen.wait(timeout=10)
    for stream in (popen.stdin, popen.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
