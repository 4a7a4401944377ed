"""Agent-facing servers: `memctl mcp` (Model Context Protocol over stdio) and `memctl serve` (local HTTP)."""

from __future__ import annotations

import importlib
import logging
import os
import sys
from typing import Any, Optional

import typer
from typing_extensions import Annotated

from memctl.cli import output
from memctl.cli.app import STATE, open_store, run
from memctl.errors import UsageError

DefaultUser = Annotated[Optional[str], typer.Option("--user", "-u", metavar="USER", help="Default user for calls that name none.")]
DefaultProject = Annotated[Optional[str], typer.Option("--project", "-p", metavar="PROJECT", help="Default project for calls that name none.")]
TrustSource = Annotated[bool, typer.Option("--trust-source",
                                           help="Believe the source a client gives (else its writes count as ai for the rate limit).")]


def _log_to_stderr(name: str) -> None:
    # stdout belongs to the protocol (mcp) or stays quiet (serve): memctl's log lines go to stderr;
    # only memctl's logger, so third-party INFO chatter stays off
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"memctl {name}: %(message)s"))
    logger = logging.getLogger("memctl")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)


def _one_blas_thread() -> None:
    """A server's matrix products are small (a query against the vector matrix: 10,000 x 384), one
    request at a time. OpenBLAS runs them on a pool of a thread per core whose threads spin while they
    wait: at load 7 on the 2-core machine one such product took 21 ms wall and 5.3 ms CPU, against
    0.53 ms for both with one thread (the same floats: each row's dot product is one thread's either
    way). Read when numpy loads, so set before anything imports it; a value the user set is kept."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _server_module(command: str, module: str) -> Any:
    """A server's module; without the `server` extra installed, one line saying so, not a traceback."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        output.error_line(f"memctl {command} needs the server extra ({exc.name} is missing): "
                          "pip install 'memctl[server]'")
        raise typer.Exit(1) from None


def mcp(user: DefaultUser = None, project: DefaultProject = None, trust_source: TrustSource = False) -> None:
    """Serve memory tools (search, add, context, update, forget, list, query) to an agent over stdio (MCP)."""
    _one_blas_thread()
    serve_stdio = _server_module("mcp", "memctl.agents.mcp").serve_stdio
    from memctl.agents.tools import Caller, Defaults

    _log_to_stderr("mcp")
    raise typer.Exit(serve_stdio(open_store, Caller("mcp", Defaults(user, project), trust_source)))


def _served_store(store_url: str | None, config_file: str | None) -> Any:
    """The store to serve: a database with no folder (--store / --config), else the directory (which
    falls back to MEMCTL_STORE's database when no memctl.toml is found)."""
    if store_url is None and config_file is None:
        return open_store()
    if STATE.dir:
        raise UsageError("--store and --config serve a database with no folder; --dir names a folder "
                         "(put the URL in its memctl.toml, or drop --dir)", code="bad_store")
    from memctl.api import MemoryStore

    store = MemoryStore.on_database(store_url, config_file, actor=STATE.actor)
    STATE.stores.append(store)
    return store


def serve(
    host: Annotated[str, typer.Option(metavar="HOST", help="Address to listen on; not loopback: MEMCTL_TOKEN or MEMCTL_TOKENS is required.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(metavar="PORT", min=0, max=65535, help="Port to listen on (0 picks a free one).")] = 8765,
    user: DefaultUser = None, project: DefaultProject = None,
    store_url: Annotated[Optional[str], typer.Option("--store", metavar="URL", show_default=False,
                                                     help="Serve this PostgreSQL database with no folder (or MEMCTL_STORE "
                                                          "when no memctl.toml is found): default settings, no "
                                                          ".memctl/server.json, so CLI commands do not forward here.")] = None,
    config_file: Annotated[Optional[str], typer.Option("--config", metavar="FILE", show_default=False,
                                                       help="With no folder: the settings of this memctl.toml (its [store] url "
                                                            "too, unless --store or MEMCTL_STORE names one).")] = None,
    trust_source: TrustSource = False,
    idle: Annotated[Optional[float], typer.Option("--idle", metavar="MINUTES", min=0.05, max=24 * 60, show_default=False,
                                                  help="Stop after this many minutes with no request (default: never).")] = None,
    stop: Annotated[bool, typer.Option("--stop", help="Stop the server of this directory (started by hand or by "
                                                      "[server] auto) and exit.")] = False,
) -> None:
    """Serve the REST API (and answer the CLI's commands) with the model kept loaded. Requests act as
    --actor (MEMCTL_ACTOR), or as the person their token names (MEMCTL_TOKENS=name=token,...).
    Several servers may share one PostgreSQL database (--store URL). A client's `source` is believed
    only with --trust-source (the CLI's own forwarded commands, from the same folder, always are).
    With `[server] auto = true` in memctl.toml, the first recall, context or add starts one by itself."""
    if stop:
        _stop()
        return
    _one_blas_thread()
    lock_fd = _handed_lock()
    serve_forever = _server_module("serve", "memctl.agents.serve").serve
    from memctl.agents.tools import Defaults

    def announce(url: str) -> None:
        sys.stderr.write(f"memctl serve: listening on {url} (docs {url}/docs; Ctrl-C to stop)\n")

    def action() -> dict:
        _log_to_stderr("serve")
        store = _served_store(store_url, config_file)
        sys.stderr.write("memctl serve: loading the model...\n")
        url = serve_forever(store, host, port, os.environ.get("MEMCTL_TOKEN") or None, Defaults(user, project), announce,
                            tokens=os.environ.get("MEMCTL_TOKENS"), trust_source=trust_source,
                            idle_minutes=idle, lock_fd=lock_fd)
        return {"url": url}

    def stopped(data: dict) -> None:  # a clean stop is news, not a warning; stderr, like the other lines
        sys.stderr.write(f"memctl serve: stopped ({data['url']})\n")

    run("serve", False, action, stopped)


def _handed_lock() -> int | None:
    """The directory's serve lock, when the CLI started this server by itself (cli/autostart.py)."""
    from memctl.cli.autostart import LOCK_FD_ENV

    given = os.environ.pop(LOCK_FD_ENV, "")
    return int(given) if given.isdigit() else None


def _stop() -> None:
    """`memctl serve --stop`: stop this directory's server, if one runs."""
    from memctl.agents.client import root_for
    from memctl.cli.autostart import stop
    from memctl.errors import NoDirectory

    def action() -> dict:
        root = root_for(STATE.dir)
        if root is None:
            raise NoDirectory("no memory directory found: pass --dir, set MEMCTL_DIR, or run `memctl init`")
        return stop(root)

    def stopped(data: dict) -> None:
        if data["stopped"] is None:
            sys.stderr.write(f"memctl serve: no server runs for {data['root']}\n")
        else:
            where = f" ({data['url']})" if data["url"] else ""
            sys.stderr.write(f"memctl serve: stopped pid {data['stopped']}{where}\n")

    run("serve", False, action, stopped)


COMMANDS = [("mcp", mcp), ("serve", serve)]
