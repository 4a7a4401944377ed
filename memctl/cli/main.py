"""The `memctl` entry point: register the command groups in order, run, map usage errors to exit 2."""

from __future__ import annotations

import sys
from types import ModuleType

import typer

from memctl.cli.app import STATE, VALUE_GLOBALS, app
from memctl.cli.commands import bulk, maintain, memories, search, servers, setup, typed

# (help panel, module): `memctl --help` lists the commands in this order, in these groups.
GROUPS: tuple[tuple[str, ModuleType], ...] = (
    ("Memories", memories), ("Recall", search), ("Typed facts", typed), ("Many at once", bulk), ("Upkeep", maintain),
    ("Agents", servers), ("Setup", setup),
)


def register(target: typer.Typer) -> None:
    """Add every command to `target`, group by group."""
    for panel, module in GROUPS:
        for name, function in module.COMMANDS:
            target.command(name, rich_help_panel=panel)(function)


def invoked_command(argv: list[str]) -> str | None:
    """The command named on the command line, if it is one of ours (typer builds a click command for
    every registered one at each start, about 15 ms for all of them: a run builds only its own)."""
    names = {name for _, module in GROUPS for name, _ in module.COMMANDS}
    words = iter(argv)
    for word in words:
        if word in VALUE_GLOBALS:
            next(words, None)
        elif not word.startswith("-"):
            return word if word in names else None
    return None


register(app)


def main(argv: list[str] | None = None) -> None:
    """Console entry point (exit codes: see the README)."""
    argv = sys.argv[1:] if argv is None else argv
    chosen = invoked_command(argv)
    everything = list(app.registered_commands)
    if chosen and not {"--help", "-h"} & set(argv):
        app.registered_commands = [c for c in everything if c.name == chosen]
    try:
        app(args=argv, prog_name="memctl")
    finally:
        app.registered_commands = everything
        STATE.stores.clear()
