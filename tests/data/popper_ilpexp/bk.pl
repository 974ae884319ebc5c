p(x).
p(y).
