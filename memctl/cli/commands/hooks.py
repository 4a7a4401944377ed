"""`memctl hooks install|uninstall|run claude`: memctl's hooks in Claude Code's settings file (cli/claude_hooks.py)."""

from __future__ import annotations

import getpass
import sys
from pathlib import Path
from typing import Optional

import typer
from typing_extensions import Annotated

from memctl.cli import claude_hooks, output
from memctl.cli.app import Json, open_store, run
from memctl.errors import UsageError


def hooks(action: Annotated[str, typer.Argument(metavar="install|uninstall|run", help="What to do.")],
          agent: Annotated[str, typer.Argument(metavar="AGENT", help="The agent: claude (Claude Code).")],
          event: Annotated[Optional[str], typer.Argument(metavar="EVENT", show_default=False,
                                                         help="For run: the hook event (Claude Code runs it).")] = None,
          project: Annotated[Optional[Path], typer.Option("--project", metavar="DIR", help=(
              "The project whose .claude/settings.json to change (default: this directory).")), ] = None,
          user_settings: Annotated[bool, typer.Option("--user", help="Change ~/.claude/settings.json instead.")] = False,
          memory_user: Annotated[Optional[str], typer.Option("--memory-user", metavar="USER", help=(
              "Whose memories the hooks read and write (default: your login name).")), ] = None,
          memory_project: Annotated[Optional[str], typer.Option("--memory-project", metavar="PROJECT", help=(
              "The memctl project too (default: the project folder's name; none with --user).")), ] = None,
          llm: Annotated[Optional[str], typer.Option("--llm", metavar="COMMAND", help=(
              "The LLM command SessionEnd extracts with (default: MEMCTL_LLM when the hook runs).")), ] = None,
          budget: Annotated[Optional[int], typer.Option("--budget", metavar="TOKENS", min=1, help=(
              "Tokens a prompt's memories may take (default 400; SessionStart 800).")), ] = None,
          json_: Json = False) -> None:
    """Install or remove memctl's Claude Code hooks: context at session start, relevant memories with
    each prompt, the transcript logged and extracted at session end (`run` is what the hooks call)."""
    if action == "run":
        raise typer.Exit(claude_hooks.run(sys.argv[1:]))
    if agent != "claude":
        raise UsageError(f"unknown agent {agent!r} (hooks exist for: claude)", code="unknown_agent")
    if action not in ("install", "uninstall"):
        raise UsageError("use `memctl hooks install claude` or `memctl hooks uninstall claude`", code="bad_hooks_command")
    folder = (project or Path(".")).resolve()
    path = Path.home() / ".claude" / "settings.json" if user_settings else folder / ".claude" / "settings.json"

    def act() -> dict:
        from memctl.store.hookfiles import read_settings, write_settings

        settings = read_settings(path)
        if action == "uninstall":
            write_settings(path, claude_hooks.without_hooks(settings))
            return {"action": action, "settings": str(path), "events": []}
        store = open_store()
        if store.root is None:
            raise UsageError("the hooks need a memory folder (-d DIR), not a database", code="no_directory")
        name = memory_project if memory_project is not None else (None if user_settings else folder.name)
        command = claude_hooks.hook_command(sys.executable, str(store.root.resolve()), memory_user or getpass.getuser(),
                                            name or None, llm, budget)
        write_settings(path, claude_hooks.with_hooks(settings, command))
        return {"action": action, "settings": str(path), "events": list(claude_hooks.EVENTS), "command": command}

    def human(d: dict) -> None:
        done = f"installed {', '.join(d['events'])} hooks in" if d["events"] else "removed memctl's hooks from"
        output.message(f"{done} {d['settings']}")

    run("hooks", json_, act, human)


COMMANDS = [("hooks", hooks)]
