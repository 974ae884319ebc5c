:- set(i, 2).
:- set(train_pos, 'tr.f').
:- set(train_neg, 'tr.n').
:- set(test_pos, 'te.f').
:- set(test_neg, 'te.n').
:- modeh(1, p(+thing)).
:- modeb(1, q(+thing, #colour)).
:- determination(p/1, q/2).
:- [extra].
q(a, red). q(b, blue). q(c, red). q(d, green).
