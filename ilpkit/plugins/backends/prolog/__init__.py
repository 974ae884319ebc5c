"""Prolog engines as backends: one exported program, one support file, per-engine profiles.

* :mod:`.export` -- a Task as one Prolog program text (what the reader parsed, never a raw
  data file), the same for every engine;
* ``ilpkit_server.pl`` -- the portable support code (coverage, answers, the read loop);
* :mod:`.profiles` -- how to start and limit each engine, and its prelude;
* :mod:`.subprocess_backend` -- the ``subprocess`` backend (an engine as a child process).
"""
