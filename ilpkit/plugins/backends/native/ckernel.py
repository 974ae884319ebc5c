"""The coverage kernel compiled from C (``cover_rows.c``), built once per machine and kept in
ilpkit's cache.

Why: the numba kernel costs every process that uses it about 0.6 CPU s and 130 MB (numba,
llvmlite and the LLVM code they load), more than Aleph's whole run on many data sets
(issue 32).  The same function in C, compiled as a small CPython extension, loads in
milliseconds and adds about 1 MB.  Building needs a C compiler and the interpreter's headers;
where either is missing (a minimal Debian has no ``gcc``), :func:`load` says why and
:mod:`.kernels` uses numba as before.  ``ILPKIT_KERNEL=numba`` (or ``python``) chooses the
other kernels.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

SOURCE = Path(__file__).with_name("cover_rows.c")
MODULE = "_ilpkit_cover_rows"


def cache_dir() -> Path:
    """``$ILPKIT_CACHE/ckernel`` (default ``~/.cache/ilpkit/ckernel``)."""
    from ilpkit.core.outpaths import cache_root

    return cache_root() / "ckernel"


def _compiler() -> list[str] | None:
    """The C compiler Python was built with (``CC``, else ``cc``/``gcc``/``clang``), or None."""
    configured = os.environ.get("CC") or sysconfig.get_config_var("CC") or ""
    for words in (configured.split(), ["cc"], ["gcc"], ["clang"]):
        if words and shutil.which(words[0]):
            return words
    return None


def _target(compiler: list[str]) -> Path:
    """Where the module built from the kernel's source by ``compiler`` for this interpreter
    lives: the name hashes all three, so an edited kernel or another Python builds anew."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    digest = _digest(" ".join(compiler))
    return cache_dir() / f"{MODULE}-{digest}{suffix}"


@functools.lru_cache(maxsize=4)
def _digest(compiler: str) -> str:
    """The build's name part: read and hashed once per process (every native backend with
    ``kernel=auto`` asks :func:`built`)."""
    h = hashlib.sha256(SOURCE.read_bytes())
    h.update(compiler.encode())
    h.update(sys.version.encode())
    h.update(sysconfig.get_paths()["include"].encode())
    return h.hexdigest()[:16]


def built() -> bool:
    """Whether the cache holds this kernel's build for this interpreter (no compiling)."""
    compiler = _compiler()
    return compiler is not None and _target(compiler).is_file()


def build() -> Path:
    """The compiled module's path, compiling it first if the cache does not hold it.

    Raises ``OSError`` (no compiler, no headers, a failed compile: the message says which)."""
    compiler = _compiler()
    if compiler is None:
        raise OSError("no C compiler (cc, gcc or clang) on PATH")
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        raise OSError(f"no Python.h in {include} (Debian: apt install python3-dev)")
    target = _target(compiler)
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(fd)
    command = [
        *compiler, "-O2", "-shared", "-fPIC", "-fno-strict-aliasing", "-std=c99",
        f"-I{include}", str(SOURCE), "-o", tmp, "-lm",
    ]  # fmt: skip
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise OSError(f"{' '.join(command)} failed:\n{proc.stderr[-2000:]}")
        os.replace(tmp, target)  # atomic: a process building beside this one reads either
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def load() -> tuple[Any, str | None]:
    """``(cover_rows, None)`` from the compiled module, or ``(None, why not)``."""
    module, why = load_module()
    return (None, why) if module is None else (module.cover_rows, None)


def load_module() -> tuple[Any, str | None]:
    """``(module, None)``: the compiled module (``cover_rows``, ``known_rows``), or
    ``(None, why not)``."""
    try:
        path = build()
        spec = importlib.util.spec_from_file_location(MODULE, path)
        if spec is None or spec.loader is None:  # pragma: no cover - importlib changed
            return None, f"cannot load {path}"
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except (OSError, ImportError, subprocess.SubprocessError) as exc:
        return None, str(exc)
    return module, None
