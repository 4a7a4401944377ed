"""Run memctl's CLI under an audit hook: `python tests/audited.py REPORT ROOT -- memctl arguments`.

The hook is installed before memctl is imported and watches what an attacker who controls the memory
folder ROOT would want: a process started (os.system, subprocess, exec, spawn), a pickle naming a
global memctl's own caches never hold (os.system, builtins.eval...), a cache file opened in the
folder's `.memctl/` (only the lock, the journal and compaction records are the folder's), and a
file opened outside the places memctl may read (the folder, this user's memctl cache, the Python
installation, the system's libraries). Each event is written to REPORT, one JSON line, and the
command still runs, so a test sees both what it printed and what it tried.
"""

from __future__ import annotations

import json
import os
import sys

REPORT, ROOT = sys.argv[1], os.path.realpath(sys.argv[2])
ARGS = sys.argv[sys.argv.index("--") + 1:]
STATE = os.path.join(ROOT, ".memctl")
SHARED = ("lock", "journal.jsonl", "compactions", "claude-index.json", ".gitignore")  # what .memctl/ may hold
CODE_EVENTS = {"os.system", "subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
               "os.startfile", "pty.spawn"}


def _allowed_roots() -> list[str]:
    cache = os.environ.get("MEMCTL_CACHE_DIR")
    roots = [ROOT, *(p for p in (cache,) if p)]
    roots += [os.path.realpath(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}]
    roots += [os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)]
    roots.append(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # this checkout (an editable install)
    roots += ["/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/share/zoneinfo", "/etc/localtime", "/dev/null",
              "/dev/urandom", "/proc/self", "/sys/devices/system/cpu", "/etc/ld.so.cache", "/usr/local/lib",
              "/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/gai.conf",
              "/etc/passwd", "/etc/group"]
    return [r.rstrip("/") for r in roots]


ALLOWED = _allowed_roots()
PICKLED = {"whoosh", "memctl", "builtins", "__builtin__", "copyreg", "copy_reg", "collections", "array", "datetime", "_codecs"}
DANGEROUS = {"eval", "exec", "compile", "getattr", "__import__", "system", "open", "popen", "Popen", "run"}
_busy = False


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r + "/") for r in roots)


def _report(kind: str, detail: str) -> None:
    global _busy
    _busy = True  # writing the report opens a file too
    try:
        with open(REPORT, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"kind": kind, "detail": detail}) + "\n")
    finally:
        _busy = False


def _opened(target: object) -> None:
    if not isinstance(target, (str, bytes, os.PathLike)):
        return  # a descriptor
    raw = os.fsdecode(target)
    path = os.path.realpath(raw) if os.path.isabs(raw) else os.path.realpath(os.path.join(os.getcwd(), raw))
    if _inside(path, [STATE]) and os.path.relpath(path, STATE).split("/")[0] not in SHARED:
        _report("folder_cache_opened", path)  # a cache file someone put in the shared folder
    elif not _inside(path, ALLOWED):
        _report("open_outside", path)


def _unpickled(module: str, name: str) -> bool:
    """True for a global a pickle names that memctl's own caches never hold (whoosh's index, made
    by memctl in its private cache, names whoosh's and memctl's classes and a few containers)."""
    return module.split(".")[0] not in PICKLED or name in DANGEROUS


def hook(event: str, args: tuple) -> None:
    if _busy:
        return
    if event in CODE_EVENTS:
        _report("process", f"{event} {args!r:.200}")
    elif event == "ctypes.dlopen" and args and args[0] is not None:
        _opened(args[0])
    elif event == "pickle.find_class" and _unpickled(*args[:2]):
        _report("unpickled", f"{args[0]}.{args[1]}")
    elif event == "open" and args:
        _opened(args[0])


sys.addaudithook(hook)
sys.argv = ["memctl", *ARGS]
from memctl.cli.entry import main  # noqa: E402  (after the hook, so every import is watched)

main()
