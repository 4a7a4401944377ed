"""Generate memctl/agents/cli_table.py: every command's options as plain data, read by the code that
runs before typer and pydantic are imported (forwarding to a warm server, shell completion).

    python -m memctl.cli.gentable > memctl/agents/cli_table.py

The table comes from the typer commands, whose declared options come from the request models
(core/requests.py); tests/cli/test_table.py fails when the checked-in table differs from it.
"""

from __future__ import annotations

import pprint
import sys
from typing import Any, get_args

import typer

from memctl.cli.main import GROUPS, full_app
from memctl.core.declare import spelled_of

FORWARDED = ("recall", "context", "add", "list", "show")  # the commands a warm server answers
SKIP = ("json_", "quiet", "help")  # answered by the CLI itself, not arguments of the command
# Values of the hand-written commands' options: a tuple of choices or a dynamic source (@ids, ...).
VALUES: dict[tuple[str, str], Any] = {
    ("list", "sort"): ("created", "updated", "type", "confidence", "importance", "id", "user"),
    ("list", "status"): ("active", "superseded", "merged", "expired", "forgotten", "archived", "all"),
    ("context", "format"): ("markdown", "xml", "json"), ("import", "from_"): ("mem0", "memoryservice", "claude",
                                                                            "jsonl", "folder"),
    ("export", "to"): ("jsonl", "folder"), ("export", "layout"): ("memctl", "claude"),
    ("config", "action"): ("get", "set"), ("config", "key"): "@config_keys",
    ("init", "preset"): ("default", "claude", "categories"), ("dedupe", "resolve"): ("newest",),
    ("query", "op"): ("count", "sum", "latest", "earliest", "list"),
    ("add", "state"): ("active", "inactive", "planned", "done", "cancelled"),
    ("add", "visibility"): ("public", "members", "owner_only"), ("add", "source"): ("user", "ai", "auto", "import"),
    ("log", "role"): ("user", "assistant", "system"),
}
BY_NAME = {"memory_id": "@ids", "user": "@users", "users": "@users", "project": "@projects",
           "projects": "@projects", "type": "@types", "types": "@types", "file": "@files", "directory": "@dirs",
           "dir": "@dirs", "kind": "@kinds", "part_of": "@ids"}


def command_table(name: str, command: Any) -> dict[str, Any]:
    """One command: its option spellings, each parameter's kind and bounds, positionals, values."""
    options: dict[str, tuple[str, Any]] = {}
    params: dict[str, tuple[str, Any, Any, Any]] = {}
    values: dict[str, Any] = {}
    positional: list[str] = []
    request = getattr(command.callback, "request", None)
    for param in command.params:
        if param.name in SKIP:
            continue
        kind = _kind(param)
        if param.param_type_name == "argument":
            positional.append(param.name)
        for spelling in param.opts if param.param_type_name == "option" else ():
            options[spelling] = (param.name, True if kind in ("flag", "switch") else None)
        for spelling in getattr(param, "secondary_opts", []):
            options[spelling] = (param.name, False)
        default = list(param.default) if isinstance(param.default, (list, tuple)) else param.default
        default = default if default is None or isinstance(default, (str, int, float, bool, list)) else str(default)
        params[param.name] = (kind, [] if kind == "texts" and default is None else default,
                              getattr(param, "min", None), getattr(param, "max", None))
        found = _values(name, param.name, request)
        if found:
            values[param.name] = found
    flags = [o for o in command.params if o.name == "quiet"]
    return {"options": options, "params": params, "positional": positional, "values": values,
            "quiet": bool(flags), "help": (command.help or "").split("\n")[0]}


def _kind(param: Any) -> str:
    if getattr(param, "is_flag", False):
        return "switch" if param.secondary_opts else "flag"
    annotation = param.type_descriptor.annotation
    base = get_args(annotation)[0] if param.multiple and get_args(annotation) else annotation
    if param.multiple:
        return "texts"
    return {int: "int", float: "float"}.get(base, "text")


def _values(command: str, name: str, request: Any) -> Any:
    if request is not None and name in request.model_fields:
        spelled = spelled_of(request.model_fields[name])
        if spelled.choices:
            return tuple(spelled.choices)
        if spelled.complete:
            return f"@{spelled.complete}"
    return VALUES.get((command, name)) or BY_NAME.get(name)


def config_keys() -> list[str]:
    """Every `section.name` setting `memctl config` reads and sets."""
    from pydantic import BaseModel

    from memctl.config import Config

    keys = []
    for section, info in Config.model_fields.items():
        model = info.annotation
        if isinstance(model, type) and issubclass(model, BaseModel):
            keys += [f"{section}.{field}" for field in model.model_fields]
    return keys


def table() -> dict[str, Any]:
    """The whole table: commands in `--help` order, the forwarded ones, the config keys."""
    group = typer.main.get_command(full_app())
    commands = {name: command_table(name, group.commands[name]) for _, _, names in GROUPS for name in names}  # type: ignore[attr-defined]
    globals_ = [spelling for param in group.params for spelling in [*param.opts, *getattr(param, "secondary_opts", [])]]
    from memctl.config import PRESETS

    return {"commands": commands, "forwarded": FORWARDED, "globals": globals_, "config_keys": config_keys(),
            "presets": {name: list(types) for name, types in PRESETS.items()}}


HEADER = '''"""GENERATED by `python -m memctl.cli.gentable > memctl/agents/cli_table.py`: do not edit by hand.

Every command's options as plain data, for the code that runs before typer and pydantic load (the
forwarding fast path, shell completion). tests/cli/test_table.py checks it against the commands.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing takes ~6 ms to import; the fast path runs without it
    from typing import Any

'''


def render() -> str:
    """The module's source text."""
    return HEADER + 'TABLE: "dict[str, Any]" = ' + pprint.pformat(table(), width=116, sort_dicts=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
