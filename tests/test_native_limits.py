"""Runaway queries on the native engine end with ResourceLimitExceeded, quickly and in
bounded memory (issue 21, item 5).

Each case runs in a child process (so a regression cannot take the test runner's memory with
it; the child's address space is capped at 4 GB) which prints the error class, the message,
the CPU seconds of the query, the peak resident size (VmHWM) and whether the same engine then
answers an ordinary query.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ilpkit.core.task import Program
from ilpkit.errors import ResourceLimitExceeded
from ilpkit.plugins.backends.native.resolution import ResolutionEngine
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause

ROOT = Path(__file__).resolve().parents[1]

CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    from ilpkit.plugins.backends.native.resolution import ResolutionEngine
    from ilpkit.prolog.reader import PrologReader
    from ilpkit.core.task import Program
    from ilpkit.prolog.terms import Clause

    source, query, options = json.loads(sys.argv[1])
    prog = Program()
    for rt in PrologReader().read_text(source + "\\nok(yes).\\n", "runaway.pl"):
        prog.add_clause(Clause.from_term(rt.term), rt.location)
    engine = ResolutionEngine(prog, **options)
    t0 = time.process_time()
    try:
        list(engine.solve(PrologReader().read_term(query), 1))
        error, message = None, ""
    except Exception as exc:
        error, message = type(exc).__name__, str(exc)
    cpu = time.process_time() - t0
    usable = [str(t) for t in engine.solve(PrologReader().read_term("ok(X)"))] == ["ok(yes)"]
    peak = 0
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1]) // 1024
    print(json.dumps({"error": error, "message": message, "cpu": cpu, "peak_mb": peak,
                      "usable": usable}))
    """
)

RUNAWAYS = {
    # issue 21 item 5: each ran to a MemoryError at 4-6 GB or did not answer in 150 s
    "length of a huge list": ("p(N) :- length(_, N).", "p(100000000000)", {}),
    "length enumerating lists": ("p :- length(_, N), N > 100000000000.", "p", {}),
    "numlist": ("p :- numlist(1, 100000000000, _).", "p", {}),
    "atom_concat doubling": ("p(A) :- atom_concat(A, A, B), p(B).", "p(ab)", {}),
    "atomic_list_concat": ("p(A) :- atomic_list_concat([A, A, A, A], B), p(B).", "p(ab)", {}),
    "repeated squaring": ("p(X) :- Y is X * X, p(Y).", "p(3)", {}),
    "functor with a huge arity": ("p :- functor(_, f, 1000000000000).", "p", {}),
    "member extending a partial list": ("p :- member(x, L), L = [].", "p", {}),
    # the steps alone would take 10M steps and about 1 GB: the memory limit ends it first
    "left recursion": (
        "p(X) :- p(X), q(X).\nq(a).",
        "p(a)",
        {"step_limit": 10_000_000, "memory_limit_mb": 150},
    ),
    # with no step limit, the time limit ends the loops inside built-ins
    "length enumerating, time only": (
        "p :- length(_, N), N > 100000000000.",
        "p",
        {"step_limit": None, "time_limit": 1.0},
    ),
    "atom_concat, time and memory only": (
        "p(A) :- atom_concat(A, A, B), p(B).",
        "p(ab)",
        {"step_limit": None, "time_limit": 1.0},
    ),
}


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
@pytest.mark.parametrize("case", sorted(RUNAWAYS))
def test_runaway_ends_cleanly_in_bounded_memory(case: str) -> None:
    source, query, options = RUNAWAYS[case]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps([source, query, options])],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["error"] == "ResourceLimitExceeded", result
    assert "runaway.pl:1" in result["message"]  # names the calling clause
    assert result["cpu"] < 15.0, result
    assert result["peak_mb"] < 1536, result
    assert result["usable"], result


def _engine(text: str, **options: object) -> ResolutionEngine:
    prog = Program()
    for rt in PrologReader().read_text(text, "t.pl"):
        prog.add_clause(Clause.from_term(rt.term), rt.location)
    return ResolutionEngine(prog, **options)  # type: ignore[arg-type]


def _ask(engine: ResolutionEngine, query: str) -> list[str]:
    return [str(t) for t in engine.solve(PrologReader().read_term(query))]


def test_small_results_are_not_charged() -> None:
    # 1,024 cells or fewer cost one step: a 2,000-step budget runs many small numlists.
    engine = _engine("p(K) :- between(1, 200, K), numlist(1, 1000, L), length(L, 1000).")
    engine.step_limit = 2_000
    assert len(_ask(engine, "p(K)")) == 200


def test_big_results_count_one_step_per_cell() -> None:
    # numlist of 5,000 integers costs 5,000 steps beyond its call.
    engine = _engine("p :- numlist(1, 5000, _).", step_limit=4_000)
    with pytest.raises(ResourceLimitExceeded, match="numlist/3 would build a list of 5,000"):
        _ask(engine, "p")
    engine.step_limit = 6_000
    assert _ask(engine, "p") == ["p"]


def test_memory_limit_refuses_a_single_large_result() -> None:
    # 10 MB of list cells against a 1 MB budget: refused before it is built.
    engine = _engine("p :- numlist(1, 100000, _).", step_limit=None, memory_limit_mb=1)
    with pytest.raises(ResourceLimitExceeded, match=r"memory limit of 1 MB.*t\.pl:1"):
        _ask(engine, "p")
    engine.memory_limit = None
    assert _ask(engine, "p") == ["p"]


def test_integer_size_is_a_resource_limit_that_catch_cannot_hide() -> None:
    # A resource error is a limit: no catch/3 of the data catches it (issue 28, as the
    # Prolog backends' ilpkit_catch/3) ...
    engine = _engine(
        "big(X) :- X is (2 ** 600000) * (2 ** 600000).\np(E) :- catch(big(_), error(E, _), true).\n"
    )
    with pytest.raises(ResourceLimitExceeded, match="integer too large"):
        _ask(engine, "p(E)")
    # ... and it ends the query as a resource limit.
    with pytest.raises(ResourceLimitExceeded, match="integer too large"):
        _ask(engine, "big(_)")


def test_huge_integers_are_not_written_as_text() -> None:
    engine = _engine("p(A) :- X is 10 ** 5000, atom_number(A, X).\n")
    with pytest.raises(Exception, match="more than 4,000 digits") as info:
        _ask(engine, "p(A)")
    assert not isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "body",
    [
        "X is 10 ** 5000, term_to_atom(X, A)",
        "X is 10 ** 5000, term_string(X, A)",
        "X is 10 ** 5000, number_codes(X, A)",
        "length(L, 5000), maplist(=(0'1), L), atom_codes(C, L), atom_number(C, A)",
        "length(L, 5000), maplist(=(0'1), L), number_codes(A, L)",
    ],
)
def test_integers_beyond_python_text_limits_are_prolog_errors(body: str) -> None:
    # Python refuses int <-> text beyond 4,300 digits with a ValueError; here it is a
    # representation_error that catch/3 sees, as a Prolog error should be.
    engine = _engine(f"p(A) :- {body}.\nq(E) :- catch(p(_), error(E, _), true).\n")
    assert _ask(engine, "q(E)") == ["q(representation_error(max_integer_text))"]


def test_the_resident_size_is_read_at_most_every_twenty_ms(monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.pread`` releases the GIL: read every 2,048 steps, it kept other threads of the
    process from running for seconds.  A read stays current for ``RSS_READ_EVERY``."""
    import time

    from ilpkit.plugins.backends.native.prolog import errors

    reads: list[int] = []
    real = os.pread

    def counted(fd: int, n: int, offset: int) -> bytes:
        reads.append(fd)
        return real(fd, n, offset)

    monkeypatch.setattr(os, "pread", counted)
    errors._last_read[0] = -1.0  # forget an earlier read
    first = errors._resident_bytes()
    assert first is not None and first > 0
    assert {errors._resident_bytes() for _ in range(1000)} == {first}
    assert len(reads) == 1
    time.sleep(errors.RSS_READ_EVERY * 1.5)
    assert errors._resident_bytes() is not None
    assert len(reads) == 2


@pytest.mark.skipif(
    not hasattr(os, "fork") or not os.path.exists("/proc/self/statm"), reason="POSIX /proc"
)
def test_a_forked_child_reads_its_own_resident_size() -> None:
    """The statm descriptor names the process that opened it: a forked child (a process
    pool's worker) must open its own, not go on reading its parent's size."""
    from ilpkit.plugins.backends.native.prolog import errors

    assert errors._resident_bytes() is not None  # opened in this process
    parent_file = os.readlink(f"/proc/self/fd/{errors._statm[1]}")
    assert parent_file == f"/proc/{os.getpid()}/statm"
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through the pipe, never return into pytest
        try:
            errors._resident_bytes()
            opened = os.readlink(f"/proc/self/fd/{errors._statm[1]}")
            os.write(write_end, f"{opened == f'/proc/{os.getpid()}/statm'}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    answer = os.read(read_end, 100).decode()
    os.close(read_end)
    os.waitpid(pid, 0)
    assert answer == "True"
    # and the parent still reads its own
    assert os.readlink(f"/proc/self/fd/{errors._statm[1]}") == parent_file
