pos(f(a)).
f(b).
