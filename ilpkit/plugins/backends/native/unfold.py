"""Rule-defined predicates made only of tests of their arguments, unfolded into the kernel.

Why: carcinogenesis' background defines ::

    gteq(X, X) :- number(X).
    gteq(X, Y) :- number(X), number(Y), X >= Y.

and Aleph's search brings a new constant to ``gteq(C, K)`` clause after clause.  Deriving a
table of such a literal (:mod:`.derive`) over the 1,102 charges for every new ``K`` through
the set-at-a-time evaluator and the Prolog machine cost more per clause than SWI-Prolog's
one comparison per binding (issue 32: 0.9x SWI-Prolog on the clauses Aleph evaluates).  When
every argument of the literal is bound -- to a ground value, as every value the kernel binds
is -- the literal is true exactly when some clause's head matches and its tests pass, a
question about the values alone, which the kernel answers per binding
(:data:`.kernels.TESTS`): unification of two ground terms is their identity, and a test of a
ground term binds nothing.

What qualifies (:func:`definition_of`): every clause's head arguments are variables or ground
terms; its body is ``true``, type tests (``number/1``, ``integer/1``, ``atom/1``, ...) of head
variables, identity tests (``=``, ``==``, ``\\=``, ``\\==``) of head variables and ground
terms, and arithmetic comparisons of head variables and numbers -- nothing that could bind,
cut, call or raise on backtracking.  With several clauses every variable of a comparison must
have passed ``number/1``, ``integer/1`` or ``float/1`` before it in its clause: Prolog would
backtrack into a later clause after an earlier one succeeded, and an error there is its
answer, while the kernel stops at the first success.  With one clause a comparison on a
non-number makes the kernel hand the clause back (as with a comparison in the clause itself),
so the set-at-a-time engine answers it as before; so does a number whose float is not its
value (an integer beyond 2**53, NaN).

A literal with an argument still unbound where it stands is not unfolded (Prolog would bind
it through the head: ``gteq(X, X)``): it goes to the derived tables as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ilpkit.plugins.backends.native import kernels as K
from ilpkit.plugins.backends.native.store import TYPE_TESTS
from ilpkit.prolog.terms import Clause, Const, Struct, Term, Var, is_ground

_COMPARE: Final = {"<": K.LT, ">": K.GT, "=<": K.LE, ">=": K.GE, "=:=": K.EQN, "=\\=": K.NEN}
_IDENTITY: Final = {"=": K.T_SAME, "==": K.T_SAME, "\\=": K.T_DIFF, "\\==": K.T_DIFF}
_NUMERIC: Final = frozenset({"number", "integer", "float"})

Operand = int | Term
"""An argument position of the literal (``int``) or a ground constant of the definition."""


@dataclass(frozen=True)
class Test:
    """One test of a clause: ``op`` (:data:`.kernels.LT` .. :data:`.kernels.T_TYPE`) on
    ``left`` and ``right`` (for a type test, ``right`` is the type bits it accepts)."""

    op: int
    left: Operand
    right: Operand


Definition = tuple[tuple[Test, ...], ...]
"""The tests of each clause, in order; the literal holds when all tests of a clause pass."""


def definition_of(clauses: Sequence[Clause], builtins_free: bool = True) -> Definition | None:
    """The predicate's clauses as tests of its arguments, or None when one is more than
    that (see the module doc).  A clause with no test holds for any bound arguments, so
    the clauses after it are never needed (and are dropped).  ``builtins_free``: the
    program defines none of the tests' predicates itself."""
    if not clauses or not builtins_free:
        return None
    out: list[tuple[Test, ...]] = []
    for clause in clauses:
        tests = _clause_tests(clause, guarded=len(clauses) > 1)
        if tests is None:
            return None
        out.append(tests)
        if not tests:
            break
    return tuple(out)


def _clause_tests(clause: Clause, guarded: bool) -> tuple[Test, ...] | None:
    head = clause.head
    args = head.args if type(head) is Struct else ()
    where: dict[Var, int] = {}
    tests: list[Test] = []
    for p, a in enumerate(args):
        if type(a) is Var:
            if a in where:
                tests.append(Test(K.T_SAME, where[a], p))
            else:
                where[a] = p
        elif is_ground(a):
            tests.append(Test(K.T_SAME, p, a))
        else:
            return None
    numbers: set[Var] = set()  # variables that passed number/1 (integer/1, float/1)

    def operand(t: Term) -> Operand | None:
        if type(t) is Var:
            return where.get(t)
        return t if is_ground(t) else None

    for lit in clause.body:
        if type(lit) is Const and lit.value == "true":
            continue
        if type(lit) is not Struct:
            return None
        name, n = lit.name, len(lit.args)
        if n == 1 and name in TYPE_TESTS:
            x = operand(lit.args[0])
            if x is None:
                return None
            tests.append(Test(K.T_TYPE, x, TYPE_TESTS[name]))
            if name in _NUMERIC and type(lit.args[0]) is Var:
                numbers.add(lit.args[0])
            continue
        if n != 2 or (name not in _COMPARE and name not in _IDENTITY):
            return None
        left, right = operand(lit.args[0]), operand(lit.args[1])
        if left is None or right is None:
            return None
        if name in _IDENTITY:
            tests.append(Test(_IDENTITY[name], left, right))
            continue
        for t in lit.args:
            if type(t) is Var:
                if guarded and t not in numbers:
                    return None
            elif not (type(t) is Const and type(t.value) in (int, float)):
                return None  # an expression or a non-number: Prolog evaluates or raises
        tests.append(Test(_COMPARE[name], left, right))
    return tuple(tests)
