pos(f(a)).
