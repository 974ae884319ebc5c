"""A hand-written bottom clause shared by the RRR and directed-RRR tests.

    p(A) :- q(A,B), r(B,C), s(A), t(C), u(B).      literals 0..4

with modes p(+), q(+,-), r(+,-), s(+), t(+), u(+): A is the head input (variable 0), q outputs
B (1), r takes B and outputs C (2), t takes C, u takes B. A clause is legal when r and u come
with q, and t with r.
"""

from __future__ import annotations

from ilpkit.core.bottom import BottomClause, BottomLiteral
from ilpkit.prolog.terms import Const, Struct, Term, Var

# (name, input variables, output variables) of literals 0..4; variables A=0, B=1, C=2
LITERALS = [("q", (0,), (1,)), ("r", (1,), (2,)), ("s", (0,), ()), ("t", (2,), ()),
            ("u", (1,), ())]  # fmt: skip
NAMES = "ABC"


def hand_bottom(
    spec: list[tuple[str, tuple[int, ...], tuple[int, ...]]] | None = None,
) -> BottomClause:
    """The bottom clause of ``spec`` (default LITERALS), head p(A) with A the only input."""
    spec = LITERALS if spec is None else spec
    n_vars = 1 + max(v for _, ins, outs in spec for v in (*ins, *outs))
    literals = []
    suppliers = [0] * n_vars
    for k, (name, ins, outs) in enumerate(spec):
        args: tuple[Term, ...] = tuple(Var(_name(v)) for v in (*ins, *outs))
        ground: tuple[Term, ...] = tuple(Const(f"c{v}") for v in (*ins, *outs))
        literals.append(BottomLiteral(Struct(name, args), Struct(name, ground), k, 1, ins, outs))
        for v in outs:
            suppliers[v] |= 1 << k
    return BottomClause(
        seed=Struct("p", (Const("c0"),)),
        head=Struct("p", (Var("A"),)),
        literals=tuple(literals),
        head_inputs=frozenset({0}),
        head_outputs=frozenset(),
        n_vars=n_vars,
        modes=(),
        suppliers=tuple(suppliers),
    )


def _name(v: int) -> str:
    return NAMES[v] if v < len(NAMES) else f"V{v}"
