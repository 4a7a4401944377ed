"""The `memctl` entry point: a command a warm server can answer goes to it before typer is loaded.

Everything else, and any command line the fast path does not fully understand, runs the typer app
(cli/main.py), which forwards to the server too when one runs.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> None:
    """Console entry point (exit codes: see the README)."""
    argv = sys.argv[1:] if argv is None else argv
    if os.environ.get("_MEMCTL_COMPLETE") or argv[:1] == ["--show-completion"]:
        sys.exit(_completion(argv))
    if _is_hook(argv):  # Claude Code waits for it on every prompt: no typer, and it never fails
        from memctl.cli.claude_hooks import run

        sys.exit(run(argv))
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


def _is_hook(argv: list[str]) -> bool:
    """`[-d DIR] hooks run claude ...`: the command line of an installed hook."""
    words = argv[2:] if argv[:1] in (["-d"], ["--dir"]) else argv
    return words[:3] == ["hooks", "run", "claude"]


def _completion(argv: list[str]) -> int:
    """A Tab (the shell's script set _MEMCTL_COMPLETE) or `--show-completion [SHELL]`: no typer."""
    from memctl.cli.complete import SHELLS, complete, script

    if os.environ.get("_MEMCTL_COMPLETE"):
        return complete()
    text = script(argv[1] if len(argv) > 1 else None)
    if text is None:
        sys.stderr.write(f"memctl: error: --show-completion takes one of {', '.join(SHELLS)}\n")
        return 2
    sys.stdout.write(text)
    return 0
