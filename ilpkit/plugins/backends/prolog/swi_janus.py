"""The janus-swi bridge: SWI-Prolog >= 9.1.12 in this process through ``janus_swi``.

``import janus_swi`` initialises the libswipl the extension was linked against, which finds
its home (boot file and library) through ``SWI_HOME_DIR``, else next to the ``swipl`` on
PATH.  When that home belongs to another SWI-Prolog version the library prints
``[FATAL ERROR: ... boot.prc: incompatible VM-signature ...]`` and aborts the whole process,
so the import is first tried in a child process (:data:`PREFLIGHT`), and only imported here
when the child proves it works, with ``SWI_HOME_DIR`` set for the import alone (left in the
environment it would break Debian's ``swipl`` and pyswip in child processes).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from ilpkit.plugins.backends.prolog import swi_signals

PREFLIGHT = r"""
import ctypes, glob, importlib.util, json, os, sys

def say(**kw):
    print("ILPKIT " + json.dumps(kw), flush=True)

spec = importlib.util.find_spec("janus_swi")
if spec is None or spec.origin is None:
    say(stage="missing")
    sys.exit(0)
pkg = os.path.dirname(spec.origin)
exts = sorted(glob.glob(os.path.join(pkg, "_swipl*")))
lib = version = None
if exts and os.path.exists("/proc/self/maps"):
    try:  # load the extension's libswipl without initialising it
        ctypes.CDLL(exts[0], mode=getattr(os, "RTLD_GLOBAL", 0))
        with open("/proc/self/maps") as f:
            libs = [l.split()[-1] for l in f if "libswipl" in l and "/" in l]
        if libs:
            lib = libs[0]
            swipl = ctypes.CDLL(lib)
            for fn in ("PL_version_info", "PL_version"):
                if hasattr(swipl, fn):
                    version = getattr(swipl, fn)(1)
                    break
    except OSError as exc:
        say(stage="link", error=str(exc))
        sys.exit(0)
home = sys.argv[1]
if not home and lib:  # the home of the library's own build
    d = os.path.dirname(lib)
    marker = os.path.join(d, "swipl.home")
    if os.path.exists(marker):
        with open(marker) as f:
            home = os.path.normpath(os.path.join(d, f.read().strip()))
    else:
        while d != os.path.dirname(d) and not home:
            if os.path.exists(os.path.join(d, "boot.prc")):
                home = d
            d = os.path.dirname(d)
say(stage="located", lib=lib, lib_version=version, home=home)
if home:
    os.environ["SWI_HOME_DIR"] = home
import janus_swi
v = janus_swi.apply_once("user", "current_prolog_flag", "version")
h = janus_swi.apply_once("user", "current_prolog_flag", "home")
say(stage="ready", version=v, home=h)
"""
"""Run as ``python -c PREFLIGHT HOME`` (HOME may be empty: derived from the library)."""


class JanusBridge:
    """Calls into SWI-Prolog through janus (one per process; see ``swi_backend``)."""

    name = "janus"

    def __init__(self, home: str | None) -> None:
        old = os.environ.get("SWI_HOME_DIR")
        if home:
            os.environ["SWI_HOME_DIR"] = home
        try:
            janus_swi = importlib.import_module("janus_swi")
        finally:
            if old is None:
                os.environ.pop("SWI_HOME_DIR", None)
            else:
                os.environ["SWI_HOME_DIR"] = old
        self._janus: Any = janus_swi
        self._apply = janus_swi.apply_once
        self.run(swi_signals.JANUS_POLL)  # Ctrl-C and SIGTERM during a request

    def run(self, goal: str) -> None:
        """Run ``goal`` (text) once in ``user``; it must succeed."""
        if self._janus.query_once(goal)["truth"] is not True:
            raise RuntimeError(f"SWI-Prolog goal failed: {goal}")

    def request(self, module: str, text: str) -> str:
        """``Module:ilpkit_swi_request(Text, Reply)``, strings both ways."""
        with swi_signals.deferred_signals():  # Ctrl-C, SIGTERM stop the query
            reply: str = self._apply(module, "ilpkit_swi_request", text)
        return reply
