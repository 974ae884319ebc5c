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

Only states that some choice of at most ``max_len`` literals reaches are kept: the forward
pass records, per state, the fewest literals that reach it, and drops a state that needs more
than ``max_len``. This is exact for every count the sampler uses: a path through a dropped
state has more than ``max_len`` literals, and a draw asks ``count(k, A)[r]`` only at a state
``A`` its path reached with ``c`` literals, ``c + r <= max_len`` (on UW-CSE ``advisedby`` at
``i=5``, clause length 10, it keeps 2.7 to 4.5 times fewer states).

The number of states can still grow exponentially with the number of variables that are live
at once; beyond ``max_states`` the sampler refuses (:class:`TooManyStates`) and the caller
falls back to another start, counts it, and the learner says so in the model's ``info``
(:func:`start_fallback_note`; issue 31).
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
        # forward pass: states reachable with at most max_len literals, each with the fewest
        # literals that reach it
        layers: list[dict[int, int]] = [{0: 0}]
        total = 1
        for k in range(n):
            nxt: dict[int, int] = {}
            for state, used in layers[k].items():
                skip = state & live[k + 1]
                if nxt.get(skip, max_len + 1) > used:
                    nxt[skip] = used
                if used < max_len and self.needs[k] & ~state == 0:
                    take = (state | self.outputs[k]) & live[k + 1]
                    if nxt.get(take, max_len + 1) > used + 1:
                        nxt[take] = used + 1
            total += len(nxt)
            if total > max_states:
                raise TooManyStates(f"more than {max_states} states")
            layers.append(nxt)
        # backward pass: counts by size, truncated at max_len (a dropped state counts 0)
        width = max_len + 1
        end: Counts = (1,) + (0,) * max_len
        self.zero: Counts = (0,) * width
        self.table: list[dict[int, Counts]] = [{} for _ in range(n + 1)]
        self.table[n] = {s: end for s in layers[n]}
        for k in range(n - 1, -1, -1):
            after = self.table[k + 1]
            row: dict[int, Counts] = {}
            for state in layers[k]:
                skip_counts = after.get(state & live[k + 1], self.zero)
                if self.needs[k] & ~state == 0:
                    take_counts = after.get((state | self.outputs[k]) & live[k + 1], self.zero)
                    row[state] = tuple(
                        skip_counts[r] + (take_counts[r - 1] if r else 0) for r in range(width)
                    )
                else:
                    row[state] = skip_counts
            self.table[k] = row
        self.states = total

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
                take = self.table[k + 1].get(taken_state, self.zero)[r - 1]
            if take and rng.randrange(here) < take:
                chosen.append(k)
                state = taken_state
                r -= 1
            else:
                state &= self.live[k + 1]
        return tuple(chosen)


def start_fallback_note(
    searches: int, of_searches: int, restarts: int, of_restarts: int, max_states: int
) -> str:
    """The model-info line of a learner whose searches fell back from the uniform start."""
    return (
        f"{searches:,} of {of_searches:,} searches ({restarts:,} of {of_restarts:,} restarts) "
        "drew their restart clauses with length-then-additions, not uniformly over the legal "
        f"clauses: counting their bottom clause's legal clauses needed more than {max_states:,} "
        "states (search.max_start_states; docs/directed-rrr.md)"
    )


def _bits(variables: Iterable[int]) -> int:
    mask = 0
    for v in variables:
        mask |= 1 << v
    return mask
