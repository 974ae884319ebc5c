% included by t.b through :- [extra].
thing(a). thing(b). thing(c). thing(d).
