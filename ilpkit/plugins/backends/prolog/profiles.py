"""Engine profiles: how to start each Prolog, what it can limit, and its prelude.

Everything engine-specific lives here, as data: the command line, whether the engine can stop
a query by itself (inference and wall-clock limits), how it writes strings, and a short
*prelude* of Prolog text defining the hooks ``ilpkit_server.pl`` calls (its header lists
them).  The data export and the server are the same for every engine.

Quirks this encodes (measured with SWI-Prolog 9.0, GNU Prolog 1.4.5 and YAP 8.0.2):

* SWI-Prolog: ``call_with_inference_limit/3`` and ``call_with_time_limit/2``
  (``library(time)``, used module-qualified so nothing is imported into ``user``);
  double quotes read as strings.  Error texts are ilpkit's own (``ilpkit_message/2`` in
  the server), never SWI's message translation, which runs ``format/2`` terms found in the
  error (``~@`` calls a goal).
* GNU Prolog: no inference or time limit (the backend stops a slow query by killing and
  restarting the engine); no ``not/1``, ``ignore/1``, ``intersection/3``, ``plus/3``,
  ``sumlist/2`` (defined here); ``dynamic/1`` is a directive only; ``write_canonical/1``
  writes lists as ``'.'(H, T)`` and floats with 17 digits (both read back exactly); library
  predicates (``append/3``, ``member/2``) cannot be redefined by a program (reported as a
  clash, the engine's definition is kept); integers are bounded (60 bits).
* YAP (run with YAP 8.0.2, see docs/backends.md): started as ``yap -q -l FILE -g GOAL``
  (never through its top level, which is not meant for a pipe); YAP exits 0 on errors and
  silently ignores a missing ``-l`` file, so only the server's own ``ilpkit_ready`` line
  proves that it started; no inference limit (``step_limit`` becomes the backend's
  ``guard_seconds``), ``time_out/3`` from ``library(timeout)`` for the time limit; floats are
  written with ``%.6g`` unless ``float_format`` is ``'%.17g'``; lists are written as
  ``'.'(H, T)`` (read back exactly); ``set_output/1`` also moves ``user_output`` (the server
  answers on the stream it started with); an unknown procedure is reported as
  ``Module:Name/Arity``; ``read_term/3`` under ``catch/3`` fails when YAP grows its atom table
  (the server reads through ``ilpkit_read/2``, which avoids it); memory leaks: ``write/2``
  (the server writes ids with ``put_char/2``), ``assertz/1`` + ``retract/1`` (coverage
  meta-calls bodies) and ``read_term/3`` (about 7 KB per term read: the backend restarts the
  engine past ``restart_rss_mb``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from ilpkit.core.aleph_library import LIST_PREDICATES
from ilpkit.plugins.backends.prolog import intguard
from ilpkit.plugins.backends.prolog.arithmetic import EVALUATOR
from ilpkit.prolog.terms import Term

EngineName = Literal["swipl", "gprolog", "yap"]

_ATOM_TOKENS: Final = re.compile(r"[a-z][A-Za-z0-9_]*|'(?:[^'\\\n]|\\.|'')*'")


def atom_table_size(program_text: str) -> int:
    """Atom table entries for an engine loading ``program_text``: twice its distinct atoms
    (functors included; requests and answers add more) plus 65,536, rounded up to a power of
    two -- never less than GNU Prolog's default 32,768, which data with more atoms overflows
    ("Atom table full").  Unused entries cost no memory (about 9 MB resident for 8 million)."""
    wanted = 2 * len(set(_ATOM_TOKENS.findall(program_text))) + 65536
    size = 1 << 15
    while size < wanted:
        size <<= 1
    return size


_IDENTIFIER_ATOMS: Final = re.compile(
    r"(?<![A-Za-z0-9_'])[a-z][A-Za-z0-9_]+|'([a-z][A-Za-z0-9_]+)'"
)


def identifier_atoms(program_text: str) -> list[str]:
    """The identifier atoms (``[a-z][A-Za-z0-9_]+``, quoted or not) of ``program_text``, in
    descending byte order (the order of C's ``strcmp``: code points, for ASCII text); see
    :attr:`EngineProfile.atoms_descending`.  A word of a comment or of a longer quoted atom
    may be among them: one atom more, never one less that matters."""
    found = {m.group(1) or m.group(0) for m in _IDENTIFIER_ATOMS.finditer(program_text)}
    return sorted(found, reverse=True)


RSS_CHECK_EVERY: Final = 256
"""Requests between two looks at an engine's memory (see ``restart_rss_mb``)."""


@dataclass(frozen=True)
class EngineProfile:
    """What ilpkit needs to know to drive one Prolog engine."""

    name: EngineName
    executable: str
    """Default executable, looked up on PATH."""
    server_args: tuple[str, ...]
    """Command-line arguments after the executable; ``{server}`` is the support file and
    ``{goal}`` the goal that runs the read loop."""
    prelude: str
    time_limit: bool
    """The engine stops a query at the wall-clock limit by itself."""
    step_limit: bool
    """The engine counts inferences and stops a query at the limit."""
    strings: bool
    """The engine has a string type (ilpkit's ``Str``, written ``"..."``)."""
    answer_double_quotes: str
    """How to read ``"..."`` in the engine's answers (``PrologReader`` option)."""
    restart_rss_mb: int | None = None
    """Restart the engine (between requests) once its resident memory exceeds this many MB:
    for engines that leak memory per request (YAP 8.0.2's ``read_term/3`` keeps about 7 KB
    of every term it reads).  Checked every :data:`RSS_CHECK_EVERY` requests, on Linux."""

    max_char_code: int | None = None
    """The engine holds text as bytes (GNU Prolog 1.4.5: atoms of codes 0-255, files read
    byte by byte, so UTF-8 ``'ü'`` would become the two-character atom ``'Ã¼'``): ilpkit
    then writes every non-ASCII character of the program and of each request as the ISO
    escape ``\\xHH\\`` (the engine writes them back the same way), and refuses text with a
    character above this code.  None: the engine reads UTF-8."""

    lacks: frozenset[tuple[str, int]] = frozenset()
    """Allow-listed built-ins the engine has not and ilpkit does not define for it
    (``ilpkit_compat/2``): a program calling one is refused at load, with its location."""
    lacks_why: str = ""
    """Why (shown with the refusal)."""
    address_space_limit: bool = False
    """The backend may cap the engine's address space (``memory_limit_mb``): measured to
    start and run under the cap (SWI-Prolog, GNU Prolog)."""
    bounded_between: bool = False
    """``between/3`` takes no ``inf`` upper bound (GNU Prolog raises a type error)."""
    swi_arithmetic: bool = True
    """The engine's arithmetic gives SWI-Prolog's results (ilpkit's convention); when not,
    the program's arithmetic goals go through ``ilpkit_is/2`` (see
    :mod:`ilpkit.plugins.backends.prolog.arithmetic`)."""
    integer_guard: bool = False
    """The program's arithmetic goes through ``ilpkit_bounded_is/2`` and
    ``ilpkit_bounded_compare/3``, which refuse an integer result above the request's bound
    before computing it (SWI-Prolog before 9.2; :mod:`ilpkit.plugins.backends.prolog.intguard`)."""
    atom_table_env: str | None = None
    """Environment variable sizing the engine's atom table (GNU Prolog: ``MAX_ATOM``, 32,768
    atoms by default); the backend sets it from the data (:func:`atom_table_size`)."""
    atoms_descending: bool = False
    """The backend creates the data's atoms before the load, in descending order
    (:func:`identifier_atoms`).  GNU Prolog 1.4.5 adds every new identifier atom to its line
    editor's completion list, a sorted linked list walked from its start: in the data's order
    that is quadratic (86,000 facts over 40,000 atoms: 16 CPU s), in descending order each
    insertion stops at once (0.4 s)."""

    def command(self, executable: str, server: str) -> list[str]:
        goal = "ilpkit_serve, halt"
        return [executable, *(a.format(server=server, goal=goal) for a in self.server_args)]


def _library_facts() -> str:
    """``ilpkit_library/2`` facts: ilpkit's own library (:mod:`ilpkit.core.aleph_library`),
    which the server adds to every engine where the program does not define the name."""
    from collections import Counter

    from ilpkit.prolog.reader import PrologReader
    from ilpkit.prolog.terms import Clause, Var, substitute, term_vars, to_prolog

    grouped: dict[tuple[str, int], list[Term]] = {}
    for k, rt in enumerate(PrologReader().read_text(LIST_PREDICATES, "<ilpkit library>")):
        clause = Clause.from_term(rt.term)
        # variables of their own per clause, as one fact holds all of a predicate's clauses;
        # those occurring once are written _V.. (no singleton warning, none shared)
        found = Counter(_var_names(rt.term))
        names = {
            v: Var(f"{'_' if found[v.name] == 1 else ''}V{k}{v.name.strip('_')}")
            for v in term_vars([rt.term])
        }
        grouped.setdefault(clause.indicator, []).append(substitute(rt.term, names))
    lines = [
        f"ilpkit_library({name}/{arity}, [{', '.join(f'({to_prolog(c)})' for c in clauses)}])."
        for (name, arity), clauses in grouped.items()
    ]
    draw = "(aleph_random(X) :- ilpkit_random_draw(Y), X = Y)"
    lines.append(f"ilpkit_library(aleph_random/1, [{draw}]).")
    return "\n" + "\n".join(lines) + "\n"


def _var_names(term: Term) -> list[str]:
    """The names of ``term``'s variable occurrences, repeats included."""
    from ilpkit.prolog.terms import Struct, Var

    if type(term) is Var:
        return [term.name]
    if type(term) is Struct:
        return [n for a in term.args for n in _var_names(a)]
    return []


LIBRARY: Final = _library_facts()
"""Prolog text of ``ilpkit_library/2`` (in every engine's prelude)."""


_SWIPL_HOOKS: Final = r"""
:- use_module(library(time), []).

ilpkit_engine(swipl, Version) :-
    current_prolog_flag(version, N),
    Major is N // 10000, Minor is N // 100 mod 100, Patch is N mod 100,
    format(atom(Version), '~w.~w.~w', [Major, Minor, Patch]).

%SETUP%

ilpkit_open_source(File, Stream) :-
    open(File, read, Stream, [encoding(utf8)]).

ilpkit_call_time_limited(Goal, Secs) :-
    %MODULE%ilpkit_call_memory_limited(ilpkit_call_within(%GOAL%, Secs)).

ilpkit_call_within(Goal, none) :- !,
    once(Goal).
ilpkit_call_within(Goal, Secs) :-
    catch(time:call_with_time_limit(Secs, Goal),
          time_limit_exceeded,
          throw(ilpkit_limit(time(Secs)))).

% The memory bound: an alarm (library(time), as call_with_time_limit/2) looks at the
% process's resident memory every 50 ms of the query and throws ilpkit_limit(memory(MB))
% once it grew by more than MB since the query started.  It catches what SWI-Prolog's stack
% limit does not: atoms (atom_concat/3 loops) and big-integer temporaries, which live outside
% the stacks, and it needs no limit on the whole process (in process, the host's).  A runaway
% is stopped at the first check past the bound: by then a doubling atom or integer may have
% taken twice the bound.
ilpkit_set_memory_limit(MB) :-
    ilpkit_memory_key(Key),
    nb_setval(Key, MB).

% One bound per task module (several swi backends can share a process).
ilpkit_memory_key(Key) :-
    context_module(M),
    atom_concat(ilpkit_memory_limit_, M, Key).

% Cover requests are watched as a whole (ilpkit_call_batch/1 in the server): a clause's call
% inside one finds the watch running and adds none (setting one up costs about a tenth of a
% millisecond, as much as testing a short clause).
ilpkit_watch_batches.

ilpkit_call_memory_limited(Goal) :-
    catch(nb_getval(ilpkit_memory_alarm, Id), _, fail),
    Id \== none, !,
    once(Goal).
ilpkit_call_memory_limited(Goal) :-
    ilpkit_memory_key(Key),
    (   catch(nb_getval(Key, MB0), _, fail),
        number(MB0),
        ilpkit_rss(R0),
        R0 > 0
    ->  MB = MB0,
        Limit is R0 + MB * 1048576
    ;   MB = none,
        Limit = none
    ),
    (   ( Limit \== none ; ilpkit_polls_host )
    ->  context_module(M),
        catch(setup_call_cleanup(
                  ilpkit_memory_watch(M, Limit, MB),
                  ilpkit_integer_bound(MB, Goal),
                  ilpkit_memory_unwatch),
              ilpkit_limit(memory(MB)),
              ( garbage_collect, garbage_collect_atoms,
                throw(ilpkit_limit(memory(MB))) ))
    ;   once(Goal)
    ).

% The alarm runs between virtual-machine instructions, never inside one multiplication of
% big integers (seconds, and temporaries several times the operands': 3.2 GB against 1 GB).
% SWI-Prolog 9.2 refuses, before computing it, an integer result larger than the flag
% max_integer_size (bytes; a resource error, so a limit): a quarter of the memory bound.  The
% flag is the engine's (the host's, in process): set for each request and put back after.
% 9.0 lacks it (and would silently create it as a user flag): there the same bound goes to
% the global variable ilpkit_integer_bytes, which the data's arithmetic reads
% (ilpkit_bounded_is/2, ilpkit/plugins/backends/prolog/intguard.py).
ilpkit_integer_bound(MB, Goal) :-
    number(MB), !,
    Bytes is max(1048576, integer(MB * 262144)),
    current_prolog_flag(version, V),
    (   V >= 90200
    ->  (   current_prolog_flag(max_integer_size, Old)
        ->  true
        ;   Old = 0x7fffffffffffffff  % unset: no bound
        ),
        setup_call_cleanup(set_prolog_flag(max_integer_size, Bytes),
                           once(Goal),
                           set_prolog_flag(max_integer_size, Old))
    ;   (   nb_current(ilpkit_integer_bytes, Old)
        ->  true
        ;   Old = none
        ),
        setup_call_cleanup(nb_setval(ilpkit_integer_bytes, Bytes),
                           once(Goal),
                           nb_setval(ilpkit_integer_bytes, Old))
    ).
ilpkit_integer_bound(_, Goal) :-
    once(Goal).

ilpkit_memory_watch(M, Limit, MB) :-
    time:alarm(0.05, M:ilpkit_memory_tick(Limit, MB), Id, [remove(false)]),
    nb_setval(ilpkit_memory_alarm, Id).

ilpkit_memory_unwatch :-
    nb_getval(ilpkit_memory_alarm, Id),
    nb_setval(ilpkit_memory_alarm, none),
    catch(time:remove_alarm(Id), _, true).

ilpkit_memory_tick(Limit, MB) :-
    ilpkit_poll_host,
    (   Limit \== none,
        ilpkit_rss(R),
        R > Limit
    ->  throw(ilpkit_limit(memory(MB)))
    ;   nb_getval(ilpkit_memory_alarm, Id),
        Id \== none
    ->  time:uninstall_alarm(Id),
        time:install_alarm(Id, 0.05)
    ;   true
    ).

%POLL%

% Resident memory of this process in bytes (Linux /proc; 0 when unknown: no bound).
ilpkit_rss(Bytes) :-
    catch(( setup_call_cleanup(open('/proc/self/statm', read, S),
                               read_line_to_codes(S, Codes),
                               close(S)),
            split_string(Codes, " ", "", [_, Resident|_]),
            number_string(Pages, Resident) ),
          _, fail), !,
    Bytes is Pages * 4096.
ilpkit_rss(0).

ilpkit_call_step_limited(Goal, none) :- !,
    once(Goal).
ilpkit_call_step_limited(Goal, Steps) :-
    call_with_inference_limit(Goal, Steps, Result),
    (   Result == inference_limit_exceeded
    ->  throw(ilpkit_limit(steps(Steps)))
    ;   true
    ).

ilpkit_defined(Name, Arity) :-
    functor(Goal, Name, Arity),
    (   current_predicate(Name/Arity)
    ->  true
    ;   catch(predicate_property(Goal, defined), _, fail)
    ).

ilpkit_declare_dynamic(Name, Arity) :-
    dynamic(Name/Arity).

ilpkit_counter_set(V) :- nb_setval(ilpkit_counter, V).
ilpkit_counter_get(V) :- nb_getval(ilpkit_counter, V).

ilpkit_random_put(S) :- nb_setval(ilpkit_random, S).
ilpkit_random_get(S) :- catch(nb_getval(ilpkit_random, S), _, S = none).

ilpkit_format_atom(Format, Args, Atom) :-
    format(atom(Atom), Format, Args).

ilpkit_compat(_, _) :- fail.

% SWI-Prolog's limits are all in the server's ilpkit_limit_ball/1.
ilpkit_engine_limit_ball(_) :- fail.

% SWI-Prolog 9.0 (Debian 12's 9.0.4) aborts the whole process -- with pyswip, the Python host
% (exit 134) -- when upcase_atom/2 or string_upper/2 meets text it holds as Latin-1 with a
% character whose upper case is not Latin-1 (U+00B5 micro sign, U+00FF y with diaeresis):
% "pl-ctype.c: modify_case_atom: Assertion failed: c <= 0xff".  9.2 answers U+039C and
% U+0178, as the native engine does.  Such text gets a character beyond Latin-1 appended, so
% SWI-Prolog holds it as wide text, and loses it again after the conversion
% (ilpkit_upcase_atom/2 in the server).
ilpkit_upper_aborts(Text) :-
    current_prolog_flag(version, V),
    V < 90200,
    ( atom(Text) ; string(Text) ), !,
    ( char_code(C, 0xb5) ; char_code(C, 0xff) ),
    sub_atom(Text, _, _, _, C), !.

ilpkit_wide_upper(Pred, Text, Upper) :-
    char_code(W, 0x100),
    atom_concat(Text, W, Wide),
    (   Pred == upcase_atom
    ->  upcase_atom(Wide, Upper1),
        sub_atom(Upper1, 0, _, 1, Upper0)
    ;   string_upper(Wide, Upper1),
        sub_string(Upper1, 0, _, 1, Upper0)
    ),
    Upper = Upper0.
"""


def swipl_hooks(*, in_process: bool) -> str:
    """SWI-Prolog's engine hooks for ilpkit_server.pl: for an engine ilpkit owns (a
    subprocess: it sets flags and streams, goals run in ``user``), or for one inside a host
    (the swi backend: the host's flags are left alone, goals run in the task's module)."""
    if in_process:
        setup = "% The host's flags and streams are not ours to change.\nilpkit_setup."
        module, goal = "context_module(M),\n    ", "M:Goal"
        poll = _SWIPL_HOST_POLL.strip()
    else:
        setup = _SWIPL_OWN_SETUP.strip()
        module, goal = "", "user:Goal"
        poll = (
            "% A process of its own: signals end it.\nilpkit_polls_host :- fail.\nilpkit_poll_host."
        )
    text = _SWIPL_HOOKS.replace("%SETUP%", setup).replace("%MODULE%", module)
    text = text.replace("%POLL%", poll)
    return text.replace("%GOAL%", goal) + intguard.PROLOG + LIBRARY


_SWIPL_HOST_POLL: Final = r"""
% aleph_random/1's state is a global variable (ilpkit_random_put/1): library(sandbox), which
% proves untrusted data safe in a host, may let the data's calls write this one.
:- use_module(library(sandbox), []).
:- multifile sandbox:safe_global_variable/1.
sandbox:safe_global_variable(ilpkit_random).

% In a host process (janus, pyswip) every request is watched, memory limit or not: each tick
% lets the host run its pending signal handlers (user:'$ilpkit_host_poll', defined by the
% bridge; ilpkit/plugins/backends/prolog/swi_signals.py), and a handler that raised (Ctrl-C,
% SIGTERM) abandons the query: Python runs no handler while its main thread is in Prolog.
ilpkit_polls_host.

ilpkit_poll_host :-
    (   catch(user:'$ilpkit_host_poll', _, true)
    ->  true
    ;   throw(ilpkit_limit(interrupted))
    ).
"""

_SWIPL_OWN_SETUP: Final = r"""
ilpkit_setup :-
    set_prolog_flag(unknown, error),
    set_prolog_flag(double_quotes, string),
    % text the data parses (term_to_atom/2) must not call a quasi-quotation parser
    catch(set_prolog_flag(quasi_quotations, false), _, true),
    set_stream(user_input, encoding(utf8)),
    set_stream(user_output, encoding(utf8)),
    set_stream(user_error, encoding(utf8)).

% Coverage replies: the ids joined by atomic_list_concat/3 (ilpkit_reply_ids/1).
ilpkit_ids_at_once.
"""


# Definitions written for ilpkit from the built-ins' documented behaviour (SWI-Prolog's, which
# the native engine follows).
_GPROLOG_COMPAT: Final = r"""
ilpkit_compat(not/1, [(not(G) :- \+ G)]).
ilpkit_compat(ignore/1, [(ignore(G) :- (call(G) -> true ; true))]).
ilpkit_compat(sumlist/2, [(sumlist(L, S) :- sum_list(L, S))]).
ilpkit_compat(plus/3, [
    (plus(X, Y, Z) :- integer(X), integer(Y), !, Z is X + Y),
    (plus(X, Y, Z) :- integer(X), integer(Z), !, Y is Z - X),
    (plus(X, Y, Z) :- integer(Y), integer(Z), !, X is Z - Y),
    (plus(X, Y, Z) :- throw(error(instantiation_error, plus(X, Y, Z))))]).
ilpkit_compat(intersection/3, [
    (intersection([], _, []) :- !),
    (intersection([X|Xs], Ys, Zs) :-
        (memberchk(X, Ys) -> Zs = [X|Zs1] ; Zs = Zs1),
        intersection(Xs, Ys, Zs1))]).
ilpkit_compat(numlist/3, [
    (numlist(L, H, R) :- ilpkit_must_be_integer(L, numlist/3),
                         ilpkit_must_be_integer(H, numlist/3),
                         L =< H, ilpkit_numlist(L, H, R))]).
ilpkit_compat(term_to_atom/2, [
    (term_to_atom(T, A) :- atom(A), !, atom_concat(A, ' .', A1),
                           read_term_from_atom(A1, T0, []), T = T0),
    (term_to_atom(T, A) :- var(A), !, writeq_to_atom(A, T)),
    (term_to_atom(_, A) :- throw(error(type_error(atom, A), term_to_atom/2)))]).
ilpkit_compat(append/2, [
    (append(Ls, L) :- ilpkit_append_all(Ls, L))]).
ilpkit_compat(atom_number/2, [
    (atom_number(A, N) :- atom(A), !, atom_codes(A, Cs),
                          catch(number_codes(N0, Cs), _, fail), N = N0),
    (atom_number(A, N) :- var(A), number(N), !, number_codes(N, Cs), atom_codes(A, Cs)),
    (atom_number(A, _) :- var(A), !, throw(error(instantiation_error, atom_number/2))),
    (atom_number(A, _) :- throw(error(type_error(atom, A), atom_number/2)))]).
ilpkit_compat(atomic_list_concat/2, [
    (atomic_list_concat(L, A) :- ilpkit_concat_all(L, '', A))]).
ilpkit_compat(atomic_list_concat/3, [
    (atomic_list_concat(L, Sep, A) :- atom(Sep), Sep \== '', var(L), atom(A), !,
                                      ilpkit_split_atom(A, Sep, L)),
    (atomic_list_concat(L, Sep, A) :- ilpkit_concat_all(L, Sep, A))]).
ilpkit_compat(list_to_set/2, [
    (list_to_set(L, S) :- ilpkit_list_to_set(L, [], S))]).
ilpkit_compat(max_member/2, [
    (max_member(M, [H|T]) :- ilpkit_extreme(T, @>, H, M0), M = M0)]).
ilpkit_compat(min_member/2, [
    (min_member(M, [H|T]) :- ilpkit_extreme(T, @<, H, M0), M = M0)]).
ilpkit_compat(nextto/3, [
    (nextto(X, Y, [X, Y|_])),
    (nextto(X, Y, [_|T]) :- nextto(X, Y, T))]).
ilpkit_compat(pairs_keys_values/3, [
    (pairs_keys_values([], [], [])),
    (pairs_keys_values([K-V|Ps], [K|Ks], [V|Vs]) :- pairs_keys_values(Ps, Ks, Vs))]).
ilpkit_compat(pairs_keys/2, [
    (pairs_keys([], [])),
    (pairs_keys([K-_|Ps], [K|Ks]) :- pairs_keys(Ps, Ks))]).
ilpkit_compat(pairs_values/2, [
    (pairs_values([], [])),
    (pairs_values([_-V|Ps], [V|Vs]) :- pairs_values(Ps, Vs))]).
ilpkit_compat(proper_length/2, [
    (proper_length(L, N) :- list(L), length(L, N))]).
ilpkit_compat(select/4, [
    (select(X, [X|T], Y, [Y|T])),
    (select(X, [H|T], Y, [H|T2]) :- select(X, T, Y, T2))]).
ilpkit_compat(selectchk/3, [
    (selectchk(X, L, R) :- select(X, L, R), !)]).
ilpkit_compat(union/3, [
    (union([], L, L) :- !),
    (union([H|T], L, R) :- memberchk(H, L), !, union(T, L, R)),
    (union([H|T], L, [H|R]) :- union(T, L, R))]).
ilpkit_compat(include/3, [
    (include(_, [], [])),
    (include(P, [X|Xs], R) :- ( call(P, X) -> R = [X|R1] ; R = R1 ), include(P, Xs, R1))]).
ilpkit_compat(exclude/3, [
    (exclude(_, [], [])),
    (exclude(P, [X|Xs], R) :- ( call(P, X) -> R = R1 ; R = [X|R1] ), exclude(P, Xs, R1))]).
ilpkit_compat(partition/4, [
    (partition(_, [], [], [])),
    (partition(P, [X|Xs], I, E) :-
        ( call(P, X) -> I = [X|I1], E = E1 ; I = I1, E = [X|E1] ),
        partition(P, Xs, I1, E1))]).
ilpkit_compat(foldl/4, [
    (foldl(_, [], V, V)),
    (foldl(G, [X|Xs], V0, V) :- call(G, X, V0, V1), foldl(G, Xs, V1, V))]).
ilpkit_compat(foldl/5, [
    (foldl(_, [], [], V, V)),
    (foldl(G, [X|Xs], [Y|Ys], V0, V) :- call(G, X, Y, V0, V1), foldl(G, Xs, Ys, V1, V))]).
ilpkit_compat(foldl/6, [
    (foldl(_, [], [], [], V, V)),
    (foldl(G, [X|Xs], [Y|Ys], [Z|Zs], V0, V) :-
        call(G, X, Y, Z, V0, V1), foldl(G, Xs, Ys, Zs, V1, V))]).
ilpkit_compat((?=)/2, [
    (?=(A, B) :- ( A == B -> true ; \+ A = B ))]).
ilpkit_compat((^)/2, [
    (^(_, G) :- call(G))]).
ilpkit_compat((:)/2, [
    (:(_, G) :- call(G))]).
ilpkit_compat(string/1, [
    (string(_) :- fail)]).
ilpkit_compat(upcase_atom/2, [
    (upcase_atom(A, U) :- ilpkit_case_atom(A, upper, U))]).
ilpkit_compat(downcase_atom/2, [
    (downcase_atom(A, D) :- ilpkit_case_atom(A, lower, D))]).
ilpkit_compat(aggregate_all/3, [
    (aggregate_all(count, G, C) :- !, findall(x, G, L), length(L, C)),
    (aggregate_all(sum(E), G, S) :- !, findall(E, G, L), ilpkit_sum(L, 0, S)),
    (aggregate_all(max(E), G, M) :- !, findall(E, G, L), L = [H|T], ilpkit_fold_max(T, H, M)),
    (aggregate_all(min(E), G, M) :- !, findall(E, G, L), L = [H|T], ilpkit_fold_min(T, H, M)),
    (aggregate_all(bag(T), G, L) :- !, findall(T, G, L)),
    (aggregate_all(set(T), G, S) :- !, findall(T, G, L), sort(L, S)),
    (aggregate_all(Spec, _, _) :-
        throw(error(domain_error(aggregate_spec, Spec), aggregate_all/3)))]).

% Helpers of the definitions above (portable Prolog).
ilpkit_must_be_integer(X, _) :- integer(X), !.
ilpkit_must_be_integer(X, P) :- var(X), !, throw(error(instantiation_error, P)).
ilpkit_must_be_integer(X, P) :- throw(error(type_error(integer, X), P)).

ilpkit_numlist(H, H, [H]) :- !.
ilpkit_numlist(L, H, [L|T]) :- L1 is L + 1, ilpkit_numlist(L1, H, T).

ilpkit_append_all([], []).
ilpkit_append_all([L|Ls], As) :- append(L, Ws, As), ilpkit_append_all(Ls, Ws).

ilpkit_concat_all(L, Sep, A) :-
    ilpkit_atomic_codes(L, Sep, Cs), atom_codes(A0, Cs), A = A0.

ilpkit_atomic_codes([], _, []).
ilpkit_atomic_codes([X|Xs], Sep, Cs) :-
    ilpkit_text_codes(X, C1),
    (   Xs == []
    ->  Cs = C1
    ;   ilpkit_text_codes(Sep, S), ilpkit_atomic_codes(Xs, Sep, C2),
        append(S, C2, C3), append(C1, C3, Cs)
    ).

ilpkit_text_codes(X, _) :- var(X), !, throw(error(instantiation_error, atomic_list_concat/3)).
ilpkit_text_codes(X, Cs) :- atom(X), !, atom_codes(X, Cs).
ilpkit_text_codes(X, Cs) :- number(X), !, number_codes(X, Cs).
ilpkit_text_codes(X, _) :- throw(error(type_error(atomic, X), atomic_list_concat/3)).

ilpkit_split_atom(A, Sep, L) :-
    atom_codes(A, Cs), atom_codes(Sep, Ss), ilpkit_split_codes(Cs, Ss, L).

ilpkit_split_codes(Cs, Ss, [W|Ws]) :-
    (   append(Before, Rest, Cs), append(Ss, After, Rest)
    ->  atom_codes(W, Before), ilpkit_split_codes(After, Ss, Ws)
    ;   atom_codes(W, Cs), Ws = []
    ).

ilpkit_list_to_set([], _, []).
ilpkit_list_to_set([X|Xs], Seen, S) :-
    (   ilpkit_memberchk_eq(X, Seen)
    ->  S = S1
    ;   S = [X|S1]
    ),
    ilpkit_list_to_set(Xs, [X|Seen], S1).

ilpkit_memberchk_eq(X, [Y|Ys]) :- ( X == Y -> true ; ilpkit_memberchk_eq(X, Ys) ).

ilpkit_extreme([], _, M, M).
ilpkit_extreme([X|Xs], Op, M0, M) :-
    Test =.. [Op, X, M0],
    (   call(Test) -> ilpkit_extreme(Xs, Op, X, M) ; ilpkit_extreme(Xs, Op, M0, M) ).

ilpkit_sum([], S, S).
ilpkit_sum([X|Xs], S0, S) :- S1 is S0 + X, ilpkit_sum(Xs, S1, S).

ilpkit_fold_max([], M, M).
ilpkit_fold_max([X|Xs], M0, M) :- M1 is max(M0, X), ilpkit_fold_max(Xs, M1, M).

ilpkit_fold_min([], M, M).
ilpkit_fold_min([X|Xs], M0, M) :- M1 is min(M0, X), ilpkit_fold_min(Xs, M1, M).

% ASCII and Latin-1 letters (the characters GNU Prolog holds, see max_char_code).
ilpkit_case_atom(A, _, _) :- var(A), !, throw(error(instantiation_error, upcase_atom/2)).
ilpkit_case_atom(A, Case, B) :-
    ilpkit_text_codes(A, Cs), ilpkit_case_codes(Cs, Case, Ds), atom_codes(B0, Ds), B = B0.

ilpkit_case_codes([], _, []).
ilpkit_case_codes([C|Cs], Case, [D|Ds]) :-
    ilpkit_case_code(Case, C, D), ilpkit_case_codes(Cs, Case, Ds).

ilpkit_case_code(upper, C, D) :-
    (   ( C >= 0'a, C =< 0'z ; C >= 224, C =< 254, C =\= 247 ) -> D is C - 32 ; D = C ).
ilpkit_case_code(lower, C, D) :-
    (   ( C >= 0'A, C =< 0'Z ; C >= 192, C =< 222, C =\= 215 ) -> D is C + 32 ; D = C ).
"""

_GPROLOG_PRELUDE: Final = (
    r"""
ilpkit_engine(gprolog, Version) :-
    current_prolog_flag(prolog_version, Version).

ilpkit_setup :-
    set_prolog_flag(unknown, error),
    set_prolog_flag(double_quotes, codes).

ilpkit_open_source(File, Stream) :-
    open(File, read, Stream).

% No limits inside GNU Prolog: the backend enforces the time limit from outside.
ilpkit_call_time_limited(Goal, _) :-
    call(Goal), !.

ilpkit_call_step_limited(Goal, _) :-
    call(Goal), !.

ilpkit_defined(Name, Arity) :-
    current_predicate(Name/Arity), !.
ilpkit_defined(Name, Arity) :-
    functor(Goal, Name, Arity),
    catch(predicate_property(Goal, _), _, fail), !.
ilpkit_defined(Name, Arity) :-
    ilpkit_control(Name, Arity).

ilpkit_control(',', 2).
ilpkit_control(';', 2).
ilpkit_control('->', 2).
ilpkit_control(!, 0).
ilpkit_control(call, _).

ilpkit_declare_dynamic(Name, Arity) :-
    functor(Head, Name, Arity),
    assertz(Head),
    retract(Head).

% No memory watch inside GNU Prolog: its stacks and atom table have fixed sizes, and the
% backend bounds the process's address space.
ilpkit_set_memory_limit(_).

% No timer inside GNU Prolog (the backend kills the engine).
ilpkit_engine_limit_ball(_) :- fail.

ilpkit_counter_set(V) :- g_assign(ilpkit_counter, V).
ilpkit_counter_get(V) :- g_read(ilpkit_counter, V).

ilpkit_random_put(S) :- g_assign(ilpkit_random, S).
ilpkit_random_get(S) :- g_read(ilpkit_random, S).

ilpkit_format_atom(Format, Args, Atom) :-
    format_to_atom(Atom, Format, Args).
"""
    + _GPROLOG_COMPAT
    + EVALUATOR
    + LIBRARY
)


def _yap_library_compat() -> str:
    """``ilpkit_compat/2`` for the allow-listed predicates YAP has in ``library(lists)`` only.

    The library is loaded without importing anything into ``user``: YAP adds a program's
    ``append/3`` clauses to an imported ``append/3`` instead of defining the program's own.
    After the load, each name the program does not define becomes a wrapper calling the
    library (goal arguments qualified with ``user``, where the program lives).
    """
    plain = (
        "append/2 append/3 delete/3 flatten/2 intersection/3 last/2 list_to_set/2 max_list/2 "
        "memberchk/2 min_list/2 nextto/3 nth0/3 nth1/3 numlist/3 permutation/2 reverse/2 "
        "select/3 selectchk/3 subtract/3 sum_list/2 sumlist/2"
    )
    meta = "exclude/3 include/3 partition/4 maplist/2 maplist/3 maplist/4 maplist/5 maplist/6 "
    meta += "foldl/4 foldl/5 foldl/6"
    lines = []
    for names, is_meta in ((plain, False), (meta, True)):
        for pi in names.split():
            name, arity = pi.split("/")
            args = [f"A{i}" for i in range(1, int(arity) + 1)]
            call = ["user:A1", *args[1:]] if is_meta else args
            lines.append(
                f"ilpkit_compat({pi}, [({name}({', '.join(args)}) :- "
                f"lists:{name}({', '.join(call)}))])."
            )
    return "\n".join(lines) + "\n"


_YAP_PRELUDE: Final = (
    r"""
:- use_module(library(timeout)).
:- use_module(library(lists), []).

ilpkit_engine(yap, Version) :-
    (   catch(current_prolog_flag(version_data, yap(Major, Minor, Patch, _)), _, fail)
    ->  format(atom(Version), '~w.~w.~w', [Major, Minor, Patch])
    ;   catch(current_prolog_flag(version, V), _, V = unknown),
        format(atom(Version), '~w', [V])
    ).

ilpkit_setup :-
    set_prolog_flag(unknown, error),
    set_prolog_flag(double_quotes, codes),
    set_prolog_flag(float_format, '%.17g').

ilpkit_open_source(File, Stream) :-
    open(File, read, Stream).

ilpkit_call_time_limited(Goal, none) :- !,
    once(Goal).
% YAP 8.0.2's time_out/3 arms alarm/4 and leaves the expiry to the default sig_alarm handler
% (pl/signals.yap), which throws the atom timeout through the goal; time_out/3 does not catch
% it, so Result is never time_out there (its documentation says otherwise; both are handled).
ilpkit_call_time_limited(Goal, Secs) :-
    Ms is max(1, integer(Secs * 1000)),
    catch(time_out(Goal, Ms, Result), timeout, Result = time_out),
    (   Result == time_out
    ->  throw(ilpkit_limit(time(Secs)))
    ;   true
    ).

% The timer's ball is a limit: a catch/3 of the data (p(X) :- catch(spin, _, p(X))) would
% otherwise catch it and run on, with no timer left.
ilpkit_engine_limit_ball(timeout).

ilpkit_call_step_limited(Goal, _) :-
    call(Goal), !.

% No memory watch inside YAP (not measured).
ilpkit_set_memory_limit(_).

% A clause that calls an undefined predicate leaves YAP 8.0.2 a placeholder for it (static,
% no clauses) that current_predicate/1 reports: memberchk/2 called by mutagenesis' ring6/4
% looked defined, so its library wrapper was never added.  Defined means clauses, dynamic,
% built in or imported.
ilpkit_defined(Name, Arity) :-
    functor(Goal, Name, Arity),
    (   catch(predicate_property(Goal, dynamic), _, fail)
    ;   catch(predicate_property(Goal, built_in), _, fail)
    ;   catch(predicate_property(Goal, imported_from(_)), _, fail)
    ;   catch(predicate_property(Goal, number_of_clauses(N)), _, fail), N > 0
    ), !.

ilpkit_declare_dynamic(Name, Arity) :-
    dynamic(Name/Arity).

ilpkit_counter_set(V) :- nb_setval(ilpkit_counter, V).
ilpkit_counter_get(V) :- nb_getval(ilpkit_counter, V).

ilpkit_random_put(S) :- nb_setval(ilpkit_random, S).
ilpkit_random_get(S) :- catch(nb_getval(ilpkit_random, S), _, S = none).

ilpkit_format_atom(Format, Args, Atom) :-
    format(atom(Atom), Format, Args).

% Prolog-defined built-ins (member/2, length/2, ...) take a program's clauses as extra
% clauses of their own: the server treats them as built-ins the program cannot redefine.
ilpkit_engine_predicate(Name, Arity) :-
    functor(Goal, Name, Arity),
    predicate_property(Goal, built_in).

% Every clause asserted and retracted keeps about 165 KB: coverage meta-calls bodies.
ilpkit_meta_call_bodies.
"""
    + _yap_library_compat()
    + LIBRARY
)

_GPROLOG_LACKS: Final = (
    "atom_string/2 number_string/2 split_string/4 string_chars/2 string_code/3 string_codes/2 "
    "string_concat/3 string_length/2 string_lower/2 string_to_atom/2 string_upper/2 "
    "sub_string/5 term_string/2 blob/2 sort/4 predsort/3"
)
"""Allow-listed built-ins GNU Prolog 1.4.5 lacks and ``_GPROLOG_COMPAT`` does not define."""

PROFILES: Final[dict[str, EngineProfile]] = {
    "swipl": EngineProfile(
        name="swipl",
        executable="swipl",
        server_args=("-q", "-f", "none", "-g", "{goal}", "-t", "halt(1)", "{server}"),
        prelude=swipl_hooks(in_process=False),
        time_limit=True,
        step_limit=True,
        strings=True,
        answer_double_quotes="string",
        address_space_limit=True,
        integer_guard=True,
    ),
    "gprolog": EngineProfile(
        name="gprolog",
        executable="gprolog",
        server_args=("--consult-file", "{server}", "--query-goal", "{goal}"),
        prelude=_GPROLOG_PRELUDE,
        time_limit=False,
        step_limit=False,
        strings=False,
        answer_double_quotes="codes",
        max_char_code=0xFF,
        lacks=frozenset(
            (name, int(arity))
            for name, _, arity in (pi.rpartition("/") for pi in _GPROLOG_LACKS.split())
        ),
        lacks_why="GNU Prolog has no strings, and ilpkit defines no replacement for it",
        bounded_between=True,
        address_space_limit=True,
        swi_arithmetic=False,
        atom_table_env="MAX_ATOM",
        atoms_descending=True,
    ),
    "yap": EngineProfile(
        name="yap",
        executable="yap",
        server_args=("-q", "-l", "{server}", "-g", "{goal}"),
        prelude=_YAP_PRELUDE,
        time_limit=True,
        step_limit=False,
        strings=False,
        answer_double_quotes="codes",
        restart_rss_mb=1024,
    ),
}


_NON_ASCII: Final = re.compile(r"[^\x00-\x7f]")


def ascii_text(text: str) -> str:
    """``text`` with every non-ASCII character written as the ISO escape ``\\xHH\\``.

    Sound for ilpkit's Prolog text only: :func:`~ilpkit.prolog.terms.to_prolog` quotes every
    atom holding a non-ASCII character, and strings are quoted, so such characters occur
    only between quotes, where the escape means the same character."""
    if text.isascii():
        return text
    return _NON_ASCII.sub(lambda m: f"\\x{ord(m.group(0)):x}\\", text)


def beyond(text: str, limit: int) -> tuple[int, str] | None:
    """The first character of ``text`` above code ``limit``, with its index; None if none."""
    if text.isascii():
        return None
    for i, c in enumerate(text):
        if ord(c) > limit:
            return i, c
    return None


def server_source(engine: str) -> str:
    """The support file followed by the engine's prelude: one file every engine loads."""
    from importlib.resources import files

    server = files("ilpkit.plugins.backends.prolog").joinpath("ilpkit_server.pl").read_text("utf-8")
    return server + "\n% ---- prelude for " + engine + " ----\n" + PROFILES[engine].prelude
