pos(f(t1)).
neg(f(t2)).
neg(f(t3)).
