"""How every ilpkit command fails: one place, so each new command gets it for free.

An :class:`~ilpkit.core.errors.IlpkitError` (bad data, bad options, unknown plugin, ...) is
printed to stderr as its message -- ``error: `` before the first line, the other lines (for
instance ``file:line:col: message``) as they are -- and the process exits with code 2, never
with a traceback. Ctrl-C prints one line (``interrupted``, or what was saved and how to
resume) and exits with 130, whatever the command; SIGTERM and SIGHUP likewise, with 143 and
129; a second signal ends the process at once (see :mod:`ilpkit.core.lifecycle`). Any other
exception is a bug in ilpkit or a plugin and keeps its traceback.
"""

from __future__ import annotations

from typing import Any, Final

import typer
from typer.core import TyperGroup

from ilpkit.core import lifecycle
from ilpkit.core.errors import IlpkitError

EXIT_USER_ERROR: Final = 2
EXIT_INTERRUPTED: Final = 130


def report_error(err: IlpkitError) -> None:
    """Print ``err`` to stderr: ``error: `` and its first line, then the other lines."""
    lines = str(err).splitlines() or [type(err).__name__]
    typer.secho("error:", fg=typer.colors.RED, bold=True, err=True, nl=False)
    typer.echo(" " + lines[0], err=True)
    for line in lines[1:]:
        typer.echo(line, err=True)


class IlpkitGroup(TyperGroup):
    """The root command group; its ``invoke`` wraps every subcommand in the error policy."""

    def invoke(self, ctx: Any) -> Any:
        with lifecycle.signal_handlers():
            try:
                return super().invoke(ctx)
            except IlpkitError as err:
                code = getattr(err, "exit_code", EXIT_USER_ERROR)
                if code != EXIT_USER_ERROR:  # an interrupt that saved work: say what and where
                    typer.echo(str(err), err=True)
                else:
                    report_error(err)
                raise typer.Exit(code) from None
            except KeyboardInterrupt as exc:
                typer.echo("interrupted", err=True)
                raise typer.Exit(lifecycle.exit_code(exc)) from None
