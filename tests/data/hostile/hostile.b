% A hostile Aleph background file: ilpkit must refuse every construct marked "line N"
% below unless the user passes --trust-data.  The line numbers are asserted by
% tests/test_safety.py: keep them when editing.
:- modeh(1, target(+thing)).
:- modeb(*, p(+thing)).
:- modeb(1, q).
:- modeb(1, r(+thing)).
:- modeb(1, s).
:- modeb(1, t).
:- shell('touch /tmp/ilpkit-hostile-pwned').
:- initialization(main).

thing(a).
thing(b).

p(X) :- shell(X).
q :- assertz(evil).
r(G) :- call(G).
s :- open('/tmp/ilpkit-hostile-pwned', write, S), close(S).
t :- X = shell, call(X, 'touch /tmp/ilpkit-hostile-pwned').
main :- shell('touch /tmp/ilpkit-hostile-pwned').

% Safe: a rule nothing can reach, and a directive that could only raise an existence error.
unused :- shell('touch /tmp/ilpkit-hostile-pwned').
:- nobody_defines_this.
