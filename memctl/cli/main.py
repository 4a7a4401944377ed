"""The `memctl` entry point: register the command groups in order, run, map usage errors to exit 2."""

from __future__ import annotations

import sys
from importlib import import_module

import typer

from memctl.cli.app import STATE, VALUE_GLOBALS, MemctlCommand, app

# (help panel, module in cli/commands, its commands): `memctl --help` lists them in this order, in
# these groups. The names are listed here so that a run imports only the module of its command (each
# module's COMMANDS holds the functions; tests/cli/test_basics.py checks the two agree).
GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Memories", "memories", ("add", "list", "show", "edit", "forget", "restore", "history", "stats")),
    ("Recall", "search", ("recall", "context", "gate")),
    ("Typed facts", "typed", ("query", "check", "kinds", "structure")),
    ("Many at once", "bulk", ("import", "export", "log", "extract")),
    ("Upkeep", "maintain", ("dedupe", "conflicts", "compact", "index", "reindex", "doctor")),
    ("Agents", "servers", ("mcp", "serve")),
    ("Agents", "hooks", ("hooks",)),
    ("Setup", "setup", ("init", "config", "git")),
)


def register(target: typer.Typer, only: str | None = None) -> None:
    """Add every command to `target` group by group, or only the command `only` (importing its
    module alone: the others' imports are no part of its start-up)."""
    for panel, module_name, names in GROUPS:
        if only is not None and only not in names:
            continue
        module = import_module(f"memctl.cli.commands.{module_name}")
        for name, function in module.COMMANDS:
            if only is None or name == only:
                target.command(name, rich_help_panel=panel, cls=MemctlCommand)(function)


def invoked_command(argv: list[str]) -> str | None:
    """The command named on the command line, if it is one of ours (typer builds a click command for
    every registered one at each start, about 15 ms for all of them: a run builds only its own)."""
    names = {name for _, _, group in GROUPS for name in group}
    words = iter(argv)
    for word in words:
        if word in VALUE_GLOBALS:
            next(words, None)
        elif not word.startswith("-"):
            return word if word in names else None
    return None


def full_app() -> typer.Typer:
    """The app with every command registered (for tests and tools that drive it in-process)."""
    if not app.registered_commands:
        register(app)
    return app


def main(argv: list[str] | None = None) -> None:
    """Console entry point (exit codes: see the README)."""
    argv = sys.argv[1:] if argv is None else argv
    chosen = invoked_command(argv)
    before = list(app.registered_commands)
    app.registered_commands = []
    register(app, chosen if chosen and not {"--help", "-h"} & set(argv) else None)
    try:
        app(args=argv, prog_name="memctl")
    finally:
        app.registered_commands = before
        STATE.stores.clear()
