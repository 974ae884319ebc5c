"""The pyswip bridge: any SWI-Prolog with a shared library (e.g. Debian's 9.0.4) in process.

pyswip finds libswipl by running the ``swipl`` on PATH (``--dump-runtime-variables``), or
takes ``LIBSWIPL_PATH`` and ``SWI_HOME_DIR`` when both are set, and initialises it when
``pyswip`` is imported.  A ``SWI_HOME_DIR`` naming another version's home aborts the process
(``incompatible VM-signature``), so the import is first tried in a child (:data:`PREFLIGHT`).

Requests go through libswipl's C interface (pyswip's ``ctypes`` handle) rather than
``Prolog.query``: one string in, one string out, no per-term conversion in Python.
"""

from __future__ import annotations

import ctypes
from typing import Any

from ilpkit.plugins.backends.prolog import swi_signals

PREFLIGHT = r"""
import json, os, sys

def say(**kw):
    print("ILPKIT " + json.dumps(kw), flush=True)

import importlib.util
if importlib.util.find_spec("pyswip") is None:
    say(stage="missing")
    sys.exit(0)
try:
    from pyswip import core
except Exception as exc:  # pyswip raises its own error types when no SWI-Prolog is found
    say(stage="link", error=f"{type(exc).__name__}: {exc}")
    sys.exit(0)
say(stage="located", lib=core._path, home=core.SWI_HOME_DIR)
from pyswip import Prolog
v = list(Prolog.query("current_prolog_flag(version, V), current_prolog_flag(home, H)"))[0]
say(stage="ready", version=v["V"], home=str(v["H"]))
"""
"""Run as ``python -c PREFLIGHT``."""

_PL_STRING = 6
_CVT_STRING = 0x2
_REP_UTF8 = 0x00100000
_BUF_DISCARDABLE = 0x0
_PL_Q_NODEBUG = 0x4
_PL_Q_CATCH_EXCEPTION = 0x8


_FOREIGN_0 = ctypes.CFUNCTYPE(ctypes.c_int)


def _poll() -> int:
    return 1 if swi_signals.poll() else 0


class PyswipBridge:
    """Calls into SWI-Prolog through pyswip's libswipl handle (one per process)."""

    name = "pyswip"

    def __init__(self) -> None:
        from pyswip import Prolog, core

        self._prolog: Any = Prolog
        # A handle of our own: setting argtypes on pyswip's function objects would change them
        # for pyswip too.
        lib = ctypes.CDLL(core._lib._name, handle=core._lib._handle)
        self._lib = lib
        lib.PL_open_foreign_frame.restype = ctypes.c_size_t
        lib.PL_discard_foreign_frame.argtypes = [ctypes.c_size_t]
        lib.PL_new_term_refs.argtypes = [ctypes.c_int]
        lib.PL_new_term_refs.restype = ctypes.c_size_t
        lib.PL_put_chars.argtypes = [
            ctypes.c_size_t,
            ctypes.c_int,
            ctypes.c_size_t,
            ctypes.c_char_p,
        ]
        lib.PL_get_nchars.argtypes = [
            ctypes.c_size_t,
            ctypes.POINTER(ctypes.c_size_t),
            ctypes.POINTER(ctypes.c_char_p),
            ctypes.c_uint,
        ]
        lib.PL_predicate.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
        lib.PL_predicate.restype = ctypes.c_void_p
        lib.PL_call_predicate.argtypes = [
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.c_void_p,
            ctypes.c_size_t,
        ]
        lib.PL_chars_to_term.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        lib.PL_call.argtypes = [ctypes.c_size_t, ctypes.c_void_p]
        lib.PL_thread_self.restype = ctypes.c_int
        lib.PL_thread_attach_engine.argtypes = [ctypes.c_void_p]
        self._predicates: dict[str, int] = {}
        # Ctrl-C and SIGTERM during a request: user:'$ilpkit_host_poll'/0 runs Python's
        # pending signal handlers (swi_signals); the callback object must stay alive.
        self._poll = _FOREIGN_0(_poll)
        lib.PL_register_foreign_in_module.argtypes = [
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_int,
            _FOREIGN_0,
            ctypes.c_int,
        ]
        lib.PL_register_foreign_in_module(b"user", b"$ilpkit_host_poll", 0, self._poll, 0)

    def _attach(self) -> None:
        """Give the calling thread a Prolog engine (the first thread has one)."""
        if self._lib.PL_thread_self() == -1:
            self._lib.PL_thread_attach_engine(None)

    def run(self, goal: str) -> None:
        """Run ``goal`` (text) once in ``user``; it must succeed."""
        self._attach()
        lib = self._lib
        frame = lib.PL_open_foreign_frame()
        try:
            t = lib.PL_new_term_refs(1)
            if not lib.PL_chars_to_term(goal.encode("utf-8"), t) or not lib.PL_call(t, None):
                raise RuntimeError(f"SWI-Prolog goal failed: {goal}")
        finally:
            lib.PL_discard_foreign_frame(frame)

    def request(self, module: str, text: str) -> str:
        """``Module:ilpkit_swi_request(Text, Reply)``, strings both ways."""
        self._attach()
        lib = self._lib
        pred = self._predicates.get(module)
        if pred is None:
            pred = lib.PL_predicate(b"ilpkit_swi_request", 2, module.encode("utf-8"))
            self._predicates[module] = pred
        data = text.encode("utf-8")
        frame = lib.PL_open_foreign_frame()
        try:
            t = lib.PL_new_term_refs(2)
            lib.PL_put_chars(t, _PL_STRING | _REP_UTF8, len(data), data)
            flags = _PL_Q_NODEBUG | _PL_Q_CATCH_EXCEPTION
            with swi_signals.deferred_signals():  # Ctrl-C, SIGTERM stop the query
                called = lib.PL_call_predicate(None, flags, pred, t)
            if not called:
                raise RuntimeError("ilpkit_swi_request/2 failed")
            size = ctypes.c_size_t()
            out = ctypes.c_char_p()
            if not lib.PL_get_nchars(
                t + 1, ctypes.byref(size), ctypes.byref(out), _CVT_STRING | _REP_UTF8
            ):
                raise RuntimeError("ilpkit_swi_request/2 did not answer a string")
            return ctypes.string_at(out, size.value).decode("utf-8")
        finally:
            lib.PL_discard_foreign_frame(frame)

    def forget(self, module: str) -> None:
        """Drop the cached predicate handle of a destroyed module."""
        self._predicates.pop(module, None)
