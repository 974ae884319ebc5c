/*  Lists the predicates SWI-Prolog resolves by itself, one per line: Kind<TAB>Name<TAB>Arity.

    system    defined in module system (built-ins, control, '$'-internals)
    library   in the autoload index: a call of that name in module user loads the library
    hook      a multifile or dynamic predicate of module user the engine calls by itself
              (message_hook/3, thread_message_hook/3, portray/1, ...)

    Run by ilpkit.core.engine_names.generate (swipl -q -g ilpkit_list_names -t halt FILE).
*/
ilpkit_list_names :-
    aggregate_all(count, '$autoload':library_index(_, _, _), _),
    forall(( predicate_property(system:H, defined), functor(H, N, A) ), ilpkit_emit(system, N, A)),
    forall(( '$autoload':library_index(H, _, _), functor(H, N, A) ), ilpkit_emit(library, N, A)),
    forall(( current_predicate(user:N/A),
             N \== ilpkit_list_names, N \== ilpkit_emit,
             functor(H, N, A),
             \+ predicate_property(user:H, imported_from(_)),
             ( predicate_property(user:H, multifile) ; predicate_property(user:H, dynamic) ) ),
           ilpkit_emit(hook, N, A)).

ilpkit_emit(Kind, Name, Arity) :-
    format("~w\t~w\t~w~n", [Kind, Name, Arity]).
