pos(f(y)).
neg(f(x)).
neg(f(z)).
