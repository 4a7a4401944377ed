"""Plugins (core/plugins.py): a small plugin package, installed by pip into a temporary folder,
gives a backend (the `demo://` store URL scheme) and an embedder (`demo-letters`) that memctl uses
by name; memctl's own are registered the same way; a plugin inside the memory folder is never loaded."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from memctl.core import plugins

PACKAGE = Path(__file__).parent / "fixtures" / "plugin_pkg"
ROOT = Path(__file__).resolve().parent.parent


def _record(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(source: Path, out: Path) -> Path:
    """The package's wheel (no build backend needed: the test machine has no `wheel` package)."""
    meta = tomllib.loads((source / "pyproject.toml").read_text())
    project, modules = meta["project"], meta["tool"]["setuptools"]["py-modules"]
    dist = f"{project['name'].replace('-', '_')}-{project['version']}"
    points = "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in items.items()) + "\n"
                     for group, items in project["entry-points"].items())
    files = {f"{m}.py": (source / f"{m}.py").read_bytes() for m in modules}
    files[f"{dist}.dist-info/METADATA"] = (f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                           f"Version: {project['version']}\n").encode()
    files[f"{dist}.dist-info/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: memctl-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{dist}.dist-info/entry_points.txt"] = points.encode()
    record = [_record(name, data) for name, data in files.items()] + [f"{dist}.dist-info/RECORD,,"]
    files[f"{dist}.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = out / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugin package installed by pip (no index, no dependencies) into a folder of its own."""
    work = tmp_path_factory.mktemp("plugin")
    target = work / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                           "--target", str(target), str(build_wheel(PACKAGE, work))],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return target


def _configure(memdir: Path, url: str, model: str) -> None:
    config = memdir / "memctl.toml"
    text = config.read_text()
    text = re.sub(r'(?m)^url = ""$', f'url = "{url}"', text)
    text = re.sub(r'(?m)^model = ".*"$', f'model = "{model}"', text)
    config.write_text(re.sub(r'(?m)^second_model = ".*"$', 'second_model = "none"', text))


def _memctl(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "memctl", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def test_the_shipped_backends_and_embedders_are_declared_as_entry_points() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert {group: declared[group] for group in plugins.SHIPPED} == plugins.SHIPPED
    assert plugins.entry_points(plugins.BACKENDS)["postgresql"].value.endswith(":PostgresRepository")


def test_a_plugin_backend_and_embedder_are_used_by_name(site: Path, memdir: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from memctl.api import MemoryStore
    from memctl.search.embedders import get_embedder

    _configure(memdir, "demo://alice", "demo-letters")
    monkeypatch.syspath_prepend(str(site))
    store = MemoryStore(memdir)
    assert type(store.repo).__name__ == "DemoRepository" and store.repo.url == "demo://alice"  # type: ignore[attr-defined]
    assert type(get_embedder("demo-letters", None)).__name__ == "LettersEmbedder"
    store.add("Alice keeps two beehives on the roof", user="alice", type="fact")
    store.add("Bob plays chess on Thursdays", user="bob", type="fact")
    hits = store.recall("beehives on a roof", mode="semantic", min_relevance=0.0).hits
    assert hits[0].content == "Alice keeps two beehives on the roof"
    done = _memctl(site, memdir.parent, "-d", str(memdir), "recall", "beehives", "--mode", "semantic", "--all")
    assert done.returncode == 0 and "beehives" in done.stdout, done.stderr


def test_an_unknown_scheme_is_a_one_line_error(memdir: Path, site: Path) -> None:
    _configure(memdir, "nosuch://x", "demo-letters")
    done = _memctl(site, memdir.parent, "-d", str(memdir), "stats")
    assert done.returncode != 0 and "no backend for 'nosuch://x'" in done.stderr and "Traceback" not in done.stderr


def test_a_plugin_in_the_memory_folder_is_never_loaded(memdir: Path, site: Path) -> None:
    """The folder is attacker-controlled: a package planted in it (and the working directory, which
    `python -m` puts on sys.path) registers nothing, and its code never runs."""
    marker = memdir.parent / "planted-code-ran"
    (memdir / "evil.py").write_text(f"open({str(marker)!r}, 'w').close()\nclass Repo: pass\n")
    info = memdir / "evil-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[memctl.backends]\nevil = evil:Repo\n")
    _configure(memdir, "evil://x", "memctl/all-MiniLM-L6-v2-int8")
    done = _memctl(site, memdir, "-d", ".", "stats")
    assert done.returncode != 0 and "no backend for 'evil://x'" in done.stderr, done.stderr
    assert not marker.exists()
    assert "evil" not in plugins.entry_points(plugins.BACKENDS, [memdir])
