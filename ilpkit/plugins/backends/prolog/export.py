"""A task as one Prolog program text, the same for every engine.

Security rule: ilpkit never lets an engine consult a raw data file.  The engines load this
text, which ilpkit writes from what its own reader parsed, after
:func:`~ilpkit.core.safety.check_program` accepted it.

Layout (one term per line, so a term's number is its line number):

1. ``'$ilpkit_dynamic'(Name, Arity)`` -- the program's ``dynamic`` declarations;
2. ``'$ilpkit_mode_predicate'(Name, Arity)`` -- every mode predicate; the server declares
   those the engine cannot call ``dynamic``, so they fail as in the native backend;
3. ``'$ilpkit_builtin_ok'(Name, Arity)`` -- the predicates the program defines whose engine
   built-in may stand in for the program's definition when the engine refuses to let a
   program redefine it (a *clash*, a warning): those of
   :data:`~ilpkit.core.safety.ALLOWED_BUILTINS` (side-effect free), or all of them when the
   user trusts the data.  Any other clash is a load error: a program defining, say,
   ``copy_file/2`` would otherwise have its calls answered by the engine's predicate;
4. ``'$ilpkit_not_builtin'(Name, Arity)`` -- without ``trust_data``, the mode predicates the
   program does not provide (no clause, fact or ``dynamic``) outside the allow-list: the server
   refuses the program if the engine has a predicate of that name (SWI-Prolog would autoload
   ``copy_file/2`` for a clause ilpkit builds from ``modeb(*, copy_file(+a, +b))``);
5. ``'$ilpkit_random_seed'(S1, S2, S3)`` -- the state ``aleph_random/1``'s stream starts from
   at every query (:func:`ilpkit.core.aleph_library.initial_state` of the run's seed);
6. the uninterpreted directives, only when the user trusts the data (``trust_data``);
7. the background clauses, predicates in sorted order, clauses in source order, each
   ``catch/3`` of their bodies written as the server's ``ilpkit_catch/3``, which never
   catches a limit, and ``upcase_atom/2``, ``string_upper/2`` as ``ilpkit_upcase_atom/2``,
   ``ilpkit_string_upper/2`` (:mod:`~ilpkit.plugins.backends.prolog.guarded`);
8. the examples as ``'$ilpkit_example'(Id, Atom)``.

The server's own predicates are named ``ilpkit_*`` and ``'$ilpkit_*'``; a program that
defines, declares, targets or names in a mode or determination such a predicate is refused
(:func:`check_reserved_names`, whatever ``trust_data`` says), as it could replace or reach
the server's machinery.

Examples are not background: as in the native backend (and Aleph, which keeps positive
examples out of the background), a clause covers an example through head unification only,
and a target predicate's own background clauses, if any, are exported unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from ilpkit.core.aleph_library import initial_state
from ilpkit.core.safety import ALLOWED_BUILTINS, check_program
from ilpkit.core.task import Indicator, Task
from ilpkit.errors import DataError, SourceLocation
from ilpkit.plugins.backends.prolog import guarded, intguard
from ilpkit.plugins.backends.prolog.arithmetic import rewrite_clause
from ilpkit.prolog.terms import (
    Clause,
    Const,
    Str,
    Struct,
    Term,
    clause_to_prolog,
    indicator,
    quote_atom,
    to_prolog,
)

EXAMPLE: str = "$ilpkit_example"
RANDOM_SEED: str = "$ilpkit_random_seed"
HEADER: str = "% Written by ilpkit for its Prolog backends; one term per line.\n"


@dataclass(frozen=True)
class ExportedProgram:
    """The program text and where each of its terms came from (for error messages)."""

    text: str
    origins: list[str]
    """``origins[n - 1]``: what term ``n`` (line ``n + 1``) is, e.g. ``bk.pl:12:1``."""
    first_string: str | None
    """Where the first double-quoted string occurs (engines without strings refuse it)."""
    sources: tuple[str, ...] = ()
    """The data files, searched for a fact's line when an engine refuses it (facts are kept
    without locations)."""

    def origin(self, number: int) -> str:
        """What term ``number`` (1-based) is, or ``term N`` when out of range; a fact is
        located in the data files (``bk.pl:12:1 (fact 3 of q/2)``) when it can be found."""
        if 1 <= number <= len(self.origins):
            found = self.origins[number - 1]
            fact = _FACT_ORIGIN.fullmatch(found)
            if fact is not None and self.sources:
                where = _locate_fact(self.sources, fact["name"], int(fact["n"]))
                if where is not None:
                    return f"{where} ({found})"
            return found
        return f"term {number} of the exported program"


def export_program(
    task: Task,
    *,
    trust_data: bool = False,
    rewrite_arithmetic: bool = False,
    bound_integers: bool = False,
    random_seed: int = 0,
) -> ExportedProgram:
    """The program text of ``task`` (deterministic: the same task gives the same text).

    ``rewrite_arithmetic``: for an engine whose arithmetic is not SWI-Prolog's (ilpkit's
    convention), route the rules' arithmetic goals that may differ through the prelude's
    ``ilpkit_is/2`` (:mod:`ilpkit.plugins.backends.prolog.arithmetic`).  ``bound_integers``: route
    every ``is/2`` and comparison of the rules through the prelude's bounded predicates, which
    refuse a too large integer before computing it
    (:mod:`ilpkit.plugins.backends.prolog.intguard`).  ``random_seed``: the seed of
    ``aleph_random/1``'s stream (:mod:`ilpkit.core.aleph_library`)."""
    check_program(task, trust_data=trust_data)
    check_reserved_names(task)
    lines: list[str] = []
    origins: list[str] = []
    first_string: str | None = None
    program = task.program

    def emit(text: str, origin: str) -> None:
        nonlocal first_string
        if first_string is None and '"' in text and _has_string(text):
            first_string = origin
        lines.append(text)
        origins.append(origin)

    for name, arity in sorted(program.dynamic):
        emit(_fact("$ilpkit_dynamic", Const(name), Const(arity)), f"dynamic {name}/{arity}")
    modes = {m.indicator for m in (*task.bias.modeh, *task.bias.modeb)}
    for name, arity in sorted(modes):
        emit(_fact("$ilpkit_mode_predicate", Const(name), Const(arity)), f"mode {name}/{arity}")
    defined = set(program.predicates())
    for name, arity in sorted(defined if trust_data else defined & ALLOWED_BUILTINS):
        emit(_fact("$ilpkit_builtin_ok", Const(name), Const(arity)), f"{name}/{arity}")
    if not trust_data:
        for m in sorted(
            (*task.bias.modeh, *task.bias.modeb), key=lambda m: (m.indicator, str(m.location))
        ):
            key = m.indicator
            if key in defined or key in program.dynamic or key in ALLOWED_BUILTINS:
                continue
            defined.add(key)  # once per predicate
            where = str(m.location) if m.location else f"mode {key[0]}/{key[1]}"
            emit(_fact("$ilpkit_not_builtin", Const(key[0]), Const(key[1])), where)
    state = initial_state(random_seed)
    emit(_fact(RANDOM_SEED, *(Const(v) for v in state)), f"random seed {random_seed}")
    if trust_data:
        for d in task.directives:
            where = str(d.location) if d.location else f"directive {to_prolog(d.term)}"
            goal = guarded.rewrite_goal(directive_goal(d.term))
            emit(":- " + to_prolog(goal, 1199) + ".", where)
    for key in program.predicates():
        if key == FALSE_HOOK:
            continue  # Aleph's constraints: ilpkit proves their bodies (core.aleph_hooks)
        pi = f"{quote_atom(key[0])}/{key[1]}"
        if key in program.facts:
            name = key[0]
            for n, args in enumerate(program.facts[key], 1):
                head: Term = Struct(name, args) if args else Const(name)
                emit(clause_to_prolog(Clause(head)), f"fact {n} of {pi}")
        else:
            for n, sc in enumerate(program.clauses[key], 1):
                where = str(sc.location) if sc.location else f"clause {n} of {pi}"
                clause = rewrite_clause(sc.clause) if rewrite_arithmetic else sc.clause
                clause = intguard.rewrite_clause(clause) if bound_integers else clause
                clause = guarded.rewrite_clause(clause)  # after: it looks into catch/3
                emit(clause_to_prolog(clause), where)
    ex = task.examples
    for i, atom in enumerate(ex.atoms):
        loc = ex.locations[i]
        emit(_fact(EXAMPLE, Const(i), atom), f"example {i}" + (f" ({loc})" if loc else ""))
    if first_string is not None and not _really_has_strings(task):
        first_string = None
    text = HEADER + "\n".join(lines) + "\n"
    return ExportedProgram(text, origins, first_string, tuple(task.sources))


FALSE_HOOK: Final = ("false", 0)
"""Aleph's integrity constraints (``false :- ...``) are not exported: every engine keeps
its built-in ``false/0``, and :mod:`ilpkit.core.aleph_hooks` asks for their bodies, with
``hypothesis/3`` bound to the clause under test, as goals of their own."""


_FACT_ORIGIN: Final = re.compile(r"fact (?P<n>\d+) of (?P<name>.+)/\d+")


def _locate_fact(sources: tuple[str, ...], name: str, n: int) -> str | None:
    """``file:line:1`` of the ``n``-th line starting a fact of ``name`` in ``sources``
    (read only when an engine refuses the fact, to name it as the data does)."""
    start = re.compile(rf"\s*{re.escape(name)}\s*[(.]")
    seen = 0
    for source in sources:
        try:
            with open(source, encoding="utf-8", errors="replace") as handle:
                for line_no, line in enumerate(handle, 1):
                    if start.match(line):
                        seen += 1
                        if seen == n:
                            return f"{source}:{line_no}:1"
        except OSError:
            continue
    return None


def directive_goal(term: Term) -> Term:
    """The goal of a directive as the reader keeps it (``:- G`` or ``?- G``, or ``G``)."""
    if type(term) is Struct and term.name in (":-", "?-") and len(term.args) == 1:
        return term.args[0]
    return term


RESERVED_PREFIXES: tuple[str, ...] = ("ilpkit_", "$ilpkit")
"""Names of the server's own predicates (``ilpkit_server.pl`` and the engine preludes)."""


def reserved_name(name: str) -> bool:
    """Whether a predicate called ``name`` would collide with the server's predicates."""
    return name.startswith(RESERVED_PREFIXES)


def check_reserved_names(task: Task) -> None:
    """Raise :class:`DataError` when the program defines, declares, targets or names in a
    mode or determination a predicate named like the server's own (``ilpkit_*``,
    ``'$ilpkit_*'``), with the file and line where known."""
    program = task.program
    places: list[tuple[Indicator, SourceLocation | None, str]] = []
    for key, clauses in program.clauses.items():
        places.append((key, clauses[0].location if clauses else None, "a definition of"))
    places.extend((key, None, "facts of") for key in program.facts)
    places.extend((key, None, "a dynamic declaration of") for key in program.dynamic)
    for mode in (*task.bias.modeh, *task.bias.modeb):
        places.append((mode.indicator, mode.location, f"a {mode.kind} declaration of"))
    for target, body in task.bias.determinations:
        places.extend(((target, None, "a determination of"), (body, None, "a determination of")))
    ex = task.examples
    seen: set[Indicator] = set()
    for i, atom in enumerate(ex.atoms):
        key = indicator(atom)
        if key not in seen:
            seen.add(key)
            places.append((key, ex.locations[i], "examples of"))
    found = []
    for key, loc, what in places:
        if reserved_name(key[0]):
            pi = f"{quote_atom(key[0])}/{key[1]}"
            found.append((str(loc) if loc else "", f"{what} {pi}"))
    if not found:
        return
    found.sort()
    lines = [
        f"{where + ': ' if where else ''}{what}: names starting with ilpkit_ or $ilpkit are "
        "reserved for ilpkit's Prolog server, whose predicates such a definition could "
        "replace or reach; rename the predicate"
        for where, what in found[:25]
    ]
    if len(found) > 25:
        lines.append(f"({len(found) - 25} more)")
    raise DataError("\n".join(lines))


def _fact(name: str, *args: Term) -> str:
    return to_prolog(Struct(name, args), 1199) + "."


def _has_string(text: str) -> bool:
    """Cheap test: a '"' outside single quotes (a quoted atom may contain one)."""
    quoted = False
    for c in text:
        if c == "'":
            quoted = not quoted
        elif c == '"' and not quoted:
            return True
    return False


def _really_has_strings(task: Task) -> bool:
    """Whether any term of the program or examples is a :class:`Str` (exact check)."""
    stack: list[Term] = [c.to_term() for c in task.program.iter_clauses()]
    stack.extend(task.examples.atoms)
    while stack:
        t = stack.pop()
        if type(t) is Str:
            return True
        if type(t) is Struct:
            stack.extend(t.args)
    return False
