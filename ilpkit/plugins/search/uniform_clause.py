"""Uniform sampling over the legal clauses of a bottom clause (dissertation Table 5.1).

RRR's restart "picks a random legal clause" uniformly. A clause is a subset S of the bottom
clause's literals in which every literal's non-head input variables are outputs of earlier
literals of S (:mod:`ilpkit.core.refine`). The legal subsets of each size are counted by
dynamic programming over the literals in bottom-clause order: the state after deciding
literals ``0 .. k-1`` is the set of variables those chosen supply, restricted to variables
some literal ``>= k`` still needs (other variables cannot change what follows). Then

    count(k, A)[r] = count(k+1, A)[r] + [needs(k) <= A] * count(k+1, A | outputs(k))[r-1].

A size r is drawn in proportion to count(0, {})[r] (r = 1 .. max_len), then each literal is
taken with probability count(k+1, A')[r-1] / count(k, A)[r]: every legal clause of 1..max_len
literals is equally likely. Counts are exact Python integers and draws use ``randrange`` on
them, so a seeded draw is the same everywhere.

The number of states can grow exponentially with the number of variables that are live at
once; beyond ``max_states`` the sampler refuses (:class:`TooManyStates`) and the caller falls
back to another start (RRR documents its fallback).
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from ilpkit.core.refine import ClauseIds, Refiner

Counts = tuple[int, ...]


class TooManyStates(Exception):
    """The dynamic programme would hold more than ``max_states`` states."""


class LegalClauseSampler:
    """Counts legal clauses by size and draws them uniformly (module docstring)."""

    def __init__(self, refiner: Refiner, max_len: int, max_states: int = 200_000) -> None:
        bottom = refiner.bottom
        n = refiner.n
        self.n = n
        self.max_len = max_len
        self.needs = [_bits(refiner.needs[k]) for k in range(n)]
        heads = bottom.head_inputs
        self.outputs = [_bits(v for v in lit.outputs if v not in heads) for lit in bottom.literals]
        # live[k]: variables needed by some literal >= k
        live = [0] * (n + 1)
        for k in range(n - 1, -1, -1):
            live[k] = live[k + 1] | self.needs[k]
        self.live = live
        # forward pass: reachable states per layer
        layers: list[set[int]] = [{0}]
        total = 1
        for k in range(n):
            nxt: set[int] = set()
            for state in layers[k]:
                nxt.add(state & live[k + 1])
                if self.needs[k] & ~state == 0:
                    nxt.add((state | self.outputs[k]) & live[k + 1])
            total += len(nxt)
            if total > max_states:
                raise TooManyStates(f"more than {max_states} states")
            layers.append(nxt)
        # backward pass: counts by size, truncated at max_len
        width = max_len + 1
        end: Counts = (1,) + (0,) * max_len
        self.table: list[dict[int, Counts]] = [{} for _ in range(n + 1)]
        self.table[n] = {s: end for s in layers[n]}
        for k in range(n - 1, -1, -1):
            after = self.table[k + 1]
            row: dict[int, Counts] = {}
            for state in layers[k]:
                skip = after[state & live[k + 1]]
                if self.needs[k] & ~state == 0:
                    take = after[(state | self.outputs[k]) & live[k + 1]]
                    row[state] = tuple(skip[r] + (take[r - 1] if r else 0) for r in range(width))
                else:
                    row[state] = skip
            self.table[k] = row

    def counts_by_size(self) -> Counts:
        """Legal clauses with 0, 1, ..., max_len body literals."""
        return self.table[0][0]

    def sample(self, rng: random.Random) -> ClauseIds:
        """A legal clause with 1..max_len literals, uniformly; () if there is none."""
        by_size = self.counts_by_size()
        total = sum(by_size[1:])
        if total == 0:
            return ()
        pick = rng.randrange(total)
        r = 1
        while pick >= by_size[r]:
            pick -= by_size[r]
            r += 1
        state = 0
        chosen: list[int] = []
        for k in range(self.n):
            if r == 0:
                break
            here = self.table[k][state][r]
            take = 0
            if self.needs[k] & ~state == 0:
                taken_state = (state | self.outputs[k]) & self.live[k + 1]
                take = self.table[k + 1][taken_state][r - 1]
            if take and rng.randrange(here) < take:
                chosen.append(k)
                state = taken_state
                r -= 1
            else:
                state &= self.live[k + 1]
        return tuple(chosen)


def _bits(variables: Iterable[int]) -> int:
    mask = 0
    for v in variables:
        mask |= 1 << v
    return mask
