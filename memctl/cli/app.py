"""The `memctl` command line: parse, call the library, render. No file access here."""

from __future__ import annotations

import os
import sys

# The CLI uses no pydantic plugins; skipping their discovery saves an entry-point scan at start-up.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer
from typing_extensions import Annotated

from memctl import clock
from memctl.cli import output as render
from memctl.errors import EXIT_USAGE, InvalidMemory, MemctlError, UsageError

app = typer.Typer(
    add_completion=False, no_args_is_help=True, rich_markup_mode=None, invoke_without_command=True,
    help="Readable long-term memory for AI agents: Markdown files, a write gate, hybrid recall.\n\n"
         "Exit codes: 0 ok, 1 error, 2 usage / bad input, 3 refused by policy, 4 not found.",
)


class State:
    dir: Optional[str] = None


STATE = State()

Json = Annotated[bool, typer.Option("--json", help="Print one JSON envelope on stdout.")]
User = Annotated[Optional[str], typer.Option("--user", "-u", help="User the memory belongs to.")]
Project = Annotated[Optional[str], typer.Option("--project", "-p", help="Project scope.")]
Session = Annotated[Optional[str], typer.Option("--session", "-s", help="Session id (short-term scope).")]
TypeOpt = Annotated[Optional[str], typer.Option("--type", "-t", help="Memory type (see memctl.toml).")]
Tag = Annotated[Optional[str], typer.Option("--tag", help="Only memories with this tag.")]
Tags = Annotated[Optional[List[str]], typer.Option("--tag", help="Tag (repeatable).")]
Status = Annotated[str, typer.Option("--status", help="active, superseded, merged, expired, forgotten, or all.")]
MemoryId = Annotated[str, typer.Argument(help="Memory id (or a unique prefix of at least 4 characters).")]
Text = Annotated[str, typer.Argument(help="The memory text, or - to read it from stdin.")]


@app.callback()
def _global(
    ctx: typer.Context,
    dir: Annotated[Optional[str], typer.Option("--dir", "-d", help="Memory directory (else MEMCTL_DIR, else the nearest memctl.toml).")] = None,
    now: Annotated[Optional[str], typer.Option("--now", help="Evaluate expiry, decay and rate limits at this time (or MEMCTL_NOW).")] = None,
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.", is_eager=True)] = False,
) -> None:
    """Readable long-term memory for AI agents."""
    if version:
        from memctl import __version__

        sys.stdout.write(f"memctl {__version__}\n")
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        sys.stderr.write(ctx.get_help() + "\n")
        raise typer.Exit(EXIT_USAGE)
    STATE.dir = dir
    clock.set_now(None)
    if now:
        try:
            clock.set_now(clock.parse_timestamp(now))
        except MemctlError as exc:
            render.error_line(exc.message)
            raise typer.Exit(EXIT_USAGE)


def store():
    """Open the memory directory named by --dir / MEMCTL_DIR / the working directory."""
    from memctl.api import MemoryStore

    return MemoryStore.open(STATE.dir)


def read_text(text: str) -> str:
    """The TEXT argument, or stdin when it is `-`."""
    if text != "-":
        return text
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidMemory("stdin is not UTF-8 text", code="not_utf8") from None


def run(command: str, as_json: bool, action: Callable[[], Any], human: Callable[[Any], None]) -> None:
    """Run an action; render its result or its error in the one output contract."""
    try:
        data = action()
    except MemctlError as exc:
        _emit_error(command, as_json, exc)
        raise typer.Exit(exc.exit_code)
    except KeyboardInterrupt:
        raise typer.Exit(130)
    finally:
        _flush_warnings()
    if as_json:
        render.print_json(render.envelope(command, True, data))
    else:
        human(data)


def _emit_error(command: str, as_json: bool, exc: MemctlError) -> None:
    if as_json:
        errors = [{"code": exc.code, "message": exc.message}]
        render.print_json(render.envelope(command, False, exc.data, errors))
    else:
        render.error_details(exc.data)
        render.error_line(exc.message)


def _flush_warnings() -> None:
    from memctl import api
    for message in api.drain_warnings():
        render.warn(message)


from memctl.cli.commands import bulk, lifecycle, memories, prompt, search, servers  # noqa: E402,F401  (register the commands on `app`)


def main() -> None:
    """Console entry point: maps click usage errors to exit code 2 and the JSON envelope."""
    ex = _click_exceptions()
    _only_the_invoked_command(sys.argv[1:])
    try:
        code = app(standalone_mode=False)
    except ex.UsageError as exc:
        _usage_error(exc)
        code = EXIT_USAGE
    except ex.Abort:
        code = 130
    except ex.Exit as exc:
        code = exc.exit_code
    except BrokenPipeError:
        code = 0
    sys.exit(code or 0)


_VALUE_OPTIONS = {"-d", "--dir", "--now"}  # global options that take a value


def _only_the_invoked_command(argv: list[str]) -> None:
    """Keep just the command being run: typer builds a click command for every registered one on
    each start (about 15 ms for 23 commands). `--help` and unknown names keep them all."""
    words = iter(argv)
    for word in words:
        if word in _VALUE_OPTIONS:
            next(words, None)
        elif not word.startswith("-"):
            chosen = [c for c in app.registered_commands if (c.name or c.callback.__name__) == word]
            if chosen:
                app.registered_commands = chosen
            return


def _click_exceptions():  # typer >= 0.20 vendors click as typer._click; older typer uses click itself
    try:
        from typer._click import exceptions
    except ImportError:  # pragma: no cover
        from click import exceptions
    return exceptions


def _usage_error(exc: Exception) -> None:
    argv = sys.argv[1:]
    if not argv:
        sys.stderr.write(str(exc).rstrip() + "\n")
        return
    if "--json" in argv:
        names = {c.name or c.callback.__name__ for c in app.registered_commands}
        command = next((a for a in argv if a in names), "memctl")
        render.print_json(render.envelope(command, False, None, [{"code": "usage", "message": str(exc)}]))
    else:
        render.error_line(f"{exc} (see --help)")
