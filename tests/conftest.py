"""Shared fixtures: every test gets a fake embedder, an unpinned clock and no MEMCTL_* leakage."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

import pytest

from memctl import clock

if TYPE_CHECKING:
    from memctl.search.embedders import Embedder
    from tests.postgres import TestServer

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_memories"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No MEMCTL_* leakage, caches in a folder of the test's own (MEMCTL_CACHE_DIR, beside its
    tmp_path, never in it), an unpinned clock, and (unless marked `model`) the hashing embedder
    registered in place of the shipped and the multilingual model, so most tests need no model (a test
    marked `model` gets the real ones, each loaded once per session)."""
    from memctl.search import embedders

    for name in ("MEMCTL_DIR", "MEMCTL_STORE", "MEMCTL_NOW", "MEMCTL_SERVER", "MEMCTL_TOKEN", "MEMCTL_TOKENS", "MEMCTL_LLM", "MEMCTL_AUTO_SERVE", "MEMORY_MIN_CONFIDENCE", "MEMORY_DUPLICATE_THRESHOLD",
                 "MEMORY_MAX_EXTRACTIONS", "MEMORY_MIN_LENGTH", "MEMORY_MAX_LENGTH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("MEMCTL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    previous: dict = {}
    fake = request.node.get_closest_marker("model") is None
    for name in (embedders.DEFAULT_MODEL, embedders.MULTILINGUAL_MODEL):  # "auto" finds the multilingual one
        previous[name] = embedders.register_embedder(name, _hashing if fake else _loaded_once)
    clock.set_now(None)
    yield
    clock.set_now(None)
    for name, factory in previous.items():
        embedders.unregister_embedder(name, factory)


def _hashing(*_: object) -> "Embedder":
    from memctl.search.embedders import HashingEmbedder

    return HashingEmbedder()


_MODELS: dict[tuple[str, int], "Embedder"] = {}


def _loaded_once(name: str, cache_dir: Path | None, batch_size: int) -> "Embedder":
    """The real model, as memctl's own factory builds it, but one instance per session (tests marked
    `model` each used a folder of their own, so each loaded the model again: 1-2 s a test). Both
    models ship their weights in a package, so the folder's model cache plays no part in them."""
    from memctl.core.plugins import EMBEDDERS, load

    if (name, batch_size) not in _MODELS:
        _MODELS[name, batch_size] = load(EMBEDDERS, name)(name, None, batch_size)
    return _MODELS[name, batch_size]


@pytest.fixture(scope="session")
def pg_server() -> Iterator["TestServer"]:
    """One real PostgreSQL for the session (started only when a test asks for it)."""
    from tests.postgres import TestServer

    server = TestServer()
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server: "TestServer") -> Iterator[str]:
    """The URL of a fresh, empty PostgreSQL store (its own schema, dropped afterwards)."""
    url = pg_server.new_url()
    yield url
    pg_server.drop(url)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """Where the `memdir` / `store` / `samples` fixtures keep memories: "files" unless a test is
    parametrised (tests/services/conftest.py runs the behaviour tests on "postgres" too)."""
    return getattr(request, "param", "files")


@pytest.fixture
def memdir(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Path:
    """A fresh, initialised memory directory (for postgres: a folder holding only memctl.toml)."""
    from memctl.store.directory import init_directory

    root = tmp_path / "mem"
    if backend == "postgres":
        from tests.postgres import store_config

        root.mkdir()
        (root / "memctl.toml").write_text(store_config(request.getfixturevalue("pg_url")))
        return root
    init_directory(root)
    return root


@pytest.fixture
def new_memdir(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Callable[..., Path]:
    """Make more fresh memory directories of the test's backend (to move memories between stores):
    new_memdir(name, preset=None)."""
    from memctl.store.directory import init_directory

    def make(name: str, preset: str | None = None) -> Path:
        root = tmp_path / name
        if backend != "postgres":
            init_directory(root, preset)
            return root
        from memctl.store.directory import _config_for
        from tests.postgres import store_config

        server = request.getfixturevalue("pg_server")
        url = server.new_url()
        request.addfinalizer(lambda: server.drop(url))
        root.mkdir()
        (root / "memctl.toml").write_text(store_config(url, _config_for(preset)))
        return root

    return make


@pytest.fixture
def store(memdir: Path):
    from memctl.api import MemoryStore

    return MemoryStore(memdir)


@pytest.fixture
def samples(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Path:
    """A private copy of sample_memories/ (with config), safe to change; for postgres, its memories
    imported into a fresh database (`import --from folder`) and the folder's texts beside memctl.toml."""
    from memctl.store.directory import init_directory

    target = tmp_path / "samples"
    shutil.copytree(SAMPLES, target, ignore=shutil.ignore_patterns(".memctl"))
    init_directory(target)
    if backend != "postgres":
        return target
    from memctl.api import MemoryStore
    from tests.postgres import store_config

    root = tmp_path / "samples-pg"
    root.mkdir()
    for name in ("MEMORY.md.template", "extract_prompt.md"):
        shutil.copy(target / name, root / name)
    (root / "memctl.toml").write_text(store_config(request.getfixturevalue("pg_url"), (target / "memctl.toml").read_text()))
    report = MemoryStore(root).import_from("folder", str(target))
    assert report.summary["refused"] == 0, report.to_data()
    return root
