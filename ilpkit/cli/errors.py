"""How every ilpkit command fails: one place, so each new command gets it for free.

An :class:`~ilpkit.errors.IlpkitError` (bad data, bad options, unknown plugin, ...) is
printed to stderr as its message -- ``error: `` before the first line, the other lines (for
instance ``file:line:col: message``) as they are -- and the process exits with code 2, never
with a traceback. A file-system error (``OSError``: a name too long, a full disk, a path
that cannot be written) is the user's environment, not a bug: ``error: PATH: reason``, exit 2.
Ctrl-C prints one line (``interrupted``, or what was saved and how to
resume) and exits with 130, whatever the command; SIGTERM and SIGHUP likewise, with 143 and
129; a second signal ends the process at once (see :mod:`ilpkit.core.lifecycle`). Any other
exception is a bug in ilpkit or a plugin and keeps its traceback.
"""

from __future__ import annotations

from typing import Any, Final

import typer
from typer.core import TyperGroup

from ilpkit.core import lifecycle
from ilpkit.core.allocator import reuse_freed_memory
from ilpkit.errors import IlpkitError

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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _plain_help(self)

    def invoke(self, ctx: Any) -> Any:
        reuse_freed_memory()  # a command's process, not a library's caller: see the module
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
            except BrokenPipeError:
                raise
            except OSError as err:
                report_error(IlpkitError(os_error_text(err)))
                raise typer.Exit(EXIT_USER_ERROR) from None


def os_error_text(err: OSError) -> str:
    """``PATH: reason`` for a file-system error (the path shortened if very long)."""
    reason = err.strerror or str(err)
    name = err.filename if err.filename is not None else ""
    shown = str(name)
    if len(shown) > 120:
        shown = shown[:60] + "..." + shown[-40:]
    return f"{shown}: {reason}" if shown else reason


# Metavars a person reads in --help, instead of typer's ``<str>``/``{path}`` placeholders.
_METAVARS: Final = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER", "path": "PATH"}


def _plain_help(command: Any) -> None:
    """Give every parameter of ``command`` and its subcommands a plain metavar (TEXT, PATH,
    an argument's own name), turn reST double backticks in help texts into single ones, and
    draw their help with :mod:`ilpkit.cli.help_panels`."""
    _draw_help_in_panels(command)
    if getattr(command, "help", None):
        command.help = command.help.replace("``", "`")
    for param in getattr(command, "params", []):
        if getattr(param, "is_flag", False) and hasattr(param, "display_type_rich"):
            setattr(param, "display_type_rich", _no_type)  # noqa: B010 (a flag: no <bool>)
            continue
        if getattr(param, "metavar", None):
            continue
        if param.param_type_name == "argument":
            name = str(param.name).upper()
            if param.nargs == -1:  # any number of them, as click writes it
                name += "..."
            param.metavar = name
            if hasattr(param, "display_type_rich"):  # typer >= 0.20: {NAME} and <str> hints
                setattr(param, "display_type_rich", _no_type)  # noqa: B010
                shown = name if param.required else f"[{name}]"
                setattr(param, "_usage_display_name", lambda shown=shown: shown)  # noqa: B010
        else:
            try:
                type_name = str(param.bare_type()).lower()
            except (AttributeError, TypeError):  # a plain click parameter: its own metavar
                continue
            if type_name == "bool":
                continue
            type_name = type_name.removeprefix("list[").removesuffix("]")
            param.metavar = _METAVARS.get(type_name, type_name.upper())
        if getattr(param, "help", None):
            param.help = param.help.replace("``", "`")
    original = getattr(command, "get_help_option", None)
    if original is not None:  # --help is made when help is shown: no <bool> on it either

        def help_option(ctx: Any, original: Any = original) -> Any:
            option = original(ctx)
            if option is not None and hasattr(option, "display_type_rich"):
                setattr(option, "display_type_rich", _no_type)  # noqa: B010
            return option

        setattr(command, "get_help_option", help_option)  # noqa: B010
    for sub in getattr(command, "commands", {}).values():
        _plain_help(sub)


def _draw_help_in_panels(command: Any) -> None:
    """``command``'s help drawn by :mod:`ilpkit.cli.help_panels`, imported only when help
    is shown (a command that runs does not pay for it)."""

    def format_help(ctx: Any, formatter: Any) -> None:
        from ilpkit.cli.help_panels import render_help

        formatter.write(render_help(command, ctx))

    command.format_help = format_help


def _no_type(ctx: Any = None) -> None:
    """No type column for a parameter whose name already says what it takes."""
    return None
