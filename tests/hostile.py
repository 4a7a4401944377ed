"""Hostile memory folders, as someone who shares one through git could make them (issue 21), and an
in-process audit watch of what a command does with them.

Each builder turns an initialised folder into one kind of attack and returns what must never leak
(texts no command may print to the actor `mallory`, who is nobody's member):

- `poisoned_caches`: a malicious pickle in every cache file memctl reads or ever read from the
  folder's `.memctl/` (the keyword index's table of contents in whoosh's own format, the catalog,
  the vectors and their metadata, usage, the keyword state, models) and a forged server record
  naming a URL elsewhere;
- `links_outside`: symbolic links from the folder to a secret folder and file outside it (a user
  folder, a memory file, the template, a schema, a transcript folder, the `.memctl/` journal);
- `huge_values`: frontmatter values over the limits (a 5,000-digit number, a 2,000-item list, a
  9,000-character text) and a 5,000-digit number in a transcript line;
- `fail_open_values`: visibilities the rules do not know in a managed project;
- `forged_fields`: files claiming mallory as author where the claim must not widen anything (a
  members-only project memory, another person's personal memory), and journal lines claiming he
  made them.

`Watch` is an audit hook installed once per process and active only inside `watching()`: it records
a process started, a pickle naming a global memctl's caches never hold, a cache file opened in the
folder's `.memctl/`, and a file opened outside the places memctl may read.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

HEAD = "---\nid: {id}\ntype: fact\n{owner}\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n"
MEMBERS = '\n[projects.board.members]\ncarol = "owner"\nvic = "viewer"\n'
SECRET = "the layoffs are planned for January"  # in every memory mallory may not see
OUTSIDE = "outside-secret-7731"  # in every file outside the folder
CODE_EVENTS = {"os.system", "subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.startfile",
               "pty.spawn"}
SHARED_STATE = ("lock", "journal.jsonl", "compactions", "claude-index.json", ".gitignore")
PICKLED = {"whoosh", "memctl", "builtins", "__builtin__", "copyreg", "copy_reg", "collections", "array", "datetime", "_codecs"}
DANGEROUS = {"eval", "exec", "compile", "getattr", "__import__", "system", "open", "popen", "Popen", "run"}


def memory(memory_id: str, owner: str, body: str, extra: str = "") -> str:
    return HEAD.format(id=memory_id, owner=owner) + extra + "---\n" + body + "\n"


def base(root: Path) -> None:
    """What every hostile folder also holds: a managed project, one memory mallory may see."""
    from tests.helpers import use_hashing_embedder

    use_hashing_embedder(root)
    (root / "memctl.toml").write_text((root / "memctl.toml").read_text() + MEMBERS)
    for folder in ("users/mallory", "users/carol", "projects/board"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "users" / "mallory" / f"tea-{'a1a1a1a1'}.md").write_text(
        memory("a1a1a1a1", "user: mallory", "Mallory likes green tea"))
    (root / "projects" / "board" / "meeting-b2b2b2b2.md").write_text(
        memory("b2b2b2b2", "scope: project\nproject: board", "The board meets on Mondays", "visibility: public\n"))


class Payload:
    """Unpickling this runs a shell command (what the attacker's pickle does)."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple:
        return (os.system, (self.command,))


def poisoned_caches(root: Path, outside: Path) -> list[str]:
    import numpy as np

    from tests.cli.test_poisoned_caches import poisoned_toc

    marker = outside / "pwned"
    state = root / ".memctl"
    poisoned_toc(state / "keyword", f"touch {marker}")
    blob = pickle.dumps(Payload(f"touch {marker}"))
    for name in ("catalog.bin", "claude-catalog.bin", "usage.json", "usage.log", "keyword-state.json",
                 "keyword-state.digest", "kind-words.json", "models/model.onnx"):
        (state / name).parent.mkdir(parents=True, exist_ok=True)
        (state / name).write_bytes(blob)
    for vectors in ("vectors", "vectors-second"):
        (state / vectors).mkdir(exist_ok=True)
        np.save(state / vectors / "vectors.npy", np.array([Payload(f"touch {marker}")], dtype=object), allow_pickle=True)
        (state / vectors / "meta.json").write_text(json.dumps({"identity": "hashing", "dim": 384, "ids": ["a1a1a1a1"],
                                                              "hashes": ["x"], "shape": [1, 384], "crc32": 0}))
    (state / "server.json").write_text(json.dumps({"url": "http://127.0.0.1:9", "pid": os.getpid(), "key": "k",
                                                   "host": os.uname().nodename, "root": str(root.resolve()),
                                                   "version": "0", "started": "2026-01-01T00:00:00Z"}))
    return []


def links_outside(root: Path, outside: Path) -> list[str]:
    secret = outside / "secret"
    secret.mkdir()
    (secret / "eve-e3e3e3e3.md").write_text(memory("e3e3e3e3", "user: eve", f"Eve's note {OUTSIDE}"))
    (secret / "notes.txt").write_text(f"{OUTSIDE}\n")
    (secret / "template.md").write_text(f"{OUTSIDE} {{{{ memories }}}}\n")
    (secret / "trip.toml").write_text(f'[trip]\nfields = {{ dest = "text" }}\n# {OUTSIDE}\n')
    (root / "users" / "eve").symlink_to(secret)
    (root / "users" / "mallory" / "passwd.md").symlink_to(secret / "eve-e3e3e3e3.md")
    (root / "projects" / "board" / "notes.md").symlink_to(secret / "notes.txt")
    (root / "MEMORY.md.template").unlink(missing_ok=True)
    (root / "MEMORY.md.template").symlink_to(secret / "template.md")
    (root / "extract_prompt.md").unlink(missing_ok=True)
    (root / "extract_prompt.md").symlink_to(secret / "notes.txt")
    (root / "schemas").mkdir(exist_ok=True)
    (root / "schemas" / "trip.toml").symlink_to(secret / "trip.toml")
    (root / "transcripts").mkdir(exist_ok=True)
    (root / "transcripts" / "mallory").symlink_to(secret)
    (root / ".memctl").mkdir(exist_ok=True)
    (root / ".memctl" / "journal.jsonl").unlink(missing_ok=True)
    (root / ".memctl" / "journal.jsonl").symlink_to(secret / "notes.txt")
    return [OUTSIDE]


def huge_values(root: Path, outside: Path) -> list[str]:
    folder = root / "users" / "mallory"
    (folder / "int-c4c4c4c1.md").write_text(memory("c4c4c4c1", "user: mallory", "Huge number", "importance: " + "9" * 5000 + "\n"))
    (folder / "list-c4c4c4c2.md").write_text(
        memory("c4c4c4c2", "user: mallory", "Huge list", "tags: [" + ", ".join(f"t{i}" for i in range(2000)) + "]\n"))
    (folder / "text-c4c4c4c3.md").write_text(memory("c4c4c4c3", "user: mallory", "Huge text", "description: " + "x" * 9000 + "\n"))
    (root / "transcripts" / "mallory").mkdir(parents=True, exist_ok=True)
    (root / "transcripts" / "mallory" / "chat1.jsonl").write_text(
        json.dumps({"id": "chat1:1", "role": "user", "content": "hi"})[:-1] + ', "n": ' + "9" * 5000 + "}\n")
    return []


def fail_open_values(root: Path, outside: Path) -> list[str]:
    for n, value in enumerate(("owner-only", "private", "Owner_Only"), start=1):
        (root / "projects" / "board" / f"odd-d5d5d5d{n}.md").write_text(memory(
            f"d5d5d5d{n}", "scope: project\nproject: board", f"Board-only note: {SECRET}",
            f"author: carol\nvisibility: {value}\n"))
    return [SECRET]


def forged_fields(root: Path, outside: Path) -> list[str]:
    (root / "projects" / "board" / "forged-f6f6f6f1.md").write_text(memory(
        "f6f6f6f1", "scope: project\nproject: board", f"Members only: {SECRET}", "author: mallory\nvisibility: members\n"))
    (root / "users" / "carol" / "forged-f6f6f6f2.md").write_text(memory(
        "f6f6f6f2", "user: carol", f"Carol's own note: {SECRET}", "author: mallory\nvisibility: public\n"))
    (root / ".memctl").mkdir(exist_ok=True)
    forged = [{"op": "add", "id": i, "time": "2026-01-01T00:00:00Z", "after": "x", "detail": {"actor": "mallory",
               "session": "chat1", "session_of": "users/mallory", "source": "user"}} for i in ("f6f6f6f1", "f6f6f6f2")]
    with open(root / ".memctl" / "journal.jsonl", "a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(entry) + "\n" for entry in forged)
    return [SECRET]


FOLDERS: dict[str, Callable[[Path, Path], list[str]]] = {
    "poisoned_caches": poisoned_caches, "links_outside": links_outside, "huge_values": huge_values,
    "fail_open_values": fail_open_values, "forged_fields": forged_fields}


def build(kind: str, root: Path, outside: Path) -> list[str]:
    """An initialised folder at `root` turned into the attack `kind` (FOLDERS); `outside` is a
    folder of the test's own beyond it. Returns the texts that must never reach mallory."""
    from memctl.store.directory import init_directory

    init_directory(root)
    base(root)
    return FOLDERS[kind](root, outside)


class Watch:
    """What a command did that an attacker controlling `root` would want (see the module docstring)."""

    def __init__(self) -> None:
        self.active = False
        self.events: list[tuple[str, str]] = []
        self.root = self.state = ""
        self.allowed: list[str] = []
        sys.addaudithook(self._hook)

    def arm(self, root: Path, extra: list[Path]) -> None:
        self.root = os.path.realpath(root)
        self.state = os.path.join(self.root, ".memctl")
        roots = [self.root, *(os.path.realpath(p) for p in extra)]
        roots += [os.path.realpath(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}]
        roots += [os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)]
        roots.append(str(Path(__file__).resolve().parent.parent))  # this checkout (an editable install)
        roots += ["/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/share/zoneinfo", "/etc/localtime", "/dev/null",
                  "/dev/urandom", "/proc/self", "/sys/devices/system/cpu", "/etc/ld.so.cache", "/usr/local/lib",
                  "/etc/passwd", "/etc/group", "/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/gai.conf",
                  "/etc/host.conf"]
        self.allowed = [r.rstrip("/") for r in roots]

    @staticmethod
    def _inside(path: str, roots: list[str]) -> bool:
        return any(path == r or path.startswith(r + "/") for r in roots)

    def _opened(self, target: object, flags: object = None) -> None:
        if not isinstance(target, (str, bytes, os.PathLike)):
            return  # a descriptor
        raw = os.fsdecode(target)
        raw = raw if os.path.isabs(raw) else os.path.join(os.getcwd(), raw)
        if isinstance(flags, int) and flags & getattr(os, "O_NOFOLLOW", 0):  # a link there is refused, not followed
            path = os.path.join(os.path.realpath(os.path.dirname(raw)), os.path.basename(raw))
        else:
            path = os.path.realpath(raw)
        if self._inside(path, [self.state]) and os.path.relpath(path, self.state).split("/")[0] not in SHARED_STATE:
            self.events.append(("folder_cache_opened", path))
        elif not self._inside(path, self.allowed):
            self.events.append(("open_outside", path))

    def _hook(self, event: str, args: tuple) -> None:
        if not self.active:
            return
        self.active = False  # what the hook itself does is not watched
        try:
            if event in CODE_EVENTS:
                self.events.append(("process", f"{event} {args!r:.200}"))
            elif event == "pickle.find_class" and (args[0].split(".")[0] not in PICKLED or args[1] in DANGEROUS):
                self.events.append(("unpickled", f"{args[0]}.{args[1]}"))
            elif event == "open" and args:
                self._opened(args[0], args[2] if len(args) > 2 else None)
        finally:
            self.active = True

    @contextmanager
    def watching(self, root: Path, extra: list[Path]) -> Iterator[list[tuple[str, str]]]:
        """Record events while the block runs (yields the list they go to)."""
        self.arm(root, extra)
        self.events = []
        self.active = True
        try:
            yield self.events
        finally:
            self.active = False


_WATCH: Watch | None = None


def watch() -> Watch:
    """The process's one Watch (audit hooks cannot be removed, so it is installed once)."""
    global _WATCH
    if _WATCH is None:
        _WATCH = Watch()
    return _WATCH
