/*  Lists GNU Prolog's built-in predicates (its own and its finite-domain solver's), one per
    line: system<TAB>Name<TAB>Arity.  Run by ilpkit.core.engine_names.generate
    (gprolog --consult-file FILE, with this file's initialization goal).
*/
ilpkit_list_names :-
    (   ( predicate_property(H, built_in) ; predicate_property(H, built_in_fd) ),
        functor(H, N, A),
        format('system\t~w\t~w~n', [N, A]),
        fail
    ;   true
    ).

:- initialization((ilpkit_list_names, halt)).
