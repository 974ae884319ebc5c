"""Terms and clauses: equality, variants, lists, and writeq-style rendering.

Expected renderings are written by hand from the ISO operator table (``ilpkit.prolog.operators``)
and the ``writeq`` rules: quote an atom unless it is a letter-digit atom starting with a
lowercase letter, a symbol-char atom, or one of ``[] {} ! ;``; bracket an operand whose
priority is higher than its position allows; never let ``-(1)`` print as the number ``-1``.
"""

from __future__ import annotations

import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ilpkit.prolog import operators as ops
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import (
    NIL,
    Clause,
    Const,
    Str,
    Struct,
    Term,
    Var,
    atom_needs_quotes,
    canonical_var_name,
    clause_to_prolog,
    conjunction,
    flatten_conjunction,
    indicator,
    is_ground,
    list_items,
    make_list,
    quote_atom,
    struct,
    substitute,
    term_vars,
    to_prolog,
)

a, b, c, d, e = (Const(n) for n in "abcde")
X, Y, Z = Var("X"), Var("Y"), Var("Z")


def s(name: str, *args: Term) -> Struct:
    return Struct(name, args)


# --------------------------------------------------------------------------------------------
# Equality, hashing, immutability
# --------------------------------------------------------------------------------------------


def test_integer_and_float_constants_differ():
    assert Const(1) != Const(1.0)
    assert Const(1.0) != Const(1)
    assert Const(1) != Const("1")
    assert Const(1) == Const(1)
    assert Const(1.0) == Const(1.0)
    assert len({Const(1), Const(1.0), Const("1")}) == 3


def test_const_refuses_non_prolog_values():
    with pytest.raises(TypeError):
        Const(True)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Const(None)  # type: ignore[arg-type]


def test_struct_needs_arguments():
    with pytest.raises(ValueError):
        Struct("f", ())
    assert struct("f") == Const("f")
    assert struct("f", a) == s("f", a)


def test_kinds_of_terms_never_compare_equal():
    assert Var("a") != Const("a")
    assert Str("a") != Const("a")
    assert s("f", a) != Const("f")
    assert s("f", a) != s("f", a, a)
    assert s("f", a) != s("g", a)


@pytest.mark.parametrize(
    "term", [Var("X"), Const("a"), Const(1), Str("s"), s("f", a), Clause(s("p", X), [s("q", X)])]
)
def test_terms_are_immutable(term):
    attr = "head" if isinstance(term, Clause) else "name" if hasattr(term, "name") else "value"
    with pytest.raises(AttributeError):
        setattr(term, attr, "changed")
    with pytest.raises(AttributeError):
        term.new_attribute = 1  # type: ignore[union-attr]


def test_pickle_round_trip():
    clause = Clause(s("p", X, Const(1.5)), [s("q", X, Str("t")), s("\\+", s("r", Y))])
    assert pickle.loads(pickle.dumps(clause)) == clause


def test_indicator():
    assert indicator(s("p", a, b)) == ("p", 2)
    assert indicator(Const("p")) == ("p", 0)
    with pytest.raises(TypeError):
        indicator(X)
    with pytest.raises(TypeError):
        indicator(Const(3))


# --------------------------------------------------------------------------------------------
# Variants and canonical form
# --------------------------------------------------------------------------------------------


def test_variants_are_equal_after_canonical():
    # p(X, Y) :- q(X, Z)   and   p(A, B) :- q(A, C)
    c1 = Clause(s("p", X, Y), [s("q", X, Z)])
    c2 = Clause(s("p", Var("A"), Var("B")), [s("q", Var("A"), Var("C"))])
    assert c1 != c2
    assert c1.canonical() == c2.canonical()
    assert hash(c1.canonical()) == hash(c2.canonical())
    assert c1.is_variant(c2)
    assert c1.canonical() == Clause(s("p", Var("A"), Var("B")), [s("q", Var("A"), Var("C"))])


def test_canonical_names_follow_first_occurrence_order():
    # The body is scanned after the head, left to right.
    clause = Clause(s("p", Z), [s("q", Y, Z, X), s("r", X)])
    assert clause.canonical() == Clause(
        s("p", Var("A")), [s("q", Var("B"), Var("A"), Var("C")), s("r", Var("C"))]
    )
    assert clause.canonical().canonical() == clause.canonical()


@pytest.mark.parametrize(
    ("left", "right"),
    [
        # p(X, X) and p(X, Y) share variables differently.
        (Clause(s("p", X, X)), Clause(s("p", X, Y))),
        # p(X, Y) :- q(Y, X)  versus  p(X, Y) :- q(X, Y)
        (Clause(s("p", X, Y), [s("q", Y, X)]), Clause(s("p", X, Y), [s("q", X, Y)])),
        # a variable versus a constant
        (Clause(s("p", X)), Clause(s("p", a))),
        # body order matters
        (Clause(s("p", X), [s("q", X), s("r", X)]), Clause(s("p", X), [s("r", X), s("q", X)])),
    ],
)
def test_different_sharing_patterns_are_not_variants(left, right):
    assert left.canonical() != right.canonical()
    assert not left.is_variant(right)


def test_canonical_var_names():
    assert [canonical_var_name(i) for i in (0, 1, 25, 26, 27, 52)] == [
        "A",
        "B",
        "Z",
        "A1",
        "B1",
        "A2",
    ]


def test_clause_from_term_and_back():
    term = s(":-", s("p", X), s(",", s("q", X), s(",", s("r", X), s("s", X))))
    clause = Clause.from_term(term)
    assert clause.head == s("p", X)
    assert clause.body == (s("q", X), s("r", X), s("s", X))
    assert clause.to_term() == term
    assert clause.length == 4
    assert clause.indicator == ("p", 1)
    # "h :- true" is a fact; a fact's term is its head.
    assert Clause.from_term(s(":-", Const("h"), Const("true"))).is_fact
    assert Clause(Const("h")).to_term() == Const("h")


def test_conjunction_helpers():
    assert conjunction([]) == Const("true")
    assert conjunction([a]) == a
    assert conjunction([a, b, c]) == s(",", a, s(",", b, c))
    assert flatten_conjunction(s(",", s(",", a, b), s(",", c, d))) == [a, b, c, d]


def test_variables_and_groundness():
    term = s("f", X, s("g", Y, X), make_list([Z, a]))
    assert term_vars([term]) == [X, Y, Z]
    assert not is_ground(term)
    assert is_ground(s("f", a, make_list([Const(1)])))
    assert substitute(term, {X: a, Z: b}) == s("f", a, s("g", Y, a), make_list([b, a]))


# --------------------------------------------------------------------------------------------
# Lists
# --------------------------------------------------------------------------------------------


def test_make_list_builds_dot_pairs():
    assert make_list([]) == NIL == Const("[]")
    assert make_list([a, b]) == s(".", a, s(".", b, Const("[]")))
    assert make_list([a], X) == s(".", a, X)


def test_list_items():
    assert list_items(make_list([a, b, c])) == ([a, b, c], NIL)
    assert list_items(make_list([a, b], X)) == ([a, b], X)  # partial list
    assert list_items(make_list([a], b)) == ([a], b)  # improper list
    assert list_items(a) == ([], a)
    assert list_items(NIL) == ([], NIL)


@pytest.mark.parametrize(
    ("term", "text"),
    [
        (make_list([]), "[]"),
        (make_list([a, b, c]), "[a,b,c]"),
        (make_list([a, b], X), "[a,b|X]"),
        (make_list([a], b), "[a|b]"),
        (make_list([make_list([a]), make_list([])]), "[[a],[]]"),
        (make_list([Const(1), s("=", a, b)], Var("T")), "[1,a = b|T]"),
        (make_list([s(":-", a, b), s(",", a, b)]), "[(a :- b),(a,b)]"),
        (make_list([Const("-"), Const("|"), Const(",")]), "[-,'|',',']"),
        (s(".", a), "'.'(a)"),  # only '.'/2 is a list cell
    ],
)
def test_list_rendering(term, text):
    assert to_prolog(term) == text


def test_long_lists_do_not_hit_the_recursion_limit():
    # Regression: equality, canonical() and iter_vars recursed along the list spine.
    n = 20_000
    items = [Const(f"x{i}") for i in range(n)]
    one = make_list(items, X)
    two = make_list(list(items), Var("T"))
    assert Clause(s("seq", one)).canonical() == Clause(s("seq", two)).canonical()
    assert make_list(items) == make_list([Const(f"x{i}") for i in range(n)])
    assert make_list(items) != make_list([*items[:-1], Const("other")])
    assert term_vars([one]) == [X]
    assert to_prolog(make_list(items[:3], X)) == "[x0,x1,x2|X]"
    assert len(to_prolog(one)) == len("[|X]") + sum(len(f"x{i}") for i in range(n)) + n - 1


# --------------------------------------------------------------------------------------------
# Rendering (writeq)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("hello", "hello"),
        ("hello_World1", "hello_World1"),
        ("Foo bar", "'Foo bar'"),
        ("Hello", "'Hello'"),
        ("_x", "'_x'"),
        ("1a", "'1a'"),
        ("", "''"),
        ("don't", "'don''t'"),
        ("[]", "[]"),
        ("{}", "{}"),
        ("!", "!"),
        (";", ";"),
        (",", "','"),
        ("|", "'|'"),
        ("+", "+"),
        ("=..", "=.."),
        ("\\+", "\\+"),
        ("-->", "-->"),
        (".", "'.'"),
        ("/*", "'/*'"),
        ("a\nb", "'a\\nb'"),
        ("back\\slash", "'back\\\\slash'"),
        ("tab\t", "'tab\\t'"),
        ("\x01", "'\\x1\\'"),
        ("\x7f", "'\\x7f\\'"),
        ("été", "'été'"),  # ISO letters are ASCII: anything else is quoted
        ("[a]", "'[a]'"),
    ],
)
def test_atom_quoting(name, text):
    assert quote_atom(name) == text
    assert to_prolog(Const(name)) == text
    assert atom_needs_quotes(name) == text.startswith("'")


@pytest.mark.parametrize(
    ("term", "text"),
    [
        # numbers
        (Const(0), "0"),
        (Const(-7), "-7"),
        (Const(10**30), "1000000000000000000000000000000"),
        (Const(1.0), "1.0"),
        (Const(-2.5), "-2.5"),
        (Const(1e-5), "1.0e-05"),  # a float always shows a '.' (1e-05 is no Prolog float)
        (Const(1e22), "1.0e+22"),
        # strings and variables
        (Str("abc"), '"abc"'),
        (Str('say "hi"\n'), '"say ""hi""\\n"'),
        (Str("back\\slash"), '"back\\\\slash"'),
        (X, "X"),
        (Var("_Tail"), "_Tail"),
        # operator atoms as operands are bracketed
        (s("=", X, Const("-")), "X = (-)"),
        (s("=", Const("\\+"), a), "(\\+) = a"),
        (s("-", Const("-"), Const("-")), "(-) - (-)"),
        (s(":-", Const("dynamic"), a), "(dynamic) :- a"),
        (s("f", Const("-"), Const(":-"), Const("dynamic")), "f(-,:-,dynamic)"),
        # negative numbers as operands
        (s("-", a, Const(-1)), "a - -1"),
        (s("-", Const(1), Const(-1)), "1 - -1"),
        (s("**", Const(2), Const(-1)), "2 ** (-1)"),
        (s("^", Const(-1), Const(2)), "(-1)^2"),
        (s("-", Const(-1), Const(1)), "-1-1"),
        (s("f", Const(-1)), "f(-1)"),
        # prefix operators with numbers: -(1) must not become the integer -1
        (s("-", Const(1)), "-(1)"),
        (s("-", Const(1.5)), "-(1.5)"),
        (s("+", Const(1)), "+(1)"),
        (s("-", Const(-1)), "- -1"),
        (s("-", s("-", Const(1))), "- -(1)"),
        (s("-", s("^", Const(1), Const(2))), "-(1^2)"),
        (s("^", s("-", Const(1)), Const(2)), "-(1)^2"),
        (s("-", Const(1), s("-", Const(1))), "1 - -(1)"),
        # prefix operators with other operands
        (s("-", a), "-a"),
        (s("-", s("-", a)), "- -a"),
        (s("-", Const("-")), "-(-)"),
        (s("-", s("+", a, b)), "- (a+b)"),
        (s("-", s("{}", a)), "- {a}"),  # "-{a}" is a dict in SWI-Prolog 7
        (s("-", a, s("{}", b)), "a-{b}"),
        (s("\\+", a), "\\+a"),
        (s("\\+", s(",", a, b)), "\\+ (a,b)"),
        (s("dynamic", s("/", Const("foo"), Const(1))), "dynamic foo/1"),
        (s(":-", s("op", Const(700), Const("xfx"), Const("===>"))), ":-op(700,xfx,===>)"),
        (s("=", a, s("\\+", b)), "a = (\\+b)"),  # \+ is 900, the right of = at most 699
        # associativity: yfx, xfy, xfx
        (s("-", s("-", Const(1), Const(2)), Const(3)), "1-2-3"),
        (s("-", Const(1), s("-", Const(2), Const(3))), "1 - (2-3)"),  # no "-(" functor look
        (s("^", Const(2), s("^", Const(3), Const(4))), "2^3^4"),
        (s("^", s("^", Const(2), Const(3)), Const(4)), "(2^3)^4"),
        (s("**", s("**", Const(2), Const(3)), Const(4)), "(2**3)**4"),
        (s("=", s("=", a, b), c), "(a = b) = c"),
        (s(":", a, s(":", b, c)), "a:b:c"),
        (s(":", s(":", a, b), c), "(a:b):c"),
        (s("+", s(":", a, b), c), "(a:b)+c"),  # ':' is 600, as in SWI-Prolog
        (s(":", Const("lists"), s("append", X)), "lists:append(X)"),
        # priorities
        (s("+", Const(1), s("*", Const(2), Const(3))), "1+2*3"),
        (s("*", s("+", Const(1), Const(2)), Const(3)), "(1+2)*3"),
        (s("is", X, s("+", Const(1), Const(2))), "X is 1+2"),
        (s("mod", Const(7), Const(2)), "7 mod 2"),
        (s(":-", a, s(";", s(",", b, c), s("->", d, e))), "a :- b,c ; d -> e"),
        (s(",", s(";", a, b), c), "(a ; b),c"),
        # nested clauses and conjunctions as arguments
        (s("f", s(":-", a, b)), "f((a :- b))"),
        (s("f", s(",", a, b)), "f((a,b))"),
        (s("f", s(";", a, b)), "f((a ; b))"),
        (s("f", s("=", a, b), s("-", a)), "f(a = b,-a)"),
        (s("findall", X, s(",", s("p", X), s("q", X)), Var("L")), "findall(X,(p(X),q(X)),L)"),
        # curly terms
        (s("{}", a), "{a}"),
        (s("{}", s(",", a, b)), "{a,b}"),
        (s("{}", s(":-", a, b)), "{a :- b}"),
        (s("{}", a, b), "{}(a,b)"),
        # functors that need quotes
        (s("hello world", X), "'hello world'(X)"),
        (s("[]", a), "[](a)"),
        (s("Foo", a), "'Foo'(a)"),
        (s(",", a, b), "a,b"),
    ],
)
def test_writeq_rendering(term, text):
    assert to_prolog(term) == text


def test_rendering_respects_the_context_priority():
    assert to_prolog(s(":-", a, b), 999) == "(a :- b)"
    assert to_prolog(s("-", a), 199) == "(-a)"
    assert to_prolog(Const(-1), 199) == "(-1)"
    assert to_prolog(Const("-"), 699) == "(-)"


def test_clause_rendering():
    clause = Clause(s("p", X), [s("q", X), s(";", Const("r"), Const("s")), s("=", X, Const("-"))])
    assert clause_to_prolog(clause) == "p(X) :- q(X), (r ; s), X = (-)."
    assert clause_to_prolog(Clause(s("p", Const("it's")))) == "p('it''s')."
    assert str(clause) == clause_to_prolog(clause)


# --------------------------------------------------------------------------------------------
# Round trip: to_prolog -> reader -> the same term
# --------------------------------------------------------------------------------------------

OPERATOR_NAMES = sorted(set(ops.INFIX_OPS) | set(ops.PREFIX_OPS))
INFIX_NAMES = sorted(ops.INFIX_OPS)
PREFIX_NAMES = sorted(ops.PREFIX_OPS)
WEIRD_ATOMS = [
    "[]",
    "{}",
    "!",
    ";",
    ",",
    "|",
    "||",
    ".",
    "..",
    "'",
    '"',
    "`",
    "\\",
    "/*",
    "*/",
    "%",
    " ",
    "",
    "a b",
    "Foo",
    "_x",
    "1a",
    "don't",
    "a\nb",
    "tab\there",
    "back\\slash",
    "été",
    "日本",
    "Ωmega",
    "\x00",
    "\x7f",
    "end.",
    "[",
    "]",
    "(",
    "a.b",
    "1",
    "-1",
    "[a]",
    "'q'",
    "0'a",
    "emoji😀",
]
# Any code point that can live in a source file (no lone surrogates).
TEXT_CHARS = st.characters(exclude_categories=("Cs",))
LOWER_NAMES = st.from_regex(r"[a-z][a-zA-Z0-9_]{0,6}", fullmatch=True)


def atom_names(text_chars: st.SearchStrategy[str] = TEXT_CHARS) -> st.SearchStrategy[str]:
    return st.one_of(
        LOWER_NAMES,
        st.sampled_from(OPERATOR_NAMES),
        st.sampled_from(WEIRD_ATOMS),
        st.text(alphabet=text_chars, max_size=6),
    )


def prolog_terms(
    text_chars: st.SearchStrategy[str] = TEXT_CHARS,
    strings: bool = True,
    max_leaves: int = 12,
) -> st.SearchStrategy[Term]:
    """Random terms: weird atoms, numbers, strings, variables, operators, lists, curly terms."""
    names = atom_names(text_chars)
    var_names = st.from_regex(r"[A-Z_][a-zA-Z0-9_]{0,3}", fullmatch=True).filter(
        lambda n: n != "_"  # "_" reads as a fresh variable at each occurrence
    )
    leaves = [
        names.map(Const),
        st.integers(min_value=-(10**20), max_value=10**20).map(Const),
        st.sampled_from([0, 1, -1]).map(Const),
        st.floats(allow_nan=False, allow_infinity=False).map(Const),
        var_names.map(Var),
    ]
    if strings:
        leaves.append(st.text(alphabet=text_chars, max_size=6).map(Str))

    def compounds(children: st.SearchStrategy[Term]) -> st.SearchStrategy[Term]:
        return st.one_of(
            st.builds(Struct, names, st.lists(children, min_size=1, max_size=3)),
            st.builds(
                lambda n, x, y: Struct(n, (x, y)), st.sampled_from(INFIX_NAMES), children, children
            ),
            st.builds(lambda n, x: Struct(n, (x,)), st.sampled_from(PREFIX_NAMES), children),
            st.builds(make_list, st.lists(children, max_size=3), st.just(NIL) | children),
            st.builds(lambda x: Struct("{}", (x,)), children),
        )

    return st.recursive(st.one_of(leaves), compounds, max_leaves=max_leaves)


def read_back(text: str) -> Term:
    return PrologReader(double_quotes="string").read_term(text + " .")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prolog_terms())
def test_round_trip_through_the_reader(term):
    text = to_prolog(term)
    # Variables are compared up to renaming: the canonical form of a one-literal clause.
    assert Clause(read_back(text)).canonical() == Clause(term).canonical(), text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prolog_terms(), st.lists(prolog_terms(), max_size=3))
def test_clause_round_trip(head, body):
    # Keep to clauses that have exactly one reading: the body is the flattened conjunction.
    if type(head) is Struct and head.name == ":-" and len(head.args) == 2:
        head = Struct("h", (head,))
    body = [g for g in body if not (type(g) is Struct and g.name == "," and len(g.args) == 2)]
    if body == [Const("true")]:
        body = []
    clause = Clause(head, body)
    text = clause_to_prolog(clause)
    assert text.endswith(".")
    read = PrologReader(double_quotes="string").read_term(text)
    assert Clause.from_term(read).canonical() == clause.canonical(), text
