"""A task as one Prolog program text, the same for every engine.

Security rule: ilpkit never lets an engine consult a raw data file.  The engines load this
text, which ilpkit writes from what its own reader parsed, after
:func:`~ilpkit.core.safety.check_program` accepted it.

Layout (one term per line, so a term's number is its line number):

1. ``'$ilpkit_dynamic'(Name, Arity)`` -- the program's ``dynamic`` declarations;
2. ``'$ilpkit_mode_predicate'(Name, Arity)`` -- every mode predicate; the server declares
   those the engine cannot call ``dynamic``, so they fail as in the native backend;
3. the uninterpreted directives, only when the user trusts the data (``trust_data``);
4. the background clauses, predicates in sorted order, clauses in source order;
5. the examples as ``'$ilpkit_example'(Id, Atom)``.

Examples are not background: as in the native backend (and Aleph, which keeps positive
examples out of the background), a clause covers an example through head unification only,
and a target predicate's own background clauses, if any, are exported unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from ilpkit.core.safety import check_program
from ilpkit.core.task import Task
from ilpkit.core.terms import (
    Clause,
    Const,
    Str,
    Struct,
    Term,
    clause_to_prolog,
    quote_atom,
    to_prolog,
)

EXAMPLE: str = "$ilpkit_example"
HEADER: str = "% Written by ilpkit for its Prolog backends; one term per line.\n"


@dataclass(frozen=True)
class ExportedProgram:
    """The program text and where each of its terms came from (for error messages)."""

    text: str
    origins: list[str]
    """``origins[n - 1]``: what term ``n`` (line ``n + 1``) is, e.g. ``bk.pl:12:1``."""
    first_string: str | None
    """Where the first double-quoted string occurs (engines without strings refuse it)."""

    def origin(self, number: int) -> str:
        """What term ``number`` (1-based) is, or ``term N`` when out of range."""
        if 1 <= number <= len(self.origins):
            return self.origins[number - 1]
        return f"term {number} of the exported program"


def export_program(task: Task, *, trust_data: bool = False) -> ExportedProgram:
    """The program text of ``task`` (deterministic: the same task gives the same text)."""
    check_program(task, trust_data=trust_data)
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
    if trust_data:
        for d in task.directives:
            emit(":- " + to_prolog(d.term, 1199) + ".", f"{d.location or 'directive'}")
    for key in program.predicates():
        pi = f"{quote_atom(key[0])}/{key[1]}"
        if key in program.facts:
            name = key[0]
            for n, args in enumerate(program.facts[key], 1):
                head: Term = Struct(name, args) if args else Const(name)
                emit(clause_to_prolog(Clause(head)), f"fact {n} of {pi}")
        else:
            for n, sc in enumerate(program.clauses[key], 1):
                where = str(sc.location) if sc.location else f"clause {n} of {pi}"
                emit(clause_to_prolog(sc.clause), where)
    ex = task.examples
    for i, atom in enumerate(ex.atoms):
        loc = ex.locations[i]
        emit(_fact(EXAMPLE, Const(i), atom), f"example {i}" + (f" ({loc})" if loc else ""))
    if first_string is not None and not _really_has_strings(task):
        first_string = None
    return ExportedProgram(HEADER + "\n".join(lines) + "\n", origins, first_string)


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
