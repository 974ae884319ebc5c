pos(f(x)).
pos(f(y)).
neg(f(z)).
