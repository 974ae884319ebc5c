"""The operating-system fence around a Prolog engine process (issue 28).

ilpkit's static check (:mod:`ilpkit.core.safety`) keeps data from calling ``shell/1`` and its
kind; this module is the second wall, for a goal that gets past the check anyway.  Every
engine the subprocess backend starts goes through a *launcher*: ``python -I -S -c
LAUNCHER ...``, a few lines of self-contained Python (:data:`LAUNCHER`, which imports nothing
of ilpkit) that, in the child process, before it ``exec``\\ s the engine:

- caps the address space (``RLIMIT_AS``, the backend's memory limit) and forbids core dumps;
- asks the kernel to SIGKILL the engine when ilpkit dies (``PR_SET_PDEATHSIG``), then checks
  that its parent is still the ilpkit process that started it (else it exits at once);
- gives up every capability (bounding set dropped, ``SECBIT_NOROOT``: run as root, the
  engine still has none) and sets ``PR_SET_NO_NEW_PRIVS``;
- applies a Landlock ruleset (Linux 5.13+): the engine may execute only its own binary, its
  ELF interpreter and the helpers it needs (GNU Prolog's compiler ``pl2wam``); read only its
  home, the system libraries, a few single files (``/etc/ld.so.cache``, ``/etc/localtime``,
  ``/dev/null``, ...), the task's data folders and its work folder; write only under
  ``WORKDIR/scratch`` (also its ``TMPDIR``); with Landlock ABI 4+ it may not bind or connect
  TCP sockets; with ABI 6+ it may not signal or reach (abstract unix sockets) processes
  outside its fence;
- installs a seccomp filter: ``socket(2)`` fails (no UDP, no unix sockets either), a foreign
  system-call ABI (32-bit calls from a 64-bit engine) fails, and, for an engine that needs
  no helper process (SWI-Prolog, YAP), creating a process fails (threads are allowed).

Where Landlock is missing (an older kernel, another OS) the fence degrades to the rest (rlimits,
no capabilities, NO_NEW_PRIVS, PDEATHSIG, seccomp on Linux) and one warning says that the
filesystem fence is off; ``fence="require"`` refuses to start an engine without it.
"""

from __future__ import annotations

import ctypes
import logging
import os
import struct
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)

FenceMode = Literal["auto", "require", "off"]

SCRATCH = "scratch"
"""The folder, inside the engine's work folder, where a fenced engine may write."""

FENCE_EXIT = 125
"""Exit status of a launcher that could not put the fence up (its reason is on stderr)."""

HELPERS: dict[str, tuple[str, ...]] = {"gprolog": ("pl2wam",)}
"""Programs an engine runs by itself, found beside its binary (the resolved one): GNU
Prolog's ``--consult-file`` compiles the server with ``pl2wam`` in a child process."""

SYSTEM_READ_DIRS = ("/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/lib32")
"""Shared libraries, locales, gconv modules (``/lib`` is ``/usr/lib`` on merged-usr systems)."""

SYSTEM_READ_FILES = (
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/usr/share/locale/locale.alias",
    "/sys/devices/system/cpu/online",
    "/sys/devices/system/cpu/possible",
    "/dev/urandom",
    "/proc/self/statm",
)
"""Single files the engines open (seen with ``strace -f``), nothing else of ``/etc``:
``/etc/passwd`` stays unreadable.  ``/proc/self/statm`` is the engine's own (the launcher
opens it and then execs, keeping its process id): the SWI-Prolog server's memory bound reads
it."""

DEVICE_FILES = ("/dev/null",)
"""Read, written and ``ioctl``-ed."""

# The launcher: argv = [PARENT_PID, AS_MB|-, FLAGS, (KIND PATH)*, --, ENGINE ARGV...].
# FLAGS: d = PDEATHSIG, c = no capabilities and NO_NEW_PRIVS, L = Landlock (fail without
# it), s = seccomp (no sockets), p = seccomp (no new processes).  KIND: x = execute,
# r = read, w = write (a folder), v = device file.  Exit status 125 with a message on
# stderr when a step it was asked for fails.  Kept dependency-free: it runs with -I -S,
# before ilpkit could be imported.
LAUNCHER = r"""
import os, sys, resource
A = sys.argv
def die(why):
    os.write(2, ('ilpkit fence: ' + why + '\n').encode())
    os._exit(125)
ppid, mb, flags = int(A[1]), A[2], A[3]
i, rules = 4, []
while A[i] != '--':
    rules.append((A[i], A[i + 1]))
    i += 2
cmd = A[i + 1:]
if mb != '-':
    n = int(mb) << 20
    resource.setrlimit(resource.RLIMIT_AS, (n, n))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
if sys.platform.startswith('linux'):
    import ctypes
    C = ctypes.CDLL(None, use_errno=True)
    C.syscall.restype = ctypes.c_long
    U64 = ctypes.c_uint64
    def prctl(*a):
        return C.prctl(*[ctypes.c_ulong(x) for x in a])
    if 'd' in flags:
        prctl(1, 9, 0, 0, 0)
        if os.getppid() != ppid:
            os._exit(125)
    if 'c' in flags:
        for cap in range(64):
            if prctl(24, cap, 0, 0, 0) != 0:
                break
        prctl(47, 4, 0, 0, 0)
        prctl(28, 3, 0, 0, 0)
        if prctl(38, 1, 0, 0, 0) != 0:
            die('PR_SET_NO_NEW_PRIVS failed')
    if 'L' in flags:
        abi = C.syscall(444, None, 0, 1)
        if abi < 1:
            die('Landlock is not available (errno %d)' % ctypes.get_errno())
        fs = (1 << 13) - 1
        for need, bit in ((2, 13), (3, 14), (5, 15)):
            if abi >= need:
                fs |= 1 << bit
        attr = (U64 * 3)(fs, 3 if abi >= 4 else 0, 3 if abi >= 6 else 0)
        size = 24 if abi >= 6 else 16 if abi >= 4 else 8
        rs = C.syscall(444, attr, size, 0)
        if rs < 0:
            die('landlock_create_ruleset failed (errno %d)' % ctypes.get_errno())
        class Beneath(ctypes.Structure):
            _pack_ = 1
            _fields_ = [('allowed', U64), ('fd', ctypes.c_int32)]
        X, W, R, D, T, IO = 1, 2, 4, 8, 1 << 14, 1 << 15
        FILE = X | W | R | T | IO
        WRITE = W | R | D | 16 | 32 | 128 | 256 | 1024 | 4096 | (1 << 13) | T
        for kind, path in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            is_dir = os.path.isdir(path)
            want = {'x': X | R, 'r': R | D, 'w': WRITE, 'v': R | W | T | IO}[kind] & fs
            if not is_dir:
                want &= FILE
            if C.syscall(445, rs, 1, ctypes.byref(Beneath(want, fd)), 0) != 0:
                die('landlock_add_rule %s failed (errno %d)' % (path, ctypes.get_errno()))
            os.close(fd)
        if C.syscall(446, rs, 0) != 0:
            die('landlock_restrict_self failed (errno %d)' % ctypes.get_errno())
        os.close(rs)
    if 's' in flags or 'p' in flags:
        m = os.uname().machine
        arch, nrs = {
            'x86_64': (0xC000003E, (41, 56, 57, 58, 435)),
            'aarch64': (0xC00000B7, (198, 220, -1, -1, 435)),
        }.get(m, (0, ()))
        if arch:
            socket_nr, clone_nr, fork_nr, vfork_nr, clone3_nr = nrs
            class Insn(ctypes.Structure):
                _fields_ = [('code', ctypes.c_uint16), ('jt', ctypes.c_uint8),
                            ('jf', ctypes.c_uint8), ('k', ctypes.c_uint32)]
            LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
            ALLOW, EACCES, ENOSYS = 0x7FFF0000, 0x50000 | 13, 0x50000 | 38
            p = [Insn(LD, 0, 0, 4), Insn(JEQ, 1, 0, arch), Insn(RET, 0, 0, EACCES),
                 Insn(LD, 0, 0, 0), Insn(JGE, 0, 1, 0x40000000), Insn(RET, 0, 0, EACCES),
                 Insn(JEQ, 0, 1, socket_nr), Insn(RET, 0, 0, EACCES)]
            if 'p' in flags:
                for nr in (fork_nr, vfork_nr):
                    if nr >= 0:
                        p += [Insn(JEQ, 0, 1, nr), Insn(RET, 0, 0, EACCES)]
                p += [Insn(JEQ, 0, 1, clone3_nr), Insn(RET, 0, 0, ENOSYS),
                      Insn(JEQ, 0, 3, clone_nr), Insn(LD, 0, 0, 16),
                      Insn(JSET, 1, 0, 0x10000), Insn(RET, 0, 0, EACCES)]
            p.append(Insn(RET, 0, 0, ALLOW))
            prog = (Insn * len(p))(*p)
            class Fprog(ctypes.Structure):
                _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]
            fp = Fprog(len(p), ctypes.cast(prog, ctypes.c_void_p))
            if C.prctl(22, 2, ctypes.byref(fp), 0, 0) != 0 and 'L' in flags:
                die('seccomp filter refused (errno %d)' % ctypes.get_errno())
try:
    os.execv(cmd[0], cmd)
except OSError as e:
    die('cannot run %s: %s' % (cmd[0], e))
"""


class FenceUnavailable(OSError):
    """``fence="require"`` and the filesystem fence cannot be put up here."""


@dataclass
class FenceSpec:
    """What one engine process may touch (paths as given; the launcher opens each)."""

    execute: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    write: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    landlock: bool = True
    no_processes: bool = True

    def args(self) -> list[str]:
        out: list[str] = []
        for kind, paths in (
            ("x", self.execute),
            ("r", self.read),
            ("w", self.write),
            ("v", self.devices),
        ):
            for p in dict.fromkeys(paths):  # unique, in order
                out += [kind, p]
        return out


_abi: int | None = None
_warned = False
_lock = threading.Lock()


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none; cached)."""
    global _abi
    if _abi is None:
        _abi = 0
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                libc.syscall.restype = ctypes.c_long
                _abi = max(0, int(libc.syscall(444, None, 0, 1)))
            except (OSError, AttributeError):
                _abi = 0
    return _abi


def elf_interpreter(path: str) -> str | None:
    """The ELF interpreter (``PT_INTERP``) of the executable ``path``; None for a static or
    non-ELF file."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if head[:4] != b"\x7fELF":
                return None
            wide, order = head[4] == 2, "<" if head[5] == 1 else ">"
            if wide:
                phoff, phentsize, phnum = (
                    struct.unpack_from(order + "Q", head, 32)[0],
                    *struct.unpack_from(order + "HH", head, 54),
                )
            else:
                phoff, phentsize, phnum = (
                    struct.unpack_from(order + "I", head, 28)[0],
                    *struct.unpack_from(order + "HH", head, 42),
                )
            for k in range(phnum):
                f.seek(phoff + k * phentsize)
                ph = f.read(phentsize)
                if struct.unpack_from(order + "I", ph, 0)[0] != 3:  # PT_INTERP
                    continue
                if wide:
                    offset, size = (
                        struct.unpack_from(order + "Q", ph, 8)[0],
                        struct.unpack_from(order + "Q", ph, 32)[0],
                    )
                else:
                    offset, size = (
                        struct.unpack_from(order + "II", ph, 4)[0],
                        struct.unpack_from(order + "I", ph, 16)[0],
                    )
                f.seek(offset)
                return f.read(size).rstrip(b"\0").decode()
    except (OSError, struct.error, UnicodeDecodeError):
        return None
    return None


SYSTEM_PREFIXES = ("/", "/usr", "/usr/local")


def engine_home(binary: str) -> list[str]:
    """The installation folders of an engine binary (resolved): the folder holding the
    ``bin`` folder it lives in (``/usr/lib/swi-prolog/bin/x86_64-linux/swipl`` ->
    ``/usr/lib/swi-prolog``); for a binary of a system prefix (``/usr/local/bin/yap``) the
    prefix's ``lib`` and ``share`` only; its own folder when no ``bin`` is on the way."""
    parts = Path(binary).parent.parts
    if "bin" not in parts:
        return [str(Path(binary).parent)]
    k = len(parts) - 1 - parts[::-1].index("bin")
    home = str(Path(*parts[:k]))
    if home in SYSTEM_PREFIXES:
        return [os.path.join(home, "lib"), os.path.join(home, "share")]
    return [home]


def engine_spec(
    executable: str,
    engine: str,
    workdir: Path,
    data_dirs: Iterable[str | os.PathLike[str]] = (),
) -> FenceSpec:
    """The fence of ``engine`` run from ``executable`` in ``workdir``, reading ``data_dirs``.

    Raises :class:`FenceUnavailable` when the executable is not an ELF binary (a wrapper
    script could exec anything: the fence cannot know what to allow)."""
    binary = os.path.realpath(executable)
    interp = elf_interpreter(binary)
    if interp is None:
        with open(binary, "rb") as f:
            if f.read(2) == b"#!":
                raise FenceUnavailable(
                    f"{executable} is a script ({binary}); the fence needs the engine's own "
                    "binary (set backend.executable to it)"
                )
    spec = FenceSpec(no_processes=engine not in HELPERS)
    spec.execute.append(binary)
    if interp is not None:
        spec.execute.append(os.path.realpath(interp))
    for helper in HELPERS.get(engine, ()):
        found = os.path.join(os.path.dirname(binary), helper)
        if os.path.exists(found):
            spec.execute.append(os.path.realpath(found))
    spec.read += engine_home(binary)
    spec.read += [d for d in SYSTEM_READ_DIRS if os.path.isdir(d)]
    spec.read += [f for f in SYSTEM_READ_FILES if os.path.exists(f)]
    spec.read += [os.fspath(d) for d in data_dirs if os.path.isdir(d)]
    spec.read.append(str(workdir))
    spec.devices += [f for f in DEVICE_FILES if os.path.exists(f)]
    spec.write.append(str(workdir / SCRATCH))
    return spec


def decide(mode: FenceMode) -> bool:
    """Whether the filesystem fence goes up under ``mode`` here: ``require`` raises
    :class:`FenceUnavailable` without Landlock, ``auto`` logs one warning."""
    global _warned
    if mode == "off":
        return False
    if landlock_abi() > 0:
        return True
    why = (
        "the kernel has no Landlock"
        if sys.platform.startswith("linux")
        else f"Landlock is Linux only (this is {sys.platform})"
    )
    if mode == "require":
        raise FenceUnavailable(f"the engine's filesystem fence is required, but {why}")
    with _lock:
        if not _warned:
            _warned = True
            log.warning(
                "%s: the Prolog engines' filesystem fence is off (they still run without "
                "capabilities, with rlimits and die with ilpkit); see docs/security.md",
                why,
            )
    return False


def fence_for(
    mode: FenceMode,
    executable: str,
    engine: str,
    workdir: Path,
    data_dirs: Iterable[str | os.PathLike[str]] = (),
) -> FenceSpec | None:
    """The fence of one engine under ``mode`` (None: ``off``); see :func:`decide` and
    :func:`engine_spec`."""
    if mode == "off" or not launcher_usable():
        if mode == "require":
            raise FenceUnavailable(f"the engine's fence is required, but this is {sys.platform}")
        return None
    landlock = decide(mode)
    try:
        spec = engine_spec(executable, engine, workdir, data_dirs)
    except FenceUnavailable as exc:
        if mode == "require":
            raise
        log.warning("%s: the filesystem fence is off for this engine", exc)
        spec = FenceSpec(no_processes=engine not in HELPERS)
        landlock = False
    spec.landlock = landlock
    return spec


def launcher_command(
    command: Sequence[str],
    *,
    address_space_mb: int | None,
    spec: FenceSpec | None,
    parent_pid: int | None = None,
) -> list[str]:
    """``command`` started through the launcher (``command[0]`` must be a path).

    ``spec`` None (``fence="off"``): rlimits and PDEATHSIG only.  Otherwise also no
    capabilities, NO_NEW_PRIVS and the seccomp filter; and Landlock if ``spec.landlock``."""
    ppid = os.getpid() if parent_pid is None else parent_pid
    flags = "d"
    rules: list[str] = []
    if spec is not None:
        flags += "cs" + ("p" if spec.no_processes else "")
        if spec.landlock:
            flags += "L"
            rules = spec.args()
    mb = "-" if address_space_mb is None else str(int(address_space_mb))
    return [
        sys.executable,
        "-I",
        "-S",
        "-c",
        LAUNCHER,
        str(ppid),
        mb,
        flags,
        *rules,
        "--",
        *command,
    ]


def launcher_usable() -> bool:
    """Whether the launcher can run here (a POSIX system with an interpreter path)."""
    return os.name == "posix" and bool(sys.executable)
