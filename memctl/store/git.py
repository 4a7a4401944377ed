"""Running git for memctl: a three-way line merge, a repository's config, a file's history.

A memory folder's repository is someone else's (issue 21): its config may name programs for git to
run (core.fsmonitor, diff.external, textconv, gpg.program, a pager, hooks). memctl only runs git
commands that run none of them, turns those off explicitly besides, never lets git prompt, and
bounds every call by a timeout and its output by a size. git itself is the only program started.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from memctl.errors import StoreError

TIMEOUT = 20.0  # seconds for one git command
MAX_OUTPUT = 16 * 1024 * 1024  # bytes read from one git command
# What a repository's config could make git run, turned off for every command memctl runs.
SAFE_CONFIG = ("core.fsmonitor=", "core.hooksPath=/dev/null", "core.pager=cat", "diff.external=",
               "log.showSignature=false", "gpg.program=false", "core.sshCommand=false", "credential.helper=",
               "core.askPass=false", "protocol.allow=never", "safe.bareRepository=explicit")


def git_env(own_config: bool = True) -> dict[str, str]:
    """The environment git runs in: the caller's, less what a merge or a hook set (GIT_DIR and
    friends point at the repository being merged), never prompting; without `own_config` no system
    or global config either (a merge of two texts needs none)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    if not own_config:
        env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return env


def run_git(args: list[str], cwd: Path, own_config: bool = True, timeout: float = TIMEOUT,
            stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """`git <SAFE_CONFIG> <args>` in `cwd`; StoreError when git is missing or too slow, or its
    output is over MAX_OUTPUT. The exit code is the caller's to read."""
    command = ["git"]
    for setting in SAFE_CONFIG:
        command += ["-c", setting]
    try:
        done = subprocess.run(command + args, cwd=cwd, env=git_env(own_config), input=stdin if stdin is not None else b"",
                              capture_output=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise StoreError("git is not installed (memctl's git commands need it)", code="no_git") from None
    except subprocess.TimeoutExpired:
        raise StoreError(f"git {args[0]} took over {timeout:.0f} s", code="git_timeout") from None
    if len(done.stdout) > MAX_OUTPUT:
        raise StoreError(f"git {args[0]} wrote over {MAX_OUTPUT // (1024 * 1024)} MB", code="git_output")
    return done


def merge_lines(base: str, ours: str, theirs: str, union: bool = False) -> tuple[str, bool]:
    """Three-way line merge of three texts by `git merge-file` (run on copies in a private temp
    folder, outside any repository): the merged text and whether conflicts remain (marked in it,
    unless `union` keeps both sides' lines)."""
    with tempfile.TemporaryDirectory(prefix="memctl-merge-") as folder:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_bytes(text.encode("utf-8"))
            paths.append(str(path))
        done = run_git(["merge-file", "-p", *(["--union"] if union else []), *paths], Path(folder), own_config=False)
    if done.returncode < 0 or done.returncode > 127:
        raise StoreError(f"git merge-file failed: {done.stderr.decode('utf-8', 'replace').strip()[:200]}",
                         code="git_merge_file")
    return done.stdout.decode("utf-8", errors="replace"), done.returncode > 0


def repo_top(folder: Path) -> Path | None:
    """The top of the git work tree holding `folder`, or None when it is in none (or git is missing)."""
    if not any((p / ".git").exists() for p in (folder.resolve(), *folder.resolve().parents)):
        return None
    try:
        done = run_git(["rev-parse", "--show-toplevel"], folder)
    except StoreError:
        return None
    top = done.stdout.decode("utf-8", errors="replace").strip()
    return Path(top) if done.returncode == 0 and top else None


def set_config(top: Path, key: str, value: str) -> None:
    """Set `key` in the repository's own config (.git/config), never the user's or the system's."""
    done = run_git(["config", "--local", key, value], top)
    if done.returncode != 0:
        raise StoreError(f"git config {key} failed: {done.stderr.decode('utf-8', 'replace').strip()[:200]}",
                         code="git_config")


def tracked(top: Path, paths: list[str]) -> list[str]:
    """Which of `paths` (relative to `top`, patterns allowed) git tracks."""
    done = run_git(["ls-files", "-z", "--", *paths], top)
    return [p for p in done.stdout.decode("utf-8", errors="replace").split("\0") if p] if done.returncode == 0 else []


def read_version(path: str, limit: int) -> str | None:
    """One version of a file git hands its merge driver (a temp file it wrote): its text, "" when
    it is empty, None when it is over `limit` bytes or unreadable (the driver then leaves it to git)."""
    from memctl.store.files import read_bounded

    try:
        return read_bounded(Path(path), limit).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def write_result(path: str, text: str) -> None:
    """The driver's result, over the version git asked it to merge into."""
    from memctl.store.files import write_atomic

    write_atomic(Path(path), text)


def write_beside(rel: str, name: str, text: str, top: Path | None = None) -> str:
    """A new file `name` in the folder of `rel` (a path in the work tree, relative to its top, where
    git runs the driver); StoreError for a path out of the tree or a name already taken. Returns the
    new file's path relative to the top."""
    from memctl.store.files import write_atomic

    top = (top or Path.cwd()).resolve()
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or ".." in parts or "/" in name or name.startswith("."):
        raise StoreError(f"refusing to write beside {rel!r}", code="unsafe_path")
    folder = (top / rel).parent
    if not folder.resolve().is_relative_to(top) or not folder.is_dir():
        raise StoreError(f"{folder} is not a folder of the work tree", code="unsafe_path")
    target = folder / name
    if not target.exists():
        write_atomic(target, text)
    return target.relative_to(top).as_posix()
