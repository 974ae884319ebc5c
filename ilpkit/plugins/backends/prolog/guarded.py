"""Built-ins the data calls through the server: ``catch/3`` never catches a limit, and
``upcase_atom/2`` cannot abort the engine (issue 28).

A Prolog engine stops a query by throwing: SWI-Prolog's inference limit throws
``inference_limit_exceeded``, its time limit ``time_limit_exceeded``, ilpkit's memory watch
``ilpkit_limit(memory(MB))``, a full stack ``error(resource_error(_), _)``.  A catch-all in
the data (``p(X) :- catch(spin, _, p(X))``) caught that ball and went on: the query outlived
every limit, and with janus or pyswip the host process ignored SIGINT and SIGTERM (one trial
survived ``timeout 90`` for two hours).

So the exporter writes every ``catch/3`` of the program as ``ilpkit_catch/3``
(``ilpkit_server.pl``): ``catch/3`` itself, except that a ball naming a limit
(``ilpkit_is_limit/1``, the same set as :data:`LIMIT_BALLS`) is thrown again before the
catcher is even tried.  Everything else keeps ISO ``catch/3``'s meaning: a copy of the ball
is unified with the catcher after the goal's bindings are undone; no match passes the ball
on; the goal is called as by ``call/1`` (a cut in it is local).  The rewrite reaches every
place a goal can sit (:data:`~ilpkit.core.safety.META_ARGS`: ``findall/3``, ``\\+/1``,
``forall/2``, ``once/1``, ...) and closures (``call(catch, G, C, R)``, ``call(catch(G), C,
R)``, ``maplist(catch(G, C), Rs)``): the static check refuses goals built at run time, so
every ``catch/3`` the data can reach is one of these.  The native engine's ``catch/3`` never
matches a limit ball either (its own limits are Python exceptions no Prolog code sees), so
every engine answers alike.

``upcase_atom/2`` and ``string_upper/2`` go through the server's ``ilpkit_upcase_atom/2`` and
``ilpkit_string_upper/2``, the same built-ins except on SWI-Prolog before 9.2: there
``upcase_atom('µ', U)`` (or ``'ÿ'``, the two Latin-1 characters whose upper case is not
Latin-1) fails an assertion in ``pl-ctype.c`` and aborts the process -- with pyswip, the
Python process (exit 134).  The SWI-Prolog prelude converts such text as wide text instead
(``ilpkit_upper_aborts/1``, ``ilpkit_wide_upper/3``), giving what 9.2 and the native engine
give (``'Μ'``, ``'Ÿ'``).
"""

from __future__ import annotations

from typing import Final

from ilpkit.core.safety import META_ARGS
from ilpkit.prolog.terms import Clause, Const, Struct, Term

GUARDED: Final[dict[tuple[str, int], str]] = {
    ("catch", 3): "ilpkit_catch",
    ("upcase_atom", 2): "ilpkit_upcase_atom",
    ("string_upper", 2): "ilpkit_string_upper",
}
"""The built-ins the data calls through the server, and the server predicate for each."""

LIMIT_BALLS: Final = (
    "ilpkit_limit(_)",
    "error(resource_error(_), _)",
    "inference_limit_exceeded",
    "time_limit_exceeded",
    "time_limit_exceeded(_)",
    "'$aborted'",
    "unwind(_)",
)
"""The balls no ``catch/3`` of the data may catch: ilpkit's limits, resource errors,
SWI-Prolog's inference and time limits, and its abort (``'$aborted'``; ``unwind(_)`` from
9.3 on).  ``ilpkit_is_limit/1`` in the server lists the same, and an engine's own timer ball
(YAP's ``timeout``: its prelude's ``ilpkit_engine_limit_ball/1``)."""


def rewrite_goal(goal: Term, added: int = 0) -> Term:
    """``goal`` (a goal, or a closure to which ``added`` arguments will be added) with every
    call of a :data:`GUARDED` built-in written as the server's predicate (``catch/3`` as
    ``ilpkit_catch/3``); unchanged goals are returned as is."""
    if type(goal) is Const:
        if type(goal.value) is str and (goal.value, added) in GUARDED:
            return Const(GUARDED[goal.value, added])
        return goal
    if type(goal) is not Struct:
        return goal
    if goal.name == ":" and len(goal.args) == 2 and added == 0:
        module, inner = goal.args
        if type(inner) is Struct and inner.name == "catch" and len(inner.args) == 3:
            # M:catch(G, C, R): the server's catch, with the goals still called in M
            g, c, r = inner.args
            qualified = (Struct(":", (module, g)), c, Struct(":", (module, r)))
            return rewrite_goal(Struct("catch", qualified))
    arity = len(goal.args) + added
    places = META_ARGS.get((goal.name, arity), ())
    args = list(goal.args)
    for i, more in places:
        if i < len(args):
            args[i] = rewrite_goal(args[i], more)
    name = GUARDED.get((goal.name, arity), goal.name)
    if name == goal.name and all(a is b for a, b in zip(args, goal.args, strict=True)):
        return goal
    return Struct(name, tuple(args))


def rewrite_clause(clause: Clause) -> Clause:
    """``clause`` with :func:`rewrite_goal` applied to its body."""
    body = [rewrite_goal(g) for g in clause.body]
    if all(a is b for a, b in zip(body, clause.body, strict=True)):
        return clause
    return Clause(clause.head, body)
