"""Test helpers: run the CLI in-process and read its JSON envelope."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memctl.cli.main import app

ROOT = Path(__file__).resolve().parent.parent  # the repository
TESTS = ROOT / "tests"
FAKE_LLM = f"{sys.executable} {TESTS / 'fake_llm.py'}"  # a stand-in LLM command (see fake_llm.py)


def cli(root: Path | None, *args: str, input: str | bytes | None = None, env: dict | None = None):
    """Invoke memctl in-process (CliRunner); returns the click Result."""
    argv = (["-d", str(root)] if root is not None else []) + list(args)
    return CliRunner().invoke(app, argv, input=input, env=env, catch_exceptions=False)


def cli_json(root: Path | None, *args: str, **kwargs: Any) -> tuple[int, dict]:
    """Invoke with --json; returns (exit code, parsed envelope)."""
    result = cli(root, *args, "--json", **kwargs)
    return result.exit_code, json.loads(result.stdout)


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every memory-directory file except caches, for 'nothing changed on disk' checks."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".memctl" not in p.parts}


def memory_texts(root: Path) -> dict[str, bytes]:
    """Every memory of a store as its file: a folder's files (by relative path, MEMORY.md left out), or
    for a database the path and exact text each memory's file has (what `export --to folder` writes)."""
    from memctl.api import MemoryStore

    repo = MemoryStore(root).repo
    if repo.kind == "files":
        return {k: v for k, v in tree_bytes(root).items()
                if k.startswith(("users/", "projects/", "archive/")) and not k.endswith("/MEMORY.md")}
    return {str(m.path): repo.original(m)["text"].encode("utf-8") for m in repo.all_memories()}


def use_hashing_embedder(root: Path) -> Path:
    """For tests that run memctl in another process: configure the directory's model as `hashing`."""
    config = root / "memctl.toml"
    config.write_text(config.read_text().replace('model = "memctl/all-MiniLM-L6-v2-int8"', 'model = "hashing"'))
    return root


CLAUDE_FIXTURE = TESTS / "fixtures" / "claude"  # a hand-written Claude Code memory folder


def claude_folder(tmp_path: Path, name: str = "memory") -> Path:
    """A private copy of the fixture Claude Code folder (not yet adopted), safe to change."""
    import shutil

    target = tmp_path / "projects" / "-home-dana-code-ingest" / name
    shutil.copytree(CLAUDE_FIXTURE, target)
    return target
