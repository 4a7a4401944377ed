"""Setting up: `init` (with a preset, or adopting a Claude Code folder)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import Json, run


def init(directory: Annotated[Path, typer.Argument(metavar="DIR", help="Where to create it (default: here).")] = Path("."),
         preset: Annotated[Optional[str], typer.Option(metavar="NAME",
                                                       help="Types: default, claude (adopts a Claude Code memory folder "
                                                            "in place) or categories.")] = None,
         json_: Json = False) -> None:
    """Create a memory directory (memctl.toml, MEMORY.md.template, .gitignore, folders), or adopt a Claude Code one."""
    from memctl.api import MemoryStore, init_directory

    def action() -> dict:
        created = init_directory(directory, preset)
        config = MemoryStore(directory).config
        return {"root": str(directory.resolve()), "created": created, "preset": config.memory.preset,
                "layout": config.layout.kind}

    def human(d: dict) -> None:
        how = "adopted" if d["layout"] == "claude" else "initialised"
        done = f"created {', '.join(d['created'])}" if d["created"] else "nothing to do"
        output.message(f"{how} {d['root']} (layout {d['layout']}, preset {d['preset']}; {done})")

    run("init", json_, action, human)


COMMANDS = [("init", init)]
