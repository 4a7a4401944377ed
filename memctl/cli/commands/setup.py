"""Setting up: `init` (with a preset, or adopting a Claude Code folder) and `config get|set`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import Json, open_store, run
from memctl.errors import UsageError


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


def config(action: Annotated[str, typer.Argument(metavar="get|set", help="Read or change one setting.")],
           key: Annotated[str, typer.Argument(metavar="KEY", help="section.name, e.g. memory.preset, gate.min_confidence.")],
           value: Annotated[Optional[str], typer.Argument(metavar="VALUE", show_default=False,
                                                          help="For set: a TOML value (0.9, true, [\"a\"]) or a word.")] = None,
           json_: Json = False) -> None:
    """Read (`config get KEY`) or change (`config set KEY VALUE`) one setting of memctl.toml, keeping its comments."""

    def act() -> dict:
        store = open_store()
        if action == "get" and value is None:
            return {"key": key, "value": store.get_setting(key)}
        if action == "set" and value is not None:
            stored = store.set_setting(key, value)  # refused for a store with no folder
            return {"key": key, "value": stored, "path": str(store.root / "memctl.toml") if store.root else None}
        raise UsageError("use `memctl config get KEY` or `memctl config set KEY VALUE`", code="bad_config_command")

    def human(d: dict) -> None:
        shown = d["value"] if isinstance(d["value"], str) else json.dumps(d["value"], ensure_ascii=False)
        output.message(f"{d['key']} = {shown}" if "path" in d else shown)

    run("config", json_, act, human)


COMMANDS = [("init", init), ("config", config)]
