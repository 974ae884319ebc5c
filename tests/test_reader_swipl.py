"""Cross-check rendering and reading with a real SWI-Prolog (``swipl`` on PATH).

For a batch of random terms, one ``swipl --traditional`` process reads two renderings of each
term -- ours in operator notation (``to_prolog``, writeq style) and ours in plain functional
notation -- and checks that they are variants (``=@=``), i.e. that SWI-Prolog parses our
operator notation the way we meant it.  It also ``write_canonical``s what it read; our reader
must read that text back to the original term.

``--traditional`` gives ISO-style lists (``'.'/2`` and the atom ``[]``) and
``double_quotes=codes``, like our reader's default.  The terms are read in a module whose
operator table is made identical to ``ilpkit.prolog.operators``, because SWI-Prolog 9's built-in
table differs from it (``test_operator_tables`` pins the differences):

* ``xor`` is 500 yfx (ISO Cor.2) but 400 yfx in SWI-Prolog; ``|`` is 1100 but 1105;
* ``#`` (500 fy, Aleph), ``:=`` and ``divmod`` are ilpkit-only; ``=@=``, ``=>`` and more are
  SWI-only (our writer does not bracket them as operands).

Remaining, documented reading differences (not produced by our writer, so not exercised):

* ``(a | b)`` reads as ``';'(a, b)`` here and as ``'|'(a, b)`` in SWI-Prolog 7+;
* ``a = \\+b`` is accepted here (the 900 operand is bracketed implicitly), SWI-Prolog reports
  a priority clash;
* SWI-Prolog accepts a newline inside a quoted atom or string, we report an unterminated
  quoted item (a quoted item may not span lines in ISO);
* back-quoted text is a syntax error in SWI-Prolog's traditional mode, a code list here;
* character classes: like SWI-Prolog, non-ASCII symbols and punctuation are symbol characters,
  other number characters ("½") solo atoms, and combining marks continue a name; but letter
  numbers ("ⅰ") and uppercase symbols ("Ⓐ") do not start names here, and "a²" is one atom here
  (Python's ``\\w``) but a syntax error in SWI-Prolog.  SWI-Prolog quotes such atoms when
  writing, so its output reads back here.

The test is skipped without ``swipl``, unless ``ILPKIT_REQUIRE_BACKENDS`` is set.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ilpkit.prolog import operators as ops
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import (
    Clause,
    Const,
    Str,
    Struct,
    Term,
    Var,
    make_list,
    quote_atom,
    to_prolog,
)
from tests.test_terms import TEXT_CHARS, prolog_terms

SWIPL = shutil.which("swipl")


@pytest.fixture(scope="module")
def swipl() -> str:
    if SWIPL is None:
        if os.environ.get("ILPKIT_REQUIRE_BACKENDS"):
            pytest.fail("swipl is not on PATH but ILPKIT_REQUIRE_BACKENDS is set")
        pytest.skip("swipl is not on PATH (install SWI-Prolog to run this cross-check)")
    return SWIPL


# --------------------------------------------------------------------------------------------
# The Prolog side
# --------------------------------------------------------------------------------------------

CHECKER = r"""
:- use_module(library(readutil)).

%   Make the operator table of module xops exactly Python's: hide SWI-only operators
%   (priority 0 in the module), declare ours.  Terms are read in that module only, so the
%   libraries keep the standard table.
align_ops(Ours) :-
    forall(( current_op(P, T, N), \+ memberchk(op(P, T, N), Ours) ),
           catch(op(0, T, xops:N), _, true)),
    forall(member(op(P, T, N), Ours), catch(op(P, T, xops:N), _, true)).  % ',' is fixed

check(In, Out) :-
    setup_call_cleanup(open(In, read, S, [encoding(utf8)]),
        setup_call_cleanup(open(Out, write, O, [encoding(utf8)]),
            check_lines(S, O), close(O)),
        close(S)).

check_lines(S, O) :-
    (   at_end_of_stream(S)
    ->  true
    ;   read_line_to_string(S, Line),
        split_string(Line, "\t", "", [Ops, Plain]),
        read_text(Ops, A, EA),
        read_text(Plain, B, EB),
        verdict(EA, EB, A, B, O),
        check_lines(S, O)
    ).

read_text(Text, Term, Error) :-
    catch((term_string(Term, Text, [module(xops)]), Error = none), E, Error = E).

verdict(EA, _, _, _, O) :- EA \== none, !, format(O, "error\toperators\t~q~n", [EA]).
verdict(_, EB, _, _, O) :- EB \== none, !, format(O, "error\tplain\t~q~n", [EB]).
verdict(_, _, A, B, O) :-
    with_output_to(string(CA), write_canonical(A)),
    (   A =@= B
    ->  format(O, "ok\t~w~n", [CA])
    ;   with_output_to(string(CB), write_canonical(B)),
        format(O, "mismatch\t~w\t~w~n", [CA, CB])
    ).
"""


def our_ops() -> str:
    declared = [f"op({p}, {t}, {quote_atom(n)})" for n, (p, t) in ops.INFIX_OPS.items()]
    declared += [f"op({p}, {t}, {quote_atom(n)})" for n, (p, t) in ops.PREFIX_OPS.items()]
    return "[" + ", ".join(declared) + "]"


def run_swipl(swipl: str, work: Path, pairs: list[tuple[str, str]]) -> list[list[str]]:
    """SWI-Prolog's verdict on each (operator text, plain text) pair."""
    checker = work / "checker.pl"
    checker.write_text(CHECKER, encoding="utf-8")
    source = work / "terms.txt"
    source.write_text("".join(f"{a}\t{b}\n" for a, b in pairs), encoding="utf-8")
    result = work / "result.txt"
    goal = f"align_ops({our_ops()}), check({quote_atom(str(source))}, {quote_atom(str(result))})"
    proc = subprocess.run(
        [swipl, "--traditional", "-q", "-g", goal, "-t", "halt", str(checker)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = result.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(pairs), proc.stderr
    return [line.split("\t") for line in lines]


# --------------------------------------------------------------------------------------------
# The Python side
# --------------------------------------------------------------------------------------------


def plain(term: Term) -> str:
    """Functional notation only: no operators, no list or curly syntax (``'.'(H, T)``)."""
    if type(term) is Struct:
        return f"{quote_atom(term.name)}({','.join(plain(a) for a in term.args)})"
    if type(term) is Const and isinstance(term.value, str):
        return quote_atom(term.value)
    return to_prolog(term)  # numbers, strings, variables


def as_codes(term: Term) -> Term:
    """What ``double_quotes=codes`` makes of the strings in ``term``."""
    if type(term) is Str:
        return make_list([Const(ord(ch)) for ch in term.value])
    if type(term) is Struct:
        return Struct(term.name, tuple(as_codes(a) for a in term.args))
    return term


def variant_key(term: Term) -> Clause:
    return Clause(term).canonical()


@pytest.mark.skipif(
    SWIPL is None and not os.environ.get("ILPKIT_REQUIRE_BACKENDS"), reason="swipl is not on PATH"
)
@settings(
    max_examples=2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    # No shrinking: every step would start swipl again; the message names the failing term.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(st.lists(prolog_terms(TEXT_CHARS), min_size=100, max_size=100))
def test_swipl_reads_our_terms_as_we_do(tmp_path_factory, terms):
    swipl = SWIPL
    if swipl is None:
        pytest.fail("swipl is not on PATH but ILPKIT_REQUIRE_BACKENDS is set")
    work = tmp_path_factory.mktemp("swipl")
    pairs = [(to_prolog(t), plain(t)) for t in terms]
    verdicts = run_swipl(swipl, work, pairs)
    reader = PrologReader(double_quotes="codes")
    for term, (ops_text, plain_text), verdict in zip(terms, pairs, verdicts, strict=True):
        context = f"term {term!r}\n  ours: {ops_text}\n  plain: {plain_text}\n  swipl: {verdict}"
        assert verdict[0] == "ok", context
        # SWI-Prolog's write_canonical, read by us, is the term we started from.
        back = reader.read_term(verdict[1] + " .")
        assert variant_key(back) == variant_key(as_codes(term)), context


def test_hand_picked_terms(swipl, tmp_path):
    x = Var("X")
    terms: list[Term] = [
        Struct("-", (Const(1),)),
        Struct("-", (Const(-1),)),
        Struct("-", (Const("a"), Const(-1))),
        Struct("**", (Const(2), Const(-1))),
        Struct("=", (x, Const("-"))),
        Struct(":-", (Const("dynamic"), Const("a"))),
        Struct("\\/", (Struct("#", (Const("a"),)), Const("b"))),
        Struct("f", (Struct(":-", (Const("a"), Const("b"))), Struct(",", (Const("a"), x)))),
        Struct("{}", (Struct(",", (Const("a"), Const("b"))),)),
        Struct(".", (Const("a"), x)),
        Const("don't"),
        Const("a\nb\\c"),
        Const("[]"),
        Const("été"),
        Const("±"),  # SWI-Prolog writes it unquoted, a symbol-char atom
        Struct("½", (Const(1),)),  # ... and this one: a solo character
        Struct("-", (Struct("{}", (Const("a"),)),)),  # "-{a}" would be a dict
        Str('say "hi"\n'),
        Struct("+", (Struct(":", (Const("a"), Const("b"))), Const("c"))),
        Struct("xor", (Const("a"), Struct("*", (Const("b"), Const("c"))))),
        Struct("#", (Struct("+", (Const("x"), Const("y"))),)),  # not "#x+y": (#x)+y in SWI
    ]
    pairs = [(to_prolog(t), plain(t)) for t in terms]
    for term, verdict in zip(terms, run_swipl(swipl, tmp_path, pairs), strict=True):
        assert verdict[0] == "ok", (term, verdict)


def test_operator_tables(swipl, tmp_path):
    """Document how SWI-Prolog's built-in table differs from ours (it must not change
    silently: the cross-check above aligns the tables, real runs do not)."""
    script = tmp_path / "ops.pl"
    script.write_text(
        "main :- forall(current_op(P, T, N), (writeq(op(P, T, N)), nl)).\n", encoding="utf-8"
    )
    proc = subprocess.run(
        [swipl, "--traditional", "-q", "-g", "main", "-t", "halt", str(script)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    swi: dict[tuple[str, str], int] = {}
    reader = PrologReader()
    for line in proc.stdout.splitlines():
        op = reader.read_term(line)
        assert isinstance(op, Struct)
        p, t, n = (a.value for a in op.args)  # type: ignore[union-attr]
        kind = "prefix" if t in ("fx", "fy") else "postfix" if t in ("xf", "yf") else "infix"
        swi[(str(n), kind)] = int(p)  # type: ignore[call-overload]
    ours = {(n, "infix"): p for n, (p, _) in ops.INFIX_OPS.items()}
    ours |= {(n, "prefix"): p for n, (p, _) in ops.PREFIX_OPS.items()}
    differences = {key: (p, swi.get(key)) for key, p in ours.items() if swi.get(key) != p}
    assert differences == {
        ("|", "infix"): (1100, 1105),
        ("xor", "infix"): (500, 400),
        ("#", "prefix"): (500, None),
        (":=", "infix"): (990, None),
        ("divmod", "infix"): (400, None),
    }
    assert swi[("=@=", "infix")] == 700  # one of the SWI-only operators
