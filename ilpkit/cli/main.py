"""The ``ilpkit`` command: the typer ``app`` and the registration of each command group.

Commands live in one module per group (``plugins_cmd``, ``data_cmd``, ...); this module only
wires them up, and imports a command's module when that command is built. Errors are
handled once, by :class:`ilpkit.cli.errors.IlpkitGroup`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Annotated, Any, Final

import typer

from ilpkit._version import __version__
from ilpkit.cli.errors import IlpkitGroup

COMMANDS: Final[dict[str, tuple[str, str, str | None]]] = {
    "plugins": ("plugins_cmd", "plugins", None),
    "backends": ("backends_cmd", "backends", None),
    "saturate": ("clause_cmd", "saturate", None),
    "coverage": ("clause_cmd", "coverage", None),
    "learn": ("learn_cmd", "learn", "plugin-options"),
    "predict": ("learn_cmd", "predict", None),
    "explain": ("learn_cmd", "explain", None),
    "cv": ("cv_cmd", "cv", "plugin-options"),
    "run": ("cv_cmd", "run", None),
    "report": ("cv_cmd", "report", None),
    "data": ("data_cmd", "app", None),
    "datasets": ("datasets_cmd", "app", None),
}
"""Every command, in the order ``ilpkit --help`` lists them (typer lists the groups, ``data``
and ``datasets``, after the commands): its module in ``ilpkit.cli``, the function (or typer
group, ``app``) there, and its click class."""


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"ilpkit {__version__}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Show the version and exit.", callback=_show_version, is_eager=True
        ),
    ] = False,
) -> None:
    """Learn ensembles of first-order rules (ILP) from relational data."""


def _short(command: Callable[..., Any]) -> str:
    """A command's first sentence on one line, for the command list of ``ilpkit --help``
    (its docstring's line breaks would otherwise break the list's lines mid-sentence)."""
    text = " ".join((command.__doc__ or "").split())
    head, dot, _ = text.partition(". ")
    return head + ("." if dot else "")


def build_app(only: str | None = None, *, listing: bool = False) -> typer.Typer:
    """The ``ilpkit`` app: every command, or only the command ``only`` (a key of
    :data:`COMMANDS`), or, with ``listing``, none built until one is asked for.

    Why ``only``: typer turns every registered function into a click command (signature,
    type hints, options) before it runs one; for the 12 commands that was about 20 ms of
    ``ilpkit learn trains``' start-up.  A process runs one command, so the console script
    builds that one, under the same root group, options and messages.  Why ``listing``:
    ``ilpkit --help`` (``--version``, a mistyped name) needs the commands' names and first
    sentences only; building all 12 was half its time (:class:`ListingGroup`)."""
    from ilpkit.cli.plugin_help import PluginOptionsCommand

    app = typer.Typer(
        name="ilpkit",
        cls=ListingGroup if listing else IlpkitGroup,
        help="Learn ensembles of first-order rules (ILP) from relational data.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_show_locals=False,
        rich_markup_mode=None,  # help is ilpkit.cli.help_panels', usage errors click's own
    )
    app.callback()(_root)
    for name, (_, _, kind) in COMMANDS.items():
        if listing or (only is not None and name != only):
            continue
        found = _command_object(name)
        if isinstance(found, typer.Typer):
            app.add_typer(found, name=name)
        else:
            cls = PluginOptionsCommand if kind == "plugin-options" else None
            app.command(name, cls=cls, short_help=_short(found))(found)
    return app


def _command_object(name: str) -> Any:
    """The function (or typer group) of command ``name``, its module imported."""
    module, attr, _ = COMMANDS[name]
    return getattr(importlib.import_module(f"ilpkit.cli.{module}"), attr)


class ListingGroup(IlpkitGroup):
    """The root group with no command built until one is asked for: ``--help`` lists the
    commands from :data:`COMMANDS` and their docstrings; a command named is built then,
    exactly as ``build_app(name)`` builds it."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            one = typer.main.get_command(build_app(cmd_name))
            self.add_command(one.commands[cmd_name], cmd_name)  # type: ignore[attr-defined]
        return self.commands.get(cmd_name)

    def command_summaries(self, ctx: Any) -> list[tuple[str, str]]:
        """(name, first sentence) of every command, without building any."""
        rows = []
        for name in COMMANDS:
            found = _command_object(name)
            if isinstance(found, typer.Typer):
                rows.append((name, " ".join(str(found.info.help or "").split())))
            else:
                rows.append((name, _short(found)))
        return rows

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """A name that is no command: every command built, so the error (and typer's "Did
        you mean") is the whole app's; a slow path for a mistake only."""
        if args and args[0] not in COMMANDS:
            whole = typer.main.get_command(build_app())
            self.commands.update(whole.commands)  # type: ignore[attr-defined]
        return super().resolve_command(ctx, args)


def app_for(argv: list[str]) -> typer.Typer:
    """The app to run ``ilpkit ARGV`` with: only the command ``argv[0]`` names, when it names
    one; the listing root otherwise (``--help``, ``--version``, a mistyped name)."""
    if argv and argv[0] in COMMANDS:
        return build_app(argv[0])
    return build_app(listing=True)


def __getattr__(name: str) -> Any:
    """``app``: the whole ``ilpkit`` app, built when first asked for."""
    if name == "app":
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Run the ``ilpkit`` command (the script and ``python -m ilpkit`` go through
    :func:`ilpkit.cli.entry.main`, which also handles a Ctrl-C during these imports)."""
    import sys

    app_for(sys.argv[1:])()
