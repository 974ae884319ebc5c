"""Constants, the body part record and term helpers shared by the native backend's modules
(:mod:`~ilpkit.plugins.backends.native.engine`, ``kernel_cover``, ``table_cover``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from ilpkit.plugins.backends.native.demand import DemandTable
from ilpkit.plugins.backends.native.plan import (
    Plan,
)
from ilpkit.plugins.backends.native.store import FactTable, Ids
from ilpkit.prolog.terms import (
    Clause,
    Const,
    Struct,
    Term,
    Var,
    iter_vars,
    substitute,
)

COMPARISONS: Final = {
    "<": np.less,
    ">": np.greater,
    "=<": np.less_equal,
    ">=": np.greater_equal,
    "=:=": np.equal,
    "=\\=": np.not_equal,
}
_EMPTY: Final = np.zeros(0, dtype=np.int64)


@dataclass(slots=True, eq=False)
class Part:
    """One body part as the kernel runs it, with its answers so far per tuple of head values
    (``memo``) and the demand-driven tables its plan joins (rebuilt when one grows)."""

    plan: Plan
    hcol: Ids
    strides: Ids
    memo: npt.NDArray[np.uint8]
    demands: list[DemandTable]
    versions: list[int]
    hv: list[Var]
    lits: list[Term]
    binders: dict[Var, tuple[FactTable, int]]
    row_keys: Ids
    """Each example row's position in ``memo`` (:meth:`HeadIndex.row_keys`)."""


_BROKEN: Final = -1  # a kernel status: a demand-driven table's completion raised
_MEMO_LIMIT: Final = 1 << 22  # largest per-part answer array (entries, one byte each)
_PARTS_LIMIT: Final = 2_000
"""Body parts kept (least recently used dropped first). Each holds a plan and its answers
(a few KB); 200,000 took pyrimidines' ``--learner aleph`` to 161 MB against 74 MB with
2,000, at the same CPU time (issue 32: the refinements of a clause reuse its parts soon
after it is evaluated, or not at all)."""


COMPARISONS_2: Final = frozenset((op, 2) for op in COMPARISONS)
_UNIFY: Final = frozenset({("=", 2), ("\\=", 2), ("==", 2), ("\\==", 2)})


_CALL_BY_CALL: Final = 16
"""A rule-defined literal the set-at-a-time evaluator refuses is still tabled call by call
over its domain when that has at most this many times ``derive_tuples`` tuples..."""
_CALL_BY_CALL_CPU: Final = 0.2
"""... and takes at most this many CPU seconds (else the table is given up) ..."""
_CALL_BY_CALL_STRIKES: Final = 3
"""... and its predicate is never tried so again once this many of its tables were given up.
Not after the first: one overrun can be a pause of the process rather than the predicate's
cost (mutagenesis: ``gteq/2`` tables take 0.03 s, one of 174 took 0.2 s in a learn run, and
every later ``gteq`` literal went to the numpy engine: 3.5 CPU s)."""


def _part_key(
    key: tuple[str, int], hv: list[Var], cols: list[int], lits: list[Term]
) -> tuple[object, ...]:
    """The memo key of a body part: the same for two parts that are variants reading the
    same head columns.  The head variable at column ``c`` is ``-1 - c``, the others are
    numbered by first occurrence (counting the head variables first).  Literals whose
    arguments are all variables or atomic (bottom-clause literals) are spelled as flat
    tuples, several times cheaper than renaming them (the key is built for every clause a
    search evaluates); others are renamed terms."""
    names: dict[Var, int] = {v: -1 - c for v, c in zip(hv, cols, strict=True)}
    out: list[object] = [key]
    for lit in lits:
        args = lit.args if type(lit) is Struct else ()
        if any(type(a) is Struct for a in args):
            for v in iter_vars(lit):
                if v not in names:
                    names[v] = len(names)
            out.append(substitute(lit, {v: Var(f"_{i}") for v, i in names.items()}))
            continue
        out.append(lit.name if type(lit) is Struct else lit)
        out.append(len(args))
        for a in args:
            if type(a) is Var:
                i = names.get(a)
                if i is None:
                    i = names[a] = len(names)
                out.append(i)
            else:
                out.append(a)
    return tuple(out)


def _indicator(term: Term) -> tuple[str, int]:
    if type(term) is Struct:
        return (term.name, len(term.args))
    if type(term) is Const:
        return (str(term.value), 0)
    return ("", -1)


def _args(term: Term) -> tuple[Term, ...]:
    return term.args if type(term) is Struct else ()


def _is_builtin(key: tuple[str, int]) -> bool:
    from ilpkit.plugins.backends.native.resolution import BUILTINS

    return key in BUILTINS


def _match(pattern: Term, instance: Term) -> dict[Var, Term] | None:
    """One-way matching: the substitution making ``pattern`` equal to ``instance``."""
    out: dict[Var, Term] = {}
    stack = [(pattern, instance)]
    while stack:
        p, t = stack.pop()
        if type(p) is Var:
            prev = out.get(p)
            if prev is None:
                out[p] = t
            elif prev != t:
                return None
        elif type(p) is Struct:
            if type(t) is not Struct or t.name != p.name or len(t.args) != len(p.args):
                return None
            stack.extend(zip(p.args, t.args, strict=True))
        elif p != t:
            return None
    return out


def _renaming(clause: Clause, canonical: Clause) -> dict[Var, Term]:
    """Variables of ``clause`` -> their names in its canonical form."""
    binding = _match(clause.to_term(), canonical.to_term())
    assert binding is not None
    return dict(binding)
