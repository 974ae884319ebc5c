%% Popper bias (clingo syntax: 1-tuples below are not Prolog)
max_vars(5).
max_body(3).
max_clauses(2).
non_datalog.
lazy_evaluate_type(int).
lazy_evaluate_type(shape).

head_pred(f,1).
body_pred(has_car,2).
body_pred(short,1).
body_pred(load,3).
body_pred(same,2).

type(f,(train,)).
type(has_car,(train,car)).
type(short,(car,)).
type(load,(car,shape,int)).
type(load,(car,shape,shape)).
direction(f,(in,)).
direction(has_car,(in,out)).
direction(has_car,(out,in)).
direction(short,(in,)).
% load has no direction/2: the first argument is in, the others out
% same has neither type/2 nor direction/2
:- not body_pred(short,1).
#show head_literal/4.
