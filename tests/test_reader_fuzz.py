"""Fuzzing the reader: whatever the input, it ends, and only with an IlpkitError.

Inputs are random bytes (written to a file), random text biased towards Prolog's special
characters, mutations of a realistic data file, and deeply nested terms.  Besides "no crash",
the properties checked are: locations are inside the input, and reading the same text from a
file, from a string, or in chunks split at any line gives the same clauses and errors.
"""

from __future__ import annotations

import itertools
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ilpkit
from ilpkit.errors import PrologSyntaxError
from ilpkit.prolog.reader import PrologReader

# A data file in the style of the bundled datasets: directives, modes, facts, rules, comments.
SAMPLE = r"""% trains, Michalski style
:- modeh(1, eastbound(+train)).
:- modeb(*, has_car(+train, -car)).
:- modeb(1, shape(+car, #shape)).
:- determination(eastbound/1, has_car/2).
:- set(i, 2), set(clauselength, 4).
:- op(700, xfx, ===>).
:- dynamic load/3.
/* cars and their loads */
has_car(east1, car_11).   has_car(east1, car_12).
shape(car_11, rectangle). shape(car_12, 'u_shaped').
load(car_11, circle, 1).  load(car_12, 'hex agon', -2).
weight(car_11, 3.5e-2).   code(car_12, 0'a, 0x1F, "str\n", `bq`).
pos(eastbound(east1)).
neg(eastbound(west6)).
closed(C) :- \+ open_car(C), (roof(C, flat) ; roof(C, peaked)) -> true ; fail.
long_train(T) :- findall(C, has_car(T, C), Cs), length(Cs, N), N >= 3.
rule(a ===> b, [X|Xs], {X, Xs}, 'quoted''atom', - 1, -(1), 2 ** -1, a:b:c).
"""

PROLOG_CHARS = "abcXY_09 \t\n\n'\"`()[]{},|.%/*\\+-=<>:;!#$&?@^~0x'e"


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging) when the body runs longer than ``seconds``."""
    if not hasattr(signal, "setitimer"):  # pragma: no cover - not on Windows
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"the reader did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


Outcome = tuple[list[tuple[int, object]], list[tuple[int, int, str]], str | None]


def outcome(read: Iterator[object]) -> Outcome:
    """(line, term) pairs read, syntax errors as (line, col, message), other error's class."""
    got: list[tuple[int, object]] = []
    try:
        with time_limit(5):
            for rt in read:
                got.append((rt.line, rt.term))  # type: ignore[attr-defined]
    except PrologSyntaxError as err:
        return got, [(loc.line, loc.col, msg) for loc, msg in err.errors], None
    except ilpkit.IlpkitError as err:
        return got, [], type(err).__name__
    return got, [], None


def check_locations(text: str, result: Outcome) -> None:
    n_lines = text.count("\n") + 1
    for line, _ in result[0]:
        assert 1 <= line <= n_lines
    for line, col, message in result[1]:
        assert 1 <= line <= n_lines
        assert col >= 1
        assert message


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "input.pl"


FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes_from_a_file(scratch, data):
    scratch.write_bytes(data)
    got, errors, other = outcome(iter(PrologReader().read_file(scratch)))
    if b"\0" in data:
        assert other == "DataError" and not got
    if other is None:
        check_locations(data.decode("utf-8"), (got, errors, other))


def prolog_text(max_size: int = 300) -> st.SearchStrategy[str]:
    # Lone surrogates included: a Python string can hold them, and the reader refuses them.
    return st.text(
        alphabet=st.one_of(st.sampled_from(PROLOG_CHARS), st.characters()),
        max_size=max_size,
    )


@FUZZ
@given(prolog_text())
def test_random_text(text):
    result = outcome(iter(PrologReader().read_text(text, "t.pl")))
    assert result[2] is None  # from a string, only syntax errors
    check_locations(text, result)


@st.composite
def mutated_sample(draw: st.DrawFn) -> str:
    """A few lines of SAMPLE with random deletions, insertions and duplications."""
    lines = SAMPLE.splitlines(keepends=True)
    start = draw(st.integers(0, len(lines) - 1))
    stop = draw(st.integers(start + 1, min(len(lines), start + 8)))
    text = "".join(lines[start:stop])
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 6)))
        action = draw(st.sampled_from(["delete", "insert", "duplicate"]))
        if action == "delete":
            text = text[:i] + text[j:]
        elif action == "insert":
            text = text[:i] + draw(prolog_text(4)) + text[i:]
        else:
            text = text[:j] + text[i:j] + text[j:]
    return text


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


@FUZZ
@given(mutated_sample())
def test_mutations_of_a_real_file(scratch, text):
    scratch.write_bytes(text.encode("utf-8", "surrogatepass"))
    from_file = outcome(iter(PrologReader().read_file(scratch)))
    check_locations(text, from_file)
    if from_file[2] is None and "\r" not in text and not _has_surrogate(text):
        # the file reader turns CRLF into LF; surrogates cannot be written as UTF-8
        from_string = outcome(iter(PrologReader().read_text(text, str(scratch))))
        assert from_string == from_file


@FUZZ
@given(mutated_sample(), st.lists(st.integers(0, 40), max_size=3))
def test_chunking_does_not_change_the_outcome(text, cuts):
    lines = text.splitlines(keepends=True)
    whole = outcome(iter(PrologReader()._read_lines(iter([text]), "t.pl")))
    bounds = sorted({min(c, len(lines)) for c in cuts} | {0, len(lines)})
    chunks = ["".join(lines[a:b]) for a, b in itertools.pairwise(bounds)]
    chunks = [c for c in chunks if c] or [""]
    assert outcome(iter(PrologReader()._read_lines(iter(chunks), "t.pl"))) == whole


def test_the_sample_itself_reads():
    got, errors, other = outcome(iter(PrologReader().read_text(SAMPLE, "sample.pl")))
    assert errors == [] and other is None
    assert len(got) == 20  # 7 directives, 10 facts, 3 rules


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["(", "f(", "[", "{", "- ", "\\+ ", "a:", "[a|", "- (", "'x'("]),
    st.integers(1, 3000),
)
def test_deep_nesting_ends_in_a_term_or_a_clear_error(opening, depth):
    closing = {"(": ")", "f(": ")", "[": "]", "{": "}", "[a|": "]", "- (": ")", "'x'(": ")"}
    text = "p(" + opening * depth + "a" + closing.get(opening, "") * depth + ").\nok.\n"
    got, errors, other = outcome(iter(PrologReader().read_text(text, "t.pl")))
    assert other is None
    assert got[-1] == (2, PrologReader().read_term("ok"))
    if errors:
        assert len(errors) == 1
        assert "nested too deeply" in errors[0][2]


def test_deep_nesting_with_a_low_recursion_limit():
    # The same clear error when the caller has already used most of the stack.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        got, errors, _ = outcome(
            iter(PrologReader().read_text("p(" + "f(" * 60 + "a" + ")" * 61 + ".\n"))
        )
    finally:
        sys.setrecursionlimit(limit)
    assert got == [] and len(errors) == 1 and "nested too deeply" in errors[0][2]


HOSTILE_TERMS = [
    lambda n: "+".join(["a"] * n),  # an operator chain: n - 1 levels deep
    lambda n: "0x" + "f" * (n * 10),
    lambda n: "0o" + "7" * (n * 10),
    lambda n: "0b" + "1" * (n * 30),
    lambda n: "9" * (n * 10),
    lambda n: "1" * n + ".0e" + str(n),
    lambda n: "'\\x" + format(0xD800 + n % 0x800, "x") + "\\'",
    lambda n: "- " * n + "a",
    lambda n: "[" * n + "]" * n,
]


@FUZZ
@given(st.sampled_from(range(len(HOSTILE_TERMS))), st.integers(1, 900), mutated_sample())
def test_hostile_terms_inside_a_real_file(which, size, text):
    # A hostile term in a fact before a real file's clauses: a clear error at its line, and
    # the rest of the file is still read.
    hostile = f"h({HOSTILE_TERMS[which](size)}).\n"
    got, errors, other = outcome(iter(PrologReader().read_text(hostile + text, "t.pl")))
    assert other is None
    check_locations(hostile + text, (got, errors, other))
    for term in (t for _, t in got):
        str(term)  # whatever was read can be written back (no RecursionError, no ValueError)
