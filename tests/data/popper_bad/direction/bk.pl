p(a).
