"""Setting up: `init` (with a preset, or adopting a Claude Code folder) and `config get|set`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import STATE, Json, open_store, run
from memctl.errors import MemctlError, UsageError


def init(directory: Annotated[Optional[Path], typer.Argument(
             metavar="DIR", show_default=False, help="Where to create it (default: --dir, else here).")] = None,
         preset: Annotated[Optional[str], typer.Option(metavar="NAME",
                                                       help="Types: default, claude (adopts a Claude Code memory folder "
                                                            "in place) or categories.")] = None,
         json_: Json = False) -> None:
    """Create a memory directory (memctl.toml, MEMORY.md.template, .gitignore, folders), or adopt a Claude Code one."""
    from memctl.api import MemoryStore, git_setup, init_directory

    def action() -> dict:
        target = init_target(directory)
        created = init_directory(target, preset)
        config = MemoryStore(target).config
        git = git_setup(target, required=False)  # in a git repository: merges never leave markers
        return {"root": str(target.resolve()), "created": created + (git["written"] if git else []),
                "preset": config.memory.preset, "layout": config.layout.kind, "git": git is not None}

    def human(d: dict) -> None:
        how = "adopted" if d["layout"] == "claude" else "initialised"
        done = f"created {', '.join(d['created'])}" if d["created"] else "nothing to do"
        output.message(f"{how} {d['root']} (layout {d['layout']}, preset {d['preset']}; {done})")
        if d["git"]:
            output.message("git merge driver memctl registered (see `memctl git setup`)")

    run("init", json_, action, human)


def init_target(directory: Optional[Path]) -> Path:
    """The directory `init` creates: its DIR, else the global --dir (`memctl -d DIR init`), else here;
    a DIR and a --dir that name two places are a usage error."""
    chosen = Path(STATE.dir) if STATE.dir else None
    if directory is not None and chosen is not None and directory.resolve() != chosen.resolve():
        raise UsageError(f"DIR {directory} and --dir {chosen} name two directories; give one", code="two_directories")
    return directory or chosen or Path(".")


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


def git(action: Annotated[str, typer.Argument(metavar="setup|merge-file",
                                              help="setup: install the merge driver; merge-file: what git runs.")],
        files: Annotated[Optional[List[str]], typer.Argument(metavar="[O A B P]", show_default=False,
                                                             help="For merge-file: git's %O %A %B %P.")] = None,
        json_: Json = False) -> None:
    """Git-native team memory: `git setup` makes the folder's memories merge field by field, never with conflict markers."""
    from memctl import api

    if action == "merge-file":
        _merge_file(files or [])
        return

    def act() -> dict:
        if action != "setup" or files:
            raise UsageError("use `memctl git setup` (git itself runs `memctl git merge-file`)", code="bad_git_command")
        return api.git_setup(open_store().root or Path(".")) or {}

    def human(d: dict) -> None:
        wrote = f"; wrote {', '.join(d['written'])}" if d["written"] else ""
        output.message(f"merge driver memctl registered in {d['repository']}{wrote}")
        for path in d["tracked_indexes"]:
            output.message(f"{path} is generated and still tracked: `git rm --cached {path}` and commit")

    run("git", json_, act, human)


def _merge_file(files: list[str]) -> None:
    """The driver: exit 0 when merged (nothing left for git to mark), 1 when git must report it."""
    from memctl import api

    if len(files) != 4:
        raise typer.Exit(1)
    try:
        result = api.git_merge_file(*files)
    except MemctlError as exc:
        output.message(f"memctl merge driver: {files[3]}: {exc.message}")
        raise typer.Exit(1) from None
    if result["copy"]:
        output.message(f"memctl: {result['path']}: both sides changed {', '.join(result['conflicts'])}; "
                       f"theirs kept as {result['copy']} (see `memctl conflicts`)")
    raise typer.Exit(0 if result["clean"] else 1)


COMMANDS = [("init", init), ("config", config), ("git", git)]
