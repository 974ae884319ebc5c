% A SWI-Prolog aleph pack style file.
:- use_module(library(aleph)).
:- aleph.
:- aleph_set(clauselength, 3).
:- aleph_set(evalfn, laplace).

:- modeh(1, grandparent(+person, +person)).
:- modeb(*, parent(+person, -person)).
:- modeb(*, parent(-person, +person)).
:- determination(grandparent/2, parent/2).

:- begin_bg.
parent(ann, bob).
parent(bob, cid).
parent(bob, dee).
parent(eve, fay).
person(X) :- parent(X, _) ; parent(_, X).
:- end_bg.

:- begin_in_pos.
grandparent(ann, cid).
grandparent(ann, dee).
:- end_in_pos.

:- begin_in_neg.
grandparent(bob, cid).
grandparent(eve, fay).
grandparent(ann, bob).
:- end_in_neg.
