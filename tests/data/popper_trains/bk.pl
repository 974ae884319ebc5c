:- discontiguous has_car/2.
has_car(t1,c1).
has_car(t1,c2).
has_car(t2,c3).
short(c1).
load(c1,circle,1).
load(c3,triangle,2).
same(X,X).
two_cars(T) :- has_car(T,A), has_car(T,B), A \== B.
