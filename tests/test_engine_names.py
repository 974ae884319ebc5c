"""The engines' own names, as shipped, equal what the installed engines print.

ilpkit refuses a data file's declaration, hook or mode of a predicate an engine resolves by
itself (docs/security.md); the lists behind that refusal are read off the engines by the
scripts in ``ilpkit/core/engine_names``, and the server's own calls off its source.  These
tests rerun both and compare, so an engine upgrade or a server change cannot leave a stale
list behind (``python -m ilpkit.core.engine_names STEM EXECUTABLE`` and
``python -m ilpkit.plugins.backends.prolog.server_calls`` rewrite them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ilpkit.core.aleph_library import ALEPH_LIBRARY
from ilpkit.core.engine_names import (
    ENGINE_LISTS,
    generate,
    owners,
    parse,
    read_list,
    server_calls,
    why_reserved,
)
from ilpkit.core.safety import ALLOWED_BUILTINS, UNSAFE_BUILTINS
from ilpkit.plugins.backends.prolog.server_calls import tsv as server_calls_tsv
from tests.reference_prover import require_backends

HERE = Path(__file__).resolve().parents[1] / "ilpkit" / "core" / "engine_names"


def _swipl_929() -> str | None:
    home = os.environ.get("ILPKIT_SWIPL_JANUS_HOME")
    cache = Path(os.environ.get("ILPKIT_CACHE", Path.home() / ".cache" / "ilpkit"))
    candidates = [Path(home).parents[1] / "bin" / "swipl"] if home else []
    candidates.append(cache / "swipl-9.2.9" / "bin" / "swipl")
    return next((str(c) for c in candidates if c.is_file()), None)


EXECUTABLES = {
    "swi-9.0.4": ("swipl", lambda: shutil.which("swipl"), "9.0.4"),
    "swi-9.2.9": ("janus", _swipl_929, "9.2.9"),
    "gprolog-1.4.5": ("gprolog", lambda: shutil.which("gprolog"), "1.4.5"),
}


@pytest.mark.parametrize("stem", sorted(ENGINE_LISTS))
def test_shipped_list_equals_the_engines_own(stem: str) -> None:
    backend, find, version = EXECUTABLES[stem]
    executable = find()
    if executable is None:
        if require_backends(backend):
            pytest.fail(f"ILPKIT_REQUIRE_BACKENDS lists {backend} but {stem}'s engine is missing")
        pytest.skip(f"{stem}: engine not installed")
    shown = subprocess.run(
        [executable, "--version"], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if version not in shown.stdout + shown.stderr:
        pytest.skip(f"{executable} is not version {version}")
    fresh = generate(stem, executable)
    shipped = (HERE / f"{stem}.tsv").read_text(encoding="utf-8")
    assert parse(fresh) == parse(shipped), f"rerun python -m ilpkit.core.engine_names {stem}"


def test_server_calls_equal_the_servers_source() -> None:
    shipped = (HERE / "server-calls.tsv").read_text(encoding="utf-8")
    assert server_calls_tsv() == shipped, (
        "rerun python -m ilpkit.plugins.backends.prolog.server_calls"
    )


def test_the_routes_names_are_in_the_lists() -> None:
    # the names issue 28's payloads used, each where the engine keeps it
    assert ("swi-9.0.4", "library") in owners(("copy_file", 2))
    assert ("swi-9.2.9", "system") in owners(("setup_call_catcher_cleanup", 4))
    assert ("swi-9.0.4", "system") in owners(("findnsols", 4))
    assert ("swi-9.0.4", "library") in owners(("read_line_to_codes", 2))
    assert ("swi-9.0.4", "hook") in owners(("thread_message_hook", 3))
    assert ("gprolog-1.4.5", "system") in owners(("popen", 3))
    assert ("gprolog-1.4.5", "system") in owners(("spawn", 2))
    assert ("read_line_to_codes", 2) in server_calls()


def test_reasons_name_the_engines() -> None:
    why = why_reserved(("copy_file", 2))
    assert why == (
        "a library predicate SWI-Prolog 9.0.4 and SWI-Prolog 9.2.9 loads by itself when it is "
        "called"
    )
    assert why_reserved(("popen", 3)) == "a built-in of GNU Prolog 1.4.5"
    assert why_reserved(("no_engine_has_this", 7)) is None


def test_lists_hold_the_hand_typed_ones() -> None:
    """The hand-typed unsafe names that SWI-Prolog has are all in its lists (a sanity check
    of the listing script, not a substitute for it)."""
    swi = read_list("swi-9.0.4")
    missing = {key for key in UNSAFE_BUILTINS if key not in swi}
    # the hand-typed list also names other engines' and older versions' predicates
    assert missing <= {
        ("format_atom", 3),
        ("message_lines_to_codes", 3),
        ("message_to_codes", 3),
        ("term_to_string", 2),
        ("translate_message", 3),
        (".", 2),
        ("http_open", 3),
        ("system", 1),
    }, missing
    # every allow-listed built-in but the control constructs ^/2 and :/2, maplist/6 (not in
    # 9.0.4's library(apply)), all/3 (BoostSRL's and YAP's) and Aleph's utilities (ilpkit's
    # own) is the engine's own
    lacking = {key for key in ALLOWED_BUILTINS if key not in swi}
    assert lacking == {("^", 2), (":", 2), ("maplist", 6), ("all", 3)} | ALEPH_LIBRARY, lacking


def test_parse_keeps_the_strongest_kind() -> None:
    text = "library\tp\t1\nsystem\tp\t1\nhook\tq\t2\n"
    assert parse(text) == {("p", 1): "system", ("q", 2): "hook"}
    with pytest.raises(ValueError, match="unknown kind"):
        parse("other\tp\t1\n")


def test_owners_read_off_the_text_agree_with_the_parsed_lists() -> None:
    """``owners`` finds a name by searching each list's text (start-up need not parse
    thousands of lines): for every listed name, and names no list has, it must give what
    parsing the lists gives."""
    parsed = {stem: read_list(stem) for stem in ENGINE_LISTS}
    keys = {key for listed in parsed.values() for key in listed}
    keys |= {("no_engine_has_this", 7), ("atom", 99), ("copy_file", 3), ("", 0)}
    for key in keys:
        expected = tuple((stem, parsed[stem][key]) for stem in ENGINE_LISTS if key in parsed[stem])
        assert owners(key) == expected, key
