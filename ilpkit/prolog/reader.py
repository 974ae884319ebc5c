"""A streaming reader for Prolog-text data files.

Reads facts, rules, directives and queries with the standard operator table (plus ``op/3``
directives met in the file), quoted atoms with escapes, strings, lists, curly terms, ``0'c``
character codes, ``%`` and ``/* */`` comments.

Why a reader of our own: data files must become *data* (terms) before any engine sees them, so
that every backend is loaded with the same program and directives are never executed blindly.

Speed: most lines of a large data file are simple ground facts (``atm(d1, d1_1, c, 22, -0.11).``).
Those are recognised by one regular expression and built directly; everything else goes through
a tokenizer and an operator-precedence parser.  Files are read in chunks of lines, so memory
does not grow with the file.

Errors: every syntax error becomes ``(SourceLocation, message)``; reading skips to the end of
the broken clause and goes on, and at the end a single :class:`PrologSyntaxError` lists up to
``max_errors`` errors.  Nothing but :class:`~ilpkit.errors.IlpkitError` escapes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ilpkit.errors import DataError, PrologSyntaxError, SourceLocation
from ilpkit.prolog import operators as std_ops
from ilpkit.prolog.terms import NIL, Const, Str, Struct, Term, Var, list_items, make_list

DEFAULT_MAX_ERRORS: Final = 25
CHUNK_LINES: Final = 50_000


@dataclass(frozen=True, slots=True)
class ReadTerm:
    """One clause read from a source: the term and where it started."""

    term: Term
    file: str
    line: int

    @property
    def location(self) -> SourceLocation:
        return SourceLocation(self.file, self.line, 1)


@dataclass
class OperatorTable:
    """The operators in force while reading one source (``op/3`` directives change it)."""

    infix: dict[str, tuple[int, str]] = field(default_factory=lambda: dict(std_ops.INFIX_OPS))
    prefix: dict[str, tuple[int, str]] = field(default_factory=lambda: dict(std_ops.PREFIX_OPS))
    postfix: dict[str, tuple[int, str]] = field(default_factory=dict)

    def add(self, priority: int, kind: str, name: str) -> None:
        table = (
            self.infix
            if kind in ("xfx", "xfy", "yfx")
            else self.prefix
            if kind in ("fy", "fx")
            else self.postfix
        )
        if priority == 0:
            table.pop(name, None)
        else:
            table[name] = (priority, kind)

    def is_op(self, name: str) -> bool:
        return name in self.infix or name in self.prefix or name in self.postfix


# --------------------------------------------------------------------------------------------
# Tokens
# --------------------------------------------------------------------------------------------

# Token kinds
NAME, VAR, INT, FLOAT, STR, BQ, PUNCT, END = range(8)
_KIND_TEXT: Final = {
    NAME: "atom",
    VAR: "variable",
    INT: "integer",
    FLOAT: "float",
    STR: "string",
    BQ: "back-quoted string",
    PUNCT: "punctuation",
    END: "end of clause",
}


@dataclass(slots=True)
class Token:
    kind: int
    value: object
    pos: int  # offset in the chunk text
    layout_before: bool
    quoted: bool = False

    def describe(self) -> str:
        if self.kind == END:
            return "end of clause '.'"
        if self.kind == PUNCT:
            return f"'{self.value}'"
        if self.kind == NAME:
            return f"atom {self.value!r}" if self.quoted else f"atom {self.value}"
        return f"{_KIND_TEXT[self.kind]} {self.value}"


class _SyntaxErr(Exception):
    def __init__(self, pos: int, message: str):
        super().__init__(message)
        self.pos = pos
        self.message = message


class _NeedMore(Exception):
    """The chunk ended inside a clause, comment or quoted item: read more lines first."""


_SYMBOL_CLASS = r"[+\-*/\\^<>=~:.?@#&$]"
_LAYOUT_RE: Final = re.compile(r"(?:\s+|%[^\n]*)+")
_NAME_RE: Final = re.compile(r"[^\W\dA-Z_]\w*")
_VAR_RE: Final = re.compile(r"[^\W\d]\w*")  # after "_" or an uppercase letter
_SYMBOL_RE: Final = re.compile(_SYMBOL_CLASS + "+")
_SYMBOL_CHARS: Final = std_ops.SYMBOL_CHARS


_WORD_RE: Final = re.compile(r"\w*")


def _word_end(text: str, end: int) -> int:
    """Extend a name over combining marks: decomposed "a" + U+0301 is one letter."""
    while end < len(text) and text[end] > "\x7f" and unicodedata.category(text[end])[0] == "M":
        m = _WORD_RE.match(text, end + 1)
        assert m
        end = m.end()
    return end


def _is_unicode_symbol(c: str) -> bool:
    """Non-ASCII symbols and punctuation are symbol characters, as in SWI-Prolog ("±", "→")."""
    return c > "\x7f" and unicodedata.category(c)[0] in "SP"


_NUMBER_RE: Final = re.compile(
    r"""
    0'(?P<code>\\.|''|[^\\'\n]|'(?!'))     # character code 0'c
  | 0x(?P<hex>[0-9a-fA-F]+)
  | 0o(?P<oct>[0-7]+)
  | 0b(?P<bin>[01]+)
  | (?P<float>\d+\.\d+(?:[eE][+-]?\d+)?(?:Inf|NaN)? | \d+[eE][+-]?\d+)
  | (?P<int>\d+)
    """,
    re.VERBOSE,
)

_SIMPLE_ESCAPES: Final = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "e": "\x1b",
    "s": " ",
}


# Python's int() refuses longer decimal strings (sys.get_int_max_str_digits()).
_MAX_INT_DIGITS: Final = 4300
# Hexadecimal, octal and binary literals are held to the same magnitude, so that every
# integer read can be written back as decimal text.
_INT_BOUND: Final = 10**_MAX_INT_DIGITS
_INF: Final = float("inf")

MAX_TERM_DEPTH: Final = 200
"""Deepest nesting of compound terms a clause may have (documented in docs/formats.md).

List tails and the goals of a clause body's top-level conjunction do not count (they are
held flat), so long lists and long bodies are fine; ``a+a+...+a`` with 600 operands is 599
levels deep and is refused.  Without a bound, printing, exporting to a Prolog engine,
pickling or comparing such a term would exhaust Python's stack far from the file."""


def _code_char(code: int, pos: int) -> str:
    """The character of an escape's code point, or a syntax error beyond Unicode or for a
    lone surrogate (which no UTF-8 file or Prolog engine can hold)."""
    if code > 0x10FFFF:
        raise _SyntaxErr(pos, f"character code {code:#x} in escape is beyond Unicode (0x10ffff)")
    if 0xD800 <= code <= 0xDFFF:
        raise _SyntaxErr(pos, f"character code {code:#x} in escape is a lone UTF-16 surrogate")
    return chr(code)


def _int_token(value: int, pos: int, layout: bool) -> Token:
    if value >= _INT_BOUND:
        raise _SyntaxErr(pos, f"integer with more than {_MAX_INT_DIGITS} decimal digits")
    return Token(INT, value, pos, layout)


class _Tokenizer:
    """Tokenizes one clause at a time from a chunk of text."""

    def __init__(self, text: str, final: bool):
        self.text = text
        self.final = final  # no more text will follow this chunk

    def skip_layout(self, pos: int) -> int:
        text = self.text
        n = len(text)
        if pos == 0 and text.startswith("\ufeff"):  # byte-order mark
            pos = 1
        while pos < n:
            m = _LAYOUT_RE.match(text, pos)
            if m:
                pos = m.end()
                continue
            if text.startswith("/*", pos):
                end = text.find("*/", pos + 2)
                if end < 0:
                    if not self.final:
                        raise _NeedMore
                    raise _SyntaxErr(pos, "unterminated block comment '/*' (expected '*/')")
                pos = end + 2
                continue
            break
        return pos

    def clause_tokens(self, pos: int) -> tuple[list[Token], int]:
        """Tokens of the clause starting at ``pos`` (up to and including END), and the end."""
        tokens: list[Token] = []
        text = self.text
        n = len(text)
        while True:
            start = pos
            pos = self.skip_layout(pos)
            layout = pos > start or not tokens
            if pos >= n:
                if not self.final:
                    raise _NeedMore
                if tokens:
                    raise _SyntaxErr(
                        tokens[0].pos, "unexpected end of file: clause not terminated by '.'"
                    )
                return tokens, pos
            tok, pos = self._next(pos, layout)
            tokens.append(tok)
            if tok.kind == END:
                return tokens, pos

    def _next(self, pos: int, layout: bool) -> tuple[Token, int]:
        text = self.text
        c = text[pos]
        if c.isdecimal():  # what _NUMBER_RE's \d matches (not "²", which isdigit())
            return self._number(pos, layout)
        if c == "_" or (c.isupper() and c.isalpha()):  # "Élan" is a variable, as in SWI-Prolog
            m = _VAR_RE.match(text, pos)
            assert m
            end = _word_end(text, m.end())
            return Token(VAR, text[pos:end], pos, layout), end
        if c.isalpha():  # any other letter starts an atom, as the regex checks
            m = _NAME_RE.match(text, pos)
            assert m
            end = _word_end(text, m.end())
            return Token(NAME, text[pos:end], pos, layout), end
        if c in "()[]{},|":
            if c == "|" and text.startswith("||", pos):
                return Token(NAME, "||", pos, layout), pos + 2
            return Token(PUNCT, c, pos, layout), pos + 1
        if c in "!;":
            return Token(NAME, c, pos, layout), pos + 1
        if c == "'":
            value, end = self._quoted(pos, "'")
            return Token(NAME, value, pos, layout, quoted=True), end
        if c == '"':
            value, end = self._quoted(pos, '"')
            return Token(STR, value, pos, layout), end
        if c == "`":
            value, end = self._quoted(pos, "`")
            return Token(BQ, value, pos, layout), end
        if c == ".":
            nxt = pos + 1
            if nxt >= len(text):
                if not self.final:
                    raise _NeedMore
                return Token(END, ".", pos, layout), nxt
            if text[nxt].isspace() or text[nxt] == "%":
                return Token(END, ".", pos, layout), nxt
        m = _SYMBOL_RE.match(text, pos)
        if m or _is_unicode_symbol(c):
            end = m.end() if m else pos
            while end < len(text) and (text[end] in _SYMBOL_CHARS or _is_unicode_symbol(text[end])):
                end += 1
            sym = text[pos:end]
            # A symbol run that contains "/*" stops before it (a comment starts there).
            cut = sym.find("/*")
            if cut > 0:
                sym = sym[:cut]
            return Token(NAME, sym, pos, layout), pos + len(sym)
        if c > "\x7f" and unicodedata.category(c) == "No":  # "½": a solo atom in SWI-Prolog
            return Token(NAME, c, pos, layout), pos + 1
        raise _SyntaxErr(pos, f"unexpected character {c!r}")

    def _number(self, pos: int, layout: bool) -> tuple[Token, int]:
        m = _NUMBER_RE.match(self.text, pos)
        assert m
        end = m.end()
        if m.group("code") is not None:
            code = m.group("code")
            if code == "''":
                return Token(INT, 39, pos, layout), end
            if code.startswith("\\"):
                # The escape may run past the regex match: 0'\x41\ or 0'\101\.
                value, end = self._escape(pos + 2, pos)
                return Token(INT, ord(value), pos, layout), end
            return Token(INT, ord(code), pos, layout), end
        # Powers of two convert in linear time, so the check can follow the conversion.
        if m.group("hex"):
            return _int_token(int(m.group("hex"), 16), pos, layout), end
        if m.group("oct"):
            return _int_token(int(m.group("oct"), 8), pos, layout), end
        if m.group("bin"):
            return _int_token(int(m.group("bin"), 2), pos, layout), end
        if m.group("float"):
            text = m.group("float")
            if text.endswith("Inf"):
                return Token(FLOAT, float("inf"), pos, layout), end
            if text.endswith("NaN"):
                return Token(FLOAT, float("nan"), pos, layout), end
            if len(text) > _MAX_INT_DIGITS:
                raise _SyntaxErr(pos, f"float with more than {_MAX_INT_DIGITS} characters")
            number = float(text)
            if number == _INF:  # SWI-Prolog: "Number too large"
                raise _SyntaxErr(pos, f"float {text[:20]}... is too large (beyond 1.8e308)")
            return Token(FLOAT, number, pos, layout), end
        digits = m.group("int")
        if len(digits) > _MAX_INT_DIGITS:
            raise _SyntaxErr(pos, f"integer with more than {_MAX_INT_DIGITS} digits")
        return Token(INT, int(digits), pos, layout), end

    def _escape(self, pos: int, start: int) -> tuple[str, int]:
        """Decode the escape sequence whose backslash is at ``pos``."""
        text = self.text
        if pos + 1 >= len(text):
            raise _SyntaxErr(start, "unterminated escape sequence")
        c = text[pos + 1]
        if c in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[c], pos + 2
        if c == "x":
            m = re.compile(r"x([0-9a-fA-F]+)\\?").match(text, pos + 1)
            if not m:
                raise _SyntaxErr(pos, "bad hexadecimal escape (expected \\xHH..\\)")
            return _code_char(int(m.group(1), 16), pos), m.end()
        if c in "01234567":
            m = re.compile(r"([0-7]+)\\?").match(text, pos + 1)
            assert m
            return _code_char(int(m.group(1), 8), pos), m.end()
        if c == "u" or c == "U":
            width = 4 if c == "u" else 8
            digits = text[pos + 2 : pos + 2 + width]
            if len(digits) != width or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise _SyntaxErr(pos, f"bad unicode escape (expected \\{c} and {width} hex digits)")
            return _code_char(int(digits, 16), pos), pos + 2 + width
        if c == "\n":
            return "", pos + 2
        raise _SyntaxErr(pos, f"unknown escape sequence '\\{c}'")

    def _quoted(self, pos: int, quote: str) -> tuple[str, int]:
        text = self.text
        out: list[str] = []
        i = pos + 1
        n = len(text)
        while True:
            j = i
            while j < n and text[j] != quote and text[j] != "\\" and text[j] != "\n":
                j += 1
            out.append(text[i:j])
            if j >= n:
                if not self.final:
                    raise _NeedMore
                raise _SyntaxErr(pos, f"unterminated quoted item: missing closing {quote}")
            c = text[j]
            if c == "\n":
                what = {"'": "atom", '"': "string", "`": "back-quoted string"}[quote]
                raise _SyntaxErr(
                    pos, f"unterminated quoted {what}: missing closing {quote} before end of line"
                )
            if c == "\\":
                value, i = self._escape(j, pos)
                out.append(value)
                continue
            # the quote character
            if j + 1 < n and text[j + 1] == quote:
                out.append(quote)
                i = j + 2
                continue
            if j + 1 >= n and not self.final:
                raise _NeedMore
            return "".join(out), j + 1


# --------------------------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------------------------

_TERMINATORS: Final = frozenset({")", "]", "}", ",", "|"})


class _Parser:
    """Operator-precedence parser over one clause's tokens."""

    def __init__(self, tokens: list[Token], ops: OperatorTable, double_quotes: str):
        self.tokens = tokens
        self.i = 0
        self.ops = ops
        self.double_quotes = double_quotes
        self.varmap: dict[str, Var] = {}
        self.user_var_names = {t.value for t in tokens if t.kind == VAR}
        self.anon = 0

    # helpers --------------------------------------------------------------------------------
    def peek(self) -> Token:
        return self.tokens[self.i]

    def advance(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect_punct(self, value: str, context: str) -> None:
        tok = self.peek()
        if tok.kind != PUNCT or tok.value != value:
            raise _SyntaxErr(tok.pos, f"expected '{value}' {context}, got {tok.describe()}")
        self.i += 1

    def fresh_var(self) -> Var:
        while True:
            self.anon += 1
            name = f"_G{self.anon}"
            if name not in self.user_var_names:
                return Var(name)

    # grammar --------------------------------------------------------------------------------
    def parse_clause(self) -> Term:
        term, _ = self.parse(1200)
        tok = self.peek()
        if tok.kind != END:
            if tok.kind == NAME:
                raise _SyntaxErr(
                    tok.pos, f"unknown operator {tok.value!r} (or a missing ',' or '.' before it)"
                )
            raise _SyntaxErr(tok.pos, f"expected an operator or '.', got {tok.describe()}")
        return term

    def parse(self, max_prec: int) -> tuple[Term, int]:
        left, left_prec = self.parse_primary(max_prec)
        return self.parse_infix(left, left_prec, max_prec)

    def parse_infix(self, left: Term, left_prec: int, max_prec: int) -> tuple[Term, int]:
        while True:
            tok = self.peek()
            if tok.kind == NAME:
                name = str(tok.value)
            elif tok.kind == PUNCT and tok.value in (",", "|"):
                name = str(tok.value)
                if name == "|":
                    name = ";"  # "a | b" at priority 1100 reads as ';'(a, b)
            else:
                return left, left_prec
            spec = self.ops.infix.get(name)
            if spec is not None:
                p, kind = spec
                lmax = p if kind[0] == "y" else p - 1
                rmax = p if kind[2] == "y" else p - 1
                if p > max_prec or left_prec > lmax:
                    return left, left_prec
                self.i += 1
                right, _ = self.parse(rmax)
                left = Struct(name, (left, right))
                left_prec = p
                continue
            pspec = self.ops.postfix.get(name)
            if pspec is not None:
                p, kind = pspec
                lmax = p if kind[0] == "y" else p - 1
                if p > max_prec or left_prec > lmax:
                    return left, left_prec
                self.i += 1
                left = Struct(name, (left,))
                left_prec = p
                continue
            return left, left_prec

    def parse_arglist(self) -> list[Term]:
        args = [self.parse(999)[0]]
        while True:
            tok = self.peek()
            if tok.kind == PUNCT and tok.value == ",":
                self.i += 1
                args.append(self.parse(999)[0])
                continue
            if tok.kind == PUNCT and tok.value == ")":
                self.i += 1
                return args
            raise _SyntaxErr(tok.pos, f"expected ',' or ')' in arguments, got {tok.describe()}")

    def parse_primary(self, max_prec: int) -> tuple[Term, int]:
        tok = self.advance()
        kind = tok.kind
        if kind in (INT, FLOAT):
            return Const(tok.value), 0  # type: ignore[arg-type]
        if kind == VAR:
            name = str(tok.value)
            if name == "_":
                return self.fresh_var(), 0
            var = self.varmap.get(name)
            if var is None:
                var = self.varmap[name] = Var(name)
            return var, 0
        if kind == STR:
            return self.string_term(str(tok.value)), 0
        if kind == BQ:
            return make_list([Const(ord(c)) for c in str(tok.value)]), 0
        if kind == PUNCT:
            value = tok.value
            if value == "(":
                term, _ = self.parse(1200)
                self.expect_punct(")", "to close '('")
                return term, 0
            if value == "[":
                nxt = self.peek()
                if nxt.kind == PUNCT and nxt.value == "]":
                    self.i += 1
                    return self.after_atom("[]", nxt, max_prec, quoted=False)
                items = [self.parse(999)[0]]
                tail: Term = NIL
                while True:
                    nxt = self.advance()
                    if nxt.kind == PUNCT and nxt.value == ",":
                        items.append(self.parse(999)[0])
                        continue
                    if nxt.kind == PUNCT and nxt.value == "|":
                        tail = self.parse(999)[0]
                        self.expect_punct("]", "to close the list")
                        break
                    if nxt.kind == PUNCT and nxt.value == "]":
                        break
                    raise _SyntaxErr(
                        nxt.pos, f"expected ',', '|' or ']' in a list, got {nxt.describe()}"
                    )
                return make_list(items, tail), 0
            if value == "{":
                nxt = self.peek()
                if nxt.kind == PUNCT and nxt.value == "}":
                    self.i += 1
                    return self.after_atom("{}", nxt, max_prec, quoted=False)
                term, _ = self.parse(1200)
                self.expect_punct("}", "to close '{'")
                return Struct("{}", (term,)), 0
            raise _SyntaxErr(tok.pos, f"unexpected {tok.describe()} where a term was expected")
        if kind == NAME:
            return self.after_atom(str(tok.value), tok, max_prec, quoted=tok.quoted)
        raise _SyntaxErr(tok.pos, f"unexpected {tok.describe()} where a term was expected")

    def string_term(self, value: str) -> Term:
        if self.double_quotes == "codes":
            return make_list([Const(ord(c)) for c in value])
        if self.double_quotes == "chars":
            return make_list([Const(c) for c in value])
        if self.double_quotes == "atom":
            return Const(value)
        return Str(value)

    def after_atom(self, name: str, tok: Token, max_prec: int, quoted: bool) -> tuple[Term, int]:
        nxt = self.peek()
        # Functional notation: name immediately followed by "(".
        if nxt.kind == PUNCT and nxt.value == "(" and not nxt.layout_before:
            self.i += 1
            return Struct(name, self.parse_arglist()), 0
        # Negative numeric literal: "-" immediately followed by a number.
        if name == "-" and not quoted and nxt.kind in (INT, FLOAT) and not nxt.layout_before:
            self.i += 1
            return Const(-nxt.value), 0  # type: ignore[operator]
        if not quoted and name in self.ops.prefix and not self.is_term_end(nxt):
            p, kind = self.ops.prefix[name]
            arg_max = p if kind[1] == "y" else p - 1
            if p > max_prec:
                p, arg_max = 999, 999
            arg, _ = self.parse(arg_max)
            return Struct(name, (arg,)), p
        prec = 0
        if self.ops.is_op(name) and not quoted:
            prec = max(
                (spec[0] for spec in (self.ops.infix.get(name), self.ops.prefix.get(name)) if spec),
                default=0,
            )
            if prec > max_prec:
                prec = 0  # an operator atom as a plain operand, e.g. X = (-) or f(+, a)
        return Const(name), prec

    def is_term_end(self, tok: Token) -> bool:
        """Whether ``tok`` cannot start an operand (so a prefix operator stands as an atom)."""
        if tok.kind == END:
            return True
        if tok.kind == PUNCT:
            return tok.value in _TERMINATORS
        if tok.kind == NAME and not tok.quoted:
            name = str(tok.value)
            if name in self.ops.infix and name not in self.ops.prefix:
                nxt = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
                # "- (" would be an operand; "- = x" is the atom '-' on the left of '='.
                return not (
                    nxt is not None
                    and nxt.kind == PUNCT
                    and nxt.value == "("
                    and not nxt.layout_before
                )
        return False


# --------------------------------------------------------------------------------------------
# Fast path for simple ground facts
# --------------------------------------------------------------------------------------------

# Integers are bounded so that int() cannot fail; longer ones take the slow path (an error).
_ARG = rf"(?:[a-z][A-Za-z0-9_]*|-?\d{{1,{_MAX_INT_DIGITS}}}(?:\.\d+(?:[eE][+-]?\d+)?)?|'[^'\\\n]*')"
# A simple fact on one line, after any whitespace: name(arg, ...).  Group 1 is the name,
# group 2 the arguments.  Facts over several lines, or after a comment, take the slow path
# (comments are skipped there, and the fast path is tried again after them).
_FACT_RE: Final = re.compile(
    r"\s*([a-z][A-Za-z0-9_]*)\([ \t]*("
    + _ARG
    + r"(?:[ \t]*,[ \t]*"
    + _ARG
    + r")*)[ \t]*\)[ \t]*\.(?=\s|%|$)"
)
# pos(f(a, b)). -- the example files of ilp-experiments and Popper wrap every atom once.
_WRAPPED_FACT_RE: Final = re.compile(
    r"\s*([a-z][A-Za-z0-9_]*)\([ \t]*([a-z][A-Za-z0-9_]*)\([ \t]*("
    + _ARG
    + r"(?:[ \t]*,[ \t]*"
    + _ARG
    + r")*)[ \t]*\)[ \t]*\)[ \t]*\.(?=\s|%|$)"
)
_ARG_RE: Final = re.compile(_ARG)


def _arg_texts(args: str) -> list[str]:
    """The argument texts of a fast-path match, possibly with blanks around them.

    A plain split on ',' unless a quoted atom (which may contain a comma) is present.
    """
    return _ARG_RE.findall(args) if "'" in args else args.split(",")


# The constant cache is emptied between chunks once it holds more entries than this: data
# files with millions of distinct identifiers would otherwise keep one entry per identifier.
_MAX_CACHED_CONSTANTS: Final = 100_000


class _NotFast(Exception):
    """A fact the fast path matched but cannot build: the tokenizer reads it instead."""


class _ConstCache(dict[str, Const]):
    """Interns constants by their source text (``1`` and ``1.0`` stay distinct).

    Keys are argument texts as the fast path splits them, possibly with blanks around
    (``" b"``): stripping them first would cost every argument more than the odd extra entry.
    """

    def __missing__(self, text: str) -> Const:
        bare = text.strip()
        c = bare[0]
        if c == "'":
            value: str | int | float = bare[1:-1]
        elif c == "-" or c.isdigit():
            # _ARG's numbers: a float has a '.', an integer has none.
            value = float(bare) if "." in bare else int(bare)
            if value in (_INF, -_INF):
                raise _NotFast  # the slow path reports the float that is too large
        else:
            value = bare
        const = self[text] = Const(value)
        return const


_new_object = object.__new__
_set_rt_term: Final[Callable[[ReadTerm, Term], None]] = ReadTerm.__dict__["term"].__set__
_set_rt_file: Final[Callable[[ReadTerm, str], None]] = ReadTerm.__dict__["file"].__set__
_set_rt_line: Final[Callable[[ReadTerm, int], None]] = ReadTerm.__dict__["line"].__set__


def _read_term(term: Term, file: str, line: int) -> ReadTerm:
    """``ReadTerm(term, file, line)`` in half the time of the frozen dataclass's __init__."""
    rt = _new_object(ReadTerm)
    _set_rt_term(rt, term)
    _set_rt_file(rt, file)
    _set_rt_line(rt, line)
    return rt


# --------------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------------


class PrologReader:
    """Reads Prolog text into :class:`ReadTerm` items.

    ``double_quotes`` is ``"string"`` (SWI-Prolog 7 default), ``"codes"`` (ISO, YAP), ``"chars"``
    or ``"atom"``.  A ``:- set_prolog_flag(double_quotes, X)`` directive in the file changes it.
    """

    def __init__(
        self,
        *,
        max_errors: int = DEFAULT_MAX_ERRORS,
        double_quotes: str = "codes",
        ops: OperatorTable | None = None,
    ):
        self.max_errors = max_errors
        self.double_quotes = double_quotes
        self.ops = ops if ops is not None else OperatorTable()
        self._consts = _ConstCache()

    # -- sources ---------------------------------------------------------------------------
    def read_file(self, path: str | Path) -> Iterator[ReadTerm]:
        """Stream the clauses of ``path``; raises :class:`PrologSyntaxError` at the end."""
        name = str(path)
        return self._read_lines(_file_lines(Path(path)), name)

    def read_text(self, text: str, name: str = "<string>") -> Iterator[ReadTerm]:
        """The clauses of ``text`` (errors, like a file's, come while iterating)."""
        bad = _surrogate_at(text)
        if bad is not None:
            return _refuse_surrogate(text, bad, name)
        return self._read_lines(iter([text]), name)

    def read_term(self, text: str, name: str = "<string>") -> Term:
        """Exactly one term (the final '.' is optional)."""
        stripped = text.strip()
        # A '.' glued to symbol characters ("..", "=.") is part of a symbol atom, not an end.
        if not stripped.endswith(".") or stripped[-2:-1] in std_ops.SYMBOL_CHARS:
            stripped += " ."
        terms = [rt.term for rt in self.read_text(stripped + "\n", name)]
        if len(terms) != 1:
            raise DataError(f"{name}: expected exactly one term, got {len(terms)}")
        return terms[0]

    # -- core loop -------------------------------------------------------------------------
    def _read_lines(self, chunks: Iterator[str], name: str) -> Iterator[ReadTerm]:
        errors: list[tuple[SourceLocation, str]] = []
        truncated = False
        # The unread rest of a chunk is carried over from the start of its line (so that columns
        # in error messages stay right); carry_skip is the part of that line already read.
        carry = ""
        carry_skip = 0
        carry_line = 1  # line number of the first character of carry
        pending = next(chunks, None)
        while pending is not None:
            following = next(chunks, None)
            text = carry + pending
            final = following is None
            pos, line = carry_skip, carry_line
            tokenizer = _Tokenizer(text, final)
            n = len(text)
            fact_match = _FACT_RE.match
            wrapped_match = _WRAPPED_FACT_RE.match
            if len(self._consts) > _MAX_CACHED_CONSTANTS:
                self._consts.clear()  # bound memory when constants rarely repeat
            const = self._consts.__getitem__
            count = text.count
            new_read_term = _read_term
            while True:
                # Fast path: a simple ground fact, possibly after whitespace.  The fact itself
                # is on one line, so the newlines of the match are those before it.
                m = fact_match(text, pos)
                if m is not None:
                    end = m.end()
                    if end < n or final:
                        functor, args = m.groups()
                        parts = args.split(",") if "'" not in args else _ARG_RE.findall(args)
                        try:
                            fact = Struct(functor, tuple(map(const, parts)))
                        except _NotFast:
                            fact = None
                        if fact is not None:
                            line += count("\n", pos, end)
                            yield new_read_term(fact, name, line)
                            pos = end
                            continue
                m = wrapped_match(text, pos)
                if m is not None:
                    end = m.end()
                    if end < n or final:
                        functor, inner_functor, args = m.groups()
                        try:
                            inner = Struct(inner_functor, tuple(map(const, _arg_texts(args))))
                        except _NotFast:
                            inner = None
                        if inner is not None:
                            line += count("\n", pos, end)
                            yield new_read_term(Struct(functor, (inner,)), name, line)
                            pos = end
                            continue
                # Layout and comments; after them, the fast path may apply again.
                try:
                    start = tokenizer.skip_layout(pos)
                except _NeedMore:
                    break
                except _SyntaxErr as err:
                    errors.append(self._loc(err, text, pos, line, name))
                    start = n
                if start > pos:
                    line += count("\n", pos, start)
                    pos = start
                    continue
                if pos >= n:
                    break
                try:
                    tokens, end = tokenizer.clause_tokens(pos)
                except _NeedMore:
                    break
                except _SyntaxErr as err:
                    end = _skip_to_clause_end(text, err.pos)
                    if end >= n and not final:
                        break  # the clause's end is in the next chunk: retry with it
                    errors.append(self._loc(err, text, pos, line, name))
                    line += text.count("\n", pos, end)
                    pos = end
                    if len(errors) >= self.max_errors:
                        truncated = True
                        break
                    continue
                if tokens:
                    parser = _Parser(tokens, self.ops, self.double_quotes)
                    try:
                        term = parser.parse_clause()
                    except _SyntaxErr as err:
                        errors.append(self._loc(err, text, pos, line, name))
                    except RecursionError:
                        deep = tokens[min(parser.i, len(tokens) - 1)].pos
                        too_deep = _SyntaxErr(
                            deep,
                            "term nested too deeply to read (split it up, or raise "
                            "sys.setrecursionlimit)",
                        )
                        errors.append(self._loc(too_deep, text, pos, line, name))
                    except IndexError:
                        errors.append(
                            self._loc(
                                _SyntaxErr(tokens[-1].pos, "unexpected end of clause"),
                                text,
                                pos,
                                line,
                                name,
                            )
                        )
                    else:
                        problem = _too_deep(term) or self._directive_effects(term)
                        if problem is None:
                            yield new_read_term(term, name, line)
                        else:
                            refused = _SyntaxErr(tokens[0].pos, problem)
                            errors.append(self._loc(refused, text, pos, line, name))
                    if len(errors) >= self.max_errors:
                        truncated = True
                        break
                line += text.count("\n", pos, end)
                pos = end
            if truncated:
                break
            line_start = text.rfind("\n", 0, pos) + 1
            carry = text[line_start:]
            carry_skip = pos - line_start
            carry_line = line
            pending = following
        if errors:
            raise PrologSyntaxError(errors, truncated)

    def _loc(
        self, err: _SyntaxErr, text: str, base: int, base_line: int, name: str
    ) -> tuple[SourceLocation, str]:
        line = base_line + text.count("\n", base, err.pos)
        line_start = text.rfind("\n", 0, err.pos) + 1
        return SourceLocation(name, line, err.pos - line_start + 1), err.message

    def _directive_effects(self, term: Term) -> str | None:
        """Apply directives that change how the rest of the file reads; a message when the
        directive is wrong (an ``op/3`` that SWI-Prolog would refuse)."""
        if not (type(term) is Struct and term.name == ":-" and len(term.args) == 1):
            return None
        goal = term.args[0]
        if type(goal) is not Struct:
            return None
        if goal.name == "op" and len(goal.args) == 3:
            checked = check_op(*goal.args)
            if isinstance(checked, str):
                return checked
            priority, kind, names = checked
            for op_name in names:
                self.ops.add(priority, kind, op_name)
        elif goal.name == "set_prolog_flag" and len(goal.args) == 2:
            flag, value = goal.args
            if (
                flag == Const("double_quotes")
                and type(value) is Const
                and value.value in ("codes", "chars", "atom", "string")
            ):
                self.double_quotes = str(value.value)
        return None


OP_TYPES: Final = frozenset({"xfx", "xfy", "yfx", "fy", "fx", "xf", "yf"})


def check_op(priority: Term, kind: Term, names: Term) -> tuple[int, str, list[str]] | str:
    """``op(Priority, Type, Names)`` checked as SWI-Prolog checks it: the parts to apply, or
    the error message.

    Priority is an integer 0..1200 (0 removes), Type one of the seven operator types, Names
    an atom or a proper list of atoms; ``','`` cannot be redefined, ``'|'`` only as an infix
    operator of priority 1001 or more (or 0), and ``[]``, ``{}`` are not operators.
    """
    if type(priority) is not Const or type(priority.value) is not int:
        return f"op/3: priority must be an integer 0..1200, got {to_text(priority)}"
    if not 0 <= priority.value <= 1200:
        return f"op/3: priority must be 0..1200, got {priority.value}"
    if type(kind) is not Const or kind.value not in OP_TYPES:
        return f"op/3: type must be one of {', '.join(sorted(OP_TYPES))}, got {to_text(kind)}"
    items: list[Term] = [names]
    if (type(names) is Struct and names.name == ".") or names == NIL:
        items, tail = list_items(names)
        if tail != NIL:
            return f"op/3: names must be an atom or a list of atoms, got {to_text(names)}"
    out: list[str] = []
    p, t = priority.value, str(kind.value)
    for item in items:
        if type(item) is not Const or not isinstance(item.value, str):
            return f"op/3: an operator name must be an atom, got {to_text(item)}"
        name = item.value
        if name == ",":
            return "op/3: no permission to modify operator ','"
        if name in ("[]", "{}"):
            return f"op/3: no permission to create operator '{name}'"
        if name == "|" and (t not in ("xfx", "xfy", "yfx") or 0 < p < 1001):
            return "op/3: '|' can only be an infix operator of priority 1001 or more"
        out.append(name)
    return p, t, out


def to_text(term: Term) -> str:
    """A short rendering of a term for messages."""
    from ilpkit.prolog.terms import to_prolog

    try:
        text = to_prolog(term)
    except (RecursionError, ValueError):
        text = f"a deeply nested or huge {type(term).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


def _too_deep(term: Term) -> str | None:
    """A message when ``term`` nests deeper than :data:`MAX_TERM_DEPTH` (None otherwise);
    iterative, so any depth is measured without recursion."""
    if type(term) is not Struct:
        return None
    # (term, depth, flat): flat terms are the top-level body conjunction of a clause.
    stack: list[tuple[Term, int, bool]] = []
    if term.name == ":-" and len(term.args) == 2:
        stack.append((term.args[0], 1, False))
        stack.append((term.args[1], 1, True))
    else:
        stack.append((term, 0, False))
    while stack:
        t, depth, flat = stack.pop()
        if type(t) is not Struct:
            continue
        if depth > MAX_TERM_DEPTH:
            return (
                f"term nested too deeply: more than {MAX_TERM_DEPTH} levels of compound terms "
                "(list tails and the goals of a clause body do not count); split it up"
            )
        args = t.args
        if flat and t.name == "," and len(args) == 2:
            stack.append((args[0], depth, True))
            stack.append((args[1], depth, True))
        elif t.name == "." and len(args) == 2:
            stack.append((args[0], depth + 1, False))
            stack.append((args[1], depth, False))
        else:
            for a in args:
                if type(a) is Struct:
                    stack.append((a, depth + 1, False))
    return None


def _surrogate_at(text: str) -> int | None:
    """Where ``text`` holds its first lone UTF-16 surrogate, if anywhere: the only code points
    UTF-8 cannot encode (an encode, not a regular expression, whose 2,048-character class
    took 1.2 ms of every command's start-up to compile)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return err.start
    return None


def _refuse_surrogate(text: str, at: int, name: str) -> Iterator[ReadTerm]:
    """Raise, when iterated, the error for the lone surrogate at ``at`` (files decode as
    strict UTF-8 and cannot hold one; a Python string can)."""
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    message = f"lone UTF-16 surrogate {ord(text[at]):#x}: not a character"
    raise PrologSyntaxError([(SourceLocation(name, line, col), message)])
    yield  # pragma: no cover - makes this a generator


def _skip_to_clause_end(text: str, pos: int) -> int:
    """Position just after the next end token ('.' then layout) at or after the line of pos."""
    i = pos
    n = len(text)
    while True:
        j = text.find(".", i)
        if j < 0:
            return n
        if j + 1 >= n or text[j + 1].isspace() or text[j + 1] == "%":
            return min(j + 1, n)
        i = j + 1


def _file_lines(path: Path) -> Iterator[str]:
    """Chunks of whole lines of a UTF-8 text file, with clear errors for unreadable files."""
    name = str(path)
    if not path.exists():
        raise DataError(f"{name}: file does not exist")
    if path.is_dir():
        raise DataError(f"{name}: is a directory, expected a Prolog text file")
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed in finally of the generator)
    except OSError as exc:
        raise DataError(f"{name}: cannot be read ({exc.strerror})") from None
    return _chunks(handle, name)


def _chunks(handle: object, name: str) -> Iterator[str]:
    import io

    assert isinstance(handle, io.BufferedReader)
    line_no = 0
    try:
        while True:
            lines = handle.readlines(1 << 22)
            if not lines:
                return
            data = b"".join(lines)
            if b"\0" in data:
                bad = line_no + data[: data.index(b"\0")].count(b"\n") + 1
                raise DataError(
                    f"{name}:{bad}:1: binary data (NUL byte): expected a Prolog text file"
                )
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad = line_no + data[: exc.start].count(b"\n") + 1
                raise DataError(
                    f"{name}:{bad}:1: not UTF-8 text (byte 0x{data[exc.start]:02x}): "
                    "expected a Prolog text file in UTF-8"
                ) from None
            line_no += len(lines)
            yield text.replace("\r\n", "\n")
    finally:
        handle.close()


def read_file(path: str | Path, **options: object) -> list[ReadTerm]:
    """All clauses of a Prolog text file (convenience wrapper of :class:`PrologReader`)."""
    return list(PrologReader(**options).read_file(path))  # type: ignore[arg-type]


def read_term(text: str, **options: object) -> Term:
    """Parse one term from text, e.g. ``read_term("p(X) :- q(X)")``."""
    return PrologReader(**options).read_term(text)  # type: ignore[arg-type]
