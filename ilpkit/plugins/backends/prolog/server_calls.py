"""The predicates ilpkit's Prolog server calls that are not its own (``ilpkit_*``).

Why: the server and the data's clauses share one namespace (GNU Prolog has no modules), so a
data file defining, say, ``read_line_to_codes/2`` would have the server (SWI-Prolog's memory
watch) run the data's clause, whose body no reachability check from the data's predicates
would see.  :mod:`ilpkit.core.safety` refuses a definition of any such name outside the
allow-list and checks the bodies of allow-listed ones.  Core cannot import the backends, so
the names are shipped as ``ilpkit/core/engine_names/server-calls.tsv``; this module reads them
off the server's source, and a test keeps the two equal
(``python -m ilpkit.plugins.backends.prolog.server_calls`` rewrites the file).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ilpkit.core.safety import META_ARGS
from ilpkit.plugins.backends.prolog.profiles import PROFILES, server_source, swipl_hooks
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Const, Struct, Term, Var

Indicator = tuple[str, int]

_OWN_PREFIXES = ("ilpkit_", "$ilpkit")

_MORE_META: dict[Indicator, tuple[tuple[int, int], ...]] = {
    ("setup_call_cleanup", 3): ((0, 0), (1, 0), (2, 0)),
    ("call_cleanup", 2): ((0, 0), (1, 0)),
    ("call_with_inference_limit", 3): ((0, 0),),
    ("call_with_time_limit", 2): ((1, 0),),
    ("time_out", 3): ((0, 0),),
    ("with_output_to", 2): ((1, 0),),
}
"""Goal arguments of the meta-predicates the server uses beyond the allow-list's."""


def server_calls() -> set[Indicator]:
    """Every predicate a clause body or directive of the server (with each engine's prelude)
    calls, the server's own ``ilpkit_*`` predicates left out."""
    out: set[Indicator] = set()
    reader = PrologReader()
    sources = [server_source(engine) for engine in sorted(PROFILES)]
    sources.append(swipl_hooks(in_process=True))  # the janus and pyswip bridges' hooks
    for number, source in enumerate(sources):
        for read in reader.read_text(source, f"server source {number}"):
            term = read.term
            if type(term) is Struct and term.name == ":-" and len(term.args) in (1, 2):
                _goals(term.args[-1], 0, out)
    return {key for key in out if not key[0].startswith(_OWN_PREFIXES)}


def _goals(goal: Term, extra: int, out: set[Indicator]) -> None:
    stack: list[tuple[Term, int]] = [(goal, extra)]
    while stack:
        g, add = stack.pop()
        if type(g) is Var:
            continue
        if type(g) is Struct:
            name, args = g.name, g.args
        elif type(g) is Const and isinstance(g.value, str):
            name, args = g.value, ()
        else:
            continue
        if name == ":" and len(args) == 2:  # module-qualified: the data cannot define it
            continue
        key = (name, len(args) + add)
        out.add(key)
        for i, more in META_ARGS.get(key, _MORE_META.get(key, ())):
            if i < len(args):
                stack.append((args[i], more))


def tsv() -> str:
    """The content of ``server-calls.tsv``."""
    return "".join(f"server\t{name}\t{arity}\n" for name, arity in sorted(server_calls()))


if __name__ == "__main__":
    target = Path(__file__).parents[3] / "core" / "engine_names" / "server-calls.tsv"
    target.write_text(tsv(), encoding="utf-8")
    print(f"{target}: {len(server_calls())} names")
    sys.exit(0)
