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
        # What start-up makes (modules, classes, functions) lives as long as the process:
        # the cyclic collector need not walk it, neither while the imports run (a full
        # collection in the middle of them cost 30 ms of ``learn``'s 0.6 s) nor after.  The
        # run's first clause ends the wait (allocator.work_begins, from Run.context).
        from ilpkit.core.allocator import defer_collections, idle_blas_threads_sleep

        idle_blas_threads_sleep()  # before numpy loads OpenBLAS
        gc.disable()
        try:
            from ilpkit.cli.main import app_for

            app = app_for(sys.argv[1:])
        finally:
            gc.enable()
        gc.freeze()
        defer_collections()
        app()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(EXIT_INTERRUPTED)
