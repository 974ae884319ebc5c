"""One numeric convention on every engine: SWI-Prolog's (issue 20 item 5).

ilpkit's arithmetic is SWI-Prolog's default (flags ``iso=false``, ``prefer_rationals=false``),
which the native engine implements: ``30/10`` is the integer ``3`` (``/`` of two integers is
an integer when the division is exact), ``2**3`` is ``8``, ``round(2.5)`` is ``3``,
``truncate(300)`` is ``300``.  ISO engines differ (GNU Prolog 1.4.5: ``3.0``, ``8.0``, ``2``
and a type error; no ``integer/1``), so a bottom clause built from ``D is
truncate(X*10)/10`` would hold other constants there.  For such an engine
(``EngineProfile.swi_arithmetic`` false) the exporter rewrites each arithmetic goal of the
program whose expression uses one of :data:`DIFFERING` (or, for ``is/2``, is a bare
variable, bound at run time) into a call of ``ilpkit_is/2`` or ``ilpkit_compare/3``, which
:data:`EVALUATOR` defines in the engine's prelude with SWI-Prolog's results; every other goal
runs on the engine's own arithmetic.  Clauses a learner builds and mode goals are not rewritten.
"""

from __future__ import annotations

from typing import Final

from ilpkit.core.safety import META_ARGS
from ilpkit.prolog.terms import Clause, Const, Struct, Term, Var

COMPARISONS: Final = frozenset({"=:=", "=\\=", "<", ">", "=<", ">="})
DIFFERING: Final = frozenset(
    {("/", 2), ("**", 2), ("^", 2), ("min", 2), ("max", 2), ("round", 1), ("integer", 1)}
    | {("atan", 2), ("copysign", 2), ("truncate", 1), ("floor", 1), ("ceiling", 1)}
    | {("float_integer_part", 1), ("float_fractional_part", 1)}
)
"""Evaluable functors whose result differs between SWI-Prolog and GNU Prolog 1.4.5."""


def differs(expr: Term, *, bare_variable: bool = False) -> bool:
    """Whether evaluating ``expr`` may differ from SWI-Prolog on an ISO engine;
    ``bare_variable``: whether a lone variable may (``X is Y``: Y is bound at run time,
    perhaps to an expression; a compared variable holds a number, almost always)."""
    if type(expr) is Var:
        return bare_variable
    stack = [expr]
    while stack:
        t = stack.pop()
        if type(t) is Struct:
            if (t.name, len(t.args)) in DIFFERING:
                return True
            stack.extend(t.args)
    return False


def rewrite_goal(goal: Term) -> Term:
    """``goal`` with its arithmetic (and that of the goals it calls) routed through the
    evaluator where it may differ; other goals unchanged (the same object)."""
    if type(goal) is not Struct:
        return goal
    if len(goal.args) == 2 and (goal.name == "is" or goal.name in COMPARISONS):
        if goal.name == "is" and differs(goal.args[1], bare_variable=True):
            return Struct("ilpkit_is", goal.args)
        if goal.name != "is" and (differs(goal.args[0]) or differs(goal.args[1])):
            return Struct("ilpkit_compare", (Const(goal.name), *goal.args))
        return goal
    places = [i for i, add in META_ARGS.get((goal.name, len(goal.args)), ()) if add == 0]
    if not places:
        return goal
    args = list(goal.args)
    for i in places:
        if i < len(args):
            args[i] = rewrite_goal(args[i])
    if all(a is b for a, b in zip(args, goal.args, strict=True)):
        return goal
    return Struct(goal.name, tuple(args))


def rewrite_clause(clause: Clause) -> Clause:
    """``clause`` with :func:`rewrite_goal` applied to its body."""
    body = [rewrite_goal(g) for g in clause.body]
    if all(a is b for a, b in zip(body, clause.body, strict=True)):
        return clause
    return Clause(clause.head, body)


EVALUATOR: Final = r"""
% SWI-Prolog's arithmetic on an ISO engine (ilpkit/plugins/backends/prolog/arithmetic.py).
ilpkit_is(X, E) :- ilpkit_eval(E, V), X = V.

ilpkit_compare(Op, E1, E2) :-
    ilpkit_eval(E1, X), ilpkit_eval(E2, Y), ilpkit_compare_values(Op, X, Y).

ilpkit_compare_values(=:=, X, Y) :- X =:= Y.
ilpkit_compare_values(=\=, X, Y) :- X =\= Y.
ilpkit_compare_values(<, X, Y) :- X < Y.
ilpkit_compare_values(>, X, Y) :- X > Y.
ilpkit_compare_values(=<, X, Y) :- X =< Y.
ilpkit_compare_values(>=, X, Y) :- X >= Y.

ilpkit_eval(E, _) :- var(E), !, throw(error(instantiation_error, (is)/2)).
ilpkit_eval(E, V) :- number(E), !, V = E.
ilpkit_eval(X / Y, V) :- !, ilpkit_eval(X, A), ilpkit_eval(Y, B), ilpkit_div(A, B, V).
ilpkit_eval(X ** Y, V) :- !, ilpkit_eval(X, A), ilpkit_eval(Y, B), ilpkit_pow(A, B, V).
ilpkit_eval(X ^ Y, V) :- !, ilpkit_eval(X, A), ilpkit_eval(Y, B), ilpkit_pow(A, B, V).
ilpkit_eval(min(X, Y), V) :- !, ilpkit_eval(X, A), ilpkit_eval(Y, B),
    (   B < A -> V = B ; A < B -> V = A ; float(B) -> V = B ; V = A ).
ilpkit_eval(max(X, Y), V) :- !, ilpkit_eval(X, A), ilpkit_eval(Y, B),
    (   B > A -> V = B ; A > B -> V = A ; float(B) -> V = B ; V = A ).
ilpkit_eval(round(X), V) :- !, ilpkit_eval(X, A), ilpkit_round(A, V).
ilpkit_eval(integer(X), V) :- !, ilpkit_eval(X, A), ilpkit_round(A, V).
ilpkit_eval(atan(X, Y), V) :- !, ilpkit_eval(X, A), ilpkit_eval(Y, B), V is atan2(A, B).
ilpkit_eval(copysign(X, Y), V) :- !, ilpkit_eval(X, A), ilpkit_eval(Y, B),
    (   ilpkit_negative(B) -> V is -abs(A) ; V is abs(A) ).
ilpkit_eval(truncate(X), V) :- !, ilpkit_eval(X, A), ilpkit_integral(truncate, A, V).
ilpkit_eval(floor(X), V) :- !, ilpkit_eval(X, A), ilpkit_integral(floor, A, V).
ilpkit_eval(ceiling(X), V) :- !, ilpkit_eval(X, A), ilpkit_integral(ceiling, A, V).
ilpkit_eval(float_integer_part(X), V) :- !, ilpkit_eval(X, A),
    ilpkit_integral(float_integer_part, A, V).
ilpkit_eval(float_fractional_part(X), V) :- !, ilpkit_eval(X, A),
    (   integer(A) -> V = 0 ; V is float_fractional_part(A) ).
ilpkit_eval([X], V) :- !, V is [X].
ilpkit_eval(E, V) :-
    compound(E), !,
    E =.. [F|Args], ilpkit_eval_all(Args, Vs), E1 =.. [F|Vs], V is E1.
ilpkit_eval(E, V) :- V is E.

ilpkit_eval_all([], []).
ilpkit_eval_all([E|Es], [V|Vs]) :- ilpkit_eval(E, V), ilpkit_eval_all(Es, Vs).

% Integers divide exactly when they can (SWI: 30/10 is 3, 7/2 is 3.5).
ilpkit_div(A, B, V) :-
    integer(A), integer(B), B =\= 0, A mod B =:= 0, !, V is A // B.
ilpkit_div(A, B, V) :- V is A / B.

% SWI with prefer_rationals=false: X**0 is 1; integer bases 0 (positive exponent) and 1 stay
% integers; integer powers are integers, negative exponents floats (1, -1 exact).
ilpkit_pow(_, B, V) :- B =:= 0, !, V = 1.
ilpkit_pow(A, B, V) :- integer(A), ( A =:= 1 ; A =:= 0, B > 0 ), !, V = A.
ilpkit_pow(A, B, V) :- integer(A), integer(B), !, ilpkit_int_pow(A, B, V).
ilpkit_pow(A, B, _) :- A =:= 0, B < 0, !, throw(error(evaluation_error(zero_divisor), (is)/2)).
ilpkit_pow(A, B, V) :- V is float(A) ** float(B).

ilpkit_int_pow(A, B, V) :- B >= 0, !, V is A ^ B.
ilpkit_int_pow(-1, B, V) :- !, ( B mod 2 =:= 0 -> V = 1 ; V = -1 ).
ilpkit_int_pow(0, _, _) :- !, throw(error(evaluation_error(zero_divisor), (is)/2)).
ilpkit_int_pow(A, B, V) :- V is float(A) ** B.

% SWI takes integers where ISO wants floats: truncate(300) is 300.
ilpkit_integral(_, A, V) :- integer(A), !, V = A.
ilpkit_integral(F, A, V) :- E =.. [F, A], V is E.

ilpkit_negative(B) :- B < 0, !.
ilpkit_negative(B) :- float(B), B =:= 0, number_codes(B, [0'-|_]).

% Half away from zero (SWI's llround; GNU Prolog 1.4.5 rounds 2.5 to 2).
ilpkit_round(A, V) :- integer(A), !, V = A.
ilpkit_round(A, V) :-
    F is floor(A), D is A - F,
    (   A >= 0 -> ( D >= 0.5 -> V is F + 1 ; V = F )
    ;   ( D > 0.5 -> V is F + 1 ; V = F )
    ).
"""
"""Prolog source of ``ilpkit_is/2`` and ``ilpkit_compare/3`` (the engine prelude)."""
