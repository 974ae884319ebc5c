"""Prolog terms and clauses: immutable, hashable, with a canonical (variant) form.

Representation (chosen for cheap hashing and an exact Prolog reading):

* :class:`Var` -- a variable, identified by its name within one clause.
* :class:`Const` -- an atom (``value`` is a ``str``), an integer or a float.  ``Const(1)``
  and ``Const(1.0)`` are *different* terms, as in Prolog (``1 \\== 1.0``).
* :class:`Str` -- a double-quoted string object (SWI-Prolog's default reading of ``"..."``).
* :class:`Struct` -- a compound term ``name(args...)``.  Lists are ``'.'(H, T)`` ending in the
  atom ``'[]'`` (the ISO representation, identical on every engine ilpkit drives).

A :class:`Clause` is a head and a tuple of body goals (the top-level conjunction, flattened).
``Clause.canonical()`` renames variables by first occurrence, so clauses that are variants of
each other compare and hash equal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Final, TypeAlias

from ilpkit.prolog import operators as ops

# --------------------------------------------------------------------------------------------
# Terms
# --------------------------------------------------------------------------------------------


class Var:
    """A logic variable, identified by name within a clause."""

    __slots__ = ("_hash", "name")
    name: str
    _hash: int

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_hash", hash(("$VAR", name)))  # hashed often: kept

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("terms are immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is Var and other.name == self.name

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Var({self.name!r})"

    def __str__(self) -> str:
        return to_prolog(self)

    def __reduce__(self) -> tuple[type[Var], tuple[str]]:
        return (Var, (self.name,))


ConstValue: TypeAlias = str | int | float


class Const:
    """An atom (``str`` value), integer or float.

    Equality distinguishes the Python type, so ``Const(1) != Const(1.0)`` and
    ``Const(True)`` is refused (booleans are not Prolog constants).
    """

    __slots__ = ("_hash", "value")
    value: ConstValue
    _hash: int

    def __init__(self, value: ConstValue) -> None:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise TypeError(f"Const needs str, int or float, got {type(value).__name__}")
        _set_const_value(self, value)
        _set_const_hash(self, hash((type(value).__name__, value)))

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("terms are immutable")

    @property
    def is_atom(self) -> bool:
        return isinstance(self.value, str)

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is Const
            and type(other.value) is type(self.value)
            and other.value == self.value
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Const({self.value!r})"

    def __str__(self) -> str:
        return to_prolog(self)

    def __reduce__(self) -> tuple[type[Const], tuple[ConstValue]]:
        return (Const, (self.value,))


class Str:
    """A double-quoted string object."""

    __slots__ = ("value",)
    value: str

    def __init__(self, value: str) -> None:
        object.__setattr__(self, "value", value)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("terms are immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is Str and other.value == self.value

    def __hash__(self) -> int:
        return hash(("$STR", self.value))

    def __repr__(self) -> str:
        return f"Str({self.value!r})"

    def __str__(self) -> str:
        return to_prolog(self)

    def __reduce__(self) -> tuple[type[Str], tuple[str]]:
        return (Str, (self.value,))


class Struct:
    """A compound term ``name(arg1, ..., argN)`` with N >= 1."""

    __slots__ = ("_hash", "args", "name")
    name: str
    args: tuple[Term, ...]
    _hash: int

    def __init__(self, name: str, args: Iterable[Term]) -> None:
        args_t = tuple(args)
        if not args_t:
            raise ValueError(f"compound term {name!r} needs at least one argument; use Const")
        _set_struct_name(self, name)
        _set_struct_args(self, args_t)
        _set_struct_hash(self, hash((name, args_t)))

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("terms are immutable")

    @property
    def arity(self) -> int:
        return len(self.args)

    @property
    def indicator(self) -> tuple[str, int]:
        return (self.name, len(self.args))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not Struct or other._hash != self._hash:
            return False
        # Iterative, so long lists (deep '.'/2 spines) do not hit the recursion limit.
        stack: list[tuple[Struct, Struct]] = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a.name != b.name or len(a.args) != len(b.args) or a._hash != b._hash:
                return False
            for x, y in zip(a.args, b.args, strict=True):
                if x is y:
                    continue
                if type(x) is Struct and type(y) is Struct:
                    stack.append((x, y))
                elif x != y:
                    return False
        return True

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Struct({self.name!r}, {self.args!r})"

    def __str__(self) -> str:
        return to_prolog(self)

    def __reduce__(self) -> tuple[type[Struct], tuple[str, tuple[Term, ...]]]:
        return (Struct, (self.name, self.args))


Term: TypeAlias = Var | Const | Str | Struct
"""Any Prolog term."""

# The slots' own setters: faster than object.__setattr__ for the two most created classes.
_set_const_value: Final[Callable[[Const, ConstValue], None]] = Const.__dict__["value"].__set__
_set_const_hash: Final[Callable[[Const, int], None]] = Const.__dict__["_hash"].__set__
_set_struct_name: Final[Callable[[Struct, str], None]] = Struct.__dict__["name"].__set__
_set_struct_args: Final[Callable[[Struct, tuple[Term, ...]], None]] = Struct.__dict__[
    "args"
].__set__
_set_struct_hash: Final[Callable[[Struct, int], None]] = Struct.__dict__["_hash"].__set__

Literal: TypeAlias = Const | Struct
"""A goal or atom: a callable term (an atom constant or a compound)."""

NIL: Final = Const("[]")
TRUE: Final = Const("true")


def atom(name: str) -> Const:
    """The atom ``name``."""
    return Const(name)


def struct(name: str, *args: Term) -> Term:
    """``name(args...)``, or the atom ``name`` when there are no arguments."""
    return Struct(name, args) if args else Const(name)


def indicator(term: Term) -> tuple[str, int]:
    """Predicate indicator ``(name, arity)`` of a callable term."""
    if type(term) is Struct:
        return (term.name, len(term.args))
    if type(term) is Const and isinstance(term.value, str):
        return (term.value, 0)
    raise TypeError(f"not a callable term: {to_prolog(term)}")


def make_list(items: Iterable[Term], tail: Term = NIL) -> Term:
    """The Prolog list ``[items... | tail]``."""
    result = tail
    for item in reversed(list(items)):
        result = Struct(".", (item, result))
    return result


def list_items(term: Term) -> tuple[list[Term], Term]:
    """Split a (possibly partial) list into its items and its tail (``[]`` for a proper list)."""
    items: list[Term] = []
    while type(term) is Struct and term.name == "." and len(term.args) == 2:
        items.append(term.args[0])
        term = term.args[1]
    return items, term


def is_ground(term: Term) -> bool:
    """True when ``term`` contains no variables."""
    if type(term) is Struct:  # the common case of data: a fact with constant arguments
        for a in term.args:
            if type(a) is not Const:
                break
        else:
            return True
    stack: list[Term] = [term]
    while stack:
        t = stack.pop()
        if type(t) is Var:
            return False
        if type(t) is Struct:
            stack.extend(t.args)
    return True


def iter_vars(term: Term) -> Iterator[Var]:
    """Variables of ``term`` in depth-first, left-to-right order (with repeats)."""
    stack: list[Term] = [term]
    while stack:
        t = stack.pop()
        if type(t) is Var:
            yield t
        elif type(t) is Struct:
            stack.extend(reversed(t.args))


def term_vars(terms: Iterable[Term]) -> list[Var]:
    """Distinct variables of ``terms`` in order of first occurrence."""
    seen: dict[Var, None] = {}
    for t in terms:
        for v in iter_vars(t):
            seen.setdefault(v, None)
    return list(seen)


def substitute(term: Term, mapping: Mapping[Var, Term]) -> Term:
    """Replace variables by ``mapping`` (variables not in it are kept)."""
    # The chain of last arguments (a list's spine, a right-nested conjunction) is walked in a
    # loop, so long lists do not hit the recursion limit; other arguments recurse.
    spine: list[Struct] = []
    while type(term) is Struct:
        spine.append(term)
        term = term.args[-1]
    result = mapping.get(term, term) if type(term) is Var else term
    for s in reversed(spine):
        args = tuple(substitute(a, mapping) for a in s.args[:-1])
        result = Struct(s.name, (*args, result))
    return result


def conjunction(goals: Iterable[Term]) -> Term:
    """Right-nested ``','/2`` of ``goals``; ``true`` when empty."""
    goals_l = list(goals)
    if not goals_l:
        return TRUE
    result = goals_l[-1]
    for g in reversed(goals_l[:-1]):
        result = Struct(",", (g, result))
    return result


def flatten_conjunction(term: Term) -> list[Term]:
    """The goals of a (nested) ``','/2`` conjunction, left to right."""
    out: list[Term] = []
    stack = [term]
    while stack:
        t = stack.pop()
        if type(t) is Struct and t.name == "," and len(t.args) == 2:
            stack.append(t.args[1])
            stack.append(t.args[0])
        else:
            out.append(t)
    return out


# --------------------------------------------------------------------------------------------
# Clauses
# --------------------------------------------------------------------------------------------


def canonical_var_name(i: int) -> str:
    """``A``, ``B``, ..., ``Z``, ``A1``, ..., ``Z1``, ``A2`` ... (Aleph's style)."""
    letter = chr(ord("A") + i % 26)
    n = i // 26
    return letter if n == 0 else f"{letter}{n}"


class Clause:
    """A definite clause ``head :- body1, ..., bodyN`` (a fact when the body is empty).

    ``body`` holds the top-level conjuncts; a conjunct may itself be a control construct
    (``;``, ``->``, ``\\+``) for background rules.
    """

    __slots__ = ("_hash", "body", "head")
    head: Term
    body: tuple[Term, ...]
    _hash: int

    def __init__(self, head: Term, body: Iterable[Term] = ()) -> None:
        body_t = tuple(body)
        object.__setattr__(self, "head", head)
        object.__setattr__(self, "body", body_t)
        object.__setattr__(self, "_hash", hash((head, body_t)))

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("clauses are immutable")

    @classmethod
    def from_term(cls, term: Term) -> Clause:
        """Split ``H :- B`` (or a fact ``H``) into head and flattened body."""
        if type(term) is Struct and term.name == ":-" and len(term.args) == 2:
            body = flatten_conjunction(term.args[1])
            if body == [TRUE]:
                body = []
            return cls(term.args[0], body)
        return cls(term)

    def to_term(self) -> Term:
        if not self.body:
            return self.head
        return Struct(":-", (self.head, conjunction(self.body)))

    @property
    def is_fact(self) -> bool:
        return not self.body

    @property
    def indicator(self) -> tuple[str, int]:
        return indicator(self.head)

    @property
    def length(self) -> int:
        """Number of literals counting the head (Aleph's ``clauselength``)."""
        return 1 + len(self.body)

    def variables(self) -> list[Var]:
        return term_vars((self.head, *self.body))

    def canonical(self) -> Clause:
        """The variant-normal form: variables renamed ``A, B, ...`` by first occurrence."""
        mapping = {v: Var(canonical_var_name(i)) for i, v in enumerate(self.variables())}
        return Clause(
            substitute(self.head, mapping), tuple(substitute(g, mapping) for g in self.body)
        )

    def is_variant(self, other: Clause) -> bool:
        return self.canonical() == other.canonical()

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is Clause
            and other._hash == self._hash
            and other.head == self.head
            and other.body == self.body
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Clause({to_prolog(self.to_term())!r})"

    def __str__(self) -> str:
        return clause_to_prolog(self)

    def __reduce__(self) -> tuple[type[Clause], tuple[Term, tuple[Term, ...]]]:
        return (Clause, (self.head, self.body))


# --------------------------------------------------------------------------------------------
# Rendering (writeq-compatible)
# --------------------------------------------------------------------------------------------

_SOLO_ATOMS: Final = frozenset({"!", ";", "[]", "{}"})


def _is_letter_atom(name: str) -> bool:
    if not name or not ("a" <= name[0] <= "z"):
        return False
    return all(c.isascii() and (c.isalnum() or c == "_") for c in name)


def _is_symbol_atom(name: str) -> bool:
    return bool(name) and all(c in ops.SYMBOL_CHARS for c in name)


def atom_needs_quotes(name: str) -> bool:
    """True when ``name`` must be quoted to read back as the same atom."""
    if _is_letter_atom(name) or name in _SOLO_ATOMS:
        return False
    if _is_symbol_atom(name):
        # A symbol atom starting with "/*" would open a comment; "." alone ends a clause.
        return name.startswith("/*") or name == "."
    return True


_ESCAPES: Final = {
    "\\": "\\\\",
    "\n": "\\n",
    "\t": "\\t",
    "\r": "\\r",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\v": "\\v",
    "\0": "\\0\\",
}


def _escape(text: str, quote: str) -> str:
    out = []
    for c in text:
        if c == quote:
            out.append(quote + quote)
        elif c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif ord(c) < 32 or ord(c) == 127:
            out.append(f"\\x{ord(c):x}\\")
        else:
            out.append(c)
    return "".join(out)


def quote_atom(name: str) -> str:
    """The atom as ``writeq`` writes it: bare when possible, else single-quoted."""
    if atom_needs_quotes(name):
        return "'" + _escape(name, "'") + "'"
    return name


def _float_text(value: float) -> str:
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    text = repr(value)
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exp = text.split("e")
        text = f"{mantissa}.0e{exp}"
    return text


def _is_var_name(name: str) -> bool:
    return (
        bool(name)
        and (name[0] == "_" or "A" <= name[0] <= "Z")
        and all(c.isascii() and (c.isalnum() or c == "_") for c in name)
    )


def to_prolog(term: Term, priority: int = 1200) -> str:
    """Render ``term`` as Prolog text that reads back as the same term (``writeq`` rules)."""
    t = type(term)
    if t is Var:
        name = term.name  # type: ignore[union-attr]
        return name if _is_var_name(name) else "_G" + str(abs(hash(name)) % 10**8)
    if t is Const:
        value = term.value  # type: ignore[union-attr]
        if isinstance(value, str):
            text = quote_atom(value)
            # An operator atom as the operand of an operator is bracketed: X = (-).
            return f"({text})" if priority < 999 and ops.is_operator(value) else text
        text = str(value) if isinstance(value, int) else _float_text(value)
        return f"({text})" if value < 0 and priority < 200 else text
    if t is Str:
        assert isinstance(term, Str)
        return '"' + _escape(term.value, '"') + '"'
    assert isinstance(term, Struct)
    name, args = term.name, term.args
    if name == "." and len(args) == 2:
        return _list_to_prolog(term)
    if name == "{}" and len(args) == 1:
        return "{" + to_prolog(args[0], 1200) + "}"
    if len(args) == 2 and (op := ops.infix(name)) is not None:
        p, left_max, right_max = op
        # Operator atoms as operands are always bracketed: unbracketed, a prefix operator
        # would take the infix operator after it as its operand ("dynamic :- a").
        left = _operand(args[0], left_max)
        right = _operand(args[1], right_max)
        if _absorbs(args[0], left, p):
            left = f"({left})"
        if name == ",":
            text = f"{left},{right}"
        elif p < 700 and _is_symbol_atom(name) and _glue_safe(left, right):
            text = f"{left}{name}{right}"
        else:
            text = f"{left} {quote_atom(name)} {right}"
        return f"({text})" if p > priority else text
    if len(args) == 1 and (op1 := ops.prefix(name)) is not None:
        arg = args[0]
        # Numbers and operator atoms as operands are written in functional notation, so that
        # "-(1)" does not read back as the integer -1.
        p, arg_max = op1
        operand = to_prolog(arg, arg_max)
        first = operand[:1]
        # "- 1" reads as -1 on some engines: operands starting with a digit, and operator
        # atoms, use functional notation instead; so does an infix operand of the prefix
        # operator's own priority, which SWI-Prolog reads apart: "#x+y" ('#' fy 500) is
        # (#x)+y there, #(x+y) in the standard.
        if (
            not first.isdigit()
            and not _is_operator_atom(arg)
            and not _same_priority_infix(arg, arg_max, operand)
        ):
            # No glue before "(" (functional notation) or "{" (SWI-Prolog 7 reads -{a} as a dict).
            glue = _is_symbol_atom(name) and first not in ops.SYMBOL_CHARS and first not in "({"
            text = f"{quote_atom(name)}{'' if glue else ' '}{operand}"
            return f"({text})" if p > priority else text
    inner = ",".join(to_prolog(a, 999) for a in args)
    return f"{quote_atom(name)}({inner})"


def _same_priority_infix(arg: Term, priority: int, text: str) -> bool:
    """Whether ``arg`` is written as an unbracketed infix term of exactly ``priority``."""
    if type(arg) is not Struct or len(arg.args) != 2 or text.startswith("("):
        return False
    op = ops.infix(arg.name)
    return op is not None and op[0] == priority


def _glue_safe(left: str, right: str) -> bool:
    """Whether an operator can be written between ``left`` and ``right`` without spaces."""
    return (
        bool(left)
        and bool(right)
        and left[-1] not in ops.SYMBOL_CHARS
        and right[0] not in ops.SYMBOL_CHARS
        and right[0] != "("
    )


def _operand(term: Term, priority: int) -> str:
    """An operand of an infix operator; operator atoms are bracketed: ``(dynamic) :- a``."""
    return to_prolog(term, 0 if _is_operator_atom(term) else priority)


def _absorbs(term: Term, text: str, priority: int) -> bool:
    """Whether ``text``, a prefix-operator term, would take an infix operator of ``priority``
    after it into its operand: with '#' fy 500, "#a \\/ b" reads as #(a \\/ b)."""
    if type(term) is not Struct or len(term.args) != 1:
        return False
    op = ops.prefix(term.name)
    # Already bracketed, or written in functional notation "-(1)": nothing to absorb.
    closed = text.startswith(("(", quote_atom(term.name) + "("))
    return op is not None and op[1] >= priority and not closed


def _is_operator_atom(term: Term) -> bool:
    return type(term) is Const and isinstance(term.value, str) and ops.is_operator(term.value)


def _is_number(term: Term) -> bool:
    return type(term) is Const and not isinstance(term.value, str)


def _list_to_prolog(term: Term) -> str:
    items, tail = list_items(term)
    text = ",".join(to_prolog(item, 999) for item in items)
    if tail != NIL:
        text += "|" + to_prolog(tail, 999)
    return f"[{text}]"


def clause_to_prolog(clause: Clause) -> str:
    """``head :- b1, b2.`` (with the final full stop)."""
    if not clause.body:
        text = to_prolog(clause.head, 1199)
    else:
        body = ", ".join(_operand(g, 999) for g in clause.body)
        text = f"{_operand(clause.head, 1199)} :- {body}"
    # "- ." not "-.": a full stop glued to symbol characters would be part of the atom.
    return text + (" ." if text[-1] in ops.SYMBOL_CHARS else ".")
