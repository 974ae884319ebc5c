"""GNU Prolog's gaps, as the gprolog profile closes them (issue 21, item 8).

* Text: GNU Prolog 1.4.5 reads files and pipes as bytes, so UTF-8 ``'ü'`` became the atom
  ``'Ã¼'``.  ilpkit now writes every non-ASCII character as ``\\xHH\\``; coverage and answers
  of clauses with non-ASCII constants equal the native backend's, and a character GNU Prolog
  cannot hold (above U+00FF) is refused with the data's location.
* Built-ins: the allow-listed ones GNU Prolog lacks are defined by the profile in portable
  Prolog (``numlist/3``, ``term_to_atom/2``, ``atomic_list_concat/2,3``, ...) and answer as
  the native backend does; the string built-ins, ``sort/4``, ``predsort/3``, ``blob/2`` and
  ``between(_, inf, _)`` are refused at load with their location.
"""

from __future__ import annotations

import shutil

import pytest

from ilpkit.core.task import Task
from ilpkit.errors import DataError
from ilpkit.plugins.backends.native.engine import NativeBackend
from ilpkit.plugins.backends.prolog.profiles import PROFILES, ascii_text, identifier_atoms
from ilpkit.plugins.backends.prolog.subprocess_backend import SubprocessBackend, SubprocessOptions
from ilpkit.prolog.terms import Clause, clause_to_prolog, to_prolog
from tests.reference_prover import make_task, require_backends, term
from tests.test_subprocess_backend import task_with_rules


@pytest.fixture(scope="module")
def gprolog() -> None:
    if shutil.which("gprolog") is None:
        if require_backends("gprolog"):
            pytest.fail("ILPKIT_REQUIRE_BACKENDS lists gprolog but it is not on PATH")
        pytest.skip("gprolog is not on PATH")


def both(task: Task) -> tuple[NativeBackend, SubprocessBackend]:
    native = NativeBackend()
    native.load(task)
    gp = SubprocessBackend(SubprocessOptions(engine="gprolog", timeout=10))
    gp.load(task)
    return native, gp


def test_ascii_text_escapes_only_non_ascii() -> None:
    assert ascii_text("p('a', \"b\")") == "p('a', \"b\")"
    # one escape per character, a backslash before it stays escaped as before
    assert ascii_text("c('ü', 'a\\\\é')") == "c('\\xfc\\', 'a\\\\\\xe9\\')"
    assert PROFILES["gprolog"].max_char_code == 0xFF
    assert PROFILES["swipl"].max_char_code is None


# --------------------------------------------------------------------------------------------
# non-ASCII text
# --------------------------------------------------------------------------------------------

COLOURS = make_task(
    ["colour(a, 'ü')", "colour(b, 'é')", "colour(c, 'ü')", "colour(d, x)", "colour(e, 'Ünï')"],
    ["t(a)", "t(c)", "t(e)"],
    ["t(b)", "t(d)"],
    ["modeh(1, t(+k))", "modeb(*, colour(+k, #c))"],
)


def test_non_ascii_constants_agree_with_native(gprolog: None) -> None:
    native, gp = both(COLOURS)
    try:
        for text in [
            "t(A) :- colour(A, 'ü')",
            "t(A) :- colour(A, 'é')",
            "t(A) :- colour(A, B), atom_length(B, 1)",
            "t(A) :- colour(A, B), sub_atom(B, 0, 1, _, 'Ü')",
            "t(A) :- colour(A, B), upcase_atom(B, 'Ü')",
        ]:
            clause = Clause.from_term(term(text))
            assert gp.coverage(clause).tolist() == native.coverage(clause).tolist(), text
        # by hand: 'ü' is the colour of a and c (ids 0, 1); one character long
        assert gp.coverage(Clause.from_term(term("t(A) :- colour(A, 'ü')"))).tolist() == [0, 1]
        for text in [
            "colour(A, B)",
            "atom_codes(X, [252, 233])",
            "atom_length('Ünï', N)",
            "atom_chars('éa', L)",
            "sub_atom('Ünï', 1, 1, _, S)",
            "atom_concat('ü', X, 'üé')",
        ]:
            goal = term(text)
            assert gp.answers(goal, None) == native.answers(goal, None), text
        assert gp.answers(term("atom_length('Ünï', N)"), None) == [term("atom_length('Ünï', 3)")]
        # the bottom clause (built from answers) holds the real constants, as native's
        bottom = gp.saturate(0, depth=1)
        full = clause_to_prolog(bottom.clause(range(len(bottom))))
        assert full == clause_to_prolog(native.saturate(0, depth=1).clause(range(len(bottom))))
        assert "colour(A,'ü')" in full, full
    finally:
        gp.close()


def test_characters_beyond_latin_1_are_refused_with_their_location(gprolog: None) -> None:
    task = task_with_rules(["greek(X) :- p(X, 'λ')"], ["p(a, b)"], ["t(a)"], [])
    gp = SubprocessBackend(SubprocessOptions(engine="gprolog"))
    with pytest.raises(DataError, match=r"bk\.pl:1:1: the character 'λ' \(U\+03BB\) is beyond"):
        gp.load(task)
    gp.load(COLOURS)
    try:
        with pytest.raises(DataError, match=r"U\+03BB"):
            gp.answers(term("atom_length('λ', N)"), None)
        assert gp.answers(term("atom_length('ü', N)"), None) == [term("atom_length('ü', 1)")]
    finally:
        gp.close()


# --------------------------------------------------------------------------------------------
# built-ins GNU Prolog lacks
# --------------------------------------------------------------------------------------------

# Answers written from SWI-Prolog's documentation of each built-in (which the native backend
# follows); the test compares gprolog with native, and a few with the expected text.
COMPAT_GOALS = [
    "numlist(1, 5, L)", "numlist(5, 1, L)", "numlist(3, 3, L)", "numlist(a, 3, L)",
    "numlist(X, 3, L)", "term_to_atom(T, 'g(a, [1,2], \\'x y\\')')",
    "term_to_atom(f('a b', [1]), A)", "term_to_atom(T, 'foo(')", "append([[a], [b, c], []], L)",
    "atom_number('12', N)", "atom_number('1.5e3', N)", "atom_number(abc, N)",
    "atom_number(A, 7)", "atom_number('0x1A', N)", "atomic_list_concat([a, 1, 'b c'], A)",
    "atomic_list_concat([a, b, c], '-', A)", "atomic_list_concat(L, '-', 'a-b--c')",
    "atomic_list_concat(L, ',', '')", "atomic_list_concat([a, X], A)",
    "list_to_set([a, b, a, c, b], S)", "max_member(M, [3, a, f(x), 2])",
    "min_member(M, [3, a, f(x), 2])", "max_member(M, [])", "nextto(X, Y, [1, 2, 3])",
    "pairs_keys_values(P, [a, b], [1, 2])", "pairs_keys([a-1, b-2], K)",
    "pairs_values([a-1, b-2], V)", "proper_length([a, b], N)", "proper_length([a|_], N)",
    "select(b, [a, b, c, b], x, L)", "selectchk(b, [a, b, c, b], L)",
    "union([a, b, c], [b, d], U)", "include(atom, [a, 1, b], L)", "exclude(atom, [a, 1, b], L)",
    "partition(integer, [a, 1, b, 2], I, E)", "foldl(plus, [1, 2, 3], 0, S)", "?=(a, b)",
    "?=(X, Y)", "?=(f(X), f(X))", "X^member(X, [q])", "string(abc)",
    "upcase_atom('abc Xyz', U)", "downcase_atom('ABC xYz', D)", "upcase_atom(12, U)",
    "upcase_atom('äöü', U)", "aggregate_all(count, member(_, [a, b]), C)",
    "aggregate_all(sum(X), member(X, [1, 2, 3]), S)",
    "aggregate_all(max(X), member(X, [1, 5, 3]), M)",
    "aggregate_all(min(X), member(X, [4, 2, 3]), M)",
    "aggregate_all(bag(X), member(X, [c, a, c]), B)",
    "aggregate_all(set(X), member(X, [c, a, c]), B)", "aggregate_all(max(X), member(X, []), M)",
    "aggregate_all(count, fail, C)", "lists:append([a], [b], L)", "not(member(z, [a]))",
    "ignore(fail)", "sumlist([1, 2], S)", "plus(1, X, 3)", "intersection([a, b, c], [c, a], I)",
]  # fmt: skip


def outcome(backend: NativeBackend | SubprocessBackend, goal: str) -> list[str] | str:
    """The answers as text, or ``error`` (messages differ between engines)."""
    try:
        answers = backend.answers(term(goal), 5)
    except Exception:
        return "error"
    # a variable the answer leaves free is named by each engine its own way
    return [to_prolog(a) for a in answers]


def test_compat_definitions_answer_as_native(gprolog: None) -> None:
    native, gp = both(make_task(["p(a)"], ["t(a)"], [], ["modeh(1, t(+k))"]))
    try:
        for goal in COMPAT_GOALS:
            assert outcome(gp, goal) == outcome(native, goal), goal
        # a few by hand
        assert outcome(gp, "numlist(1, 3, L)") == ["numlist(1,3,[1,2,3])"]
        assert outcome(gp, "atomic_list_concat(L, '-', 'a-b--c')") == [
            "atomic_list_concat([a,b,'',c],-,'a-b--c')"
        ]
        assert outcome(gp, "term_to_atom(T, 'g(a, [1,2])')") == [
            "term_to_atom(g(a,[1,2]),'g(a, [1,2])')"
        ]
        assert outcome(gp, "numlist(a, 3, L)") == "error"
        text = outcome(gp, "term_to_atom(f(X, 'a b'), A)")
        assert isinstance(text, list) and text[0].startswith("term_to_atom(f(X,'a b'),'f(_")
    finally:
        gp.close()


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("q(X) :- p(X, Y), atom_string(Y, _)", r"bk\.pl:1:1: atom_string/2 is not available on "),
        ("q(X) :- p(X, _), findall(S, sub_string(abc, _, 1, _, S), _)", "sub_string/5"),
        ("q(X) :- p(X, _), predsort(cmp, [b, a], _)", "predsort/3"),
        ("q(X) :- p(X, _), between(1, inf, X)", r"between/3 with the upper bound inf"),
        ("q(X) :- p(X, _), \\+ between(1, infinite, X)", r"between/3 with the upper bound"),
    ],
)
def test_missing_builtins_are_refused_at_load(gprolog: None, rule: str, message: str) -> None:
    task = task_with_rules([rule, "cmp(O, A, B) :- compare(O, A, B)"], ["p(a, b)"], ["t(a)"], [])
    gp = SubprocessBackend(SubprocessOptions(engine="gprolog"))
    with pytest.raises(DataError, match=message) as info:
        gp.load(task)
    assert "use the swipl engine, or the swi or native backend" in str(info.value)
    # the other engines take it
    NativeBackend().load(task)


def test_a_program_defining_a_missing_builtin_is_not_refused(gprolog: None) -> None:
    rules = [
        "q(X) :- p(X, Y), string_length(Y, N), N > 0",
        "string_length(A, N) :- atom_length(A, N)",
    ]
    native, gp = both(task_with_rules(rules, ["p(a, b)"], ["t(a)"], []))
    try:
        clause = Clause.from_term(term("t(A) :- q(A)"))
        assert gp.coverage(clause).tolist() == native.coverage(clause).tolist() == [0]
        # bounded between/3 is fine
        assert gp.answers(term("between(1, 3, X)"), None) == native.answers(
            term("between(1, 3, X)"), None
        )
    finally:
        gp.close()


def test_the_atoms_made_before_a_load_are_the_identifiers_in_descending_byte_order() -> None:
    # GNU Prolog keeps identifier atoms of two or more characters in a sorted list walked
    # from its start; made in descending order, each insertion stops at once.  Variables
    # (Xab), exponents (1.0e10), character codes (0'a) and one-letter atoms are not listed.
    text = "rel(e10, 'Q x', Xab, 'abc', e2, 1.0e10, 0'a, x).\n% a comment word\n"
    assert identifier_atoms(text) == ["word", "rel", "e2", "e10", "comment", "abc"]
    assert PROFILES["gprolog"].atoms_descending
    assert not PROFILES["swipl"].atoms_descending
