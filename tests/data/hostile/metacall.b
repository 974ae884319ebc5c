% The data builds the goal shell(...) at run time and meta-calls it: refused statically, and
% with --trust-data the native engine refuses shell/1 when the call is reached.
:- modeh(1, target(+thing)).
:- modeb(1, run(+thing)).

command(a, 'touch /tmp/ilpkit-hostile-pwned').
command(b, 'touch /tmp/ilpkit-hostile-pwned').
run(X) :- command(X, C), atom_codes(Name, "shell"), G =.. [Name, C], call(G).
