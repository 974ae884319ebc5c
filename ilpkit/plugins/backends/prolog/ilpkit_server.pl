/*  ilpkit_server.pl -- ilpkit's support code for Prolog engines (SWI-Prolog, GNU Prolog, YAP).

    One portable (ISO) file shared by every Prolog backend.  Each engine also loads a small
    prelude (ilpkit/plugins/backends/prolog/profiles.py) that defines the engine-specific hooks:

        ilpkit_engine(-Name, -Version)        the engine and its version, as atoms
        ilpkit_setup                          flags and stream encodings
        ilpkit_open_source(+File, -Stream)    open a program file (UTF-8)
        ilpkit_call_time_limited(:G, +Secs)   call G once; throw ilpkit_limit(time(Secs))
        ilpkit_call_step_limited(:G, +Steps)  call G once; throw ilpkit_limit(steps(Steps))
        ilpkit_set_memory_limit(+MB)          bound the memory one query may take (none:
                                              no bound), where the engine can; the query
                                              then throws ilpkit_limit(memory(MB))
        ilpkit_defined(+Name, +Arity)         callable: defined, built-in or library
        ilpkit_declare_dynamic(+Name, +Arity) make an undefined predicate fail when called
        ilpkit_counter_set(+V), ilpkit_counter_get(-V)   one non-backtrackable global
        ilpkit_format_atom(+Format, +Args, -Atom)        format/2 into an atom
        ilpkit_compat(-Name/Arity, -Clauses)  definitions the native engine has and this
                                              engine lacks (added when still undefined)
        ilpkit_library(-Name/Arity, -Clauses) ilpkit's own library, the same for every
                                              engine: Aleph's utilities aleph_random/1, ...
                                              (added when still undefined)
        ilpkit_random_get(-S), ilpkit_random_put(+S)     one more non-backtrackable
                                              global (aleph_random/1's state; none: unset)
        ilpkit_engine_limit_ball(+Ball)       Ball is the engine's own limit (its timer's),
                                              which the data's catch/3 must not catch

    and optionally ilpkit_upper_aborts(+Text) with ilpkit_wide_upper(+Pred, +Text, -Upper):
    upcase_atom/2 or string_upper/2 would abort the engine on Text, convert it another way;
    and optionally ilpkit_engine_predicate(+Name, +Arity): the engine has its own Name/Arity,
    to which it would add a program's clauses (YAP's Prolog-defined built-ins); and
    ilpkit_meta_call_bodies: coverage meta-calls clause bodies instead of asserting them.

    Security: a term the data can build (a thrown ball, a directive's error) is never given
    to a formatter as a format, to the engine's message translation, or to print/portray:
    SWI-Prolog translates format(F, A) found in an error into format(F, A), where '~@' calls
    a goal.  Errors become text through ilpkit_message/2 below, which writes every part of
    the term with ~q (writeq, which calls nothing), and every handler is itself guarded.

    Core predicates (callable directly by an in-process backend):

        ilpkit_load(+File, -Problems)         read a program written by ilpkit's exporter and
                                              assert it; Problems lists what went wrong
        ilpkit_prepare                        declare undefined mode predicates dynamic, add
                                              the compatibility definitions
        ilpkit_coverage(+Head, +Body, +Among, +Steps, -Ids)
        ilpkit_answers(+Goal, +Max, +Steps, -Answers)
        ilpkit_catch(:Goal, ?Catcher, :Recovery)   the data's catch/3: never catches a limit
        ilpkit_is_limit(+Ball)                a ball that stops a query for a limit

    and the read loop ilpkit_serve/0 used by the subprocess backend: one request term per
    read_term/3 on user_input, each answered by one or more lines on user_output, every
    line a term written with write_canonical/1 (coverage ids are written directly).
*/

% --------------------------------------------------------------------------------------------
% Loading a program written by ilpkit (never a raw data file)
% --------------------------------------------------------------------------------------------

% Problems: a list of problem(Index, Kind, Text); Index is the 1-based number of the term in
% the file, Kind is error (the program is unusable), clash (a built-in the engine does not let
% a program redefine, listed as '$ilpkit_builtin_ok'/2; the engine's definition is kept) or
% directive (a trusted directive failed or raised).
ilpkit_load(File, Problems) :-
    ilpkit_open_source(File, Stream),
    catch(ilpkit_load_terms(Stream, 1, Problems), E, (close(Stream), throw(E))),
    close(Stream).

ilpkit_load_terms(Stream, N, Problems) :-
    catch(ilpkit_read(Stream, Term), E, true),
    (   nonvar(E)
    ->  ilpkit_message(E, Text),
        Problems = [problem(N, error, Text)|Rest],
        N1 is N + 1,
        ilpkit_load_terms(Stream, N1, Rest)
    ;   Term == end_of_file
    ->  Problems = []
    ;   ilpkit_load_term(Term, N, Problems, Rest),
        N1 is N + 1,
        ilpkit_load_terms(Stream, N1, Rest)
    ).

% read_term/3 followed by a call of a user predicate.  YAP 8.0.2 grows its atom table when a
% new atom passes a threshold (about 3,190 atoms, then x3) and does it at the next call of a
% predicate; when that call is inside catch/3's own code (read_term/3 as the goal of catch/3,
% or the last goal of a predicate called by catch/3), read_term/3 fails, and the term it read
% is lost.  Measured: the load of mutagenesis' 15,000 terms failed at term 2,537.
ilpkit_read(Stream, Term) :-
    read_term(Stream, Term, []),
    ilpkit_read_done.

ilpkit_read_done.

ilpkit_load_term((:- Directive), N, Problems, Rest) :- !,
    (   catch(Directive, E, true)
    ->  (   var(E)
        ->  Problems = Rest
        ;   ilpkit_message(E, Text),
            Problems = [problem(N, directive, Text)|Rest]
        )
    ;   Problems = [problem(N, directive, 'the directive failed')|Rest]
    ).
% '$ilpkit_not_builtin'(Name, Arity): a mode predicate the program does not provide; the
% engine must not have a predicate of that name, or the clauses ilpkit builds would call it.
ilpkit_load_term('$ilpkit_not_builtin'(Name, Arity), N, Problems, Rest) :- !,
    (   ilpkit_defined(Name, Arity)
    ->  ilpkit_format_atom('~q/~w is named in a mode declaration and defined by this ~w~w',
                           [Name, Arity, 'engine, not by the program: the clauses ilpkit ',
                            'builds would run the engine''s predicate'], Text),
        Problems = [problem(N, error, Text)|Rest]
    ;   Problems = Rest
    ).
% A built-in the engine does not let a program redefine (it raises a permission error, or,
% with the optional hook ilpkit_engine_predicate(Name, Arity), would add the program's clauses
% to its own): the engine's definition stays and answers the program's calls.  Fatal unless
% the exporter listed the predicate as '$ilpkit_builtin_ok'(Name, Arity) (side-effect free,
% or the data is trusted).
ilpkit_load_term(Term, N, Problems, Rest) :-
    (   Term = (Head :- _) -> true ; Head = Term ),
    functor(Head, Name, Arity),
    (   ilpkit_engine_owns(Name, Arity)
    ->  ilpkit_format_atom('~q/~w is a predicate of this engine', [Name, Arity], Text0),
        ilpkit_clash(Name, Arity, N, Text0, Problems, Rest)
    ;   catch(assertz(Term), E, true),
        (   var(E)
        ->  Problems = Rest
        ;   E = error(permission_error(modify, _, _), _)
        ->  ilpkit_message(E, Text0),
            ilpkit_clash(Name, Arity, N, Text0, Problems, Rest)
        ;   ilpkit_message(E, Text),
            Problems = [problem(N, error, Text)|Rest]
        )
    ).

ilpkit_clash(Name, Arity, N, Text0, Problems, Rest) :-
    (   catch('$ilpkit_builtin_ok'(Name, Arity), _, fail)
    ->  Problems = [problem(N, clash, Text0)|Rest]
    ;   ilpkit_format_atom('~w (~q/~w is a built-in of this engine, which would ~w)',
                           [Text0, Name, Arity,
                            'answer the program''s calls instead of its definition'], Text),
        Problems = [problem(N, error, Text)|Rest]
    ).

% The exporter writes a predicate's clauses together: ask the hook once per predicate.
ilpkit_engine_owns(Name, Arity) :-
    (   catch('$ilpkit_owner'(Name0, Arity0, Owner0), _, fail),
        Name0 == Name,
        Arity0 == Arity
    ->  Owner = Owner0
    ;   (   catch(ilpkit_engine_predicate(Name, Arity), _, fail)
        ->  Owner = engine
        ;   Owner = program
        ),
        retractall('$ilpkit_owner'(_, _, _)),
        assertz('$ilpkit_owner'(Name, Arity, Owner))
    ),
    Owner == engine.

% Mode predicates that nothing defines fail instead of raising an existence error, as the
% native backend treats them; the exporter lists them as '$ilpkit_mode_predicate'/2 facts and
% the program's own dynamic declarations as '$ilpkit_dynamic'/2.
ilpkit_prepare :-
    ilpkit_declare_undefined('$ilpkit_example'(_, _)),
    ilpkit_declare_all('$ilpkit_dynamic'(_, _)),
    ilpkit_declare_all('$ilpkit_mode_predicate'(_, _)),
    ilpkit_add_compat.

ilpkit_declare_all(Fact) :-
    (   catch(Fact, _, fail),
        arg(1, Fact, Name),
        arg(2, Fact, Arity),
        functor(Goal, Name, Arity),
        ilpkit_declare_undefined(Goal),
        fail
    ;   true
    ).

ilpkit_declare_undefined(Goal) :-
    functor(Goal, Name, Arity),
    (   ilpkit_defined(Name, Arity)
    ->  true
    ;   ilpkit_declare_dynamic(Name, Arity)
    ).

ilpkit_add_compat :-
    (   (   ilpkit_compat(Name/Arity, Clauses)
        ;   ilpkit_library(Name/Arity, Clauses)
        ),
        \+ ilpkit_defined(Name, Arity),
        ilpkit_member(Clause, Clauses),
        assertz(Clause),
        fail
    ;   true
    ).

% --------------------------------------------------------------------------------------------
% Coverage and answers
% --------------------------------------------------------------------------------------------

% ilpkit_coverage(+Head, +Body, +Among, +Steps, -Ids): the ids of the examples E (in id order)
% for which \+ \+ (Head = E, Body) holds.  Among is all or a list of Lo-Hi id intervals in
% increasing order; Steps is none or the inference limit of one example's proof.  The body is
% asserted once as a clause of '$ilpkit_body'/1 (over the head's variables), so it is compiled
% once rather than meta-called per example (25% faster in SWI-Prolog); a cut in it stays local,
% as in call/1.
% With the optional hook ilpkit_meta_call_bodies the body is meta-called instead (YAP 8.0.2
% keeps about 165 KB of every clause asserted and retracted: 20 GB in one UW-CSE learn run).
ilpkit_coverage(Head, Body, Among, Steps, Ids) :-
    catch(ilpkit_meta_call_bodies, _, fail), !,
    findall(Id, ilpkit_covered(Head, Body, Among, Steps, Id), Ids).
ilpkit_coverage(Head, Body, Among, Steps, Ids) :-
    term_variables(Head, Vars),
    Shared =.. [v|Vars],
    retractall('$ilpkit_body'(_)),
    assertz(('$ilpkit_body'(Shared) :- Body)),
    findall(Id, ilpkit_covered(Head, '$ilpkit_body'(Shared), Among, Steps, Id), Ids),
    retractall('$ilpkit_body'(_)).

% \+ \+ outside the step-limited call: the limited goal is then the asserted clause's head,
% which SWI-Prolog calls directly, while a control construct such as \+ would be compiled
% into a temporary clause at every example (measured: a third of the coverage time on
% UW-CSE).  The first solution ends the proof either way, so the answers are the same.
% Each example's test is a query of its own: aleph_random/1's stream restarts there.
ilpkit_covered(Head, Goal, all, Steps, Id) :- !,
    '$ilpkit_example'(Id, Head),
    ilpkit_random_reset,
    \+ \+ ilpkit_call_step_limited(Goal, Steps).
ilpkit_covered(Head, Goal, Intervals, Steps, Id) :-
    ilpkit_member(Lo-Hi, Intervals),
    between(Lo, Hi, Id),
    '$ilpkit_example'(Id, Head),
    ilpkit_random_reset,
    \+ \+ ilpkit_call_step_limited(Goal, Steps).

% ilpkit_among(+Request, -Among): the examples of a cover request.  keep(Among) also stores
% Among and last stands for the Among stored last, so the refinements of one search node,
% asked about the same examples (their parent's cover), send that set once.
ilpkit_among(keep(Among), Among) :- !,
    retractall('$ilpkit_among'(_)),
    assertz('$ilpkit_among'(Among)).
ilpkit_among(last, Among) :- !,
    (   catch('$ilpkit_among'(Among0), _, fail)
    ->  Among = Among0
    ;   throw(error(existence_error(ilpkit_among, last), ilpkit_among/2))
    ).
ilpkit_among(Among, Among).

% ilpkit_call_batch(:Goal): Goal (a whole cover request) under the engine's memory bound
% when the engine watches memory per request (the optional hook ilpkit_watch_batches and
% ilpkit_call_memory_limited/1, SWI-Prolog), so the bound is set up once per request rather
% than once per clause; the per-clause calls inside then find the watch running.
ilpkit_call_batch(Goal) :-
    (   catch(ilpkit_watch_batches, _, fail)
    ->  call(ilpkit_call_memory_limited(Goal))
    ;   call(Goal)
    ).

% ilpkit_answers(+Goal, +Max, +Steps, -Answers): Goal instantiated by each of its first Max
% solutions (all when Max is inf), in the engine's order, duplicates kept.
ilpkit_answers(Goal, Max, Steps, Answers) :-
    ilpkit_random_reset,
    ilpkit_call_step_limited(ilpkit_first(Goal, Max, Answers), Steps).

ilpkit_first(_, Max, Answers) :-
    integer(Max), Max =< 0, !,
    Answers = [].
ilpkit_first(Goal, inf, Answers) :- !,
    findall(Goal, Goal, Answers).
ilpkit_first(Goal, Max, Answers) :-
    findall(Goal, ilpkit_limit(Max, Goal), Answers).

ilpkit_limit(Max, Goal) :-
    ilpkit_counter_set(0),
    call(Goal),
    ilpkit_counter_get(C0),
    C is C0 + 1,
    ilpkit_counter_set(C),
    (   C >= Max
    ->  !
    ;   true
    ).

ilpkit_member(X, [X|_]).
ilpkit_member(X, [_|T]) :- ilpkit_member(X, T).

% --------------------------------------------------------------------------------------------
% aleph_random/1's stream (ilpkit/core/aleph_library.py, which computes the same numbers)
% --------------------------------------------------------------------------------------------

% Every query starts the stream afresh from the run's seed: the exporter writes the first
% state as '$ilpkit_random_seed'(S1, S2, S3).
ilpkit_random_reset :-
    ilpkit_random_put(none).

% ilpkit_random_draw(-X): the next draw of Wichmann and Hill's generator (AS 183), a float
% in [0, 1); the state is not restored on backtracking.
ilpkit_random_draw(X) :-
    ilpkit_random_get(S),
    (   S = s(A0, B0, C0)
    ->  true
    ;   catch('$ilpkit_random_seed'(A0, B0, C0), _, fail)
    ->  true
    ;   A0 = 1, B0 = 1, C0 = 1
    ),
    A is 171 * A0 mod 30269,
    B is 172 * B0 mod 30307,
    C is 170 * C0 mod 30323,
    ilpkit_random_put(s(A, B, C)),
    Y is A / 30269.0 + B / 30307.0 + C / 30323.0,
    X is Y - floor(Y).

% --------------------------------------------------------------------------------------------
% The data's catch/3 (issue 28)
% --------------------------------------------------------------------------------------------

% ilpkit_catch(:Goal, ?Catcher, :Recovery): the exporter writes every catch/3 of the program
% as this (ilpkit/plugins/backends/prolog/guarded.py).  catch/3, except that a limit is thrown again
% before the catcher is tried: a catch-all in the data (p(X) :- catch(spin, _, p(X))) would
% otherwise catch the engine's inference or time limit, or ilpkit's memory limit, and run on
% past every limit.  Otherwise ISO: a copy of the ball is unified with Catcher once Goal's
% bindings are undone, no match passes the ball on, a cut in Goal or Recovery is local.
ilpkit_catch(Goal, Catcher, Recovery) :-
    catch(Goal, Ball, ilpkit_recover(Ball, Catcher, Recovery)).

ilpkit_recover(Ball, Catcher, Recovery) :-
    (   ilpkit_is_limit(Ball)
    ->  throw(Ball)
    ;   Ball = Catcher
    ->  call(Recovery)
    ;   throw(Ball)
    ).

% ilpkit_is_limit(+Ball): Ball stops a query for a limit (never caught by the data): ilpkit's
% own, a resource error (a full stack; the native engine's integer bound), SWI-Prolog's
% inference and time limits and its abort ('$aborted', from 9.3 unwind(_)).  The same set as
% LIMIT_BALLS in guarded.py and the native engine's catch/3; and the engine's own timer ball
% (the hook ilpkit_engine_limit_ball/1: YAP's timeout).
ilpkit_is_limit(Ball) :-
    nonvar(Ball),
    ilpkit_limit_ball(Ball), !.
ilpkit_is_limit(Ball) :-
    nonvar(Ball),
    ilpkit_engine_limit_ball(Ball), !.

ilpkit_limit_ball(ilpkit_limit(_)).
ilpkit_limit_ball(error(Formal, _)) :-
    nonvar(Formal),
    Formal = resource_error(_).
ilpkit_limit_ball(inference_limit_exceeded).
ilpkit_limit_ball(time_limit_exceeded).
ilpkit_limit_ball(time_limit_exceeded(_)).
ilpkit_limit_ball('$aborted').
ilpkit_limit_ball(unwind(_)).

% ilpkit_upcase_atom/2, ilpkit_string_upper/2: the data's upcase_atom/2 and string_upper/2
% (guarded.py).  The engine's own, except where the optional hook ilpkit_upper_aborts(Text)
% says the engine would abort on Text (SWI-Prolog 9.0 on Latin-1 text holding a character
% whose upper case is not Latin-1): then its ilpkit_wide_upper/3 converts it.
ilpkit_upcase_atom(Text, Upper) :-
    (   catch(ilpkit_upper_aborts(Text), _, fail)
    ->  ilpkit_wide_upper(upcase_atom, Text, Upper)
    ;   upcase_atom(Text, Upper)
    ).

ilpkit_string_upper(Text, Upper) :-
    (   catch(ilpkit_upper_aborts(Text), _, fail)
    ->  ilpkit_wide_upper(string_upper, Text, Upper)
    ;   string_upper(Text, Upper)
    ).

% --------------------------------------------------------------------------------------------
% Error texts (the same on every engine)
% --------------------------------------------------------------------------------------------

% ilpkit_message(+Error, -Text): one line of text for an error term, never failing or
% raising.  Error may hold anything the data built, so its parts are only ever written with
% ~q: the formats below are ilpkit's own constants.  (SWI-Prolog's translate_message//1
% would run format(F, A) for an error holding format(F, A), and '~@' in F calls a goal.)
ilpkit_message(E, Text) :-
    catch(ilpkit_message_text(E, Text0), _, fail), !,
    Text = Text0.
ilpkit_message(_, 'an error term that ilpkit cannot write').

ilpkit_message_text(E, Text) :-
    var(E), !,
    Text = 'an unbound exception'.
ilpkit_message_text(error(Formal, Context), Text) :- !,
    ilpkit_formal_text(Formal, Text0),
    ilpkit_context_text(Context, Text1),
    atom_concat(Text0, Text1, Text).
ilpkit_message_text(inference_limit_exceeded, Text) :- !,
    Text = 'inference limit exceeded'.
ilpkit_message_text(time_limit_exceeded, Text) :- !,
    Text = 'time limit exceeded'.
ilpkit_message_text(E, Text) :-
    ilpkit_format_atom('Unknown exception: ~q', [E], Text).

ilpkit_formal_text(F, Text) :-
    var(F), !,
    Text = 'Unknown error term: _'.
ilpkit_formal_text(instantiation_error, Text) :- !,
    Text = 'Arguments are not sufficiently instantiated'.
ilpkit_formal_text(F, Text) :-
    ilpkit_formal_format(F, Format, Args), !,
    ilpkit_format_atom(Format, Args, Text).
ilpkit_formal_text(F, Text) :-
    ilpkit_format_atom('Unknown error term: ~q', [F], Text).

ilpkit_formal_format(uninstantiation_error(C), 'Cannot unify ~q with a variable', [C]).
ilpkit_formal_format(type_error(T, C), 'Type error: ~q expected, found ~q', [T, C]).
ilpkit_formal_format(domain_error(D, C), 'Domain error: ~q expected, found ~q', [D, C]).
ilpkit_formal_format(existence_error(procedure, PI), 'Unknown procedure: ~q', [PI]) :- !.
ilpkit_formal_format(existence_error(K, C), 'Unknown ~q: ~q', [K, C]).
ilpkit_formal_format(existence_error(K, C, In), 'Unknown ~q: ~q in ~q', [K, C, In]).
ilpkit_formal_format(permission_error(A, T, C), 'No permission to ~q ~q ~q', [A, T, C]).
ilpkit_formal_format(representation_error(R), 'Cannot represent due to ~q', [R]).
ilpkit_formal_format(evaluation_error(E), 'Arithmetic: evaluation error: ~q', [E]).
ilpkit_formal_format(resource_error(R), 'Not enough resources: ~q', [R]).
ilpkit_formal_format(syntax_error(S), 'Syntax error: ~q', [S]).
ilpkit_formal_format(system_error(S), 'System error: ~q', [S]).

% context(Predicate, Message) as ISO and SWI-Prolog write it; any other context (SWI-Prolog's
% stack_overflow dict, a stream position) is left out.
ilpkit_context_text(C, Text) :-
    nonvar(C),
    C = context(P, M), !,
    (   nonvar(P), P \== []
    ->  ilpkit_format_atom(' (in ~q)', [P], T1)
    ;   T1 = ''
    ),
    (   nonvar(M), M \== '', M \== []
    ->  ilpkit_format_atom(' (~q)', [M], T2)
    ;   T2 = ''
    ),
    atom_concat(T1, T2, Text).
ilpkit_context_text(_, '').

% --------------------------------------------------------------------------------------------
% The read loop (subprocess backend)
% --------------------------------------------------------------------------------------------

% Requests (one term each) and their answer lines:
%   load(File)                          loaded(Problems)
%   cover(Clauses, Among, Secs, Steps)  one line per clause, c([Id,...]), in order; on a
%                                       failure one e(Kind, Text, Culprit) line and no more;
%                                       Among as ilpkit_among/2 reads it
%   answers(Goal, Max, Secs, Steps)     a(Answers) | e(Kind, Text, Culprit)
%   defined(Name, Arity)                d(true) | d(false)
%   limits(MB)                          ok (MB: memory bound of one query, or none)
%   ping                                pong
%   atoms(List)                         ok (reading List made its atoms, in its order)
% Clauses is a list of c(Head, Body); Kind is limit (ilpkit's limits, resource errors) or error; Culprit is the Name/Arity of
% an unknown procedure, else none; Secs is none or a number.  Output of user code goes to
% user_error, so it cannot corrupt the answers.
% Nothing escapes ilpkit_serve/0: the engine's own report of an uncaught error (the -g goal
% of SWI-Prolog) would translate the term as a message.
ilpkit_serve :-
    catch(ilpkit_serve_loop, E, ilpkit_serve_died(E)).

ilpkit_serve_died(E) :-
    catch(( ilpkit_message(E, Text),
            write(user_error, 'ilpkit server stopped: '),
            write(user_error, Text),
            nl(user_error) ),
          _, true),
    halt(2).

ilpkit_serve_loop :-
    ilpkit_setup,
    current_output(Out),
    retractall('$ilpkit_reply_stream'(_)),
    assertz('$ilpkit_reply_stream'(Out)),
    set_output(user_error),
    ilpkit_engine(Engine, Version),
    ilpkit_reply(ilpkit_ready(Engine, Version)),
    repeat,
    catch(ilpkit_read(user_input, Request), E, true),
    (   nonvar(E)
    ->  ilpkit_reply_error(E),
        fail
    ;   Request == end_of_file
    ->  !
    ;   ilpkit_handle(Request),
        fail
    ).

ilpkit_handle(Request) :-
    (   catch(ilpkit_dispatch(Request), E, ilpkit_reply_error(E))
    ->  true
    ;   ilpkit_reply(e(error, 'the request failed', none))
    ).

% ilpkit_reply_error(+E): the e/3 line for E; when that cannot be written (a resource error
% while writing), a fixed one.
ilpkit_reply_error(E) :-
    catch(ilpkit_reply_error_(E), _, fail), !.
ilpkit_reply_error(_) :-
    ilpkit_reply(e(error, 'an error that ilpkit cannot write', none)).

ilpkit_dispatch(load(File)) :- !,
    ilpkit_load(File, Problems),
    ilpkit_prepare,
    ilpkit_reply(loaded(Problems)).
ilpkit_dispatch(cover(Clauses, Among0, Secs, Steps)) :- !,
    ilpkit_among(Among0, Among),
    ilpkit_call_batch(ilpkit_cover_all(Clauses, Among, Secs, Steps)).
ilpkit_dispatch(answers(Goal, Max, Secs, Steps)) :- !,
    ilpkit_call_time_limited(ilpkit_answers(Goal, Max, Steps, Answers), Secs),
    ilpkit_reply(a(Answers)).
ilpkit_dispatch(defined(Name, Arity)) :- !,
    (   ilpkit_defined(Name, Arity)
    ->  ilpkit_reply(d(true))
    ;   ilpkit_reply(d(false))
    ).
ilpkit_dispatch(limits(MB)) :- !,
    ilpkit_set_memory_limit(MB),
    ilpkit_reply(ok).
ilpkit_dispatch(ping) :- !,
    ilpkit_reply(pong).
ilpkit_dispatch(atoms(_)) :- !,
    ilpkit_reply(ok).
ilpkit_dispatch(Request) :-
    functor(Request, Name, Arity),
    throw(error(domain_error(ilpkit_request, Name/Arity), ilpkit_serve/0)).

% An error in one clause ends the batch: the e/2 line is thrown to ilpkit_handle/1.
ilpkit_cover_all([], _, _, _).
ilpkit_cover_all([c(Head, Body)|Clauses], Among, Secs, Steps) :-
    ilpkit_call_time_limited(ilpkit_coverage(Head, Body, Among, Steps, Ids), Secs),
    ilpkit_reply_ids(Ids),
    ilpkit_cover_all(Clauses, Among, Secs, Steps).

% Answers go to the output stream the server started with: YAP 8's set_output/1 also moves
% the user_output alias, so user_output cannot be trusted to still be stdout.
ilpkit_reply_stream(S) :-
    (   catch('$ilpkit_reply_stream'(S0), _, fail)
    ->  S = S0
    ;   S = user_output
    ).

ilpkit_reply(Term) :-
    ilpkit_reply_stream(S),
    write_canonical(S, Term),
    write(S, '.'),
    nl(S),
    flush_output(S).

ilpkit_reply_error_(E) :-
    nonvar(E),
    E = ilpkit_limit(What), !,
    ilpkit_limit_text(What, Text),
    ilpkit_reply(e(limit, Text, none)).
ilpkit_reply_error_(E) :-
    ilpkit_is_limit(E), !,
    ilpkit_message(E, Text),
    ilpkit_reply(e(limit, Text, none)).
ilpkit_reply_error_(E) :-
    ilpkit_message(E, Text),
    (   nonvar(E),
        E = error(existence_error(procedure, Culprit), _)
    ->  true
    ;   Culprit = none
    ),
    ilpkit_reply(e(error, Text, Culprit)).

ilpkit_limit_text(time(Secs), Text) :- !,
    ilpkit_format_atom('time limit of ~q s exceeded', [Secs], Text).
ilpkit_limit_text(steps(Steps), Text) :- !,
    ilpkit_format_atom('inference limit of ~q exceeded', [Steps], Text).
ilpkit_limit_text(memory(MB), Text) :- !,
    ilpkit_format_atom('memory limit of ~q MB exceeded', [MB], Text).
ilpkit_limit_text(interrupted, Text) :- !,
    Text = 'interrupted by a signal'.
ilpkit_limit_text(What, Text) :-
    ilpkit_format_atom('~q', [What], Text).

% Integers only, so no engine's list syntax matters: c([1,2,3]).  Written character by
% character: YAP 8.0.2 keeps about 370 bytes of every write/2 call (150 MB in 100 UW-CSE
% clauses, 20 GB in one learn run), and nothing of put_char/2 and put_code/2.  An engine
% whose hooks say ilpkit_ids_at_once (SWI-Prolog) joins them in one built-in call instead:
% character by character cost SWI-Prolog more than the coverage tests themselves (UW-CSE's
% learn command: 28M ids, 74 CPU s against a plain loop's 34).
ilpkit_reply_ids(Ids) :-
    ilpkit_reply_stream(S),
    put_char(S, c), put_char(S, '('), put_char(S, '['),
    (   catch(ilpkit_ids_at_once, _, fail)
    ->  atomic_list_concat(Ids, ',', Text),
        write(S, Text)
    ;   ilpkit_write_ids(Ids, S)
    ),
    put_char(S, ']'), put_char(S, ')'), put_char(S, '.'),
    nl(S),
    flush_output(S).

ilpkit_write_ids([], _).
ilpkit_write_ids([Id|Ids], S) :-
    ilpkit_put_integer(S, Id),
    ilpkit_write_more_ids(Ids, S).

ilpkit_write_more_ids([], _).
ilpkit_write_more_ids([Id|Ids], S) :-
    put_char(S, ','),
    ilpkit_put_integer(S, Id),
    ilpkit_write_more_ids(Ids, S).

ilpkit_put_integer(S, I) :-
    number_codes(I, Codes),
    ilpkit_put_codes(Codes, S).

ilpkit_put_codes([], _).
ilpkit_put_codes([C|Cs], S) :-
    put_code(S, C),
    ilpkit_put_codes(Cs, S).
