"""Derived tables of rule-defined literals (``native/derive.py``) and the kernel that joins them.

(a) hand-checked cases: what is materialised (the whole relation) and what is tabled over the
    active domain, and what strict mode refuses -- expected rows written from the Prolog
    clauses' meaning (SLD answers), not from the code;
(b) differential: on every bundled dataset (and carcinogenesis from ``../shared/data`` when
    present) random legal clauses and hill-climbing refinement chains get the same coverage
    from the native backend as from SWI-Prolog (the subprocess swipl backend), skipping when
    ``swipl`` is absent; and the same as the native backend with derived tables off.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ilpkit.core.coverage import Coverage
from ilpkit.core.formats import load_task
from ilpkit.core.refine import Refiner
from ilpkit.core.task import Program, Task
from ilpkit.plugins.backends.native.derive import Deriver
from ilpkit.plugins.backends.native.engine import NativeBackend, NativeOptions
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause, Const, Term
from tests.reference_prover import load_bundled, make_task, require_backends, term
from tests.test_subprocess_backend import RING_PERCEPTION

ROOT = Path(__file__).resolve().parent.parent
CARCINOGENESIS = ROOT.parent / "shared" / "data" / "carcinogenesis" / "aleph_yap"

PROGRAM = """
bond(m1, a, b, 1).
bond(m1, b, c, 2).
bond(m2, x, y, 1).
val(a, 1).
val(b, 2).
val(c, 2.5).
val(d, q).
symbond(M, A, B, T) :- var(T), sym_bond(M, A, B, T).
symbond(M, A, B, T) :- nonvar(T), sym_bond(M, A, B, T).
sym_bond(M, A, B, T) :- bond(M, A, B, T).
sym_bond(M, A, B, T) :- bond(M, B, A, T).
gteq(X, X) :- number(X).
gteq(X, Y) :- number(X), number(Y), X >= Y.
inlist(X) :- memberchk(X, [b, c]).
"""


def task_of(text: str) -> Task:
    prog = Program()
    for rt in PrologReader().read_text(text, "test.pl"):
        prog.add_clause(Clause.from_term(rt.term), rt.location)
    shell = make_task([], pos=["h(m1)"], neg=["h(m2)"])
    return Task(
        name="derived", format="test", program=prog, examples=shell.examples, bias=shell.bias
    )


def deriver_for(text: str) -> tuple[NativeBackend, Deriver]:
    backend = NativeBackend(NativeOptions(kernel=True))
    backend.load(task_of(text))
    return backend, backend.deriver


def rows(backend: NativeBackend, data: np.ndarray) -> set[tuple[Term, ...]]:
    terms = backend.interner.terms
    return {tuple(terms[int(i)] for i in row) for row in data.tolist()}


def c(*names: str | int | float) -> tuple[Term, ...]:
    return tuple(Const(n) for n in names)


def domain(backend: NativeBackend, values: list[str | int | float]) -> np.ndarray:
    return np.array([backend.interner.id(Const(v)) for v in values], dtype=np.int64)


def test_symbond_with_a_bond_type_is_materialised_in_both_orientations() -> None:
    # symbond(M, A, B, 1): T = 1 is bound, so only the nonvar/1 clause answers, and sym_bond
    # gives each type-1 bond both ways: (m1,a,b), (m1,b,a), (m2,x,y), (m2,y,x).
    backend, deriver = deriver_for(PROGRAM)
    table = deriver.general("symbond", [None, None, None, Const(1)])
    assert table is not None
    assert rows(backend, table.data) == {
        c("m1", "a", "b", 1),
        c("m1", "b", "a", 1),
        c("m2", "x", "y", 1),
        c("m2", "y", "x", 1),
    }


def test_a_type_test_on_a_free_argument_refuses_materialising() -> None:
    # symbond(M, A, B, T) with T free: var(T) would be false once the caller binds T, so the
    # relation of the free call is not the caller's; strict mode refuses it.
    _, deriver = deriver_for(PROGRAM)
    assert deriver.general("symbond", [None, None, None, None]) is None
    # gteq(X, 2): number(X) on the free X
    assert deriver.general("gteq", [None, Const(2)]) is None
    # memberchk(X, [b, c]) binds a free X to b only; a bound X = c also succeeds
    assert deriver.general("inlist", [None]) is None


def test_gteq_tabled_over_the_active_domain() -> None:
    # gteq(X, 2) for X in {1, 2, 2.5, q}: clause 1 answers X = 2 (2 is a number); clause 2
    # answers the numbers >= 2, i.e. 2 and 2.5; q is not a number, 1 < 2.
    backend, deriver = deriver_for(PROGRAM)
    table = deriver.over_domain("gteq", [None, Const(2)], [(0, domain(backend, [1, 2, 2.5, "q"]))])
    assert table is not None
    assert rows(backend, table.data) == {c(2, 2), c(2.5, 2)}


def test_tabling_again_over_the_same_domain_converts_no_value_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # gteq(X, 1) then gteq(X, 2.5) over {1, 2, 2.5, q}: SLD answers X = 1, 2, 2.5 (>= 1) then
    # X = 2.5.  Each interned term becomes an evaluator value once for the task: the first
    # table converts its constant and the 4 domain terms (5), the second only its constant (1).
    from ilpkit.plugins.backends.native import derive
    from ilpkit.plugins.backends.native.prolog import terms as prolog_terms

    calls: list[Term] = []
    real = prolog_terms._from_term

    def counting(t: Term, on_var: object) -> object:
        calls.append(t)
        return real(t, on_var)  # type: ignore[arg-type]

    monkeypatch.setattr(derive, "_from_term", counting)
    backend, deriver = deriver_for(PROGRAM)
    dom = domain(backend, [1, 2, 2.5, "q"])
    first = deriver.over_domain("gteq", [None, Const(1)], [(0, dom)])
    assert first is not None
    assert rows(backend, first.data) == {c(1, 1), c(2, 1), c(2.5, 1)}
    assert len(calls) == 5
    second = deriver.over_domain("gteq", [None, Const(2.5)], [(0, dom)])
    assert second is not None
    assert rows(backend, second.data) == {c(2.5, 2.5)}
    assert len(calls) == 6


def test_memberchk_tabled_over_the_active_domain() -> None:
    backend, deriver = deriver_for(PROGRAM)
    table = deriver.over_domain("inlist", [None], [(0, domain(backend, ["a", "b", "c"]))])
    assert table is not None
    assert rows(backend, table.data) == {c("b"), c("c")}


def test_over_the_row_limit_is_refused() -> None:
    backend, _ = deriver_for(PROGRAM)
    small = Deriver(backend.resolution, backend.interner, backend.facts, row_limit=3)
    assert small.over_domain("gteq", [None, Const(2)], [(0, domain(backend, [1, 2, 3, 4]))]) is None
    assert small.general("symbond", [None, None, None, Const(1)]) is None  # 4 rows > 3


def test_kernel_clauses_with_derived_literals_cover_as_prolog_does() -> None:
    # val(A, V), gteq(V, 2): a -> 1 (no), b -> 2 (yes), c -> 2.5 (yes); h(M) holds when a
    # symbond of M reaches such an atom: m1 (a-b, b-c), not m2.
    backend = NativeBackend(
        NativeOptions(kernel=True, derive_tuples=0)
    )  # small domains derived too
    backend.load(task_of(PROGRAM))
    # gteq/2 is only tests, and its arguments are bound: else the kernel answers it
    # itself (unfolded), or asks about the values it reaches (questions)
    backend._unfold = backend._ask = False
    clause = Clause(
        term("h(M)"),
        (term("symbond(M, A, B, 1)"), term("val(B, V)"), term("gteq(V, 2)")),
    )
    assert backend.coverage(clause).tolist() == [0]
    assert backend.stats.get("kernel", 0) == 1
    assert backend.deriver.stats["materialised"] >= 1 and backend.deriver.stats["tabled"] >= 1
    unfolded = NativeBackend(NativeOptions(kernel=True, derive_tuples=0))
    unfolded.load(task_of(PROGRAM))
    assert unfolded.coverage(clause).tolist() == [0]
    assert unfolded.deriver.stats["tabled"] == 0  # gteq(V, 2) in the kernel, no table
    clause = Clause(term("h(M)"), (term("symbond(M, A, B, 1)"), term("val(B, q)")))
    assert backend.coverage(clause).tolist() == []


# --------------------------------------------------------------------------------------------
# (b) differential against SWI-Prolog on real data
# --------------------------------------------------------------------------------------------


def need_swipl() -> None:
    if shutil.which("swipl") is None:
        if require_backends("swipl"):
            pytest.fail("ILPKIT_REQUIRE_BACKENDS lists swipl but it is not on PATH")
        pytest.skip("swipl is not on PATH")


def clauses_of(task: Task, backend: NativeBackend, n: int, seed: int) -> list[Clause]:
    """Random legal clauses (2..6 literals) and greedy refinement chains (TP - FP), from the
    bottom clauses of random positive seeds."""
    rng = random.Random(seed)
    positives = [int(i) for i in task.examples.positives]
    negatives = set(int(i) for i in task.examples.negatives)
    out: list[Clause] = []
    while len(out) < n:
        bottom = backend.saturate(rng.choice(positives), depth=2)
        refiner = Refiner(bottom, None)
        for _ in range(10):
            out.append(bottom.clause(refiner.random_clause(rng.randint(1, 5), rng)).canonical())
        chain: tuple[int, ...] = ()
        for _ in range(4):  # a hill climb: the refinements of each step, best kept
            options = [refiner.add(chain, k) for k in np.flatnonzero(refiner.mask(chain))[:12]]
            if not options:
                break
            scored = []
            for o in options:
                cl = bottom.clause(o).canonical()
                out.append(cl)
                cov = set(backend.coverage(cl).tolist())
                scored.append((len(cov - negatives) - len(cov & negatives), o))
            chain = max(scored, key=lambda s: s[0])[1]
    return out[: n * 2]


def assert_agree(task: Task, n: int, seed: int) -> None:
    from ilpkit.plugins.backends.prolog.subprocess_backend import (
        SubprocessBackend,
        SubprocessOptions,
    )

    probe = NativeBackend(NativeOptions(kernel=True))
    probe.load(task)
    clauses = clauses_of(task, probe, n, seed)
    native = NativeBackend(NativeOptions(kernel=True))
    native.load(task)
    mine = [native.coverage(cl).tolist() for cl in clauses]
    plain = NativeBackend(NativeOptions(kernel=True, derive_rows=0, derive_tuples=0))
    plain.load(task)
    assert mine == [plain.coverage(cl).tolist() for cl in clauses]
    swi = SubprocessBackend(SubprocessOptions(engine="swipl"))
    swi.load(task)
    try:
        theirs = [cov.tolist() for cov in swi.coverage_many(clauses)]
    finally:
        swi.close()
    bad = [str(cl) for cl, a, b in zip(clauses, mine, theirs, strict=True) if a != b]
    assert not bad, f"{len(bad)} of {len(clauses)} clauses differ, e.g. {bad[:3]}"
    assert len({tuple(m) for m in mine}) >= 5  # not all trivial


@pytest.mark.parametrize(
    "name",
    ["trains", "toy_father", "uwcse", pytest.param("mutagenesis", marks=pytest.mark.heavy)],
)
def test_bundled_data_native_equals_swipl(name: str) -> None:
    need_swipl()
    task = load_bundled(name)
    if name == "mutagenesis":  # the ring modes: test_native_agreement (SWI tables them)
        task.bias.modeb = [m for m in task.bias.modeb if m.name not in RING_PERCEPTION]
    assert_agree(task, 60, 11)


@pytest.mark.heavy  # from the quick suite (3-6 s): keeps the README's test command under 5 minutes
def test_carcinogenesis_native_equals_swipl() -> None:
    if not CARCINOGENESIS.is_dir():
        pytest.skip(f"{CARCINOGENESIS} not found")
    need_swipl()
    task = load_task(CARCINOGENESIS)
    assert {"symbond", "gteq", "lteq"} <= {m.name for m in task.bias.modeb}
    assert_agree(task, 80, 12)


def test_among_restricts_kernel_coverage_with_derived_literals() -> None:
    if not CARCINOGENESIS.is_dir():
        pytest.skip(f"{CARCINOGENESIS} not found")
    task = load_task(CARCINOGENESIS)
    backend = NativeBackend(NativeOptions(kernel=True))
    backend.load(task)
    clauses = clauses_of(task, backend, 20, 13)
    n = len(task.examples)
    rng = random.Random(3)
    for cl in clauses:
        full = set(backend.coverage(cl).tolist())
        among = Coverage(sorted(rng.sample(range(n), n // 3)), n)
        assert set(backend.coverage(cl, among).tolist()) == full & set(among.tolist())


RINGS = """
r(m1, [a, b]).
r(m2, [c, d]).
s(m1, [c, a]).
s(m2, [e, f]).
connected(R1, R2) :- R1 \\= R2, element(A, R1), element(A, R2).
element(H, [H|_]).
element(H, [V|T]) :- H \\= V, element(H, T).
"""


def outside_the_evaluator(backend: NativeBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    """No questions, and the set-at-a-time evaluator refusing every table over a domain."""
    backend._ask = False
    monkeypatch.setattr(Deriver, "over_domain", lambda *args, **kwargs: None)


@pytest.mark.parametrize("budget", [10.0, -1.0])
def test_a_refused_literal_is_tabled_call_by_call_while_cheap(
    budget: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # h(M) :- r(M, R1), s(M, R2), connected(R1, R2).  element(A, R1) with A free gives only
    # R1's first element (the second clause's H \= V fails on a free H), so connected holds
    # when R2 holds R1's head: m1's [a,b], [c,a] yes; m2's [c,d], [e,f] no -> h(m1) only.
    # Over the domain {[a,b], [c,d]} x {[c,a], [e,f]} it holds for ([a,b], [c,a]) and
    # ([c,d], [c,a]): 2 rows.  connected/2 recurses down lists (taken here as outside the
    # set-at-a-time evaluator, as before it took lists apart, and with the kernel's
    # questions off: tests/test_native_ask.py); its domain is 2 x 2 = 4 tuples, over
    # derive_tuples = 1 and within 16 x 1: tabled call by call -- unless that takes more than
    # the CPU budget (-1: always), when the predicate is marked slow and the numpy engine
    # answers; the coverage is the same.
    from ilpkit.plugins.backends.native import kernel_cover

    monkeypatch.setattr(kernel_cover, "_CALL_BY_CALL_CPU", budget)
    task = make_task([], pos=["h(m1)"], neg=["h(m2)"], modes=["modeh(1, h(+m))"])
    prog = task_of(RINGS).program
    task = Task(name="rings", format="test", program=prog, examples=task.examples, bias=task.bias)
    backend = NativeBackend(NativeOptions(kernel=True, derive_tuples=1))
    backend.load(task)
    outside_the_evaluator(backend, monkeypatch)
    clause = Clause.from_term(term("h(M) :- r(M, R1), s(M, R2), connected(R1, R2)"))
    assert backend.coverage(clause).ids.tolist() == [0]
    tables = [t for k, t in backend._derived_tables.items() if k[0] == ("connected", 2)]  # type: ignore[index]
    assert len(tables) == 1
    if budget > 0:
        assert tables[0] is not None and len(tables[0]) == 2
        assert not backend._slow_calls
    else:
        assert tables[0] is None and backend._slow_calls == {("connected", 2): 1}


def test_a_predicate_is_left_to_the_numpy_engine_after_three_overruns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As above with every table over the budget.  Coverage by hand (connected(X, Y): X \= Y
    # and X's head is in Y; m1: r [a,b], s [c,a]; m2: r [c,d], s [e,f]):
    #   connected(R1, R2), R1 from r, R2 from s: m1 a in [c,a] yes, m2 c in [e,f] no -> [0]
    #   connected(R2, R1): m1 c in [a,b] no, m2 e in [c,d] no -> []
    #   connected(R1, R3), both from r: the same list, R1 \= R3 fails -> []
    #   connected(R2, R4), both from s: likewise -> []
    # Each is a new literal pattern; the first three are tried call by call and overrun, the
    # fourth is not tried (three strikes), and the numpy engine answers all four the same.
    from ilpkit.plugins.backends.native import kernel_cover
    from ilpkit.plugins.backends.native.engine import NativeBackend as NB

    monkeypatch.setattr(kernel_cover, "_CALL_BY_CALL_CPU", -1.0)
    tried: list[str] = []
    real = NB._derive_table

    def counting(self: NB, lit: Any, *rest: Any) -> Any:
        tried.append(str(lit))
        return real(self, lit, *rest)

    monkeypatch.setattr(NB, "_derive_table", counting)
    task = make_task([], pos=["h(m1)"], neg=["h(m2)"], modes=["modeh(1, h(+m))"])
    prog = task_of(RINGS).program
    task = Task(name="rings", format="test", program=prog, examples=task.examples, bias=task.bias)
    backend = NativeBackend(NativeOptions(kernel=True, derive_tuples=1))
    backend.load(task)
    outside_the_evaluator(backend, monkeypatch)
    clauses = {
        "h(M) :- r(M, R1), s(M, R2), connected(R1, R2)": [0],
        "h(M) :- r(M, R1), s(M, R2), connected(R2, R1)": [],
        "h(M) :- r(M, R1), r(M, R3), connected(R1, R3)": [],
        "h(M) :- s(M, R2), s(M, R4), connected(R2, R4)": [],
    }
    for text, expected in clauses.items():
        assert backend.coverage(Clause.from_term(term(text))).ids.tolist() == expected, text
    assert len(tried) == 3
    assert backend._slow_calls == {("connected", 2): 3}
