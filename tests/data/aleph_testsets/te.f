p(c).
