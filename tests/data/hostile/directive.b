% The only unsafe construct is a directive: with --trust-data the native backend (which runs
% no directives) loads this data and never runs it.
:- modeh(1, target(+thing)).
:- modeb(1, colour(+thing, #colour)).
:- shell('touch /tmp/ilpkit-hostile-pwned').

colour(a, red).
colour(b, blue).
