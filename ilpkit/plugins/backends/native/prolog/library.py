"""Library predicates written in Prolog, control constructs, refused constructs and the
built-in tables."""

from __future__ import annotations

from typing import Final

from ilpkit.core.aleph_library import LIST_PREDICATES
from ilpkit.plugins.backends.native.prolog import builtins_control, builtins_lists, builtins_text  # noqa: F401  (they register built-ins)
from ilpkit.plugins.backends.native.prolog.builtins_core import (
    _CTRL,
    _DET,
    _GEN,
    _LIBRARY_NATIVE,
    Key,
)
from ilpkit.prolog.reader import PrologReader
from ilpkit.prolog.terms import Clause

# --------------------------------------------------------------------------------------------
# Library predicates written in Prolog (SWI-Prolog's definitions, so solution order matches)
# --------------------------------------------------------------------------------------------

_LIBRARY_TEXT: Final = r"""
append([], L, L).
append([H|T], L, [H|R]) :- append(T, L, R).
append(ListOfLists, List) :- '$append_'(ListOfLists, List).
'$append_'([], []).
'$append_'([L|Ls], As) :- append(L, Ws, As), '$append_'(Ls, Ws).
select(X, [X|T], T).
select(X, [H|T], [H|R]) :- select(X, T, R).
selectchk(X, L, R) :- select(X, L, R), !.
select(X, Xs, Y, Ys) :- '$select4_'(Xs, X, Y, Ys).
'$select4_'([X|T], X, Y, [Y|T]).
'$select4_'([H|T], X, Y, [H|T2]) :- '$select4_'(T, X, Y, T2).
exclude(P, L, R) :- '$exclude_'(L, P, R).
'$exclude_'([], _, []).
'$exclude_'([H|T], P, R) :- ( call(P, H) -> R = R1 ; R = [H|R1] ), '$exclude_'(T, P, R1).
include(P, L, R) :- '$include_'(L, P, R).
'$include_'([], _, []).
'$include_'([H|T], P, R) :- ( call(P, H) -> R = [H|R1] ; R = R1 ), '$include_'(T, P, R1).
partition(P, L, I, E) :- '$partition_'(L, P, I, E).
'$partition_'([], _, [], []).
'$partition_'([H|T], P, I, E) :-
    ( call(P, H) -> I = [H|I1], E = E1 ; I = I1, E = [H|E1] ),
    '$partition_'(T, P, I1, E1).
subtract([], _, []) :- !.
subtract([E|T], D, R) :- memberchk(E, D), !, subtract(T, D, R).
subtract([H|T], D, [H|R]) :- subtract(T, D, R).
intersection([], _, []) :- !.
intersection([X|T], L, I) :-
    ( memberchk(X, L) -> I = [X|R], intersection(T, L, R) ; intersection(T, L, I) ).
union([], L, L) :- !.
union([H|T], L, R) :- memberchk(H, L), !, union(T, L, R).
union([H|T], L, [H|R]) :- union(T, L, R).
delete([], _, []).
delete([E|T], D, R) :- ( \+ E \= D -> delete(T, D, R) ; R = [E|R1], delete(T, D, R1) ).
maplist(G, L) :- '$maplist_'(L, G).
'$maplist_'([], _).
'$maplist_'([A|As], G) :- call(G, A), '$maplist_'(As, G).
maplist(G, L1, L2) :- '$maplist_'(L1, L2, G).
'$maplist_'([], [], _).
'$maplist_'([A|As], [B|Bs], G) :- call(G, A, B), '$maplist_'(As, Bs, G).
maplist(G, L1, L2, L3) :- '$maplist_'(L1, L2, L3, G).
'$maplist_'([], [], [], _).
'$maplist_'([A|As], [B|Bs], [C|Cs], G) :- call(G, A, B, C), '$maplist_'(As, Bs, Cs, G).
maplist(G, L1, L2, L3, L4) :- '$maplist_'(L1, L2, L3, L4, G).
'$maplist_'([], [], [], [], _).
'$maplist_'([A|As], [B|Bs], [C|Cs], [D|Ds], G) :-
    call(G, A, B, C, D), '$maplist_'(As, Bs, Cs, Ds, G).
maplist(G, L1, L2, L3, L4, L5) :- '$maplist_'(L1, L2, L3, L4, L5, G).
'$maplist_'([], [], [], [], [], _).
'$maplist_'([A|As], [B|Bs], [C|Cs], [D|Ds], [E|Es], G) :-
    call(G, A, B, C, D, E), '$maplist_'(As, Bs, Cs, Ds, Es, G).
foldl(G, L, V0, V) :- '$foldl_'(L, G, V0, V).
'$foldl_'([], _, V, V).
'$foldl_'([X|Xs], G, V0, V) :- call(G, X, V0, V1), '$foldl_'(Xs, G, V1, V).
foldl(G, L1, L2, V0, V) :- '$foldl_'(L1, L2, G, V0, V).
'$foldl_'([], [], _, V, V).
'$foldl_'([X|Xs], [Y|Ys], G, V0, V) :- call(G, X, Y, V0, V1), '$foldl_'(Xs, Ys, G, V1, V).
foldl(G, L1, L2, L3, V0, V) :- '$foldl_'(L1, L2, L3, G, V0, V).
'$foldl_'([], [], [], _, V, V).
'$foldl_'([X|Xs], [Y|Ys], [Z|Zs], G, V0, V) :-
    call(G, X, Y, Z, V0, V1), '$foldl_'(Xs, Ys, Zs, G, V1, V).
nextto(X, Y, [X,Y|_]).
nextto(X, Y, [_|Zs]) :- nextto(X, Y, Zs).
permutation(Xs, Ys) :-
    ( is_list(Xs) -> length(Xs, N), length(Ys, N)
    ; is_list(Ys) -> length(Ys, N), length(Xs, N)
    ; true ),
    '$perm'(Xs, Ys).
'$perm'([], []).
'$perm'(L, [H|T]) :- select(H, L, R), '$perm'(R, T).
last([X|Xs], L) :- '$last_'(Xs, X, L).
'$last_'([], L, L).
'$last_'([X|Xs], _, L) :- '$last_'(Xs, X, L).
reverse(Xs, Ys) :- '$reverse'(Xs, [], Ys, Ys).
'$reverse'([], Ys, Ys, []).
'$reverse'([X|Xs], Rs, Ys, [_|Bound]) :- '$reverse'(Xs, [X|Rs], Ys, Bound).
flatten(List, Flat) :- '$flatten'(List, [], Flat0), !, Flat = Flat0.
'$flatten'(Var, Tl, [Var|Tl]) :- var(Var), !.
'$flatten'([], Tl, Tl) :- !.
'$flatten'([Hd|Tl], Tail, List) :- !,
    '$flatten'(Hd, FlatHeadTail, List), '$flatten'(Tl, Tail, FlatHeadTail).
'$flatten'(NonList, Tl, [NonList|Tl]).
pairs_keys_values([], [], []).
pairs_keys_values([K-V|T], [K|Ks], [V|Vs]) :- pairs_keys_values(T, Ks, Vs).
pairs_keys([], []).
pairs_keys([K-_|T], [K|Ks]) :- pairs_keys(T, Ks).
pairs_values([], []).
pairs_values([_-V|T], [V|Vs]) :- pairs_values(T, Vs).
proper_length(L, N) :- is_list(L), length(L, N).
subsumes_term(G, S) :-
    \+ \+ ( term_variables(S, V1), unify_with_occurs_check(G, S),
            term_variables(V1, V2), V1 == V2 ).
predsort(P, L, Sorted) :-
    length(L, N), '$predsort'(P, N, L, _, Sorted1), !, Sorted = Sorted1.
'$predsort'(P, 2, [X1,X2|L], L, R) :- !, call(P, Delta, X1, X2), '$sort2'(Delta, X1, X2, R).
'$predsort'(_, 1, [X|L], L, [X]) :- !.
'$predsort'(_, 0, L, L, []) :- !.
'$predsort'(P, N, L1, L3, R) :-
    N1 is N // 2, plus(N1, N2, N),
    '$predsort'(P, N1, L1, L2, R1), '$predsort'(P, N2, L2, L3, R2),
    '$predmerge'(P, R1, R2, R).
'$sort2'(<, X1, X2, [X1,X2]).
'$sort2'(=, X1, _, [X1]).
'$sort2'(>, X1, X2, [X2,X1]).
'$predmerge'(_, [], R, R) :- !.
'$predmerge'(_, R, [], R) :- !.
'$predmerge'(P, [H1|T1], [H2|T2], Result) :-
    call(P, Delta, H1, H2), !, '$predmerge_'(Delta, P, H1, H2, T1, T2, Result).
'$predmerge_'(<, P, H1, H2, T1, T2, [H1|R]) :- '$predmerge'(P, T1, [H2|T2], R).
'$predmerge_'(=, P, H1, _, T1, T2, [H1|R]) :- '$predmerge'(P, T1, T2, R).
'$predmerge_'(>, P, H1, H2, T1, T2, [H2|R]) :- '$predmerge'(P, [H1|T1], T2, R).
"""

_LIBRARY_CACHE: dict[Key, list[Clause]] = {}


def _library_clauses() -> dict[Key, list[Clause]]:
    """The library's clauses by predicate (parsed once per process)."""
    if not _LIBRARY_CACHE:
        for rt in PrologReader().read_text(_LIBRARY_TEXT + LIST_PREDICATES, "<ilpkit library>"):
            clause = Clause.from_term(rt.term)
            _LIBRARY_CACHE.setdefault(clause.indicator, []).append(clause)
    return _LIBRARY_CACHE


# Control constructs compiled inline (never looked up as predicates).
_CONTROL: Final = frozenset(
    {
        (",", 2),
        (";", 2),
        ("->", 2),
        ("*->", 2),
        ("\\+", 1),
        ("not", 1),
        ("!", 0),
        ("true", 0),
        ("fail", 0),
        ("false", 0),
        ("once", 1),
        ("ignore", 1),
        ("forall", 2),
        (":", 2),
    }
)


def _pis(text: str) -> frozenset[Key]:
    """Predicate indicators from ``"name/arity name/arity ..."`` text."""
    out = set()
    for item in text.split():
        name, _, arity = item.rpartition("/")
        out.add((name, int(arity)))
    return frozenset(out)


_OUTPUT_ONLY: Final = _pis(
    "write/1 write/2 writeln/1 writeln/2 print/1 print/2 writeq/1 writeq/2 write_canonical/1 "
    "write_canonical/2 write_term/2 write_term/3 print_message/2 format/1 format/2 nl/0 nl/1 "
    "tab/1 tab/2 flush_output/0 flush_output/1 portray_clause/1 put_char/1 debug/3"
)
"""Refused output predicates that ``allow`` may turn into silent no-ops (they cannot change
an answer)."""

_REFUSED_GROUPS: Final = {
    "output": " ".join(f"{n}/{a}" for n, a in sorted(_OUTPUT_ONLY)),
    "changes the database": (
        "assert/1 asserta/1 assertz/1 asserta/2 assertz/2 retract/1 retractall/1 abolish/1 "
        "abolish/2 erase/1 recorda/2 recorda/3 recordz/2 recordz/3 recorded/2 recorded/3 "
        "flag/3 setarg/3 nb_setarg/3 dynamic/1 discontiguous/1 op/3 set_prolog_flag/2 table/1"
    ),
    "global variables": "nb_setval/2 b_setval/2 nb_getval/2 b_getval/2",
    "input/output": (
        "format/3 read/1 read/2 read_term/2 read_term/3 open/3 open/4 close/1 close/2 see/1 "
        "seen/0 tell/1 told/0 append/1 get_char/1 get_char/2 peek_char/1 put_char/2 "
        "with_output_to/2 format_atom/3 sformat/2 sformat/3"
    ),
    "runs external code or loads files": (
        "shell/0 shell/1 shell/2 system/1 consult/1 ensure_loaded/1 use_module/1 use_module/2 "
        "load_files/2 halt/0 halt/1 abort/0 getenv/2 setenv/2 sleep/1 garbage_collect/0 "
        "statistics/2 get_time/1 time/1 call_with_time_limit/2 thread_create/3"
    ),
    "random numbers are not reproducible": (
        "random/1 random_between/3 random_member/2 random_permutation/2 random_select/3 "
        "set_random/1"
    ),
    "coroutining and constraints": "freeze/2 dif/2 when/2",
    "program introspection": "clause/2 predicate_property/2 current_op/3",
}

_REFUSED: Final[dict[Key, str]] = {
    key: why for why, text in _REFUSED_GROUPS.items() for key in sorted(_pis(text))
}
"""Constructs the native engine refuses, with the reason shown to the user."""

_META_ARGS: Final[dict[Key, tuple[tuple[int, int], ...]]] = {
    ("findall", 3): ((1, 0),),
    ("findall", 4): ((1, 0),),
    ("aggregate_all", 3): ((1, 0),),
    ("bagof", 3): ((1, 0),),
    ("setof", 3): ((1, 0),),
    ("catch", 3): ((0, 0), (2, 0)),
    ("^", 2): ((1, 0),),
    ("include", 3): ((0, 1),),
    ("exclude", 3): ((0, 1),),
    ("partition", 4): ((0, 1),),
    ("foldl", 4): ((0, 3),),
    ("foldl", 5): ((0, 4),),
    ("foldl", 6): ((0, 5),),
    ("predsort", 3): ((0, 3),),
    **{("call", n): ((0, n - 1),) for n in range(1, 9)},
    **{("maplist", n): ((0, n - 1),) for n in range(2, 7)},
}
"""Where meta-predicates take goals: (argument index, number of arguments they add)."""

_ARITH_PREDS: Final = frozenset(
    {("is", 2), ("<", 2), (">", 2), ("=<", 2), (">=", 2), ("=:=", 2), ("=\\=", 2)}
)

_SYSTEM: Final = frozenset(_DET) | frozenset(_GEN) | frozenset(_CTRL)
BUILTINS: Final[frozenset[Key]] = frozenset(
    _SYSTEM | _CONTROL | {k for k in _library_clauses() if not k[0].startswith("$")}
)
"""Every predicate the engine implements: control constructs, built-ins and library."""
SYSTEM_PREDICATES: Final[frozenset[Key]] = frozenset(
    {k for k in _SYSTEM if k not in _LIBRARY_NATIVE} | (_CONTROL - {("false", 0), (":", 2)})
)
"""Built-ins a program cannot redefine (SWI-Prolog's system predicates: a definition in the
data is refused at load, so every engine runs the same predicate).  Library predicates
(``append/3``, ``member/2``, ...) may be redefined, as with SWI's autoloader; ``false/0`` is
left out because Aleph's integrity constraints are written ``false :- Body``."""
