"""Setting up: `init`."""

from __future__ import annotations

from pathlib import Path

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import Json, run


def init(directory: Annotated[Path, typer.Argument(metavar="DIR", help="Where to create it (default: here).")] = Path("."),
         json_: Json = False) -> None:
    """Create a memory directory: memctl.toml, MEMORY.md.template, .gitignore, folders."""
    from memctl.api import init_directory

    def action() -> dict:
        return {"root": str(directory.resolve()), "created": init_directory(directory)}

    run("init", json_, action, lambda d: output.message(
        f"initialised {d['root']}" + (f" (created {', '.join(d['created'])})" if d["created"] else " (nothing to do)")))


COMMANDS = [("init", init)]
