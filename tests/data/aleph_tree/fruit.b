% Ripe or not (written for ilpkit's tests): a class-probability tree over numbers.
:- set(tree_type,class_probability).
:- set(classes,[ripe,unripe]).
:- set(minpos,2).
:- set(clauselength,4).
:- set(lookahead,2).
:- set(evalfn,gini).
:- set(dependent,2).

:- modeh(1,class(+fruit,-class)).
:- modeb(1,colour(+fruit,#colour)).
:- modeb(1,weight(+fruit,-grams)).
:- modeb(*,lteq(+grams,#grams)).

:- determination(class/2,colour/2).
:- determination(class/2,weight/2).
:- determination(class/2,lteq/2).

colour(green). colour(yellow). colour(red).
grams(100). grams(120). grams(150). grams(180).

lteq(X,Y) :- number(X), number(Y), X =< Y.

colour(f1,green). colour(f2,green). colour(f3,yellow). colour(f4,yellow).
colour(f5,red). colour(f6,red). colour(f7,green). colour(f8,yellow).
colour(f9,red). colour(f10,green).
weight(f1,90). weight(f2,160). weight(f3,110). weight(f4,170). weight(f5,130).
weight(f6,175). weight(f7,115). weight(f8,95). weight(f9,140). weight(f10,185).
colour(f11,green). colour(f12,yellow).
weight(f11,150). weight(f12,100).
