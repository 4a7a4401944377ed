"""The house rules: layers point one way, no import cycles, only store/ touches stored memories.

Every import counts, including ones inside functions and under TYPE_CHECKING: a lazy import is
still a dependency. See docs/architecture.md for the layers and where new code goes.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

PACKAGE = ROOT / "memctl"
BASE = {"memctl.errors", "memctl.clock", "memctl.config", "memctl._version"}

# layer -> the layers it may import (besides itself and the base modules)
ALLOWED: dict[str, set[str]] = {
    "base": set(),
    "core": set(),
    "policy": {"core"},
    "prompt": {"core", "policy"},
    "store": {"core"},
    "search": {"core", "store"},
    "services": {"core", "policy", "prompt", "store", "search"},
    "api": {"core", "store", "search", "services"},
    "agents": {"core", "api", "store"},  # store: the lean server record and directory lookup (docs/architecture.md)
    "cli": {"core", "api", "agents", "store"},  # store: the lean lookups of the fast paths (docs/architecture.md)
    "integrations": {"core", "api", "agents"},  # framework adapters beside agents/: agents' tool registry, no store
    "top": {"api", "cli"},
}
# Packages that may open, create, move or delete files, and why.
FILE_IO = {
    "store": "the only code that touches stored memories",
    "search": "its own caches under the folder the repository gives it",
}
FILE_IO_MODULES = {"memctl.cli.inputs": "TEXT, stdin, files the user names, $EDITOR's temp file",
                   "memctl.agents.stdio": "memctl mcp's stdin and stdout descriptors (fd 0 to the null device)"}
IO_ATTRS = {"read_text", "write_text", "read_bytes", "write_bytes", "unlink", "mkdir", "rmdir", "rglob", "glob",
            "iterdir", "touch", "rename", "replace", "open", "scandir", "listdir", "makedirs", "remove", "walk"}
IO_MODULES = {"shutil", "tempfile", "sqlite3", "psycopg", "fcntl"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def layer(module: str) -> str:
    if module in BASE:
        return "base"
    if module in ("memctl", "memctl.__main__"):
        return "top"
    if module == "memctl.api":
        return "api"
    return module.split(".")[1]


def imports(module: str) -> set[str]:
    """Every memctl module `module` imports, anywhere in its source."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            for alias in node.names:  # `from memctl import clock` imports memctl.clock, not memctl
                out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    return {m for m in out if m in MODULES and m != module}


GRAPH = {m: imports(m) for m in MODULES}


def test_the_graph_sees_the_whole_package() -> None:
    assert len(MODULES) > 40 and GRAPH["memctl.cli.main"] and GRAPH["memctl.api"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_upward_import(module: str) -> None:
    mine = layer(module)
    allowed = {mine, "base", *ALLOWED[mine]}
    wrong = sorted(m for m in GRAPH[module] if layer(m) not in allowed)
    assert not wrong, f"{module} ({mine}) imports a higher or unrelated layer: {wrong}"


def test_agents_and_cli_reach_only_the_lean_store_modules() -> None:
    """agents/ and cli/ may read the server record, find the directory and list its names (the CLI's
    forwarding and completion paths), never stored memories: those go through the facade."""
    lean = {"memctl.store", "memctl.store.server_record", "memctl.store.serverlock", "memctl.store.locate", "memctl.store.names",
            "memctl.store.hookfiles"}  # Claude Code's settings file, its transcript, the hooks' log: no memory
    for module in (m for m in MODULES if layer(m) in ("agents", "cli")):
        wrong = sorted(m for m in GRAPH[module] if layer(m) == "store" and m not in lean)
        assert not wrong, f"{module} imports {wrong}"


def test_search_and_services_reach_backends_only_through_the_seam() -> None:
    """search/ and services/ know no backend: they type against store/repository.py's protocols
    (the engine reads `Snapshots`, a database's search gets core's KeywordSpec), never a backend's
    module, so a plugin backend needs no change above store/."""
    backends = {m for m in MODULES if m.startswith(("memctl.store.postgres", "memctl.store.filerepo",
                                                    "memctl.store.claude"))}
    for module in (m for m in MODULES if layer(m) in ("search", "services")):
        wrong = sorted(GRAPH[module] & backends)
        assert not wrong, f"{module} imports a backend: {wrong}"


def test_no_import_cycles() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in GRAPH[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    # a package's __init__ importing its own submodule is not a cycle of layers
    assert not cycles, f"import cycles: {cycles}"


@pytest.mark.parametrize("lower", ["memctl.core.models", "memctl.store.filerepo", "memctl.search.engine",
                                   "memctl.policy.decide", "memctl.prompt.context", "memctl.services.write",
                                   "memctl.api"])
def test_a_lower_layer_loads_no_higher_one_in_a_fresh_interpreter(lower: str) -> None:
    code = f"import sys, {lower}; print('\\n'.join(m for m in sys.modules if m.startswith('memctl')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=ROOT).stdout.split()
    allowed = {layer(lower), "base", "top", *ALLOWED[layer(lower)]}
    wrong = sorted(m for m in loaded if m in MODULES and layer(m) not in allowed)
    assert not wrong, f"importing {lower} loads {wrong}"


def _file_io(module: str) -> list[str]:
    """Calls that open, create, move or delete files, with their line numbers."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "open":
                found.append(f"line {node.lineno}: open()")
            elif isinstance(func, ast.Attribute) and func.attr in IO_ATTRS and not _is_str_method(func):
                found.append(f"line {node.lineno}: .{func.attr}()")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            found += [f"line {node.lineno}: import {n}" for n in names if n.split(".")[0] in IO_MODULES]
    return found


def _is_str_method(func: ast.Attribute) -> bool:
    """`text.replace(...)` is a str method and `MemoryStore.open(...)` a constructor, not file I/O."""
    if func.attr == "replace":
        return not (isinstance(func.value, ast.Name) and func.value.id == "os")
    return func.attr == "open" and isinstance(func.value, ast.Name) and func.value.id[:1].isupper()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_only_store_touches_files(module: str) -> None:
    if layer(module) in FILE_IO or module in FILE_IO_MODULES:
        return
    assert not _file_io(module), f"{module} does file I/O (only {', '.join(FILE_IO)} may): {_file_io(module)}"


def test_the_file_io_check_finds_file_io() -> None:
    assert any("write_text" in f or "open()" in f for f in _file_io("memctl.store.files"))
    assert _file_io("memctl.cli.inputs")


def test_every_facade_method_has_a_docstring() -> None:
    from memctl.api import MemoryStore

    public = {name: getattr(MemoryStore, name) for name in dir(MemoryStore) if not name.startswith("_")}
    missing = sorted(name for name, member in public.items() if callable(member) and not (member.__doc__ or "").strip())
    assert not missing, f"MemoryStore methods without a docstring: {missing}"
    for capability in ("add", "gate", "import_text", "recall", "context", "write_memory_md", "compact", "undo_compaction",
                       "dedupe", "conflicts", "log", "extract", "list", "get", "show", "edit", "forget", "restore",
                       "history", "stats", "doctor", "reindex"):
        assert capability in public, capability
