"""The compiled coverage kernel: one clause, tuple at a time, first solution per example.

Why: the set-at-a-time engine (:mod:`.engine`) builds whole binding tables with numpy calls
(a few milliseconds per clause), while coverage only needs to know *whether* each example has
a solution.  This kernel answers exactly that question by depth-first search over the fact
indexes, example by example, in compiled code (numba), doing the least work the semantics
allow:

* it stops at an example's first solution (existential semantics, as ``\\+ \\+ Body``);
* a literal none of whose new variables is needed later is proved *once*: its other
  solutions cannot change the rest of the proof, so it is never retried;
* a literal that has no solution at all for the current bindings jumps straight back to the
  latest literal that bound one of its inputs (graph-based backjumping, Dechter 1990): the
  literals in between cannot change its inputs, so retrying them is wasted work.

All three are sound for conjunctions of pure literals (facts, comparisons, ground
(dis)unification): the covered set is exactly the one SLD resolution gives.  The plan (which
literal, which index, which variable slot) is built in Python by :mod:`.plan`; the kernel only
interprets flat integer arrays.  The same function is compiled from C where a compiler is at
hand (:mod:`.ckernel`, ``cover_rows.c``), else by numba; with neither it runs as plain Python
(used by tests) and the backend keeps its numpy engine instead.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Final

import numpy as np


def numba_cache_dir() -> str:
    """Where numba keeps the compiled kernel: ``$ILPKIT_CACHE/numba`` (default
    ``$XDG_CACHE_HOME/ilpkit/numba``, i.e. ``~/.cache/ilpkit/numba``), or ``NUMBA_CACHE_DIR``
    when the user set it.

    Why not numba's default, a ``__pycache__`` next to this file: in a ``pip install .`` that is
    ``site-packages/ilpkit/...``, a folder pip does not own; replacing the install (e.g. by
    ``pip install -e .``) leaves it behind, and it then shadows the new install as a namespace
    package (``cannot import name '__version__' from 'ilpkit'``)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    from ilpkit.core.outpaths import cache_root

    return str(cache_root() / "numba")


def _prepare_numba_cache() -> bool:
    """Point numba's cache outside the package (before the kernel is decorated); False (no
    on-disk cache, compile in each process) when that folder cannot be made."""
    folder = numba_cache_dir()
    try:
        os.makedirs(folder, exist_ok=True)
        if not os.access(folder, os.W_OK | os.X_OK):
            return False
    except OSError:
        return False
    os.environ["NUMBA_CACHE_DIR"] = folder  # also for worker processes
    config = sys.modules.get("numba.core.config")
    if config is not None and getattr(config, "CACHE_DIR", "") != folder:
        config.reload_config()  # numba was imported before: read the variable again
        if getattr(config, "CACHE_DIR", "") != folder:  # pragma: no cover - numba changed
            return False
    return True


_CACHE = _prepare_numba_cache()

# literal kinds
FACT: Final = 0
CMP: Final = 1  # arithmetic comparison of two bound numbers
BIND: Final = 2  # X = t with X unbound: binds X
EQ: Final = 3  # identity of two bound ground terms (=, == on ground terms)
NEQ: Final = 4  # non-identity (\=, \== on ground terms)
TESTS: Final = 5  # a rule-defined literal made of tests of its bound arguments (.unfold)
ASK: Final = 6  # a rule-defined literal with every argument bound: a yes/no question (.ask)

# argument modes
CONST: Final = 0  # a constant: id (facts, (dis)equality) or number (comparisons)
CHECK: Final = 1  # a bound variable: slot
NEW: Final = 2  # a variable bound here: slot

# comparison operators
LT, GT, LE, GE, EQN, NEN = 0, 1, 2, 3, 4, 5
# the other tests of a TESTS literal: identity, non-identity, type (the bits it accepts)
T_SAME, T_DIFF, T_TYPE = 6, 7, 8

# answers of questions (ASK literals), as the kernel reads them (.ask.Questions)
UNKNOWN, YES, NO = 0, 1, 2
ASK_WIDTH: Final = 4  # a question: its predicate's number and at most 3 argument ids
ASK_PRIME: Final = 1000003
UNDECIDED: Final = 2  # in covered: the example's proof asked a question not answered yet

# kernel status
OK: Final = 0
OVER_BUDGET: Final = 1
NOT_A_NUMBER: Final = 2
PAUSED: Final = 3


def _compare(op: int, x: float, y: float) -> bool:
    if op == LT:
        return x < y
    if op == GT:
        return x > y
    if op == LE:
        return x <= y
    if op == GE:
        return x >= y
    if op == EQN:
        return x == y
    return x != y


def _cover_rows(
    head_data: Any,
    head_arity: int,
    rows: Any,
    hcol: Any,
    ranks: Any,
    strides: Any,
    memo: Any,
    nslots: int,
    kind: Any,
    tab: Any,
    arity: Any,
    keycol: Any,
    keymode: Any,
    keyval: Any,
    idx: Any,
    a_start: Any,
    a_end: Any,
    amode: Any,
    acol: Any,
    aval: Any,
    afl: Any,
    cop: Any,
    once: Any,
    dep: Any,
    tabs: Any,
    tab_at: Any,
    orders: Any,
    order_at: Any,
    starts: Any,
    start_at: Any,
    num: Any,
    types: Any,
    ask_keys: Any,
    ask_vals: Any,
    want: Any,
    budget: int,
    pause: int,
    state: Any,
    covered: Any,
    slots: Any,
    pos: Any,
    hi: Any,
    found: Any,
) -> Any:
    """Which of ``rows`` (rows of the head predicate's example table) the body covers.

    Slot ``j`` starts as column ``hcol[j]`` of the row.  ``tabs``, ``orders`` and ``starts``
    are :class:`Segments` (a flat array and its offsets ``*_at``): table ``t``'s data is
    ``tabs[tab_at[t]:tab_at[t + 1]]``, index ``i``'s row order and key starts likewise; an
    index with no key starts is sparse (keys spread over far more ids than it has rows) and
    is looked up by bisecting its row order instead.  ``num`` and ``types`` give each id's
    value as a float (NaN: not a number, or not exactly a float) and its type bits
    (:func:`.store.type_bits`).  ``ask_keys`` and ``ask_vals`` are the answers known so far
    to the questions ASK literals ask (an open-addressing hash table, :class:`.ask.Questions`);
    a question not answered yet counts as a failure, is written to ``want`` (``[literal,
    argument ids...]`` one after the other, while there is room), and an example not proved
    without it is reported ``UNDECIDED`` (2) in ``covered`` and not memoised: the caller
    answers the questions and runs those examples again.
    With a non-empty ``memo`` (0 unknown, 1 covered, 2 not; indexed by the sum of ``ranks``
    of those columns times ``strides``) each distinct tuple of head values is proved once,
    and the answers are kept there.
    Returns ``(covered, status, steps)``: ``covered`` (the array given, 0/1 per row), ``OK``
    / ``OVER_BUDGET`` (more than ``budget`` candidate tests: the caller falls back) /
    ``NOT_A_NUMBER`` (a comparison met a non-number: Prolog raises, so the caller falls back;
    or a number whose float is not its value: an integer beyond 2**53)
    / ``PAUSED`` (``pause`` candidate tests done: the search stopped between two literals,
    its place kept in ``state``, ``slots``, ``pos``, ``hi``, ``found``; calling again with
    them resumes it).  ``state`` is ``[example, literal, entering, asked, wanted]`` (literal
    -1: start the example afresh; asked: the example met an unanswered question; wanted: the
    entries in ``want``).  Why pause: the caller checks its time and memory limits between slices,
    so one long clause cannot overrun them (numba code cannot read the clock).
    """
    n_lits = kind.shape[0]
    n_head = hcol.shape[0]
    use_memo = memo.shape[0] > 0
    steps = 0
    e = state[0]
    while e < rows.shape[0]:
        base = rows[e] * head_arity
        mkey = 0
        if use_memo:
            for j in range(n_head):
                mkey += ranks[base + hcol[j]] * strides[j]
        if state[1] >= 0:  # resume inside this example
            k = state[1]
            enter = state[2] == 1
            state[1] = -1
        else:
            if use_memo:
                known = memo[mkey]
                if known != 0:
                    if known == 1:
                        covered[e] = 1
                    e += 1
                    continue
            for j in range(n_head):
                slots[j] = head_data[base + hcol[j]]
            state[3] = 0
            if n_lits == 0:
                covered[e] = 1
                if use_memo:
                    memo[mkey] = 1
                e += 1
                continue
            k = 0
            enter = True
        while True:
            if steps >= pause:
                state[0] = e
                state[1] = k
                state[2] = 1 if enter else 0
                return covered, PAUSED, steps
            kd = kind[k]
            success = False
            if kd == FACT:
                t = tab[k]
                data = tabs[tab_at[t] : tab_at[t + 1]]
                ar = arity[k]
                kc = keycol[k]
                if enter:
                    found[k] = 0
                    if kc < 0:
                        pos[k] = 0
                        hi[k] = data.shape[0] // ar if ar > 0 else 1
                    else:
                        key = keyval[k] if keymode[k] == CONST else slots[keyval[k]]
                        ix = idx[k]
                        s_lo = start_at[ix]
                        s_len = start_at[ix + 1] - s_lo
                        if s_len == 0:  # a sparse index: bisect the rows sorted by key
                            o_lo = order_at[ix]
                            a = 0
                            b = order_at[ix + 1] - o_lo
                            while a < b:  # first row whose key is >= key
                                m = (a + b) // 2
                                if data[orders[o_lo + m] * ar + kc] < key:
                                    a = m + 1
                                else:
                                    b = m
                            pos[k] = a
                            b = order_at[ix + 1] - o_lo
                            while a < b:  # first row whose key is > key
                                m = (a + b) // 2
                                if data[orders[o_lo + m] * ar + kc] <= key:
                                    a = m + 1
                                else:
                                    b = m
                            hi[k] = a
                        elif key + 1 < s_len:
                            pos[k] = starts[s_lo + key]
                            hi[k] = starts[s_lo + key + 1]
                        else:
                            pos[k] = 0
                            hi[k] = 0
                p = pos[k]
                h = hi[k]
                s0 = a_start[k]
                s1 = a_end[k]
                o_lo = order_at[idx[k]] if kc >= 0 else 0
                while p < h:
                    steps += 1
                    r = p if kc < 0 else orders[o_lo + p]
                    p += 1
                    rb = r * ar
                    match = True
                    for a in range(s0, s1):
                        v = data[rb + acol[a]]
                        m = amode[a]
                        if m == CONST:
                            if v != aval[a]:
                                match = False
                                break
                        elif m == CHECK:
                            if slots[aval[a]] != v:
                                match = False
                                break
                        else:
                            slots[aval[a]] = v
                    if match:
                        success = True
                        break
                pos[k] = p
            else:
                steps += 1
                a = a_start[k]
                if kd == BIND:
                    src = aval[a + 1] if amode[a + 1] == CONST else slots[aval[a + 1]]
                    slots[aval[a]] = src
                    success = True
                elif kd in (EQ, NEQ):
                    x = aval[a] if amode[a] == CONST else slots[aval[a]]
                    y = aval[a + 1] if amode[a + 1] == CONST else slots[aval[a + 1]]
                    success = (x == y) == (kd == EQ)
                elif kd == CMP:
                    x = afl[a] if amode[a] == CONST else num[slots[aval[a]]]
                    y = afl[a + 1] if amode[a + 1] == CONST else num[slots[aval[a + 1]]]
                    if np.isnan(x) or np.isnan(y):
                        return covered, NOT_A_NUMBER, steps
                    success = _compare(cop[k], x, y)
                elif kd == ASK:
                    n = a_end[k] - a
                    cap = ask_vals.shape[0]
                    h = cop[k]
                    for j in range(n):
                        v = aval[a + j] if amode[a + j] == CONST else slots[aval[a + j]]
                        h = (h * ASK_PRIME + v) % cap
                    answer = UNKNOWN
                    while ask_vals[h] != UNKNOWN:
                        b = h * ASK_WIDTH
                        same = ask_keys[b] == cop[k]
                        j = 0
                        while same and j < n:
                            v = aval[a + j] if amode[a + j] == CONST else slots[aval[a + j]]
                            same = ask_keys[b + 1 + j] == v
                            j += 1
                        if same:
                            answer = ask_vals[h]
                            break
                        h = (h + 1) % cap
                    if answer == YES:
                        success = True
                    elif answer == UNKNOWN:
                        state[3] = 1
                        m = state[4]
                        if m + 1 + n <= want.shape[0]:
                            want[m] = k
                            for j in range(n):
                                v = aval[a + j] if amode[a + j] == CONST else slots[aval[a + j]]
                                want[m + 1 + j] = v
                            state[4] = m + 1 + n
                else:
                    # TESTS: pairs of argument entries; acol of the first is the test, of
                    # the second 1 where a clause's tests end; operands are ids (CONST) or
                    # slots (CHECK); a type test's second entry holds the bits it accepts
                    ok = True
                    end = a_end[k]
                    while a < end:
                        if ok:
                            op = acol[a]
                            x = aval[a] if amode[a] == CONST else slots[aval[a]]
                            if op == T_TYPE:
                                ok = (types[x] & aval[a + 1]) != 0
                            else:
                                y = aval[a + 1] if amode[a + 1] == CONST else slots[aval[a + 1]]
                                if op == T_SAME:
                                    ok = x == y
                                elif op == T_DIFF:
                                    ok = x != y
                                else:
                                    fx = num[x]
                                    fy = num[y]
                                    if np.isnan(fx) or np.isnan(fy):
                                        return covered, NOT_A_NUMBER, steps
                                    ok = _compare(op, fx, fy)
                        if acol[a + 1] == 1:
                            if ok:
                                success = True
                                break
                            ok = True
                        a += 2
            if steps > budget:
                return covered, OVER_BUDGET, steps
            if success:
                found[k] = 1
                k += 1
                if k == n_lits:
                    covered[e] = 1
                    break
                enter = True
                continue
            # failure at k: with no solution since entry, jump to the binder of its inputs
            k = k - 1 if (kd == FACT and found[k] == 1) else dep[k]
            while k >= 0 and (kind[k] != FACT or once[k] == 1):
                k -= 1
            if k < 0:
                break
            enter = False
        if covered[e] == 0 and state[3] == 1:
            covered[e] = UNDECIDED
        elif use_memo:
            memo[mkey] = 1 if covered[e] == 1 else 2
        state[3] = 0
        e += 1
    state[0] = e
    return covered, OK, steps


class Segments:
    """Int64 arrays kept end to end in one growing flat array, with their offsets: what the
    kernel reads instead of a list of arrays.

    Why not numba's typed list: building one compiles its methods in every new process
    (seconds, not cached on disk), while two flat arrays cost nothing to hand to the kernel.
    The buffer doubles when full, so appending ``n`` values costs amortised O(n)."""

    def __init__(self) -> None:
        self._flat = np.zeros(1024, dtype=np.int64)
        self._at = np.zeros(16, dtype=np.int64)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def append(self, a: Any) -> int:
        """Add ``a`` (flattened to int64) as the next segment; returns its index."""
        values = as_ids(a)
        lo = int(self._at[self._count])
        hi = lo + values.shape[0]
        if hi > self._flat.shape[0]:
            grown = np.zeros(max(hi, 2 * self._flat.shape[0]), dtype=np.int64)
            grown[:lo] = self._flat[:lo]
            self._flat = grown
        self._flat[lo:hi] = values
        if self._count + 2 > self._at.shape[0]:
            self._at = np.concatenate([self._at, np.zeros_like(self._at)])
        self._count += 1
        self._at[self._count] = hi
        return self._count - 1

    def __getitem__(self, i: int) -> Any:
        """Segment ``i`` (a view)."""
        if not 0 <= i < self._count:
            raise IndexError(i)
        return self._flat[self._at[i] : self._at[i + 1]]

    def arrays(self) -> tuple[Any, Any]:
        """``(flat, offsets)`` as the kernel takes them (views, no copy)."""
        return self._flat, self._at[: self._count + 1]


KERNEL_CHOICES: Final = ("auto", "c", "numba", "python")
"""Values of ``ILPKIT_KERNEL``: auto (C where it can be built, else numba), or one of them
(``python``: the plain-Python kernel, no compiled one, for tests)."""

_LAZY: Final = ("cover_rows", "known_rows", "HAVE_COMPILED", "KERNEL_IMPL", "WHY_NOT_C")


def _known_rows(memo: Any, row_keys: Any, rows: Any, out: Any) -> int:
    """When ``memo`` knows the answer of every row (``memo[row_keys[row]] != 0``), the rows
    it answers yes (1) written in order to ``out``'s start, and their number; else -1.
    (numpy; the C module's ``known_rows`` is the same in one call.)"""
    known = memo[row_keys[rows]]
    if np.count_nonzero(known) != len(known):
        return -1
    yes = rows[known == 1]
    out[: len(yes)] = yes
    return len(yes)


def __getattr__(name: str) -> Any:
    """``cover_rows`` (the compiled kernel), ``known_rows`` (:func:`_known_rows`, from C
    with the C kernel), ``HAVE_COMPILED``, ``KERNEL_IMPL`` (``c``, ``numba`` or ``python``)
    and ``WHY_NOT_C``, made on first use.

    Why: loading a compiled kernel costs something (numba: about 0.6 CPU s and 130 MB), which
    every command paid when this module imported numba; most never run the kernel."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _kernel()
    return globals()[name]


def _choice() -> str:
    """``ILPKIT_KERNEL``, normalised (unset or empty: ``auto``)."""
    return os.environ.get("ILPKIT_KERNEL", "").strip().lower() or "auto"


def _kernel() -> tuple[Any, bool]:
    """``(cover_rows, HAVE_COMPILED)``, choosing and loading the kernel the first time:
    :mod:`.ckernel`'s C build, else numba's (``ILPKIT_KERNEL`` forces one)."""
    made = globals()
    if "cover_rows" not in made:
        choice = _choice()
        if choice not in KERNEL_CHOICES:
            from ilpkit.errors import ConfigError

            raise ConfigError(
                f"ILPKIT_KERNEL={choice!r}: expected one of {', '.join(KERNEL_CHOICES)}"
            )
        kernel: Any = None
        known: Any = _known_rows
        impl, why_not_c = "python", f"ILPKIT_KERNEL={choice}"  # why not C: the user's choice
        if choice in ("auto", "c"):
            from ilpkit.plugins.backends.native import ckernel

            module, why = ckernel.load_module()
            why_not_c = why or ""
            if module is not None:
                kernel, known, impl = module.cover_rows, module.known_rows, "c"
        if kernel is None and choice in ("auto", "c", "numba"):
            try:  # numba is a dependency, but the backend must work where it cannot be imported
                kernel, impl = numba_kernel(), "numba"
            except ImportError:  # pragma: no cover - exercised only without numba
                kernel = None
        if kernel is None:
            kernel = _cover_rows
        made.update(
            cover_rows=kernel,
            known_rows=known,
            HAVE_COMPILED=impl != "python",
            KERNEL_IMPL=impl,
            WHY_NOT_C=None if impl == "c" else why_not_c,
        )
    return made["cover_rows"], made["HAVE_COMPILED"]


def numba_kernel() -> Any:
    """numba's compilation of the kernel (raises ImportError without numba)."""
    made = globals()
    if "_numba_cover_rows" not in made:
        from numba import njit

        made["_compare"] = njit(cache=_CACHE, nogil=True)(_compare)  # the kernel calls it
        made["_numba_cover_rows"] = njit(cache=_CACHE, nogil=True)(_cover_rows)
    return made["_numba_cover_rows"]


def ready() -> bool:
    """Whether the kernel loads at no real cost: already loaded, or a C build of it is in the
    cache (and ``ILPKIT_KERNEL`` allows C)."""
    if "cover_rows" in globals():
        return bool(globals()["HAVE_COMPILED"]) and globals()["KERNEL_IMPL"] == "c"
    if _choice() not in ("auto", "c"):
        return False
    from ilpkit.plugins.backends.native import ckernel

    return ckernel.built()


def as_ids(a: Any) -> Any:
    """A C-contiguous 1-D int64 view or copy (what the kernel's lists hold)."""
    return np.ascontiguousarray(np.asarray(a, dtype=np.int64).reshape(-1))


def warm_up() -> float:
    """Compile (or load from the cache) the kernel now; returns the CPU seconds spent.

    Why: the first call otherwise pays it inside whatever is being timed or searched."""
    import time

    start = time.process_time()
    cover_rows, compiled = _kernel()
    if compiled:
        z = np.zeros(0, dtype=np.int64)
        one = np.zeros(1, dtype=np.int64)
        cover_rows(
            one, 1, one, one, one, one, np.zeros(1, dtype=np.uint8), 1,
            z, z, z, z, z, z, z, z, z, z, z, z, np.zeros(0, dtype=np.float64), z, z, z,
            z, one, z, one, z, one, np.zeros(1, dtype=np.float64), z,
            np.zeros(ASK_WIDTH, dtype=np.int64), one.copy(), z, 10, 10,
            np.array([0, -1, 1, 0, 0], dtype=np.int64), np.zeros(1, dtype=np.uint8), one.copy(),
            one.copy(), one.copy(), np.zeros(1, dtype=np.uint8),
        )  # fmt: skip
    return time.process_time() - start
