"""Compilation of clauses into templates and instruction sequences."""

from __future__ import annotations

from typing import Any, Final

from ilpkit.plugins.backends.native.prolog.builtins_core import Key
from ilpkit.plugins.backends.native.prolog.terms import RT, _Slot, _Tmpl

# --------------------------------------------------------------------------------------------
# Compilation
# --------------------------------------------------------------------------------------------

(
    _I_CALL,
    _I_CUT,
    _I_FAIL,
    _I_ITE,
    _I_SOFT,
    _I_OR,
    _I_NOT,
    _I_CALLVAR,
    _I_CALL1,
    _I_COLLECT,
    _I_SOFTCUT,
    _I_CATCHEXIT,
) = range(12)

_CUT_SEQ: Final = ((_I_CUT,),)
_NAF_SEQ: Final = ((_I_CUT,), (_I_FAIL,))
_SOFTCUT_SEQ: Final = ((_I_SOFTCUT,),)
_COLLECT_SEQ: Final = ((_I_COLLECT,),)
_CATCHEXIT_SEQ: Final = ((_I_CATCHEXIT,),)

_CP_ALT, _CP_CLAUSES, _CP_FACTS, _CP_GEN, _CP_COLLECT, _CP_CATCH, _CP_DEAD = range(7)

_K_USER, _K_FACTS, _K_DET, _K_GEN, _K_CTRL, _K_UNDEF, _K_REFUSED, _K_FAIL, _K_TABLE = range(9)


class _Ctx:
    """Where compiled code came from (for error messages) and how it resolves names."""

    __slots__ = ("caller", "known", "lib", "location", "names")

    def __init__(
        self,
        caller: str,
        location: str | None,
        names: list[str] | None,
        lib: bool,
        known: dict[int, str] | None = None,
    ) -> None:
        self.caller = caller
        self.location = location
        self.names = names  # clause variable names by slot
        self.lib = lib
        self.known = known  # names of a query's variables by cell id

    def describe(self) -> str:
        where = f" at {self.location}" if self.location else ""
        return f"called from {self.caller}{where}"


class _CClause:
    """A compiled clause: head argument templates, body sequence, frame size, index key."""

    __slots__ = ("body", "head", "key", "nvars")

    def __init__(self, head: tuple[RT, ...], body: tuple[Any, ...], nvars: int, key: RT):
        self.head = head
        self.body = body
        self.nvars = nvars
        self.key = key


class _Pred:
    """A callable predicate: its kind and what the machine needs to run it."""

    __slots__ = (
        "clauses",
        "fidx",
        "fn",
        "index",
        "key",
        "kind",
        "lib",
        "rows",
        "tab",
        "varcl",
    )

    def __init__(self, key: Key, kind: int, fn: Any = None, lib: bool = False) -> None:
        self.key = key
        self.kind = kind
        self.fn = fn
        self.lib = lib
        self.clauses: tuple[_CClause, ...] | None = None
        self.index: dict[RT, tuple[_CClause, ...]] | None = None
        self.varcl: tuple[_CClause, ...] = ()
        self.rows: list[tuple[RT, ...]] | None = None
        self.fidx: list[dict[RT, list[tuple[RT, ...]]] | None] = []
        self.tab = kind == _K_USER and not lib  # answers may come from the engine's tables


def _first_arg_key(head: tuple[RT, ...]) -> RT:
    if not head:
        return None
    t = head[0]
    if type(t) is _Slot:
        return None
    if type(t) is _Tmpl or type(t) is tuple:
        return (t[0], len(t))
    return t
