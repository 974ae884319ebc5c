"""The Prolog-text reader, checked by hand against the ISO standard (and SWI-Prolog's
traditional mode where the standard leaves a choice).

Expected terms are spelled out in functional form, e.g. ``1-2-3`` is ``-(-(1, 2), 3)``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ilpkit
from ilpkit.errors import DataError, PrologSyntaxError
from ilpkit.prolog import reader as reader_mod
from ilpkit.prolog.reader import OperatorTable, PrologReader, ReadTerm, read_file, read_term
from ilpkit.prolog.terms import NIL, Const, Str, Struct, Term, Var, make_list

a, b, c, d, e = (Const(n) for n in "abcde")
X, Y, Z = Var("X"), Var("Y"), Var("Z")


def s(name: str, *args: Term) -> Struct:
    return Struct(name, args)


def n(value: int | float) -> Const:
    return Const(value)


def codes(text: str) -> Term:
    return make_list([Const(ord(ch)) for ch in text])


def terms(text: str, **options: object) -> list[Term]:
    return [rt.term for rt in PrologReader(**options).read_text(text, "t.pl")]  # type: ignore[arg-type]


def read_with_errors(text: str, **options: object) -> tuple[list[ReadTerm], PrologSyntaxError]:
    """Everything read before the final PrologSyntaxError, and that error."""
    got: list[ReadTerm] = []
    with pytest.raises(PrologSyntaxError) as info:
        for rt in PrologReader(**options).read_text(text, "t.pl"):  # type: ignore[arg-type]
            got.append(rt)
    return got, info.value


def error_places(err: PrologSyntaxError) -> list[tuple[int, int]]:
    return [(loc.line, loc.col) for loc, _ in err.errors]


# --------------------------------------------------------------------------------------------
# Clauses
# --------------------------------------------------------------------------------------------


def test_facts_rules_and_directives():
    text = """
parent(tom, bob).
grandparent(X, Z) :- parent(X, Y), parent(Y, Z).
p :- \\+ q, (r ; s -> t).
:- dynamic foo/1, bar/2.
?- p.
"""
    assert terms(text) == [
        s("parent", Const("tom"), Const("bob")),
        s(":-", s("grandparent", X, Z), s(",", s("parent", X, Y), s("parent", Y, Z))),
        s(
            ":-",
            Const("p"),
            s(",", s("\\+", Const("q")), s(";", Const("r"), s("->", Const("s"), Const("t")))),
        ),
        # dynamic is fx 1150, so it takes the whole 1000-priority conjunction
        s(":-", s("dynamic", s(",", s("/", Const("foo"), n(1)), s("/", Const("bar"), n(2))))),
        s("?-", Const("p")),
    ]


def test_variables_are_shared_within_a_clause_and_anonymous_ones_are_fresh():
    (term,) = terms("f(X, Y, X, _, _, _G1).")
    assert isinstance(term, Struct)
    x1, y, x2, anon1, anon2, g1 = term.args
    assert x1 == x2 == X and y == Y
    assert isinstance(anon1, Var) and isinstance(anon2, Var)
    assert anon1 != anon2
    assert g1 == Var("_G1") and g1 not in (anon1, anon2)  # fresh names avoid the user's


def test_unicode_names():
    # A lowercase (or caseless) letter starts an atom, an uppercase letter a variable.
    assert terms("p(été, 日本, Élan).") == [s("p", Const("été"), Const("日本"), Var("Élan"))]


def test_unicode_symbol_characters():
    # Non-ASCII symbols and punctuation are symbol characters, as in SWI-Prolog, whose writeq
    # leaves atoms such as ± unquoted.
    assert read_term("X = ±") == s("=", X, Const("±"))
    assert read_term("X = +→") == s("=", X, Const("+→"))  # glued to ASCII symbol characters
    assert read_term("f(¦, €)") == s("f", Const("¦"), Const("€"))
    _, err = read_with_errors("X = a±b.")  # no operator between a and b
    assert error_places(err) == [(1, 6)]


def test_other_unicode_characters():
    # Regression: "²" passed str.isdigit() and crashed the number scanner (AssertionError).
    # Like SWI-Prolog, a non-decimal number character is a one-character (solo) atom ...
    assert read_term("p(², ½(1))") == s("p", Const("²"), s("½", n(1)))
    # ... while decimal digits of other scripts are digits.
    assert read_term("p(\u0663)") == s("p", n(3))
    # Combining marks continue a name: decomposed text reads like composed text.
    assert read_term("p(e\u0301te\u0301, E\u0301lan)") == s(
        "p", Const("e\u0301te\u0301"), Var("E\u0301lan")
    )


# --------------------------------------------------------------------------------------------
# Operators: ISO priorities and associativity
# --------------------------------------------------------------------------------------------

# ISO/IEC 13211-1 table 7 (with Cor.2: div, xor), plus SWI-Prolog's ':' (600 xfy, module
# qualification).  Written out here by hand, not taken from the code.
ISO_INFIX = {
    ":-": (1200, "xfx"),
    "-->": (1200, "xfx"),
    ";": (1100, "xfy"),
    "->": (1050, "xfy"),
    ",": (1000, "xfy"),
    "=": (700, "xfx"),
    "\\=": (700, "xfx"),
    "==": (700, "xfx"),
    "\\==": (700, "xfx"),
    "@<": (700, "xfx"),
    "@>": (700, "xfx"),
    "@=<": (700, "xfx"),
    "@>=": (700, "xfx"),
    "=..": (700, "xfx"),
    "is": (700, "xfx"),
    "=:=": (700, "xfx"),
    "=\\=": (700, "xfx"),
    "<": (700, "xfx"),
    ">": (700, "xfx"),
    "=<": (700, "xfx"),
    ">=": (700, "xfx"),
    ":": (600, "xfy"),
    "+": (500, "yfx"),
    "-": (500, "yfx"),
    "/\\": (500, "yfx"),
    "\\/": (500, "yfx"),
    "xor": (500, "yfx"),
    "*": (400, "yfx"),
    "/": (400, "yfx"),
    "//": (400, "yfx"),
    "rem": (400, "yfx"),
    "mod": (400, "yfx"),
    "div": (400, "yfx"),
    "<<": (400, "yfx"),
    ">>": (400, "yfx"),
    "**": (200, "xfx"),
    "^": (200, "xfy"),
}


def spaced(name: str) -> str:
    return "','" if name == "," else name


@pytest.mark.parametrize(("name", "spec"), sorted(ISO_INFIX.items()))
def test_infix_associativity(name, spec):
    _, kind = spec
    op = spaced(name)
    # one operator: a OP b
    assert read_term(f"(a {op} b)") == s(name, a, b)
    chain = f"(a {op} b {op} c)"
    if kind == "yfx":
        assert read_term(chain) == s(name, s(name, a, b), c)
    elif kind == "xfy":
        assert read_term(chain) == s(name, a, s(name, b, c))
    else:  # xfx: the chain is a priority clash
        with pytest.raises(PrologSyntaxError):
            read_term(chain)


@pytest.mark.parametrize(
    ("low", "high"),
    [
        # (tighter, looser) pairs across the ISO priority levels
        ("*", "+"),
        ("^", "*"),
        ("**", "*"),
        ("+", "="),
        ("mod", "-"),
        ("=", ","),
        (",", "->"),
        ("->", ";"),
        (";", ":-"),
        ("+", ":"),
        (":", "="),
    ],
)
def test_priorities(low, high):
    # "a HIGH b LOW c" and "a LOW b HIGH c" both group the tighter operator first.
    assert read_term(f"(a {spaced(high)} b {spaced(low)} c)") == s(high, a, s(low, b, c))
    assert read_term(f"(a {spaced(low)} b {spaced(high)} c)") == s(high, s(low, a, b), c)


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("a:-b,c;d->e", s(":-", a, s(";", s(",", b, c), s("->", d, e)))),
        ("1-2-3", s("-", s("-", n(1), n(2)), n(3))),
        ("2^3^4", s("^", n(2), s("^", n(3), n(4)))),
        ("1+2*3", s("+", n(1), s("*", n(2), n(3)))),
        ("(1+2)*3", s("*", s("+", n(1), n(2)), n(3))),
        ("X is Y mod 2", s("is", X, s("mod", Y, n(2)))),
        ("a --> b, c", s("-->", a, s(",", b, c))),
        ("M:G", s(":", Var("M"), Var("G"))),
        ("lists:append(X)", s(":", Const("lists"), s("append", X))),
        ("a:b+c", s(":", a, s("+", b, c))),  # as in SWI-Prolog
        ("a:b:c", s(":", a, s(":", b, c))),
        # "-" directly before a number is part of the number, otherwise an operator
        ("-1", n(-1)),
        ("-1.5", n(-1.5)),
        ("- 1", s("-", n(1))),
        ("-(1)", s("-", n(1))),
        ("- (1)", s("-", n(1))),
        ("-(-(1))", s("-", s("-", n(1)))),
        ("- -1", s("-", n(-1))),
        ("-a", s("-", a)),
        ("- a", s("-", a)),
        ("- - a", s("-", s("-", a))),
        ("a - 1", s("-", a, n(1))),
        ("a -1", s("-", a, n(1))),  # after an operand, "-" is the infix operator
        ("a - -1", s("-", a, n(-1))),
        ("a- (-1)", s("-", a, n(-1))),
        ("2 ** -1", s("**", n(2), n(-1))),
        ("2**(-1)", s("**", n(2), n(-1))),
        ("- 1 + 2", s("+", s("-", n(1)), n(2))),
        ("-1 + 2", s("+", n(-1), n(2))),
        ("- 1^2", s("-", s("^", n(1), n(2)))),
        ("-1^2", s("^", n(-1), n(2))),
        ("- a^b", s("-", s("^", a, b))),  # fy 200 takes the xfy 200 term
        ("-(a)^b", s("^", s("-", a), b)),  # functional notation is a primary
        ("- a + b", s("+", s("-", a), b)),
        ("-(-1)", s("-", n(-1))),
        ("-0x10", n(-16)),
        # \+ is fy 900
        ("\\+ a, b", s(",", s("\\+", a), b)),
        ("\\+ (a, b)", s("\\+", s(",", a, b))),
        ("\\+ \\+ a", s("\\+", s("\\+", a))),
        ("\\+a", s("\\+", a)),
        # "=" then a space then "\+": two operators (without the space "=\+" is one atom).
        # The 900 operand on the right of "=" (max 699) is accepted leniently, as most
        # Prologs do; SWI-Prolog reports a priority clash.
        ("a= \\+b", s("=", a, s("\\+", b))),
        # operator atoms as operands
        ("X = (-)", s("=", X, Const("-"))),
        ("f(+, -)", s("f", Const("+"), Const("-"))),
        ("f(a, -)", s("f", a, Const("-"))),
        ("[-]", make_list([Const("-")])),
        ("- (-)", s("-", Const("-"))),
        ("(-) - (-)", s("-", Const("-"), Const("-"))),
        ("f(:-, dynamic)", s("f", Const(":-"), Const("dynamic"))),
        # "|" at 1100 reads as ';' (the traditional reading)
        ("(a | b)", s(";", a, b)),
        # arguments are read at 999: bracket what is above
        ("f((a, b))", s("f", s(",", a, b))),
        ("f((a :- b))", s("f", s(":-", a, b))),
        ("f(a = b, c)", s("f", s("=", a, b), c)),
        ("[a = b, (c, d)]", make_list([s("=", a, b), s(",", c, d)])),
        # curly terms, lists, special atoms
        ("{a, b}", s("{}", s(",", a, b))),
        ("{}", Const("{}")),
        ("'{}'(a)", s("{}", a)),
        ("[]", NIL),
        ("'[]'", NIL),
        ("[a, b | T]", make_list([a, b], Var("T"))),
        ("[a | [b]]", make_list([a, b])),
        ("[a | b]", s(".", a, b)),
        ("'hello world'(x)", s("hello world", Const("x"))),
        ("f(X)", s("f", X)),
    ],
)
def test_operator_structure(text, term):
    assert read_term(text) == term


@pytest.mark.parametrize(
    ("text", "col"),
    [
        ("X = (a = b = c).", 12),  # xfx 700 cannot take a 700 operand
        ("X = (a :- b :- c).", 13),
        ("foo (a).", 5),  # a space before "(": no functional notation, and foo is no operator
        ("X = [a | b, c].", 11),
        ("X = f(,).", 7),
        ("p(a=\\+b).", 4),  # "=\+" is one symbol-char atom
    ],
)
def test_operator_errors(text, col):
    _, err = read_with_errors(text)
    assert error_places(err) == [(1, col)]


# --------------------------------------------------------------------------------------------
# Numbers, character codes, quoted items
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0'a", 97),
        ("0' ", 32),
        ("0'''", 39),
        ("0'\\n", 10),
        ("0'\\\\", 92),
        ("0'\\t", 9),
        ("0'\\x41\\", 65),
        ("0'\\101\\", 65),
        ("0x1F", 31),
        ("0xff", 255),
        ("0o17", 15),
        ("0b101", 5),
        ("007", 7),
        ("123456789012345678901234567890", 123456789012345678901234567890),
        ("1.0e-5", 1.0e-5),
        ("1.5E3", 1500.0),
        ("1.0e10", 1.0e10),
        ("1e10", 1.0e10),  # SWI-Prolog reads this as a float too
        ("0.0", 0.0),
        ("12.5", 12.5),
    ],
)
def test_numbers(text, value):
    term = read_term(f"X = {text} .")
    assert term == s("=", X, Const(value))
    assert type(term.args[1].value) is type(value)  # type: ignore[union-attr]


def test_character_code_followed_by_more_text():
    # Regression: 0'\x41\ ended the token after "\x", leaving "41\" to the tokenizer.
    assert read_term("X = 0'\\x41\\ + 0'\\101\\") == s("=", X, s("+", n(65), n(65)))


def test_special_floats():
    assert read_term("X = 1.0Inf") == s("=", X, Const(float("inf")))
    assert read_term("X = -1.0Inf") == s("=", X, Const(float("-inf")))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("'don''t'", "don't"),
        ("'Foo bar'", "Foo bar"),
        ("'a\\nb'", "a\nb"),
        ("'\\\\'", "\\"),
        ("'\\''", "'"),
        ("'\\x41\\'", "A"),
        ("'\\101\\'", "A"),
        ("'\\0\\'", "\0"),  # regression: read as NUL then the escape "\'"
        ("'a\\0\\b'", "a\0b"),
        ("'\\e'", "\x1b"),
        ("'\\s'", " "),
        ("'\\u00e9'", "é"),
        ("'\\U0001F600'", "😀"),
        ("'été'", "été"),
        ("'line\\\ncont'", "linecont"),  # backslash-newline continues the atom
        ("'%not a comment'", "%not a comment"),
        ("'/* nor this */'", "/* nor this */"),
        ("''", ""),
    ],
)
def test_quoted_atoms(text, value):
    assert read_term(f"X = {text}") == s("=", X, Const(value))


def test_strings_follow_the_double_quotes_flag():
    text = 'X = "a\\"b""c\\u00e9"'
    value = 'a"b"cé'
    assert read_term(text) == s("=", X, codes(value))  # ISO default: codes
    assert read_term(text, double_quotes="codes") == s("=", X, codes(value))
    assert read_term(text, double_quotes="string") == s("=", X, Str(value))
    assert read_term(text, double_quotes="chars") == s(
        "=", X, make_list([Const(ch) for ch in value])
    )
    assert read_term(text, double_quotes="atom") == s("=", X, Const(value))
    assert read_term('X = ""') == s("=", X, NIL)
    assert read_term('X = ""', double_quotes="string") == s("=", X, Str(""))


def test_back_quotes_are_codes():
    assert read_term("X = `ab`") == s("=", X, codes("ab"))


def test_set_prolog_flag_changes_later_clauses():
    text = """p("ab").
:- set_prolog_flag(double_quotes, atom).
p("ab").
:- set_prolog_flag(double_quotes, chars).
p("ab").
:- set_prolog_flag(double_quotes, codes).
p("ab").
:- set_prolog_flag(double_quotes, string).
p("ab").
"""
    got = [t for t in terms(text) if not (isinstance(t, Struct) and t.name == ":-")]
    assert got == [
        s("p", codes("ab")),
        s("p", Const("ab")),
        s("p", make_list([a, b])),
        s("p", codes("ab")),
        s("p", Str("ab")),
    ]


# --------------------------------------------------------------------------------------------
# op/3 directives
# --------------------------------------------------------------------------------------------


def test_op_directive_affects_later_clauses_only():
    text = """r(a).
:- op(700, xfx, ===>).
r(a ===> b).
:- op(700, xfx, [<===, <=>]).
r(a <=== b, c <=> d).
:- op(900, fy, not).
p :- not q, r.
:- op(200, xf, $$).
r(a $$).
"""
    got = [
        t for t in terms(text) if not (isinstance(t, Struct) and t.name == ":-" and t.arity == 1)
    ]
    assert got == [
        s("r", a),
        s("r", s("===>", a, b)),
        s("r", s("<===", a, b), s("<=>", c, d)),
        s(":-", Const("p"), s(",", s("not", Const("q")), Const("r"))),
        s("r", s("$$", a)),
    ]
    # Another reader starts from the standard table again.
    with pytest.raises(PrologSyntaxError):
        terms("r(a ===> b).")


def test_op_directive_before_use_in_the_same_file_only():
    _, err = read_with_errors("r(a ===> b).\n:- op(700, xfx, ===>).\nr(a ===> b).\n")
    assert error_places(err) == [(1, 5)]


def test_op_priority_zero_removes_an_operator():
    _, err = read_with_errors(":- op(0, xfx, =).\np(a = b).\n")
    assert error_places(err) == [(2, 5)]


def test_operator_table_is_per_reader():
    table = OperatorTable()
    table.add(700, "xfx", "===>")
    assert terms("r(a ===> b).", ops=table) == [s("r", s("===>", a, b))]
    assert "===>" not in OperatorTable().infix


# --------------------------------------------------------------------------------------------
# Comments and layout
# --------------------------------------------------------------------------------------------


def test_comments():
    text = """% a line comment
p(a). % after a clause
p(/* inside */ b).
p(c) :- /* between tokens */ q.
/* a block comment
   over several lines
   p(not_read). */
p(d)/* before the end */.
p(e).
% a comment at the end, without a newline"""
    assert terms(text) == [
        s("p", a),
        s("p", b),
        s(":-", s("p", c), Const("q")),
        s("p", d),
        s("p", e),
    ]


def test_block_comment_at_eof_and_empty_sources():
    assert terms("p(a).\n/* the end */") == [s("p", a)]
    assert terms("p(a).%") == [s("p", a)]
    assert terms("") == []
    assert terms("  \n\t\n") == []
    assert terms("% only a comment\n/* and a block */\n") == []


def test_byte_order_mark():
    assert terms("\ufeffp(a).") == [s("p", a)]
    # Regression: a BOM followed by layout or a comment was "unexpected character".
    assert terms("\ufeff% header\np(a).") == [s("p", a)]
    assert terms("\ufeff") == []


# --------------------------------------------------------------------------------------------
# Line numbers
# --------------------------------------------------------------------------------------------


def test_line_numbers_across_multiline_clauses_and_comments():
    text = """% 1
fact(1).
q(X) :-
    r(X),
    s(X).
/* 6
   7 */ t(1).

u(
  2
).
v(1). v(2).
fact(
2).
"""
    got = [(rt.line, rt.term) for rt in PrologReader().read_text(text, "t.pl")]
    assert [line for line, _ in got] == [2, 3, 7, 9, 12, 12, 13]
    assert got[3][1] == s("u", n(2))
    rt = next(iter(PrologReader().read_text("\n\np(a).", "f.pl")))
    assert (rt.file, rt.line, str(rt.location)) == ("f.pl", 3, "f.pl:3:1")


# --------------------------------------------------------------------------------------------
# The fast path for simple ground facts
# --------------------------------------------------------------------------------------------

SIMPLE_FACTS = """atm(d1, d1_1, c, 22, -0.11).
bond(d1, d1_1, d1_2, 7).
name(p1, 'Smith, John', 'it is').
q('a,b', c, ',', '').
num(0, -0, 007, 1.5, -2.25, 1.0e10, 3.0E-2).
empty_quotes('[]', '{}', '%', '/*').
pos(f(a, b)).
neg(  g( c ,d )  ).
spaced( a , b ).
p(x). % trailing comment
unicode_digit(\u0663).
"""


def slow_terms(text: str) -> list[Term]:
    """Clauses read by the tokenizer and operator-precedence parser only (no fast path)."""
    tokenizer = reader_mod._Tokenizer(text, final=True)
    out: list[Term] = []
    pos = tokenizer.skip_layout(0)
    while pos < len(text):
        tokens, pos = tokenizer.clause_tokens(pos)
        if tokens:
            parser = reader_mod._Parser(tokens, OperatorTable(), "codes")
            out.append(parser.parse_clause())
        pos = tokenizer.skip_layout(pos)
    return out


def test_fast_path_matches_the_parser(monkeypatch):
    parsed = slow_terms(SIMPLE_FACTS)
    assert len(parsed) == 11
    # Make sure the fast path really is what reads these facts.
    calls: list[object] = []
    real_parser = reader_mod._Parser

    def counting_parser(*args: object) -> object:
        calls.append(args)
        return real_parser(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(reader_mod, "_Parser", counting_parser)
    fast = terms(SIMPLE_FACTS)
    assert calls == []
    assert fast == parsed
    # Spot checks written by hand.
    assert fast[2] == s("name", Const("p1"), Const("Smith, John"), Const("it is"))
    assert fast[3] == s("q", Const("a,b"), c, Const(","), Const(""))
    assert fast[4] == s("num", n(0), n(0), n(7), n(1.5), n(-2.25), n(1.0e10), n(0.03))
    assert fast[6] == s("pos", s("f", a, b))
    assert fast[10] == s("unicode_digit", n(3))


_fact_args = st.one_of(
    st.from_regex(r"[a-z][a-zA-Z0-9_]{0,5}", fullmatch=True),
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e9, max_value=1e9)
    .map(repr)
    .filter(lambda t: "e" not in t),
    st.text(alphabet=st.sampled_from("ab ,%()[]{}/*.-:X_\u00e9"), max_size=6).map(
        lambda t: f"'{t}'"
    ),
)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.from_regex(r"[a-z][a-z0-9_]{0,4}", fullmatch=True),
            st.lists(_fact_args, min_size=1, max_size=5),
            st.sampled_from([", ", ",", " , "]),
            st.booleans(),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_fast_path_equals_parser_on_random_facts(facts):
    lines = []
    for name, args, sep, wrapped in facts:
        inner = f"{name}({sep.join(args)})"
        lines.append(f"pos({inner})." if wrapped else f"{inner}.")
    text = "\n".join(lines) + "\n"
    assert terms(text) == slow_terms(text)


# --------------------------------------------------------------------------------------------
# Large files: several chunks
# --------------------------------------------------------------------------------------------


def test_file_read_in_several_chunks(tmp_path):
    chunk = 4 * 1024 * 1024  # the reader takes about 4 MiB of whole lines at a time
    lines: list[str] = []
    size = 0

    def add(line: str) -> None:
        nonlocal size
        lines.append(line)
        size += len(line.encode())

    i = 0
    while size < chunk - 200:
        add(f"fact({i}, abc_{i % 97}, 'q {i % 13}', {i % 1000}.5).\n")
        i += 1
    n_facts_1 = i
    # Pad with a comment so that the first chunk ends inside the rule: its first line ends
    # 4 bytes before the 4 MiB mark, its second line crosses it.
    add("%" + "-" * (chunk - 17 - size) + "\n")
    assert size == chunk - 15
    rule_line = len(lines) + 1
    add("rule(X) :-\n")
    add("    fact(X, _, _, _),\n")
    add("    X > 3.\n")
    while size < chunk + 300_000:
        add(f"other({i}, x_{i % 89}).\n")
        i += 1
    n_facts_2 = i - n_facts_1
    add("broken(a b).\n")
    error_line = len(lines)
    add("last(1).\n")
    path = tmp_path / "big.pl"
    path.write_text("".join(lines), encoding="utf-8")
    assert path.stat().st_size == size > chunk
    chunks = list(reader_mod._file_lines(path))
    assert len(chunks) == 2
    assert chunks[0].endswith("rule(X) :-\n    fact(X, _, _, _),\n")  # the rule is cut in two

    got: list[ReadTerm] = []
    with pytest.raises(PrologSyntaxError) as info:
        for rt in PrologReader().read_file(path):
            got.append(rt)
    assert error_places(info.value) == [(error_line, 10)]
    assert str(info.value).startswith(f"{path}:{error_line}:10: ")
    assert len(got) == n_facts_1 + 1 + n_facts_2 + 1
    by_line = {rt.line: rt.term for rt in got}
    assert by_line[1] == s("fact", n(0), Const("abc_0"), Const("q 0"), n(0.5))
    assert by_line[rule_line] == s(
        ":-",
        s("rule", X),
        s(",", s("fact", X, Var("_G1"), Var("_G2"), Var("_G3")), s(">", X, n(3))),
    )
    assert by_line[rule_line + 3] == s("other", n(n_facts_1), Const(f"x_{n_facts_1 % 89}"))
    assert by_line[error_line + 1] == s("last", n(1))
    assert [rt.line for rt in got] == sorted(rt.line for rt in got)


TRICKY = """p(a). q(X) :-
    r(X, 'a. b'),   % a '.' inside quotes, then a comment
    s(X).
/* a block comment
   with p(fake). inside */ t(1).
u(a b). v(2, "x.
y").
w(3). bad(a b,
  c). x(4).
'quoted
z(5).
"""


def read_chunks(chunks: list[str]) -> tuple[list[tuple[int, Term]], list[tuple[int, int, str]]]:
    got: list[tuple[int, Term]] = []
    errs: list[tuple[int, int, str]] = []
    try:
        for rt in PrologReader()._read_lines(iter(chunks), "t.pl"):
            got.append((rt.line, rt.term))
    except PrologSyntaxError as err:
        errs = [(loc.line, loc.col, msg) for loc, msg in err.errors]
    return got, errs


def test_chunk_boundaries_do_not_change_the_result():
    # The file reader hands over chunks of whole lines; any split must read the same.
    lines = TRICKY.splitlines(keepends=True)
    expected = read_chunks(["".join(lines)])
    got, errs = expected
    # p, q, t, w, x: z(5) is skipped with the unterminated 'quoted (up to the next end).
    assert [line for line, _ in got] == [1, 1, 5, 8, 9]
    # u(a b); "x. (no newline in strings); y"). (the same); bad(a b; 'quoted.  The error in
    # bad/1 is on the line where a chunk may end inside that clause: its column must hold.
    assert [(line, col) for line, col, _ in errs] == [(6, 5), (6, 14), (7, 2), (8, 13), (10, 1)]
    for i in range(len(lines) + 1):
        for j in range(i, len(lines) + 1):
            chunks = ["".join(lines[:i]), "".join(lines[i:j]), "".join(lines[j:])]
            assert read_chunks([c for c in chunks if c]) == expected, (i, j)


# --------------------------------------------------------------------------------------------
# Syntax errors: location, message, recovery
# --------------------------------------------------------------------------------------------


def test_unterminated_quoted_atom():
    got, err = read_with_errors("p('abc).\nq(b).\nr('x, y).\ns(d).\n")
    assert [rt.term for rt in got] == [s("q", b), s("s", d)]
    assert error_places(err) == [(1, 3), (3, 3)]
    assert "t.pl:1:3: unterminated quoted atom" in str(err)
    assert "missing closing '" in err.errors[0][1]


def test_unterminated_block_comment():
    got, err = read_with_errors("p(a).\nq(b). /* never\nclosed\nr(c).\n")
    assert [rt.term for rt in got] == [s("p", a), s("q", b)]
    assert error_places(err) == [(2, 7)]
    assert "unterminated block comment" in err.errors[0][1]


def test_missing_full_stop_at_eof():
    got, err = read_with_errors("p(a).\nq(b)")
    assert [rt.term for rt in got] == [s("p", a)]
    assert error_places(err) == [(2, 1)]
    assert "not terminated by '.'" in err.errors[0][1]
    # a '.' glued to symbol characters is no end either
    _, err = read_with_errors("p(a)..")
    assert error_places(err) == [(1, 1)]


def test_unknown_operator():
    got, err = read_with_errors("p(a) foo q(b).\nr(c).\n")
    assert [rt.term for rt in got] == [s("r", c)]
    assert error_places(err) == [(1, 6)]
    assert "t.pl:1:6: unknown operator 'foo'" in str(err)


def test_unbalanced_parentheses():
    got, err = read_with_errors("p((a).\nq(b)).\nr(c.\ns(d).\n")
    assert [rt.term for rt in got] == [s("s", d)]
    assert error_places(err) == [(1, 6), (2, 5), (3, 4)]
    assert "expected ',' or ')'" in err.errors[0][1]


def test_mode_with_a_missing_argument():
    got, err = read_with_errors(":- modeh(1, f(+a,, -b)).\nok(1).\n")
    assert [rt.term for rt in got] == [s("ok", n(1))]
    assert error_places(err) == [(1, 18)]
    assert "unexpected ','" in err.errors[0][1]


def test_errors_are_reported_after_earlier_errors_and_good_clauses():
    text = "good(1).\nbad(.\ngood(2).\n'open.\ngood(3).\nx foo y.\ngood(4).\n"
    got, err = read_with_errors(text)
    assert [rt.term for rt in got] == [s("good", n(k)) for k in (1, 2, 3, 4)]
    assert [line for line, _ in error_places(err)] == [2, 4, 6]
    assert isinstance(err, DataError) and isinstance(err, ilpkit.IlpkitError)
    assert not err.truncated


def test_max_errors_truncates():
    text = "".join(f"bad{i}(.\n" for i in range(30))
    _, err = read_with_errors(text, max_errors=5)
    assert len(err.errors) == 5
    assert err.truncated
    assert str(err).endswith("(further errors not reported)")
    assert [line for line, _ in error_places(err)] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("text", "place", "message"),
    [
        ("p('\\z').", (1, 4), "unknown escape sequence"),
        ("p('\\x110000\\').", (1, 4), "beyond Unicode"),  # regression: ValueError
        ("p(a\u200bb).", (1, 4), "unexpected character '\\u200b'"),  # zero-width space
        ("p(" + "1" * 5000 + ").", (1, 3), "more than 4300 digits"),  # regression: ValueError
        ("X = " + "1" * 5000 + ".", (1, 5), "more than 4300 digits"),
        ("p(" + "f(" * 2000 + "a" + ")" * 2001 + ".", None, "nested too deeply"),
        ("p(" + "- " * 3000 + "a).", None, "nested too deeply"),
        ("p(" + "[" * 2000 + "]" * 2000 + ").", None, "nested too deeply"),
    ],
    ids=[
        "bad-escape",
        "escape-beyond-unicode",
        "unexpected-character",
        "huge-int-fast-path",
        "huge-int-parser",
        "deep-functions",
        "deep-prefix-operators",
        "deep-lists",
    ],
)
def test_bad_input_is_a_syntax_error(text, place, message):
    # regression: each of these escaped as a Python exception other than PrologSyntaxError
    _, err = read_with_errors(text + "\nok.\n")
    assert len(err.errors) == 1
    if place is not None:
        assert error_places(err) == [place]
    assert message in err.errors[0][1]


def test_long_but_flat_terms_are_fine():
    items = ", ".join(f"a{i}" for i in range(20_000))
    (term,) = terms(f"p([{items}]).")
    assert isinstance(term, Struct) and term.name == "p"
    # Long bodies are flat too (the clause holds its goals in a tuple).
    body = ", ".join(f"q{i}(X)" for i in range(reader_mod.MAX_TERM_DEPTH + 50))
    (rule,) = terms(f"p(X) :- {body}.")
    assert isinstance(rule, Struct) and rule.name == ":-"


def test_terms_nested_beyond_the_limit_are_refused_with_a_location():
    # An operator chain is a nested term: 1+1+...+1 with n operands is n-1 levels deep.
    limit = reader_mod.MAX_TERM_DEPTH
    assert len(terms("p(" + "+".join(["1"] * limit) + ").")) == 1
    with pytest.raises(PrologSyntaxError, match=r"t\.pl:2:1: term nested too deeply"):
        list(PrologReader().read_text("ok.\np(" + "+".join(["a"] * 600) + ").\n", "t.pl"))
    # the limit counts compound arguments, not list tails or body goals
    with pytest.raises(PrologSyntaxError, match="nested too deeply"):
        terms("p(" + "f(" * (limit + 1) + "a" + ")" * (limit + 2) + ".")
    assert len(terms("p(" + "f(" * limit + "a" + ")" * (limit + 1) + ".")) == 1


# --------------------------------------------------------------------------------------------
# read_term
# --------------------------------------------------------------------------------------------


def test_read_term():
    assert read_term("p(X) :- q(X)") == read_term("p(X) :- q(X).") == s(":-", s("p", X), s("q", X))
    assert read_term("X = ..") == s("=", X, Const(".."))
    assert read_term("X = =..") == s("=", X, Const("=.."))
    assert read_term("X = -") == s("=", X, Const("-"))
    with pytest.raises(DataError, match="expected exactly one term, got 2"):
        read_term("a. b.")


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def test_read_file(tmp_path):
    path = tmp_path / "ok.pl"
    path.write_bytes(b"p(a).\r\nq(X) :-\r\n    r(X).\r\n")
    got = read_file(path)
    assert [(rt.file, rt.line, rt.term) for rt in got] == [
        (str(path), 1, s("p", a)),
        (str(path), 2, s(":-", s("q", X), s("r", X))),
    ]


def test_binary_file(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"p(a).\nq(b).\nr(\x00\x01\x02).\n")
    with pytest.raises(DataError, match=r"data\.bin:3:1: binary data \(NUL byte\)") as info:
        read_file(path)
    assert not isinstance(info.value, PrologSyntaxError)


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.pl"
    path.write_bytes("p(a).\np('caf\u00e9').\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"latin1\.pl:2:1: not UTF-8 text \(byte 0xe9\)"):
        read_file(path)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        read_file(tmp_path / "nope.pl")
    with pytest.raises(DataError, match="is a directory"):
        read_file(tmp_path)


# --------------------------------------------------------------------------------------------
# Input limits (issue 21, item 6) and op/3 checked as SWI-Prolog checks it (item 7)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "col", "message"),
    [
        ("p(0x" + "f" * 4000 + ").", 3, "more than 4300 decimal digits"),
        ("p(0o" + "7" * 5000 + ").", 3, "more than 4300 decimal digits"),
        ("p(0b" + "1" * 15000 + ").", 3, "more than 4300 decimal digits"),
        ("p(" + "1" * 5000 + ").", 3, "more than 4300 digits"),
        ("p(1.0e400).", 3, "too large"),
        ("p(" + "1" * 5000 + ".0).", 3, "more than 4300 characters"),
        ("p('a\\x00d800\\b').", 5, "lone UTF-16 surrogate"),
        ("p('a\\uDFFFb').", 5, "lone UTF-16 surrogate"),
    ],
)
def test_literals_beyond_the_limits_are_syntax_errors(text: str, col: int, message: str) -> None:
    _, err = read_with_errors("ok.\n" + text + "\nok.\n")
    ((loc, msg),) = err.errors
    assert (loc.line, loc.col) == (2, col)
    assert message in msg


def test_the_largest_literals_read() -> None:
    # 0x + 3,570 hex digits is below 10**4300; 1.0e308 is a finite float.
    (term,) = terms("p(0x" + "f" * 3570 + ", 1.0e308).")
    assert isinstance(term, Struct) and term.args[0] == Const(16**3570 - 1)
    assert str(term)  # and it can be written back


def test_a_lone_surrogate_in_text_is_refused_with_its_location() -> None:
    with pytest.raises(PrologSyntaxError, match=r"t\.pl:2:4: lone UTF-16 surrogate 0xd800"):
        list(PrologReader().read_text("ok.\np('\ud800').\n", "t.pl"))


@pytest.mark.parametrize(
    ("directive", "message"),
    [
        ("op(700, xfx, ',')", "no permission to modify operator ','"),
        ("op(1201, xfx, ===>)", "priority must be 0..1200, got 1201"),
        ("op(-1, xfx, ===>)", "priority must be 0..1200, got -1"),
        ("op(a, xfx, ===>)", "priority must be an integer"),
        ("op(700, xxx, ===>)", "type must be one of"),
        ("op(700, xfx, [===>, 1])", "an operator name must be an atom, got 1"),
        ("op(700, xfx, f(x))", "an operator name must be an atom"),
        ("op(700, xfx, '|')", "'|' can only be an infix operator of priority 1001"),
        ("op(1100, fy, '|')", "'|' can only be an infix operator"),
        ("op(700, xfx, [])", None),  # an empty list of names: nothing to do
        ("op(700, xfx, '[]')", None),  # '[]' quoted is the same atom
        ("op(1100, xfy, '|')", None),
        ("op(0, xfx, ===>)", None),
    ],
)
def test_op_directives_are_checked_as_swi_prolog_does(directive: str, message: str | None) -> None:
    text = f":- {directive}.\nok.\n"
    if message is None:
        got = terms(text)
        assert got[-1] == Const("ok")
        return
    got, err = read_with_errors(text)
    assert [rt.term for rt in got] == [Const("ok")]  # the bad directive is not kept
    ((loc, msg),) = err.errors
    assert (loc.line, loc.col) == (1, 1)
    assert message in msg


def test_refused_op_directive_changes_nothing() -> None:
    _, err = read_with_errors(":- op(700, xfx, ',').\np(a , b).\nq(a === b).\n")
    # ',' is still the argument separator, and the bad op/3 defined nothing
    assert [msg for _, msg in err.errors][1:] == ["expected ',' or ')' in arguments, got atom ==="]
