"""Shell completion from the generated option table (agents/cli_table.py), before typer is imported.

`memctl --show-completion bash|zsh|fish` prints a script; the script runs `memctl` with
`_MEMCTL_COMPLETE=<shell>`, COMP_WORDS (the command line) and COMP_CWORD (the word being completed),
and `complete()` prints the candidates, one per line: commands, options, and values (an option's
choices, memory ids, users, projects, the configured types, config keys). Only the standard library
and the lean name lookup are imported, so a Tab answers in tens of milliseconds.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from memctl.agents.cli_table import TABLE
from memctl.store import names
from memctl.store.locate import locate_root

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing takes ~6 ms to import; a Tab runs without it
    from typing import Any

SHELLS = ("bash", "zsh", "fish")
GLOBAL_VALUES = {"-d": "@dirs", "--dir": "@dirs", "--now": None, "--actor": None, "--show-completion": SHELLS}

SCRIPTS = {
    "bash": """_memctl_completion() {
    local IFS=$'\\n'
    COMPREPLY=( $(env COMP_WORDS="${COMP_WORDS[*]}" COMP_CWORD=$COMP_CWORD _MEMCTL_COMPLETE=bash "$1" 2>/dev/null) )
    return 0
}
complete -o default -F _memctl_completion memctl
""",
    "zsh": """#compdef memctl
_memctl() {
    local -a candidates
    candidates=("${(@f)$(env COMP_WORDS="${words[*]}" COMP_CWORD=$((CURRENT - 1)) _MEMCTL_COMPLETE=zsh memctl 2>/dev/null)}")
    if [[ -n "${candidates[1]}" ]]; then
        compadd -a candidates
    else
        _files
    fi
}
compdef _memctl memctl
""",
    "fish": """function __memctl_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    env COMP_WORDS="$words $current" COMP_CWORD=(count $words) _MEMCTL_COMPLETE=fish memctl 2>/dev/null
end
complete -c memctl -a '(__memctl_complete)'
""",
}


def script(shell: str | None) -> str | None:
    """The completion script for `shell` (default: the login shell's name), or None for an unknown one."""
    chosen = shell or os.path.basename(os.environ.get("SHELL", "bash"))
    return SCRIPTS.get(chosen)


def complete(env: dict[str, str] | None = None) -> int:
    """Print the candidates for the word COMP_CWORD of COMP_WORDS; the exit code."""
    env = dict(os.environ) if env is None else env
    words = env.get("COMP_WORDS", "").split()
    try:
        index = int(env.get("COMP_CWORD", len(words)))
    except ValueError:
        return 1
    current = words[index] if 0 < index < len(words) else ""
    found = candidates(words[1:index], current, env)
    sys.stdout.write("".join(f"{c}\n" for c in found if c.startswith(current)))
    return 0


def candidates(before: list[str], current: str, env: dict[str, str]) -> list[str]:
    """What may stand where `current` is typed, after the words `before` (the program name left out)."""
    command, directory, positional, pending = None, None, 0, None
    for word in before:
        if pending is not None:
            directory = word if pending in ("-d", "--dir") else directory
            pending = None
        elif word in GLOBAL_VALUES or (command and _takes_value(command, word)):
            pending = word
        elif command is None and word in TABLE["commands"]:
            command = word
        elif command and not word.startswith("-"):
            positional += 1
    if pending is not None:
        return _values(_source(command, pending), current, directory, env)
    if current.startswith("-"):
        spelled = list(TABLE["commands"][command]["options"]) if command else []
        return [*spelled, "--json", "--help", *([] if command else TABLE["globals"])]
    if command is None:
        return list(TABLE["commands"])
    entry = TABLE["commands"][command]
    if positional < len(entry["positional"]):
        return _values(entry["values"].get(entry["positional"][positional]), current, directory, env)
    return []


def _takes_value(command: str, word: str) -> bool:
    option = TABLE["commands"][command]["options"].get(word)
    return option is not None and TABLE["commands"][command]["params"][option[0]][0] not in ("flag", "switch")


def _source(command: str | None, option: str) -> Any:
    if option in GLOBAL_VALUES:
        return GLOBAL_VALUES[option]
    entry = TABLE["commands"][command]
    return entry["values"].get(entry["options"][option][0])


def _values(source: Any, current: str, directory: str | None, env: dict[str, str]) -> list[str]:
    """An option's choices, or the names a dynamic source (@ids, @users...) finds in the directory."""
    if isinstance(source, (tuple, list)):
        return list(source)
    if source == "@config_keys":
        return list(TABLE["config_keys"])
    if source not in ("@ids", "@users", "@projects", "@types"):
        return []  # files, folders, free text: the shell's own completion
    root = locate_root(directory, env.get("MEMCTL_DIR"), Path.cwd())
    if root is None:
        return list(TABLE["presets"]["default"]) if source == "@types" else []
    if source == "@ids":
        return names.memory_ids(root, current)
    if source == "@types":
        return names.configured_types(root, TABLE["presets"])
    return names.owners(root, source[1:])
