"""Data carried to workers that cannot see it: by content, unpacked once per worker.

A run's units and members name their data by path (``RunConfig.data.path``), which a worker
on another machine (a Dask cluster without a shared filesystem) cannot open.  When the
executor says it ships data (:class:`ShipsData`, e.g. ``--set executor.ship_data=true`` on
``dask``), the run packs the dataset's files once (:func:`pack`), the executor sends the pack
to every worker once, and the configs the units carry name the data by its SHA-256
(``DataConfig.content``): a worker unpacks it into its cache
(``$ILPKIT_CACHE/shipped/<sha256>``, once per worker and content) and reads it from there
(:func:`local_path`).  Only the files the loaders read are packed: the dataset folder's files
(or a file stem's), and for a folder the folder above's shared files that the Popper and
ilp-experiments layouts read (``bk.pl``, ``bias.pl``, ``aleph-modes.pl``).
"""

from __future__ import annotations

import hashlib
import io
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

from ilpkit.errors import DataError

__all__ = [
    "DataPack",
    "ShipsData",
    "content_ref",
    "local_path",
    "pack",
    "receive",
    "register",
    "run_with_data",
]

SHARED_ABOVE: Final = ("bk.pl", "bias.pl", "aleph-modes.pl")
"""Files of the folder above a dataset folder that its loaders may read."""

_LOCAL: dict[str, Path] = {}
"""This process's shipped data: SHA-256 -> the folder holding the unpacked files."""
_ORIGINAL: dict[str, Path] = {}
"""The caller's own data: SHA-256 -> the data path as given (no unpacking needed)."""


@dataclass(frozen=True)
class DataPack:
    """A dataset's files as one gzip-free tar archive, named by its SHA-256."""

    digest: str
    archive: bytes
    relative: str
    """The data path inside the archive (``data`` for a folder, ``data/train`` for a stem)."""


@runtime_checkable
class ShipsData(Protocol):
    """An executor whose workers may not see the caller's files: ``carry(pack)`` makes the
    pack reach every worker before its units run (``ships_data`` says whether to)."""

    ships_data: bool

    def carry(self, data: DataPack) -> None: ...


def pack(path: Path) -> DataPack:
    """The files under the dataset at ``path`` (a folder, or a file stem's ``stem.*``) as a
    :class:`DataPack`; deterministic (sorted names, no times), so the same data give the
    same digest wherever it is packed."""
    path = Path(path)
    if path.is_dir():
        base = path
        files = [p for p in sorted(base.rglob("*")) if p.is_file()]
        above = [base.parent / n for n in SHARED_ABOVE if (base.parent / n).is_file()]
        relative = "data/set"
    else:
        base = path.parent
        files = sorted(p for p in base.glob(path.name + ".*") if p.is_file())
        above = []
        relative = f"data/{path.name}"
    if not files:
        raise DataError(f"{path}: no data files to ship to the workers")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        members = [(f, "data/set/" + f.relative_to(base).as_posix()) for f in files]
        if not path.is_dir():
            members = [(f, "data/" + f.name) for f in files]
        members += [(f, "data/" + f.name) for f in above]
        for source, name in members:
            data = source.read_bytes()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    archive = buffer.getvalue()
    return DataPack(hashlib.sha256(archive).hexdigest(), archive, relative)


def _cache_root() -> Path:
    from ilpkit.core.outpaths import cache_root

    return cache_root() / "shipped"


def receive(data: DataPack) -> Path:
    """Unpack ``data`` into this worker's cache (once per content) and register it; the
    path to load from."""
    known = _LOCAL.get(data.digest)
    if known is not None:
        return known / data.relative
    if hashlib.sha256(data.archive).hexdigest() != data.digest:
        raise DataError("shipped data arrived damaged (its SHA-256 does not match)")
    target = _cache_root() / data.digest
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{data.digest[:12]}-", dir=target.parent))
        with tarfile.open(fileobj=io.BytesIO(data.archive), mode="r") as tar:
            tar.extractall(scratch, filter="data")
        try:
            scratch.rename(target)  # atomic: a worker beside us may have done it already
        except OSError:
            import shutil

            shutil.rmtree(scratch, ignore_errors=True)
    _LOCAL[data.digest] = target
    return target / data.relative


def register(data: DataPack, path: Path) -> str:
    """Say that ``data`` is the caller's own data at ``path`` (read from there here); the
    content reference configs carry (``DataConfig.content``)."""
    _ORIGINAL[data.digest] = Path(path)
    return content_ref(data)


def content_ref(data: DataPack) -> str:
    """``sha256:<digest>:<relative>``: what a config carries instead of a usable path."""
    return f"sha256:{data.digest}:{data.relative}"


def local_path(content: str) -> Path:
    """Where the data a config names by ``content`` are in this process (the caller's own
    path, or the worker's unpacked copy)."""
    try:
        kind, digest, relative = content.split(":", 2)
    except ValueError:
        raise DataError(f"data.content {content!r}: expected sha256:<digest>:<path>") from None
    if kind != "sha256":
        raise DataError(f"data.content {content!r}: expected sha256:<digest>:<path>")
    original = _ORIGINAL.get(digest)
    if original is not None:
        return original
    known = _LOCAL.get(digest)
    if known is None:
        raise DataError(
            f"shipped data {digest[:12]}... has not reached this worker (its executor must "
            "carry the run's data)"
        )
    return known / relative


def run_with_data(unit: Any, fn: Any, data: DataPack) -> Any:
    """``fn(unit)`` after ``data`` is unpacked here (what a shipping executor runs)."""
    receive(data)
    return fn(unit)
