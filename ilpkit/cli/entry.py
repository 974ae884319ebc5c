"""The ``ilpkit`` console script and ``python -m ilpkit``.

Importing the command modules takes a moment (typer, pydantic, numpy); a Ctrl-C in that
moment arrives before :class:`ilpkit.cli.errors.IlpkitGroup` has installed its handlers, and
would print a ``KeyboardInterrupt`` traceback. This module imports nothing heavy itself, so it
can turn that Ctrl-C into the same one line and exit code (130) as any other.
"""

from __future__ import annotations

import gc
import sys

EXIT_INTERRUPTED = 130


def main() -> None:
    """Import the CLI and run it; a Ctrl-C at any point is ``interrupted`` and exit 130."""
    try:
        # What an import makes (modules, classes, functions) lives as long as the process:
        # the cyclic garbage collector need not look at it, while the imports run (a full
        # collection in the middle of them cost 30 ms of ``learn``'s 0.6 s) nor after
        # (every later full collection would walk it again).
        from ilpkit.core.allocator import idle_blas_threads_sleep

        idle_blas_threads_sleep()  # before numpy loads OpenBLAS
        gc.disable()
        try:
            from ilpkit.cli.main import app
        finally:
            gc.enable()
        gc.freeze()
        app()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(EXIT_INTERRUPTED)
