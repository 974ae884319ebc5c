"""BoostSRL / srlearn data sets: ``*_facts.txt``, ``*_pos.txt``, ``*_neg.txt`` and ``*_bk.txt``.

Layouts (the split folders are found one or two levels below the data set folder):

``train/ test/``
    ``train/train_{bk,facts,pos,neg}.txt`` and the same for ``test``; folds ``train``, ``test``.
``foldN/`` (srlearn, Starling)
    ``fold1/train/train_pos.txt ...``: folds ``fold1/train``, ``fold1/test``, ... (the folder
    path, so a fold's train and test sets stay distinguishable).  A folder holding the files
    itself (``fold1/fold1_pos.txt``) is fold ``fold1``.
single folder
    ``advisedby_{bk,facts,pos,neg}.txt``; no folds.  Several prefixes (``chess_*`` and
    ``muggleChess_*``) need ``stem``.

A folder holding nothing but the data set folder (and READMEs) is read as that folder.

Background: ``background.txt`` (srlearn: mode lines without the ``mode:`` keyword) and
``*_bk.txt`` files in the data set folder and in fold folders are read first, then each split's
``*_bk.txt`` (usually ``import: "../x_bk.txt".``), facts, positives and negatives.  Every file
is read once, and the background facts of all splits are **unioned into one program**
(duplicates dropped): folds then differ only in their examples.  Example files may hold several
predicates (cora): the examples of predicates that have a mode are kept and the others are
dropped with a warning.

Syntax handled before the Prolog reader sees a file (line numbers are kept, so errors name
``file:line``): ``//``, ``%`` and ``/* */`` comments outside quotes; BoostSRL statements
(``mode:``, ``import:``, ``setParam: k = v``, ``usePrologVariables:``, ``okIfUnknown:``,
``queryPred:``, ``range:``, ``precompute:`` ...), which end at ``.``, ``;`` or the end of the
line (a statement with an open bracket goes on to the next line; one left open is an error);
constants starting with a digit (``3_hydroxy``) are quoted.  Lines that are plain ground facts
(most of a data file) are parsed here directly, the rest by the Prolog reader.  Keywords are matched
case-insensitively, as BoostSRL does; predicate names are case-sensitive (Prolog's rule).

Decisions:

* Facts and examples are ground: BoostSRL reads capitalised words in them as constants, so a
  variable ``Person1`` (or ``_nmda_3a``) becomes the atom ``'Person1'``; a bare ``_`` is an
  error.  Facts in a ``*_bk.txt`` file keep their variables after ``usePrologVariables: true``
  (as in BoostSRL); rules always do.  ``useStdLogicNotation`` (lower-case variables) is refused.
* Modes: ``+``, ``-``, ``#`` are Aleph's; ``@v`` puts the constant ``v`` in the template;
  ``&t`` (``-`` or ``#``) and ``:t`` (``+`` or ``#``) become two modes.  ``$``, ``=`` and the
  backquote (not-a-head-variable) become ``+``, ``^`` (new variable) becomes ``-``: the extra
  restriction is dropped, with a warning.  ``*`` and ``>`` (resolved from BoostSRL settings)
  are refused.  Recall is ``maxPerInputVars=N`` when given (BoostSRL took that option from
  Aleph's recall), else ``*``; ``max=`` and ``target=`` are ignored with a warning.  Modes of
  the examples' predicates are ``modeh``, all others ``modeb`` (no determinations: every body
  mode is allowed).
* ``setParam: name = value`` becomes the setting ``name``; other statements are kept as
  list-valued settings named after the keyword (``okIfUnknown: [p/1, q/2]``).
* ``precompute:`` rules are ordinary background rules.

``write`` produces the single-folder layout (no folds) or split folders (one per fold name)
that import a shared ``<stem>_bk.txt``, which imports ``<stem>_facts.txt``.  Reading it back
gives an equal task when the folds are named and ordered as this loader orders them (train,
tune, test, then natural order) and the examples are grouped by fold.
"""

from __future__ import annotations

import heapq
import itertools
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal, NamedTuple

from ilpkit.core.bias import Bias, Mode, Settings, parse_mode, value_to_term
from ilpkit.core.formats.confine import check_data_file, check_named
from ilpkit.core.formats.source import (
    STRICT,
    check_not_system,
    check_shape,
    skipped_summary,
)
from ilpkit.core.task import NEG, POS, ExampleBuilder, Program, SourcedTerm, Task
from ilpkit.errors import (
    BiasError,
    DataError,
    FormatError,
    IlpkitError,
    PrologSyntaxError,
    SourceLocation,
)
from ilpkit.plugins.formats.layouts import (
    boostsrl_prefixes,
    dataset_root,
    detect_boostsrl,
    find_splits,
    has_examples,
    has_root_examples,
)
from ilpkit.prolog.reader import PrologReader, ReadTerm
from ilpkit.prolog.terms import (
    Clause,
    Const,
    Str,
    Struct,
    Term,
    Var,
    clause_to_prolog,
    indicator,
    is_ground,
    list_items,
    make_list,
    quote_atom,
    to_prolog,
)
from ilpkit.prolog.writer import safe_stem, write_lines

Role = Literal["bk", "facts", "pos", "neg"]
_KINDS: Final = ("bk", "facts", "pos", "neg")
_IMPORT_EXTENSIONS: Final = ("", ".txt", ".bk", ".mln", ".db")
_MAX_EXPANSIONS: Final = 64

# BoostSRL statements (FileParser.java), matched case-insensitively.
_KEYWORD_NAMES: Final = (
    "setParam setParameter mode import importLibrary usePrologVariables usePrologNotation "
    "useStdLogicVariables useStdLogicNotation okIfUnknown queryPred range isa isaInterval "
    "bridger temporary inline relevant relevantLiteral nonOperational alias containsCallable "
    "supportLiteral supportingPredicate supportPredicate cost prune pruneTrue pruneFalse "
    "precompute"
)
_KEYWORDS: Final = {k.lower(): k for k in _KEYWORD_NAMES.split()}
_KEY_RE: Final = re.compile(r"[ \t]*([A-Za-z_]\w*)[ \t]*:(?![-=:])")
_MARKERS: Final = "+-#@$^&:=*>`"
# srlearn's background.txt lists modes without "mode:": p(+type, -type).
_BARE_MODE_RE: Final = re.compile(
    r"[ \t]*[A-Za-z]\w*[ \t]*\([ \t]*[+\-#@$^&:=*>`][ \t]*[A-Za-z'\"]"
)


def _keyword(word: str) -> str | None:
    """The canonical spelling of a BoostSRL statement keyword, or None."""
    low = word.lower()
    if low in _KEYWORDS:
        return _KEYWORDS[low]
    if re.fullmatch(r"precompute\d+", low):
        return "precompute"
    if low.endswith("functionaspred"):
        return word
    return None


# --------------------------------------------------------------------------------------------
# Lexical layer: comments, quotes, statements
# --------------------------------------------------------------------------------------------

# Numbers the fast path may convert: integers up to Python's 4,300 digits, floats with at
# most 300 integer digits (finite); longer ones go to the reader, which reports them.
_ATOM_OR_NUMBER: Final = r"\s*(?:[a-z]\w*|-?(?:\d{1,300}(?:\.\d+)?|\d{301,4300})(?![\w.]))\s*"
_SIMPLE_FACT: Final = re.compile(
    rf"\s*([a-z]\w*)\(((?:{_ATOM_OR_NUMBER},)*{_ATOM_OR_NUMBER})\)\s*\.\s*"
)
_SPECIAL: Final = re.compile(r"//|/\*|%|'|\"|(?<![\w])0'")
_DIGIT_WORD: Final = re.compile(r"(?<![\w.?])\d+[A-Za-z_][\w?]*")
_NUMBER_WORD: Final = re.compile(r"\d+[eE][+-]?\d+|0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+")
_ANON: Final = re.compile(r"(?<![\w?])_(?![\w?])")


def _quote_digit_words(segment: str) -> str:
    """``3_hydroxy`` is a constant in BoostSRL but not in Prolog: quote it."""

    def fix(m: re.Match[str]) -> str:
        word = m.group()
        return word if _NUMBER_WORD.fullmatch(word) else f"'{word}'"

    return _DIGIT_WORD.sub(fix, segment) if any(c.isdigit() for c in segment) else segment


def _quoted_end(line: str, start: int) -> tuple[int, bool]:
    """Index just after the quoted item opening at ``start``, and whether it is closed."""
    quote = line[start]
    i = start + 1
    n = len(line)
    while i < n:
        c = line[i]
        if c == "\\":
            i += 2
        elif c == quote:
            if i + 1 < n and line[i + 1] == quote:
                i += 2
            else:
                return i + 1, True
        else:
            i += 1
    return n, False


@dataclass
class _Line:
    """One source line with comments blanked; ``mask`` hides quoted text (same length)."""

    code: str
    mask: str
    anon: list[int] = field(default_factory=list)
    unclosed_quote: bool = False


def _clean_line(line: str, in_block: bool) -> tuple[_Line, bool]:
    """Blank comments, quote digit-led words; return the line and the block-comment state."""
    code: list[str] = []
    mask: list[str] = []
    anon: list[int] = []
    unclosed = False
    i, n = 0, len(line)

    def plain(segment: str) -> None:
        segment = _quote_digit_words(segment)
        base = sum(len(c) for c in code)
        anon.extend(base + m.start() for m in _ANON.finditer(segment))
        code.append(segment)
        mask.append(segment)

    while i < n:
        if in_block:
            j = line.find("*/", i)
            end = n if j < 0 else j + 2
            code.append(" " * (end - i))
            mask.append(" " * (end - i))
            in_block = j < 0
            i = end
            continue
        m = _SPECIAL.search(line, i)
        if m is None:
            plain(line[i:])
            break
        plain(line[i : m.start()])
        tok = m.group()
        if tok in ("//", "%"):
            code.append(" " * (n - m.start()))
            mask.append(" " * (n - m.start()))
            break
        if tok == "/*":
            code.append("  ")
            mask.append("  ")
            in_block = True
            i = m.end()
            continue
        if tok == "0'":
            end = min(n, m.end() + (2 if line[m.end() : m.end() + 1] in ("\\", "'") else 1))
            code.append(line[m.start() : end])
            mask.append("0" * (end - m.start()))
            i = end
            continue
        end, closed = _quoted_end(line, m.start())
        size = end - m.start()
        code.append(line[m.start() : end])
        mask.append(tok + "q" * (size - 2) + tok if closed else tok + "q" * (size - 1))
        unclosed = not closed
        i = end
    return _Line("".join(code), "".join(mask), anon, unclosed), in_block


@dataclass(frozen=True)
class _Statement:
    """A BoostSRL statement: ``key`` (canonical), its value text, where it starts."""

    key: str
    value: str
    line: int
    raw: str
    balanced: bool = True


# A '.' that ends a clause: followed by layout, and not the end of a symbol atom such as '=..'.
_END_TOKEN: Final = re.compile(r"(?<![-+*/\\^<>=~:.?@#&$])\.(?=\s|$)")


def _end_token(mask: str, i: int) -> bool:
    return _END_TOKEN.match(mask, i) is not None


def _statement_end(mask: str, start: int, depth: int) -> tuple[int | None, int]:
    """Position of the statement terminator ('.' or ';' at depth 0), and the bracket depth."""
    for i in range(start, len(mask)):
        c = mask[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth <= 0 and (c == ";" or _end_token(mask, i)):
            return i, depth
    return None, depth


@dataclass
class _Pending:
    """A statement that continues on the next line (unbalanced brackets)."""

    key: str
    line: int
    parts: list[str] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    depth: int = 0
    unclosed_quote: bool = False


class _Splitter:
    """Splits a BoostSRL file into statements and Prolog text with the same line numbers."""

    def __init__(self, text: str, *, bare_modes: bool) -> None:
        self.lines = text.split("\n")
        self.bare_modes = bare_modes
        self.statements: list[_Statement] = []
        self.simple: list[tuple[int, str, str]] = []  # (line, name, arguments text)
        self.anon: list[tuple[int, int]] = []

    def run(self) -> str:
        """The Prolog text (statements and comments blanked); fills ``statements``."""
        out = []
        in_block = False
        at_start = True  # at the start of a clause, where a statement may begin
        pending: _Pending | None = None
        simple = _SIMPLE_FACT.fullmatch
        for no, raw in enumerate(self.lines, 1):
            m = simple(raw) if pending is None and not in_block else None
            if m is not None:  # most lines of a data file: read here, not by the Prolog reader
                self.simple.append((no, m.group(1), m.group(2)))
                out.append("")
                at_start = True
                continue
            cl, in_block = _clean_line(raw, in_block)
            self.anon.extend((no, col + 1) for col in cl.anon)
            code = list(cl.code)
            pos = 0
            if pending is not None:
                if not cl.mask.strip() or self._key_at(cl.mask, 0) is not None:
                    self._finish(pending)
                    pending = None
                else:
                    pos, pending = self._consume(pending, cl, code, raw, 0)
                at_start = True
            while pending is None and cl.mask[pos:].strip():
                key = self._key_at(cl.mask, pos) if at_start else None
                if key is None:
                    pos, at_start = self._prolog(cl.mask, pos)
                    continue
                name, value_start = key
                code[pos:value_start] = " " * (value_start - pos)
                pos = value_start
                if name != "precompute":  # precompute: is followed by an ordinary rule
                    pos, pending = self._consume(_Pending(name, no), cl, code, raw, pos)
            out.append("".join(code))
        if pending is not None:
            self._finish(pending)
        return "\n".join(out)

    def _key_at(self, mask: str, pos: int) -> tuple[str, int] | None:
        """``(keyword, value start)`` when a statement starts at ``pos``."""
        m = _KEY_RE.match(mask, pos)
        if m is not None:
            key = _keyword(m.group(1))
            if key is not None:
                return key, m.end()
        if self.bare_modes and _BARE_MODE_RE.match(mask, pos):
            return "mode", pos
        return None

    @staticmethod
    def _prolog(mask: str, pos: int) -> tuple[int, bool]:
        """Skip Prolog text to just after its next end token; ``(position, at clause start)``."""
        m = _END_TOKEN.search(mask, pos)
        return (m.end(), True) if m else (len(mask), False)

    def _consume(
        self, p: _Pending, cl: _Line, code: list[str], raw: str, start: int
    ) -> tuple[int, _Pending | None]:
        """Take the statement's text on this line; return where the rest of the line starts."""
        end, p.depth = _statement_end(cl.mask, start, p.depth)
        p.unclosed_quote = p.unclosed_quote or (end is None and cl.unclosed_quote)
        stop = len(cl.code) if end is None else end
        p.parts.append(cl.code[start:stop])
        p.raw.append(raw.strip())
        resume = stop if end is None else end + 1
        code[start:resume] = " " * (resume - start)
        if end is None and p.depth > 0:
            return resume, p
        self._finish(p)
        return resume, None

    def _finish(self, p: _Pending) -> None:
        value = " ".join(part.strip() for part in p.parts).strip()
        raw = " ".join(p.raw)
        balanced = p.depth <= 0 and not p.unclosed_quote
        self.statements.append(_Statement(p.key, value, p.line, raw, balanced))


# --------------------------------------------------------------------------------------------
# Mode declarations
# --------------------------------------------------------------------------------------------

_WORD: Final = re.compile(r"[A-Za-z0-9_?\u00aa-\u00ff]+")
_NUM: Final = re.compile(r"-?\d+(\.\d+([eE][+-]?\d+)?)?(?![\w.?])")
_OPTION: Final = re.compile(r"[\s,]*([A-Za-z_]\w*)\s*=\s*([^\s,]+)")

# BoostSRL marker -> the Aleph markers it becomes, and whether that is an approximation.
_MARKER_MAP: Final[dict[str, tuple[tuple[str, ...], str | None]]] = {
    "+": (("+",), None),
    "-": (("-",), None),
    "#": (("#",), None),
    "&": (("-", "#"), None),
    ":": (("+", "#"), None),
    "$": (("+",), "'$' (input that occurs once so far) is read as '+'"),
    "=": (("+",), "'=' (input that must also occur in the body) is read as '+'"),
    "`": (("+",), "'`' (a variable that is not in the head) is read as '+'"),
    "^": (("-",), "'^' (a new variable) is read as '-'"),
}


class _ModeParser:
    """Reads ``name(+type, -type, #type, @value, f(+t)) option=value ...``."""

    def __init__(self, text: str, where: str) -> None:
        self.s = text
        self.i = 0
        self.where = where

    def fail(self, what: str) -> BiasError:
        rest = self.s[self.i : self.i + 20]
        got = f"got {rest!r}" if rest else f"but the declaration ends after {self.s!r}"
        return BiasError(f"{self.where}: {what}, {got}")

    def skip(self) -> None:
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def peek(self) -> str:
        self.skip()
        return self.s[self.i : self.i + 1]

    def name(self) -> str:
        c = self.peek()
        if c in ("'", '"'):
            end, closed = _quoted_end(self.s, self.i)
            if not closed:
                raise self.fail("unterminated quoted name")
            term = PrologReader(double_quotes="atom").read_term(self.s[self.i : end])
            self.i = end
            assert type(term) is Const
            return str(term.value)
        m = _WORD.match(self.s, self.i)
        if m is None:
            raise self.fail("expected a name")
        self.i = m.end()
        return m.group()

    def template(self) -> Term:
        name = self.name()
        if self.peek() != "(":
            return Const(name)
        self.i += 1
        args = [self.arg()]
        while self.peek() == ",":
            self.i += 1
            args.append(self.arg())
        if self.peek() != ")":
            raise self.fail("expected ',' or ')' in the mode's arguments")
        self.i += 1
        return Struct(name, args)

    def arg(self) -> Term:
        c = self.peek()
        if c == "@":
            self.i += 1
            return self.constant()
        if c and c in _MARKERS:
            self.i += 1
            if self.peek() in ("", ",", ")"):
                raise self.fail(f"expected a type name after '{c}'")
            return Struct(c, (Const(self.name()),))
        if c and (c.isalnum() or c in "_'\""):
            start = self.i
            name = self.name()
            if self.peek() == "(":
                self.i = start
                return self.template()
            raise BiasError(
                f"{self.where}: argument {name!r} has no mode marker; expected +type, -type, "
                "#type or @value"
            )
        if not c or c in ",)":
            raise self.fail("expected an argument")
        raise BiasError(
            f"{self.where}: unknown mode marker {c!r}; expected one of + - # @ & : $ = ^ `"
        )

    def constant(self) -> Const:
        self.skip()
        m = _NUM.match(self.s, self.i)
        if m is not None:
            self.i = m.end()
            text = m.group()
            return Const(int(text) if m.group(1) is None else float(text))
        return Const(self.name())

    def options(self) -> dict[str, str]:
        out: dict[str, str] = {}
        while self.i < len(self.s):
            m = _OPTION.match(self.s, self.i)
            if m is None:
                if not self.s[self.i :].strip(" \t,"):
                    break
                raise self.fail("expected option=value after the mode")
            out[m.group(1)] = m.group(2)
            self.i = m.end()
        return out


def _places(term: Term, path: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], str]]:
    if type(term) is Struct:
        if len(term.args) == 1 and term.name in _MARKERS and type(term.args[0]) is Const:
            yield path, term.name
            return
        for i, arg in enumerate(term.args):
            yield from _places(arg, (*path, i))


def _replace(term: Term, path: tuple[int, ...], marker: str) -> Term:
    if not path:
        assert type(term) is Struct
        return Struct(marker, term.args)
    assert type(term) is Struct
    args = list(term.args)
    args[path[0]] = _replace(args[path[0]], path[1:], marker)
    return Struct(term.name, args)


def _expand_markers(proto: Term, where: str, notes: list[str]) -> list[Term]:
    """Aleph templates for a BoostSRL template (``&``/``:`` give several)."""
    places = list(_places(proto))
    choices: list[tuple[str, ...]] = []
    for _, marker in places:
        if marker not in _MARKER_MAP:
            raise BiasError(
                f"{where}: the mode marker '{marker}' takes its meaning from BoostSRL settings "
                "and is not supported; use +, -, # or @value"
            )
        markers, note = _MARKER_MAP[marker]
        if note and note not in notes:
            notes.append(note + "; the extra restriction is not enforced")
        choices.append(markers)
    combos = list(itertools.islice(itertools.product(*choices), _MAX_EXPANSIONS + 1))
    if len(combos) > _MAX_EXPANSIONS:
        raise BiasError(f"{where}: '&'/':' markers expand to more than {_MAX_EXPANSIONS} modes")
    out = []
    for combo in combos:
        term = proto
        for (path, _), marker in zip(places, combo, strict=True):
            term = _replace(term, path, marker)
        out.append(term)
    return out


@dataclass(frozen=True)
class _RawMode:
    recall: Term
    template: Term
    location: SourceLocation


def parse_boostsrl_mode(
    text: str, location: SourceLocation, raw: str
) -> tuple[list[_RawMode], list[str]]:
    """The modes of one ``mode:`` statement (several for ``&``/``:``), and notes on what was
    approximated or ignored."""
    where = f"{location}: {raw}"
    if "%" in raw:
        where += " ('%' starts a comment in BoostSRL files, so the rest of the line was ignored)"
    parser = _ModeParser(text, where)
    proto = parser.template()
    recall: Term = Const("*")
    notes: list[str] = []
    for key, value in parser.options().items():
        if key.lower() == "maxperinputvars":
            if not value.isdigit() or int(value) < 1:
                raise BiasError(f"{where}: maxPerInputVars must be a positive integer")
            recall = Const(int(value))
        elif key.lower() in ("max", "target"):
            notes.append(f"the mode option {key}= is not supported and was ignored")
        else:
            raise BiasError(
                f"{where}: unknown mode option {key!r}; expected maxPerInputVars=N (or max=N, "
                "target=p/n)"
            )
    templates = _expand_markers(proto, where, notes)
    return [_RawMode(recall, t, location) for t in templates], notes


# --------------------------------------------------------------------------------------------
# Reading files
# --------------------------------------------------------------------------------------------


def _read_text(path: Path) -> str:
    """A text file's content, with clear errors for missing, binary or non-UTF-8 files."""
    if not path.is_file():
        raise DataError(
            f"{path}: file does not exist"
            if not path.exists()
            else f"{path}: is a directory, expected a BoostSRL text file"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot be read ({exc.strerror})") from None
    if b"\0" in data:
        line = data[: data.index(b"\0")].count(b"\n") + 1
        raise DataError(f"{path}:{line}:1: binary data (NUL byte): expected a text file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(
            f"{path}:{line}:1: not UTF-8 text (byte 0x{data[exc.start]:02x}); expected UTF-8"
        ) from None
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _ground(term: Term) -> Term:
    """Variables become atoms of the same name (BoostSRL's reading of facts)."""
    if type(term) is Struct:
        for arg in term.args:
            if type(arg) is not Const:
                return Struct(term.name, [_ground(a) for a in term.args])
        return term
    return Const(term.name) if type(term) is Var else term


def _parse_value(text: str, where: str) -> Term:
    """A statement value as a ground term, or the raw text when it is not Prolog syntax."""
    if not text:
        return Str("")
    try:
        return _ground(PrologReader(double_quotes="atom").read_term(text, where))
    except IlpkitError:
        return Str(text)


class _ConstCache(dict[str, Const]):
    """Interned constants for the arguments of simple fact lines (``a``, `` 12``, ``-0.5``)."""

    def __missing__(self, text: str) -> Const:
        word = text.strip()
        value: str | int | float = word
        if not word[0].isalpha():
            value = float(word) if "." in word else int(word)
        const = self[text] = Const(value)
        return const


@dataclass
class _FileState:
    """What a statement may change while one file is read."""

    path: Path
    role: Role
    fold: str | None
    prolog_vars: bool


class _Example(NamedTuple):
    atom: Term
    label: int
    fold: str | None
    location: SourceLocation


class _Loader:
    """Accumulates a task from BoostSRL files."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.program = Program()
        self.settings = Settings()
        self.modes: list[_RawMode] = []
        self.mode_notes: dict[str, list[SourceLocation]] = {}
        self.keyword_items: dict[str, list[Term]] = {}
        self.keyword_locs: dict[str, SourceLocation] = {}
        self.examples: list[_Example] = []
        self.fold_names: list[str] = []
        self.sources: list[str] = []
        self.directives: list[SourcedTerm] = []
        self.warnings: list[str] = []
        self.syntax_errors: list[tuple[SourceLocation, str]] = []
        self._skippable: set[tuple[SourceLocation, str]] = set()
        """Syntax errors in background and facts files: skipped unless loading strictly."""
        self._facts_seen: set[tuple[str, tuple[Term, ...]]] = set()
        self._rules_seen: set[Clause] = set()
        self._loaded: set[Path] = set()
        self._stack: list[Path] = []
        self._consts = _ConstCache()

    # -- files ------------------------------------------------------------------------------
    def load_file(
        self,
        path: Path,
        role: Role,
        fold: str | None = None,
        *,
        prolog_vars: bool = False,
        named: bool = False,
    ) -> None:
        if not named:  # an import: checked with its statement's location
            check_data_file(path)
        resolved = path.resolve()
        if resolved in self._stack:
            chain = " -> ".join(str(p) for p in [*self._stack, resolved])
            raise DataError(f"{path}: import cycle: {chain}")
        if role in ("bk", "facts") and resolved in self._loaded:
            return
        self._loaded.add(resolved)
        self._stack.append(resolved)
        try:
            self._load(path, role, fold, prolog_vars)
        finally:
            self._stack.pop()

    def _load(self, path: Path, role: Role, fold: str | None, prolog_vars: bool) -> None:
        self.sources.append(str(path))
        splitter = _Splitter(_read_text(path), bare_modes=path.name == "background.txt")
        text = splitter.run()
        name = str(path)
        if role != "bk":
            for line, col in splitter.anon:
                self.syntax_errors.append(
                    (
                        SourceLocation(name, line, col),
                        "anonymous variable '_' in a fact: facts and examples must be ground",
                    )
                )
        state = _FileState(path, role, fold, prolog_vars)
        consts = self._consts
        simple = (
            (line, 1, Struct(fname, [consts[a] for a in args.split(",")]))
            for line, fname, args in splitter.simple
        )
        if not splitter.statements and not text.strip():  # a plain data file
            self._simple_facts(simple, name, role, fold)
            return
        reader = PrologReader(double_quotes="atom")
        read: list[ReadTerm] = []
        unreadable: PrologSyntaxError | None = None
        try:  # read whole first: the reader reports its syntax errors at the end
            read.extend(reader.read_text(text, name))
        except PrologSyntaxError as err:
            unreadable = err
        events: Iterator[tuple[int, int, Term | _Statement | ReadTerm]] = heapq.merge(
            ((st.line, 0, st) for st in splitter.statements),
            simple,
            ((rt.line, 1, rt) for rt in read),
            key=lambda event: (event[0], event[1]),
        )
        try:
            for line, _, item in events:
                if isinstance(item, _Statement):
                    self._statement(item, state)
                elif isinstance(item, ReadTerm):
                    self._term(item.term, item.location, role, fold, state.prolog_vars)
                else:
                    self._term(item, SourceLocation(name, line, 1), role, fold, False)
            if unreadable is not None:
                raise unreadable
        except PrologSyntaxError as err:
            self.syntax_errors.extend(err.errors)
            if role in ("bk", "facts") and not err.truncated:
                self._skippable.update(err.errors)

    def _simple_facts(
        self, facts: Iterable[tuple[int, int, Struct]], name: str, role: Role, fold: str | None
    ) -> None:
        """The fast path for a file of simple ground facts (most of the data)."""
        if role in ("pos", "neg"):
            label = POS if role == "pos" else NEG
            self.examples.extend(
                _Example(atom, label, fold, SourceLocation(name, line, 1))
                for line, _, atom in facts
            )
            return
        for line, _, atom in facts:
            self._fact(atom, SourceLocation(name, line, 1))

    # -- statements -------------------------------------------------------------------------
    def _statement(self, st: _Statement, state: _FileState) -> None:
        loc = SourceLocation(str(state.path), st.line, 1)
        if not st.balanced:
            hint = " ('%' starts a comment in BoostSRL files)" if "%" in st.raw else ""
            message = f"{st.raw}: a bracket or quote is not closed{hint}"
            if state.role == "bk" and not STRICT.get():  # skipped, in the summary
                self.syntax_errors.append((loc, message))
                self._skippable.add((loc, message))
                return
            error = BiasError if st.key == "mode" else DataError
            raise error(f"{loc}: {message}")
        key = st.key.lower()
        if key == "mode":
            modes, notes = parse_boostsrl_mode(st.value, loc, st.raw)
            self.modes.extend(modes)
            for note in notes:
                self.mode_notes.setdefault(note, []).append(loc)
        elif key == "import":
            target = self._import_path(st.value, state.path, loc)
            self.load_file(
                target, state.role, state.fold, prolog_vars=state.prolog_vars, named=True
            )
        elif key in ("setparam", "setparameter"):
            self._set_param(st.value, loc)
        elif key in (
            "useprologvariables",
            "useprolognotation",
            "usestdlogicvariables",
            "usestdlogicnotation",
        ):
            state.prolog_vars = self._variable_notation(key, st.value, loc)
        else:
            items = self.keyword_items.setdefault(st.key, [])
            value = _parse_value(st.value, str(loc))
            if value not in items:
                items.append(value)
            self.keyword_locs.setdefault(st.key, loc)

    def _import_path(self, value: str, path: Path, loc: SourceLocation) -> Path:
        name = value.strip()
        if len(name) >= 2 and name[0] == name[-1] and name[0] in "'\"":
            name = name[1:-1]
        if not name:
            raise DataError(f"{loc}: import: expected a file name")
        base = Path(os.path.normpath(path.parent / name))
        shown = repr(name)
        check_named(base, loc, shown, path)  # before probing: not even existence leaks
        for ext in _IMPORT_EXTENSIONS:
            candidate = base.with_name(base.name + ext) if ext else base
            check_named(candidate, loc, shown, path)
            if candidate.is_file():
                return candidate
        also = ", ".join(e for e in _IMPORT_EXTENSIONS if e)
        raise DataError(f"{loc}: import: file {name!r} not found: {base} (also tried {also})")

    def _set_param(self, value: str, loc: SourceLocation) -> None:
        m = re.match(r"\s*([A-Za-z_][\w.]*)\s*(?:=\s*)?(.*)$", value, re.S)
        if m is None or not m.group(2).strip():
            raise BiasError(f"{loc}: setParam: expected name = value, got {value!r}")
        term = _parse_value(m.group(2).strip(), str(loc))
        if type(term) is Str:
            raise BiasError(f"{loc}: setParam: cannot read the value {term.value!r}")
        self.settings.set_term(m.group(1), term, loc)

    @staticmethod
    def _variable_notation(key: str, value: str, loc: SourceLocation) -> bool:
        on = value.strip().lower() in ("true", "yes", "1")
        prolog = on if key.startswith("useprolog") else not on
        if not prolog:
            raise FormatError(
                f"{loc}: lower-case variables (standard-logic notation) are not supported; "
                "write the file with Prolog variables (usePrologVariables: true)"
            )
        return True

    # -- clauses ----------------------------------------------------------------------------
    def _term(
        self, term: Term, loc: SourceLocation, role: Role, fold: str | None, prolog_vars: bool
    ) -> None:
        if type(term) is Struct and term.name in (":-", "?-") and len(term.args) == 1:
            self._directive(term, loc)
            return
        check_shape(term, loc)
        is_rule = type(term) is Struct and term.name == ":-" and len(term.args) == 2
        if role in ("pos", "neg"):
            if is_rule:
                raise DataError(f"{loc}: expected an example, got the rule {to_prolog(term)}")
            self._example(_ground(term), POS if role == "pos" else NEG, fold, loc)
            return
        if is_rule:
            clause = Clause.from_term(term)
            self._check_callable(clause.head, loc)
            if clause.canonical() not in self._rules_seen:
                self._rules_seen.add(clause.canonical())
                self.program.add_clause(clause, loc)
            return
        fact = term if role == "bk" and prolog_vars else _ground(term)
        self._fact(fact, loc)

    def _fact(self, atom: Term, loc: SourceLocation) -> None:
        self._check_callable(atom, loc)
        if not is_ground(atom):
            clause = Clause(atom)
            if clause.canonical() not in self._rules_seen:
                self._rules_seen.add(clause.canonical())
                self.program.add_clause(clause, loc)
            return
        key = (indicator(atom)[0], atom.args if type(atom) is Struct else ())
        if key not in self._facts_seen:
            self._facts_seen.add(key)
            self.program.add_fact(atom, loc)

    def _example(self, atom: Term, label: int, fold: str | None, loc: SourceLocation) -> None:
        self._check_callable(atom, loc)
        self.examples.append(_Example(atom, label, fold, loc))

    @staticmethod
    def _check_callable(term: Term, loc: SourceLocation) -> None:
        if not (type(term) is Struct or (type(term) is Const and isinstance(term.value, str))):
            raise DataError(f"{loc}: expected a fact such as p(a, b), got {to_prolog(term)}")
        check_not_system(term, loc)

    def _directive(self, term: Struct, loc: SourceLocation) -> None:
        goal = term.args[0]
        if type(goal) is Struct and goal.name in ("discontiguous", "multifile"):
            if len(goal.args) == 1:  # no effect, but checked: an engine's own name is refused
                for item in _indicator_items(goal.args[0]):
                    self.program.declared.setdefault(item, (goal.name, loc))
            return
        if type(goal) is Struct and goal.name == "dynamic" and len(goal.args) == 1:
            for item in _indicator_items(goal.args[0]):
                self.program.dynamic.add(item)
                self.program.declared.setdefault(item, ("dynamic", loc))
            return
        self.directives.append(SourcedTerm(term, loc))

    # -- result -----------------------------------------------------------------------------
    def task(self) -> Task:
        skipped = [e for e in self.syntax_errors if e in self._skippable]
        if skipped and not STRICT.get():
            self.syntax_errors = [e for e in self.syntax_errors if e not in self._skippable]
            self.warnings.append(skipped_summary(skipped))
        if self.syntax_errors:
            raise PrologSyntaxError(self.syntax_errors[:25], len(self.syntax_errors) > 25)
        for key, items in self.keyword_items.items():
            self.settings.set_term(key, make_list(items), self.keyword_locs.get(key))
        for note, locs in self.mode_notes.items():
            self.warnings.append(f"{locs[0]}: {note} ({len(locs)} mode line(s))")
        targets = self._targets()
        builder = ExampleBuilder()
        for name in self.fold_names:
            builder.fold_index(name)
        for ex in self.examples:
            if indicator(ex.atom) in targets:
                builder.add(ex.atom, ex.label, fold=ex.fold, location=ex.location)
        task = Task(
            name=self.name,
            format="boostsrl",
            program=self.program,
            examples=builder.build(),
            bias=self._bias(targets),
            fold_names=list(builder.fold_names),
            sources=self.sources,
            directives=self.directives,
            warnings=self.warnings,
        )
        task.validate()
        return task

    def _targets(self) -> set[tuple[str, int]]:
        """The examples' predicates that have a mode (all of them when none has one)."""
        counts: dict[tuple[str, int], int] = {}
        for ex in self.examples:
            key = indicator(ex.atom)
            counts[key] = counts.get(key, 0) + 1
        moded = {indicator(m.template) for m in self.modes}
        targets = {k for k in counts if k in moded}
        if not targets:
            if counts:
                self.warnings.append(self._no_mode_warning(counts, moded))
            return set(counts)
        dropped = {k: n for k, n in counts.items() if k not in targets}
        if dropped:
            shown = ", ".join(f"{n} of {p}/{a}" for (p, a), n in sorted(dropped.items()))
            self.warnings.append(
                f"examples of predicates without a mode were skipped ({shown}); the target is "
                + ", ".join(f"{p}/{a}" for p, a in sorted(targets))
            )
        return targets

    @staticmethod
    def _no_mode_warning(counts: dict[tuple[str, int], int], moded: set[tuple[str, int]]) -> str:
        shown = ", ".join(f"{p}/{a}" for p, a in sorted(counts))
        near = sorted(
            f"{p}/{a}" for p, a in moded for q, b in counts if p.lower() == q.lower() and a == b
        )
        hint = (
            (f"; {', '.join(near)} differs only in case (BoostSRL ignores case, ilpkit does not)")
            if near
            else ""
        )
        return f"no mode declaration for the target {shown}{hint}"

    def _bias(self, targets: set[tuple[str, int]]) -> Bias:
        bias = Bias(settings=self.settings)
        seen: set[Term] = set()
        for raw in self.modes:
            key = Struct("m", (raw.recall, raw.template))
            if key in seen:
                continue
            seen.add(key)
            kind: Literal["modeh", "modeb"] = (
                "modeh" if indicator(raw.template) in targets else "modeb"
            )
            bias.add_mode(parse_mode(kind, raw.recall, raw.template, raw.location))
        return bias


def _indicator_items(term: Term) -> Iterator[tuple[str, int]]:
    items = list_items(term)[0] if type(term) is Struct and term.name == "." else [term]
    for item in items:
        if type(item) is Struct and item.name == "," and len(item.args) == 2:
            yield from _indicator_items(item.args[0])
            yield from _indicator_items(item.args[1])
        elif (
            type(item) is Struct
            and item.name == "/"
            and type(item.args[0]) is Const
            and type(item.args[1]) is Const
            and isinstance(item.args[1].value, int)
        ):
            yield (str(item.args[0].value), item.args[1].value)


# --------------------------------------------------------------------------------------------
# Layouts
# --------------------------------------------------------------------------------------------


def _choose_prefix(folder: Path, stem: str | None, preferred: str | None) -> str:
    """The file prefix of the task in ``folder`` (``stem``, else the only one present)."""
    prefixes = sorted(p for p, k in boostsrl_prefixes(folder).items() if has_examples(k))
    if stem is not None:
        if stem in prefixes:
            return stem
        raise FormatError(
            f"{folder}: no BoostSRL files {stem}_pos.txt etc.; prefixes here: "
            + (", ".join(prefixes) or "none")
        )
    if preferred is not None and preferred in prefixes:
        return preferred
    if len(prefixes) == 1:
        return prefixes[0]
    if not prefixes:
        raise DataError(f"{folder}: no BoostSRL example files (*_pos.txt, *_neg.txt, *_facts.txt)")
    raise FormatError(
        f"{folder}: holds several BoostSRL tasks ({', '.join(prefixes)}); choose one with "
        "--stem NAME"
    )


def _shared_bk(folder: Path, stem: str | None) -> list[Path]:
    """Background files of a data set or fold folder, read before its splits."""
    files = [folder / "background.txt"] if (folder / "background.txt").is_file() else []
    bks = sorted(p for p, k in boostsrl_prefixes(folder).items() if "bk" in k)
    if stem is not None and stem in bks:
        bks = [stem]
    if len(bks) == 1:
        files.append(folder / f"{bks[0]}_bk.txt")
    return files


def _load_split(loader: _Loader, folder: Path, prefix: str, fold: str | None) -> None:
    files = {k: folder / f"{prefix}_{k}.txt" for k in _KINDS}
    if files["bk"].is_file():
        loader.load_file(files["bk"], "bk", fold)
    for kind in ("facts", "neg"):
        if not files[kind].is_file():
            loader.warnings.append(f"{folder}: no {files[kind].name}; none read")
    if files["facts"].is_file():
        loader.load_file(files["facts"], "facts", fold)
    if not files["pos"].is_file():
        found = ", ".join(sorted(p.name for p in folder.iterdir())) or "nothing"
        raise DataError(
            f"{folder}: positive examples file {files['pos'].name} not found (found: {found})"
        )
    loader.load_file(files["pos"], "pos", fold)
    if files["neg"].is_file():
        loader.load_file(files["neg"], "neg", fold)


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

_SAFE_PART: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_TYPE_WORD: Final = re.compile(r"[A-Za-z0-9_]+")


def _render_template(
    term: Term, places: Mapping[tuple[int, ...], str], path: tuple[int, ...]
) -> str:
    if path in places:
        assert type(term) is Struct
        typ = term.args[0]
        name = str(typ.value) if type(typ) is Const else to_prolog(typ)
        return places[path] + (name if _TYPE_WORD.fullmatch(name) else quote_atom(name))
    if type(term) is Struct:
        inner = ", ".join(_render_template(a, places, (*path, i)) for i, a in enumerate(term.args))
        return f"{_render_name(term.name)}({inner})"
    if path == ():
        assert type(term) is Const
        return _render_name(str(term.value))
    return "@" + to_prolog(term, 0)


def _render_name(name: str) -> str:
    return name if _TYPE_WORD.fullmatch(name) and not name[0].isdigit() else quote_atom(name)


def mode_line(mode: Mode) -> str:
    """``mode: p(+t, #u) maxPerInputVars=N.`` for an ilpkit mode."""
    places = {p.path: p.io for p in mode.places}
    text = "mode: " + _render_template(mode.template, places, ())
    if mode.recall is not None:
        text += f" maxPerInputVars={mode.recall}"
    return text + "."


def _safe_clause_line(text: str, what: str) -> str:
    """A clause line that the BoostSRL reader reads back as written."""
    cl, in_block = _clean_line(text, False)
    if cl.code != text or in_block:
        raise FormatError(
            f"cannot write {what} {text!r} in BoostSRL syntax: '//', '/*' or '%' outside "
            "quotes starts a comment there"
        )
    m = _KEY_RE.match(text)
    if m and _keyword(m.group(1)) is not None:
        return f"({text[:-1]})."
    return text


def _setting_lines(settings: Settings) -> list[str]:
    """``setParam:`` lines, and keyword statements for list-valued settings named after one."""
    lines: list[str] = []
    values = [*settings.items(), *settings.unknown.items()]
    for name, value in values:
        term = value if isinstance(value, Str) else value_to_term(value)
        keyword = _keyword(name)
        items, tail = list_items(term)
        if keyword is not None and keyword == name and tail == Const("[]") and type(term) is Struct:
            lines.extend(f"{name}: {_value_text(item)}." for item in items)
        else:
            lines.append(f"setParam: {name} = {to_prolog(term, 999)}.")
    return lines


def _value_text(term: Term) -> str:
    """A statement value; raw text (kept as a string) gets a space before the final dot when
    it would otherwise glue to it (``a :-.``)."""
    if type(term) is not Str:
        return to_prolog(term, 999)
    text = term.value
    return text + " " if not text or text[-1] in "+-*/\\^<>=~:.?@#&$" else text


def _stem_for(task: Task) -> str:
    return safe_stem(task.name, "t")


class BoostSRLFormat:
    """The BoostSRL / srlearn layouts (see the module docstring)."""

    name = "boostsrl"
    description = (
        "BoostSRL/srlearn: *_facts.txt, *_pos.txt, *_neg.txt, *_bk.txt (mode: lines), in one "
        "folder or in train/, test/, foldN/ folders"
    )

    # -- detection --------------------------------------------------------------------------
    def detect(self, path: Path) -> str | None:
        return detect_boostsrl(path)

    # -- loading ----------------------------------------------------------------------------
    def load(self, path: Path, *, stem: str | None = None) -> Task:
        path = Path(path)
        if not path.is_dir():
            raise FormatError(
                f"{path}: a BoostSRL data set is a folder (with *_pos.txt files "
                "or train/ and test/ folders)"
            )
        path = dataset_root(path)
        splits = [] if has_root_examples(path) else find_splits(path)
        if splits:
            return self._load_splits(path, splits, stem)
        prefix = _choose_prefix(path, stem, None)
        loader = _Loader(prefix)
        for bk in _shared_bk(path, prefix):
            loader.load_file(bk, "bk")
        _load_split(loader, path, prefix, None)
        return loader.task()

    def _load_splits(self, root: Path, splits: list[tuple[str, Path]], stem: str | None) -> Task:
        loader = _Loader(root.name)
        loader.fold_names = [name for name, _ in splits]
        for name, folder in splits:
            # Background of the data set folder, then of the fold folder (Fold1/imdb_bk.txt).
            inner = reversed(folder.relative_to(root).parents[:-1])
            for level in [root, *(root / p for p in inner)]:
                for bk in _shared_bk(level, stem):
                    loader.load_file(bk, "bk")
            in_split = stem if stem is not None and stem in boostsrl_prefixes(folder) else None
            _load_split(loader, folder, _choose_prefix(folder, in_split, folder.name), name)
        return loader.task()

    # -- writing ----------------------------------------------------------------------------
    def write(self, task: Task, dest: Path) -> list[Path]:
        """Write ``<stem>_bk.txt``/``_facts.txt`` and the examples (folds as split folders).

        Unlabeled examples and example weights have no BoostSRL syntax and are refused.
        """
        ex = task.examples
        if len(ex.unlabeled):
            raise FormatError("the boostsrl format has no unlabeled examples; use another format")
        if any(w != 1.0 for w in ex.weights.tolist()):
            raise FormatError("the boostsrl format has no example weights; use another format")
        assigned = ex.folds >= 0
        if assigned.any() and not assigned.all():
            raise FormatError("some examples have a fold and others not; cannot write folds")
        dest = Path(dest)
        dest.mkdir(parents=True, exist_ok=True)
        stem = _stem_for(task)
        folds = bool(assigned.any())
        written = [
            self._write(dest / f"{stem}_bk.txt", self._bk_lines(task, stem if folds else None)),
            self._write(dest / f"{stem}_facts.txt", self._fact_lines(task)),
        ]
        if not folds:
            written += self._write_examples(task, dest, stem, -1)
            return written
        for i, name in enumerate(task.fold_names):
            parts = name.split("/")
            if not all(_SAFE_PART.fullmatch(p) and p not in (".", "..") for p in parts):
                raise FormatError(f"fold name {name!r} cannot be a folder name")
            folder = dest.joinpath(*parts)
            folder.mkdir(parents=True, exist_ok=True)
            prefix = parts[-1]
            up = "../" * len(parts)
            written.append(
                self._write(folder / f"{prefix}_bk.txt", [f'import: "{up}{stem}_bk.txt".'])
            )
            written.append(
                self._write(
                    folder / f"{prefix}_facts.txt",
                    [
                        f"// The background facts of all folds are in {up}{stem}_facts.txt "
                        f"(imported by {up}{stem}_bk.txt)."
                    ],
                )
            )
            written += self._write_examples(task, folder, prefix, i)
        return written

    @staticmethod
    def _write(path: Path, lines: Iterable[str]) -> Path:
        return write_lines(path, lines)

    def _write_examples(self, task: Task, folder: Path, prefix: str, fold: int) -> list[Path]:
        ex = task.examples
        out = []
        for label, kind in ((POS, "pos"), (NEG, "neg")):
            mask = (ex.labels == label) & (ex.folds == fold)
            lines = [
                _safe_clause_line(to_prolog(ex.atoms[i], 1199) + ".", "the example")
                for i in mask.nonzero()[0]
            ]
            out.append(self._write(folder / f"{prefix}_{kind}.txt", lines))
        return out

    @staticmethod
    def _bk_lines(task: Task, facts_stem: str | None) -> list[str]:
        bias = task.bias
        lines = [
            "// BoostSRL background written by ilpkit: parameters, modes and rules.",
            "usePrologVariables: true.",
            "",
        ]
        lines += _setting_lines(bias.settings)
        allowed = {m.indicator for h in bias.modeh for m in bias.body_modes_for(h.indicator)}
        if bias.determinations:
            lines.append(
                "// Aleph determinations have no BoostSRL form; only the body modes "
                "they allow are written."
            )
        lines += [mode_line(m) for m in bias.modeh]
        lines += [mode_line(m) for m in bias.modeb if not bias.modeh or m.indicator in allowed]
        lines += [
            _safe_clause_line(f":- {to_prolog(d.term.args[0], 1199)}.", "the directive")
            for d in task.directives
            if type(d.term) is Struct and len(d.term.args) == 1
        ]
        lines += [f":- dynamic {quote_atom(n)}/{a}." for n, a in sorted(task.program.dynamic)]
        lines += [
            _safe_clause_line(clause_to_prolog(sc.clause), "the clause")
            for key in sorted(task.program.clauses)
            for sc in task.program.clauses[key]
        ]
        if facts_stem is not None:
            lines.append(f'import: "{facts_stem}_facts.txt".')
        return lines

    @staticmethod
    def _fact_lines(task: Task) -> Iterator[str]:
        for key in sorted(task.program.facts):
            name = key[0]
            for args in task.program.facts[key]:
                atom: Term = Struct(name, args) if args else Const(name)
                yield _safe_clause_line(to_prolog(atom, 1199) + ".", "the fact")


FORMAT: Final = BoostSRLFormat()
