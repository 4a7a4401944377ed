"""Answering a command through a warm server: the CLI's side of forwarding, and its fast path.

`forward` sends a command a server can answer (recall, context, add, list, show) to the server of
this directory and prints the answer exactly as the in-process command would; None means "no
server here: run in-process". `fast_path` does the same straight from argv, before typer is
imported (typer builds a pydantic adapter per option, ~150 ms a run): it accepts the plain
spellings (`--opt value`, `--opt=value`, `-o value`) and leaves anything else (`--help`, `--now`,
`--`, grouped short flags, a value typer would refuse) to the typer app, which forwards too.
Only what a forwarded command needs is imported here.
"""

from __future__ import annotations

import os
import re

from memctl.agents import client
from memctl.agents.cli_table import TABLE
from memctl.agents.commands import PARAMS, Param
from memctl.cli import output, render
from memctl.cli.inputs import read_text
from memctl.errors import MemctlError

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing takes ~6 ms to import; a command forwarded to a warm server runs without it
    from typing import Any

TEXT_ARGUMENT = {"recall": "query", "context": "query", "add": "text"}  # read from stdin for `-` or nothing
_COMMANDS = TABLE["commands"]
POSITIONAL = {name: _COMMANDS[name]["positional"][0] for name in TABLE["forwarded"] if _COMMANDS[name]["positional"]}
# command -> option spelling -> (parameter, value for a flag): the generated table of the typer commands
OPTIONS: dict[str, dict[str, tuple[str, Any]]] = {name: _COMMANDS[name]["options"] for name in TABLE["forwarded"]}
QUIET = tuple(name for name in TABLE["forwarded"] if _COMMANDS[name]["quiet"])  # the commands with -q
AUTO_COMMANDS = ("recall", "context", "add")  # cli/autostart.py: these start a server when the folder asks
_SAID: set[Any] = set()  # warnings given and folders whose server was started, by this process
_INT = re.compile(r"\d+")
_FLOAT = re.compile(r"\d+(\.\d*)?|\.\d+")  # plain decimals only: typer decides anything fancier


class Invocation:  # a plain class: `dataclasses` imports `inspect`, ~20 ms of a forwarded call
    """A command line the fast path understood."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.directory: str | None = None
        self.actor: str | None = None
        self.as_json = False
        self.quiet = False
        self.args: dict[str, Any] = {}


def forward(command: str, args: dict[str, Any], as_json: bool, quiet: bool, directory: str | None,
            pinned_time: bool = False, actor: str | None = None) -> int | None:
    """Run `command` on the warm server as `actor` and print its answer; the exit code, or None to
    run in-process (also when the server answers as another actor than this command's)."""
    if pinned_time or os.environ.get("MEMCTL_NOW") or (command == "add" and args.get("llm")):
        return None  # the server's clock is its own, and an LLM command would run in its process
    if os.environ.get("MEMCTL_STORE"):
        return None  # a store named for this command may not be the one the server opened
    url = client.server_for(directory, _warn_once)
    if url is None:
        if command in AUTO_COMMANDS:
            _auto_start(directory)
        return None
    if command in TEXT_ARGUMENT:
        try:
            args = {**args, TEXT_ARGUMENT[command]: read_text(args.get(TEXT_ARGUMENT[command]))}
        except MemctlError as exc:
            render.error(command, as_json, exc.code, exc.message, exc.data)
            return exc.exit_code
    try:
        reply = client.call(url, command, args, actor)
    except client.NoAnswer as exc:
        return _no_answer(command, as_json, exc, url)
    if reply.status not in client.EXIT_BY_STATUS:  # refused by the server (token, host): not the command
        return _no_answer(command, as_json, client.NoAnswer(_first_error(reply.envelope), sent=False), url)
    _print_reply(command, args, as_json, quiet, reply)
    return reply.exit_code


def _warn_once(message: str) -> None:
    """A warning about the server record, once a process (the typer path asks again after the fast path)."""
    if message not in _SAID:
        _SAID.add(message)
        output.warn(message)


def _auto_start(directory: str | None) -> None:
    """`[server] auto`: start the folder's server in the background (once a process); never waits."""
    root = None if os.environ.get("MEMCTL_SERVER") else client.root_for(directory)
    if root is not None and root not in _SAID:
        _SAID.add(root)
        from memctl.cli.autostart import maybe_start

        maybe_start(root)


def _print_reply(command: str, args: dict[str, Any], as_json: bool, quiet: bool, reply: client.Reply) -> None:
    """The reply, printed in the same order the in-process run prints (warnings around the result)."""
    envelope = reply.envelope
    if envelope.get("ok"):
        render.warnings(reply.warnings)
        render.result(command, as_json, envelope.get("data"), lambda d: render.HUMAN[command](d, args), quiet)
        return
    error = (envelope.get("errors") or [{}])[0]
    render.error(command, as_json, str(error.get("code", "error")), str(error.get("message", "")), envelope.get("data"))
    render.warnings(reply.warnings)


def _first_error(envelope: dict[str, Any]) -> str:
    errors = envelope.get("errors") or [{}]
    return f"the server refused: {errors[0].get('message', 'no reason given')}"


def _no_answer(command: str, as_json: bool, exc: client.NoAnswer, url: str) -> int | None:
    """No usable answer: run in-process, unless an add may already be written or the user named the server."""
    if exc.sent and command == "add":
        render.error(command, as_json, "server_failed",
                     f"{exc}; the memory may have been written (see `memctl list`)")
        return 1
    if os.environ.get("MEMCTL_SERVER", "").rstrip("/") == url:
        output.warn(f"MEMCTL_SERVER {url}: {exc}; running in-process")
    return None


def fast_path(argv: list[str]) -> int | None:
    """Forward a plainly spelled command line without loading typer; None: let the typer app run it."""
    invocation = parse(argv)
    if invocation is None:
        return None
    return forward(invocation.command, invocation.args, invocation.as_json, invocation.quiet,
                   invocation.directory, actor=invocation.actor or os.environ.get("MEMCTL_ACTOR") or None)


def parse(argv: list[str]) -> Invocation | None:
    """A command line of a forwardable command, or None when it is anything else."""
    inv: Invocation | None = None
    directory, actor, as_json, words = None, None, False, list(argv)
    while words:
        word = words.pop(0)
        if word in ("-d", "--dir") or word.startswith("--dir="):
            directory = word.partition("=")[2] if "=" in word else (words.pop(0) if words else None)
            if not directory or directory.startswith("-"):
                return None
        elif word == "--actor" or word.startswith("--actor="):
            actor = word.partition("=")[2] if "=" in word else (words.pop(0) if words else None)
            if not actor or actor.startswith("-"):
                return None
        elif word == "--json":
            as_json = True
        elif inv is None:
            if word not in OPTIONS:
                return None  # another command, a global option we do not handle (--now, --help), or none
            inv = Invocation(word)
        elif not _take(inv, word, words):
            return None
    if inv is None or len(inv.args.get("_positional", [])) > 1:
        return None
    for value in inv.args.pop("_positional", []):
        inv.args[POSITIONAL[inv.command]] = value
    inv.directory, inv.actor, inv.as_json = directory, actor, as_json
    return inv


def _take(inv: Invocation, word: str, words: list[str]) -> bool:
    """Consume one word after the command (and its value); False when the fast path must give up."""
    if word in ("-q", "--quiet") and inv.command in QUIET:
        inv.quiet = True
        return True
    if word == "-" or not word.startswith("-"):
        if inv.command not in POSITIONAL:
            return False
        inv.args.setdefault("_positional", []).append(word)
        return True
    name, eq, inline = word.partition("=") if word.startswith("--") else (word, "", "")
    option = OPTIONS[inv.command].get(name)
    if option is None:
        return False  # --help, --, -k5, an unknown option: typer says it best
    target, flag_value = option
    param = PARAMS[inv.command][target]
    if param.kind in ("flag", "switch"):
        if eq:
            return False
        inv.args[target] = flag_value
        return True
    raw = inline if eq else (words.pop(0) if words else None)
    if raw is None or (raw.startswith("-") and raw != "-"):
        return False
    value = _convert(param, raw)
    if value is None:
        return False
    if param.kind == "texts":
        inv.args.setdefault(target, []).append(value)
    else:
        inv.args[target] = value
    return True


def _convert(param: Param, raw: str) -> Any:
    """An option value typed as typer would, or None when typer would refuse it (it reports it)."""
    value: Any = raw
    if param.kind == "int":
        value = int(raw) if _INT.fullmatch(raw) else None
    elif param.kind == "float":
        value = float(raw) if _FLOAT.fullmatch(raw) else None
    if value is None or isinstance(value, str):
        return value
    if (param.low is not None and value < param.low) or (param.high is not None and value > param.high):
        return None
    return value
