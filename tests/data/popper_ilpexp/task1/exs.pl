pos(f(x)).
neg(f(z)).
