"""The predicate names each Prolog engine resolves by itself, read off the engines.

Why: a data file that defines or declares (``dynamic``, ``table``, ``discontiguous``,
``multifile``) a name the engine already has can make the engine run its own predicate where
ilpkit's checker saw the program's: ``:- dynamic copy_file/2.`` followed by a call of
``copy_file/2`` made SWI-Prolog autoload its library predicate and copy files.  ilpkit refuses
every such name (see :mod:`ilpkit.core.safety`), on every backend, so the lists must be the
engines' own, not typed by hand: ``swi.pl`` and ``gprolog.pl`` beside this file list them,
:func:`generate` runs them, and the tests compare the shipped lists with what the installed
engines print.

Shipped lists (``<engine>-<version>.tsv``: ``kind<TAB>name<TAB>arity`` per line):

* ``swi-9.0.4`` (Debian 12's SWI-Prolog; the swipl subprocess and pyswip backends) and
  ``swi-9.2.9`` (the janus backend): ``system`` built-ins, ``library`` predicates the
  autoloader loads when called, ``hook`` predicates of module ``user`` the engine calls by
  itself (``message_hook/3``, ``thread_message_hook/3``, ...);
* ``gprolog-1.4.5`` (Debian 12's GNU Prolog): its built-ins, ``popen/3`` and ``spawn/2``
  among them.

YAP is not packaged here: its names are not listed, and its backend relies on the union of
the others plus the server's run-time clash check (docs/security.md).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Final, Literal

__all__ = [
    "ENGINE_LISTS",
    "Kind",
    "engine_names",
    "generate",
    "owners",
    "read_list",
    "server_calls",
    "why_reserved",
]

Indicator = tuple[str, int]
Kind = Literal["system", "library", "hook", "server"]

ENGINE_LISTS: Final = {
    "swi-9.0.4": "SWI-Prolog 9.0.4",
    "swi-9.2.9": "SWI-Prolog 9.2.9",
    "gprolog-1.4.5": "GNU Prolog 1.4.5",
}
"""Shipped lists: file stem -> the engine and version they were read from."""

_KIND_TEXT: Final = {
    "system": "a built-in of {engines}",
    "library": "a library predicate {engines} loads by itself when it is called",
    "hook": "a hook {engines} calls by itself",
}


@cache
def read_list(stem: str) -> Mapping[Indicator, Kind]:
    """The shipped list ``stem`` (a key of :data:`ENGINE_LISTS`), read once per process."""
    text = resources.files(__package__).joinpath(f"{stem}.tsv").read_text(encoding="utf-8")
    return MappingProxyType(parse(text))


_RANK: Final = {"system": 0, "hook": 1, "library": 2, "server": 3}


def parse(text: str) -> dict[Indicator, Kind]:
    """``kind<TAB>name<TAB>arity`` lines (as the listing scripts print) into a mapping; a
    name listed under several kinds keeps the first of system, hook, library."""
    out: dict[Indicator, Kind] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        kind, name, arity = line.split("\t")
        rank = _RANK.get(kind)
        if rank is None:
            raise ValueError(f"unknown kind {kind!r} in engine list line {line!r}")
        key = (name, int(arity))
        old = out.get(key)
        if old is None or rank < _RANK[old]:
            out[key] = kind  # type: ignore[assignment]
    return out


def engine_names() -> dict[Indicator, str]:
    """Every name some engine resolves by itself, with why (``"a built-in of SWI-Prolog
    9.0.4 and SWI-Prolog 9.2.9"``), over all shipped lists."""
    keys = sorted({key for stem in ENGINE_LISTS for key in read_list(stem)})
    return {key: why for key in keys if (why := why_reserved(key)) is not None}


def why_reserved(key: Indicator) -> str | None:
    """What ``key`` is to the engines (None when no engine has it): its strongest kind (a
    built-in before a hook before a library predicate) with the engines that have it so."""
    found = owners(key)
    for wanted in ("system", "hook", "library"):
        engines = [ENGINE_LISTS[stem] for stem, kind in found if kind == wanted]
        if engines:
            return _KIND_TEXT[wanted].format(engines=" and ".join(engines))
    return None


@lru_cache(maxsize=4096)
def owners(key: Indicator) -> tuple[tuple[str, Kind], ...]:
    """``(engine list, kind)`` for every shipped list that has ``key`` (its strongest kind
    there)."""
    name, arity = key
    found: list[tuple[str, Kind]] = []
    for stem in ENGINE_LISTS:
        text = _text(stem)
        if f"\t{name}\t{arity}\n" not in text:  # one scan rules most names out
            continue
        for kind in _KINDS:
            if f"\n{kind}\t{name}\t{arity}\n" in text:
                found.append((stem, kind))
                break
    return tuple(found)


_KINDS: Final[tuple[Kind, ...]] = ("system", "hook", "library", "server")


@cache
def _text(stem: str) -> str:
    """The list ``stem`` as one string with a newline before and after every line: looking
    up the few names a task has in it costs less than parsing its thousands of lines (a run's
    start-up pays this on every command)."""
    text = resources.files(__package__).joinpath(f"{stem}.tsv").read_text(encoding="utf-8")
    return "\n" + text.replace("\r\n", "\n").strip("\n") + "\n"


@cache
def server_calls() -> frozenset[Indicator]:
    """The predicates ilpkit's Prolog server calls that are not its own ``ilpkit_*`` ones
    (``server-calls.tsv``, read off the server's source by
    :mod:`ilpkit.plugins.backends.prolog.server_calls`, tested equal)."""
    return frozenset(read_list("server-calls"))


def generate(stem: str, executable: str, *, timeout: float = 120) -> str:
    """Run the listing script of ``stem``'s engine with ``executable``; return the sorted
    lines it prints (the content of ``stem.tsv``)."""
    here = Path(str(resources.files(__package__)))
    if stem.startswith("swi-"):
        cmd = [executable, "-q", "-g", "ilpkit_list_names", "-t", "halt", str(here / "swi.pl")]
    elif stem.startswith("gprolog-"):
        cmd = [executable, "--consult-file", str(here / "gprolog.pl")]
    else:
        raise ValueError(f"no listing script for {stem!r}")
    done = subprocess.run(
        cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=True
    )
    lines = {
        line
        for line in done.stdout.decode("utf-8").splitlines()
        if line.count("\t") == 2 and line.split("\t", 1)[0] in _KIND_TEXT
    }
    return "".join(f"{line}\n" for line in sorted(lines))


def _main(argv: list[str]) -> int:
    """``python -m ilpkit.core.engine_names STEM EXECUTABLE``: rewrite ``STEM.tsv``."""
    if len(argv) != 2 or argv[0] not in ENGINE_LISTS:
        print(f"usage: python -m ilpkit.core.engine_names {{{','.join(ENGINE_LISTS)}}} EXECUTABLE")
        return 2
    stem, executable = argv
    text = generate(stem, executable)
    Path(__file__).with_name(f"{stem}.tsv").write_text(text, encoding="utf-8")
    print(f"{stem}.tsv: {text.count(chr(10))} names")
    return 0
