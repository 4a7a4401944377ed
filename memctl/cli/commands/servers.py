"""Agent-facing servers: `memctl mcp` (Model Context Protocol over stdio) and `memctl serve` (local HTTP)."""

from __future__ import annotations

import logging
import sys
from typing import Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import open_store, run

DefaultUser = Annotated[Optional[str], typer.Option("--user", "-u", metavar="USER", help="Default user for calls that name none.")]
DefaultProject = Annotated[Optional[str], typer.Option("--project", "-p", metavar="PROJECT", help="Default project for calls that name none.")]


def _log_to_stderr(name: str) -> None:
    # stdout belongs to the protocol (mcp) or stays quiet (serve): memctl's log lines go to stderr;
    # only memctl's logger, so third-party INFO chatter stays off
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"memctl {name}: %(message)s"))
    logger = logging.getLogger("memctl")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)


def mcp(user: DefaultUser = None, project: DefaultProject = None) -> None:
    """Serve memory tools (recall, add, context, forget, list) to an agent over stdio (MCP)."""
    from memctl.agents.mcp import Defaults, serve_stdio

    _log_to_stderr("mcp")
    raise typer.Exit(serve_stdio(open_store, Defaults(user=user, project=project)))


def serve(
    host: Annotated[str, typer.Option(metavar="HOST", help="Address to listen on (loopback unless --allow-remote).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(metavar="PORT", min=0, max=65535, help="Port to listen on (0 picks a free one).")] = 8765,
    allow_remote: Annotated[bool, typer.Option("--allow-remote", help="Allow a non-loopback address (no authentication!).")] = False,
    user: DefaultUser = None, project: DefaultProject = None,
) -> None:
    """Serve a local HTTP JSON API (recall, add, context, list) with the model kept loaded."""
    from memctl.agents.http import make_server
    from memctl.agents.http import serve as serve_forever
    from memctl.agents.mcp import Defaults

    def action() -> dict:
        _log_to_stderr("serve")
        s = open_store()
        server = make_server(s, host, port, defaults=Defaults(user=user, project=project), allow_remote=allow_remote)
        sys.stderr.write("memctl serve: loading the model...\n")
        s.warm_up()
        serve_forever(server)
        return {"url": server.url}

    run("serve", False, action, lambda d: output.warn(f"serve stopped ({d['url']})"))


COMMANDS = [("mcp", mcp), ("serve", serve)]
