"""Built-in search strategies over the clauses of a bottom clause."""
