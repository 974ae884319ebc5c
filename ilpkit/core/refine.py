"""Legal clauses within a bottom clause, and their refinements.

A clause within a bottom clause is a set of literal indices, kept as a sorted tuple; its body
is those literals in bottom-clause order.  It is *legal* when every input variable of every
literal is a head input or an output of an earlier literal of the clause (dissertation 2.2).
``clauselength`` counts the head.

Sets are handled as Python int bitmasks internally: legality of adding literal ``k`` to a
clause ``S`` is, for each input variable ``v`` of ``k`` that is not a head input,
``suppliers[v] & S & (1 << k) - 1 != 0`` -- a few integer operations per variable.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from ilpkit.core.bottom import BottomClause

ClauseIds = tuple[int, ...]


class Refiner:
    """Refinement operators over one bottom clause."""

    def __init__(self, bottom: BottomClause, clauselength: int | None = None):
        self.bottom = bottom
        self.clauselength = clauselength
        self.n = len(bottom.literals)
        heads = bottom.head_inputs
        # needs[k]: input variables of literal k that the head does not supply
        self.needs: list[tuple[int, ...]] = [
            tuple(sorted({v for v in lit.inputs if v not in heads})) for lit in bottom.literals
        ]
        self.suppliers = bottom.suppliers
        self.head_only = [k for k in range(self.n) if not self.needs[k]]

    # -- masks ----------------------------------------------------------------------------------
    @staticmethod
    def mask(ids: Iterable[int]) -> int:
        m = 0
        for i in ids:
            m |= 1 << i
        return m

    @staticmethod
    def ids(mask: int) -> ClauseIds:
        out = []
        i = 0
        while mask:
            low = mask & -mask
            i = low.bit_length() - 1
            out.append(i)
            mask ^= low
        return tuple(out)

    def supplied(self, k: int, mask: int) -> bool:
        """Whether literal ``k``'s inputs are supplied by the clause ``mask`` (earlier ones)."""
        earlier = mask & ((1 << k) - 1)
        suppliers = self.suppliers
        return all(suppliers[v] & earlier for v in self.needs[k])

    # -- legality -----------------------------------------------------------------------------
    def is_legal(self, clause: Sequence[int]) -> bool:
        if len(set(clause)) != len(clause) or any(not 0 <= k < self.n for k in clause):
            return False
        m = self.mask(clause)
        if self.clauselength is not None and len(clause) + 1 > self.clauselength:
            return False
        return all(self.supplied(k, m) for k in clause)

    def supplied_all(self, clause: Sequence[int]) -> bool:
        """Whether, listed in bottom-clause order, the clause binds every literal's inputs."""
        m = self.mask(clause)
        return all(self.supplied(k, m) for k in clause)

    def can_grow(self, clause: Sequence[int]) -> bool:
        return self.clauselength is None or len(clause) + 2 <= self.clauselength

    # -- refinements ----------------------------------------------------------------------------
    def additions(self, clause: Sequence[int]) -> list[int]:
        """Literals that can be added keeping the clause legal (within clauselength)."""
        if not self.can_grow(clause):
            return []
        m = self.mask(clause)
        supplied = self.supplied
        return [k for k in range(self.n) if not (m >> k) & 1 and supplied(k, m)]

    def removals(self, clause: Sequence[int]) -> list[int]:
        """Literals whose removal leaves a legal clause."""
        m = self.mask(clause)
        out = []
        for j in clause:
            rest = m & ~(1 << j)
            if all(self.supplied(k, rest) for k in clause if k > j):
                out.append(j)
        return out

    def add(self, clause: Sequence[int], k: int) -> ClauseIds:
        return tuple(sorted((*clause, k)))

    def remove(self, clause: Sequence[int], j: int) -> ClauseIds:
        return tuple(i for i in clause if i != j)

    def neighbours(self, clause: Sequence[int]) -> list[ClauseIds]:
        """Add-one and remove-one refinements (Rapid Random Restart's local moves)."""
        base = tuple(clause)
        out = [self.add(base, k) for k in self.additions(base)]
        out.extend(self.remove(base, j) for j in self.removals(base))
        return out

    def random_clause(self, length: int, rng: random.Random) -> ClauseIds:
        """A random legal clause with ``length`` body literals (fewer if none can be added).

        Grows from the empty body, each step choosing uniformly among the legal additions.
        """
        clause: ClauseIds = ()
        for _ in range(length):
            options = self.additions(clause)
            if not options:
                break
            clause = self.add(clause, rng.choice(options))
        return clause
