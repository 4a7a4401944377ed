"""The `memctl` entry point: a command a warm server can answer goes to it before typer is loaded.

Everything else, and any command line the fast path does not fully understand, runs the typer app
(cli/main.py), which forwards to the server too when one runs.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """Console entry point (exit codes: see the README)."""
    argv = sys.argv[1:] if argv is None else argv
    from memctl.cli.forward import fast_path

    try:
        code = fast_path(argv)
    except BrokenPipeError:  # `memctl list | head -1`: the reader left, which is fine
        code = 0
    except KeyboardInterrupt:
        code = 130
    if code is not None:
        sys.exit(code)
    from memctl.cli.main import main as run_app

    run_app(argv)
