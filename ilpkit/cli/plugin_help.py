"""``--help`` that lists every plugin's options with their defaults and docs.

Commands that compose plugins (learn, cv) use :class:`PluginOptionsCommand`, whose epilog is
built when help is shown -- not at start-up -- from the registered plugins, so third-party
plugins appear too and ordinary commands do not pay for loading them.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand

from ilpkit.core.plugin_kinds import KINDS


def plugin_options_text(kinds: tuple[str, ...] = KINDS) -> str:
    """One paragraph per plugin with options (``kind name:`` then one ``OPTION (default X)
    doc`` a line), then the names of the plugins without options."""
    from ilpkit.core.plugins import get_plugin_manager  # only when help is shown

    manager = get_plugin_manager()
    paragraphs = [
        "Plugin options, set with --set KIND.OPTION=VALUE (schemas: ilpkit plugins --json)"
    ]
    plain: list[str] = []
    for kind in kinds:
        for spec in manager.specs(kind):  # type: ignore[arg-type]
            fields = spec.options.model_fields
            if not fields:
                plain.append(f"{kind} {spec.name}")
                continue
            parts = []
            for name, field in fields.items():
                default = field.get_default(call_default_factory=True)
                doc = f" {field.description.rstrip('.')}" if field.description else ""
                parts.append(f"{name} (default {default!r}){doc}")
            # one option a line: a paragraph of " | "-joined options was hard to scan
            paragraphs.append(f"{kind} {spec.name}:\n" + "\n".join(f"  {p}" for p in parts))
    if plain:
        paragraphs.append("Without options: " + ", ".join(plain))
    return "\n\n".join(paragraphs)


class PluginOptionsCommand(TyperCommand):
    """A command whose help ends with the options of every registered plugin."""

    @property
    def epilog(self) -> str:
        return plugin_options_text(("backend", "search", "scorer", "learner", "executor"))

    @epilog.setter
    def epilog(self, value: Any) -> None:
        """Click sets the epilog in ``__init__``; the plugin listing replaces it."""
