% A small zoo (written for ilpkit's tests): which animals are mammals, birds or fish.
:- set(tree_type,classification).
:- set(classes,[mammal,bird,fish]).
:- set(minpos,2).
:- set(prune_tree,true).
:- set(confidence,0.25).
:- set(evalfn,entropy).
:- set(dependent,2).

:- modeh(1,class(+animal,-class)).
:- modeb(1,has_feathers(+animal)).
:- modeb(1,lays_eggs(+animal)).
:- modeb(1,lives_in(+animal,#place)).
:- modeb(1,legs(+animal,#count)).
:- modeb(1,not(has_feathers(+animal))).

:- determination(class/2,lives_in/2).
:- determination(class/2,lays_eggs/1).
:- determination(class/2,has_feathers/1).
:- determination(class/2,legs/2).

place(sea). place(river). place(field). place(sky).
count(0). count(2). count(4).

lays_eggs(hen). lays_eggs(duck). lays_eggs(swan). lays_eggs(carp). lays_eggs(pike).
lays_eggs(cod). lays_eggs(tuna). lays_eggs(kiwi). lays_eggs(echidna).
has_feathers(hen). has_feathers(duck). has_feathers(swan). has_feathers(kiwi).
lives_in(hen,field). lives_in(duck,river). lives_in(swan,river). lives_in(carp,river).
lives_in(pike,river). lives_in(cod,sea). lives_in(tuna,sea). lives_in(kiwi,field).
lives_in(echidna,field). lives_in(cow,field). lives_in(horse,field). lives_in(seal,sea).
lives_in(whale,sea). lives_in(otter,river).
legs(hen,2). legs(duck,2). legs(swan,2). legs(kiwi,2). legs(carp,0). legs(pike,0).
legs(cod,0). legs(tuna,0). legs(echidna,4). legs(cow,4). legs(horse,4). legs(seal,0).
legs(whale,0). legs(otter,4).
