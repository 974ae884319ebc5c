:- modeh(1, f(+a)).
:- modeb(1, p(+a)).
