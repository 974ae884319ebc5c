target(a).
