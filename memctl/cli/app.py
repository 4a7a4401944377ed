"""The typer app, its global options, the options commands share, and `run` (call, render, map errors).

Commands live in cli/commands/ (one module per topic) and are registered by cli/main.py in the
order `--help` lists them. A command parses its arguments, calls one MemoryStore method, renders.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, List, Optional

# The CLI uses no pydantic plugins; skipping their discovery saves an entry-point scan at start-up.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
from typing_extensions import Annotated

from memctl import clock
from memctl.cli import output, render
from memctl.errors import EXIT_USAGE, MemctlError

if TYPE_CHECKING:
    from memctl.api import MemoryStore

VALUE_GLOBALS = {"-d": "--dir", "--dir": "--dir", "--now": "--now", "--actor": "--actor"}  # global options with a value
FLAG_AFTER = ("--json",)  # command options also accepted before the command name


def hoist_globals(args: list[str], commands: set[str]) -> list[str]:
    """Accept global options on either side of the command: `memctl compact --now T` and
    `memctl --json list` work like `memctl --now T compact` and `memctl list --json`."""
    before: list[str] = []
    after: list[str] = []
    i = 0
    while i < len(args) and args[i] not in commands:
        word = args[i]
        if word in VALUE_GLOBALS and i + 1 < len(args):
            before += args[i:i + 2]
            i += 2
            continue
        (after if word in FLAG_AFTER else before).append(word)
        i += 1
    if i == len(args):
        return args  # no command: leave everything to click (it shows help or the error)
    command, rest, i = args[i], [], i + 1
    while i < len(args):
        word = args[i]
        if word == "--":
            rest += args[i:]
            break
        name = word.split("=", 1)[0]
        if name in ("--dir", "--now", "--actor") and "=" in word:
            before.append(word)
        elif word in VALUE_GLOBALS and i + 1 < len(args):
            before += args[i:i + 2]
            i += 1
        else:
            rest.append(word)
        i += 1
    return [*before, command, *after, *rest]


def _flag_type(self: TyperOption, ctx: Any) -> str | None:
    """Help shows no `<bool>` after a flag (`--json`, not `--json <bool>`)."""
    return None if self.is_flag else _value_type(self, ctx)


def _argument_type(self: TyperArgument, ctx: Any) -> str | None:
    """Arguments are named by their metavar alone (`QUERY`, not `QUERY <str>`)."""
    return None


_value_type = TyperOption.display_type_rich
TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign]
TyperArgument.display_type_rich = _argument_type  # type: ignore[method-assign,assignment]


def _help_for_here(command: Any, ctx: Any, formatter: Any, render: Callable[[Any, Any], None]) -> None:
    """Help as rich panels on a terminal, with every bracketed word kept (`[recall] k` is text, not
    markup); plain click text when stdout is a pipe or a file (no box drawing to grep through)."""
    if not output.is_terminal():
        saved, command.rich_markup_mode = command.rich_markup_mode, None
        try:
            render(ctx, formatter)
        finally:
            command.rich_markup_mode = saved
        return
    from rich.markup import escape

    saved_help = command.help
    saved_params = [(p, getattr(p, "help", None)) for p in command.params]
    command.help = escape(command.help) if command.help else command.help
    for param, text in saved_params:
        if text:
            param.help = escape(text)
    try:
        render(ctx, formatter)
    finally:
        command.help = saved_help
        for param, text in saved_params:
            param.help = text


class MemctlCommand(TyperCommand):
    """A command whose help keeps every word and is plain in a pipe."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _help_for_here(self, ctx, formatter, super().format_help)


class MemctlGroup(TyperGroup):
    """The top-level group: global options on either side of the command name; commands in
    registration order (the order of cli/main.py), not alphabetical."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hoist_globals(list(args), set(self.commands)))

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _help_for_here(self, ctx, formatter, super().format_help)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """Plain help (a pipe): the commands under their panels' names, in registration order."""
        panels: dict[str, list[tuple[str, str]]] = {}
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            panel = getattr(command, "rich_help_panel", None) or "Commands"
            panels.setdefault(panel, []).append((name, command.get_short_help_str(limit=formatter.width - 14)))
        for panel, rows in panels.items():
            with formatter.section(panel):
                formatter.write_dl(rows)

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, windows_expand_args: bool = True, **extra: Any) -> Any:
        """Run; a usage error (unknown option, bad value) is one line on stderr, or the JSON envelope
        under --json, and exit code 2, never a traceback."""
        from typer._click import exceptions as click_errors  # vendored click: its UsageError is not public

        argv = list(sys.argv[1:] if args is None else args)
        try:
            code = super().main(argv, prog_name or "memctl", complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        except click_errors.UsageError as exc:
            usage_error(exc.format_message(), argv, next((a for a in argv if a in self.commands), None))
            code = EXIT_USAGE
        except typer.Exit as exc:
            code = exc.exit_code
        except typer.Abort:
            code = 130
        except BrokenPipeError:
            code = 0
        if standalone_mode:
            sys.exit(code or 0)
        return code


def usage_error(message: str, argv: list[str], command: str | None) -> None:
    """Report a usage error in the output contract."""
    if "--json" in argv:
        output.print_json(output.envelope(command or "memctl", False, None, [{"code": "usage", "message": message}]))
        return
    where = f"memctl {command}" if command else "memctl"
    output.error_line(f"{message} (see `{where} --help`)")


app = typer.Typer(
    cls=MemctlGroup, no_args_is_help=True, rich_markup_mode="rich", invoke_without_command=True, add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Readable long-term memory for AI agents: Markdown files, a write gate, hybrid recall.\n\n"
         "Exit codes: 0 ok, 1 error, 2 usage / bad input, 3 refused by policy, 4 not found.",
)


class State:
    """What the global options set for the command being run."""

    def __init__(self) -> None:
        self.dir: Optional[str] = None
        self.now: Optional[str] = None
        self.actor: Optional[str] = None
        self.stores: list[MemoryStore] = []
        self.command: contextlib.ExitStack | None = None  # the running command's stores' reads (run)


STATE = State()

# -- options shared by many commands ---------------------------------------------------------------
Json = Annotated[bool, typer.Option("--json", help="Print one JSON envelope on stdout.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the ids of the memories, one per line.")]
User = Annotated[Optional[str], typer.Option("--user", "-u", metavar="USER", help="User the memory belongs to.")]
Users = Annotated[Optional[List[str]], typer.Option("--user", "-u", metavar="USER", help="User scope (repeatable).")]
Project = Annotated[Optional[str], typer.Option("--project", "-p", metavar="PROJECT", help="Project scope.")]
Projects = Annotated[Optional[List[str]], typer.Option("--project", "-p", metavar="PROJECT",
                                                       help="Project scope (repeatable).")]
Session = Annotated[Optional[str], typer.Option("--session", "-s", metavar="SESSION", help="Session id (short-term scope).")]
TypeOpt = Annotated[Optional[str], typer.Option("--type", "-t", metavar="TYPE", help="Memory type (see memctl.toml).")]
Tag = Annotated[Optional[str], typer.Option("--tag", metavar="TAG", help="Only memories with this tag.")]
Tags = Annotated[Optional[List[str]], typer.Option("--tag", metavar="TAG", help="Tag (repeatable).")]
Status = Annotated[str, typer.Option("--status", metavar="STATUS",
                                     help="active, superseded, merged, expired, forgotten, or all.")]
Llm = Annotated[Optional[str], typer.Option("--llm", metavar="COMMAND",
                                            help="LLM command (prompt on stdin, answer on stdout).")]
MemoryId = Annotated[str, typer.Argument(metavar="ID", help="Memory id (or a unique prefix of at least 4 characters).",
                                         show_default=False)]
Text = Annotated[Optional[str], typer.Argument(metavar="TEXT", show_default=False,
                                               help="The memory text; - or no TEXT reads it from stdin.")]


@app.callback()
def _global(
    ctx: typer.Context,
    dir: Annotated[Optional[str], typer.Option("--dir", "-d", metavar="DIR",
                                               help="Memory directory (else MEMCTL_DIR, else the nearest memctl.toml).")] = None,
    now: Annotated[Optional[str], typer.Option("--now", metavar="TIME",
                                               help="Evaluate expiry, decay and rate limits at this time (or MEMCTL_NOW).")] = None,
    actor: Annotated[Optional[str], typer.Option("--actor", metavar="NAME", envvar="MEMCTL_ACTOR", show_envvar=False,
                                                 help="Act as this person: roles and visibility apply (or MEMCTL_ACTOR).")] = None,
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.", is_eager=True)] = False,
    show_completion: Annotated[Optional[str], typer.Option(
        "--show-completion", metavar="SHELL", help="Print the completion script of bash, zsh or fish: "
        'eval "$(memctl --show-completion bash)" in ~/.bashrc.')] = None,
) -> None:
    """Readable long-term memory for AI agents."""
    if show_completion is not None:
        from memctl.cli.complete import SHELLS, script

        text = script(show_completion)
        if text is None:
            output.error_line(f"--show-completion takes one of {', '.join(SHELLS)}")
            raise typer.Exit(EXIT_USAGE)
        sys.stdout.write(text)
        raise typer.Exit(0)
    if version:
        from memctl._version import __version__

        sys.stdout.write(f"memctl {__version__}\n")
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        sys.stderr.write(ctx.get_help() + "\n")
        raise typer.Exit(EXIT_USAGE)
    if dir is not None and not dir.strip():
        output.error_line("--dir: an empty directory name (give a path, or leave --dir out)")
        raise typer.Exit(EXIT_USAGE)
    STATE.dir, STATE.now, STATE.actor = dir, now, actor
    clock.set_now(None)
    if now:
        try:
            clock.set_now(clock.parse_timestamp(now))
        except MemctlError as exc:
            output.error_line(f"--now: {exc.message}")
            raise typer.Exit(EXIT_USAGE) from None


def open_store() -> "MemoryStore":
    """Open the memory directory named by --dir / MEMCTL_DIR / the working directory."""
    from memctl.api import MemoryStore

    store = MemoryStore.open(STATE.dir, actor=STATE.actor)
    STATE.stores.append(store)
    if STATE.command is not None:  # one CLI command is one command of the store: one folder scan
        STATE.command.enter_context(store.repo.command())
    return store


def run(command: str, as_json: bool, action: Callable[[], Any], human: Callable[[Any], None],
        quiet: bool = False) -> None:
    """Run an action; render its result or its error in the one output contract."""
    with contextlib.ExitStack() as scope:
        STATE.command = scope
        try:
            data = action()
        except MemctlError as exc:
            render.error(command, as_json, exc.code, exc.message, exc.data)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
        finally:
            _flush_warnings()
            STATE.command = None
    render.result(command, as_json, data, human, quiet)


def run_command(command: str, args: dict[str, Any], as_json: bool, quiet: bool = False) -> None:
    """A command a warm server can answer (memctl.agents.commands): through the server of this
    directory when one runs, else in-process; the same output either way."""
    from memctl.cli.forward import forward

    code = forward(command, args, as_json, quiet, STATE.dir, pinned_time=STATE.now is not None, actor=STATE.actor)
    if code is not None:
        raise typer.Exit(code)

    def action() -> dict[str, Any]:
        from memctl.agents.commands import normalise
        from memctl.agents.commands import run as run_data
        from memctl.cli.forward import TEXT_ARGUMENT
        from memctl.cli.inputs import read_text

        given = dict(args)
        if command in TEXT_ARGUMENT:
            given[TEXT_ARGUMENT[command]] = read_text(given.get(TEXT_ARGUMENT[command]))
        return run_data(open_store(), command, normalise(command, given))

    run(command, as_json, action, lambda data: render.HUMAN[command](data, args), quiet)


def _flush_warnings() -> None:
    for store in STATE.stores:
        render.warnings(store.drain_warnings())
    STATE.stores.clear()
