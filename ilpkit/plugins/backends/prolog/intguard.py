"""Big integers refused before they are computed, on SWI-Prolog older than 9.2 (issue 28).

SWI-Prolog 9.2 refuses an integer result larger than its flag ``max_integer_size`` before GMP
computes it; the server sets the flag to a quarter of ``memory_limit_mb`` for each request
(``ilpkit_integer_bound/2`` in :mod:`~ilpkit.plugins.backends.prolog.profiles`).  9.0 has no such
flag, and the 50 ms memory alarm runs between virtual-machine instructions, never inside one
GMP operation: ``2 ** 3000000000`` (375 MB) or the last step of repeated squaring overshot a
128 MB bound by more than twice.

So the exporter writes every arithmetic goal of the program's clauses -- ``is/2`` and the six
comparisons, wherever a goal can sit (:data:`~ilpkit.core.safety.META_ARGS`) and as closures
(``maplist(is, Xs, Es)``, ``include(<(0), L, R)``) -- as a call of the SWI-Prolog prelude's
``ilpkit_bounded_is/2`` or ``ilpkit_bounded_compare/3`` (:data:`PROLOG`); ``X is A - 1``,
``A < B`` and the like on variables and numbers become ``( integer(A) -> X is A - 1 ;
float(A) -> X is A - 1 ; ilpkit_bounded_is(X, A - 1) )``, the engine's own ``is/2`` at the
cost of inline type tests in the common case (:func:`_inline`).  On 9.2 and later the
predicates are ``is/2`` and the comparison themselves (chosen when the prelude is loaded:
the same exported program runs on both).  Before 9.2 they first look over the expression: one
without a function that can make a result much larger than its operands (``*``, ``**``,
``^``, ``<<``, ``>>``, ``lcm``) and without a rational operand is evaluated by ``is/2`` as
it is; otherwise the expression is evaluated node by node, each such node's result size
estimated from its operands' (``msb/1``: a product has at most the sum of the operands' bits,
``A ** N`` about ``N * log2(A)`` bits, ``A << N`` the bits of ``A`` plus ``N``), and a result
larger than the request's bound is refused with SWI-Prolog 9.2's own error (a resource
error: a limit, never caught by the data's ``catch/3``) before GMP computes it.  The values
and errors are those of ``is/2``: each node is evaluated by ``is/2`` on its evaluated
operands, left to right as ``is/2`` does.  Cost: docs/security.md ("Big integers").

Not covered: library predicates that evaluate an expression held in the data
(``sum_list([2 ** 3000000000], S)``), and clauses a learner builds (their arithmetic comes
from mode declarations over the data's numbers); the memory alarm, and in a subprocess the
address-space cap, still bound those.
"""

from __future__ import annotations

from typing import Final

from ilpkit.core.safety import META_ARGS
from ilpkit.prolog.terms import Clause, Const, Struct, Term, Var

COMPARISONS: Final = frozenset({"=:=", "=\\=", "<", ">", "=<", ">="})
IS: Final = "ilpkit_bounded_is"
COMPARE: Final = "ilpkit_bounded_compare"


def rewrite_goal(goal: Term, added: int = 0) -> Term:
    """``goal`` (a goal, or a closure to which ``added`` arguments will be added) with every
    ``is/2`` and arithmetic comparison written as the prelude's bounded predicate; unchanged
    goals are returned as is."""
    if type(goal) is Const:
        if type(goal.value) is str and added == 2:
            if goal.value == "is":
                return Const(IS)
            if goal.value in COMPARISONS:
                return Struct(COMPARE, (goal,))
        return goal
    if type(goal) is not Struct:
        return goal
    arity = len(goal.args) + added
    if arity == 2 and (goal.name == "is" or goal.name in COMPARISONS):
        bounded = (
            Struct(IS, goal.args)
            if goal.name == "is"
            else Struct(COMPARE, (Const(goal.name), *goal.args))
        )
        return _inline(goal, bounded) if added == 0 else bounded
    places = META_ARGS.get((goal.name, arity), ())
    if not places:
        return goal
    args = list(goal.args)
    for i, more in places:
        if i < len(args):
            args[i] = rewrite_goal(args[i], more)
    if all(a is b for a, b in zip(args, goal.args, strict=True)):
        return goal
    return Struct(goal.name, tuple(args))


_SHRINKING_OPS: Final = frozenset({"+", "-", "/", "//", "mod", "rem", "div", "min", "max"})
"""Binary functions whose integer or float result is at most a bit larger than an operand."""


def _number(t: Term) -> bool:
    return type(t) is Const and (type(t.value) is int or type(t.value) is float)


def _inline(goal: Struct, bounded: Struct) -> Term:
    """``goal`` itself when it cannot make a large integer; for ``X is A - 1``, ``A < B`` and
    the like (operands variables or number literals, a function of :data:`_SHRINKING_OPS`),
    ``( integer(V) -> goal ; float(V) -> goal ; bounded )`` (one variable) or ``( integer(A),
    integer(B) -> goal ; bounded )``: in the common case the engine's own ``is/2`` at the
    cost of inline type tests (no call, no inference; no disjunction, whose choice point
    cost 10-30 ns a goal); ``bounded`` otherwise (a variable may hold an expression or a
    rational; two floats take its first clauses)."""
    if goal.name == "is":
        expr = goal.args[1]
        if not (type(expr) is Struct and len(expr.args) == 2 and expr.name in _SHRINKING_OPS):
            return bounded
        operands: tuple[Term, ...] = expr.args
    else:
        operands = goal.args
    if not all(type(t) is Var or _number(t) for t in operands):
        return bounded
    variables = list(dict.fromkeys(t for t in operands if type(t) is Var))
    if not variables:
        return goal  # numbers only
    if len(variables) == 1:  # ( integer(V) -> goal ; float(V) -> goal ; bounded )
        (v,) = variables
        floats = Struct(";", (Struct("->", (Struct("float", (v,)), goal)), bounded))
        return Struct(";", (Struct("->", (Struct("integer", (v,)), goal)), floats))
    condition = Struct(",", tuple(Struct("integer", (v,)) for v in variables))
    return Struct(";", (Struct("->", (condition, goal)), bounded))


def rewrite_clause(clause: Clause) -> Clause:
    """``clause`` with :func:`rewrite_goal` applied to its body."""
    body = [rewrite_goal(g) for g in clause.body]
    if all(a is b for a, b in zip(body, clause.body, strict=True)):
        return clause
    return Clause(clause.head, body)


PROLOG: Final = r"""
% ilpkit_bounded_is/2, ilpkit_bounded_compare/3: the data's is/2 and arithmetic comparisons
% (ilpkit/plugins/backends/prolog/intguard.py).  SWI-Prolog 9.2 bounds integer results itself
% (max_integer_size, set per request by ilpkit_integer_bound/2); before 9.2 an integer
% result larger than the request's bound (global variable ilpkit_integer_bytes) is refused
% with 9.2's error before it is computed.
:- if((current_prolog_flag(version, V), V >= 90200)).
ilpkit_bounded_is(X, E) :- X is E.

ilpkit_bounded_compare(=:=, A, B) :- A =:= B.
ilpkit_bounded_compare(=\=, A, B) :- A =\= B.
ilpkit_bounded_compare(<, A, B) :- A < B.
ilpkit_bounded_compare(>, A, B) :- A > B.
ilpkit_bounded_compare(=<, A, B) :- A =< B.
ilpkit_bounded_compare(>=, A, B) :- A >= B.
:- else.
%FAST_IS%
ilpkit_bounded_is(X, E) :-
    (   ilpkit_plain(E)
    ->  X is E
    ;   cyclic_term(E)
    ->  X is E  % is/2's type error, raised before anything is computed
    ;   ilpkit_bounded_eval(E, V),
        X = V
    ).

%FAST_COMPARE%
ilpkit_bounded_compare(Op, A, B) :-
    (   ilpkit_plain(A),
        ilpkit_plain(B)
    ->  ilpkit_compare_op(Op, A, B)
    ;   ( cyclic_term(A) ; cyclic_term(B) )
    ->  ilpkit_compare_op(Op, A, B)
    ;   ilpkit_bounded_eval(A, X),
        ilpkit_bounded_eval(B, Y),
        ilpkit_compare_op(Op, X, Y)
    ).

% A product of two integers: at most the operands' bits (msb(|A| \/ 1) + 1 for A =/= 0);
% never above the smallest bound (1 MiB: 8,388,608 bits) when those add up to no more.
ilpkit_product_fits(A, B) :-
    (   abs(A) \/ abs(B) < 0x100000000000000  % both below 2^56: no more than 112 bits
    ->  true
    ;   msb(abs(A) \/ 1) + msb(abs(B) \/ 1) + 2 =< 8388608
    ->  true
    ;   ilpkit_bounded_check(A * B)
    ).

ilpkit_compare_op(=:=, A, B) :- A =:= B.
ilpkit_compare_op(=\=, A, B) :- A =\= B.
ilpkit_compare_op(<, A, B) :- A < B.
ilpkit_compare_op(>, A, B) :- A > B.
ilpkit_compare_op(=<, A, B) :- A =< B.
ilpkit_compare_op(>=, A, B) :- A >= B.

% ilpkit_plain(+E): evaluating E cannot make an integer much larger than its operands: no
% growing function (*, **, ^, <<, >>, lcm), no rational operand; false for a cyclic E.
ilpkit_plain(E) :-
    (   compound(E)
    ->  acyclic_term(E),
        ilpkit_plain_term(E)
    ;   \+ ilpkit_fraction(E)
    ).

ilpkit_plain_term(E) :- var(E), !.
ilpkit_plain_term(E) :- integer(E), !.
ilpkit_plain_term(E) :- float(E), !.
ilpkit_plain_term(A+B) :- !, ilpkit_plain_term(A), ilpkit_plain_term(B).
ilpkit_plain_term(A-B) :- !, ilpkit_plain_term(A), ilpkit_plain_term(B).
ilpkit_plain_term(-A) :- !, ilpkit_plain_term(A).
ilpkit_plain_term(A/B) :- !, ilpkit_plain_term(A), ilpkit_plain_term(B).
ilpkit_plain_term(A//B) :- !, ilpkit_plain_term(A), ilpkit_plain_term(B).
ilpkit_plain_term(abs(A)) :- !, ilpkit_plain_term(A).
ilpkit_plain_term(_*_) :- !, fail.
ilpkit_plain_term(_**_) :- !, fail.
ilpkit_plain_term(_^_) :- !, fail.
ilpkit_plain_term(_<<_) :- !, fail.
ilpkit_plain_term(_>>_) :- !, fail.
ilpkit_plain_term(lcm(_, _)) :- !, fail.
ilpkit_plain_term([_|_]) :- !.  % "[X]": a character code, X is never evaluated
ilpkit_plain_term(E) :-
    compound(E), !,
    compound_name_arguments(E, _, Args),
    ilpkit_plain_list(Args).
ilpkit_plain_term(E) :-
    \+ ilpkit_fraction(E).

ilpkit_plain_list([]).
ilpkit_plain_list([A|As]) :- ilpkit_plain_term(A), ilpkit_plain_list(As).

ilpkit_fraction(E) :- rational(E), \+ integer(E).

% ilpkit_bounded_eval(+E, -V): V is E (acyclic), each node evaluated on its evaluated
% operands, left to right as is/2, and refused before it is computed when its result would
% pass the bound.
ilpkit_bounded_eval(E, V) :- var(E), !, V is E.  % is/2's instantiation error
ilpkit_bounded_eval(E, V) :- number(E), !, V = E.
ilpkit_bounded_eval([H|T], V) :- !, V is [H|T].  % "[X]": X is a character, not evaluated
ilpkit_bounded_eval(roundtoward(A, Mode), V) :- !,  % the mode is no expression
    ilpkit_bounded_eval(A, X),
    V is roundtoward(X, Mode).
ilpkit_bounded_eval(A*B, V) :- !,
    ilpkit_bounded_eval(A, X),
    ilpkit_bounded_eval(B, Y),
    (   integer(X), integer(Y)
    ->  ilpkit_product_fits(X, Y)
    ;   ilpkit_bounded_check(X*Y)
    ),
    V is X*Y.
ilpkit_bounded_eval(E, V) :-
    compound(E), !,
    compound_name_arguments(E, F, Args),
    ilpkit_bounded_args(Args, Values),
    compound_name_arguments(E1, F, Values),
    ilpkit_bounded_check(E1),
    V is E1.
ilpkit_bounded_eval(E, V) :- V is E.  % an atom (pi, e, random, ...) or a string

ilpkit_bounded_args([], []).
ilpkit_bounded_args([A|As], [V|Vs]) :-
    ilpkit_bounded_eval(A, V),
    ilpkit_bounded_args(As, Vs).

% ilpkit_bounded_check(+E): E, a function of numbers, gives no result above the bound.
ilpkit_bounded_check(E) :-
    (   ilpkit_result_bits(E, Bits),
        nb_current(ilpkit_integer_bytes, Bytes),
        integer(Bytes),
        Bits > Bytes * 8
    ->  throw(error(resource_error(tripwire(max_integer_size, Bytes)),
                    context(system:(is)/2, 'requires more than max_integer_size bytes')))
    ;   true
    ).

% ilpkit_result_bits(+E, -Bits): at least the bits of E's result (fails: no growth).
ilpkit_result_bits(A*B, Bits) :- !,
    ilpkit_exact(A), ilpkit_exact(B),
    ilpkit_bits(A, BA), ilpkit_bits(B, BB),
    Bits is BA + BB.
ilpkit_result_bits(lcm(A, B), Bits) :- !,
    integer(A), integer(B),
    ilpkit_bits(A, BA), ilpkit_bits(B, BB),
    Bits is BA + BB.
ilpkit_result_bits(A<<N, Bits) :- !,
    integer(A), integer(N), A =\= 0, N > 0,
    ilpkit_bits(A, BA),
    Bits is BA + N.
ilpkit_result_bits(A>>N, Bits) :- !,
    integer(A), integer(N), A =\= 0, N < 0,
    ilpkit_bits(A, BA),
    Bits is BA - N.
ilpkit_result_bits(A**N, Bits) :- !,
    ilpkit_power_bits(A, N, Bits).
ilpkit_result_bits(A^N, Bits) :- !,
    ilpkit_power_bits(A, N, Bits).
ilpkit_result_bits(E, Bits) :-  % arithmetic on rationals: sizes add up
    compound_name_arguments(E, _, Args),
    Args = [_|_],
    ilpkit_member(A, Args), ilpkit_fraction(A), !,
    ilpkit_sum_bits(Args, 0, Bits).

ilpkit_sum_bits([], Bits, Bits).
ilpkit_sum_bits([A|As], Bits0, Bits) :-
    (   ilpkit_exact(A) -> ilpkit_bits(A, B) ; B = 0 ),
    Bits1 is Bits0 + B,
    ilpkit_sum_bits(As, Bits1, Bits).

% An exact power: |A| > 1 (an integer or a rational), N an integer; a negative N gives a
% float unless prefer_rationals is true.  log2 |A| from its top 60 bits.
ilpkit_power_bits(A, N, Bits) :-
    integer(N), ilpkit_exact(A),
    (   N > 0
    ->  M = N
    ;   N < 0, current_prolog_flag(prefer_rationals, true),
        M is -N
    ),
    (   integer(A)
    ->  abs(A) > 1,
        ilpkit_log2(A, L)
    ;   ilpkit_bits(A, L)
    ),
    Bits is floor(M * L) + 1.

ilpkit_log2(A, L) :-
    Abs is abs(A),
    Shift is max(0, msb(Abs) - 60),
    L is Shift + log(Abs >> Shift) / log(2).

ilpkit_exact(A) :- rational(A).  % an integer or a rational, not a float

% ilpkit_bits(+X, -Bits): bits of an integer's magnitude; numerator's plus denominator's.
ilpkit_bits(X, Bits) :-
    integer(X), !,
    (   X > 0 -> Bits is msb(X) + 1
    ;   X < 0 -> Bits is msb(-X) + 1
    ;   Bits = 0
    ).
ilpkit_bits(X, Bits) :-
    rational(X, N, D),
    ilpkit_bits(N, BN), ilpkit_bits(D, BD),
    Bits is BN + BD.
:- endif.
"""
"""Prolog source of the bounded predicates (appended to SWI-Prolog's prelude)."""

_SHRINKING: Final = ("+", "-", "/", "//", "mod", "rem", "div", "min", "max")
"""Functions whose result is at most a bit larger than an integer or float operand."""


def _fast_clauses() -> tuple[str, str]:
    """First clauses of each predicate for the common case, operands that are integers or
    floats: one call more than ``is/2`` or the comparison itself (one inference, counted
    against the step limit)."""
    plain = "( integer({v}) -> true ; float({v}) )"
    both = plain.format(v="A") + ", " + plain.format(v="B")
    is_lines = [
        "% the common case first: integer or float operands, nothing (or little) to estimate",
        "ilpkit_bounded_is(X, A * B) :- integer(A), integer(B), !, "
        "ilpkit_product_fits(A, B), X is A * B.",
    ]
    for op in _SHRINKING:
        expr = f"{op}(A, B)" if op in ("min", "max") else f"A {op} B"
        is_lines.append(f"ilpkit_bounded_is(X, {expr}) :- {both}, !, X is {expr}.")
    is_lines.append("ilpkit_bounded_is(X, E) :- " + plain.format(v="E") + ", !, X = E.")
    compare_lines = [
        f"ilpkit_bounded_compare({op}, A, B) :- {both}, !, A {op} B." for op in sorted(COMPARISONS)
    ]
    return "\n".join(is_lines), "\n".join(compare_lines)


_FAST_IS, _FAST_COMPARE = _fast_clauses()
PROLOG = PROLOG.replace("%FAST_IS%", _FAST_IS).replace("%FAST_COMPARE%", _FAST_COMPARE)  # type: ignore[misc]
